"""Forward simulation of the rigid arm with driven, free and braked joints, with event handling (brake
engagement, standstill, stick and slip), for open trees and closed chains.

State: the independent coordinates q and their rates qd (for a closed chain its driven coordinates, which must be
its actuated ones). Between events every joint has one :class:`JointState` (its *mode*), and the joints split
into those whose acceleration is known (DRIVEN: the law's; HELD: zero) and those whose generalized force is known
(FREE: the drive's torque; SLIPPING: the brake's torque against the motion, ``-T_b sign(qd)``). With the
equations of motion ``M qdd + h = tau`` (:mod:`structcheck.rigid.forward`) the unknown accelerations solve
``M_UU qdd_U = tau_U - h_U - M_UC qdd_C`` (Cholesky) and the unknown torques follow as ``tau_C = M_C. qdd + h_C``
(a held joint's holding torque, a driven joint's drive torque).

Brakes (Coulomb, :class:`~structcheck.rigid.actuation.Brake`): at every decision time (the start, a breakpoint,
an event) each engaged brake whose joint moves faster than ``Tolerance.v_rest`` slips against the motion; the
others are held if the holding torques (all held joints at once) stay within their static torques; otherwise the
joint whose holding torque most exceeds its brake's is released, to slip against the holding torque's sense, and
the rest decided again. Events end an integration piece: a slipping joint's velocity reaching zero (then it is
held, or turns back if its brake cannot hold it) and a held joint's holding torque reaching its static torque
(then it slips). Brake engagements and the drives' breakpoints are restart times. The integrator is
:func:`scipy.integrate.solve_ivp` with the stated tolerances; its root finder places the events.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Mapping

import numpy as np
from scipy.integrate import solve_ivp

from ..errors import InputError, require_number
from .actuation import Drive, Free, Role
from .closedchain import ClosedChain
from .forward import JointSpace, joint_space, solve_spd

__all__ = ["Event", "EventKind", "JointState", "Simulation", "Tolerance", "simulate"]

MAX_DECISIONS = 10_000  # events and restarts in one simulation: more means brakes chattering


class JointState(Enum):
    """A joint's mode between events."""

    DRIVEN = "driven"      # follows its motion law
    FREE = "free"          # under its drive's torque (zero: passive)
    SLIPPING = "slipping"  # braked, moving: the brake's torque against the motion
    HELD = "held"          # braked at a standstill: the brake holds it


class EventKind(Enum):
    """What happened at an :class:`Event`."""

    ENGAGED = "engaged"  # a brake engages
    HELD = "held"        # a braked joint reaches a standstill and its brake holds it
    SLIPS = "slips"      # a brake cannot hold its joint: it breaks away, or turns back at a standstill
    REST = "rest"        # every joint is held: the arm is at rest (the simulation ends there)


class _Watch(Enum):
    """What an event function of the integrator watches for."""

    STOP = "a slipping joint's velocity reaching zero"
    BREAK = "a held joint's holding torque reaching its brake's static torque"


@dataclass(frozen=True)
class Event:
    """At time ``t`` [s], ``kind`` happened to ``joint`` (None for REST)."""

    t: float
    kind: EventKind
    joint: str | None


@dataclass(frozen=True)
class Tolerance:
    """Integrator settings: ``method`` of :func:`scipy.integrate.solve_ivp` ('DOP853', 'RK45' or 'Radau'),
    relative and absolute local error per step ``rtol``, ``atol`` [rad, m, rad/s, m/s]; events are located by
    the solver's root finder on its dense output to round-off in time, so a stop time or angle carries the
    integration error, about ``rtol`` relative. ``v_rest`` [rad/s, m/s]: at a decision time a braked joint slower
    than this counts as stopped (an event leaves it near 1e-15)."""

    method: str = "DOP853"
    rtol: float = 1e-8
    atol: float = 1e-10
    v_rest: float = 1e-9

    def __post_init__(self):
        if self.method not in ("DOP853", "RK45", "Radau"):
            raise InputError(f"integration method {self.method!r}: give 'DOP853', 'RK45' or 'Radau'")
        require_number("rtol", self.rtol, above=0.0)
        require_number("atol", self.atol, above=0.0)
        require_number("v_rest", self.v_rest, "rad/s or m/s", above=0.0)


