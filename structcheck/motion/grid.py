"""The analysis time grid: every breakpoint of the laws, equal steps between them, fine samples across short ramps,
and the output frames (the samples nearest uniform times)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ..errors import InputError, require_number
from .expression import MotionLaw
from .laws import as_law


#: [s] how far before each breakpoint the grid holds a sample of the left-sided motion. The loads are taken linear
#: between samples, so an acceleration that jumps at a breakpoint would otherwise be spread over the whole step
#: before it (a STEP law's start, up to max_dt long): the structure then sees a ramp instead of the step it is, and
#: the ringing depends on where the samples fall (a study delayed in time read up to 45% lower peaks). 0.1 us is a
#: step for every mode a run keeps (w h < 0.01 up to 15 kHz: the ramp's response within 2e-5 of the step's).
JUMP_S = 1e-7


#: [s] samples closer than this are one: breakpoints equal to frames, or to each other, up to round-off
MERGE_S = 1e-12


#: evaluation points per interval at which :func:`quiet_lead` checks that every law still holds its t = 0 value
QUIET_PROBES = 17


@dataclass(frozen=True)
class TimeGrid:
    """Analysis grid ``t`` (n,) [s]; ``frame_index`` (n_frames,) the output frames inside t;
    ``breakpoints`` of the laws inside [0, t_end]; ``shortest_ramp`` [s]; ``max_dt`` [s] the largest spacing of the
    fill between breakpoints."""

    t: np.ndarray
    frame_index: np.ndarray
    breakpoints: tuple
    shortest_ramp: float
    max_dt: float = float("inf")


def time_grid(laws, t_end: float, n_frames: int = 101, min_ramp_samples: int = 10,
              max_dt: float | None = None) -> TimeGrid:
    """The analysis grid for ``laws`` (anything :func:`as_law` takes) over [0, t_end] [s]: every breakpoint and a
    sample :data:`JUMP_S` before it (where an acceleration jumps, the loads jump there, not over the step before),
    ``min_ramp_samples`` samples across every ramp (fine only where ramps are short), and between consecutive
    breakpoints (with 0 and t_end) equal steps of at most ``max_dt`` [s] (default (t_end - quiet) / (4 (n_frames -
    1)), quiet the :func:`quiet_lead`; never more than the frame spacing). The ``n_frames`` output frames are the
    samples nearest n_frames uniform times (``frame_index``).

    The fill is laid from each breakpoint, not from t = 0, and its default spacing does not count the time before
    anything moves: the same study delayed (laws shifted, the arm at rest before) gets the same samples, shifted,
    and so the same numbers. A grid laid from t = 0, with the uniform frames among its samples, met the motion at
    another phase: under a delay the arm model's frozen poses fell elsewhere (peaks 0.2% apart) and the ringing was
    read at other instants (fatigue damage 0.3-0.7% apart)."""
    t_end = require_number("t_end", t_end, "s", above=0)
    n_frames = require_number("n_frames", n_frames, whole=True, at_least=2)
    min_ramp_samples = require_number("min_ramp_samples", min_ramp_samples, whole=True, at_least=1)
    if max_dt is not None:
        require_number("max_step_s", max_dt, "s", above=0)
    laws = [as_law(x) for x in laws]
    frames = np.linspace(0.0, t_end, n_frames)
    bps = sorted({float(b) for law in laws for b in law.breakpoints if 0 <= b <= t_end})
    quiet = quiet_lead(laws, bps, t_end)
    max_dt = max_dt or (t_end - quiet if quiet < t_end else t_end) / (4 * (n_frames - 1))
    pts = [_fill(np.unique(np.r_[0.0, bps, t_end]), min(max_dt, frames[1] - frames[0]))]
    pts.append(np.array(bps))
    pts.append(np.array([b - JUMP_S for b in bps if b - JUMP_S > 0]))
    ramps = []
    for law in laws:
        for a, b in _ramp_pairs(law):
            if b <= 0 or a >= t_end:
                continue
            ramps.append(b - a)
            dt = (b - a) / min_ramp_samples
            # a ramp shorter than JUMP_S is a jump for every mode (its breakpoints are samples): samples across it
            # would only crowd its ends
            if dt < max_dt and b - a >= JUMP_S:
                pts.append(np.linspace(max(a, 0), min(b, t_end), min_ramp_samples + 1))
    t = merged(np.unique(np.concatenate(pts)), np.array(bps))
    frame_index = nearest(t, frames)
    return TimeGrid(t=t, frame_index=frame_index, breakpoints=tuple(bps),
                    shortest_ramp=float(min(ramps)) if ramps else float("inf"), max_dt=float(max_dt))


def merged(t: np.ndarray, breakpoints: np.ndarray) -> np.ndarray:
    """The samples ``t`` (sorted, distinct) [s] with those closer than :data:`MERGE_S` to the one before dropped,
    every breakpoint (sorted) kept over another sample that near it. Why: a stop's brakes bite at events 3e-10 s
    apart, a wrist joint's acceleration jumping to -373 rad/s^2 and back between them; samples crowded at round-off
    spacing had dropped the later breakpoint, so that the spike's value held until the next sample 0.6 ms on, and the
    loads took it over that whole step (its integral 0.12 rad/s instead of 1e-7; on the headline's stop no link's
    peak moved by 1e-4, tests/motion/test_motion.py)."""
    if len(breakpoints):
        j = np.searchsorted(breakpoints, t)
        last = len(breakpoints) - 1
        before, after = breakpoints[np.clip(j - 1, 0, last)], breakpoints[np.clip(j, 0, last)]
        near = np.minimum(np.abs(t - before), np.abs(t - after))
        t = t[(near > MERGE_S) | np.isin(t, breakpoints)]
    return t[np.r_[True, np.diff(t) > MERGE_S]]


def nearest(t: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Indices (len(times),) of the samples of ``t`` (sorted) nearest ``times`` (the earlier one on a tie)."""
    i = np.clip(np.searchsorted(t, times), 1, len(t) - 1)
    return np.where(times - t[i - 1] <= t[i] - times, i - 1, i)


