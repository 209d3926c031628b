"""Paper 001's own method for the hydraulic arm (Chu Anh My, Vu Minh Hoan 2019, section 3), vectorized over time.

Redundant coordinates s = [theta1, d4, d7, theta2, theta3, theta5, theta6] (the paper's order), independent
q = [theta1, d4, d7], dependent z = [theta2, theta3, theta5, theta6]; constraint equations f1..f4 of the two
loops (eqs. 4 and 6), their Jacobian Phi_s (eq. 18). Equations of motion with multipliers (eq. 10)

    M(s) s'' + C(s, s') s' + g(s) + Phi_s^T lambda = tau,   tau = [tau1, F4, F7, 0, 0, 0, 0]^T,

with M = sum_i (m_i J_Ti^T J_Ti + J_Ri^T I_i J_Ri) (eq. 12) and g = (dPi/ds)^T (eq. 14). The velocity term C s'
is evaluated as sum_i (m_i J_Ti^T (J_Ti' s') + J_Ri^T (I_i J_Ri' s' + omega_i x I_i omega_i)), which equals the
paper's eq. (13) (both are d/dt dT/ds' - dT/ds at s'' = 0). The multipliers are eliminated with
R^T = [E, -Phi_q^T Phi_z^-T] (eqs. 16, 17): tau_q = R^T (M s'' + C s' + g), and lambda = -Phi_z^-T (M s'' + C s'
+ g)_z. The dependent coordinates come in closed form from eqs. (5) and (7), their rates from Phi_s s' = 0 and
Phi_s s'' = -Phi_s' s'.

Each body's position is written as the paper writes its centres of mass (after eq. 12): sums of
(length) x (cos, sin)(angle) in the arm's vertical plane, that plane turned by theta1 about the vertical. The
planar derivatives are exact (no finite differences). Shares nothing with structcheck's Newton-Euler and cut-joint
solver but the link inertials.

Frames: world z up; the arm's plane holds the radial direction e_r = (cos theta1, sin theta1, 0) and z. A planar
link at angle phi (from e_r towards z) has its frame x = cos phi e_r + sin phi e_z, z along the pin axes
a = (sin theta1, -cos theta1, 0), y = z x x (the tree's frames in studies/hydraulic_arm.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

S_NAMES = ("theta1", "d4", "d7", "theta2", "theta3", "theta5", "theta6")
IQ = {n: k for k, n in enumerate(S_NAMES)}


def _e(*names):
    v = np.zeros(7)
    for n in names:
        v[IQ[n]] = 1.0
    return v


@dataclass(frozen=True)
class Geometry:
    """The paper's lengths [m]: l1, l10 (= l1 - l11), l11, l2, l21, l22, l23 (= l2 - l21), l3, l5, l51, l6."""

    l1: float
    l11: float
    l2: float
    l21: float
    l22: float
    l3: float
    l5: float
    l51: float
    l6: float

    @property
    def l10(self):
        return self.l1 - self.l11

    @property
    def l23(self):
        return self.l2 - self.l21


def body_terms(g: Geometry) -> dict:
    """Per planar body: (terms of its frame origin, angle coefficients P (7,)); a term (a, b (7,), P (7,), psi)
    is (a + b.s) (cos, sin)(P.s + psi) in the plane (radial, height). The column turns with theta1 only."""
    zero = np.zeros(7)
    up = lambda h: (h, zero, zero, np.pi / 2)  # noqa: E731  (a constant height)
    t2, t3, t26 = _e("theta2"), _e("theta3"), _e("theta2", "theta6")
    return {
        "boom": ([up(g.l1)], t2),
        "arm": ([up(g.l1), (g.l2, zero, t2, 0.0)], _e("theta2", "theta5")),
        "barrel_1": ([up(g.l10)], t3),
        "rod_1": ([up(g.l10), (g.l3, _e("d4"), t3, 0.0)], t3),
        "barrel_2": ([up(g.l1), (g.l23, zero, t2, 0.0)], t26),
        "rod_2": ([up(g.l1), (g.l23, zero, t2, 0.0), (g.l6, _e("d7"), t26, 0.0)], t26),
    }


