"""Emergency stops (ISO 10218-1 / IEC 60204-1 stop categories) simulated from a state of a study's motion.

A stop is triggered at time ``t0`` from the arm's state (q, qd) there. Each joint's :class:`JointStop` gives its
brake torque and engagement delay, its drive's torque limit and deceleration; the :class:`StopCategory` says how
they act (one dispatch, :data:`_DRIVES`), as :mod:`structcheck.rigid.actuation` drives:

- category 0: drives off at the trigger, the brake bites ``delay`` later (the joint coasts under gravity and the
  arm's coupled inertia until then): ``Brake(T_b, engage_at=t0 + delay, before=Free())``;
- category 1: the drive decelerates at ``deceleration`` (a constant-deceleration law to rest, then the brake
  holds) or, without one, at its ``torque_limit`` (a Coulomb torque against the motion, then held by the brake);
- category 2: as category 1 but the drive stays powered and holds at standstill (with its torque limit).

:func:`stop_from` starts a stop from a study's motion (with ``StopSpec.held``, a part held then as rigid masses:
:mod:`.held`); :func:`simulate_stop` integrates one stop (:func:`structcheck.rigid.simulate.simulate`) and returns a
:class:`StopResult`: each joint's stopping time and distance and the joint loads during the stop (inverse dynamics
of the simulated motion). :func:`sweep_triggers` stops at every instant of a trigger grid and names the worst.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Mapping

import numpy as np

from .. import loads as linkloads
from ..errors import InputError, require_number
from ..rigid.actuation import Brake, Free, Prescribed
from ..rigid.forward import Rotor
from ..rigid.simulate import Simulation, Tolerance, simulate
from ..rigid.stage import RigidBody, as_chain, rigid_body
from .held import HeldPart, held_loads

__all__ = ["Deceleration", "JointStop", "StopCategory", "StopResult", "StopSpec", "TriggerSweep",
           "simulate_stop", "state_at", "stop_from", "sweep_triggers"]


class StopCategory(Enum):
    """IEC 60204-1 stop categories (as ISO 10218-1 uses them)."""

    ZERO = 0  # uncontrolled: power removed at once, the brakes stop the arm
    ONE = 1   # controlled, then power removed: the drives decelerate, the brakes hold at standstill
    TWO = 2   # controlled, power kept: the drives decelerate and hold


@dataclass(frozen=True)
class JointStop:
    """One joint's stop data: ``brake_torque`` [N m, N at the joint side: a motor brake's torque times the
    ratio], the brake's engagement ``delay`` [s] after the trigger (category 0), the drive's ``torque_limit``
    [N m, N] and ``deceleration`` [rad/s^2, m/s^2] (categories 1 and 2: the deceleration when given, else the
    torque limit); ``rotor`` the drive's rotor (:class:`~structcheck.rigid.Rotor`: its inertia times the ratio
    squared adds to the joint's inertia in the stop; None: left out)."""

    brake_torque: float
    delay: float = 0.0
    torque_limit: float | None = None
    deceleration: float | None = None
    rotor: Rotor | None = None

    def __post_init__(self):
        require_number("brake torque", self.brake_torque, "N m", at_least=0.0)
        require_number("brake engagement delay", self.delay, "s", at_least=0.0)
        if self.torque_limit is not None:
            require_number("drive torque limit", self.torque_limit, "N m", above=0.0)
        if self.deceleration is not None:
            require_number("drive deceleration", self.deceleration, "rad/s^2", above=0.0)
        if self.rotor is not None and not isinstance(self.rotor, Rotor):
            raise InputError(f"stop rotor {self.rotor!r}: give structcheck.rigid.Rotor(inertia, ratio) or None")


@dataclass(frozen=True)
class StopSpec:
    """A stop: its ``category`` and each driven joint's :class:`JointStop` (``joints``: name -> JointStop; a
    joint not named has no brake and a free drive), ``t_max`` [s] the longest stop simulated; ``held`` a part the
    arm holds during part of the motion (:class:`~structcheck.cases.held.HeldPart`: rigid payloads in place of
    point forces), carried by a stop triggered while it is held (:func:`stop_from`, :func:`sweep_triggers`, the
    stop's load case); None: the study's loads as they are."""

    category: StopCategory
    joints: Mapping[str, JointStop]
    t_max: float = 5.0
    held: HeldPart | None = None

    def __post_init__(self):
        if not isinstance(self.category, StopCategory):
            object.__setattr__(self, "category", StopCategory(self.category))
        require_number("longest stop t_max", self.t_max, "s", above=0.0)
        if self.held is not None and not isinstance(self.held, HeldPart):
            raise InputError(f"stop held = {self.held!r}: give a structcheck.cases.held.HeldPart or None")


