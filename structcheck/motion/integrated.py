"""A displacement law given by its velocity or its acceleration (an ADAMS MOTION with VELOCITY or ACCELERATION):
:class:`IntegratedLaw`.

From the start (t = 0, ADAMS's initial conditions) with displacement q0 and velocity v0:

* velocity law f:      q(t) = q0 + int_0^t f,                    q' = f,            q'' = f' (exact);
* acceleration law f:  q(t) = q0 + v0 t + int_0^t (t - s) f(s) ds,  q' = v0 + int_0^t f,  q'' = f (exact).

The integrals are composite Gauss-Legendre quadrature (8 nodes a panel, exact for polynomials of degree 15) on
panels whose edges are 0, every sample time asked and every breakpoint of f (so each panel's integrand is smooth:
a STEP's cubic, a POLY are integrated exactly, a jump of an acceleration law falls on an edge), panels no longer
than the span / ``min_panels``; every panel is then halved until two successive results agree to ``rtol`` (1e-13)
of the integral's scale (the error estimate: the result with half panels). All sample times at once (one
evaluation of f at every node, then cumulative sums).
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .span import as_times

_X, _W = np.polynomial.legendre.leggauss(8)  # nodes and weights on [-1, 1]


class IntegratedLaw:
    """The displacement [rad or m] whose ``order``-th time derivative (1: velocity, 2: acceleration) is the law
    ``rate`` (a MotionLaw: [unit/s] or [unit/s^2]), starting at t = 0 from ``q0`` [unit] with velocity ``v0``
    [unit/s] (acceleration laws only). ``what`` names the law in messages (a dataset line)."""

    def __init__(self, rate, order: int, q0: float = 0.0, v0: float = 0.0, what: str = "", rtol: float = 1e-13,
                 min_panels: int = 64):
        if order not in (1, 2):
            raise InputError(f"{what}: an integrated law is a velocity (1) or an acceleration (2) law, got {order}")
        self.rate, self.order, self.q0, self.v0, self.what = rate, order, float(q0), float(v0), what
        self.rtol, self.min_panels = rtol, int(min_panels)
        self.breakpoints = tuple(rate.breakpoints)
        self.ramps = tuple(rate.ramps)

    def __repr__(self):
        return f"IntegratedLaw({self.rate!r}, order={self.order}, q0={self.q0!r}, v0={self.v0!r})"

    def _integrals(self, t: np.ndarray, moment: bool) -> tuple:
        """(int_0^t f, int_0^t s f(s) ds if ``moment``) at the times ``t`` (n,), refined until converged."""
        prev, split = None, 1
        while True:
            out = _cumulative(self.rate, t, self.breakpoints, self.min_panels, split, moment)
            scale = [1e-300 + np.abs(o).max() for o in out]
            if prev is not None and all(np.abs(a - b).max() <= self.rtol * s for a, b, s in zip(out, prev, scale)):
                return out
            if split >= 64:
                raise InputError(f"{self.what}: the integral of the {('velocity', 'acceleration')[self.order - 1]} "
                                 f"law does not converge to {self.rtol:g} of its scale (it jumps where its switch "
                                 f"time is not known?); write the displacement as the MOTION's FUNCTION")
            prev, split = out, 2 * split

    def _eval(self, t, side=1):
        t = as_times(t)
        flat = np.array(t, dtype=float).reshape(-1)
        f, df, _ = self.rate._eval(flat, side)
        if self.order == 1:
            (F,) = self._integrals(flat, False)
            q, v, a = self.q0 + F, f, df
        else:
            F, G = self._integrals(flat, True)
            q, v, a = self.q0 + self.v0 * flat + flat * F - G, self.v0 + F, f
        return [x.reshape(t.shape) for x in (q, v, a)]

    def value(self, t):
        """The displacement [unit] at times ``t`` [s] (same shape out): q0 plus the integral(s) from 0."""
        return self._eval(t)[0]

    def velocity(self, t):
        """Velocity [unit/s] at ``t`` [s] (same shape as t)."""
        if self.order == 1:
            self.rate._check_motion(t, 0)  # a velocity law that jumps: an infinite acceleration, refused
        return self._eval(t)[1]

    def acceleration(self, t, side=1):
        """Acceleration [unit/s^2] at ``t`` [s] (same shape as t); ``side`` +1/-1 the right/left limit where it
        jumps."""
        if self.order == 1:
            self.rate._check_motion(t, 0)
        return self._eval(t, side)[2]


def _cumulative(rate, t: np.ndarray, breaks, panels: int, split: int, moment: bool) -> tuple:
    """int_0^t f (and int_0^t s f(s) ds) at the times ``t`` (n,) by composite 8-node Gauss-Legendre on panels
    between 0, the times and the breakpoints, each split to at most the span / ``panels``, then in ``split``."""
    lo, hi = min(0.0, float(t.min())), max(0.0, float(t.max()))
    if hi == lo:
        return tuple(np.zeros_like(t) for _ in range(1 + moment))
    b = np.array([x for x in breaks if lo < x < hi], float)
    edges = np.unique(np.concatenate([[0.0, lo, hi], t, b]))
    n_sub = np.maximum(1, np.ceil(np.diff(edges) * panels / (hi - lo)).astype(int)) * split
    widths = np.repeat(np.diff(edges) / n_sub, n_sub)
    k = np.arange(n_sub.sum()) - np.repeat(np.cumsum(n_sub) - n_sub, n_sub)  # the panel's place in its interval
    starts = np.repeat(edges[:-1], n_sub) + k * widths
    s = starts[:, None] + (_X[None, :] + 1) / 2 * widths[:, None]  # (n_panels, 8) nodes
    f = rate._eval(s.reshape(-1), 0)[0].reshape(s.shape)
    first = np.concatenate([[0], np.cumsum(n_sub)])  # the panel each edge starts
    i_t, i_0 = np.searchsorted(edges, t), np.searchsorted(edges, 0.0)
    out = []
    for g in ((f,) if not moment else (f, s * f)):
        at_edge = np.concatenate([[0.0], np.cumsum((g * _W[None, :]).sum(axis=1) * widths / 2)])[first]
        out.append(at_edge[i_t] - at_edge[i_0])  # from lo to t, minus from lo to 0
    return tuple(out)
