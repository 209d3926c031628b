"""Rainflow cycle counting (ASTM E1049-85 (2011), sec. 5.4.4): the ``rainflow`` package's three-point algorithm,
on Python floats (the package is its reference in tests/fatigue/test_counting_exact.py)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
    """Rainflow-count a 1-D series (n_t,) with the ASTM E1049-85 three-point method (the ``rainflow`` package's).

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
    rng, mean, count = _three_point(_reversals(_turning_points(x.tolist())))
    if not rng:
        empty = np.zeros(0)
        return Cycles(empty, empty.copy(), empty.copy())
    if periodic:
        rng, mean, count = _pair_half_cycles(rng, mean, count)
    return Cycles(np.array(rng, float), np.array(mean, float), np.array(count, float))


# The counting itself on Python floats: a history's series is short (tens to thousands of samples) and counted
# once per (node, plane) pair, where numpy's per-call overhead and the rainflow package's generators cost more than
# the arithmetic. Each step below is the numpy or rainflow step it replaces, with the same float operations in the
# same order, so the cycles are the same to the bit (tests/fatigue/test_counting_exact.py checks it against the
# rainflow package).
def _turning_points(x: list) -> list:
    """:func:`turning_points` of a list of floats, as a list."""
    if len(x) < 2:
        return x
    x = [x[0]] + [b for a, b in zip(x, x[1:]) if b - a != 0]
    if len(x) < 3:
        return x
    out, d_last = [x[0]], x[1] - x[0]
    for a, b in zip(x[1:-1], x[2:]):
        d = b - a
        if d_last * d < 0:
            out.append(a)
        d_last = d
    out.append(x[-1])
    return out


def _reversals(x: list) -> list:
    """The values ``rainflow.reversals`` yields for the series ``x`` (the first point, every point where the slope
    changes sign, the last point when there are at least three)."""
    if len(x) < 2:
        return []
    out, cur, d_last = [x[0]], x[1], x[1] - x[0]
    for nxt in x[2:]:
        if nxt == cur:
            continue
        d_next = nxt - cur
        if d_last * d_next < 0:
            out.append(cur)
        cur, d_last = nxt, d_next
    if len(x) > 2:
        out.append(x[-1])
    return out


def _three_point(points: list) -> tuple[list, list, list]:
    """``rainflow.extract_cycles`` of the reversals ``points``: ranges, means and counts in its order."""
    rng, mean, count, stack = [], [], [], []
    first = 0  # the stack is stack[first:] (rainflow's deque; a half cycle drops its first point)
    for x in points:
        stack.append(x)
        while len(stack) - first >= 3:
            x1, x2, x3 = stack[-3], stack[-2], stack[-1]
            if abs(x3 - x2) < abs(x2 - x1):
                break
            rng.append(abs(x1 - x2))
            mean.append(0.5 * (x1 + x2))
            if len(stack) - first == 3:  # Y holds the starting point: a half cycle
                count.append(0.5)
                first += 1
            else:  # a whole cycle: its two points leave the stack
                count.append(1.0)
                del stack[-3:-1]
    for a, b in zip(stack[first:], stack[first + 1:]):
        rng.append(abs(a - b))
        mean.append(0.5 * (a + b))
        count.append(0.5)
    return rng, mean, count


def _pair_half_cycles(rng: list, mean: list, count: list) -> tuple[list, list, list]:
    """Merge half cycles of equal range and mean two by two into whole cycles (an odd one stays a half)."""
    half = sorted((i for i, c in enumerate(count) if c == 0.5), key=lambda i: (rng[i], mean[i]))  # stable
    merged = set()
    i = 0
    while i + 1 < len(half):
        a, b = half[i], half[i + 1]
        if rng[a] == rng[b] and mean[a] == mean[b]:
            count[a] = 1.0
            merged.add(b)
            i += 2
        else:
            i += 1
    keep = [k for k in range(len(rng)) if k not in merged]
    return [rng[k] for k in keep], [mean[k] for k in keep], [count[k] for k in keep]