def _fill(anchors: np.ndarray, max_dt: float) -> np.ndarray:
    """Samples between consecutive ``anchors`` (sorted, distinct) [s]: each interval cut into the fewest equal
    steps of at most ``max_dt`` [s] (a 1e-9 relative slack, so that an interval of exactly k max_dt gets k)."""
    a, b = anchors[:-1], anchors[1:]
    n = np.maximum(1, np.ceil((b - a) / max_dt * (1 - 1e-9))).astype(np.int64)
    k = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    return np.r_[np.repeat(a, n) + k * np.repeat((b - a) / n, n), anchors[-1]]


def quiet_lead(laws, breakpoints, t_end: float) -> float:
    """[s] the longest span [0, b] (b 0, a breakpoint or t_end) over which every law holds its t = 0 value, its
    rate and acceleration zero: the time before anything moves. Checked at :data:`QUIET_PROBES` points in each
    interval between breakpoints (a law that moves between them would be a law whose breakpoints do not say where
    it starts; a delayed STEP holds exactly)."""
    ends = [b for b in breakpoints if b > 0] + ([t_end] if not breakpoints or breakpoints[-1] < t_end else [])
    quiet, lo = 0.0, 0.0
    for b in ends:
        s = np.linspace(lo, b, QUIET_PROBES)[:-1]  # [lo, b): at b a law may jump (a payload leaves, a force steps)
        if not all(map(partial(_holds, s=s), laws)):
            return quiet
        quiet, lo = b, b
    return quiet


def _holds(law, s: np.ndarray) -> bool:
    """Whether ``law`` holds its t = 0 value, at rest, at the times ``s`` [s]. A law that cannot be evaluated there
    does not hold: the rigid stage evaluates it again and names it in its error."""
    try:
        v0 = law.value(np.zeros(1))[0]
        return bool(np.all(law.value(s) == v0) and not np.any(law.velocity(s))
                    and not np.any(law.acceleration(s, side=1)))
    except InputError:
        return False


def _ramp_pairs(law):
    """(start, end) times [s] of the law's ramps: a MotionLaw's STEP ramps, else consecutive breakpoints."""
    if isinstance(law, MotionLaw):
        return law.ramp_spans
    bp = list(law.breakpoints)
    return list(zip(bp[:-1], bp[1:]))
