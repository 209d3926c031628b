"""Loop closure of a closed chain: constraint residuals and Jacobian, positions by Newton continued along the
samples, velocities and accelerations of every tree coordinate (see :mod:`structcheck.rigid.closedchain` for the
model and its conventions).

The arrays that the algorithms need (index maps, constraint rows, signs of the joints in each loop, scales) are
computed once per chain into a frozen :class:`LoopPlan`; the functions here read only the plan, plus the chain's
names for error messages.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..model.robot import as_samples
from ..spatial import cross, perpendicular_basis, vee
from .kinematics import LinkKinematics, joint_transforms, link_kinematics

if TYPE_CHECKING:
    from ..model.robot import Robot
    from .closedchain import ClosedChain

NEWTON_TOL = 1e-13       # scaled loop-closure residual (m / size, rad) at which Newton stops
NEWTON_ITER = 30
MAX_STEP = 0.5           # largest Newton step per coordinate (rad, or m / size): keeps a far guess on its branch
RANK_RTOL = 1e-9         # singular values below this fraction of the largest count as zero (redundant rows)
COARSE = 65              # samples followed one after the other before the batched fill-in
MAX_HALVINGS = 12


@dataclass(frozen=True)
class LoopPlan:
    """The constant arrays of a closed chain's algorithms (read-only).

    ``tree`` the spanning tree and ``cuts`` the cut joints; ``ind``, ``dep``, ``act``: columns of the independent,
    dependent and actuated coordinates among the tree's ``dof_names``; ``sgn`` (n_joints, n_cuts): +1 where a
    tree joint moves the cut's B side only, -1 its A side only, else 0; ``cut_links`` (A, B) link indices per
    cut; ``Pt``, ``Pr`` per cut: its translational (k_t, 3) and rotational (k_r, 3) constraint rows in the cut
    frame on A, starting at row ``row0``; ``n_rows`` in all; ``cols``: (joint index, coordinate column,
    multiplier) of every movable tree joint; ``jchild``, ``jparent`` link indices per joint, ``topo`` the joints
    parents first; ``size`` [m] the mechanism's length scale and ``Dr`` (n_rows,), ``Dc`` (n_coords,) the row
    and column scales that make the constraint Jacobian dimensionless."""

    tree: Robot
    cuts: tuple
    ind: np.ndarray
    dep: np.ndarray
    act: np.ndarray
    sgn: np.ndarray
    cut_links: tuple
    Pt: tuple
    Pr: tuple
    row0: tuple
    n_rows: int
    cols: tuple
    jchild: np.ndarray
    jparent: np.ndarray
    topo: tuple
    size: float
    Dr: np.ndarray
    Dc: np.ndarray


def _cut_rows(cj):
    """Translational and rotational constraint rows (k, 3) of a cut joint, in its frame on A."""
    e1, e2 = perpendicular_basis(cj.axis)
    if cj.type == "revolute":
        return np.eye(3), np.vstack([e1, e2])
    if cj.type == "prismatic":
        return np.vstack([e1, e2]), np.eye(3)
    return np.eye(3), np.zeros((0, 3))


def loop_plan(tree: Robot, cuts, independent, actuated) -> LoopPlan:
    """The :class:`LoopPlan` of spanning ``tree`` with (checked) ``cuts`` and the names of the ``independent``
    and ``actuated`` coordinates among ``tree.dof_names``."""
    lidx = {n: k for k, n in enumerate(tree.link_names)}
    jidx = {j.name: k for k, j in enumerate(tree.joints)}
    col = {n: k for k, n in enumerate(tree.dof_names)}
    nj, nc = len(tree.joints), len(cuts)
    sgn = np.zeros((nj, nc), int)
    Pt, Pr, row0, start = [], [], [], 0
    for c, cj in enumerate(cuts):
        anc_a = {jidx[j.name] for j in tree.path_to_base(cj.parent)}
        anc_b = {jidx[j.name] for j in tree.path_to_base(cj.child)}
        sgn[sorted(anc_b - anc_a), c] = 1
        sgn[sorted(anc_a - anc_b), c] = -1
        pt, pr = _cut_rows(cj)
        Pt.append(pt)
        Pr.append(pr)
        row0.append(start)
        start += len(pt) + len(pr)
    cols = tuple((k, col[j.name], 1.0) if j.mimic is None else (k, col[j.mimic[0]], float(j.mimic[1]))
                 for k, j in enumerate(tree.joints) if j.movable)
    jchild = np.array([lidx[j.child] for j in tree.joints], int)
    jparent = np.array([lidx[j.parent] for j in tree.joints], int)
    topo, placed = [], {lidx[tree.base]}
    while len(topo) < nj:  # parents before children (the Robot checked that the tree is connected)
        for k in range(nj):
            if k not in topo and jparent[k] in placed:
                topo.append(k)
                placed.add(jchild[k])
    # a length scale makes rows and columns dimensionless for ranks, tolerances and minimum norms
    lengths = [np.linalg.norm(j.origin[:3, 3]) for j in tree.joints]
    lengths += [np.linalg.norm(c.origin[:3, 3]) for c in cuts]
    lengths += [np.linalg.norm(c.child_origin[:3, 3]) for c in cuts]
    size = max(1e-3, max(lengths))
    Dr = []
    for pt, pr in zip(Pt, Pr):
        Dr += [1.0 / size] * len(pt) + [1.0] * len(pr)
    Dc = np.array([size if tree.joint(n).type == "prismatic" else 1.0 for n in tree.dof_names])
    arrays = dict(ind=np.array([col[n] for n in independent], int),
                  dep=np.array([k for k, n in enumerate(tree.dof_names) if n not in independent], int),
                  act=np.array([col[n] for n in actuated], int), sgn=sgn, jchild=jchild, jparent=jparent,
                  Dr=np.array(Dr), Dc=Dc)
    for a in list(arrays.values()) + Pt + Pr:
        a.setflags(write=False)
    return LoopPlan(tree=tree, cuts=tuple(cuts), cut_links=tuple((lidx[c.parent], lidx[c.child]) for c in cuts),
                    Pt=tuple(Pt), Pr=tuple(Pr), row0=tuple(row0), n_rows=start, cols=cols, topo=tuple(topo),
                    size=size, **arrays)


@dataclass(frozen=True)
class ClosedChainMotion:
    """All tree coordinates along a motion: ``q``, ``qd``, ``qdd`` (n_t, n_coords) in ``coordinate_names``
    order (the tree's ``dof_names``) [rad, m, /s, /s^2]; ``Z`` (n_t, n_coords, n_independent) = dq/dq_ind;
    ``t`` (n_t,) [s] or None."""

    coordinate_names: tuple
    independent: tuple
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    Z: np.ndarray
    t: np.ndarray | None = None


@dataclass(frozen=True)
class LoopResiduals:
    """Loop-closure residuals per sample and cut joint (n_t, n_cuts), from the link kinematics: largest
    constrained component of the relative position [m], orientation [rad], velocity [m/s], angular velocity
    [rad/s], acceleration [m/s^2] and angular acceleration [rad/s^2] of the two cut frames."""

    cut_names: tuple
    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray
    acceleration: np.ndarray
    angular_acceleration: np.ndarray

    def max(self) -> float:
        """The largest residual of any kind (mixed units; for a quick 'is it closed' check)."""
        return float(max(np.max(np.abs(a), initial=0.0) for a in (
            self.position, self.orientation, self.velocity, self.angular_velocity, self.acceleration,
            self.angular_acceleration)))


# ---------------------------------------------------------------------- constraint geometry
def placements(plan: LoopPlan, q) -> np.ndarray:
    """T_world_link (n, n_links, 4, 4) of tree coordinates q (n, n_coords): positions only, which is all the
    Newton iterations need (link_kinematics also builds velocities and accelerations)."""
    tree = plan.tree
    jt = joint_transforms(tree, tree.joint_values(q))
    n = len(q)
    T = np.zeros((n, len(tree.links), 4, 4))
    T[:, :, 3, 3] = 1.0
    T[:, tree.link_names.index(tree.base), :3, :3] = np.eye(3)
    for k in plan.topo:
        R, r = jt[k]
        pa, ch = plan.jparent[k], plan.jchild[k]
        T[:, ch, :3, :3] = T[:, pa, :3, :3] @ R
        T[:, ch, :3, 3] = T[:, pa, :3, 3] + np.einsum("tij,tj->ti", T[:, pa, :3, :3], r)
    return T


def cut_frames(plan: LoopPlan, T) -> list:
    """Per cut: (R_A, p_A, R_B, p_B) world placements (n, 3, 3), (n, 3) of the joint frames on A and on B, from
    link placements T (n, n_links, 4, 4)."""
    out = []
    for cj, (a, b) in zip(plan.cuts, plan.cut_links):
        TA = T[:, a] @ cj.origin
        TB = T[:, b] @ cj.child_origin
        out.append((TA[:, :3, :3], TA[:, :3, 3], TB[:, :3, :3], TB[:, :3, 3]))
    return out


def _phi_parts(plan, T):
    """Loop-closure residual per cut: (translational rows (n, kt) [m], rotational rows (n, kr) [rad])."""
    out = []
    for cj, Pt, Pr, (RA, pA, RB, pB) in zip(plan.cuts, plan.Pt, plan.Pr, cut_frames(plan, T)):
        rel_p = np.einsum("tji,tj->ti", RA, pB - pA)
        R_rel = np.einsum("tji,tjk->tik", RA, RB)
        if cj.type == "revolute":
            rot = cross(cj.axis, R_rel @ cj.axis)
        elif cj.type == "prismatic":
            rot = vee(R_rel)
        else:
            rot = np.zeros((len(T), 3))
        out.append((rel_p @ Pt.T, rot @ Pr.T))
    return out


def _phi(plan, T):
    return np.concatenate([np.concatenate(p, axis=1) for p in _phi_parts(plan, T)], axis=1)


def constraint_jacobian(plan: LoopPlan, T) -> np.ndarray:
    """G (n, n_rows, n_coords): constrained rows of B's twist relative to A (at B's frame origin, A axes), from
    link placements T (n, n_links, 4, 4)."""
    n = len(T)
    G = np.zeros((n, plan.n_rows, len(plan.Dc)))
    frames = cut_frames(plan, T)
    joints = plan.tree.joints
    for k, colk, mult in plan.cols:
        j = joints[k]
        Tc = T[:, plan.jchild[k]]
        z = Tc[:, :3, :3] @ j.axis
        o = Tc[:, :3, 3]
        for c in np.nonzero(plan.sgn[k])[0]:
            RA, _, _, pB = frames[c]
            if j.type == "prismatic":
                v, w = z, np.zeros_like(z)
            else:
                v, w = cross(z, pB - o), z
            s = plan.sgn[k, c] * mult
            r0, Pt, Pr = plan.row0[c], plan.Pt[c], plan.Pr[c]
            G[:, r0:r0 + len(Pt), colk] += s * np.einsum("tji,tj->ti", RA, v) @ Pt.T
            G[:, r0 + len(Pt):r0 + len(Pt) + len(Pr), colk] += s * np.einsum("tji,tj->ti", RA, w) @ Pr.T
    return G


def scaled(plan: LoopPlan, G) -> np.ndarray:
    """G (n, n_rows, n_coords) in dimensionless rows (translations / size) and columns (prismatic coordinates /
    size)."""
    return G * plan.Dr[None, :, None] * plan.Dc[None, None, :]


def rank(s) -> np.ndarray:
    """Numerical ranks (...,) from singular values s (..., k), largest first (relative tolerance RANK_RTOL)."""
    return np.sum(s > RANK_RTOL * s[..., :1], axis=-1)


def _relative_motion(plan, kin: LinkKinematics):
    """Per cut, in A's joint-frame axes: relative velocity of B's frame origin w.r.t. the point of A at the
    same place, relative angular velocity, and their time derivatives (n, 3) each."""
    T = kin.T_world_link
    R, p = T[..., :3, :3], T[..., :3, 3]
    world = lambda x: np.einsum("tlij,tlj->tli", R, x)  # noqa: E731
    w, al, v, a = world(kin.omega), world(kin.alpha), world(kin.v_origin), world(kin.a_origin)
    out = []
    for (ia, ib), (RA, _, _, pB) in zip(plan.cut_links, cut_frames(plan, T)):
        rA, rB = pB - p[:, ia], pB - p[:, ib]
        vA = v[:, ia] + cross(w[:, ia], rA)
        vB = v[:, ib] + cross(w[:, ib], rB)
        aA = a[:, ia] + cross(al[:, ia], rA) + cross(w[:, ia], cross(w[:, ia], rA))
        aB = a[:, ib] + cross(al[:, ib], rB) + cross(w[:, ib], cross(w[:, ib], rB))
        u, dw = vB - vA, w[:, ib] - w[:, ia]
        # d/dt of (R_A^T u) and (R_A^T dw): the frame on A turns with A's angular velocity
        acc = aB - aA - 2 * cross(w[:, ia], u)
        ang = al[:, ib] - al[:, ia] - cross(w[:, ia], dw)
        to_a = lambda x: np.einsum("tji,tj->ti", RA, x)  # noqa: E731
        out.append((to_a(u), to_a(dw), to_a(acc), to_a(ang)))
    return out


def _constrained(plan, parts, lin, ang):
    return np.concatenate([np.concatenate([p[lin] @ Pt.T, p[ang] @ Pr.T], axis=1)
                           for p, Pt, Pr in zip(parts, plan.Pt, plan.Pr)], axis=1)


def loop_residuals(chain: ClosedChain, q, qd=None, qdd=None) -> LoopResiduals:
    """Loop-closure residuals of tree coordinates q, qd, qdd (n_t, n_coords), computed from the link
    kinematics of the tree (not from the constraint Jacobian)."""
    plan = chain.plan
    kin = link_kinematics(chain.tree, q, qd, qdd)
    parts = _phi_parts(plan, kin.T_world_link)
    rel = _relative_motion(plan, kin)
    big = lambda x, P: np.max(np.abs(x @ P.T), axis=1) if len(P) else np.zeros(len(x))  # noqa: E731
    cols = lambda f: np.stack(f, axis=1)  # noqa: E731
    return LoopResiduals(
        cut_names=chain.cut_names,
        position=cols([np.max(np.abs(pt), axis=1) for pt, _ in parts]),
        orientation=cols([np.max(np.abs(pr), axis=1) if pr.shape[1] else np.zeros(len(pr)) for _, pr in parts]),
        velocity=cols([big(r[0], Pt) for r, Pt in zip(rel, plan.Pt)]),
        angular_velocity=cols([big(r[1], Pr) for r, Pr in zip(rel, plan.Pr)]),
        acceleration=cols([big(r[2], Pt) for r, Pt in zip(rel, plan.Pt)]),
        angular_acceleration=cols([big(r[3], Pr) for r, Pr in zip(rel, plan.Pr)]))


# ---------------------------------------------------------------------- positions
def when(t, k) -> str:
    """'t = ... s' for sample k of times t, or 'sample k' without times (for messages)."""
    return f"t = {t[k]:.6g} s" if t is not None else f"sample {k}"


def _worst_loop(plan, T):
    """(cut name, position gap [m], angle [rad]) of the loop farthest from closing, for one sample."""
    parts = _phi_parts(plan, T)
    gaps = [(np.max(np.abs(pt[0]), initial=0.0), np.max(np.abs(pr[0]), initial=0.0)) for pt, pr in parts]
    c = int(np.argmax([g / plan.size + a for g, a in gaps]))
    return plan.cuts[c].name, gaps[c][0], gaps[c][1]


def _newton(plan, q):
    """Newton on the dependent coordinates of q (n, n_coords), all samples at once. Returns (q, converged)."""
    q = q.copy()
    dep, Dr, Dc = plan.dep, plan.Dr, plan.Dc
    done = np.zeros(len(q), bool)
    for _ in range(NEWTON_ITER):
        todo = ~done
        T = placements(plan, q[todo])
        phi = _phi(plan, T) * Dr
        ok = np.max(np.abs(phi), axis=1, initial=0.0) < NEWTON_TOL
        idx = np.nonzero(todo)[0]
        done[idx[ok]] = True
        if done.all() or len(dep) == 0:
            break
        live = ~ok
        G = scaled(plan, constraint_jacobian(plan, T[live]))
        step = -np.einsum("tij,tj->ti", np.linalg.pinv(G[:, :, dep], rcond=RANK_RTOL), phi[live])
        big = np.max(np.abs(step), axis=1, keepdims=True)
        step *= np.minimum(1.0, MAX_STEP / np.maximum(big, 1e-300))
        q[idx[live][:, None], dep[None, :]] += step * Dc[dep]
        bad = ~np.all(np.isfinite(q), axis=1)
        if bad.any():
            q[bad] = np.nan_to_num(q[bad])
            done[bad] = False
    return q, done


def _check_dofs(chain, q, t, k, where):
    """Raise if the independent coordinates do not match the mechanism's degrees of freedom at q (1, n)."""
    plan = chain.plan
    Gs = scaled(plan, constraint_jacobian(plan, placements(plan, q)))
    n = Gs.shape[2]
    r = int(rank(np.linalg.svd(Gs, compute_uv=False))[0]) if plan.n_rows else 0
    dof = n - r
    if dof != chain.n_dof:
        raise InputError(
            f"closed chain {chain.name!r} has {dof} degree(s) of freedom at {where} ({when(t, k)}: {n} tree "
            f"coordinates, {r} independent loop-closure equations) but {chain.n_dof} independent coordinates "
            f"{list(chain.independent)} were given; give {dof}. A planar loop of revolute joints with axes that "
            f"are not exactly parallel is rigid: check the axes")
    if len(plan.dep):
        rd = int(rank(np.linalg.svd(Gs[:, :, plan.dep], compute_uv=False))[0])
        if rd < len(plan.dep):
            raise InputError(
                f"closed chain {chain.name!r}: the independent coordinates {list(chain.independent)} do not "
                f"determine the dependent ones {list(chain.dependent)} at {where} ({when(t, k)}); choose "
                f"coordinates whose motion fixes the loops, or move away from this singular pose")


