"""Rest-to-rest and point-to-point profiles made of polynomial (and sine) pieces, held at their end values
outside their span: Quintic, MinimumJerk, Trapezoidal and ModifiedTrapezoidal."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, require_number
from .adams_text import number, piecewise, poly, shf
from .span import as_times, in_span


class _Piecewise:
    """Piecewise polynomial in time held constant (at its end values) outside [t0, t1]."""

    t0: float
    t1: float

    def _poly(self, tau, side=1):
        """Value, velocity, acceleration for tau in [t0, t1]; ``side`` picks the one-sided acceleration at
        interior breakpoints (+1 right, -1 left)."""
        raise NotImplementedError

    @property
    def breakpoints(self):
        """Start and end times [s]."""
        return (self.t0, self.t1)

    @property
    def ramps(self):
        """Duration [s] of the motion."""
        return (self.t1 - self.t0,)

    def _eval(self, t, side=1):
        """Value, velocity and acceleration at ``t`` [s], each of t's shape."""
        t = as_times(t)
        tc = np.clip(t, self.t0, self.t1)
        f, d, dd = self._poly(tc, side)
        # velocity is continuous: the closed interval; acceleration may jump: the chosen one-sided limit
        closed, inside = in_span(t, self.t0, self.t1), in_span(t, self.t0, self.t1, side)
        return f, np.where(closed, d, 0.0), np.where(inside, dd, 0.0)

    def value(self, t):
        """Offset from home [rad or m] at times ``t`` [s] (scalar or array; same shape out)."""
        return self._eval(t)[0]

    def velocity(self, t):
        """First time derivative [rad/s or m/s] at ``t`` [s] (same shape as t)."""
        return self._eval(t)[1]

    def acceleration(self, t, side=1):
        """Second time derivative [rad/s^2 or m/s^2] at ``t`` [s] (same shape as t); ``side=+1`` gives the right
        limit at a breakpoint, ``side=-1`` the left one."""
        return self._eval(t, side)[2]


@dataclass(frozen=True)
class Quintic(_Piecewise):
    """Quintic polynomial from (q0, v0, a0) at t0 to (q1, v1, a1) at t1 (paper 002's point-to-point law)."""

    t0: float
    t1: float
    q0: float
    q1: float
    v0: float = 0.0
    v1: float = 0.0
    a0: float = 0.0
    a1: float = 0.0

    def __post_init__(self):
        for name in ("t0", "t1", "q0", "q1", "v0", "v1", "a0", "a1"):
            require_number(f"Quintic {name}", getattr(self, name))
        if not self.t1 > self.t0:
            raise InputError(f"Quintic needs t1 > t0, got t0 = {self.t0}, t1 = {self.t1}")

    def _c345(self):
        """The coefficients of s^3, s^4, s^5 (s = t - t0) that meet the end conditions."""
        T = self.t1 - self.t0
        A = np.array([[T ** 3, T ** 4, T ** 5], [3 * T ** 2, 4 * T ** 3, 5 * T ** 4], [6 * T, 12 * T ** 2, 20 * T ** 3]])
        rhs = np.array([self.q1 - self.q0 - self.v0 * T - self.a0 * T ** 2 / 2, self.v1 - self.v0 - self.a0 * T,
                        self.a1 - self.a0])
        return np.linalg.solve(A, rhs)

    def adams_text(self) -> str | None:
        """The law as an ADAMS function expression (POLY between t0 and t1, held outside), equal to it to
        rounding; None when it does not start and end at rest (held outside its span, it would jump in
        velocity)."""
        if self.v0 != 0 or self.v1 != 0:
            return None
        c3, c4, c5 = self._c345()
        at_end = float(self.value(self.t1))
        return piecewise(number(self.q0), [(self.t0, poly(self.t0, self.q0, 0.0, self.a0 / 2, c3, c4, c5)),
                                           (self.t1, number(at_end))])

    def _poly(self, tc, side=1):
        c3, c4, c5 = self._c345()
        s = tc - self.t0
        f = self.q0 + self.v0 * s + self.a0 * s ** 2 / 2 + c3 * s ** 3 + c4 * s ** 4 + c5 * s ** 5
        d = self.v0 + self.a0 * s + 3 * c3 * s ** 2 + 4 * c4 * s ** 3 + 5 * c5 * s ** 4
        dd = self.a0 + 6 * c3 * s + 12 * c4 * s ** 2 + 20 * c5 * s ** 3
        return f, d, dd


def MinimumJerk(t0: float, t1: float, q0: float, q1: float) -> Quintic:
    """Minimum-jerk rest-to-rest motion (Flash & Hogan): the quintic with zero end velocity and acceleration."""
    return Quintic(t0, t1, q0, q1)


