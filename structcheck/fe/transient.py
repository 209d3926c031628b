"""Transient linear dynamics of a supported link: modes, the mode-acceleration method with exact integration
of piecewise-linear modal loads, and direct Newmark integration of the full system (the reference).

Mode acceleration: u(t) = U q_static(t) + sum_i phi_i (eta_i(t) - q_i(t) / w_i^2), with U = K^-1 F the unit-load
solutions, q_i = phi_i^T F c(t) and eta_i'' + 2 zeta_i w_i eta_i' + w_i^2 eta_i = q_i(t). The static part is
exact whatever the number of modes; the modes add the elastic inertia.

The modal equations are integrated exactly for loads linear between the samples: the one-step maps of every step
and mode come in closed form at once (:func:`step_maps`) and are composed by a parallel prefix scan, so the cost
does not depend on how many distinct steps a refined grid has.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import numpy as np
import scipy.sparse.linalg as spla

from ..errors import InputError
from .solvers import factorize, single_thread_blas


@dataclass(frozen=True)
class Modes:
    """``omega`` (m,) [rad/s] ascending, ``phi`` (n, m) mass-normalized (phi^T M phi = I)."""

    omega: np.ndarray
    phi: np.ndarray

    @property
    def frequency_hz(self) -> np.ndarray:
        return self.omega / (2 * np.pi)


def modes(K, M, n_modes: int, factorization=None) -> Modes:
    """Lowest ``n_modes`` of K phi = w^2 M phi by shift-invert Lanczos about 0, reusing the factorization of K.
    Shift-invert reads K only through its factorization (ARPACK's mode 3 applies K^-1 and M, never K): with
    ``factorization`` given, K may be None, so that a caller need not keep the matrix beside its factor.

    ARPACK (scipy's eigsh) with a single start vector needs about n_modes + 33 back-substitutions for 20 modes
    at tol 1e-10 (28-54 for 10 modes on paper 004's links). A block Lanczos with multi-right-hand-side solves
    was tried twice and loses: on a 290k-dof link, and again in 2026-11 on the curved paper-004 links (block
    shift-invert Lanczos, full M-reorthogonalization, blocks of 2-10 columns: 11-21 solves of 6 columns, the same
    modes to 1e-14 in frequency, but 1.6-2.0x ARPACK's wall and CPU time): a PARDISO solve of 10 columns costs
    3.6-4.5 single solves of CPU time, and the block method needs 2-3x as many columns as ARPACK needs solves.
    ARPACK's own vector operations run on one OpenBLAS thread: they are too small to share, and threads that wait
    for a busy core made them 25x slower (2.9 s against 0.12 s for 10 modes of a 48k-dof link on 2 loaded cores);
    the solves keep their threads."""
    n = M.shape[0]
    fact = factorization or factorize(K)
    n_modes = int(min(n_modes, n - 2))
    OPinv = spla.LinearOperator((n, n), matvec=lambda x: fact.solve(x), dtype=float)
    # a fixed start vector makes the result deterministic
    v0 = np.ones(n) / np.sqrt(n)
    with single_thread_blas():
        w2, phi = spla.eigsh(spla.LinearOperator((n, n), matvec=_not_read, dtype=float), k=n_modes, M=M,
                             sigma=0.0, which="LM", OPinv=OPinv, v0=v0, tol=1e-10)
    order = np.argsort(w2)
    w2, phi = w2[order], phi[:, order]
    phi = phi / np.sqrt(np.einsum("im,im->m", phi, M @ phi))
    # fix the sign of each mode (largest component positive) for reproducibility
    s = np.sign(phi[np.argmax(np.abs(phi), axis=0), np.arange(phi.shape[1])])
    return Modes(omega=np.sqrt(np.maximum(w2, 0.0)), phi=phi * s)


def _not_read(x):
    raise AssertionError("shift-invert Lanczos applied K itself; it should only apply its factorization")


#: Terms of the power series used where the step is short (spectral radius of X h at most 1): the n-th term is
#: below (n + 1) / n! < 1e-19 of the sum beyond it.
_SERIES_TERMS = 24


def _phi_scalar(x: np.ndarray, k: int) -> np.ndarray:
    """phi_k(x) = sum_j x^j / (j + k)! (phi_0 = exp, phi_1 = (e^x - 1) / x, phi_2 = (e^x - 1 - x) / x^2) of real
    x <= 0, by its series where |x| < 1 (the closed forms cancel there)."""
    x = np.asarray(x, float)
    out = np.empty_like(x)
    small = np.abs(x) < 1.0
    xs = x[small]
    acc = np.zeros_like(xs)
    for j in range(_SERIES_TERMS - 1, -1, -1):  # Horner
        acc = acc * xs + 1.0 / factorial(j + k)
    out[small] = acc
    xl = x[~small]
    out[~small] = (np.exp(xl), np.expm1(xl) / xl, (np.expm1(xl) - xl) / (xl * xl))[k]
    return out


def _phi_coefficients(a: np.ndarray, th2: np.ndarray, b2: np.ndarray) -> np.ndarray:
    """(alpha_k, beta_k) for k = 0, 1, 2, stacked (6, ...), with phi_k(Y) = alpha_k I + beta_k Y for every 2 x 2
    Y = X h of trace -2a and determinant th2 (a = zeta w h >= 0, th2 = (w h)^2 >= 0, b2 = th2 - a^2 given
    as (w h)^2 (1 - zeta) (1 + zeta) so that it keeps its digits near critical damping; phi_0 = exp,
    phi_1(Y) = int_0^1 e^{sY} ds, phi_2(Y) = int_0^1 (1 - s) e^{sY} ds).

    Three evaluations, each where it keeps its digits:
    - spectral radius rho <= 1: the power series, Y^n = u_n I + v_n Y by Cayley-Hamilton (no cancellation);
    - real eigenvalues far apart (overdamped, or w -> 0 under finite damping): divided differences of the
      scalar phi_k at the two eigenvalues;
    - otherwise (under- or near-critically damped, rho > 1): e^Y = e^{-a} (cos b I + sin(b)/b (Y + a I)) with
      b^2 = th2 - a^2 (cosh/sinh when b^2 < 0, series in b^2 near 0), then phi_{k+1}(Y) = (phi_k(Y) - I/k!) Y^-1
      with det Y = th2 >= rho^2 / 2 bounded away from 0."""
    a, th2, b2 = np.broadcast_arrays(*(np.asarray(x, float) for x in (a, th2, b2)))
    out = np.empty((6,) + a.shape)
    # b2: squared imaginary part of the eigenvalues -a +- i b
    c = np.sqrt(np.maximum(-b2, 0.0))  # their real half-split when overdamped
    rho = np.where(b2 >= 0, np.sqrt(th2), a + c)
    small = rho <= 1.0
    split = ~small & (2 * c >= 0.5 * rho)
    closed = ~small & ~split

    # series: u_{n+1} = -D v_n, v_{n+1} = u_n + T v_n (Y^2 = T Y - D I), T = -2a, D = th2
    T, D = -2.0 * a[small], th2[small]
    u, v = np.ones_like(T), np.zeros_like(T)
    acc = np.zeros((6,) + T.shape)
    for n in range(_SERIES_TERMS):
        for k in range(3):
            f = 1.0 / factorial(n + k)
            acc[2 * k] += f * u
            acc[2 * k + 1] += f * v
        u, v = -D * v, u + T * v
    out[:, small] = acc

    # well-separated real eigenvalues l1 (the smaller in magnitude, computed without cancellation) and l2
    aa, cc = a[split], c[split]
    l1, l2 = -th2[split] / (aa + cc), -aa - cc
    for k in range(3):
        f1, f2 = _phi_scalar(l1, k), _phi_scalar(l2, k)
        beta = (f1 - f2) / (2 * cc)
        out[2 * k, split], out[2 * k + 1, split] = f1 - l1 * beta, beta

    # Cayley-Hamilton with the damped trigonometric (or hyperbolic) closed form
    aa, bb2, D = a[closed], b2[closed], th2[closed]
    T = -2.0 * aa
    cosb, sinc = np.empty_like(aa), np.empty_like(aa)  # cos b, sin(b) / b, entire functions of b^2
    near = np.abs(bb2) < 1.0
    x = -bb2[near]
    cs, ss = np.zeros_like(x), np.zeros_like(x)
    for j in range(_SERIES_TERMS // 2, -1, -1):
        cs = cs * x + 1.0 / factorial(2 * j)
        ss = ss * x + 1.0 / factorial(2 * j + 1)
    cosb[near], sinc[near] = cs, ss
    E = np.exp(-aa)
    osc = ~near & (bb2 > 0)
    b = np.sqrt(bb2[osc])
    cosb[osc], sinc[osc] = np.cos(b), np.sin(b) / b
    hyp = ~near & (bb2 < 0)  # overdamped but not split (rho > 1, eigenvalues within a factor ~2)
    cb = np.sqrt(-bb2[hyp])
    cosb[hyp], sinc[hyp] = np.cosh(cb), np.sinh(cb) / cb
    alpha0, beta0 = E * (cosb + aa * sinc), E * sinc
    alpha1, beta1 = beta0 + (alpha0 - 1.0) * T / D, (1.0 - alpha0) / D
    alpha2, beta2 = beta1 + (alpha1 - 1.0) * T / D, (1.0 - alpha1) / D
    out[:, closed] = np.stack([alpha0, beta0, alpha1, beta1, alpha2, beta2])
    return out


def step_maps(omega, zeta, h):
    """Exact one-step maps of eta'' + 2 zeta w eta' + w^2 eta = q(t), q linear over each step, for every step and
    every mode at once: x1 = Phi x0 + g0 q0 + g1 q1 with x = [eta, eta'] [unit of q s^2, unit of q s].

    ``omega`` (m,) [rad/s] >= 0, ``zeta`` (m,) >= 0 (any damping: under-, critically or over-damped), ``h`` (n,)
    [s] > 0. Returns Phi (n, m, 2, 2) = e^{X h} with X = [[0, 1], [-w^2, -2 zeta w]], g0 (n, m, 2) and g1 (n, m, 2)
    [s^2, s]: with B = [0, 1], G1 = int_0^h e^{X s} B ds, G2 = int_0^h (h - s) e^{X s} B ds,
    g1 = G2 / h and g0 = G1 - g1. Closed forms, accurate to round-off for every w h (also w -> 0)."""
    w = np.atleast_1d(np.asarray(omega, float))
    z = np.broadcast_to(np.asarray(zeta, float), w.shape)
    h = np.atleast_1d(np.asarray(h, float))[:, None]
    a = z * w * h  # (n, m)
    th2 = (w * h) ** 2
    al0, be0, al1, be1, al2, be2 = _phi_coefficients(a, th2, th2 * ((1.0 - z) * (1.0 + z)))
    Phi = np.empty(a.shape + (2, 2))
    Phi[..., 0, 0] = al0
    Phi[..., 0, 1] = be0 * h
    Phi[..., 1, 0] = -be0 * (w * w) * h
    Phi[..., 1, 1] = al0 - 2.0 * a * be0
    # phi_k(Y) B = alpha_k B + beta_k Y B with Y B = [h, -2a]; G1 = h phi_1(Y) B, G2 = h^2 phi_2(Y) B
    g1 = np.stack([be2 * h * h, (al2 - 2.0 * a * be2) * h], axis=-1)
    d_al, d_be = al1 - al2, be1 - be2
    g0 = np.stack([d_be * h * h, (d_al - 2.0 * a * d_be) * h], axis=-1)
    return Phi, g0, g1


def _affine_scan(A: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All prefix compositions of the affine steps x_{k+1} = A_k x_k + r_k: returns (P, c) with
    x_{k+1} = P_k x_0 + c_k for every k, from A (n, m, 2, 2) and r (n, m, 2).

    A Hillis-Steele scan: log2(n) vectorized rounds, each composing every step with the one d = 1, 2, 4, ...
    steps back (no Python loop over time steps). Same rounding order on every run."""
    n = len(A)
    a00, a01, a10, a11 = (np.ascontiguousarray(A[..., i, j]) for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
    c0, c1 = np.ascontiguousarray(r[..., 0]), np.ascontiguousarray(r[..., 1])
    d = 1
    while d < n:
        hi, lo = slice(d, None), slice(None, n - d)
        # (later step) o (earlier composite): A_hi A_lo, A_hi c_lo + c_hi
        n00 = a00[hi] * a00[lo] + a01[hi] * a10[lo]
        n01 = a00[hi] * a01[lo] + a01[hi] * a11[lo]
        n10 = a10[hi] * a00[lo] + a11[hi] * a10[lo]
        n11 = a10[hi] * a01[lo] + a11[hi] * a11[lo]
        m0 = a00[hi] * c0[lo] + a01[hi] * c1[lo] + c0[hi]
        m1 = a10[hi] * c0[lo] + a11[hi] * c1[lo] + c1[hi]
        a00[hi], a01[hi], a10[hi], a11[hi], c0[hi], c1[hi] = n00, n01, n10, n11, m0, m1
        d *= 2
    P = np.stack([np.stack([a00, a01], -1), np.stack([a10, a11], -1)], -2)
    return P, np.stack([c0, c1], -1)


def modal_response(t: np.ndarray, q: np.ndarray, omega: np.ndarray, zeta, eta0=None, etad0=None):
    """Exact response (eta, eta_dot), each (n_t, m), of eta'' + 2 zeta w eta' + w^2 eta = q(t) for q (n_t, m)
    piecewise linear between the samples t (n_t,) [s] (any spacing), from rest unless eta0/etad0 (m,) are given.
    ``omega`` (m,) [rad/s] >= 0, ``zeta`` (m,) or a scalar >= 0 (any damping).

    The closed-form maps of every step and mode (:func:`step_maps`) are composed by a parallel prefix scan: no
    Python loop over time steps, whatever the spacing."""
    t = np.asarray(t, float)
    q = np.asarray(q, float)
    m = q.shape[1]
    omega = np.broadcast_to(np.asarray(omega, float), (m,))
    zeta = np.broadcast_to(np.asarray(zeta, float), (m,))
    if np.any(zeta < 0) or not np.all(np.isfinite(zeta)):
        raise InputError(f"modal damping ratios must be finite and >= 0, got {zeta}")
    if np.any(omega < 0) or not np.all(np.isfinite(omega)):
        raise InputError(f"modal frequencies must be finite and >= 0 rad/s, got {omega}")
    if np.any(np.diff(t) <= 0):
        raise InputError("time samples must increase strictly")
    x0 = np.zeros((m, 2))
    if eta0 is not None:
        x0[:, 0] = eta0
    if etad0 is not None:
        x0[:, 1] = etad0
    eta, etad = np.empty_like(q), np.empty_like(q)
    eta[0], etad[0] = x0[:, 0], x0[:, 1]
    if len(t) > 1:
        Phi, g0, g1 = step_maps(omega, zeta, np.diff(t))
        r = g0 * q[:-1, :, None] + g1 * q[1:, :, None]  # (n, m, 2)
        P, c = _affine_scan(Phi, r)
        x = np.einsum("kmij,mj->kmi", P, x0) + c
        eta[1:], etad[1:] = x[..., 0], x[..., 1]
    return eta, etad


@dataclass(frozen=True)
class ModeAccelerationResult:
    """u(t) = U_static @ static_coeff[t] + phi @ modal_coeff[t]."""

    static_coeff: np.ndarray
    modal_coeff: np.ndarray


def modal_states(t, coeff, F, modes_: Modes, zeta, from_equilibrium: bool = False, rest=None):
    """Modal loads q, coordinates eta and rates eta' (each (n_t, m)) of loads F (n, k) with time coefficients
    ``coeff`` (n_t, k) at times t (n_t,) [s], exact for loads linear between the samples; ``zeta`` (m,) or a
    scalar damping ratio. The initial state is one of (:func:`modal_states_of_loads`): undeformed and still (the
    default: loads present at t[0] act as a step), at rest in static equilibrium under the load coefficients
    ``rest`` (k,) that hold before t[0], or with ``from_equilibrium`` the quasi-static state of the loads at t[0]
    moving with their initial rate."""
    m = modes_.phi.shape[1]
    if m == 0:
        z = np.zeros((len(t), 0))
        return z, z, z
    modal = (modes_.phi.T @ F).T
    return modal_states_of_loads(t, coeff @ modal, modes_.omega, zeta, from_equilibrium,
                                 None if rest is None else np.asarray(rest, float) @ modal)


def modal_states_of_loads(t, q, omega, zeta, from_equilibrium: bool = False, rest=None):
    """:func:`modal_states` from the modal loads q (n_t, m) themselves: returns q, eta, eta' (each (n_t, m)).

    The state at t[0]: with ``rest`` (m,), the modal loads that held before t[0], the structure at rest in
    static equilibrium under them (eta = rest / w^2, eta' = 0; a jump of the loads from ``rest`` to q[0] at t[0]
    is a step that makes it ring, as the same jump later would); with ``from_equilibrium``, the quasi-static state
    of the loads at t[0] moving with their initial rate (eta = q / w^2, eta' = q' / w^2: a motion already under way,
    no free vibration); else undeformed and still (eta = eta' = 0)."""
    t = np.asarray(t, float)
    w2 = np.asarray(omega, float) ** 2
    eta0 = etad0 = None
    if rest is not None:
        eta0, etad0 = np.asarray(rest, float) / w2, np.zeros_like(w2)
    elif from_equilibrium:
        eta0 = q[0] / w2
        etad0 = (q[1] - q[0]) / (t[1] - t[0]) / w2 if len(t) > 1 else np.zeros_like(eta0)
    eta, etad = modal_response(t, q, omega, zeta, eta0, etad0)
    return q, eta, etad


def mode_acceleration(t, coeff, F, modes_: Modes, zeta, quasi_static: bool = False) -> ModeAccelerationResult:
    """Mode-acceleration coefficients for loads F (n, k) with time coefficients ``coeff`` (n_t, k), from rest."""
    coeff = np.asarray(coeff, float)
    if quasi_static or modes_.phi.shape[1] == 0:
        return ModeAccelerationResult(coeff, np.zeros((len(coeff), modes_.phi.shape[1])))
    q, eta, _ = modal_states(t, coeff, F, modes_, zeta)
    return ModeAccelerationResult(coeff, eta - q / modes_.omega ** 2)


def rayleigh_zeta(omega, a: float, b: float) -> np.ndarray:
    """Modal damping ratios equivalent to Rayleigh damping C = a M + b K: (a / w + b w) / 2."""
    omega = np.asarray(omega, float)
    return (a / omega + b * omega) / 2


def newmark(K, M, F, coeff, t, C=None, beta: float = 0.25, gamma: float = 0.5, u0=None, v0=None,
            on_step=None):
    """Direct average-acceleration Newmark integration of M u'' + C u' + K u = F @ coeff[t] from rest
    (or u0, v0). Returns u (n_t, n). The effective matrix is factorized once per distinct step.
    ``on_step(k)``, if given, is called after step k (to time or report progress)."""
    import scipy.sparse as sp

    n = K.shape[0]
    t = np.asarray(t, float)
    coeff = np.asarray(coeff, float)
    C = sp.csr_matrix((n, n)) if C is None else C
    u = np.zeros((len(t), n))
    u[0] = 0.0 if u0 is None else u0
    v = np.zeros(n) if v0 is None else np.asarray(v0, float).copy()
    f0 = F @ coeff[0]
    a = factorize(M).solve(f0 - C @ v - K @ u[0]) if np.any(f0) or np.any(v) or np.any(u[0]) else np.zeros(n)
    cache = {}
    for k in range(len(t) - 1):  # the reference path: one back-substitution per step
        dt = t[k + 1] - t[k]
        key = round(dt, 15)
        if key not in cache:
            cache[key] = factorize(K + gamma / (beta * dt) * C + 1.0 / (beta * dt * dt) * M)
        f1 = F @ coeff[k + 1]
        rhs = (f1 + M @ (u[k] / (beta * dt * dt) + v / (beta * dt) + (0.5 / beta - 1) * a)
               + C @ (gamma / (beta * dt) * u[k] + (gamma / beta - 1) * v + dt * (gamma / (2 * beta) - 1) * a))
        u1 = cache[key].solve(rhs)
        a1 = (u1 - u[k]) / (beta * dt * dt) - v / (beta * dt) - (0.5 / beta - 1) * a
        v = v + dt * ((1 - gamma) * a + gamma * a1)
        u[k + 1], a = u1, a1
        if on_step is not None:
            on_step(k)
    return u
