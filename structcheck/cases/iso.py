"""ISO 10218-1 style stopping tables: the worst stop over a study's motion at 33, 66 and 100 % of its speed and of
its payload.

Speed scaling runs the same path slower: each law q(t) becomes q(s t) over t_end / s (velocities times s,
accelerations times s^2). Payload scaling multiplies every payload's mass and inertia by p, the stop's held part's too
(``StopSpec.held``, whose hold window follows the motion's time). Each (s, p) cell is a
:func:`~structcheck.cases.stop.sweep_triggers` over its own motion, on a trigger grid of the same number of
triggers (the spacing scales with the time: ``step / s``)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..rigid.simulate import Tolerance
from ..study import prepare
from .stop import StopSpec, sweep_triggers

__all__ = ["FRACTIONS", "IsoTable", "ScaledLaw", "iso_table", "scaled_payloads", "scaled_spec", "scaled_study"]

FRACTIONS = (1.0 / 3.0, 2.0 / 3.0, 1.0)


@dataclass(frozen=True)
class ScaledLaw:
    """``law`` run at ``speed`` times its pace: value q(s t), velocity s q'(s t), acceleration s^2 q''(s t)."""

    law: object
    speed: float

    @property
    def breakpoints(self) -> tuple:
        return tuple(b / self.speed for b in self.law.breakpoints)

    @property
    def ramps(self) -> tuple:
        return tuple(r / self.speed for r in self.law.ramps)

    def value(self, t):
        return self.law.value(self.speed * np.asarray(t, float))

    def velocity(self, t):
        return self.speed * np.asarray(self.law.velocity(self.speed * np.asarray(t, float)))

    def acceleration(self, t, side=1):
        return self.speed ** 2 * np.asarray(self.law.acceleration(self.speed * np.asarray(t, float), side=side))


def scaled_study(study, prep, speed: float = 1.0, payload: float = 1.0):
    """``study`` with its motion at ``speed`` times its pace and its payloads' masses and inertias times
    ``payload`` (fractions, > 0); ``prep`` its :func:`~structcheck.study.prepare` (the laws)."""
    motion = {j: ScaledLaw(law, speed) for j, law in prep.laws.items()}
    return replace(study, motion=motion, payloads=scaled_payloads(study.payloads, payload), t_end=study.t_end / speed)


def scaled_payloads(payloads, fraction: float) -> tuple:
    """``payloads`` (Payloads) with their masses and inertias times ``fraction``."""
    return tuple(replace(p, mass=p.mass * fraction,
                         inertia=None if p.inertia is None else np.asarray(p.inertia, float) * fraction)
                 for p in payloads)


def scaled_spec(spec: StopSpec, speed: float = 1.0, payload: float = 1.0) -> StopSpec:
    """``spec`` with its held part's masses and inertias times ``payload`` and its hold window over the motion
    at ``speed`` times its pace (times / speed)."""
    if spec.held is None:
        return spec
    held = replace(spec.held, payloads=scaled_payloads(spec.held.payloads, payload), start=spec.held.start / speed,
                   end=spec.held.end / speed)
    return replace(spec, held=held)


@dataclass(frozen=True)
class IsoTable:
    """The worst stop at each speed and payload fraction: ``speed`` (n_s,), ``payload`` (n_p,) fractions, the
    driven ``joints`` (n), ``stop_time`` [s] and ``stop_distance`` [rad, m] (n_s, n_p, n) the largest over the
    triggers, ``worst_trigger_time``/``worst_trigger_distance`` (n_s, n_p, n) [s] where they occur, the trigger
    grid ``step`` [s] at full speed (``step / s`` at speed s) and the ``category``."""

    speed: tuple
    payload: tuple
    joints: tuple
    stop_time: np.ndarray
    stop_distance: np.ndarray
    worst_trigger_time: np.ndarray
    worst_trigger_distance: np.ndarray
    step: float
    category: int


def iso_table(study, spec: StopSpec, step: float, speeds=FRACTIONS, payloads=FRACTIONS,
              refine_tol: float | None = None, tolerance: Tolerance = Tolerance()) -> IsoTable:
    """The :class:`IsoTable` of ``study`` for the stop ``spec``, triggers every ``step`` [s] at full speed."""
    prep = prepare(study)
    cells = [[sweep_triggers(s_study, prepare(s_study), scaled_spec(spec, s, p), step / s, refine_tol, tolerance)
              for p, s_study in ((p, scaled_study(study, prep, s, p)) for p in payloads)] for s in speeds]
    grab = lambda name: np.array([[getattr(c, name) for c in row] for row in cells])  # noqa: E731
    return IsoTable(tuple(speeds), tuple(payloads), tuple(prep.chain.independent), grab("max_time"),
                    grab("max_distance"), grab("worst_time"), grab("worst_distance"), step, spec.category.value)