@dataclass(frozen=True)
class Simulation:
    """A forward simulation: samples ``t`` (n_t,) [s] (nondecreasing; after an event the sample holds the new
    mode's values), the independent ``coordinates`` (n), ``q``, ``qd``, ``qdd`` (n_t, n) [rad, m, /s, /s^2],
    ``tau`` (n_t, n) the torque each joint's drive or brake exerts [N m, N] (a held joint's holding torque, a
    driven joint's drive torque, with the rotors'), ``q_tree`` (n_t, n_coords) every tree coordinate (closed
    chains; = q for an open tree), ``state`` (n_t, n) the :class:`JointState` of each joint, the ``events`` in
    time order and the ``tolerance`` used."""

    t: np.ndarray
    coordinates: tuple
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    q_tree: np.ndarray
    state: np.ndarray
    events: tuple
    tolerance: Tolerance

    def event_times(self, kind: EventKind, joint: str | None = None) -> np.ndarray:
        """Times [s] of the events of ``kind`` (of ``joint`` when given)."""
        return np.array([e.t for e in self.events if e.kind is kind and (joint is None or e.joint == joint)])

    @property
    def rest_time(self) -> float | None:
        """When every joint came to be held [s] (None if the arm did not come to rest)."""
        times = self.event_times(EventKind.REST)
        return float(times[0]) if len(times) else None


@dataclass(frozen=True)
class _Mode:
    """Each joint's acting drive and state, the slip direction (+-1) of slipping joints, and the time the mode
    ends [s] (there, the laws' accelerations are their left limits)."""

    drives: tuple
    state: tuple
    sign: np.ndarray
    end: float = np.inf

    @property
    def known_acc(self) -> np.ndarray:
        return np.array([s in (JointState.DRIVEN, JointState.HELD) for s in self.state], bool)


@dataclass
class _Model:
    """The equations of motion at given states; a closed chain's loops are closed from the last pose found."""

    robot: object
    gravity: np.ndarray
    forces: dict
    payloads: dict | None
    rotors: dict | None
    q_guess: np.ndarray | None = None
    cache: dict = field(default_factory=dict)

    def space(self, t, q, qd, q_guess=None) -> JointSpace:
        pf = {p: (f(np.atleast_1d(t)) if callable(f) else f) for p, f in self.forces.items()}
        js = joint_space(self.robot, q, qd, self.gravity, pf, self.payloads, self.rotors,
                         self.q_guess if q_guess is None else q_guess)
        if q_guess is None and isinstance(self.robot, ClosedChain):
            self.q_guess = js.q_tree[-1]
        return js


def _effective(mode: _Mode, t, q, qd):
    """q, qd (n_t, n) with driven joints on their laws and held joints at rest; t (n_t,)."""
    q, qd = q.copy(), qd.copy()
    for k, (d, s) in enumerate(zip(mode.drives, mode.state)):
        if s is JointState.DRIVEN:
            q[:, k], qd[:, k], _ = d.motion(t)
        elif s is JointState.HELD:
            qd[:, k] = 0.0
    return q, qd


def _law_acceleration(drive, t, end):
    """A prescribed joint's acceleration at times t (an array or a scalar): the right limit at a breakpoint, but
    the left limit at the mode's ``end`` (the integrator's last stage sits there)."""
    return drive.motion(t, side=-1 if np.all(np.asarray(t) >= end) else 1)[2]


def _solve_mode(js: JointSpace, mode: _Mode, t) -> tuple:
    """qdd and tau (n_t, n) under ``mode`` at times t (n_t,)."""
    n_t, n = js.h.shape
    qdd, f = np.zeros((n_t, n)), np.zeros((n_t, n))
    for k, (d, s) in enumerate(zip(mode.drives, mode.state)):
        if s is JointState.DRIVEN:
            qdd[:, k] = _law_acceleration(d, t, mode.end)
        elif s is JointState.FREE:
            f[:, k] = d.torque(t)
        elif s is JointState.SLIPPING:
            f[:, k] = -d.torque * mode.sign[k]
    C = mode.known_acc
    U = ~C
    rhs = f[:, U] - js.h[:, U] - np.einsum("tij,tj->ti", js.M[:, U][:, :, C], qdd[:, C])
    qdd[:, U] = solve_spd(js.M[:, U][:, :, U], rhs, np.array(js.coordinates)[U])
    tau = np.einsum("tij,tj->ti", js.M, qdd) + js.h
    tau[:, U] = f[:, U]  # exact, not through the round-off of M qdd + h
    return qdd, tau


