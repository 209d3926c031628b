"""Least-squares identification of inertial parameters, two ways.

1. **Per body** (Cheng et al. 2021, Appl. Sci. 11, 10988, sect. 2.3): with the joint reaction wrenches on a body
   measured and its motion known, the Newton-Euler equations of that body alone are linear in its mass and, when
   its centre of mass and principal axes are known (the paper's homogeneous cylinders), in its three principal
   moments of inertia:

       m (a_C - g) = F                                  (world axes, one row per axis: the paper's m(e_k^(0)))
       J alpha + omega x (J omega) = M_C                (principal axes, J = diag(J11, J22, J33))

   ``F`` and ``M_C`` are the resultant of the joint wrenches on the body (its parent joint's minus its children's),
   the moment about the centre of mass C. :func:`identify_bodies` stacks these rows over the samples and solves
   them by least squares; a parameter whose column is zero (not excited by the motion) is reported as NaN.

2. **Whole robot, base parameters** (the standard method): joint torques are linear in the 10 standard inertial
   parameters of every moving link, ``tau = Y(q, qd, qdd) pi`` with, per link,
   ``pi = (m, m cx, m cy, m cz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz)`` (first moment and inertia about the LINK ORIGIN, link
   axes). :func:`regressor` builds ``Y`` exactly from the Newton-Euler equations (below); :func:`base_parameters`
   finds the identifiable combinations by a QR decomposition with column pivoting of a stacked random-sample
   regressor; :func:`fourier_trajectory` and :func:`optimize_excitation` give an excitation trajectory (finite
   Fourier series) optimized for the condition number of the base regressor.

Regressor derivation: a link's inertial wrench about its origin O, in link axes, with ``a`` the acceleration of O
minus gravity, is linear in its parameters:

    F = m a + (alpha^ + omega^ omega^) (m c)
    N = -a^ (m c) + L(alpha) I + omega^ L(omega) I          (v^ the cross-product matrix, L(v) I = I v)

and the generalized force of joint i is the sum, over the links j beyond it, of that wrench projected on its axis
z_i (world): ``z_i . (N_j + (p_j - p_i) x F_j)`` for a revolute joint, ``z_i . F_j`` for a prismatic one (a mimic
joint adds its projection, times its multiplier, to its source coordinate, as in inverse dynamics).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize

from ..errors import InputError
from .dynamics import link_inertials
from .kinematics import LinkKinematics, link_kinematics

PARAMETER_NAMES = ("m", "mx", "my", "mz", "Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz")


# ============================================================================ per-body identification (paper 003)
@dataclass(frozen=True)
class BodyParameters:
    """One body's identified parameters: ``mass`` [kg] from all Newton rows; ``mass_by_axis`` (3,) [kg] from the
    rows of each world axis alone (the paper's m(e_1^(0)), m(e_2^(0)), m(e_3^(0))); ``inertia`` (3,) principal
    moments about the centre of mass [kg m^2]. NaN where the motion does not excite the parameter. ``mass_std``
    ``mass_by_axis_std`` (3,) and ``inertia_std`` (3,): least-squares standard errors from the residuals (zero for
    exact data)."""

    name: str
    mass: float
    mass_by_axis: np.ndarray
    inertia: np.ndarray
    mass_std: float
    mass_by_axis_std: np.ndarray
    inertia_std: np.ndarray
    n_samples: int


def body_wrenches(robot, kin: LinkKinematics, joint_wrenches: np.ndarray) -> np.ndarray:
    """Resultant joint wrench on every link (n_t, n_links, 6) [F; M about the link origin], link axes: its parent
    joint's wrench minus those of its child joints (``joint_wrenches`` (n_t, n_joints, 6), parent on child at the
    child origin in child axes, as :func:`structcheck.rigid.inverse_dynamics` gives them)."""
    W = np.asarray(joint_wrenches, float)
    idx = {n: k for k, n in enumerate(robot.link_names)}
    R = kin.T_world_link[..., :3, :3]
    p = kin.T_world_link[..., :3, 3]
    out = np.zeros(W.shape[:1] + (len(robot.links), 6))
    for k, j in enumerate(robot.joints):
        ch, pa = idx[j.child], idx[j.parent]
        f, n = W[:, k, :3], W[:, k, 3:]
        out[:, ch] += W[:, k]
        R_pc = np.einsum("tji,tjk->tik", R[:, pa], R[:, ch])  # child axes -> parent axes
        r = np.einsum("tji,tj->ti", R[:, pa], p[:, ch] - p[:, pa])  # child origin in parent axes
        fp = np.einsum("tij,tj->ti", R_pc, f)
        out[:, pa, :3] -= fp
        out[:, pa, 3:] -= np.einsum("tij,tj->ti", R_pc, n) + np.cross(r, fp)
    return out


def identify_bodies(robot, kin: LinkKinematics, joint_wrenches: np.ndarray, gravity=(0.0, 0.0, -9.81),
                    links=None, com=None, principal_axes=None, samples=None, tol: float = 1e-6) -> dict:
    """Each body's mass and principal moments of inertia by least squares from measured joint wrenches.

    ``kin``: the links' motion (``omega``, ``alpha``, ``a_origin`` in link axes, ``T_world_link``), (n_t, ...);
    ``joint_wrenches`` (n_t, n_joints, 6): the measured reactions (parent on child, child origin, child axes);
    ``gravity`` (3,) world [m/s^2]. The known geometry: ``com`` name -> (3,) centre of mass in link axes [m]
    (default the robot's) and ``principal_axes`` name -> (3, 3) whose columns are the principal axes in
    link axes (default the link axes; a left-handed set is made right-handed). ``links``: names to identify
    (default every link but the base);
    ``samples``: indices of the samples to use (default all). A column whose largest entry is below ``tol``
    times the largest entry of its equations (mass: of all three axes' columns) is not excited: that parameter
    is NaN (1e-6 stays above the rounding of 7-significant-digit data). Returns name -> :class:`BodyParameters`."""
    names = [n for n in robot.link_names if n != robot.base] if links is None else list(links)
    sel = slice(None) if samples is None else np.asarray(samples)
    W = body_wrenches(robot, kin, joint_wrenches)[sel]
    g = np.asarray(gravity, float).reshape(3)
    out = {}
    for name in names:
        i = robot.link_names.index(name)
        c = np.asarray((com or {}).get(name, robot.link(name).com), float)
        P = np.asarray((principal_axes or {}).get(name, np.eye(3)), float)
        if np.linalg.det(P) < 0:  # a reflection (eigh may return one) would flip the sign of omega x J omega
            P = P * [1.0, 1.0, -1.0]
        R = kin.T_world_link[sel, i, :3, :3]
        w, al, a = kin.omega[sel, i], kin.alpha[sel, i], kin.a_origin[sel, i]
        a_c = a + np.cross(al, c) + np.cross(w, np.cross(w, c))
        # Newton, world axes: m (a_C - g) = F
        col = np.einsum("tij,tj->ti", R, a_c) - g
        F = np.einsum("tij,tj->ti", R, W[:, i, :3])
        per_axis = [_solve(col[:, k:k + 1], F[:, k], tol, np.abs(col).max()) for k in range(3)]
        m_axes, m_axes_std = (np.array([x[i][0] for x in per_axis]) for i in (0, 1))
        m, m_std = _solve(col.reshape(-1, 1), F.reshape(-1), tol)
        # Euler about C, principal axes: S(omega, alpha) J = M_C
        M_c = W[:, i, 3:] - np.cross(c, W[:, i, :3])
        wp, ap, Mp = (x @ P for x in (w, al, M_c))  # components on the principal axes
        S = np.zeros((len(wp), 3, 3))
        S[:, 0] = np.c_[ap[:, 0], -wp[:, 1] * wp[:, 2], wp[:, 1] * wp[:, 2]]
        S[:, 1] = np.c_[wp[:, 0] * wp[:, 2], ap[:, 1], -wp[:, 0] * wp[:, 2]]
        S[:, 2] = np.c_[-wp[:, 0] * wp[:, 1], wp[:, 0] * wp[:, 1], ap[:, 2]]
        J, J_std = _solve(S.reshape(-1, 3), Mp.reshape(-1), tol)
        out[name] = BodyParameters(name, float(m[0]), m_axes, J, float(m_std[0]), m_axes_std, J_std, len(wp))
    return out


def _solve(A, b, tol, scale=None):
    """Least squares of A x = b on the excited columns (largest |entry| > tol x ``scale``, default the largest
    |entry| of A); the others NaN. Returns x and the standard errors sqrt(diag(s^2 (A^T A)^-1)), s^2 the
    residual variance."""
    peak = np.abs(A).max(axis=0)
    scale = peak.max() if scale is None else scale
    ok = peak > tol * scale if scale > 0 else np.zeros(len(peak), bool)
    x, std = np.full(A.shape[1], np.nan), np.full(A.shape[1], np.nan)
    if ok.any():
        As = A[:, ok]
        if np.linalg.matrix_rank(As) < ok.sum():
            raise InputError(f"the excited columns of the body regressor are dependent (rank "
                             f"{np.linalg.matrix_rank(As)} < {ok.sum()}): the motion does not separate them")
        sol, *_ = np.linalg.lstsq(As, b, rcond=None)
        dof = max(len(b) - ok.sum(), 1)
        s2 = float(np.sum((b - As @ sol) ** 2)) / dof
        x[ok], std[ok] = sol, np.sqrt(s2 * np.diag(np.linalg.inv(As.T @ As)))
    return x, std


def add_noise(x: np.ndarray, relative: float, rng: np.random.Generator) -> np.ndarray:
    """``x`` (n_t, ...) plus Gaussian noise of standard deviation ``relative`` times each channel's RMS over the
    samples (axis 0); a new array (a channel that is identically zero stays zero)."""
    x = np.asarray(x, float)
    rms = np.sqrt(np.mean(x ** 2, axis=0))
    return x + relative * rms * rng.standard_normal(x.shape)


def round_significant(x: np.ndarray, digits: int) -> np.ndarray:
    """``x`` rounded to ``digits`` significant digits, element-wise (as a simulator's output table keeps them)."""
    x = np.asarray(x, float)
    mag = np.floor(np.log10(np.abs(np.where(x == 0, 1.0, x))))
    scale = 10.0 ** (digits - 1 - mag)
    return np.round(x * scale) / scale


# ============================================================================ whole-robot regressor
def moving_links(robot) -> list[str]:
    """The links whose parameters the joint torques depend on: every link but the base, in link order."""
    return [n for n in robot.link_names if n != robot.base]


def parameter_names(robot) -> list[str]:
    """Names of the regressor's columns, ``'<link>.<parameter>'`` (10 per moving link, PARAMETER_NAMES order)."""
    return [f"{ln}.{p}" for ln in moving_links(robot) for p in PARAMETER_NAMES]


def standard_parameters(robot, payloads=None) -> np.ndarray:
    """The robot's standard inertial parameters pi (10 n_links,) for :func:`regressor`: per moving link (link +
    point masses + payloads) m [kg], m c [kg m], inertia about the link origin [kg m^2] in link axes."""
    inert = link_inertials(robot, payloads)
    out = []
    for name in moving_links(robot):
        i = robot.link_names.index(name)
        m, c, Ic = inert.mass[i], inert.com[i], inert.inertia[i]
        I = Ic + m * (c @ c * np.eye(3) - np.outer(c, c))
        out.append([m, *(m * c), I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2]])
    return np.array(out, float).reshape(-1)


def _skew(v):
    """Cross-product matrices (n, 3, 3) of vectors (n, 3)."""
    S = np.zeros(v.shape[:-1] + (3, 3))
    S[..., 0, 1], S[..., 0, 2], S[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    S[..., 1, 0], S[..., 2, 0], S[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    return S


def _inertia_map(v):
    """L(v) (n, 3, 6) with L(v) [Ixx, Ixy, Ixz, Iyy, Iyz, Izz] = I v."""
    L = np.zeros(v.shape[:-1] + (3, 6))
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    L[..., 0, 0], L[..., 0, 1], L[..., 0, 2] = x, y, z
    L[..., 1, 1], L[..., 1, 3], L[..., 1, 4] = x, y, z
    L[..., 2, 2], L[..., 2, 4], L[..., 2, 5] = x, y, z
    return L


def regressor(robot, q, qd, qdd, gravity=(0.0, 0.0, -9.81)) -> np.ndarray:
    """The joint-torque regressor Y (n_t, n_dof, 10 n_moving_links): ``tau = Y @ pi`` exactly, with ``pi`` from
    :func:`standard_parameters` (columns named by :func:`parameter_names`). ``q``, ``qd``, ``qdd`` (n_t, n_dof)
    as for inverse dynamics [rad, m, /s, /s^2]; ``gravity`` (3,) world [m/s^2]. Derived from the Newton-Euler
    equations (module docstring)."""
    kin = link_kinematics(robot, q, qd, qdd)
    n_t = kin.omega.shape[0]
    g = np.asarray(gravity, float).reshape(3)
    names = moving_links(robot)
    li = np.array([robot.link_names.index(n) for n in names], dtype=np.intp)
    R = kin.T_world_link[:, li, :3, :3]
    p = kin.T_world_link[:, li][..., :3, 3]
    w, al = kin.omega[:, li], kin.alpha[:, li]
    a = kin.a_origin[:, li] - np.einsum("tlji,j->tli", R, g)
    Sw = _skew(w)
    A = np.zeros((n_t, len(names), 6, 10))  # link-axes wrench about the origin per unit parameter
    A[..., :3, 0] = a
    A[..., :3, 1:4] = _skew(al) + Sw @ Sw
    A[..., 3:, 1:4] = -_skew(a)
    A[..., 3:, 4:] = _inertia_map(al) + Sw @ _inertia_map(w)
    FW, NW = R @ A[..., :3, :], R @ A[..., 3:, :]  # world axes (n_t, n_links, 3, 10)
    col = {n: k for k, n in enumerate(robot.dof_names)}
    Y = np.zeros((n_t, robot.n_dof, len(names), 10))
    for j in robot.joints:
        if not j.movable:
            continue
        src, mult = (j.name, 1.0) if j.mimic is None else (j.mimic[0], float(j.mimic[1]))
        beyond = np.array([k for k, n in enumerate(names) if j in robot.path_to_base(n)], dtype=np.intp)
        c = names.index(j.child)
        z = R[:, c] @ j.axis  # world axis of the joint (its frame is the child's)
        if j.type == "prismatic":
            y = np.einsum("ti,tlik->tlk", z, FW[:, beyond])
        else:
            d = p[:, beyond] - p[:, c, None]
            zxd = np.stack([z[:, None, 1] * d[..., 2] - z[:, None, 2] * d[..., 1],
                            z[:, None, 2] * d[..., 0] - z[:, None, 0] * d[..., 2],
                            z[:, None, 0] * d[..., 1] - z[:, None, 1] * d[..., 0]], axis=-1)
            y = np.einsum("ti,tlik->tlk", z, NW[:, beyond]) + np.einsum("tli,tlik->tlk", zxd, FW[:, beyond])
        Y[:, col[src], beyond] += mult * y
    return Y.reshape(n_t, robot.n_dof, 10 * len(names))


# ============================================================================ base parameters
@dataclass(frozen=True)
class BaseParameters:
    """The identifiable combinations of the standard parameters: ``beta = pi[independent] + K @ pi[dependent]``.

    ``independent``, ``dependent``: column indices into the standard parameters (pivot order of the QR);
    ``K`` (n_base, n_dependent); ``rank`` = n_base; ``tolerance``: |R_kk| below it counted as zero;
    ``diagonal``: |R_kk| of the pivoted QR (n_parameters,), to see the gap; ``names``: the standard names."""

    independent: np.ndarray
    dependent: np.ndarray
    K: np.ndarray
    rank: int
    tolerance: float
    diagonal: np.ndarray
    names: tuple

    def from_standard(self, pi: np.ndarray) -> np.ndarray:
        """The base parameters beta (rank,) of standard parameters pi (n_parameters,)."""
        pi = np.asarray(pi, float)
        return pi[self.independent] + self.K @ pi[self.dependent]

    def columns(self, Y: np.ndarray) -> np.ndarray:
        """The base regressor: the independent columns of a regressor Y (..., n_parameters)."""
        return Y[..., self.independent]

    def describe(self, threshold: float = 1e-10) -> list[str]:
        """Each base parameter as a readable combination, e.g. ``'B2.Iyy + 0.52 B3.m + ...'``."""
        out = []
        for r, k in enumerate(self.independent):
            terms = [self.names[k]] + [f"{c:+.6g} {self.names[d]}" for c, d in zip(self.K[r], self.dependent)
                                       if abs(c) > threshold]
            out.append(" ".join(terms))
        return out


def random_samples(robot, n: int, rng: np.random.Generator, q_range=np.pi, rate_range=2.0):
    """``n`` random (q, qd, qdd) samples (each (n, n_dof)): q uniform within the joint limits where finite (else
    +-``q_range`` around 0), rates and accelerations uniform in +-``rate_range``."""
    lo = np.where(np.isfinite(robot.lower), robot.lower, -q_range)
    hi = np.where(np.isfinite(robot.upper), robot.upper, q_range)
    q = rng.uniform(lo, hi, (n, robot.n_dof))
    return q, rng.uniform(-rate_range, rate_range, (n, robot.n_dof)), \
        rng.uniform(-rate_range, rate_range, (n, robot.n_dof))


def base_parameters(robot, gravity=(0.0, 0.0, -9.81), n_samples: int = 200, seed: int = 0,
                    tolerance: float | None = None) -> BaseParameters:
    """Base parameters from a QR decomposition with column pivoting of the regressor stacked over ``n_samples``
    random samples (seeded): W P = Q R; the rank r counts the |R_kk| above ``tolerance`` (default
    ``max(W.shape) * eps * |R_00|``, numpy's matrix_rank rule); the first r pivots are the independent columns
    and K = R_11^-1 R_12 expresses the others in them."""
    rng = np.random.default_rng(seed)
    W = regressor(robot, *random_samples(robot, n_samples, rng), gravity).reshape(-1, 10 * len(moving_links(robot)))
    _, Rm, piv = linalg.qr(r_factor(W), pivoting=True)  # W P = Q0 (R0 P) = Q0 Q R
    diag = np.abs(np.diag(Rm))
    tol = max(W.shape) * np.finfo(float).eps * diag[0] if tolerance is None else float(tolerance)
    r = int(np.sum(diag > tol))
    K = linalg.solve_triangular(Rm[:r, :r], Rm[:r, r:])
    K[np.abs(K) < 1e-12 * max(1.0, np.abs(K).max(initial=0.0))] = 0.0  # round-off of exact zeros
    return BaseParameters(independent=piv[:r], dependent=piv[r:], K=K, rank=r, tolerance=tol, diagonal=diag,
                          names=tuple(parameter_names(robot)))


def r_factor(A: np.ndarray, rows: int | None = None) -> np.ndarray:
    """The triangular factor R (n, n) of A = Q R for a tall A (m, n), by QR of blocks of ``rows`` rows (default
    2 n) stacked under the R so far (a tall-skinny QR, as exact as one QR). Small LAPACK calls: a multithreaded
    BLAS on a busy machine makes one large call slower by orders of magnitude."""
    n = A.shape[1]
    rows = 2 * n if rows is None else int(rows)
    R = np.zeros((0, n))
    for s in range(0, len(A), rows):
        R = np.linalg.qr(np.vstack([R, A[s:s + rows]]), mode="r")
    return R


def identify_base(Yb: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """Least-squares base parameters beta (n_base,) from a base regressor Yb (n_t, n_dof, n_base) and measured
    torques tau (n_t, n_dof), through the R factor of [Yb tau] (Yb must have full column rank)."""
    n = Yb.shape[-1]
    R = r_factor(np.c_[np.asarray(Yb, float).reshape(-1, n), np.asarray(tau, float).reshape(-1)])
    return linalg.solve_triangular(R[:n, :n], R[:n, n])


# ============================================================================ excitation trajectories
@dataclass(frozen=True)
class FourierTrajectory:
    """Finite Fourier series per joint: q_i(t) = q0_i + sum_l a_il/(l w) sin(l w t) - b_il/(l w) cos(l w t),
    w = 2 pi / ``period``; ``a``, ``b`` (n_dof, n_harmonics) [rad/s or m/s]; ``q0`` (n_dof,). Periodic, so a
    robot can repeat it."""

    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray
    period: float

    def __call__(self, t: np.ndarray):
        """q, qd, qdd (n_t, n_dof) at times t (n_t,) [s]."""
        t = np.asarray(t, float)
        w = 2 * np.pi / self.period
        l = np.arange(1, self.a.shape[1] + 1)
        s, c = np.sin(w * np.outer(t, l)), np.cos(w * np.outer(t, l))  # (n_t, n_h)
        q = self.q0 + (s / (w * l)) @ self.a.T - (c / (w * l)) @ self.b.T
        qd = c @ self.a.T + s @ self.b.T
        qdd = (-s * (w * l)) @ self.a.T + (c * (w * l)) @ self.b.T
        return q, qd, qdd


def _fourier_basis(t, period, n_h):
    """Matrices Bq, Bv (n_t, 2 n_h): q - q0 = Bq @ [a; b], qd = Bv @ [a; b] for one joint."""
    w = 2 * np.pi / period
    l = np.arange(1, n_h + 1)
    s, c = np.sin(w * np.outer(t, l)), np.cos(w * np.outer(t, l))
    return np.hstack([s / (w * l), -c / (w * l)]), np.hstack([c, s])


@dataclass(frozen=True)
class Excitation:
    """An optimized excitation: the ``trajectory``, the condition number ``cond`` of its base regressor on the
    ``t`` samples, the starting guess's ``cond0`` and the optimizer's ``message``."""

    trajectory: FourierTrajectory
    cond: float
    cond0: float
    t: np.ndarray
    message: str


def base_condition(robot, base: BaseParameters, traj: FourierTrajectory, t, gravity) -> float:
    """2-norm condition number of the stacked base regressor of ``traj`` at times ``t``."""
    Yb = base.columns(regressor(robot, *traj(t), gravity)).reshape(-1, base.rank)
    return float(np.linalg.cond(r_factor(Yb)))  # the singular values of Yb are those of its R


def optimize_excitation(robot, base: BaseParameters, q0, q_range, qd_max, period: float = 10.0,
                        n_harmonics: int = 3, n_samples: int = 60, gravity=(0.0, 0.0, -9.81), seed: int = 0,
                        maxiter: int = 60) -> Excitation:
    """A finite-Fourier-series excitation minimizing the condition number of the base regressor (scipy SLSQP on
    log cond, from a seeded random start), within |q - q0| <= ``q_range`` and |qd| <= ``qd_max`` (each (n_dof,))
    at ``n_samples`` times over one ``period`` [s]: linear constraints in the coefficients, given exactly."""
    q0, q_range, qd_max = (np.broadcast_to(np.asarray(x, float), (robot.n_dof,)) for x in (q0, q_range, qd_max))
    n, h = robot.n_dof, int(n_harmonics)
    t = np.linspace(0.0, period, n_samples, endpoint=False)
    Bq, Bv = _fourier_basis(t, period, h)
    # constraints A x <= ub for x = per-joint [a; b] blocks: +-(q - q0) <= range, +-qd <= qd_max
    A = np.zeros((4 * n * len(t), 2 * h * n))
    ub = np.zeros(4 * n * len(t))
    for i in range(n):
        blk = slice(2 * h * i, 2 * h * (i + 1))
        for k, (B, lim) in enumerate(((Bq, q_range[i]), (-Bq, q_range[i]), (Bv, qd_max[i]), (-Bv, qd_max[i]))):
            rows = slice((4 * i + k) * len(t), (4 * i + k + 1) * len(t))
            A[rows, blk] = B
            ub[rows] = lim

    def unpack(x):
        x = x.reshape(n, 2, h)
        return FourierTrajectory(q0.copy(), x[:, 0].copy(), x[:, 1].copy(), period)

    def cost(x):
        c = base_condition(robot, base, unpack(x), t, gravity)
        return np.log(c) if np.isfinite(c) else 1e3

    rng = np.random.default_rng(seed)
    x0 = rng.uniform(-1, 1, 2 * h * n)
    x0 *= 0.9 / max(1.0, np.max((A @ x0) / ub))  # scaled inside the bounds
    res = optimize.minimize(cost, x0, method="SLSQP",
                            constraints=[{"type": "ineq", "fun": lambda x: ub - A @ x, "jac": lambda x: -A}],
                            options={"maxiter": maxiter, "ftol": 1e-6})
    x = res.x if np.all(A @ res.x <= ub * (1 + 1e-6)) else x0  # never return a trajectory beyond the bounds
    traj = unpack(x)
    return Excitation(traj, base_condition(robot, base, traj, t, gravity),
                      base_condition(robot, base, unpack(x0), t, gravity), t, str(res.message))


def random_trajectory(robot, q0, q_range, qd_max, period: float, n_harmonics: int, seed: int) -> FourierTrajectory:
    """A seeded random finite Fourier series scaled to just fit |q - q0| <= q_range and |qd| <= qd_max (checked
    on 2,000 samples of one period): a validation trajectory."""
    q0, q_range, qd_max = (np.broadcast_to(np.asarray(x, float), (robot.n_dof,)) for x in (q0, q_range, qd_max))
    rng = np.random.default_rng(seed)
    a, b = rng.uniform(-1, 1, (2, robot.n_dof, n_harmonics))
    traj = FourierTrajectory(q0.copy(), a, b, period)
    q, qd, _ = traj(np.linspace(0, period, 2000, endpoint=False))
    s = 0.95 / np.maximum(np.abs(q - q0).max(0) / q_range, np.abs(qd).max(0) / qd_max)
    return FourierTrajectory(q0.copy(), a * s[:, None], b * s[:, None], period)