def _assemble(chain, q_ind, t, q_guess):
    """The first sample's coordinates (n_coords,), assembled by Newton from ``q_guess`` (default home)."""
    plan, n = chain.plan, len(chain.coordinate_names)
    guess = chain.tree.home if q_guess is None else np.asarray(q_guess, float).reshape(-1)
    if guess.shape != (n,):
        raise InputError(f"q_guess must have {n} values for {list(chain.coordinate_names)}, got {guess.shape}")
    q0 = guess.copy()
    q0[plan.ind] = q_ind[0]
    _check_dofs(chain, q0[None], t, 0, "the start guess")
    sol, ok = _newton(plan, q0[None])
    if not ok[0]:
        loop, gap, ang = _worst_loop(plan, placements(plan, sol))
        raise InputError(
            f"loop {loop!r} of {chain.name!r} does not close at the start ({when(t, 0)}): residual {gap:.3g} m, "
            f"{ang:.3g} rad after {NEWTON_ITER} Newton iterations from the home pose; check the loop geometry "
            f"(link lengths, joint frames) or give q_guess closer to the assembled pose")
    _check_dofs(chain, sol, t, 0, "the assembled start pose")
    return sol[0]


def solve_positions(chain: ClosedChain, q_ind, t=None, q_guess=None) -> np.ndarray:
    """All tree coordinates (n_t, n_coords) that close the loops, given the independent ones (n_t, n_ind).

    ``q_guess`` (n_coords,): the assembled pose near the start (default: the tree's home values); the first
    sample is assembled from it by Newton, then the solution is followed along the samples (a coarse march
    with sub-stepping, then batched Newton on the samples in between, each started from its solved
    neighbours), so it stays on the start's assembly branch. ``t`` (n_t,) [s] only names times in errors."""
    plan = chain.plan
    q_ind = as_samples(q_ind, chain.independent, "q_ind", "independent coordinate")
    n_t, n = len(q_ind), len(chain.coordinate_names)
    t = None if t is None else np.asarray(t, float).reshape(-1)
    if t is not None and len(t) != n_t:
        raise InputError(f"t has {len(t)} samples but q_ind has {n_t}")
    ind = plan.ind
    Q = np.zeros((n_t, n))
    Q[:, ind] = q_ind
    Q[0] = _assemble(chain, q_ind, t, q_guess)
    solved = np.zeros(n_t, bool)
    solved[0] = True
    coarse = np.unique(np.round(np.linspace(0, n_t - 1, min(n_t, COARSE))).astype(int))
    for i0, i1 in zip(coarse[:-1], coarse[1:]):
        Q[i1] = _march(chain, Q[i0], q_ind[i1], t, i0, i1)
        solved[i1] = True
    # fill in between the coarse samples: batched Newton from the interpolation of solved neighbours
    while not solved.all():
        s = np.nonzero(solved)[0]
        a, b = s[:-1], s[1:]
        gap = b - a > 1
        a, b = a[gap], b[gap]
        m = (a + b) // 2
        f = ((m - a) / (b - a))[:, None]
        start = Q[a] + f * (Q[b] - Q[a])
        start[:, ind] = q_ind[m]
        sol, ok = _newton(plan, start)
        # a correction larger than the neighbours' spacing means Newton may have left the branch: follow the
        # loop from the left neighbour instead (this also finds where an unreachable motion fails)
        redo = ~ok | (_jump(plan, sol, start) > 0.5 * _jump(plan, Q[b], Q[a], dep_only=False) + 1e-6)
        for i in np.nonzero(redo)[0]:
            sol[i] = _march(chain, Q[a[i]], q_ind[m[i]], t, a[i], m[i])
        Q[m] = sol
        solved[m] = True
    return Q


