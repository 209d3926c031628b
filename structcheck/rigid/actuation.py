"""How each joint is driven in a forward simulation (:func:`structcheck.rigid.simulate.simulate`): by a motion
law, by a torque history, free, or braked.

Every drive satisfies the :class:`Drive` protocol: a ``role`` (:class:`Role`, the one dispatch of the simulator),
the ``breakpoints`` at which the simulator restarts its integrator (a law's breakpoints, a brake's engagement),
and ``at(t)``, the drive acting at time t (a :class:`Brake` acts through its ``before`` drive until it engages).

Emergency stops are compositions: stop category 0 (drives off, brakes after a delay) is
``Brake(T_b, engage_at=t_stop + delay, before=Free())``; category 1 (the drive decelerates at its torque limit,
then the brake holds) is ``Brake(T_max, engage_at=t_stop, static=T_b, before=...)`` or a :class:`Prescribed`
deceleration law followed by the brake: ``Brake(T_b, engage_at=t_stopped, before=Prescribed(decel))``;
category 2 (drives stay on) is a :class:`Prescribed` law that ends at rest.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from ..errors import InputError, require_number
from ..motion.laws import Law, as_law

__all__ = ["Brake", "Drive", "Free", "Prescribed", "Role", "Torque"]


class Role(Enum):
    """What the simulator knows of a joint: its motion (MOTION: its torque follows), its torque (TORQUE: its
    motion follows), or a Coulomb brake (BRAKE: a known torque against the motion while it slips, an unknown
    holding torque while it holds)."""

    MOTION = "motion"
    TORQUE = "torque"
    BRAKE = "brake"


@runtime_checkable
class Drive(Protocol):
    """A joint's drive: ``role`` (:class:`Role`), ``breakpoints`` (tuple of times [s] where the simulator must
    restart: the motion or torque may jump there) and ``at(t)``, the drive that acts at time ``t`` [s] (itself,
    or a brake's ``before`` drive until the brake engages). MOTION drives have ``motion(t, side=1)`` -> (q, qd,
    qdd) [rad, m, /s, /s^2]; TORQUE drives ``torque(t)`` [N m, N], each with arrays of t's shape."""

    role: ClassVar[Role]
    breakpoints: tuple

    def at(self, t: float) -> "Drive":
        """The drive acting at time t [s]."""


@dataclass(frozen=True)
class Prescribed:
    """The joint follows ``law`` (a :class:`~structcheck.motion.Law`, an ADAMS expression or a number):
    q = ``offset`` + law.value(t) [rad, m] (``offset``: e.g. the joint's home value when the law is an offset
    from home, as in a Study); the drive supplies whatever torque that takes."""

    law: Law
    offset: float = 0.0
    role: ClassVar[Role] = Role.MOTION

    def __post_init__(self):
        object.__setattr__(self, "law", as_law(self.law))
        require_number("prescribed motion offset", self.offset, "rad or m")

    @property
    def breakpoints(self) -> tuple:
        """The law's breakpoints [s] (its acceleration may jump there)."""
        return tuple(self.law.breakpoints)

    def at(self, t: float) -> "Prescribed":
        """Itself: a motion law acts at all times."""
        return self

    def motion(self, t, side: int = 1):
        """(q, qd, qdd) at times t [s] (arrays of t's shape; at a breakpoint the acceleration's right limit, or
        its left limit for ``side`` = -1)."""
        t = np.asarray(t, float)
        return (self.offset + np.asarray(self.law.value(t), float), np.asarray(self.law.velocity(t), float),
                np.asarray(self.law.acceleration(t, side=side), float))


@dataclass(frozen=True)
class Torque:
    """The drive applies the torque (force for a prismatic joint) ``law`` [N m, N] over time (a Law, an ADAMS
    expression or a number), including what accelerates its rotor."""

    law: Law
    role: ClassVar[Role] = Role.TORQUE

    def __post_init__(self):
        object.__setattr__(self, "law", as_law(self.law))

    @property
    def breakpoints(self) -> tuple:
        """The law's breakpoints [s]."""
        return tuple(self.law.breakpoints)

    def at(self, t: float) -> "Torque":
        """Itself."""
        return self

    def torque(self, t):
        """The torque [N m, N] at times t [s] (array of t's shape)."""
        return np.asarray(self.law.value(np.asarray(t, float)), float)


@dataclass(frozen=True)
class Free:
    """A passive joint (or a drive switched off): no torque."""

    role: ClassVar[Role] = Role.TORQUE
    breakpoints: tuple = field(default=(), init=False)

    def at(self, t: float) -> "Free":
        """Itself."""
        return self

    def torque(self, t):
        """Zero torque at times t [s] (array of t's shape)."""
        return np.zeros(np.shape(t))


@dataclass(frozen=True)
class Brake:
    """A Coulomb brake of the joint (torque at the joint side [N m], or force [N] on a prismatic joint; a motor
    brake's torque times the reduction ratio), engaged from ``engage_at`` [s] on; before that the joint is
    driven by ``before`` (default :class:`Free`: drives off).

    Engaged, the brake slips with ``torque`` against the joint's motion; at standstill it holds the joint as
    long as the torque needed to hold it stays within ``static`` (default ``torque``; a larger static value is
    stiction, or a drive that decelerates at its torque limit and then holds with the brake's torque)."""

    torque: float
    engage_at: float = 0.0
    before: Drive = field(default_factory=Free)
    static: float | None = None
    role: ClassVar[Role] = Role.BRAKE

    def __post_init__(self):
        require_number("brake torque", self.torque, "N m (N for a prismatic joint)", at_least=0.0)
        require_number("brake engagement time", self.engage_at, "s")
        static = self.torque if self.static is None else self.static
        require_number("brake static (holding) torque", static, "N m (N for a prismatic joint)", at_least=0.0)
        if static < self.torque:
            raise InputError(f"brake static torque {static:g} is below its slipping torque {self.torque:g}: give "
                             f"static >= torque (a joint that stops is held at least as firmly as it was braked)")
        object.__setattr__(self, "static", float(static))
        if not isinstance(self.before, Drive) or self.before.role is Role.BRAKE:
            raise InputError(f"a brake's 'before' drive must be Prescribed, Torque or Free, got {self.before!r}")

    @property
    def breakpoints(self) -> tuple:
        """The engagement time and the ``before`` drive's breakpoints until then [s]."""
        return tuple(b for b in self.before.breakpoints if b < self.engage_at) + (self.engage_at,)

    def at(self, t: float) -> Drive:
        """The brake from ``engage_at`` on, its ``before`` drive until then."""
        return self if t >= self.engage_at else self.before.at(t)