def _planar(terms, s, sd):
    """Position p (n, 2), Jacobian J (n, 2, 7) and velocity-product acceleration Jd s' (n, 2) of a sum of terms."""
    n = len(s)
    p, J, jd = np.zeros((n, 2)), np.zeros((n, 2, 7)), np.zeros((n, 2))
    for a, b, P, psi in terms:
        ell, phi = a + s @ b, s @ P + psi
        u = np.stack([np.cos(phi), np.sin(phi)], axis=1)
        up = np.stack([-np.sin(phi), np.cos(phi)], axis=1)
        ld, pd = sd @ b, sd @ P
        p += ell[:, None] * u
        J += u[:, :, None] * b[None, None, :] + (ell[:, None] * up)[:, :, None] * P[None, None, :]
        jd += (2 * ld * pd)[:, None] * up - (ell * pd ** 2)[:, None] * u
    return p, J, jd


def _rz(th):
    c, s = np.cos(th), np.sin(th)
    R = np.zeros((len(th), 3, 3))
    R[:, 0, 0], R[:, 0, 1], R[:, 1, 0], R[:, 1, 1], R[:, 2, 2] = c, -s, s, c, 1.0
    return R


def _body(terms, P, com, s, sd):
    """World COM Jacobian J_T (n, 3, 7), its s'-product J_T' s' (n, 3), rotation R (n, 3, 3), J_R (n, 3, 7),
    J_R' s' (n, 3) of a body whose COM is ``com`` (3,) in its link frame."""
    n = len(s)
    th1, w1 = s[:, 0], sd[:, 0]
    if terms is None:  # the column: a rigid body turning about z
        l = np.broadcast_to(np.asarray(com, float), (n, 3)).copy()
        Jl, jdl = np.zeros((n, 3, 7)), np.zeros((n, 3))
        Rl = np.broadcast_to(np.eye(3), (n, 3, 3))
        P = np.zeros(7)
    else:  # the body point = origin + com rotated by phi in the plane; -com_z out of the plane (column y)
        cx, cy, cz = com
        pts = list(terms) + [(cx, np.zeros(7), P, 0.0), (cy, np.zeros(7), P, np.pi / 2)]
        p, Jp, jdp = _planar(pts, s, sd)
        l = np.stack([p[:, 0], np.full(n, -cz), p[:, 1]], axis=1)
        Jl = np.stack([Jp[:, 0], np.zeros((n, 7)), Jp[:, 1]], axis=1)
        jdl = np.stack([jdp[:, 0], np.zeros(n), jdp[:, 1]], axis=1)
        phi = s @ P
        c, sn = np.cos(phi), np.sin(phi)
        Rl = np.zeros((n, 3, 3))  # Rx(pi/2) Rz(phi): columns x = (c, 0, s), y = (-s, 0, c), z = (0, -1, 0)
        Rl[:, 0, 0], Rl[:, 2, 0], Rl[:, 0, 1], Rl[:, 2, 1], Rl[:, 1, 2] = c, sn, -sn, c, -1.0
    Rz = _rz(th1)
    ez = np.array([0.0, 0.0, 1.0])
    Jl = Jl.copy()
    Jl[:, :, 0] += np.cross(ez, l)  # theta1 turns the plane
    ldot = np.einsum("nij,nj->ni", Jl, sd) - w1[:, None] * np.cross(ez, l)  # l' in the column frame
    Om = w1[:, None] * ez
    # acceleration at s'' = 0 (column frame): Jl' s' + 2 Omega x l' + Omega x (Omega x l)
    acc0 = jdl + 2 * np.cross(Om, ldot) + np.cross(Om, np.cross(Om, l))
    JT, jdT = Rz @ Jl, np.einsum("nij,nj->ni", Rz, acc0)
    a = np.stack([np.sin(th1), -np.cos(th1), np.zeros(n)], axis=1)
    JR = a[:, :, None] * P[None, None, :]
    JR[:, 2, 0] += 1.0
    er = np.stack([np.cos(th1), np.sin(th1), np.zeros(n)], axis=1)
    jdR = ((sd @ P) * w1)[:, None] * er  # phi' a' with a' = theta1' e_r
    return JT, jdT, Rz @ Rl, JR, jdR