def _jump(plan, q1, q0, dep_only=True):
    """Largest scaled change (rad, m / size) between coordinate sets (n, n_coords), dependent ones only or all."""
    cols = plan.dep if dep_only else slice(None)
    return np.max(np.abs((q1 - q0)[:, cols] / plan.Dc[cols]), axis=1, initial=0.0)


def _march(chain, q_from, qi_to, t, i0, i1):
    """Follow the loop solution from q_from (n,) to independent values qi_to, halving the step on failure."""
    plan = chain.plan
    ind, dep, Dc = plan.ind, plan.dep, plan.Dc
    q = q_from.copy()
    s, h, halvings = 0.0, 1.0, 0
    qi_from = q_from[ind].copy()
    while s < 1.0:
        h = min(h, 1.0 - s)
        target = qi_from + (s + h) * (qi_to - qi_from)
        start = q.copy()
        if len(dep):
            # first-order predictor along the constraint manifold: dq_dep = -G_dep^+ G_ind dq_ind
            Gs = scaled(plan, constraint_jacobian(plan, placements(plan, q[None])))[0]
            dx = np.linalg.pinv(Gs[:, dep], rcond=RANK_RTOL) @ (Gs[:, ind] @ ((target - q[ind]) / Dc[ind]))
            start[dep] -= dx * Dc[dep]
        start[ind] = target
        sol, ok = _newton(plan, start[None])
        if ok[0] and _jump(plan, sol, start[None])[0] <= 0.5 * _jump(plan, start[None], q[None], False)[0] + 1e-6:
            q, s = sol[0], s + h
            h *= 2.0
            continue
        halvings += 1
        if halvings > MAX_HALVINGS:
            tt = None if t is None else t[i0] + s * (t[i1] - t[i0])
            at = f"t = {tt:.6g} s" if tt is not None else f"between samples {i0} and {i1}"
            loop, gap, ang = _worst_loop(plan, placements(plan, sol))
            raise InputError(f"loop {loop!r} of {chain.name!r} cannot be closed at {at}: residual {gap:.3g} m, "
                             f"{ang:.3g} rad (the independent motion leaves the mechanism's reach or passes a "
                             f"singular pose)")
        h *= 0.5
    return q


