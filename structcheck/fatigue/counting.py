"""Rainflow cycle counting (ASTM E1049-85 (2011), sec. 5.4.4) through the ``rainflow`` package."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import rainflow

from ..errors import InputError


@dataclass(frozen=True)
class Cycles:
    """Counted cycles: ``range``, ``mean`` [units of the series] and ``count`` (1 for a full cycle, 0.5 for a
    half cycle), each shape (n_cycles,)."""

    range: np.ndarray
    mean: np.ndarray
    count: np.ndarray

    @property
    def amplitude(self) -> np.ndarray:
        return 0.5 * self.range

    @property
    def maximum(self) -> np.ndarray:
        return self.mean + 0.5 * self.range

    def scaled(self, factor: float) -> "Cycles":
        """The cycles of the series multiplied by ``factor`` > 0 (rainflow counting is scale-invariant)."""
        return Cycles(self.range * factor, self.mean * factor, self.count)

    def __len__(self):
        return len(self.count)


def turning_points(series: np.ndarray) -> np.ndarray:
    """The end points and reversals (local extrema, plateaus collapsed) of a 1-D series; rainflow counts of the
    result equal those of the series."""
    x = np.asarray(series, float)
    if x.size < 2:
        return x
    x = x[np.concatenate(([True], np.diff(x) != 0))]
    if x.size < 3:
        return x
    d = np.diff(x)
    return x[np.concatenate(([True], d[:-1] * d[1:] < 0, [True]))]


def rainflow_cycles(series, *, periodic: bool = True) -> Cycles:
    """Rainflow-count a 1-D series (n_t,) with the ASTM E1049-85 three-point method (``rainflow`` package).

    ``periodic=True`` (the default, as :func:`.damage.fatigue_life` counts every history): the series is one
    period of a history repeated many times (a duty cycle): it is rotated to start at its sample of largest
    magnitude (a global extremum) and closed by repeating that sample at the end, so the largest cycle - and
    every other - closes; the result is the count of one period in the steady repetition. The half cycles of
    the rotated series come in pairs (up and down between the same two reversals), returned merged as whole
    cycles. So ``miner_damage(rainflow_cycles(x), curve)`` is the damage ``fatigue_life`` gives a uniaxial
    history x per duty cycle.

    ``periodic=False``: the series is a one-off, counted as given: ranges left open at the end are half cycles
    (count 0.5), as in the standard's worked example. Its damage is that of one pass, without the cycles that
    close across the end of one repetition and the start of the next (less, often much less, than a duty cycle's
    for a variable history).
    """
    x = np.asarray(series, float)
    if x.ndim != 1:
        raise InputError(f"rainflow_cycles needs a 1-D series, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise InputError("rainflow_cycles: the series has NaN or infinite values")
    if periodic and x.size:
        i0 = int(np.argmax(np.abs(x)))
        x = np.concatenate((x[i0:], x[:i0], x[i0:i0 + 1]))
    rows = list(rainflow.extract_cycles(turning_points(x).tolist()))
    if not rows:
        empty = np.zeros(0)
        return Cycles(empty, empty.copy(), empty.copy())
    rng, mean, count = np.array([r[:3] for r in rows], float).T
    if periodic:
        rng, mean, count = _pair_half_cycles(rng, mean, count)
    return Cycles(rng, mean, count)


def _pair_half_cycles(rng, mean, count):
    """Merge half cycles of equal range and mean two by two into whole cycles (an odd one stays a half)."""
    half = np.flatnonzero(count == 0.5)
    half = half[np.lexsort((mean[half], rng[half]))]
    merged = np.zeros(len(rng), bool)
    i = 0
    while i + 1 < len(half):
        a, b = half[i], half[i + 1]
        if rng[a] == rng[b] and mean[a] == mean[b]:
            count[a], merged[b] = 1.0, True
            i += 2
        else:
            i += 1
    return rng[~merged], mean[~merged], count[~merged]
