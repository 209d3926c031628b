"""Transient linear dynamics of a supported link: modes, the mode-acceleration method with exact integration
of piecewise-linear modal loads, and direct Newmark integration of the full system (the reference).

Mode acceleration: u(t) = U q_static(t) + sum_i phi_i (eta_i(t) - q_i(t) / w_i^2), with U = K^-1 F the unit-load
solutions, q_i = phi_i^T F c(t) and eta_i'' + 2 zeta_i w_i eta_i' + w_i^2 eta_i = q_i(t). The static part is
exact whatever the number of modes; the modes add the elastic inertia.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse.linalg as spla
from scipy.signal import lfilter

from ..errors import InputError
from .solvers import factorize


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

    ARPACK (scipy's eigsh) with a single start vector needs about n_modes + 33 back-substitutions for 20 modes
    at tol 1e-10; a block Lanczos with multi-right-hand-side solves was tried and needs more solves in total
    than the cheaper block solves save (measured on a 290k-dof link)."""
    n = K.shape[0]
    fact = factorization or factorize(K)
    n_modes = int(min(n_modes, n - 2))
    OPinv = spla.LinearOperator((n, n), matvec=lambda x: fact.solve(x), dtype=float)
    # a fixed start vector makes the result deterministic
    v0 = np.ones(n) / np.sqrt(n)
    w2, phi = spla.eigsh(K, k=n_modes, M=M, sigma=0.0, which="LM", OPinv=OPinv, v0=v0, tol=1e-10)
    order = np.argsort(w2)
    w2, phi = w2[order], phi[:, order]
    phi = phi / np.sqrt(np.einsum("im,im->m", phi, M @ phi))
    # fix the sign of each mode (largest component positive) for reproducibility
    s = np.sign(phi[np.argmax(np.abs(phi), axis=0), np.arange(phi.shape[1])])
    return Modes(omega=np.sqrt(np.maximum(w2, 0.0)), phi=phi * s)


def _step_matrices(w, z, dt: float):
    """Exact one-step maps for x = [eta, eta'] under a load linear over the step, x1 = Phi x0 + g0 q0 + g1 q1,
    of every mode at once: w, z (m,) -> Phi (m, 2, 2), g0 (m, 2), g1 (m, 2) (one batched expm)."""
    w, z = np.atleast_1d(np.asarray(w, float)), np.atleast_1d(np.asarray(z, float))
    aug = np.zeros((len(w), 4, 4))
    aug[:, 0, 1] = 1.0
    aug[:, 1, 0] = -w * w
    aug[:, 1, 1] = -2.0 * z * w
    aug[:, 1, 2] = 1.0  # d(eta')/dt gets q
    aug[:, 2, 3] = 1.0  # dq/dt = slope
    E = sla.expm(aug * dt)
    Phi, G1, G2 = E[:, :2, :2], E[:, :2, 2], E[:, :2, 3]
    return Phi, G1 - G2 / dt, G2 / dt


def _segments(t: np.ndarray, rtol=1e-9):
    """Runs [a, b] of sample indices with constant step (b inclusive)."""
    dt = np.diff(t)
    cuts = np.nonzero(np.abs(np.diff(dt)) > rtol * np.maximum(dt[1:], dt[:-1]))[0] + 1
    starts = np.r_[0, cuts]
    ends = np.r_[cuts, len(dt)]
    return [(int(a), int(b)) for a, b in zip(starts, ends)]  # steps a..b-1, samples a..b


def modal_response(t: np.ndarray, q: np.ndarray, omega: np.ndarray, zeta, eta0=None, etad0=None):
    """Exact response (eta, eta_dot), each (n_t, m), of eta'' + 2 zeta w eta' + w^2 eta = q(t) for q (n_t, m)
    piecewise linear between the samples t (n_t,) (any spacing), from rest unless eta0/etad0 (m,) are given.

    Within each run of constant step the exact one-step recurrence is a second-order IIR filter, applied with
    scipy.signal.lfilter (no Python loop over time steps)."""
    t = np.asarray(t, float)
    q = np.asarray(q, float)
    m = q.shape[1]
    zeta = np.broadcast_to(np.asarray(zeta, float), (m,))
    if np.any(zeta >= 1) or np.any(zeta < 0):
        raise InputError(f"modal damping ratios must be in [0, 1), got {zeta}")
    if np.any(np.diff(t) <= 0):
        raise InputError("time samples must increase strictly")
    eta = np.zeros_like(q)
    etad = np.zeros_like(q)
    x = np.zeros((m, 2))
    if eta0 is not None:
        x[:, 0] = eta0
    if etad0 is not None:
        x[:, 1] = etad0
    eta[0], etad[0] = x[:, 0], x[:, 1]
    for a, b in _segments(t):
        dt = t[a + 1] - t[a]
        n = b - a  # steps
        Phis, g0s, g1s = _step_matrices(omega, zeta, dt)
        for i in range(m):  # a loop over modes; time is filtered
            Phi, g0, g1 = Phis[i], g0s[i], g1s[i]
            den = [1.0, -np.trace(Phi), np.linalg.det(Phi)]
            qs = q[a:b + 1, i]
            for comp in (0, 1):
                # transfer function of component comp: e_c^T adj(zI - Phi) (g0 + g1 z) / det(zI - Phi)
                ec = np.eye(2)[comp]
                adj0 = np.array([[-Phi[1, 1], Phi[0, 1]], [Phi[1, 0], -Phi[0, 0]]])  # z^0 part of adj
                r1 = ec  # z^1 part of adj is the identity
                r0 = ec @ adj0
                num = [r1 @ g1, r1 @ g0 + r0 @ g1, r0 @ g0]
                # lfilter assumes the load was 0 one step before: that adds g1 q_a to the state at a. Remove
                # it, and add the free response of the true initial state, both as the free response of z0.
                z0 = x[i] - g1 * qs[0]
                forced = lfilter(num, den, qs)
                free = lfilter([r1 @ z0, r0 @ z0, 0.0], den, np.r_[1.0, np.zeros(n)])
                out = forced + free
                (eta if comp == 0 else etad)[a:b + 1, i] = out
            x[i] = eta[b, i], etad[b, i]
    return eta, etad


@dataclass(frozen=True)
class ModeAccelerationResult:
    """u(t) = U_static @ static_coeff[t] + phi @ modal_coeff[t]."""

    static_coeff: np.ndarray
    modal_coeff: np.ndarray


def modal_states(t, coeff, F, modes_: Modes, zeta, from_equilibrium: bool = False):
    """Modal loads q, coordinates eta and rates eta' (each (n_t, m)) of loads F (n, k) with time coefficients
    ``coeff`` (n_t, k) at times t (n_t,) [s], exact for loads linear between the samples; ``zeta`` (m,) or a
    scalar damping ratio. From rest, or with ``from_equilibrium`` from the quasi-static state of the loads at t[0]
    moving with their initial rate (eta = q / w^2, eta' = q' / w^2)."""
    m = modes_.phi.shape[1]
    if m == 0:
        z = np.zeros((len(t), 0))
        return z, z, z
    w2 = modes_.omega ** 2
    q = coeff @ (modes_.phi.T @ F).T  # modal loads (n_t, m)
    eta0 = etad0 = None
    if from_equilibrium:
        eta0 = q[0] / w2
        etad0 = (q[1] - q[0]) / (t[1] - t[0]) / w2 if len(t) > 1 else np.zeros_like(eta0)
    eta, etad = modal_response(t, q, modes_.omega, zeta, eta0, etad0)
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
