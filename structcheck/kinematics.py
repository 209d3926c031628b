"""Forward kinematics, link velocities and accelerations, Jacobians, vectorized over time samples.

All arrays are time-first. Link quantities are in LINK axes: ``omega``, ``alpha`` (n_t, n_links, 3) angular
velocity/acceleration; ``v_origin``, ``a_origin`` velocity/acceleration of the link frame origin (without
gravity). ``T_world_link`` (n_t, n_links, 4, 4) places each link frame in the world (the base frame).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LinkKinematics:
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


def _rates(robot, qd):
    """Joint rates of every joint (mimics applied, fixed = 0) from dof rates."""
    qd = np.asarray(qd, float)
    if qd.ndim == 1:
        qd = qd[None, :]
    out = np.zeros((qd.shape[0], len(robot.joints)))
    col = {n: k for k, n in enumerate(robot.dof_names)}
    for i, j in enumerate(robot.joints):
        if j.name in col:
            out[:, i] = qd[:, col[j.name]]
        elif j.mimic is not None:
            out[:, i] = j.mimic[1] * qd[:, col[j.mimic[0]]]
    return out


def forward_kinematics(robot, q) -> np.ndarray:
    """T_world_link (n_t, n_links, 4, 4) for dof values q (n_t, n_dof) or (n_dof,)."""
    return link_kinematics(robot, q, None, None).T_world_link


def link_kinematics(robot, q, qd=None, qdd=None) -> LinkKinematics:
    """Placements, angular velocity/acceleration and origin velocity/acceleration of every link (link axes)."""
    qj = robot.joint_values(q)
    n_t = qj.shape[0]
    qdj = np.zeros_like(qj) if qd is None else _rates(robot, robot._check_q(qd, "qd"))
    qddj = np.zeros_like(qj) if qdd is None else _rates(robot, robot._check_q(qdd, "qdd"))
    if qdj.shape[0] != n_t or qddj.shape[0] != n_t:
        raise ValueError("q, qd and qdd must have the same number of samples")
    nl = len(robot.links)
    idx = {n: k for k, n in enumerate(robot.link_names)}
    Rw = np.zeros((n_t, nl, 3, 3))
    pw = np.zeros((n_t, nl, 3))
    w = np.zeros((n_t, nl, 3))
    al = np.zeros((n_t, nl, 3))
    v = np.zeros((n_t, nl, 3))
    a = np.zeros((n_t, nl, 3))
    Rw[:, idx[robot.base]] = np.eye(3)
    jt = joint_transforms(robot, qj)
    jidx = {j.name: k for k, j in enumerate(robot.joints)}
    for j in robot._order:
        k = jidx[j.name]
        R, r = jt[k]
        p, c = idx[j.parent], idx[j.child]
        Rw[:, c] = Rw[:, p] @ R
        pw[:, c] = pw[:, p] + np.einsum("tij,tj->ti", Rw[:, p], r)
        wp, ap_, vp, acp = w[:, p], al[:, p], v[:, p], a[:, p]
        # parent quantities at the child origin, in child axes
        w_in = np.einsum("tji,tj->ti", R, wp)
        al_in = np.einsum("tji,tj->ti", R, ap_)
        v_in = np.einsum("tji,tj->ti", R, vp + np.cross(wp, r))
        a_in = np.einsum("tji,tj->ti", R, acp + np.cross(ap_, r) + np.cross(wp, np.cross(wp, r)))
        s = j.axis
        if j.type in ("revolute", "continuous"):
            w[:, c] = w_in + qdj[:, k, None] * s
            al[:, c] = al_in + qddj[:, k, None] * s + np.cross(w_in, qdj[:, k, None] * s)
            v[:, c] = v_in
            a[:, c] = a_in
        elif j.type == "prismatic":
            w[:, c] = w_in
            al[:, c] = al_in
            v[:, c] = v_in + qdj[:, k, None] * s
            a[:, c] = a_in + 2 * np.cross(w_in, qdj[:, k, None] * s) + qddj[:, k, None] * s
        else:
            w[:, c], al[:, c], v[:, c], a[:, c] = w_in, al_in, v_in, a_in
    T = np.zeros((n_t, nl, 4, 4))
    T[..., :3, :3] = Rw
    T[..., :3, 3] = pw
    T[..., 3, 3] = 1.0
    return LinkKinematics(T_world_link=T, omega=w, alpha=al, v_origin=v, a_origin=a)


def point_world(robot, T_world_link: np.ndarray, point) -> np.ndarray:
    """World position (n_t, 3) of a named point or (link name, xyz)."""
    link, xyz = robot.points[point] if isinstance(point, str) else point
    T = T_world_link[:, robot.link_names.index(link)]
    return np.einsum("tij,j->ti", T[:, :3, :3], np.asarray(xyz, float)) + T[:, :3, 3]


def jacobian(robot, q, point) -> np.ndarray:
    """Geometric Jacobian (n_t, 6, n_dof) of a point: rows [v; w] in world axes, d(point)/dq and rotation rate."""
    if isinstance(point, str) and point not in robot.points:
        from .errors import InputError

        raise InputError(f"unknown point {point!r}; the robot's points are {sorted(robot.points)}")
    link, xyz = robot.points[point] if isinstance(point, str) else point
    kin = link_kinematics(robot, q)
    T = kin.T_world_link
    x = point_world(robot, T, (link, xyz))
    n_t = T.shape[0]
    J = np.zeros((n_t, 6, robot.n_dof))
    col = {n: k for k, n in enumerate(robot.dof_names)}
    # the joints on the path from the base to the point's link
    by_child = {j.child: j for j in robot.joints}
    path, ln = [], link
    while ln in by_child:
        path.append(by_child[ln])
        ln = by_child[ln].parent
    for j in path:
        if not j.movable:
            continue
        c = robot.link_names.index(j.child)
        z = np.einsum("tij,j->ti", T[:, c, :3, :3], j.axis)
        o = T[:, c, :3, 3]
        src, m = (j.name, 1.0) if j.mimic is None else (j.mimic[0], j.mimic[1])
        k = col[src]
        if j.type == "prismatic":
            J[:, :3, k] += m * z
        else:
            J[:, :3, k] += m * np.cross(z, x - o)
            J[:, 3:, k] += m * z
    return J