def equations_of_motion(geom: Geometry, inertials: dict, s, sd, gravity=9.81):
    """M (n, 7, 7), C s' (n, 7) and g (n, 7) of eq. (10) at s, s' (n, 7) [rad, m, /s]; ``inertials`` maps body
    name (column, boom, arm, barrel_1, rod_1, barrel_2, rod_2) -> (mass [kg], COM (3,) [m] and inertia about the
    COM (3, 3) [kg m^2], both in the link frame)."""
    terms = body_terms(geom)
    n = len(s)
    M, cs, g = np.zeros((n, 7, 7)), np.zeros((n, 7)), np.zeros((n, 7))
    for name, (m, com, I) in inertials.items():
        body_t, P = (None, None) if name == "column" else terms[name]
        JT, jdT, R, JR, jdR = _body(body_t, P, np.asarray(com, float), s, sd)
        Iw = R @ np.asarray(I, float) @ np.swapaxes(R, 1, 2)
        w = np.einsum("nij,nj->ni", JR, sd)
        Iww = np.einsum("nij,nj->ni", Iw, w)
        M += m * np.swapaxes(JT, 1, 2) @ JT + np.swapaxes(JR, 1, 2) @ Iw @ JR
        cs += m * np.einsum("nji,nj->ni", JT, jdT) + np.einsum(
            "nji,nj->ni", JR, np.einsum("nij,nj->ni", Iw, jdR) + np.cross(w, Iww))
        g += m * gravity * JT[:, 2, :]  # dPi/ds, Pi = sum m g z_C
    return M, cs, g


def constraint_jacobian(geom: Geometry, s):
    """Phi_s (n, 4, 7) of f1..f4 (eq. 18)."""
    t2, t3, t5, t6 = (s[:, IQ[k]] for k in ("theta2", "theta3", "theta5", "theta6"))
    L4, L7 = geom.l3 + s[:, 1], geom.l6 + s[:, 2]
    P = np.zeros((len(s), 4, 7))
    P[:, 0, 1], P[:, 0, 3], P[:, 0, 4] = -np.cos(t3), -geom.l22 * np.sin(t2), L4 * np.sin(t3)
    P[:, 1, 1], P[:, 1, 3], P[:, 1, 4] = -np.sin(t3), geom.l22 * np.cos(t2), -L4 * np.cos(t3)
    P[:, 2, 2], P[:, 2, 5], P[:, 2, 6] = -np.cos(t6), -geom.l51 * np.sin(t5), L7 * np.sin(t6)
    P[:, 3, 2], P[:, 3, 5], P[:, 3, 6] = -np.sin(t6), geom.l51 * np.cos(t5), -L7 * np.cos(t6)
    return P


def constraints(geom: Geometry, s):
    """f1..f4 (n, 4) [m] (eqs. 4 and 6)."""
    t2, t3, t5, t6 = (s[:, IQ[k]] for k in ("theta2", "theta3", "theta5", "theta6"))
    L4, L7 = geom.l3 + s[:, 1], geom.l6 + s[:, 2]
    return np.stack([geom.l22 * np.cos(t2) - L4 * np.cos(t3), geom.l22 * np.sin(t2) - L4 * np.sin(t3) + geom.l11,
                     geom.l51 * np.cos(t5) + geom.l21 - L7 * np.cos(t6), geom.l51 * np.sin(t5) - L7 * np.sin(t6)],
                    axis=1)