@dataclass(frozen=True)
class _RestToRest(_Piecewise):
    """Rest-to-rest motion from q0 to q1 [rad or m] starting at t0 [s]: accelerate for Ta, cruise for Tc at the
    velocity v, decelerate for Ta, with the velocity limit v_max [unit/s] and the acceleration limit a_max
    [unit/s^2] (both > 0). Subclasses give the phases (``_phases`` -> (v, Ta, Tc)) and the pieces ``_poly``."""

    q0: float
    q1: float
    v_max: float
    a_max: float
    t0: float = 0.0

    def __post_init__(self):
        for name in ("q0", "q1", "v_max", "a_max", "t0"):
            require_number(f"{type(self).__name__} {name}", getattr(self, name))
        if not (self.v_max > 0 and self.a_max > 0):
            raise InputError(f"{type(self).__name__} needs v_max > 0 and a_max > 0, got {self.v_max}, "
                             f"{self.a_max}")

    @property
    def _phases(self):
        """Cruise velocity v [unit/s], acceleration time Ta [s], cruise time Tc [s]."""
        raise NotImplementedError

    @property
    def t1(self):
        """End time [s] of the profile."""
        v, Ta, Tc = self._phases
        return self.t0 + 2 * Ta + Tc

    @property
    def breakpoints(self):
        """Start, end of acceleration, start of deceleration, end [s]."""
        v, Ta, Tc = self._phases
        return (self.t0, self.t0 + Ta, self.t0 + Ta + Tc, self.t1)


@dataclass(frozen=True)
class Trapezoidal(_RestToRest):
    """Rest-to-rest trapezoidal velocity profile from q0 to q1 limited by v_max and a_max (> 0), starting at t0.

    If the distance is too short to reach v_max the profile is triangular."""

    @property
    def _phases(self):
        dist = abs(self.q1 - self.q0)
        v = min(self.v_max, math.sqrt(dist * self.a_max))
        ta = v / self.a_max
        tc = dist / v - ta if v > 0 else 0.0
        return v, ta, tc

    def _poly(self, tc_, side=1):
        v, ta, tc = self._phases
        sgn = 1.0 if self.q1 >= self.q0 else -1.0
        a = self.a_max
        s = tc_ - self.t0
        T = 2 * ta + tc
        before = (lambda x, b: x < b) if side > 0 else (lambda x, b: x <= b)
        acc = np.where(before(s, ta), a, np.where(before(s, ta + tc), 0.0, -a))
        vel = np.where(s < ta, a * s, np.where(s < ta + tc, v, v - a * (s - ta - tc)))
        pos = np.where(s < ta, a * s ** 2 / 2, np.where(s < ta + tc, v * ta / 2 + v * (s - ta),
                                                        v * ta / 2 + v * tc + v * (s - ta - tc) - a * (s - ta - tc) ** 2 / 2))
        pos = np.where(s >= T, abs(self.q1 - self.q0), pos)
        return self.q0 + sgn * pos, sgn * vel, sgn * acc

    def adams_text(self) -> str:
        """The law as an ADAMS function expression (POLY pieces switched by IF), equal to it to rounding."""
        v, ta, tc = self._phases
        sa, sv = math.copysign(self.a_max, self.q1 - self.q0), math.copysign(v, self.q1 - self.q0)
        t1, t2 = self.t0 + ta, self.t0 + ta + tc
        p1 = self.q0 + sa * ta * ta / 2
        p2 = p1 + sv * tc
        pieces = [(self.t0, poly(self.t0, self.q0, 0.0, sa / 2)), (t1, poly(t1, p1, sv)),
                  (t2, poly(t2, p2, sv, -sa / 2)), (self.t1, number(self.value(self.t1)))]
        return piecewise(number(self.q0), [p for p, nxt in zip(pieces, pieces[1:] + [(math.inf, "")])
                                           if nxt[0] > p[0]])


