"""Inverse dynamics with full joint reaction wrenches (recursive Newton-Euler, vectorized over samples),
and the checks every study reports: power balance and per-link equilibrium.

Joint wrench convention: [Fx, Fy, Fz, Mx, My, Mz] exerted BY THE PARENT ON THE CHILD at the joint origin
(the child frame origin), in child axes. Its component along the joint axis is the actuator torque/force.

The recursion works on component-major blocks of samples in frames where every joint turns about z (see
structcheck.rigid.kinematics): the Newton-Euler equations of all links are evaluated at once, and the wrenches are
carried from child to parent by one constant 3x3 product and one plane rotation per joint.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..notes import Note
from .kinematics import (LinkKinematics, cross, cross_const, kinematics_blocks, new_kinematics, plan, rotate,
                         turn_z)


@dataclass(frozen=True)
class Inertials:
    """Rigid inertial parameters used by the dynamics, per link: mass (nl,) [kg], com (nl, 3) [m] and
    inertia (nl, 3, 3) about the COM [kg m^2], link axes (link + its point masses + attached payloads)."""

    mass: np.ndarray
    com: np.ndarray
    inertia: np.ndarray


@dataclass(frozen=True)
class Dynamics:
    """``tau`` (n_t, n_dof) generalized forces of the independent joints [N m or N]; ``joint_names`` every
    joint; ``joint_wrenches`` (n_t, n_joints, 6) [Fx, Fy, Fz, Mx, My, Mz] [N, N m] parent on child at the joint
    origin, child axes; ``joint_wrenches_world`` the same in world axes (still about the joint origin);
    ``kinematics`` of the links and their ``inertials``.

    ``undetermined`` (n_joints, 6) bool: wrench components the model does not determine (the values given are
    those of the open tree), as in :class:`structcheck.rigid.closedchain.ClosedChainDynamics`; here the joints of
    the loops that URDF mimic joints stand for (see :func:`mimic_loops`). ``warnings``: one sentence per
    such loop, naming its joints."""

    tau: np.ndarray
    joint_names: tuple
    joint_wrenches: np.ndarray
    joint_wrenches_world: np.ndarray
    kinematics: LinkKinematics
    inertials: Inertials
    undetermined: np.ndarray | None = None
    warnings: tuple = ()


def _skew_inertia(m, d):
    """Parallel-axis term m (|d|^2 I - d d^T) for (3,) d."""
    return m * (np.dot(d, d) * np.eye(3) - np.outer(d, d))


def link_inertials(robot, payloads=None) -> Inertials:
    """Combine each link's own inertia with its point masses and the payloads attached at named points.

    ``payloads``: point name -> (mass [kg], inertia (3, 3) about the point in link axes, or None)."""
    nl = len(robot.links)
    mass, com, inertia = np.zeros(nl), np.zeros((nl, 3)), np.zeros((nl, 3, 3))
    extra = {i: [] for i in range(nl)}
    for i, ln in enumerate(robot.links):
        extra[i].append((ln.mass, np.asarray(ln.com, float), np.asarray(ln.inertia, float)))
        for pm in ln.point_masses:
            extra[i].append((pm.mass, np.asarray(pm.position, float), np.zeros((3, 3))))
    for pname, val in (payloads or {}).items():
        if pname not in robot.points:
            raise InputError(f"payload at unknown point {pname!r}; the robot's points are {sorted(robot.points)}")
        m, I = (val, None) if np.isscalar(val) else val
        lname, xyz = robot.points[pname]
        extra[robot.link_names.index(lname)].append((float(m), xyz, np.zeros((3, 3)) if I is None
                                                     else np.asarray(I, float)))
    for i, parts in extra.items():
        m = sum(p[0] for p in parts)
        if m <= 0:
            continue
        c = sum(p[0] * p[1] for p in parts) / m
        I = sum(p[2] + _skew_inertia(p[0], p[1] - c) for p in parts)
        mass[i], com[i], inertia[i] = m, c, I
    return Inertials(mass, com, inertia)


def mimic_loops(robot) -> tuple:
    """The joints whose wrenches a mimic joint leaves undetermined: (mask (n_joints, 6) bool, warnings tuple).

    A URDF ``<mimic>`` joint follows its source joint through a mechanism that the model does not contain
    (a parallelogram's connecting bar, a belt, gears) and whose geometry URDF does not give. The torques are
    right (virtual work on the coupled coordinates), but the loop's internal forces are missing: the mimic
    joint, its source and every joint on the tree path between their parent links carry open-tree wrenches
    (e.g. a moment about a passive pin's axis, no bar force). All six components of those joints are flagged;
    joints outside the loop (upstream of it or beyond its links) are exact, since the loop's internal forces
    cancel there."""
    nj = len(robot.joints)
    mask = np.zeros((nj, 6), bool)
    idx = {j.name: k for k, j in enumerate(robot.joints)}

    def to_base(link):
        return [idx[j.name] for j in robot.path_to_base(link)]

    loops = {}  # source joint -> (mimic joints, loop joints)
    for k, j in enumerate(robot.joints):
        if j.mimic is None:
            continue
        s = idx[j.mimic[0]]
        between = set(to_base(j.parent)) ^ set(to_base(robot.joints[s].parent))
        mimics, joints = loops.setdefault(s, ([], set()))
        mimics.append(k)
        joints |= between | {k, s}
    warnings = []
    for s, (mimics, joints) in loops.items():
        mask[sorted(joints)] = True
        names = [robot.joints[k].name for k in sorted(joints)]
        warnings.append(Note(
            f"mimic joint{'s' if len(mimics) > 1 else ''} {[robot.joints[k].name for k in mimics]} follow"
            f"{'' if len(mimics) > 1 else 's'} {robot.joints[s].name!r} through a loop the model does not contain: "
            f"the wrenches of {names} are an open tree's",
            detail="URDF <mimic> gives neither the loop nor its geometry, so the loop's internal forces are not "
                   "modelled: the torques are exact, but those joints' wrenches are flagged undetermined (all six "
                   "components)",
            advice="for a mimic loop's bearing loads, model the loop as a structcheck.ClosedChain with cut joints"))
    return mask, tuple(warnings)


def _point_forces(robot, point_forces, n_t):
    """Validated point loads: list of (link index, xyz (3,) link frame, force (n_t, 3) world axes, moment about the
    point (n_t, 3) world axes or None). A load is a force (3,) or a force and a moment (6,), or (n_t, 3 or 6)."""
    out = []
    for pname, f in (point_forces or {}).items():
        if pname not in robot.points:
            raise InputError(f"point force at unknown point {pname!r}; the robot's points are "
                             f"{sorted(robot.points)}")
        f = np.asarray(f, float)
        f = np.broadcast_to(f, (n_t, 6 if f.shape[-1:] == (6,) else 3))
        if not np.all(np.isfinite(f)):
            raise InputError(f"the force at point {pname!r} is not finite")
        lname, xyz = robot.points[pname]
        out.append((robot.link_names.index(lname), np.asarray(xyz, float), f[:, :3], f[:, 3:] if f.shape[1] == 6
                    else None))
    return out


def _external(robot, kin, point_forces, n_t):
    """Per link: force (n_t, nl, 3) and moment about the origin (n_t, nl, 3) of the point loads, link axes."""
    nl = len(robot.links)
    F = np.zeros((n_t, nl, 3))
    M = np.zeros((n_t, nl, 3))
    for i, xyz, f, mo in _point_forces(robot, point_forces, n_t):
        fl = np.einsum("tji,tj->ti", kin.T_world_link[:, i, :3, :3], f)
        F[:, i] += fl
        M[:, i] += np.cross(xyz, fl)
        if mo is not None:
            M[:, i] += np.einsum("tji,tj->ti", kin.T_world_link[:, i, :3, :3], mo)
    return F, M


def _link_wrenches(TF, VF, m, c, I_F, g, forces):
    """Newton-Euler of every link at once for one block of n samples, F axes (component-major): the force and
    moment about the link origin (n_links, 2, 3, n) that the rest of the robot must exert on each link (the
    base's is computed but not used: the ground carries it). ``m`` (nl, 1), ``c`` (3, nl, 1) and ``I_F`` (nl,
    3, 3) in F axes; ``forces`` [(link, xyz in F axes, force (n, 3) world, moment (n, 3) world or None)]."""
    n = TF.shape[-1]
    R = TF[:, :3, :3]
    w, al, a = VF[0].swapaxes(0, 1), VF[1].swapaxes(0, 1), VF[3].swapaxes(0, 1)  # (3, nl, n)
    acc = a + cross(al, c)
    acc += cross(w, cross(w, c))
    for i in range(3):
        if g[i] != 0:
            acc -= R[:, i].swapaxes(0, 1) * g[i]  # gravity in F axes: rows of R_world_F
    G = np.empty((len(m), 2, 3, n))
    F = G[:, 0].swapaxes(0, 1)
    np.multiply(acc, m, out=F)
    N = G[:, 1]
    np.matmul(I_F, VF[1], out=N)
    N += cross(w, np.matmul(I_F, VF[0]).swapaxes(0, 1)).swapaxes(0, 1)
    N += cross(c, F).swapaxes(0, 1)
    for l, xyz, f, mo in forces:
        fT = f.T
        fl = R[l, 0] * fT[0] + R[l, 1] * fT[1] + R[l, 2] * fT[2]  # R_world_F^T f
        G[l, 0] -= fl
        G[l, 1] += cross_const(fl, xyz)
        if mo is not None:
            mT = mo.T
            G[l, 1] -= R[l, 0] * mT[0] + R[l, 1] * mT[1] + R[l, 2] * mT[2]
    return G


def _carry_to_parents(pl, G, cs, qj):
    """Children before parents: add to every link's wrench G (n_links, 2, 3, n) those of the links beyond it,
    so that G of a joint's child is what the joint carries. ``cs`` {joint: (cos q, sin q)}, ``qj`` (n, n_joints)."""
    Z = np.empty((2, 3, G.shape[-1]))
    for st in reversed(pl.steps):
        if st.parent == pl.base:
            continue
        Gc, Gp = G[st.child], G[st.parent]
        if st.kind == "revolute":
            co, s = cs[st.k]
            turn_z(Gc, co, s, Z)
            Zp = np.matmul(st.M, Z)
        else:
            Zp = np.matmul(st.M, Gc)
        Gp += Zp
        if st.kind == "prismatic":
            Gp[1] += cross(st.r[:, None] + st.d[:, None] * qj[:, st.k], Zp[0])
        elif st.r.any():
            Gp[1] -= cross_const(Zp[0], st.r)


def inverse_dynamics(robot, q, qd, qdd, gravity=(0.0, 0.0, -9.81), point_forces=None, payloads=None) -> Dynamics:
    """Joint torques and reaction wrenches for samples q, qd, qdd (n_t, n_dof) (absolute joint values [rad, m]
    and rates, ``robot.dof_names`` order; (n_dof,) for one sample).

    ``gravity`` (3,) world [m/s^2]; ``point_forces``: point name -> force (n_t, 3) or (3,) in world axes [N], or
    force and moment about the point (n_t, 6) or (6,) [N, N m] (a payload's wrench: structcheck.cases.events);
    ``payloads``: point name -> mass [kg] or (mass, inertia (3, 3) about the point in link axes [kg m^2]).
    Returns :class:`Dynamics` (tau (n_t, n_dof), joint_wrenches (n_t, n_joints, 6), undetermined, warnings,
    ...). Mimic joints: tau by virtual work, loop joints flagged (see :func:`mimic_loops`)."""
    qj = robot.joint_values(q)
    n_t = qj.shape[0]
    qdj = robot.joint_rates(robot.check_q(qd, "qd"))
    qddj = robot.joint_rates(robot.check_q(qdd, "qdd"))
    if qdj.shape[0] != n_t or qddj.shape[0] != n_t:
        raise ValueError("q, qd and qdd must have the same number of samples")
    inert = link_inertials(robot, payloads)
    forces = _point_forces(robot, point_forces, n_t)
    g = np.asarray(gravity, float).reshape(3)
    nl, nj = len(robot.links), len(robot.joints)
    pl = plan(robot)
    # inertial parameters and point-force positions in the links' F axes (see kinematics.plan)
    c_F, I_F = inert.com.copy(), inert.inertia.copy()
    for l, Q in enumerate(pl.Q):
        if Q is not None:
            c_F[l], I_F[l] = Q.T @ c_F[l], Q.T @ I_F[l] @ Q
    forces = [(l, xyz if pl.Q[l] is None else pl.Q[l].T @ xyz, f, mo) for l, xyz, f, mo in forces if l != pl.base]
    m = inert.mass[:, None]  # (nl, 1) against (3, nl, n)
    c = c_F.T[:, :, None]  # (3, nl, 1)
    child = np.array([robot.link_names.index(j.child) for j in robot.joints], dtype=np.intp)
    # joints in link order (the usual case) are a slice of the per-link arrays, not a gather
    by_child = slice(child[0], child[0] + nj) if nj and np.array_equal(child, np.arange(child[0], child[0] + nj)) \
        else child
    col = {n: k for k, n in enumerate(robot.dof_names)}
    actuated = []  # (child link, tau column, multiplier, 0 force / 1 moment): its z component in F axes
    for k, j in enumerate(robot.joints):
        if j.movable:
            src, mult = (j.name, 1.0) if j.mimic is None else (j.mimic[0], j.mimic[1])
            actuated.append((child[k], col[src], mult, 0 if j.type == "prismatic" else 1))
    Q_child = [(k, pl.Q[child[k]]) for k in range(nj) if pl.Q[child[k]] is not None]

    T, V, spare = new_kinematics(n_t, nl, extra=2 * nj * 6)
    WW = spare.reshape(2, n_t, nj, 6)  # joint wrenches in child axes, then in world axes
    tau = np.zeros((n_t, robot.n_dof))
    for sl, TF, VF, cs in kinematics_blocks(robot, qj, qdj, qddj, T, V):
        n = TF.shape[-1]
        R = TF[:, :3, :3]
        G = _link_wrenches(TF, VF, m, c, I_F, g, [(l, xyz, f[sl], None if mo is None else mo[sl])
                                                     for l, xyz, f, mo in forces])
        _carry_to_parents(pl, G, cs, qj[sl])
        GG = np.empty((2, nj, 2, 3, n))
        Gj = G[by_child]
        GG[0] = Gj
        for k, Q in Q_child:
            np.matmul(Q, Gj[k], out=GG[0, k])  # F -> child link axes
        rotate(R[by_child], Gj, out=GG[1])  # world axes, about the joint origin
        np.copyto(WW[:, sl], GG.reshape(2, nj, 6, n).transpose(0, 3, 1, 2))
        for ch, ci, mult, o in actuated:
            # the axis component; virtual work: a mimic joint's torque acts through its multiplier
            tau[sl, ci] += G[ch, o, 2] if mult == 1.0 else mult * G[ch, o, 2]
    undetermined, warnings = mimic_loops(robot)
    return Dynamics(tau=tau, joint_names=robot.joint_names, joint_wrenches=WW[0], joint_wrenches_world=WW[1],
                    kinematics=LinkKinematics(T, V[0], V[1], V[2], V[3]), inertials=inert,
                    undetermined=undetermined, warnings=warnings)


def _energy_rate(dyn: Dynamics, gravity) -> np.ndarray:
    """dE/dt (n_t,) of kinetic + gravitational potential energy, computed analytically [W]."""
    kin, inert = dyn.kinematics, dyn.inertials
    c = inert.com[None]
    w, al = kin.omega, kin.alpha
    v_com = kin.v_origin + np.cross(w, c)
    a_com = kin.a_origin + np.cross(al, c) + np.cross(w, np.cross(w, c))
    g = np.einsum("tlji,j->tli", kin.T_world_link[..., :3, :3], np.asarray(gravity, float))
    m = inert.mass[None, :]
    trans = np.sum(m * np.einsum("tli,tli->tl", v_com, a_com - g), axis=1)
    rot = np.sum(np.einsum("tli,lij,tlj->tl", w, inert.inertia, al), axis=1)
    return trans + rot


def _external_power(robot, dyn: Dynamics, point_forces) -> np.ndarray:
    """Power (n_t,) of the external point forces [W]."""
    kin = dyn.kinematics
    P = np.zeros(kin.omega.shape[0])
    for i, xyz, f, mo in _point_forces(robot, point_forces, len(P)):
        v = kin.v_origin[:, i] + np.cross(kin.omega[:, i], xyz)
        P += np.einsum("ti,ti->t", f, np.einsum("tij,tj->ti", kin.T_world_link[:, i, :3, :3], v))
        if mo is not None:
            P += np.einsum("ti,ti->t", mo, np.einsum("tij,tj->ti", kin.T_world_link[:, i, :3, :3], kin.omega[:, i]))
    return P


def power_balance(robot, q, qd, qdd, dyn: Dynamics, gravity=(0.0, 0.0, -9.81), point_forces=None) -> float:
    """Relative power balance: max |sum tau qd + P_ext - dE/dt| / max |sum tau qd| over the samples, with dE/dt
    analytic from ``dyn``'s link kinematics and inertials.

    ``qd`` (n_t, n_tau): the rates of the coordinates that ``dyn.tau`` (n_t, n_tau) drives (a closed chain's
    actuated ones, with its ClosedChainDynamics as ``dyn``); ``q`` and ``qdd`` are not used."""
    qd = np.atleast_2d(np.asarray(qd, float))
    p_act = np.sum(dyn.tau * qd, axis=1)
    dE = _energy_rate(dyn, gravity)
    res = p_act + _external_power(robot, dyn, point_forces) - dE
    scale = np.max(np.abs(p_act))
    if scale == 0:
        scale = max(np.max(np.abs(dE)), 1e-300)
    return float(np.max(np.abs(res)) / scale)


def free_body_wrenches(robot, dyn: Dynamics, gravity=(0.0, 0.0, -9.81), point_forces=None):
    """Gravity, point forces and d'Alembert inertia (minus the rate of momentum) on every link: force F and moment
    N about the link frame origin, each (n_t, n_links, 3) [N, N m] in link axes. The joint wrenches on a link
    balance them."""
    kin, inert = dyn.kinematics, dyn.inertials
    c = inert.com[None]
    a_com = kin.a_origin + np.cross(kin.alpha, c) + np.cross(kin.omega, np.cross(kin.omega, c))
    g = np.einsum("tlji,j->tli", kin.T_world_link[..., :3, :3], np.asarray(gravity, float))
    F = inert.mass[None, :, None] * (g - a_com)
    Iw = np.einsum("lij,tlj->tli", inert.inertia, kin.omega)
    N = np.cross(c, F) - np.einsum("lij,tlj->tli", inert.inertia, kin.alpha) - np.cross(kin.omega, Iw)
    Fe, Me = _external(robot, kin, point_forces, len(F))
    return F + Fe, N + Me


def link_equilibrium(robot, dyn: Dynamics, gravity=(0.0, 0.0, -9.81), point_forces=None) -> np.ndarray:
    """Relative Newton-Euler residual (n_t, n_links) of every link: all wrenches on it (parent joint, children
    joints, gravity, point forces) minus its rate of momentum, relative to |F| + |M|/l (l the robot's size)."""
    kin = dyn.kinematics
    n_t, nl = kin.omega.shape[:2]
    idx = {n: k for k, n in enumerate(robot.link_names)}
    R_wl = kin.T_world_link[..., :3, :3]
    p_wl = kin.T_world_link[..., :3, 3]
    F, N = free_body_wrenches(robot, dyn, gravity, point_forces)
    scale = np.zeros((n_t, nl))
    size = max(1e-3, float(np.ptp(p_wl.reshape(-1, 3), axis=0).max()))
    for k, j in enumerate(robot.joints):
        ch, p = idx[j.child], idx[j.parent]
        f, n = dyn.joint_wrenches[:, k, :3], dyn.joint_wrenches[:, k, 3:]
        F[:, ch] += f
        N[:, ch] += n
        # on the parent: minus the wrench, moved from the child origin to the parent origin, parent axes
        R_pc = np.einsum("tji,tjk->tik", R_wl[:, p], R_wl[:, ch])
        r = np.einsum("tji,tj->ti", R_wl[:, p], p_wl[:, ch] - p_wl[:, p])
        fp = np.einsum("tij,tj->ti", R_pc, f)
        F[:, p] -= fp
        N[:, p] -= np.einsum("tij,tj->ti", R_pc, n) + np.cross(r, fp)
        mag = np.linalg.norm(f, axis=1) + np.linalg.norm(n, axis=1) / size
        scale[:, ch] = np.maximum(scale[:, ch], mag)
        scale[:, p] = np.maximum(scale[:, p], mag)
    res = np.linalg.norm(F, axis=2) + np.linalg.norm(N, axis=2) / size
    res[:, idx[robot.base]] = 0.0  # the base's ground reaction is not computed: nothing to check
    return res / np.maximum(scale.max(axis=0, keepdims=True), 1e-300)
