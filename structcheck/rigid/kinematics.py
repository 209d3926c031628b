"""Forward kinematics, link velocities and accelerations, Jacobians, vectorized over time samples.

All arrays are time-first. Link quantities are in LINK axes: ``omega``, ``alpha`` (n_t, n_links, 3) angular
velocity/acceleration; ``v_origin``, ``a_origin`` velocity/acceleration of the link frame origin (without
gravity). ``T_world_link`` (n_t, n_links, 4, 4) places each link frame in the world (the base frame).

Implementation: the recursion runs over blocks of samples stored component-major -- vectors (3, n), rotations
(3, 3, n) -- so that every numpy call is arithmetic on long contiguous rows (``np.cross`` and ``einsum`` over
trailing axes of length 3 are several times slower), in frames where each joint turns about z (see ``plan``);
each block is then copied into the time-first arrays.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

# samples per block: large enough that the per-joint Python and numpy call overhead is shared by many samples,
# small enough that a block's arrays stay near the CPU cache and memory stays bounded for long motions
# (benchmarks/bench_dynamics.py: 2,000 to 4,000 is best on a 2-core machine with 1 MB of L2 cache per core)
BLOCK = 4000


@dataclass(frozen=True)
class LinkKinematics:
    """Motion of every link along the samples, time-first, vectors in LINK axes.

    ``T_world_link`` (n_t, n_links, 4, 4): placement of each link frame in the world (base) frame [m];
    ``omega``, ``alpha`` (n_t, n_links, 3): angular velocity [rad/s] and acceleration [rad/s^2];
    ``v_origin``, ``a_origin`` (n_t, n_links, 3): velocity [m/s] and acceleration [m/s^2] of the link frame's
    origin (without gravity). Links are in ``robot.link_names`` order."""

    T_world_link: np.ndarray
    omega: np.ndarray
    alpha: np.ndarray
    v_origin: np.ndarray
    a_origin: np.ndarray


def axis_rotation(axis: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Rotation matrices (n_t, 3, 3) by angles q (n_t,) about a fixed unit axis (Rodrigues)."""
    x, y, z = axis
    K = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0.0]])
    s, c = np.sin(q)[:, None, None], np.cos(q)[:, None, None]
    return np.eye(3) + s * K + (1 - c) * (K @ K)


def joint_transforms(robot, qj: np.ndarray):
    """Per joint (in robot.joints order): R (n_t, 3, 3) and p (n_t, 3), the child frame in the parent frame."""
    n_t = qj.shape[0]
    out = []
    for i, j in enumerate(robot.joints):
        R0, p0 = j.origin[:3, :3], j.origin[:3, 3]
        if j.type in ("revolute", "continuous"):
            R = R0 @ axis_rotation(j.axis, qj[:, i])
            p = np.broadcast_to(p0, (n_t, 3))
        elif j.type == "prismatic":
            R = np.broadcast_to(R0, (n_t, 3, 3))
            p = p0 + np.outer(qj[:, i], R0 @ j.axis)
        else:
            R = np.broadcast_to(R0, (n_t, 3, 3))
            p = np.broadcast_to(p0, (n_t, 3))
        out.append((R, p))
    return out


def forward_kinematics(robot, q) -> np.ndarray:
    """T_world_link (n_t, n_links, 4, 4) for dof values q (n_t, n_dof) or (n_dof,)."""
    return link_kinematics(robot, q, None, None).T_world_link


def link_kinematics(robot, q, qd=None, qdd=None) -> LinkKinematics:
    """Placements, angular velocity/acceleration and origin velocity/acceleration of every link (link axes)."""
    qj = robot.joint_values(q)
    n_t = qj.shape[0]
    qdj = np.zeros_like(qj) if qd is None else robot.joint_rates(robot.check_q(qd, "qd"))
    qddj = np.zeros_like(qj) if qdd is None else robot.joint_rates(robot.check_q(qdd, "qdd"))
    if qdj.shape[0] != n_t or qddj.shape[0] != n_t:
        raise ValueError("q, qd and qdd must have the same number of samples")
    moving = qd is not None or qdd is not None  # at rest every velocity and acceleration is exactly zero
    T, V, _ = new_kinematics(n_t, len(robot.links))
    for _ in kinematics_blocks(robot, qj, qdj if moving else None, qddj if moving else None, T, V):
        pass
    return LinkKinematics(T, V[0], V[1], V[2], V[3])


