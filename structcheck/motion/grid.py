"""The analysis time grid: uniform output frames, every breakpoint of the laws, and fine samples across short
ramps."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import require_number
from .expression import MotionLaw
from .laws import as_law


#: [s] how far before each breakpoint the grid holds a sample of the left-sided motion. The loads are taken linear
#: between samples, so an acceleration that jumps at a breakpoint would otherwise be spread over the whole step
#: before it (a STEP law's start, up to max_dt long): the structure then sees a ramp instead of the step it is, and
#: the ringing depends on where the samples fall (a study delayed in time read up to 45% lower peaks). 0.1 us is a
#: step for every mode a run keeps (w h < 0.01 up to 15 kHz: the ramp's response within 2e-5 of the step's).
JUMP_S = 1e-7


@dataclass(frozen=True)
class TimeGrid:
    """Analysis grid ``t`` (n,) [s]; ``frame_index`` (n_frames,) the output frames inside t;
    ``breakpoints`` of the laws inside [0, t_end]; ``shortest_ramp`` [s]."""

    t: np.ndarray
    frame_index: np.ndarray
    breakpoints: tuple
    shortest_ramp: float


def time_grid(laws, t_end: float, n_frames: int = 101, min_ramp_samples: int = 10,
              max_dt: float | None = None) -> TimeGrid:
    """The analysis grid for ``laws`` (anything :func:`as_law` takes) over [0, t_end] [s]: the ``n_frames``
    uniform output frames, every breakpoint and a sample :data:`JUMP_S` before it (where an acceleration jumps, the
    loads jump there, not over the step before), ``min_ramp_samples`` samples across every ramp (fine only where
    ramps are short), and at most ``max_dt`` [s] between samples (default t_end / (4 (n_frames - 1)))."""
    t_end = require_number("t_end", t_end, "s", above=0)
    n_frames = require_number("n_frames", n_frames, whole=True, at_least=2)
    min_ramp_samples = require_number("min_ramp_samples", min_ramp_samples, whole=True, at_least=1)
    if max_dt is not None:
        require_number("max_step_s", max_dt, "s", above=0)
    laws = [as_law(x) for x in laws]
    frames = np.linspace(0.0, t_end, n_frames)
    max_dt = max_dt or t_end / (4 * (n_frames - 1))
    pts = [frames, np.linspace(0, t_end, int(math.ceil(t_end / max_dt)) + 1)]
    bps = sorted({float(b) for law in laws for b in law.breakpoints if 0 <= b <= t_end})
    pts.append(np.array(bps))
    pts.append(np.array([b - JUMP_S for b in bps if b - JUMP_S > 0]))
    ramps = []
    for law in laws:
        for a, b in _ramp_pairs(law):
            if b <= 0 or a >= t_end:
                continue
            ramps.append(b - a)
            dt = (b - a) / min_ramp_samples
            if dt < max_dt:
                pts.append(np.linspace(max(a, 0), min(b, t_end), min_ramp_samples + 1))
    t = np.unique(np.concatenate(pts))
    # merge values closer than 1e-12 s (breakpoints equal to frames up to round-off)
    keep = np.r_[True, np.diff(t) > 1e-12]
    t = t[keep]
    frame_index = np.searchsorted(t, frames - 1e-12)
    frame_index = np.minimum(frame_index, len(t) - 1)
    return TimeGrid(t=t, frame_index=frame_index, breakpoints=tuple(bps),
                    shortest_ramp=float(min(ramps)) if ramps else float("inf"))


def _ramp_pairs(law):
    """(start, end) times [s] of the law's ramps: a MotionLaw's STEP ramps, else consecutive breakpoints."""
    if isinstance(law, MotionLaw):
        return law.ramp_spans
    bp = list(law.breakpoints)
    return list(zip(bp[:-1], bp[1:]))