def _gamma(geom, s, sd):
    """Phi_s' s' (n, 4): the velocity-product part of f''."""
    t2, t3, t5, t6 = (s[:, IQ[k]] for k in ("theta2", "theta3", "theta5", "theta6"))
    w2, w3, w5, w6 = (sd[:, IQ[k]] for k in ("theta2", "theta3", "theta5", "theta6"))
    L4, L7, v4, v7 = geom.l3 + s[:, 1], geom.l6 + s[:, 2], sd[:, 1], sd[:, 2]
    c, sn = np.cos, np.sin
    return np.stack([-geom.l22 * c(t2) * w2 ** 2 + 2 * v4 * sn(t3) * w3 + L4 * c(t3) * w3 ** 2,
                     -geom.l22 * sn(t2) * w2 ** 2 - 2 * v4 * c(t3) * w3 + L4 * sn(t3) * w3 ** 2,
                     -geom.l51 * c(t5) * w5 ** 2 + 2 * v7 * sn(t6) * w6 + L7 * c(t6) * w6 ** 2,
                     -geom.l51 * sn(t5) * w5 ** 2 - 2 * v7 * c(t6) * w6 + L7 * sn(t6) * w6 ** 2], axis=1)


def dependent_angles(geom: Geometry, q):
    """theta2, theta3, theta5, theta6 (n, 4) [rad] in closed form (eqs. 5, 7) from q = (theta1, d4, d7) (n, 3):
    the branch with the boom's theta2 in (-90, 90) deg and the arm folded back over the boom (0 < theta5 < 180
    deg), the paper's (its end-point path, Figs. 2-3, lies above the boom)."""
    L4, L7 = geom.l3 + q[:, 1], geom.l6 + q[:, 2]
    t2 = np.arcsin((L4 ** 2 - geom.l11 ** 2 - geom.l22 ** 2) / (2 * geom.l11 * geom.l22))
    t3 = np.arctan2(geom.l22 * np.sin(t2) + geom.l11, geom.l22 * np.cos(t2))
    t5 = np.arccos((L7 ** 2 - geom.l51 ** 2 - geom.l21 ** 2) / (2 * geom.l51 * geom.l21))
    t6 = np.arctan2(geom.l51 * np.sin(t5), geom.l51 * np.cos(t5) + geom.l21)
    return np.stack([t2, t3, t5, t6], axis=1)


def lagrange_dynamics(geom: Geometry, inertials: dict, q, qd, qdd, gravity=9.81) -> dict:
    """The paper's inverse dynamics along q, q', q'' (n, 3) of (theta1, d4, d7): dict with ``s``, ``sd``,
    ``sdd`` (n, 7), ``tau`` (n, 3) = (tau1 [N m], F4 [N], F7 [N]) and the multipliers ``lam`` (n, 4) [N]
    (lam1, lam2: the force of the boom on the first rod at C along (e_r, z); lam3, lam4: of the arm on the second
    rod at G along the boom's (x, y))."""
    q, qd, qdd = (np.atleast_2d(np.asarray(x, float)) for x in (q, qd, qdd))
    s = np.concatenate([q, dependent_angles(geom, q)], axis=1)
    Ph = constraint_jacobian(geom, s)
    Pq, Pz = Ph[:, :, :3], Ph[:, :, 3:]
    zd = -np.linalg.solve(Pz, np.einsum("nij,nj->ni", Pq, qd)[..., None])[..., 0]
    sd = np.concatenate([qd, zd], axis=1)
    zdd = -np.linalg.solve(Pz, (np.einsum("nij,nj->ni", Pq, qdd) + _gamma(geom, s, sd))[..., None])[..., 0]
    sdd = np.concatenate([qdd, zdd], axis=1)
    M, cs, g = equations_of_motion(geom, inertials, s, sd, gravity)
    h = np.einsum("nij,nj->ni", M, sdd) + cs + g
    X = np.linalg.solve(np.swapaxes(Pz, 1, 2), h[:, 3:, None])[..., 0]  # Phi_z^-T h_z
    tau = h[:, :3] - np.einsum("nji,nj->ni", Pq, X)  # R^T h
    return {"s": s, "sd": sd, "sdd": sdd, "tau": tau, "lam": -X}