# --------------------------------------------------------------------------- the recursion, component-major
#
# Every link gets a computation frame F = link frame @ Q, Q constant, whose z axis is the link's parent joint axis
# (Q = I when the axis already is +z, as in every D-H robot). Between F frames a joint is then
# R_{F_parent F_child}(q) = M Rz(q) (revolute) or M (prismatic, fixed) with M constant, so turning a vector into
# the child's axes is one small BLAS product with the constant M^T and a plane rotation of two components, and
# the joint's own terms (qd e_z, ...) touch single components.


def cross(a, b):
    """a x b over axis 0 of component-major arrays (3, ...), broadcast over the other axes."""
    out = np.empty((3,) + np.broadcast(a[0], b[0]).shape)
    np.multiply(a[1], b[2], out=out[0])
    out[0] -= a[2] * b[1]
    np.multiply(a[2], b[0], out=out[1])
    out[1] -= a[0] * b[2]
    np.multiply(a[0], b[1], out=out[2])
    out[2] -= a[1] * b[0]
    return out


def cross_const(a, r):
    """a x r for vectors a (3, n) and a constant r (3,), skipping the exact zeros of r."""
    out = np.empty(a.shape)
    for k, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):  # (a x r)_k = a_i r_j - a_j r_i
        if r[j] != 0:
            np.multiply(a[i], r[j], out=out[k])
            if r[i] != 0:
                out[k] -= a[j] * r[i]
        elif r[i] != 0:
            np.multiply(a[j], -r[i], out=out[k])
        else:
            out[k] = 0.0
    return out


def rotate(R, x, out=None):
    """R x for rotations R (m, 3, 3, n) and vectors x (m, k, 3, n) -> (m, k, 3, n): all links at once."""
    out = np.multiply(R[:, None, :, 0], x[:, :, None, 0], out=out)
    out += R[:, None, :, 1] * x[:, :, None, 1]
    out += R[:, None, :, 2] * x[:, :, None, 2]
    return out


def turn_z(x, c, s, out, inverse=False):
    """out = Rz(q) x, or Rz(q)^T x, for vectors x (..., 3, n) (components on axis -2), c = cos q, s = sin q."""
    x0, x1, o0, o1 = x[..., 0, :], x[..., 1, :], out[..., 0, :], out[..., 1, :]
    np.multiply(x0, c, out=o0)
    np.multiply(x1, c, out=o1)
    if inverse:
        o0 += x1 * s
        o1 -= x0 * s
    else:
        o0 -= x1 * s
        o1 += x0 * s
    out[..., 2, :] = x[..., 2, :]
    return out


@dataclass(frozen=True)
class _Step:
    """One joint of the recursion: R_{F_parent F_child}(q) = M Rz(q) (revolute) or M; the child origin at
    r + q d in F_parent axes (d = 0 unless prismatic; then d is the axis, M's third column)."""

    k: int  # index in robot.joints
    parent: int  # link indices
    child: int
    kind: str  # "revolute" (also continuous), "prismatic" or "fixed"
    M: np.ndarray  # (3, 3)
    r: np.ndarray  # (3,)
    d: np.ndarray  # (3,)


@dataclass(frozen=True)
class Plan:
    """The robot's joints in topological order (parents first) and each link's Q (None for the identity)."""

    steps: tuple
    Q: tuple
    base: int


def _axis_frame(s):
    """A rotation Q whose third column is the unit vector s."""
    e = np.zeros(3)
    e[np.argmin(np.abs(s))] = 1.0
    u = e - (e @ s) * s
    u /= np.linalg.norm(u)
    return np.column_stack([u, np.cross(s, u), s])


_PLANS = weakref.WeakKeyDictionary()


