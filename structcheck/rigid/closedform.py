"""Closed-form inverse (and forward) kinematics of the seed robots.

* :func:`paper004_ik`: paper 004's arm (Xu et al. 2025, Table 1, modified D-H). Joints 2, 3, 4 are parallel and
  joints 5, 6 coaxial (alpha5 = a5 = 0), so theta1 sets the vertical arm plane, theta2..theta4 place the wrist and
  pitch the tool axis inside that plane, and only theta5 + theta6 (the roll about the tool axis) is observable.
  The tool pose therefore has 5 independent coordinates -- position, pitch of the axis in the arm plane, roll --
  and a tool axis that leaves the vertical plane through the base axis and the tool point cannot be reached.
* :func:`mg400_fk`, :func:`mg400_ik`: the DOBOT MG400 of paper 002 (Zhang, Li, Zhang 2023), eqs. (6) and (27).

Angles in rad, lengths in m; arrays are sample-first.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from .ik import as_vectors, unit_rows


PAPER004_BRANCHES = ("theta1 = atan2(py, px) (eq. 6), theta3 >= 0", "theta1 = atan2(py, px) (eq. 6), theta3 < 0",
                     "theta1 = atan2(py, px) + 180 deg, theta3 >= 0", "theta1 = atan2(py, px) + 180 deg, theta3 < 0")


def _wrap(x):
    """Angles wrapped into (-pi, pi]."""
    return np.pi - np.mod(np.pi - x, 2 * np.pi)


def paper004_ik(position, axis, x_axis=None, *, theta5=0.0, d1=0.250, a2=0.385, a3=0.392, d6=0.188,
                tol=1e-9, theta1_free=np.pi / 2) -> np.ndarray:
    """All closed-form IK branches of paper 004's arm: (n, 4, 6) joint values [rad], order PAPER004_BRANCHES.

    ``position`` (n, 3) or (3,) [m]: the claw frame origin (frame 6, d6 beyond the wrist along the tool axis;
    for a tool point further along the axis pass ``d6 + offset``); ``axis`` (n, 3) or (3,): the tool axis z6;
    ``x_axis`` (n, 3) or (3,), optional: x6, which sets the roll about the tool axis. Defaults are the paper's
    Table 1 [m].

    Geometry (derived from Table 1; the paper's eqs. (6)-(23) hold the errata listed in the seeds README): in
    the vertical plane of theta1 with radial unit u = (C1, S1, 0), the wrist point w = p - d6 a satisfies
    (u.w, w_z - d1) = a2 (C2, S2) + a3 (C23, S23), and the tool axis is a = -sin(theta234) u + cos(theta234) z.
    theta1 takes both planes through the target (eq. 6's atan2(py, px) and the missing +180 deg branch), theta3
    both elbow signs; theta4 = theta234 - theta2 - theta3. Joints 5 and 6 are coaxial, so there is no wrist
    flip and only the roll psi = theta5 + theta6 is fixed (by ``x_axis``; psi = 0, the home roll, without it).
    Split rule: theta5 = ``theta5`` (default 0, its home value), theta6 = psi - theta5. At the edge of the reach
    (elbow straight or folded) the two elbow branches coincide. At home
    (90, 90, 90, -90, 0, 0) deg branch 2 gives the home pose. Angles are wrapped into (-180, 180] deg.

    Errors (InputError) name the target: a wrist point out of the annulus |a2 - a3| <= |w - shoulder| <= a2 + a3,
    a tool axis (or point) that leaves the vertical plane through the base axis by more than ``tol``, an x_axis
    not normal to the axis. If the point and the axis both lie on the base axis, theta1 is free and set to
    ``theta1_free`` (default its home value 90 deg)."""
    p = as_vectors(position, None, "position")
    n = p.shape[0]
    a = unit_rows(as_vectors(axis, n, "axis"), "axis")
    ph, ah = p[:, :2], a[:, :2]
    # the arm plane: from the point, or from the axis when the point is on the base axis
    use_p = np.linalg.norm(ph, axis=1) > tol
    use_a = ~use_p & (np.linalg.norm(ah, axis=1) > tol)
    t1 = np.where(use_p, np.arctan2(p[:, 1], p[:, 0]), np.where(use_a, np.arctan2(a[:, 1], a[:, 0]), theta1_free))
    C1, S1 = np.cos(t1), np.sin(t1)
    off_p = -S1 * p[:, 0] + C1 * p[:, 1]
    off_a = -S1 * a[:, 0] + C1 * a[:, 1]
    bad = (np.abs(off_p) > tol) | (np.abs(off_a) > tol)
    if bad.any():
        k = int(np.argmax(bad))
        tilt = math.degrees(math.asin(min(1.0, abs(off_a[k]))))
        raise InputError(
            f"target {k}: the tool axis leaves the arm's vertical plane by {tilt:.3g} deg (point off by "
            f"{abs(off_p[k]):.3g} m). Joints 5 and 6 of this arm are coaxial: the tool axis can "
            f"only point within the vertical plane through the base axis and the tool point")
    if x_axis is not None:
        nx = as_vectors(x_axis, n, "x_axis")
        nx = unit_rows(nx, "x_axis")
        dot = np.abs(np.einsum("ni,ni->n", nx, a))
        if np.any(dot > 1e-6):
            k = int(np.argmax(dot > 1e-6))
            raise InputError(f"target {k}: x_axis is not normal to the axis (cos of their angle {dot[k]:.3g})")
    w = p - d6 * a
    out = np.zeros((n, 4, 6))
    reach_lo, reach_hi = abs(a2 - a3), a2 + a3
    for sh, t1s in enumerate((t1, t1 + np.pi)):
        c1, s1 = np.cos(t1s), np.sin(t1s)
        u = np.stack([c1, s1, np.zeros(n)], axis=1)
        rw, zw = np.einsum("ni,ni->n", u, w), w[:, 2] - d1
        c3 = (rw ** 2 + zw ** 2 - a2 ** 2 - a3 ** 2) / (2 * a2 * a3)
        out_of_reach = np.abs(c3) > 1 + 1e-12
        if out_of_reach.any():
            k = int(np.argmax(out_of_reach))
            raise InputError(f"target {k} is out of reach: the wrist point is {math.hypot(rw[k], zw[k]):.4g} m from "
                             f"the shoulder (joint 2 axis), the arm reaches {reach_lo:.4g} to {reach_hi:.4g} m")
        c3 = np.clip(c3, -1.0, 1.0)
        t234 = np.arctan2(-np.einsum("ni,ni->n", u, a), a[:, 2])
        for el, sign in enumerate((1.0, -1.0)):
            t3 = sign * np.arccos(c3)
            t2 = np.arctan2(zw, rw) - np.arctan2(a3 * np.sin(t3), a2 + a3 * np.cos(t3))
            t4 = t234 - t2 - t3
            if x_axis is None:
                psi = np.zeros(n)
            else:
                # R_04^T R = RotX(-90 deg) RotZ(psi): psi from x4 . x6 = cos psi and x4 . y6 = -sin psi
                x4 = np.cos(t234)[:, None] * u + np.sin(t234)[:, None] * np.array([0.0, 0.0, 1.0])
                y6 = np.cross(a, nx)
                psi = np.arctan2(-np.einsum("ni,ni->n", x4, y6), np.einsum("ni,ni->n", x4, nx))
            b = 2 * sh + el
            out[:, b] = _wrap(np.stack([t1s, t2, t3, t4, np.full(n, theta5), psi - theta5], axis=1))
    return out


# ------------------------------------------------------------------------------------------ paper 002: MG400

#: paper 002, Table 2 (standard D-H, the equivalent serial arm) and Table 1 / eq. (4) (base offset) [m].
#: Radial offset of the end point from the J1 axis: a1 + a33b = 43.5 + 66 = 109.5 mm; height at the
#: shoulder-level pose: 123 + 105 - 36 = 192 mm (eq. 6).
MG400 = {"a1": 0.0435, "a2": 0.175, "a33": 0.175, "a33b": 0.066, "d1": 0.105, "d4": -0.036, "base_z": 0.123}


def _mg400_consts(dims):
    g = {**MG400, **(dims or {})}
    return g["a2"], g["a33"], g["a1"] + g["a33b"], g["base_z"] + g["d1"] + g["d4"]


def mg400_fk(q, dims=None):
    """Paper 002 eq. (6): end point position (n, 3) [m] and attitude Rz (n,) [rad, wrapped into [-pi, pi)] of the
    DOBOT MG400 for q = (theta1, theta2, theta33, theta4) (n, 4) or (4,) [rad].

    ``Px = C1 (a2 S2 + a33 C(2+33) + r0)``, ``Py = S1 (...)``, ``Pz = z0 + a2 C2 - a33 S(2+33)``,
    ``Rz = theta1 + theta4`` with r0 = a1 + a33b and z0 = base_z + d1 + d4 (Table 2 and eq. 4). The base frame
    sits on the J1 axis: eq. (5) drops the -5 mm x offset of eq. (4), and so does this function (the paper's
    tables are computed that way)."""
    q = np.asarray(q, float)
    q2 = q[None, :] if q.ndim == 1 else q
    if q2.ndim != 2 or q2.shape[1] != 4:
        raise InputError(f"MG400 joint values must have shape (4,) or (n, 4) (theta1, theta2, theta33, theta4), "
                         f"got {q.shape}")
    a2, a3, r0, z0 = _mg400_consts(dims)
    t1, t2, t3, t4 = q2.T
    r = a2 * np.sin(t2) + a3 * np.cos(t2 + t3) + r0
    p = np.stack([np.cos(t1) * r, np.sin(t1) * r, z0 + a2 * np.cos(t2) - a3 * np.sin(t2 + t3)], axis=1)
    rz = np.mod(t1 + t4 + np.pi, 2 * np.pi) - np.pi
    return p, rz


def mg400_ik(position, rz, *, all_branches=False, dims=None):
    """Paper 002 eq. (27): MG400 joint values (theta1, theta2, theta33, theta4) [rad] for end point ``position``
    (n, 3) or (3,) [m] and attitude ``rz`` (n,) or scalar [rad].

    Returns (n, 4) on the paper's branch (theta1 = atan2(Py, Px), cos theta33 >= 0 -- every row of Tables 3-4),
    or with ``all_branches`` (n, 4, 4): [paper, elbow flipped (cos theta33 < 0), shoulder flipped
    (theta1 + 180 deg), both], NaN where a branch does not exist (the J2 axis is off the J1 axis, so reaching
    back over the base is shorter or longer than reaching forward). Law of cosines in the arm plane (eq. 14):
    with r' = C1 Px + S1 Py - r0, v = Pz - z0: ``sin theta33 = (a2^2 + a33^2 - r'^2 - v^2) / (2 a2 a33)``; then
    theta2 from the linear system of eq. (13) (both sin and cos, eq. 20 and its companion, so no sign choice is
    needed where eq. 21 assumes cos theta2 >= 0); ``theta4 = Rz - theta1`` wrapped into [-180, 180) deg as
    eq. (26) does. A point on the J1 axis leaves theta1 free: atan2(0, 0) = 0 is used. Raises InputError naming
    the first target for which the paper's branch (or, with ``all_branches``, every branch) is out of reach."""
    p = as_vectors(position, None, "position")
    n = p.shape[0]
    rz_in = np.asarray(rz, float).reshape(-1)
    if rz_in.size not in (1, n) or not np.all(np.isfinite(rz_in)):
        raise InputError(f"rz must be a finite scalar or have {n} finite values, got shape {np.shape(rz)}")
    rz = np.broadcast_to(rz_in, (n,))
    a2, a3, r0, z0 = _mg400_consts(dims)
    base = np.arctan2(p[:, 1], p[:, 0])
    out = np.full((n, 4, 4), np.nan)
    dist = np.zeros((n, 2))
    for sh, t1 in enumerate((base, base + np.pi)):
        t1 = np.mod(t1 + np.pi, 2 * np.pi) - np.pi
        rr = np.cos(t1) * p[:, 0] + np.sin(t1) * p[:, 1] - r0
        v = p[:, 2] - z0
        dist[:, sh] = np.hypot(rr, v)
        s3 = (a2 ** 2 + a3 ** 2 - rr ** 2 - v ** 2) / (2 * a2 * a3)
        ok = np.abs(s3) <= 1 + 1e-12
        s3 = np.clip(s3, -1.0, 1.0)
        for el, sign in enumerate((1.0, -1.0)):
            c3 = sign * np.sqrt(1.0 - s3 * s3)
            t3 = np.arctan2(s3, c3)
            k1, k2 = a2 - a3 * s3, a3 * c3
            t2 = np.arctan2(k1 * rr - k2 * v, k2 * rr + k1 * v)
            t4 = np.mod(rz - t1 + np.pi, 2 * np.pi) - np.pi
            out[ok, 2 * sh + el] = np.stack([t1, t2, t3, t4], axis=1)[ok]
    missing = np.isnan(out[:, 0, 0]) if not all_branches else np.isnan(out[:, :, 0]).all(axis=1)
    if missing.any():
        k = int(np.argmax(missing))
        raise InputError(f"MG400 target {k} is out of reach: the wrist is {dist[k, 0]:.4g} m from the J2 axis "
                         f"(reaching back over the base: {dist[k, 1]:.4g} m), the arm reaches {abs(a2 - a3):.4g} "
                         f"to {a2 + a3:.4g} m")
    return out if all_branches else out[:, 0]