@dataclass(frozen=True)
class Deceleration:
    """A joint's offset law from the trigger ``t0`` [s]: velocity ``w0`` [rad/s] falling at ``rate`` [rad/s^2]
    to rest at ``t0 + |w0| / rate``, then still (a :class:`~structcheck.motion.Law`; add the start value as the
    Prescribed offset)."""

    t0: float
    w0: float
    rate: float

    @property
    def t_stop(self) -> float:
        return self.t0 + abs(self.w0) / self.rate

    @property
    def breakpoints(self) -> tuple:
        return (self.t0, self.t_stop)

    @property
    def ramps(self) -> tuple:
        return (self.t_stop - self.t0,) if self.t_stop > self.t0 else ()

    def _s(self, t):
        return np.clip(np.asarray(t, float), self.t0, self.t_stop) - self.t0

    def value(self, t):
        s = self._s(t)
        return self.w0 * s - 0.5 * np.sign(self.w0) * self.rate * s ** 2

    def velocity(self, t):
        return self.w0 - np.sign(self.w0) * self.rate * self._s(t)

    def acceleration(self, t, side=1):
        t = np.asarray(t, float)
        on = (t > self.t0) & (t < self.t_stop)
        on |= (t == self.t0) & (side > 0) & (self.t_stop > self.t0)
        on |= (t == self.t_stop) & (side < 0) & (self.t_stop > self.t0)
        return np.where(on, -np.sign(self.w0) * self.rate, 0.0)


def _controlled(js: JointStop, t0, q0, w0, hold: float):
    """Categories 1 and 2: decelerate at the rate (a law) or at the torque limit (a Coulomb torque), then hold
    with ``hold`` [N m] (the brake's, category 1; the drive's limit, category 2)."""
    if js.deceleration is not None:
        law = Prescribed(Deceleration(t0, w0, js.deceleration), offset=q0)
        return Brake(hold, engage_at=law.law.t_stop, before=law)
    if js.torque_limit is None:
        raise InputError("a category 1 or 2 stop needs each braked joint's drive deceleration or torque limit")
    return Brake(js.torque_limit, engage_at=t0, static=max(hold, js.torque_limit))


def _cat0(js, t0, q0, w0):
    return Brake(js.brake_torque, engage_at=t0 + js.delay, before=Free())


def _cat1(js, t0, q0, w0):
    return _controlled(js, t0, q0, w0, js.brake_torque)


def _cat2(js, t0, q0, w0):
    return _controlled(js, t0, q0, w0, js.torque_limit or js.brake_torque)


_DRIVES = {StopCategory.ZERO: _cat0, StopCategory.ONE: _cat1, StopCategory.TWO: _cat2}


@dataclass(frozen=True)
class StopResult:
    """One stop triggered at ``t0`` [s]: the driven ``joints`` (names), each one's ``stop_time`` [s] after the
    trigger (nan: still moving at ``t0 + t_max``) and ``stop_distance`` [rad, m] (|q at standstill - q0|), the
    peak |joint torque| during the stop ``peak_torque`` [N m, N] (n,), the ``simulation`` and the joint loads
    (``body``: inverse dynamics of the simulated motion, every tree coordinate and joint wrench)."""

    t0: float
    joints: tuple
    stop_time: np.ndarray
    stop_distance: np.ndarray
    peak_torque: np.ndarray
    simulation: Simulation
    body: RigidBody | None = None


def state_at(study, prep, t0: float) -> tuple:
    """The driven joints' absolute q (n,) [rad, m] and qd (n,) of the study's motion at ``t0`` [s], and the point
    forces there (point -> (3,) [N])."""
    chain = prep.chain
    t = np.array([float(t0)])
    home = np.array([chain.tree.joint(j).home for j in chain.independent])
    q = home + np.array([float(prep.laws[j].value(t)[0]) for j in chain.independent])
    qd = np.array([float(prep.laws[j].velocity(t)[0]) for j in chain.independent])
    forces = linkloads.point_force_histories(study.point_forces, prep.force_laws, t)
    return q, qd, {p: np.asarray(f, float).reshape(-1, 3)[0] for p, f in forces.items()}