def plan(robot) -> Plan:
    """The constants of the recursion for ``robot`` (cached per robot and its joints)."""
    hit = _PLANS.get(robot)
    if hit is not None and hit[0] is robot.joints:
        return hit[1]
    idx = {n: k for k, n in enumerate(robot.link_names)}
    jidx = {j.name: k for k, j in enumerate(robot.joints)}
    Q = [None] * len(robot.links)
    for j in robot.joints:
        a = np.asarray(j.axis, float)
        if j.movable and not (a[0] == 0 and a[1] == 0 and a[2] == 1):
            Q[idx[j.child]] = _axis_frame(a)
    steps = []
    for j in robot.ordered_joints:
        p, c = idx[j.parent], idx[j.child]
        R0, p0 = np.array(j.origin[:3, :3], float), np.array(j.origin[:3, 3], float)
        Qp_t = np.eye(3) if Q[p] is None else Q[p].T
        M = Qp_t @ R0 if Q[c] is None else Qp_t @ R0 @ Q[c]
        kind = "revolute" if j.type == "continuous" else j.type
        d = M[:, 2].copy() if kind == "prismatic" else np.zeros(3)
        steps.append(_Step(jidx[j.name], p, c, kind, M, Qp_t @ p0, d))
    out = Plan(tuple(steps), tuple(Q), idx[robot.base])
    _PLANS[robot] = (robot.joints, out)
    return out


def _carry_motion(st, Vp, Vc, r, offset, cs, qd, qdd):
    """The parent's motion Vp (4, 3, n) (F_parent axes) carried to the child origin at r from the parent's
    (``offset``: r is not zero), turned into F_child axes, plus the joint's own rates qd, qdd (n,): Vc (4, 3, n).
    ``cs`` (cos q, sin q) of a revolute joint."""
    Y = np.empty(Vc.shape) if st.kind == "revolute" else Vc
    np.matmul(st.M.T, Vp[:2], out=Y[:2])
    if offset:  # v + w x r, a + alpha x r + w x (w x r)
        w, al = Vp[0], Vp[1]
        if r.ndim == 1:
            wr, alr = cross_const(w, r), cross_const(al, r)
        else:
            wr, alr = cross(w, r), cross(al, r)
        U = np.empty((2,) + wr.shape)
        np.add(Vp[2], wr, out=U[0])
        np.add(Vp[3], alr, out=U[1])
        U[1] += cross(w, wr)
        np.matmul(st.M.T, U, out=Y[2:])
    else:
        np.matmul(st.M.T, Vp[2:], out=Y[2:])
    if st.kind == "revolute":
        co, s = cs
        turn_z(Y, co, s, Vc, inverse=True)
        w_in0, w_in1 = Vc[0, 0], Vc[0, 1]
        # alpha += w_in x (qd e_z) + qdd e_z; omega += qd e_z
        Vc[1, 0] += w_in1 * qd
        Vc[1, 1] -= w_in0 * qd
        Vc[1, 2] += qdd
        Vc[0, 2] += qd
    elif st.kind == "prismatic":
        # a += 2 w x (qd e_z) + qdd e_z; v += qd e_z
        Vc[3, 0] += Vc[0, 1] * (2 * qd)
        Vc[3, 1] -= Vc[0, 0] * (2 * qd)
        Vc[3, 2] += qdd
        Vc[2, 2] += qd


