"""The motion-law protocol :class:`Law`, the :class:`Constant` law, and :func:`as_law`, the one conversion of a
user's motion input (an ADAMS expression, a number or a law object) into a law.

The laws themselves live in :mod:`.expression` (MotionLaw), :mod:`.profiles` (Quintic, MinimumJerk,
Trapezoidal, ModifiedTrapezoidal) and :mod:`.tables` (BSpline, Tabulated); the analysis time grid in
:mod:`.grid`. They are still importable from here.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from ..errors import InputError, require_number
from .expression import MotionLaw
from .span import as_times


@runtime_checkable
class Law(Protocol):
    """A motion law: a quantity over time, e.g. a joint's offset from home [rad or m] or a force [N].

    ``value(t)``, ``velocity(t)`` and ``acceleration(t, side=1)`` take times ``t`` [s] (a scalar or an array of
    any shape) and return arrays of t's shape [unit, unit/s, unit/s^2]. ``side`` is +1 or -1: at a breakpoint,
    where the acceleration may jump, ``side=+1`` gives its right limit and ``side=-1`` its left limit.

    ``breakpoints``: the times [s] where the acceleration may jump (where a profile starts or ends, a ramp's
    ends, a table's ends); the analysis grid contains them. ``ramps``: the durations [s] of the law's ramps;
    the grid puts enough samples across the shortest. Both may be empty tuples.

    Every law of this package satisfies the protocol, and so does any object with these members (it need not
    inherit from Law). An object with only ``value``, ``velocity`` and ``acceleration`` (perhaps without
    ``side``) is a law too once passed through :func:`as_law`.
    """

    breakpoints: tuple
    ramps: tuple

    def value(self, t):
        """The law's value at times ``t`` [s] (same shape out) [unit]."""

    def velocity(self, t):
        """First time derivative at ``t`` [s] (same shape out) [unit/s]."""

    def acceleration(self, t, side=1):
        """Second time derivative at ``t`` [s] (same shape out) [unit/s^2]; ``side`` (+1 or -1) picks the
        one-sided limit at a breakpoint."""


@dataclass(frozen=True)
class Constant:
    """A constant offset ``q`` [rad or m] (or any unit the law is used in)."""

    q: float = 0.0
    breakpoints: ClassVar[tuple] = ()
    ramps: ClassVar[tuple] = ()

    def __post_init__(self):
        require_number("a constant motion law", self.q)

    def value(self, t):
        """Offset from home [rad or m] at times ``t`` [s] (scalar or array; same shape out)."""
        return np.zeros_like(as_times(t)) + self.q

    def velocity(self, t):
        """First time derivative [rad/s or m/s] at ``t`` [s] (same shape as t): zero."""
        return np.zeros_like(as_times(t))

    def acceleration(self, t, side=1):
        """Second time derivative [rad/s^2 or m/s^2] at ``t`` [s] (same shape as t): zero on either side."""
        return np.zeros_like(as_times(t))


_METHODS = ("value", "velocity", "acceleration")


def as_law(x) -> Law:
    """The :class:`Law` for a user's motion input ``x``.

    A string is an ADAMS expression (:class:`MotionLaw`); a number (int, float, numpy scalar) a
    :class:`Constant`; an object with ``value``, ``velocity`` and ``acceleration`` methods is returned as it is
    if it is a full :class:`Law` whose ``acceleration`` takes ``side=``, else wrapped so that it is one: its
    ``acceleration(t, side)`` is its plain ``acceleration(t)`` on either side when it takes no ``side``, and
    its ``breakpoints`` and ``ramps`` are () when it has none. Anything else raises InputError."""
    if isinstance(x, str):
        return MotionLaw(x)
    if isinstance(x, (int, float, np.floating, np.integer)):
        return Constant(float(x))
    missing = [m for m in _METHODS if not callable(getattr(x, m, None))]
    if missing or isinstance(x, type):
        what = f"it has no {', '.join(missing)} method" if missing else "it is a class, not a law object"
        raise InputError(f"{x!r} ({type(x).__name__}) is not a motion law: {what}; give an ADAMS expression "
                         f"string (e.g. 'STEP(time,0,0,1,90d)'), a number (a constant) or a law object with "
                         f"value(t), velocity(t) and acceleration(t, side=1)")
    if isinstance(x, Law) and _takes_side(x.acceleration):
        return x
    return _AdaptedLaw(x)


def _takes_side(acceleration) -> bool:
    """Whether the callable ``acceleration`` accepts the keyword ``side``."""
    try:
        params = inspect.signature(acceleration).parameters.values()
    except (TypeError, ValueError):  # no signature to read (a builtin): call it without side
        return False
    return any(p.name == "side" and p.kind is not p.POSITIONAL_ONLY or p.kind is p.VAR_KEYWORD for p in params)


class _AdaptedLaw:
    """A law object made a full :class:`Law` (see :func:`as_law`): same value, velocity and acceleration."""

    def __init__(self, law):
        self.law = law
        self.breakpoints = tuple(getattr(law, "breakpoints", ()))
        self.ramps = tuple(getattr(law, "ramps", ()))
        self._side = _takes_side(law.acceleration)

    def __repr__(self):
        return f"as_law({self.law!r})"

    def value(self, t):
        """The law's value at times ``t`` [s] (same shape out)."""
        return self.law.value(t)

    def velocity(self, t):
        """The law's first time derivative at ``t`` [s] (same shape out)."""
        return self.law.velocity(t)

    def acceleration(self, t, side=1):
        """The law's second time derivative at ``t`` [s] (same shape out): its one-sided limit for ``side`` if
        the law takes ``side``, else its plain acceleration on either side."""
        return self.law.acceleration(t, side=side) if self._side else self.law.acceleration(t)