def _decide(model: _Model, drives, t, y, tol: Tolerance, release=(), signs=None) -> tuple:
    """The mode at time t and state y (2n,): (mode, y with stopped joints' rates zeroed, the joints whose brake
    lets go at a standstill). ``release``: joints whose brake must slip (their holding torque reached the static
    torque); ``signs``: their slip senses."""
    n = len(drives)
    y = y.copy()
    active = [d.at(t) for d in drives]
    state, sign = [], np.zeros(n)
    for k, d in enumerate(active):
        v = y[n + k]
        if d.role is Role.MOTION:
            state.append(JointState.DRIVEN)
        elif d.role is Role.TORQUE:
            state.append(JointState.FREE)
        elif k in release or abs(v) > tol.v_rest:
            state.append(JointState.SLIPPING)
            sign[k] = signs[k] if k in release else np.sign(v)
        else:
            state.append(JointState.HELD)
            y[n + k] = 0.0
    tt, broke = np.array([t]), set(release)
    while True:
        mode = _Mode(tuple(active), tuple(state), sign.copy())
        held = [k for k in range(n) if state[k] is JointState.HELD]
        if not held:
            return mode, y, broke
        q, qd = _effective(mode, tt, y[None, :n], y[None, n:])
        tau = _solve_mode(model.space(t, q, qd), mode, tt)[1][0]
        excess = [abs(tau[k]) - active[k].static for k in held]
        if max(excess) <= 0.0:
            return mode, y, broke
        k = held[int(np.argmax(excess))]  # the brake furthest from holding lets go first
        state[k], sign[k] = JointState.SLIPPING, -np.sign(tau[k])
        broke.add(k)


def _events(model: _Model, mode: _Mode, n: int, start: float = -np.inf, broke=()) -> list:
    """solve_ivp event functions of ``mode`` from time ``start`` [s], each tagged with its joint and kind (stop, or
    break away). A joint in ``broke`` starts slipping from a standstill: its speed is 0 at ``start``, and
    solve_ivp's root finder would return ``start`` itself whenever the speed is back at or below 0 at the end of the
    first step (a break-away whose excess torque vanishes within that step), a piece of no length repeated until
    MAX_DECISIONS; its stop event reads positive at ``start``, so that the root is its return to rest."""
    out = []
    for k, s in enumerate(mode.state):
        if s is JointState.SLIPPING:
            ev = (lambda k, sg, t0: lambda t, y: 1.0 if t <= t0 else sg * y[n + k])(
                k, mode.sign[k], start if k in broke else -np.inf)
            ev.joint, ev.watch = k, _Watch.STOP
        elif s is JointState.HELD:
            def ev(t, y, k=k, static=mode.drives[k].static):
                tau = model.cache.get((t, y.tobytes()))
                if tau is None:
                    tau = _rhs_parts(model, mode, t, y)[1]
                return static - abs(tau[k])
            ev.joint, ev.watch = k, _Watch.BREAK
        else:
            continue
        ev.terminal, ev.direction = True, -1
        out.append(ev)
    return out


def _rhs_parts(model, mode, t, y):
    """(dy/dt (2n,), tau (n,)) at time t and state y under ``mode``; tau is NaN when every joint of an open tree
    follows its law (the dynamics are not needed to integrate then: the outputs compute them afterwards; a closed
    chain still solves its loops, to carry its pose from step to step)."""
    n = len(y) // 2
    q, qd = _effective(mode, np.array([t]), y[None, :n], y[None, n:])
    if all(s is JointState.DRIVEN for s in mode.state) and not isinstance(model.robot, ClosedChain):
        return np.concatenate([qd[0], [_law_acceleration(d, t, mode.end) for d in mode.drives]]), np.full(n, np.nan)
    qdd, tau = _solve_mode(model.space(t, q, qd), mode, np.array([t]))
    model.cache = {(t, y.tobytes()): tau[0]}
    return np.concatenate([qd[0], qdd[0]]), tau[0]


