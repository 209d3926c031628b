"""Whether a peak is converged under mesh refinement: Richardson extrapolation of a value computed on three or more
meshes, with Roache's grid convergence index (GCI) as its error estimate.

A value computed with element size h behaves, once the mesh resolves the field, as

    phi(h) = phi_0 + c h^p                                                      (asymptotic range)

with phi_0 the converged value and p the observed order (for a smooth stress field and quadratic elements p is
about 2; at a singular point phi grows without bound and no p > 0 fits). From the three finest meshes
h1 < h2 < h3 (values phi1, phi2, phi3; ratios r21 = h2/h1, r32 = h3/h2), following Celik et al., "Procedure for
estimation and reporting of uncertainty due to discretization in CFD applications", J. Fluids Eng. 130 (2008)
078001 (Roache's GCI with its safety factor 1.25):

    e21 = phi2 - phi1,  e32 = phi3 - phi2                                        (of one sign: a monotone trend)
    e32 / e21 = r21^p (r32^p - 1) / (r21^p - 1)                                 (solved for the observed order p)
    phi_ext = (r21^p phi1 - phi2) / (r21^p - 1)
    GCI_fine = 1.25 |e21 / phi1| / (r21^p - 1)                                  (relative error band of phi1)

The trend is *monotone* when every difference between successive meshes has the same sign. Then the finest value's
estimated discretisation error is GCI_fine |phi1|. Otherwise (oscillating values, or an observed order below
``MIN_ORDER``: the differences do not shrink, as at a singular point) there is no Richardson estimate; the error is
then the scatter, the largest distance of any level's value from the finest one, and the peak is flagged
"no monotone trend" or "not converging".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError

#: GCI safety factor for three or more meshes (Roache 1998; Celik et al. 2008)
SAFETY_FACTOR = 1.25
#: observed orders below this mean the differences between meshes barely shrink: no trustworthy extrapolation
MIN_ORDER = 0.5


@dataclass(frozen=True)
class Convergence:
    """One quantity on several meshes, finest first: element sizes ``h`` (n,) (any unit: only ratios matter) and
    ``values`` (n,); ``monotone`` all successive differences of one sign; observed ``order`` p, ``extrapolated``
    phi_0 and ``gci`` (relative error band of the finest value, GCI_fine) from the three finest meshes (NaN
    without a monotone trend of order >= MIN_ORDER); ``scatter`` max |phi_i - phi_finest| / |phi_finest| over
    all levels; ``error`` the finest value's estimated discretisation error (same unit as the values: GCI |phi1|
    when there is a Richardson estimate, else the scatter |phi1|); ``status`` 'converging', 'no monotone trend'
    or 'not converging' (differences not shrinking: singular)."""

    h: np.ndarray
    values: np.ndarray
    monotone: bool
    order: float
    extrapolated: float
    gci: float
    scatter: float
    error: float
    status: str

    @property
    def finest(self) -> float:
        return float(self.values[0])

    @property
    def relative_error(self) -> float:
        """``error`` / |finest value|."""
        return self.error / abs(self.finest)


def observed_order(phi, r21: float, r32: float) -> float:
    """Observed order p of three values ``phi`` (phi1, phi2, phi3; finest first) on meshes with size ratios
    ``r21`` = h2/h1 and ``r32`` = h3/h2 (> 1): the root of e32 / e21 = r21^p (r32^p - 1) / (r21^p - 1) (Celik et
    al.'s equation, solved by bracketing: their fixed-point iteration diverges when r32 is much larger than r21),
    within -20 <= p <= 20; NaN when the differences are not of one sign, one of them is zero, or no root lies
    there."""
    from scipy.optimize import brentq

    phi1, phi2, phi3 = map(float, phi)
    e21, e32 = phi2 - phi1, phi3 - phi2
    if e21 == 0.0 or e32 == 0.0 or np.sign(e21) != np.sign(e32):
        return float("nan")
    a, b = np.log(r21), np.log(r32)

    def f(p):  # ln of the model's e32 / e21 minus the observed one; expm1 keeps p -> 0 exact (limit b / a)
        model = b / a if abs(p) < 1e-12 else np.exp(p * a) * np.expm1(p * b) / np.expm1(p * a)
        return np.log(model) - np.log(e32 / e21)

    lo, hi = -20.0, 20.0
    if np.sign(f(lo)) == np.sign(f(hi)):
        return float("nan")
    return float(brentq(f, lo, hi, xtol=1e-14, rtol=1e-14))


def richardson(h, values) -> Convergence:
    """Convergence of ``values`` (n,) computed on meshes of element sizes ``h`` (n,) (n >= 3, all different;
    any order: sorted finest first here). See the module docstring."""
    h, values = np.asarray(h, float), np.asarray(values, float)
    if h.ndim != 1 or h.shape != values.shape or len(h) < 3:
        raise InputError(f"richardson needs three or more (h, value) pairs, got h {h.shape} and values {values.shape}")
    if not (np.all(np.isfinite(h)) and np.all(h > 0) and np.all(np.isfinite(values))):
        raise InputError(f"richardson needs positive finite sizes and finite values, got h = {h}, values = {values}")
    order = np.argsort(h)
    h, values = h[order], values[order]
    if np.any(np.diff(h) <= 0):
        raise InputError(f"richardson needs different mesh sizes, got h = {h}")
    phi1 = values[0]
    scatter = float(np.abs(values - phi1).max() / abs(phi1)) if phi1 else float("inf")
    steps = np.sign(np.diff(values))
    monotone = bool(np.all(steps == steps[0]) and steps[0] != 0)
    p = ext = gci = float("nan")
    if monotone:
        p = observed_order(values[:3], h[1] / h[0], h[2] / h[1])
    if monotone and p >= MIN_ORDER:
        r = (h[1] / h[0]) ** p
        ext = float((r * values[0] - values[1]) / (r - 1))
        gci = float(SAFETY_FACTOR * abs((values[1] - values[0]) / values[0]) / (r - 1))
        status, error = "converging", gci * abs(phi1)
    else:
        status = "no monotone trend" if not monotone else "not converging"
        error = scatter * abs(phi1)
    return Convergence(h=h, values=values, monotone=monotone, order=p, extrapolated=ext, gci=gci, scatter=scatter,
                       error=float(error), status=status)