def stop_from(study, prep, spec: StopSpec, t0: float, tolerance: Tolerance = Tolerance(), dt: float | None = None,
              loads: bool = True) -> StopResult:
    """The stop ``spec`` of ``study`` (prepared as ``prep``: :func:`structcheck.study.prepare`) triggered at
    ``t0`` [s]: from the motion's state there, with the point forces there and the study's payloads, and with the
    spec's held part instead of the forces it replaces while it holds it (:func:`~structcheck.cases.held.
    held_loads`)."""
    q0, qd0, forces = state_at(study, prep, t0)
    forces, payloads = held_loads(spec.held, study, prep, t0, forces)
    return simulate_stop(prep.chain, spec, q0, qd0, t0, study.gravity, forces, payloads, tolerance, dt, loads)


def simulate_stop(chain, spec: StopSpec, q0, qd0, t0: float = 0.0, gravity=(0.0, 0.0, -9.81),
                  point_forces: Mapping | None = None, payloads=None, tolerance: Tolerance = Tolerance(),
                  dt: float | None = None, loads: bool = True) -> StopResult:
    """Simulate the stop ``spec`` of ``chain`` (a Robot or ClosedChain) triggered at ``t0`` [s] from q0, qd0
    (n,) of its driven coordinates [rad, m, /s]; ``loads``: also the inverse dynamics of the stop (joint torques
    and wrenches, :class:`RigidBody`). The ``point_forces`` and ``payloads`` are taken as given (the spec's held
    part is :func:`stop_from`'s to apply)."""
    chain = as_chain(chain)
    names = tuple(chain.independent)
    q0, qd0 = np.asarray(q0, float).reshape(len(names)), np.asarray(qd0, float).reshape(len(names))
    unknown = sorted(set(spec.joints) - set(names))
    if unknown:
        raise InputError(f"stop data for unknown joints {unknown}; the driven joints are {list(names)}")
    make = _DRIVES[spec.category]
    drives = {j: make(spec.joints[j], t0, q0[k], qd0[k]) for k, j in enumerate(names) if j in spec.joints}
    robot = chain if chain.cuts else chain.tree
    rotors = {j: js.rotor for j, js in spec.joints.items() if js.rotor is not None}
    sim = simulate(robot, drives, q0, qd0, t_end=t0 + spec.t_max, t0=t0, gravity=gravity,
                   point_forces=point_forces, payloads=payloads, rotors=rotors, tolerance=tolerance, dt=dt)
    moving = np.abs(sim.qd) > tolerance.v_rest  # (n_t, n)
    last = np.where(moving.any(axis=0), sim.t.size - 1 - np.argmax(moving[::-1], axis=0), -1)
    stopped = last + 1 < sim.t.size
    idx = np.minimum(last + 1, sim.t.size - 1)
    cols = np.arange(len(names))
    stop_time = np.where(stopped, sim.t[idx] - t0, np.nan)
    distance = np.where(stopped, np.abs(sim.q[idx, cols] - q0), np.nan)
    body = None
    if loads:
        body = rigid_body(chain, sim.t, sim.q, sim.qd, sim.qdd, gravity, dict(point_forces or {}), payloads)
    peak = np.max(np.abs(sim.tau), axis=0)
    return StopResult(float(t0), names, stop_time, distance, peak, sim, body)


@dataclass(frozen=True)
class TriggerSweep:
    """Stops triggered on a grid ``triggers`` (n_k,) [s] of spacing ``step`` [s]: ``stop_time`` and
    ``stop_distance`` (n_k, n) [s, rad or m] per trigger and joint, the worst trigger per joint ``worst_time``
    and ``worst_distance`` (n,) [s] (refined by golden-section search to ``tolerance`` [s] when ``refined``) with
    the worst values ``max_time`` [s] and ``max_distance`` (n,), the driven ``joints``."""

    joints: tuple
    triggers: np.ndarray
    step: float
    stop_time: np.ndarray
    stop_distance: np.ndarray
    worst_time: np.ndarray
    worst_distance: np.ndarray
    max_time: np.ndarray
    max_distance: np.ndarray
    refined: bool = False
    tolerance: float = 0.0


GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0


