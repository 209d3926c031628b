"""The reduced model of one supported link: unit-load solutions, modes and their stress basis, and the modal
coefficients of a load history.

The load vector at time t is ``F @ coeff[t]`` (F: (n_dof, k) unit loads, coeff: (n_t, k)). One factorization
of the supported stiffness gives the unit-load solutions and the lowest modes; the mode-acceleration method
adds the elastic-inertia correction ``phi @ modal[t]``, so u(t) = U @ coeff[t] + phi @ modal[t] [m].
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np

from .solvers import factorize
from .supports import submatrix
from .transient import modal_states_of_loads, modes


@dataclass(frozen=True)
class LinkBasis:
    """Unit-load and modal solutions of one supported link.

    ``U`` (n_dof, k) static solutions of the unit loads, ``phi`` (n_dof, m) mass-normalized modes,
    ``omega`` (m,) rad/s, ``S`` (k + m, 6, n_p, n_elem) unaveraged stresses [xx, yy, zz, yz, xz, xy] of every
    basis column [Pa per unit coefficient] at the element points of ``Part.stress_basis``: the n_p = 4 vertices of
    straight-sided elements (the mid nodes' values are the means of their edge's vertices: the strain is linear),
    the n_p = 10 nodes of curved ones (each its own value), or None when the basis was built without stresses
    (``build_basis(..., stresses=False)``: its modes and unit-load solutions alone); ``F`` (n_dof, k) the unit loads.
    """

    F: np.ndarray
    U: np.ndarray
    phi: np.ndarray
    omega: np.ndarray
    S: np.ndarray | None

    @cached_property
    def modal_loads(self) -> np.ndarray:
        """phi^T F (m, k): the modal loads of the unit loads, formed once for every grid and pass."""
        return self.phi.T @ self.F

    @cached_property
    def static_energy(self) -> np.ndarray:
        """U^T F (k, k) [N m per unit coefficient^2]: c^T U^T F c is twice the strain energy of the static
        response to coefficients c."""
        return self.U.T @ self.F


@dataclass(frozen=True)
class ClampedFactor:
    """A part's stiffness clamped on some surfaces, factorized: ``free`` (n_free,) the free dofs (sorted), ``factor``
    the factorization of the stiffness on them (:func:`.solvers.factorize`; neither that stiffness nor the mass on
    the free dofs is kept: the solves and the modes need only the factor), ``modes`` the lowest modes on the free
    dofs (:class:`.transient.Modes`; None: none asked for). Another model clamped on the same dofs reuses it
    (:meth:`structcheck.flex.superelement.Superelement.from_part`)."""

    free: np.ndarray
    factor: object
    modes: object


def build_basis(part, F: np.ndarray, fixed: list[str], n_modes: int, timings: dict | None = None,
                stresses: bool = True, factored: Callable[[ClampedFactor], None] | None = None) -> LinkBasis:
    """Solve every unit load F (n_dof, k) [N] and the lowest ``n_modes`` modes of ``part`` clamped on the ``fixed``
    surfaces; with ``stresses``, the stress basis of those columns too (without it ``S`` is None: a basis that only
    says where the link rings, :func:`ringing_samples`, needs no stresses, which are the largest array of all).
    ``factored``, if given, receives the :class:`ClampedFactor` (for a caller that solves more with it; the factor is
    then kept as long as the caller keeps it).

    ``timings``, if given, receives the wall time [s] of each phase (assembly of K and M, factorization,
    unit_solves, modes, stress_basis)."""
    clock = _Clock(timings)
    free = part.free_dofs(fixed)
    K_full = part.stiffness
    clock("assembly_K")
    # the clamped stiffness goes once factorized (the solves and the shift-invert modes use only its factor)
    fact = factorize(submatrix(K_full, free))
    clock("factorization")
    U = np.zeros_like(F)
    U[free] = fact.solve(F[free])
    clock("unit_solves")
    phi = np.zeros((F.shape[0], 0))
    omega = np.zeros(0)
    m = None
    if n_modes > 0:
        M_full = part.mass_matrix
        clock("assembly_M")
        m = modes(None, submatrix(M_full, free), n_modes, factorization=fact)
        phi = np.zeros((F.shape[0], len(m.omega)))
        phi[free] = m.phi
        omega = m.omega
        clock("modes")
    if factored is not None:
        factored(ClampedFactor(free=free, factor=fact, modes=m))
    del fact  # release the factor (GBs on large meshes) before the stress basis is formed
    if not stresses:
        return LinkBasis(F=F, U=U, phi=phi, omega=omega, S=None)
    S = part.stress_basis(np.hstack([U, phi]))  # (k+m, 6, 4 or 10, n_elem)
    clock("stress_basis")
    return LinkBasis(F=F, U=U, phi=phi, omega=omega, S=S)


class _Clock:
    """Records the wall time since the previous call under a name (no-op without a dict)."""

    def __init__(self, timings: dict | None):
        import time

        self.timings, self._now = timings, time.perf_counter
        self.t = self._now()

    def __call__(self, name: str) -> None:
        t = self._now()
        if self.timings is not None:
            self.timings[name] = self.timings.get(name, 0.0) + t - self.t
        self.t = t


def modal_coefficients(basis: LinkBasis, t: np.ndarray, coeff: np.ndarray, damping_ratio: float,
                       from_equilibrium: bool = False, rest=None) -> np.ndarray:
    """Mode-acceleration corrections (n_t, m): u(t) = U @ coeff[t] + phi @ result[t].

    By default the link starts undeformed and still, so loads present at t[0] (gravity) act as a suddenly applied
    step. ``rest`` (k,): the load coefficients that held before t[0], the link at rest in static equilibrium under
    them (a robot standing still in its t[0] pose): a jump from them to coeff[0] (a motion starting with an
    acceleration) makes the link ring exactly as the same jump later does. ``from_equilibrium`` starts it instead
    in its quasi-static state, deflected by the loads at t[0] and moving with their initial rate (eta = q / w^2,
    eta' = q' / w^2): a motion already under way (:func:`.transient.modal_states_of_loads`)."""
    q, eta, _ = _modal_states(basis, t, coeff, damping_ratio, from_equilibrium, rest)
    return eta - q / basis.omega ** 2


def _modal_states(basis: LinkBasis, t, coeff, damping_ratio, from_equilibrium, rest=None):
    """Modal loads q, coordinates eta and rates eta' (each (n_t, m)) of the basis's load history:
    :func:`.transient.modal_states`."""
    if basis.phi.shape[1] == 0:
        z = np.zeros((len(t), 0))
        return z, z, z
    rest_q = None if rest is None else np.asarray(rest, float) @ basis.modal_loads.T
    return modal_states_of_loads(t, np.asarray(coeff, float) @ basis.modal_loads.T, basis.omega, damping_ratio,
                                 from_equilibrium, rest_q)


def ringing_samples(basis: LinkBasis, t: np.ndarray, coeff: np.ndarray, damping_ratio: float,
                    from_equilibrium: bool = True, tol: float = 1e-3, rest=None) -> np.ndarray:
    """Sample times [s] to add to ``t`` so that maxima read at the samples follow the link's elastic ringing.

    The mode-acceleration response between two samples is exact, but maxima are read at the samples. After a
    fast load change (a STEP's acceleration jump, a 10 ms force ramp) a mode k rings freely with amplitude a_k,
    measured in the energy norm relative to the link's largest quasi-static response (w_k sqrt(d^2 + (d'/w_k)^2)
    / max_t sqrt(c^T U^T F c), with d = eta - q/w^2 the mode's dynamic part, d' its rate). Sampling it n times per
    period reads its peak low by at most a_k (1 - cos(pi / n)) ~ a_k pi^2 / (2 n^2): n is chosen to keep that
    below ``tol`` (and n >= 4), for as long as a_k exp(-zeta w_k s) stays above ``tol``. The initial state as
    :func:`modal_coefficients` (``rest``, ``from_equilibrium``). Returns the new samples (sorted, excluding those
    already in t)."""
    n_t = len(t)
    if basis.phi.shape[1] == 0 or n_t < 2:
        return np.zeros(0)
    w = basis.omega
    q, eta, etad = _modal_states(basis, t, coeff, damping_ratio, from_equilibrium, rest)
    dt = np.diff(t)
    slope = np.diff(q, axis=0) / dt[:, None]  # q' on each step
    d = eta[:-1] - q[:-1] / w ** 2
    dd = etad[:-1] - slope / w ** 2
    G = basis.static_energy  # c^T G c = twice the strain energy of the static response
    static = np.sqrt(np.max(np.maximum(np.einsum("ti,ij,tj->t", coeff, G, coeff), 0.0)))
    if not static > 0:
        return np.zeros(0)
    amp = w * np.sqrt(d * d + (dd / w) ** 2) / static  # (n_t - 1, m)
    steps, ks = np.nonzero(amp > tol)  # (step, mode) pairs still ringing
    if len(steps) == 0:
        return np.zeros(0)
    a, wk = amp[steps, ks], w[ks]
    n_per_period = np.maximum(4, np.ceil(np.pi * np.sqrt(a / (2 * tol))))
    h = 2 * np.pi / wk / n_per_period  # sample spacing each ringing mode needs
    with np.errstate(divide="ignore"):
        ring = np.log(a / tol) / (damping_ratio * wk) if damping_ratio > 0 else np.full(len(a), np.inf)
    # per step: the finest spacing over the time the slowest-decaying mode rings
    h_step = np.full(n_t - 1, np.inf)
    np.minimum.at(h_step, steps, h)
    span = np.zeros(n_t - 1)
    np.maximum.at(span, steps, np.minimum(ring, dt[steps]))
    idx = np.nonzero(np.isfinite(h_step))[0]
    counts = np.ceil(span[idx] / h_step[idx]).astype(np.int64)
    k = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    new = np.repeat(t[idx], counts) + k * np.repeat(h_step[idx], counts)
    new = new[new < np.repeat(t[idx + 1], counts) - 1e-12]
    return np.setdiff1d(new, t)