# ---------------------------------------------------------------------- velocities and accelerations
def closed_chain_motion(chain: ClosedChain, q_ind, qd_ind, qdd_ind, t=None, q_guess=None) -> ClosedChainMotion:
    """Positions, velocities and accelerations of all tree coordinates from the independent ones
    (each (n_t, n_ind) [rad, m, /s, /s^2]); see :func:`solve_positions` for ``t`` and ``q_guess``."""
    plan = chain.plan
    q_ind = as_samples(q_ind, chain.independent, "q_ind", "independent coordinate")
    qd_ind = as_samples(qd_ind, chain.independent, "qd_ind", "independent coordinate")
    qdd_ind = as_samples(qdd_ind, chain.independent, "qdd_ind", "independent coordinate")
    if not len(q_ind) == len(qd_ind) == len(qdd_ind):
        raise InputError(f"q_ind, qd_ind and qdd_ind must have the same number of samples, got "
                         f"{len(q_ind)}, {len(qd_ind)}, {len(qdd_ind)}")
    q = solve_positions(chain, q_ind, t, q_guess)
    n_t, n = q.shape
    ind, dep, Dc = plan.ind, plan.dep, plan.Dc
    Gs = scaled(plan, constraint_jacobian(plan, placements(plan, q)))
    Z = np.zeros((n_t, n, len(ind)))
    Z[:, ind, np.arange(len(ind))] = 1.0
    if len(dep):
        GD = Gs[:, :, dep]
        rd = rank(np.linalg.svd(GD, compute_uv=False))
        if (rd < len(dep)).any():
            k = int(np.argmax(rd < len(dep)))
            raise InputError(f"closed chain {chain.name!r} passes a singular pose at {when(t, k)}: the independent "
                             f"coordinates {list(chain.independent)} no longer determine {list(chain.dependent)}")
        GDp = np.linalg.pinv(GD, rcond=RANK_RTOL)
        # scaled coordinates x = q / Dc: Z_dep = -Dc_dep GD^+ G_ind / Dc_ind
        Z[:, dep, :] = -Dc[dep][None, :, None] * (GDp @ Gs[:, :, ind]) / Dc[ind][None, None, :]
    qd = np.einsum("tij,tj->ti", Z, qd_ind)
    qdd = np.zeros_like(q)
    qdd[:, ind] = qdd_ind
    if len(dep):
        kin0 = link_kinematics(chain.tree, q, qd, None)
        gamma = _constrained(plan, _relative_motion(plan, kin0), 2, 3) * plan.Dr
        rhs = -gamma - np.einsum("tij,tj->ti", Gs[:, :, ind], qdd_ind / Dc[ind])
        qdd[:, dep] = Dc[dep] * np.einsum("tij,tj->ti", GDp, rhs)
    return ClosedChainMotion(chain.coordinate_names, chain.independent, q, qd, qdd, Z,
                             None if t is None else np.asarray(t, float).reshape(-1))