def golden_max(f, a: float, b: float, tol: float) -> tuple:
    """(x, f(x)) maximizing a unimodal ``f`` on [a, b] to |x - x*| <= ``tol`` (golden-section search)."""
    c, d = b - GOLDEN * (b - a), a + GOLDEN * (b - a)
    fc, fd = f(c), f(d)
    while b - a > 2.0 * tol:
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - GOLDEN * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + GOLDEN * (b - a)
            fd = f(d)
    x = 0.5 * (a + b)
    return x, f(x)


#: triggers from which a sweep runs its stops in processes, one contiguous share per core (fewer: in this one)
PARALLEL_TRIGGERS = 64


def trigger_stops(study, prep, spec: StopSpec, triggers: np.ndarray,
                  tolerance: Tolerance = Tolerance()) -> tuple[np.ndarray, np.ndarray]:
    """Stopping times and distances (each (n_triggers, n_joints)) of the stops triggered at ``triggers`` [s]. From
    :data:`PARALLEL_TRIGGERS` triggers on, with more than one core (:func:`structcheck.pool.thread_budget`), in
    spawned processes, one contiguous share of the triggers each: the stops are independent and their integrator
    is Python (threads would wait on each other), and each worker prepares the study itself. The same numbers as one
    process (each stop is the same computation); a study that cannot be pickled (a law of a local function) runs
    here."""
    from ..pool import local_executor, thread_budget

    workers = (min(thread_budget(), len(triggers) // (PARALLEL_TRIGGERS // 2))
               if len(triggers) >= PARALLEL_TRIGGERS else 1)
    if workers < 2 or not _picklable((study, spec, tolerance)):
        return _stops_at(study, spec, triggers, tolerance, prep)
    shares = np.array_split(np.asarray(triggers, float), workers)
    with local_executor(workers) as pool:
        parts = list(pool.map(_stops_at, [study] * workers, [spec] * workers, shares, [tolerance] * workers))
    return np.vstack([p[0] for p in parts]), np.vstack([p[1] for p in parts])


def _picklable(obj) -> bool:
    """Whether ``obj`` can go to a spawned process (a study with a law of a local function cannot)."""
    import pickle

    try:
        pickle.dumps(obj)
    except Exception:  # noqa: BLE001 (whatever pickling raises: the work stays in this process)
        return False
    return True


def _stops_at(study, spec, triggers, tolerance, prep=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`trigger_stops` in this process (``prep`` None: the study prepared here, as in a worker)."""
    if prep is None:
        from ..study import prepare

        prep = prepare(study)
    runs = [stop_from(study, prep, spec, t0, tolerance, loads=False) for t0 in triggers]
    return np.array([r.stop_time for r in runs]), np.array([r.stop_distance for r in runs])


def sweep_triggers(study, prep, spec: StopSpec, step: float, refine_tol: float | None = None,
                   tolerance: Tolerance = Tolerance()) -> TriggerSweep:
    """Stops of ``study`` (prepared as ``prep``: :func:`structcheck.study.prepare`) triggered every ``step`` [s]
    over [0, t_end] (:func:`stop_from`: the spec's held part in the stops triggered while it is held); the worst
    trigger per joint for stopping time and distance, refined by golden-section search within one step either side
    to ``refine_tol`` [s] when given (the worst is then exact to the tolerance if the quantity is unimodal there;
    else to the grid spacing)."""
    step = require_number("trigger step", step, "s", above=0.0)
    triggers = np.unique(np.append(np.arange(0.0, study.t_end, step), study.t_end))

    def stop(t0):
        return stop_from(study, prep, spec, t0, tolerance, loads=False)

    times, dists = trigger_stops(study, prep, spec, triggers, tolerance)
    worst = [triggers[np.nanargmax(np.nan_to_num(v, nan=np.inf), axis=0)] for v in (times, dists)]
    best = [np.nanmax(np.nan_to_num(v, nan=np.inf), axis=0) for v in (times, dists)]
    if refine_tol is not None:
        refine_tol = require_number("refinement tolerance", refine_tol, "s", above=0.0)
        for w, m, what in ((worst[0], best[0], "stop_time"), (worst[1], best[1], "stop_distance")):
            for k in range(len(w)):
                a, b = max(0.0, w[k] - step), min(study.t_end, w[k] + step)
                x, fx = golden_max(lambda t: getattr(stop(t), what)[k], a, b, refine_tol)
                if fx > m[k]:
                    w[k], m[k] = x, fx
    return TriggerSweep(tuple(prep.chain.independent), triggers, step, times, dists, worst[0], worst[1],
                        best[0], best[1], refine_tol is not None, refine_tol or 0.0)
