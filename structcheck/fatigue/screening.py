"""Screening bounds of fatigue counting: the scale of a stress history below which none of its cycles damages
(:func:`onset_scale`), and the scale at which its largest cycle alone reaches a design life (:func:`cap_scale`).

A (node, plane) history with range R, maximum M and midrange (max + min) / 2 = mid is scaled by x. Every cycle
of it has S_a <= x R / 2, S_max <= x M and S_m <= x M - S_a, so its equivalent amplitude is below the curve's
limit (endurance limit / cut-off: no damage) for every scale below

    none:            x_0 = L / a                                    (a = R / 2)
    goodman, gerber: x_0 = L / (a + L max(mid, 0) / S_u)            (Gerber <= Goodman for S_m >= 0)
    swt:             x_0 = L / sqrt(max(M, 0) a)
    range curves:    x_0 = L / R

and also below S_u / max(M, 0) (no mean reaches the ultimate). For the Goodman bound, S_a / (1 - (x M - S_a)
/ S_u) increases with S_a, so its worst case is S_a = x a. Each correction's formula is its ``onset`` and
``cap`` (:mod:`.meanstress`). The largest rainflow cycle of a periodic history has range R and mean mid, and its
equivalent amplitude is the largest of the history's.
"""
from __future__ import annotations

import numpy as np

from .meanstress import as_correction
from .sn import SNCurve


def onset_scale(R, M, mid, curve: SNCurve, mean_stress) -> np.ndarray:
    """Smallest scale x of a history (range R, maximum M, midrange mid; arrays [Pa]) at which one of its cycles
    can damage (module docstring); inf for a history that cannot. ``mean_stress`` a correction or its name
    (:mod:`.meanstress`)."""
    return _scale(R, M, mid, curve, curve.limit, as_correction(mean_stress).onset, mean_reaches_ultimate=False)


def cap_scale(R, M, mid, curve: SNCurve, mean_stress, design_life: float) -> np.ndarray:
    """Scale x at which the largest cycle of a history (range R, maximum M, midrange mid; arrays [Pa]) alone
    gives the life ``design_life``: every history's safety factor is at most its x (the other cycles only add
    damage), so the smallest x over the nodes caps the safety factor of the whole set (module docstring). inf
    for a history that no scale damages."""
    S_L = curve.strength(design_life)  # scalar or per history
    return _scale(R, M, mid, curve, S_L, as_correction(mean_stress).cap, mean_reaches_ultimate=True)


def _scale(R, M, mid, curve: SNCurve, level, scale_of, mean_reaches_ultimate: bool) -> np.ndarray:
    """The scale at which a history's largest cycle reaches the stress ``level`` [Pa] (``scale_of``, the
    correction's formula; the range itself on range curves), at most the scale at which its maximum (or, with
    ``mean_reaches_ultimate``, its largest cycle's mean: life 0) reaches the ultimate strength."""
    R, M, mid = (np.asarray(v, float) for v in (R, M, mid))
    with np.errstate(divide="ignore", invalid="ignore"):
        if curve.quantity == "range":
            x = level / R
        else:
            x = scale_of(level, 0.5 * R, M, mid, curve.ultimate_strength)
        x = np.where(R > 0, x, np.inf)
        if curve.ultimate_strength is not None:
            x = np.minimum(x, curve.ultimate_strength / np.clip(mid if mean_reaches_ultimate else M, 0.0, None))
    return np.nan_to_num(x, nan=np.inf)
