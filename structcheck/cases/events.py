"""Accidental events of a study (``Study.events``): a collision at a named point (:class:`Collision`, a half-sine
force pulse, given directly or from a contact's effective mass, stiffness and speed) and a payload released
(:class:`PayloadRelease`) or picked up (:class:`PayloadPickup`) at a given time. docs/events.md.

Each event is a load on the existing stages, so both structural models, the drives and every check take it alike:

- a collision is a point force whose magnitude law is a :class:`HalfSine` pulse, ``P sin(pi (t - t0) / T)`` on
  [t0, t0 + T], 0 elsewhere;
- a payload that leaves or arrives is, while held, what a held payload is to the links: at its point P on link L
  the wrench ``h(t) [m (g - a_P), -(I alpha + omega x I omega)]`` (force, moment about P; L's axes turned to world
  axes) with ``h`` its presence, 1 while held and 0 otherwise, stepping at the event's time. The motion is
  prescribed, so its kinematics do not depend on the payload: the rigid-body stage is run once without it (for
  a_P, omega, alpha) and once with its wrench as an external load. The inverse dynamics is linear in the loads, so
  this is exact on every sample.

In the arm model, an event's payload is such a load only: its elastic inertia is not attached to the arm's mass
matrix (a held payload of ``Study.payloads`` is). After a release (and before a pick-up) that is exact; while it is
held, its mass does not swing on the flexible chain (as a payload given as a force).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, require_array, require_number
from ..motion.span import as_times
from ..user_loads import Payload, PointForce


@dataclass(frozen=True)
class HalfSine:
    """A half-sine pulse (a :class:`structcheck.motion.Law`): ``peak`` [unit] times ``sin(pi (t - start) /
    duration)`` for start <= t <= start + duration [s], 0 elsewhere. Its breakpoints are its start, middle and end:
    the analysis grid puts ``min_ramp_samples`` samples on each half (20 over the pulse by default: the loads are
    linear between samples, which loses (pi / 20)^2 / 12 = 0.2% of the pulse's impulse) and samples its peak."""

    start: float
    duration: float
    peak: float

    @property
    def breakpoints(self) -> tuple:
        return (self.start, self.start + 0.5 * self.duration, self.start + self.duration)

    @property
    def ramps(self) -> tuple:
        return (self.duration,)

    def _phase(self, t):
        t = as_times(t)
        s = (t - self.start) / self.duration
        return s, (s >= 0) & (s <= 1)

    def value(self, t):
        """The pulse at times ``t`` [s] (same shape out) [unit]."""
        s, on = self._phase(t)
        return np.where(on, self.peak * np.sin(np.pi * np.clip(s, 0, 1)), 0.0)

    def velocity(self, t):
        """Its rate [unit/s] (right-sided at the start, 0 from the end on)."""
        s, on = self._phase(t)
        return np.where(on & (s < 1), self.peak * np.pi / self.duration * np.cos(np.pi * np.clip(s, 0, 1)), 0.0)

    def acceleration(self, t, side=1):
        """Its second rate [unit/s^2] (0 at both ends, on either side)."""
        s, on = self._phase(t)
        return np.where(on, -self.peak * (np.pi / self.duration) ** 2 * np.sin(np.pi * np.clip(s, 0, 1)), 0.0)


@dataclass(frozen=True)
class Presence:
    """A payload's presence (a :class:`structcheck.motion.Law`): ``held`` (n + 1,) (1 held, 0 not) before, between
    and after the event times ``times`` (n,) [s, increasing]; each value holds from its time on. The analysis grid
    holds each time and a sample just before it (``motion.grid.JUMP_S``), so a step is a step on the samples, not
    a ramp over the step before it."""

    times: tuple
    held: tuple

    @property
    def breakpoints(self) -> tuple:
        return tuple(self.times)

    ramps = ()

    def value(self, t):
        """1 while the payload is held, 0 otherwise, at times ``t`` [s] (same shape out)."""
        return np.asarray(self.held, float)[np.searchsorted(np.asarray(self.times, float), as_times(t), side="right")]

    def velocity(self, t):
        """0: each step is taken on the samples either side of its time."""
        return np.zeros_like(as_times(t))

    def acceleration(self, t, side=1):
        """0 (see :meth:`velocity`)."""
        return np.zeros_like(as_times(t))


@dataclass(frozen=True)
class Collision:
    """A collision at the robot point ``point``: a half-sine force pulse of ``peak_n`` [N] lasting ``duration_s``
    [s] from time ``t`` [s], along ``direction`` (3,) in world axes (the force on the robot; normalized). It acts on
    the surface named after the point, like a :class:`~structcheck.PointForce`. From a contact's effective mass,
    stiffness and speed: :meth:`from_contact`."""

    point: str
    t: float
    peak_n: float
    duration_s: float
    direction: tuple[float, float, float] = (0.0, 0.0, -1.0)
    kind: str = field(default="collision", init=False)

    def __post_init__(self):
        what = f"collision at {self.point!r}"
        require_number(f"{what}: t", self.t, "s", at_least=0)
        require_number(f"{what}: peak_n", self.peak_n, "N", above=0)
        require_number(f"{what}: duration_s", self.duration_s, "s", above=0)
        if not np.any(require_array(f"{what}: direction", self.direction, (3,))):
            raise InputError(f"{what}: direction = {self.direction!r} is zero; give the force's direction on the "
                             f"robot in world axes, e.g. (0, 1, 0)")

    @classmethod
    def from_contact(cls, point: str, t: float, mass_kg: float, stiffness_n_per_m: float, speed_m_s: float,
                     direction=(0.0, 0.0, -1.0)) -> Collision:
        """The collision of an effective mass ``mass_kg`` [kg] meeting the robot at ``speed_m_s`` [m/s] through a
        linear contact stiffness ``stiffness_n_per_m`` [N/m], from time ``t`` [s]: m x'' = -k x, x(0) = 0,
        x'(0) = v gives the contact force k x = v sqrt(k m) sin(t sqrt(k / m)) until the contact opens at
        pi sqrt(m / k): peak v sqrt(k m) [N], duration pi sqrt(m / k) [s]. The same energy balance,
        F^2 / (2 k) = m v^2 / 2, is ISO/TS 15066:2016 Annex A's transient-contact model (m there the reduced mass of
        the robot and the body region it meets). The robot is taken rigid at the contact (its own compliance in
        series would lower k)."""
        what = f"collision at {point!r}"
        m = require_number(f"{what}: mass_kg", mass_kg, "kg", above=0)
        k = require_number(f"{what}: stiffness_n_per_m", stiffness_n_per_m, "N/m", above=0)
        v = require_number(f"{what}: speed_m_s", speed_m_s, "m/s", above=0)
        return cls(point, t, peak_n=v * math.sqrt(k * m), duration_s=math.pi * math.sqrt(m / k), direction=direction)

    @property
    def end(self) -> float:
        """When the pulse ends [s]."""
        return self.t + self.duration_s

    def point_force(self) -> PointForce:
        """The pulse as a :class:`~structcheck.PointForce` (its magnitude a :class:`HalfSine`)."""
        return PointForce(self.point, HalfSine(self.t, self.duration_s, self.peak_n), tuple(self.direction))


@dataclass(frozen=True)
class PayloadRelease:
    """``payload`` (a :class:`~structcheck.Payload`, held at its point from the start) released at time ``t`` [s]:
    its weight and inertia leave the arm, which springs back. Do not list it in ``Study.payloads`` too; a payload
    picked up (:class:`PayloadPickup`, the same Payload) and released later is held between the two."""

    payload: Payload
    t: float
    kind: str = field(default="payload release", init=False)

    def __post_init__(self):
        _check_payload_event(self, "released")


@dataclass(frozen=True)
class PayloadPickup:
    """``payload`` (a :class:`~structcheck.Payload`) picked up at its point at time ``t`` [s]: its weight and inertia
    load the arm from then on. Do not list it in ``Study.payloads`` too."""

    payload: Payload
    t: float
    kind: str = field(default="payload pickup", init=False)

    def __post_init__(self):
        _check_payload_event(self, "picked up")


EVENTS = (Collision, PayloadRelease, PayloadPickup)


def _check_payload_event(event, verb: str) -> None:
    if not isinstance(event.payload, Payload):
        raise InputError(f"payload {verb} at t = {event.t!r}: payload = {event.payload!r}; give a "
                         f"structcheck.Payload(point, mass, inertia)")
    require_number(f"payload {verb} at {event.payload.point!r}: t", event.t, "s", above=0)


def event_name(event) -> str:
    """The event in a few words, for messages: 'collision at 'tip'', 'payload release at 'tool''."""
    point = event.point if isinstance(event, Collision) else event.payload.point
    return f"{event.kind} at {point!r}"
