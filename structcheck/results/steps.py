"""The time steps a results folder stores for ParaView and the report (``robot.vtkhdf`` or ``robot.pvd``): the
study's ``n_frames`` output frames, each link's peak instant (the analysis sample of its peak von Mises, which
usually falls between frames) and, with ``Study.peak_window_s``, the analysis samples around each peak, so that
the ringing there shows when the steps are played.

Every link is stored at every step (VTK's reader of a composite VTKHDF file wants the same steps in every block,
and a robot at one instant is every link at that instant): a link's fields at another link's peak instant, or
around it, are formed here from the link's solution (:func:`~structcheck.results.data.fields_at_samples`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .data import LinkResult, fields_at_samples

#: analysis samples kept on each side of a peak within ``Study.peak_window_s`` (evenly thinned beyond): each is a
#: whole step of every link's file
MAX_WINDOW_SAMPLES = 100


@dataclass(frozen=True)
class Steps:
    """The stored steps: ``index`` (n_steps,) increasing indices into the analysis grid ``t``; ``requested``
    (n_steps,) bool: the study's output frames; ``peaks`` link -> position in ``index`` of its peak instant;
    ``around`` (n_steps,) bool: a sample of a peak's window that is neither a frame nor a peak."""

    index: np.ndarray
    requested: np.ndarray
    peaks: dict
    around: np.ndarray

    def link_peak(self, link: str) -> np.ndarray:
        """(n_steps,) bool: True at the peak instant of ``link``."""
        flag = np.zeros(len(self.index), dtype=bool)
        if link in self.peaks:
            flag[self.peaks[link]] = True
        return flag

    @property
    def at_peak(self) -> np.ndarray:
        """(n_steps,) bool: True at every step that is some link's peak instant."""
        flag = np.zeros(len(self.index), dtype=bool)
        flag[list(self.peaks.values())] = True
        return flag


def stored_steps(t: np.ndarray, frames: np.ndarray, peaks: dict[str, int], window_s: float = 0.0) -> Steps:
    """The steps to store: the output ``frames`` (indices into the analysis grid ``t`` (n_t,) [s]), each link's
    peak sample ``peaks`` (link -> index into t) and the samples within ``window_s`` [s] of each peak (at most
    ``MAX_WINDOW_SAMPLES`` on each side)."""
    frames = np.asarray(frames, dtype=int)
    at = np.array(list(peaks.values()), dtype=int)
    index = np.unique(np.concatenate([frames, at, *(_window(t, i, window_s) for i in at)]))
    requested = np.isin(index, frames)
    return Steps(index=index, requested=requested,
                 peaks={n: int(np.searchsorted(index, i)) for n, i in peaks.items()},
                 around=~requested & ~np.isin(index, at))


def _window(t: np.ndarray, i: int, window_s: float) -> np.ndarray:
    """Indices of the samples of ``t`` within ``window_s`` [s] of ``t[i]`` but i itself, at most
    ``MAX_WINDOW_SAMPLES`` on each side (evenly thinned, the farthest kept)."""
    if window_s <= 0:
        return np.zeros(0, dtype=int)
    lo, hi = np.searchsorted(t, t[i] - window_s, side="left"), np.searchsorted(t, t[i] + window_s, side="right")
    return np.concatenate([_thin(np.arange(lo, i)), _thin(np.arange(i + 1, hi))])


def _thin(idx: np.ndarray) -> np.ndarray:
    if len(idx) <= MAX_WINDOW_SAMPLES:
        return idx
    return idx[np.unique(np.linspace(0, len(idx) - 1, MAX_WINDOW_SAMPLES).round().astype(int))]


def with_peak_steps(links: dict[str, LinkResult], solutions: dict, t: np.ndarray, frames: np.ndarray,
                    window_s: float = 0.0) -> tuple[dict[str, LinkResult], Steps]:
    """The link results with their ``frame_fields`` at every stored step (:func:`stored_steps` of the output
    ``frames`` and the links' peaks on the analysis grid ``t``) and the steps. A link's fields at the frames and at
    its own peak are those it has (``LinkResult.frame_fields``, ``peak_fields``); the others come from its
    solution ``solutions[name]`` (a ``checks.LinkSolution``, its stress basis not needed)."""
    peaks = {n: int(np.searchsorted(t, L.time_of_max_s)) for n, L in links.items()}
    steps = stored_steps(t, frames, peaks, window_s)
    return {n: replace(L, frame_fields=_at_steps(L, solutions[n], steps, frames)) for n, L in links.items()}, steps


def _at_steps(link: LinkResult, sol, steps: Steps, frames: np.ndarray) -> dict[str, np.ndarray]:
    """``link``'s point fields (n_steps, n_nodes[, 3]) at the stored ``steps``."""
    n = len(steps.index)
    at_frames = np.searchsorted(steps.index, frames)
    own = steps.peaks[link.name]
    known = np.zeros(n, dtype=bool)
    known[at_frames] = known[own] = True
    missing = np.flatnonzero(~known)
    extra = fields_at_samples(sol, steps.index[missing]) if len(missing) else {}
    out = {}
    for f, v in link.frame_fields.items():
        a = np.empty((n, *np.shape(v)[1:]), dtype=np.result_type(v))
        a[at_frames], a[own] = v, link.peak_fields[f]
        if len(missing):
            a[missing] = extra[f]
        out[f] = a
    return out