@dataclass(frozen=True)
class ModifiedTrapezoidal(_RestToRest):
    """Modified-trapezoid acceleration law (paper 000): acceleration rises and falls along sine quarter-waves
    (each 1/8 of a ramp period) around constant-acceleration segments, so the jerk stays finite. Rest to rest
    from q0 to q1 with peak acceleration a_max and cruise velocity v_max, starting at t0.

    Each acceleration phase of length Ta is [sine rise Ta/4, constant Ta/2, sine fall Ta/4] and gains the
    velocity a_max Ta (1/2 + 1/pi); position and velocity are the exact integrals of that shape."""

    # shape of one acceleration phase on u in [0, 1]: a(u)/a_max
    @staticmethod
    def _shape(u):
        return np.where(u < 0.25, np.sin(2 * np.pi * u), np.where(u < 0.75, 1.0, np.sin(2 * np.pi * (1 - u))))

    # integrals of the shape: mean value m1 = int_0^1 a du, first moment used for the distance
    _M1 = 0.5 + 1.0 / np.pi  # 2 * (1/(2 pi)) + 1/2

    @property
    def _phases(self):
        dist = abs(self.q1 - self.q0)
        # velocity gained in a phase of length Ta: a_max * Ta * M1; distance covered in accel + decel = v * Ta
        Ta = self.v_max / (self.a_max * self._M1)
        if self.v_max * Ta <= dist:
            return self.v_max, Ta, dist / self.v_max - Ta
        Ta = math.sqrt(dist / (self.a_max * self._M1))
        return self.a_max * Ta * self._M1, Ta, 0.0

    @staticmethod
    def _phase_integrals(u, Ta):
        """Velocity and position gained after a fraction u of an acceleration phase of length Ta (a_max = 1)."""
        w = 2 * np.pi
        u1 = np.minimum(u, 0.25)
        u2 = np.clip(u - 0.25, 0, 0.5)
        v = np.where(u <= 0.25, (1 - np.cos(w * u1)) / w,
                     np.where(u <= 0.75, 1 / w + u2, 1 / w + 0.5 + np.cos(w * (1 - u)) / w))
        p_q = 1 / (4 * w) - 1 / w ** 2  # position at u = 1/4
        p_3q = p_q + 0.5 / w + 0.125  # position at u = 3/4
        p = np.where(u <= 0.25, u1 / w - np.sin(w * u1) / w ** 2,
                     np.where(u <= 0.75, p_q + u2 / w + u2 ** 2 / 2,
                              p_3q + (1 / w + 0.5) * (u - 0.75) + (1 - np.sin(w * (1 - u))) / w ** 2))
        return v * Ta, p * Ta * Ta

    def _poly(self, tc_, side=1):
        v, Ta, Tc = self._phases
        a = self.a_max
        sgn = 1.0 if self.q1 >= self.q0 else -1.0
        s = tc_ - self.t0
        u1 = np.clip(s / Ta, 0, 1)
        va, pa = self._phase_integrals(u1, Ta)
        acc = np.where(s <= Ta, a * self._shape(u1), 0.0)
        vel = a * va
        pos = a * pa
        s2 = s - Ta
        pos = np.where(s > Ta, pos + v * np.clip(s2, 0, Tc), pos)
        vel = np.where(s > Ta, v, vel)
        s3 = s - Ta - Tc
        u3 = np.clip(s3 / Ta, 0, 1)
        vd, pd = self._phase_integrals(u3, Ta)
        dec = s > Ta + Tc
        acc = np.where(dec, -a * self._shape(u3), acc)
        vel = np.where(dec, v - a * vd, vel)
        pos = np.where(dec, pos + v * np.clip(s3, 0, Ta) - a * pd, pos)
        return self.q0 + sgn * pos, sgn * vel, sgn * acc

    def adams_text(self) -> str:
        """The law as an ADAMS function expression, equal to it to rounding: each acceleration phase's three
        pieces (sine quarter-wave rise: POLY + SHF; constant: POLY; fall: POLY + SHF) and the cruise (POLY),
        switched by IF."""
        v, Ta, Tc = self._phases
        sgn = 1.0 if self.q1 >= self.q0 else -1.0
        a, w = sgn * self.a_max, 2 * np.pi
        p_q = 1 / (4 * w) - 1 / w ** 2
        p_3q = p_q + 0.5 / w + 0.125
        p_end = p_3q + (1 / w + 0.5) / 4 + 1 / w ** 2  # position at the phase's end (a_max = Ta = 1)

        def phase(T0, P0, V0, s):
            """The three pieces of a phase from T0 [s] at P0, V0, accelerating (s = +1) or decelerating (-1)."""
            t3 = T0 + 3 * Ta / 4
            fall = poly(t3, P0 + V0 * 3 * Ta / 4 + s * a * Ta * Ta * (p_3q + 1 / w ** 2),
                        V0 + s * a * Ta * (1 / w + 0.5))
            return [(T0, f"{poly(T0, P0, V0 + s * a * Ta / w)} + {shf(T0, -s * a * (Ta / w) ** 2, w / Ta)}"),
                    (T0 + Ta / 4, poly(T0 + Ta / 4, P0 + V0 * Ta / 4 + s * a * Ta * Ta * p_q, V0 + s * a * Ta / w,
                                       s * a / 2)),
                    (t3, f"{fall} + {shf(T0, s * a * Ta * Ta / w ** 2, w / Ta)}")]

        pa = self.q0 + a * Ta * Ta * p_end
        cruise = [(self.t0 + Ta, poly(self.t0 + Ta, pa, sgn * v))] if Tc > 0 else []
        decel = phase(self.t0 + Ta + Tc, pa + sgn * v * Tc, sgn * v, -1.0)
        pieces = phase(self.t0, self.q0, 0.0, 1.0) + cruise + decel + [(self.t1, number(self.value(self.t1)))]
        return piecewise(number(self.q0), pieces)
