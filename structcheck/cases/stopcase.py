"""An emergency stop as a structural load case: the simulated stop (:class:`~structcheck.cases.stop.StopResult`)
turned into a :class:`~structcheck.study.Study` the pipeline runs, so that the links' ringing when the brakes bite
is checked like any motion.

The joint motion of the stop becomes :class:`SampledLaw` laws: piecewise quintic Hermite interpolation of the
simulator's samples (q, qd, qdd), exact at every sample, C2 between events. At an event (a brake biting, a joint
held) the acceleration jumps; the simulator keeps one sample there with the new mode's (right-limit) values, so
the piece that ends at an event is a quartic through q, qd, qdd at its start and q, qd at its end (its own
left-limit acceleration), and the event times are the law's breakpoints (the analysis grid contains them). Time
is counted from the trigger (the study's t = 0 is the trigger), and the study starts ``moving``."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError
from ..motion import as_law
from ..settings import InitialState
from .held import held_study
from .stop import StopResult

__all__ = ["SampledLaw", "stop_case", "stop_study"]


#: [s] pieces shorter than this follow the Taylor quadratic of their start (q, qd, qdd): its mismatch at the end,
#: jerk h^3 / 6 in q and jerk h^2 / 2 in qd, is below 1e-10 rad and 1e-6 rad/s for jerks up to 1e4 rad/s^3, while an
#: exact fit would turn the samples' round-off (1e-16 of q) into accelerations of 1e-16 |q| / h^2
MIN_PIECE_S = 1e-5


@dataclass(frozen=True, eq=False)
class SampledLaw:
    """A law through samples ``t`` (n,) [s] (nondecreasing), ``q``, ``qd``, ``qdd`` (n,) [rad, /s, /s^2]; the
    times in ``events`` end a piece whose end acceleration is left free (a jump there). Held at the ends."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    events: tuple = ()
    ramps = ()

    def __post_init__(self):
        keep = np.append(np.diff(self.t) > 0, True)  # one sample per time (the simulator already has one)
        t, q, qd, qdd = (np.asarray(a, float)[keep] for a in (self.t, self.q, self.qd, self.qdd))
        if len(t) < 2:
            raise InputError("a sampled stop needs at least two distinct sample times")
        h = np.diff(t)
        dq = q[1:] - q[:-1] - qd[:-1] * h - 0.5 * qdd[:-1] * h ** 2
        dv = qd[1:] - qd[:-1] - qdd[:-1] * h
        dA = qdd[1:] - qdd[:-1]
        jump = np.isin(t[1:], np.asarray(self.events, float))
        # a piece shorter than MIN_PIECE_S (events a few 1e-10 s apart: brakes biting and joints sticking at once)
        # keeps the start's Taylor quadratic: matching its end's q and qd would divide their round-off by h^2
        tiny = h < MIN_PIECE_S
        h = np.where(tiny, 1.0, h)
        A = np.zeros((len(h), 3, 3))
        A[:, 0] = np.stack([h ** 3, h ** 4, h ** 5], -1)
        A[:, 1] = np.stack([3 * h ** 2, 4 * h ** 3, 5 * h ** 4], -1)
        A[:, 2] = np.where(jump[:, None], [0.0, 0.0, 1.0], np.stack([6 * h, 12 * h ** 2, 20 * h ** 3], -1))
        rhs = np.stack([dq, dv, np.where(jump, 0.0, dA)], -1)
        c = np.where(tiny[:, None], 0.0, np.linalg.solve(A, rhs[..., None])[..., 0])
        coef = np.column_stack([q[:-1], qd[:-1], 0.5 * qdd[:-1], c])  # (n_pieces, 6), powers 0..5
        object.__setattr__(self, "_grid", (t, coef))

    @property
    def breakpoints(self) -> tuple:
        t = self._grid[0]
        return tuple(sorted({float(t[0]), float(t[-1])} | {float(e) for e in self.events if t[0] < e < t[-1]}))

    def _eval(self, t, order: int, side: int = 1):
        grid, coef = self._grid
        t = np.asarray(t, float)
        tc = np.clip(t, grid[0], grid[-1])
        k = np.clip(np.searchsorted(grid, tc, side="right" if side > 0 else "left") - 1, 0, len(coef) - 1)
        s = tc - grid[k]
        powers = np.arange(6)
        factor = {0: np.ones(6), 1: powers, 2: powers * (powers - 1)}[order]
        shift = np.maximum(powers - order, 0)
        terms = coef[k] * factor * s[..., None] ** shift
        inside = (t >= grid[0]) & (t <= grid[-1]) if order else np.ones(t.shape, bool)
        return np.where(inside, terms.sum(-1), 0.0)

    def value(self, t):
        return self._eval(t, 0)

    def velocity(self, t):
        return self._eval(t, 1)

    def acceleration(self, t, side=1):
        return self._eval(t, 2, side)


def stop_study(study, prep, stop: StopResult, name: str | None = None, held=None):
    """The Study of ``stop`` (simulated from ``study``, prepared as ``prep``): the simulated joint motion from the
    trigger (t = 0) to standstill as offsets from home, the study's payloads, its point forces frozen at their
    trigger values, ``initial_state`` MOVING, the rest of the study's settings kept; with ``held`` (the stop's
    :class:`~structcheck.cases.held.HeldPart`, None: none) holding its part at the trigger, its payloads added and
    the point forces it replaces dropped (the stop must have been simulated with them: :func:`~structcheck.cases.
    stop.stop_from`)."""
    sim = stop.simulation
    chain = prep.chain
    home = np.array([chain.tree.joint(j).home for j in chain.independent])
    t = sim.t - stop.t0
    events = tuple(float(e.t - stop.t0) for e in sim.events)
    motion = {j: SampledLaw(t, sim.q[:, k] - home[k], sim.qd[:, k], sim.qdd[:, k], events)
              for k, j in enumerate(chain.independent)}
    forces = tuple(replace(pf, magnitude=float(as_law(law).value(np.array([stop.t0]))[0]))
                   for pf, law in zip(study.point_forces, prep.force_laws))
    stopped = replace(study, name=name or f"{study.name}-stop-at-{stop.t0:g}s", motion=motion,
                      t_end=float(t[-1]), point_forces=forces, initial_state=InitialState.MOVING)
    return held_study(held, stopped, stop.t0)


def stop_case(name: str, spec, t0: float, required_safety_factor: float | None = None, **case_fields):
    """An emergency stop as an accidental load case of a study (``Study.cases``): the stop ``spec`` (a
    :class:`~structcheck.cases.stop.StopSpec`) triggered at ``t0`` [s] of the study's motion, simulated from the
    state there (:func:`~structcheck.cases.stop.stop_from`: with the spec's held part if it holds it at ``t0``)
    and run as :func:`stop_study`; ``required_safety_factor`` and the other ``Case`` fields are the
    case's own."""
    from functools import partial

    from .case import Case, CaseRole

    return Case(name, role=CaseRole.ACCIDENTAL, build=partial(_stopped, spec, float(t0)),
                required_safety_factor=required_safety_factor, **case_fields)


def _stopped(spec, t0: float, study):
    """The study of ``spec`` triggered at ``t0`` of ``study`` (a Case's ``build``)."""
    from ..study import prepare
    from .stop import stop_from

    prep = prepare(study)
    stop = stop_from(study, prep, spec, t0, loads=False)
    return stop_study(study, prep, stop, name=study.name, held=spec.held)