def forward_block(pl: Plan, qj, qdj, qddj, TF, VF):
    """The recursion over one block of n samples, component-major, in the links' F frames.

    ``qj``, ``qdj``, ``qddj`` (n_joints, n) joint values and rates (qdj None: at rest, ``VF`` untouched);
    ``TF`` (n_links, 4, 4, n) receives [R_world_F | p_world_link] (the last row is left as it is); ``VF``
    (4, n_links, 3, n) omega, alpha, v_origin and a_origin in F axes. Returns {joint: (cos q, sin q)} of the
    revolute joints."""
    base = pl.base
    TF[base, :3] = 0.0
    TF[base, [0, 1, 2], [0, 1, 2]] = 1.0
    moving = qdj is not None
    if moving:
        VF[:, base] = 0.0
    constant = {base}  # links whose placement is the same in every sample (stored broadcast, use one column)
    at_rest = {base}  # links whose velocities and accelerations are exactly zero
    rev = [st.k for st in pl.steps if st.kind == "revolute"]
    S, C = np.sin(qj[rev]), np.cos(qj[rev])
    cs = {k: (C[i], S[i]) for i, k in enumerate(rev)}
    for st in pl.steps:
        p, c, kind = st.parent, st.child, st.kind
        Rp = TF[p, :3, :3, :1] if p in constant else TF[p, :3, :3]
        pp = TF[p, :3, 3, :1] if p in constant else TF[p, :3, 3]
        Rc, pc = TF[c, :3, :3], TF[c, :3, 3]
        # placement: R_world_Fc = R_world_Fp M Rz(q); (R_world_Fp M)[i] = M^T R_world_Fp[i], one BLAS product
        if kind == "revolute":
            co, s = cs[st.k]
            # X Rz(q): the columns of X mix like the components of Rz(q)^T x
            turn_z(np.matmul(st.M.T, Rp), co, s, Rc, inverse=True)
        else:
            np.copyto(Rc, np.matmul(st.M.T, Rp))
        # the child origin: p_world_Fc = p_world_Fp + R_world_Fp r, r = r0 + q d
        r = st.r if kind != "prismatic" else st.r[:, None] + st.d[:, None] * qj[st.k]
        offset = bool(r.any())
        if offset:
            np.add(pp, np.matmul(r, Rp) if r.ndim == 1 else Rp[:, 0] * r[0] + Rp[:, 1] * r[1] + Rp[:, 2] * r[2],
                   out=pc)
        else:
            np.copyto(pc, pp)
        if kind == "fixed" and p in constant:
            constant.add(c)
        if not moving:
            continue
        Vc = VF[:, c]
        qd, qdd = qdj[st.k], qddj[st.k]
        if p in at_rest:
            Vc[...] = 0.0
            if kind == "fixed":
                at_rest.add(c)
            else:
                lin = 0 if kind == "revolute" else 2  # the joint moves omega, alpha or v, a along z
                Vc[lin, 2] = qd
                Vc[lin + 1, 2] = qdd
            continue
        # the parent's motion carried to the child origin, F_parent axes, then turned into F_child axes
        _carry_motion(st, VF[:, p], Vc, r, offset, cs.get(st.k), qd, qdd)
    return cs


def new_kinematics(n_t, n_links, extra=0) -> tuple:
    """Uninitialised arrays for n_t samples: T_world_link (n_t, n_links, 4, 4), V (4, n_t, n_links, 3) =
    [omega, alpha, v_origin, a_origin], and a spare array of ``extra`` values per sample.

    All of them share one allocation: when it is fresh memory, the kernel can back it with huge pages, and
    first touching the results costs a few hundred page faults instead of thousands for separate arrays of a
    few MB each (each fault costs 1-2 us on a virtual machine)."""
    sizes = (n_links * 16, 4 * n_links * 3, extra)
    buf = np.empty(n_t * sum(sizes))
    T = buf[:n_t * sizes[0]].reshape(n_t, n_links, 4, 4)
    V = buf[n_t * sizes[0]:n_t * (sizes[0] + sizes[1])].reshape(4, n_t, n_links, 3)
    return T, V, buf[n_t * (sizes[0] + sizes[1]):]