def _restarts(drives, t0, t_end, extra) -> list:
    times = {float(b) for d in drives for b in d.breakpoints} | {float(b) for b in extra}
    return sorted(b for b in times if t0 < b < t_end) + [t_end]


def _check(robot, drives, q0, qd0, t0, t_end):
    """Coordinate names, drives per coordinate, q0 and qd0 (n,) checked."""
    if isinstance(robot, ClosedChain):
        if robot.actuated != robot.independent:
            raise InputError(f"simulate drives the independent coordinates {list(robot.independent)} of "
                             f"{robot.name!r}, but its actuated ones are {list(robot.actuated)}; build the chain "
                             f"with the actuated coordinates as its independent ones")
        names = robot.independent
    else:
        names = robot.dof_names
    unknown = sorted(set(drives) - set(names))
    if unknown:
        raise InputError(f"drives given for {unknown}, which are not driven coordinates; those are {list(names)}")
    out = []
    for n in names:
        d = drives.get(n, Free())
        if not isinstance(d, Drive):
            raise InputError(f"drive of {n!r}: give Prescribed, Torque, Free or Brake, got {d!r}")
        out.append(d)
    q0 = np.asarray(q0, float).reshape(-1)
    qd0 = np.asarray(qd0, float).reshape(-1)
    if q0.shape != (len(names),) or qd0.shape != (len(names),) or not np.isfinite([*q0, *qd0]).all():
        raise InputError(f"q0 and qd0 must be {len(names)} finite values for {list(names)}, got shapes "
                         f"{q0.shape} and {qd0.shape}")
    require_number("t_end", t_end, "s", above=t0)
    return names, out, q0, qd0


def simulate(robot, drives: Mapping[str, Drive], q0, qd0, t_end: float, t0: float = 0.0,
             gravity=(0.0, 0.0, -9.81), point_forces: Mapping | None = None, payloads=None,
             rotors: Mapping | None = None, tolerance: Tolerance = Tolerance(), dt: float | None = None,
             stop_at_rest: bool = True, breakpoints=(), q_guess=None) -> Simulation:
    """Integrate the rigid arm ``robot`` (a Robot, or a ClosedChain whose actuated coordinates are its
    independent ones) from ``t0`` to ``t_end`` [s], starting at q0, qd0 (n,) absolute [rad, m, /s].

    ``drives``: coordinate name -> :class:`~structcheck.rigid.actuation.Prescribed`, ``Torque``, ``Free`` or
    ``Brake`` (a coordinate not named is Free; a prescribed joint starts on its law whatever q0 says);
    ``gravity`` (3,) world [m/s^2]; ``point_forces`` point name -> (3,) world force [N] or a function of t (n_t,)
    returning (n_t, 3) (list its jumps in ``breakpoints`` [s]); ``payloads`` and ``rotors`` as for
    :func:`~structcheck.rigid.forward.joint_space`; ``tolerance`` the integrator's (:class:`Tolerance`);
    ``dt`` [s] a uniform output spacing (the events' times are added), or None for the integrator's own steps;
    ``stop_at_rest``: end when every joint is held (constant point forces only: then nothing changes any more).
    Returns a :class:`Simulation`."""
    names, drives, q0, qd0 = _check(robot, drives, q0, qd0, t0, t_end)
    n = len(names)
    forces = {p: (f if callable(f) else np.asarray(f, float).reshape(3)) for p, f in (point_forces or {}).items()}
    if q_guess is None and isinstance(robot, ClosedChain):
        q_guess = robot.tree.home  # the assembled pose: every piece continues the loops from its start
    model = _Model(robot, np.asarray(gravity, float).reshape(3), forces, payloads, rotors, q_guess)
    restarts = _restarts(drives, t0, t_end, breakpoints)
    constant = not any(callable(f) for f in forces.values())
    t, y = float(t0), np.concatenate([q0, qd0])
    pieces, events, release, signs, before = [], [], (), None, None
    for _ in range(MAX_DECISIONS):
        mode, y, broke = _decide(model, drives, t, y, tolerance, release, signs)
        y[:n], y[n:] = (a[0] for a in _effective(mode, np.array([t]), y[None, :n], y[None, n:]))
        events += _changes(before, mode, t, names, broke)
        before, release = mode, ()
        resting = all(s is JointState.HELD for s in mode.state)
        if t >= t_end or (stop_at_rest and constant and resting):
            events += [Event(t, EventKind.REST, None)] if resting else []
            pieces.append((mode, None, np.array([t]), y[:, None], model.q_guess))
            break
        t_next = restarts[np.searchsorted(restarts, t, side="right")]
        mode = replace(mode, end=t_next)
        guess = model.q_guess
        evs = _events(model, mode, n, t, broke)
        sol = solve_ivp(lambda tt, yy: _rhs_parts(model, mode, tt, yy)[0], (t, t_next), y, method=tolerance.method,
                        rtol=tolerance.rtol, atol=tolerance.atol, events=evs or None, dense_output=True)
        if sol.status < 0:
            raise InputError(f"the integration failed at t = {sol.t[-1]:.6g} s: {sol.message}")
        pieces.append((mode, sol.sol, sol.t[:-1], sol.y[:, :-1], guess))
        t, y = float(sol.t[-1]), sol.y[:, -1].copy()
        if sol.status == 1:
            i = next(i for i, te in enumerate(sol.t_events) if len(te))
            k = evs[i].joint
            if evs[i].watch is _Watch.STOP:
                y[n + k] = 0.0  # the root: a standstill
            else:
                # the holding torque reached the static torque: the joint moves against its sense
                release, signs = (k,), {k: -np.sign(_rhs_parts(model, mode, t, y)[1][k])}
    else:
        raise InputError(f"more than {MAX_DECISIONS} brake events before t = {t:.6g} s: the brakes chatter; check "
                         f"the brake torques against the holding torques")
    return _assemble(model, pieces, names, tuple(events), tolerance, dt, t0)


def _changes(before, mode, t, names, broke) -> list:
    """The events between two consecutive modes at time t; ``broke``: joints whose brake let go at a standstill."""
    out = []
    for k, s in enumerate(mode.state):
        if mode.drives[k].role is Role.BRAKE and (before is None or before.drives[k].role is not Role.BRAKE):
            out.append(Event(t, EventKind.ENGAGED, names[k]))
        if s is JointState.HELD and (before is None or before.state[k] is not JointState.HELD):
            out.append(Event(t, EventKind.HELD, names[k]))
        elif k in broke:
            out.append(Event(t, EventKind.SLIPS, names[k]))
    return out


def _assemble(model, pieces, names, events, tol, dt, t0) -> Simulation:
    """The output samples of every piece, their accelerations and torques in one vectorized call per piece."""
    n = len(names)
    parts = []
    for mode, dense, ts, ys, guess in pieces:
        if dense is not None and dt is not None:
            lo, hi = ts[0], dense.t_max
            grid = t0 + dt * np.arange(np.ceil((lo - t0) / dt - 1e-9), np.ceil((hi - t0) / dt - 1e-9))
            ts = np.unique(np.concatenate([[lo], grid[(grid > lo) & (grid < hi)]]))
            ys = dense(ts)
        q, qd = _effective(mode, ts, ys[:n].T, ys[n:].T)
        js = model.space(ts, q, qd, guess)
        qdd, tau = _solve_mode(js, mode, ts)
        state = np.broadcast_to(np.array([s.value for s in mode.state], object), (len(ts), n))
        parts.append((ts, q, qd, qdd, tau, js.q_tree, state))
    cat = [np.concatenate(x) for x in zip(*parts)]
    return Simulation(t=cat[0], coordinates=tuple(names), q=cat[1], qd=cat[2], qdd=cat[3], tau=cat[4],
                      q_tree=cat[5], state=cat[6], events=events, tolerance=tol)