def kinematics_blocks(robot, qj, qdj, qddj, T, V, block: int | None = None):
    """Fill T and V (from new_kinematics) block by block from joint values qj and rates qdj, qddj (n_t, n_joints)
    (qdj None: at rest, velocities and accelerations zero).

    Yields, per block, (slice, TF, VF, cs) for further work on it: the component-major arrays of forward_block
    and its cosines and sines."""
    pl = plan(robot)
    nl, n_t = len(robot.links), qj.shape[0]
    # equal blocks of at most BLOCK samples
    n_blocks = max(1, -(-n_t // (block or BLOCK)))
    block = max(1, -(-n_t // n_blocks))
    moving = qdj is not None
    turned = [(l, Q) for l, Q in enumerate(pl.Q) if Q is not None]
    qjT = np.ascontiguousarray(qj.T)
    qdjT = np.ascontiguousarray(qdj.T) if moving else None
    qddjT = np.ascontiguousarray(qddj.T) if moving else None
    # rows one cache line longer than the block: rows 2^k * 4 kB apart would all fall into the same cache set,
    # and copying the blocks into the time-first arrays would run several times slower
    row = block + 8
    TF_buf = np.empty((nl, 4, 4, row))
    TF_buf[:, 3] = 0.0
    TF_buf[:, 3, 3] = 1.0
    TL_buf = TF_buf.copy() if turned else TF_buf  # link (not F) axes, when some differ
    VF_buf = np.empty((4, nl, 3, row)) if moving else None
    VL_buf = np.empty((4, nl, 3, row)) if moving and turned else VF_buf
    if not moving:
        V.fill(0.0)
    for b0 in range(0, n_t, block):
        sl = slice(b0, min(n_t, b0 + block))
        n = sl.stop - sl.start
        TF, TL = TF_buf[..., :n], TL_buf[..., :n]
        VF = VF_buf[..., :n] if moving else None
        cs = forward_block(pl, qjT[:, sl], qdjT[:, sl] if moving else None, qddjT[:, sl] if moving else None, TF, VF)
        if turned:
            # link axes = F axes turned back by Q: R_world_link = R_world_F Q^T, x_link = Q x_F
            TL[:, :3, 3] = TF[:, :3, 3]
            for l in range(nl):
                if pl.Q[l] is None:
                    TL[l, :3, :3] = TF[l, :3, :3]
                    if moving:
                        VL_buf[:, l, :, :n] = VF[:, l]
            for l, Q in turned:
                np.matmul(Q, TF[l, :3, :3], out=TL[l, :3, :3])
                if moving:
                    np.matmul(Q, VF[:, l], out=VL_buf[:, l, :, :n])
        np.copyto(T[sl], TL.transpose(3, 0, 1, 2))
        if moving:
            np.copyto(V[:, sl], VL_buf[..., :n].transpose(0, 3, 1, 2))
        yield sl, TF, VF, cs


def resolve_point(robot, point) -> tuple:
    """(name, link name, xyz (3,) [m] in the link frame) of a point given by its name in ``robot.points`` or as
    (link name, (3,) xyz); InputError naming the valid points or links otherwise."""
    if isinstance(point, str):
        if point not in robot.points:
            raise InputError(f"unknown point {point!r}; the robot's points are {sorted(robot.points)}")
        link, xyz = robot.points[point]
        return point, link, np.asarray(xyz, float)
    try:
        link, xyz = point
        xyz = np.asarray(xyz, float).reshape(3)
    except (TypeError, ValueError):
        raise InputError(f"a point is a name of robot.points or (link name, (3,) xyz), got {point!r}") from None
    if link not in robot.link_names:
        raise InputError(f"point on unknown link {link!r}; the robot's links are {list(robot.link_names)}")
    return f"{link}:{tuple(xyz)}", link, xyz


def point_world(robot, T_world_link: np.ndarray, point) -> np.ndarray:
    """World position (n_t, 3) of a named point or (link name, xyz)."""
    link, xyz = robot.points[point] if isinstance(point, str) else point
    T = T_world_link[:, robot.link_names.index(link)]
    return np.einsum("tij,j->ti", T[:, :3, :3], np.asarray(xyz, float)) + T[:, :3, 3]


def point_jacobian(robot, T_world_link: np.ndarray, point) -> np.ndarray:
    """Geometric Jacobian (n_t, 6, n_dof) of ``point`` (a name or (link name, xyz)) at the link placements
    ``T_world_link`` (n_t, n_links, 4, 4): rows [v; w] in world axes, d(point)/dq [m/rad or 1] and the link's
    rotation rate [rad/rad or rad/m] per dof (mimic joints count through their multipliers)."""
    _, link, xyz = resolve_point(robot, point)
    T = T_world_link
    li = robot.link_names.index(link)
    x = T[:, li, :3, :3] @ xyz + T[:, li, :3, 3]
    J = np.zeros((T.shape[0], 6, robot.n_dof))
    col = {n: k for k, n in enumerate(robot.dof_names)}
    for j in robot.path_to_base(link):
        if not j.movable:
            continue
        c = robot.link_names.index(j.child)
        z = T[:, c, :3, :3] @ j.axis
        src, m = (j.name, 1.0) if j.mimic is None else (j.mimic[0], j.mimic[1])
        k = col[src]
        if j.type == "prismatic":
            J[:, :3, k] += m * z
        else:
            J[:, :3, k] += m * np.cross(z, x - T[:, c, :3, 3])
            J[:, 3:, k] += m * z
    return J


def jacobian(robot, q, point) -> np.ndarray:
    """Geometric Jacobian (n_t, 6, n_dof) of a point at dof values q (n_t, n_dof): rows [v; w] in world axes,
    d(point)/dq and rotation rate; see :func:`point_jacobian`."""
    resolve_point(robot, point)  # a bad point fails before the kinematics
    return point_jacobian(robot, forward_kinematics(robot, q), point)
