"""Motion laws: ADAMS expressions (STEP, STEP5, SIN, COS, ...) parsed safely, plus polynomial, minimum-jerk,
B-spline, trapezoidal and tabulated laws; and the analysis time grid.

Every law has ``value(t)``, ``velocity(t)``, ``acceleration(t, side=+1)`` for arrays t [s] (same shape out) and
``breakpoints`` (times where the acceleration may jump). Values are offsets from the home pose [rad or m].
At a breakpoint ``side=+1`` gives the right limit of the acceleration and ``side=-1`` the left limit.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError

# ------------------------------------------------------------------------------------------ expression AST
# A node evaluates to a triple (f, f', f'') of arrays over t, so derivatives are exact (chain rule on the tree).


def _step_poly(D, cubic: bool):
    """STEP blend s(D) and its first two derivatives w.r.t. D for D in [0, 1]."""
    if cubic:
        return D * D * (3 - 2 * D), 6 * D * (1 - D), 6 - 12 * D
    return D ** 3 * (10 - 15 * D + 6 * D * D), 30 * D * D * (1 - D) ** 2, 60 * D * (1 - D) * (1 - 2 * D)


class _Node:
    def eval(self, t, side):
        raise NotImplementedError

    def constant(self):
        """The node's value if it does not depend on time, else None."""
        return None

    def affine(self):
        """(a, b) if the node equals a * time + b for constants a, b, else None."""
        c = self.constant()
        return None if c is None else (0.0, c)

    def step_breaks(self):
        """(start, end) times [s] of the STEP ramps in this subtree."""
        return []


@dataclass
class _Num(_Node):
    v: float

    def eval(self, t, side):
        z = np.zeros_like(t)
        return z + self.v, z, z

    def constant(self):
        return self.v


class _Time(_Node):
    def eval(self, t, side):
        return t.copy(), np.ones_like(t), np.zeros_like(t)

    def affine(self):
        return 1.0, 0.0


@dataclass
class _Un(_Node):
    a: _Node

    def eval(self, t, side):
        f, d, dd = self.a.eval(t, side)
        return -f, -d, -dd

    def constant(self):
        c = self.a.constant()
        return None if c is None else -c

    def affine(self):
        ab = self.a.affine()
        return None if ab is None else (-ab[0], -ab[1])

    def step_breaks(self):
        return self.a.step_breaks()


@dataclass
class _Bin(_Node):
    op: str
    a: _Node
    b: _Node
    pos: int
    text: str

    def eval(self, t, side):
        f, df, ddf = self.a.eval(t, side)
        g, dg, ddg = self.b.eval(t, side)
        if self.op == "+":
            return f + g, df + dg, ddf + ddg
        if self.op == "-":
            return f - g, df - dg, ddf - ddg
        if self.op == "*":
            return f * g, df * g + f * dg, ddf * g + 2 * df * dg + f * ddg
        if self.op == "/":
            if np.any(g == 0):
                k = int(np.argmax(g == 0))
                raise InputError(_at(self.text, self.pos, f"division by zero at time {t.flat[k]:g} s"))
            h = f / g
            dh = (df - h * dg) / g
            ddh = (ddf - 2 * dh * dg - h * ddg) / g
            return h, dh, ddh
        # power: constant exponent (the usual case) or general f**g = exp(g ln f)
        c = self.b.constant()
        if c is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                h = f ** c
                d1 = c * f ** (c - 1) if c != 0 else np.zeros_like(f)
                d2 = c * (c - 1) * f ** (c - 2) if c not in (0, 1) else np.zeros_like(f)
            return h, d1 * df, d2 * df * df + d1 * ddf
        if np.any(f <= 0):
            raise InputError(_at(self.text, self.pos, "a time-varying exponent needs a positive base"))
        lf = np.log(f)
        h = f ** g
        u, du, ddu = g * lf, dg * lf + g * df / f, ddg * lf + 2 * dg * df / f + g * (ddf * f - df * df) / f ** 2
        return h, h * du, h * (ddu + du * du)

    def constant(self):
        a, b = self.a.constant(), self.b.constant()
        if a is None or b is None:
            return None
        return float(self.eval(np.zeros(1), 1)[0][0])

    def affine(self):
        f, g = self.a.affine(), self.b.affine()
        if f is None or g is None:
            return None
        if self.op in "+-":
            sg = 1.0 if self.op == "+" else -1.0
            return f[0] + sg * g[0], f[1] + sg * g[1]
        if self.op == "*" and (f[0] == 0 or g[0] == 0):
            return f[0] * g[1] + g[0] * f[1], f[1] * g[1]
        if self.op == "/" and g[0] == 0 and g[1] != 0:
            return f[0] / g[1], f[1] / g[1]
        if f[0] == 0 and g[0] == 0:  # a constant power
            return 0.0, self.constant()
        return None

    def step_breaks(self):
        return self.a.step_breaks() + self.b.step_breaks()


@dataclass
class _Call(_Node):
    name: str
    args: list
    pos: int
    text: str

    def eval(self, t, side):
        if self.name in ("SIN", "COS"):
            f, d, dd = self.args[0].eval(t, side)
            s, c = np.sin(f), np.cos(f)
            if self.name == "SIN":
                return s, c * d, -s * d * d + c * dd
            return c, -s * d, -c * d * d - s * dd
        x, dx, ddx = self.args[0].eval(t, side)
        x0, h0, x1, h1 = (a.eval(t, side)[0] for a in self.args[1:])
        if np.any(x1 <= x0):
            raise InputError(_at(self.text, self.pos, f"{self.name} needs x1 > x0, got x0 = {np.min(x0):g}, "
                                                     f"x1 = {np.min(x1):g}"))
        w = x1 - x0
        D = np.clip((x - x0) / w, 0.0, 1.0)
        s, ds, dds = _step_poly(D, self.name == "STEP")
        inside = (x > x0) & (x < x1)
        # one-sided limits at the ends: the right limit at x0 and the left limit at x1 belong to the ramp
        if side > 0:
            inside |= (x == x0)
        else:
            inside |= (x == x1)
        ds = np.where(inside, ds, 0.0)
        dds = np.where(inside, dds, 0.0)
        dh = h1 - h0
        val = h0 + dh * s
        d1 = dh * ds / w * dx
        d2 = dh * (dds / w ** 2 * dx * dx + ds / w * ddx)
        return val, d1, d2

    def constant(self):
        if any(a.constant() is None for a in self.args):
            return None
        return float(self.eval(np.zeros(1), 1)[0][0])

    def step_breaks(self):
        out = []
        for a in self.args:
            out += a.step_breaks()
        if self.name not in ("STEP", "STEP5"):
            return out
        x0, x1 = self.args[1].constant(), self.args[3].constant()
        if x0 is None or x1 is None:
            raise InputError(_at(self.text, self.pos, f"{self.name}'s x0 and x1 (2nd and 4th arguments) must be "
                                                     f"constants, not functions of time"))
        ab = self.args[0].affine()
        if ab is None:
            raise InputError(_at(self.text, self.pos, f"{self.name}'s first argument must be affine in time "
                                                     f"(a * time + b, e.g. time, time - 1, 2*time, time/2 + 0.5) "
                                                     f"so that its ramp's start and end times are known; write "
                                                     f"the law as a function of time instead"))
        a, b = ab
        if a != 0:  # x = a t + b reaches x0 and x1 at these times (in reverse order when a < 0)
            out.append(tuple(sorted(((x0 - b) / a, (x1 - b) / a))))
        return out


def _at(text: str, pos: int, msg: str) -> str:
    return f"{msg} in motion law {text!r}\n  {text}\n  {' ' * pos}^ (position {pos})"


FUNCTIONS = {"STEP": 5, "STEP5": 5, "SIN": 1, "COS": 1}
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?P<deg>[dD](?![A-Za-z0-9_]))?"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|[-+*/(),]))")


class _Parser:
    """Recursive descent: expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*;
    unary := '-' unary | '+' unary | power; power := atom ('**' unary)?; atom := number | name | call | (expr)."""

    def __init__(self, text: str):
        self.text = text
        self.toks = []
        i = 0
        while i < len(text):
            if text[i:].strip() == "":
                break
            m = _TOKEN.match(text, i)
            if not m or m.end() == i:
                j = i + (len(text[i:]) - len(text[i:].lstrip()))
                raise InputError(_at(text, j, f"unexpected character {text[j]!r}"))
            start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
            kind = m.lastgroup if m.lastgroup != "deg" else "num"
            if m.group("num") is not None:
                kind = "num"
            self.toks.append((kind, m, start))
            i = m.end()
        self.k = 0

    def peek(self):
        return self.toks[self.k] if self.k < len(self.toks) else (None, None, len(self.text))

    def take(self):
        tok = self.peek()
        self.k += 1
        return tok

    def expect(self, op):
        kind, m, pos = self.take()
        if kind != "op" or m.group("op") != op:
            found = "end of text" if kind is None else repr(m.group(0).strip())
            raise InputError(_at(self.text, pos, f"expected {op!r}, found {found}"))

    def is_op(self, *ops):
        kind, m, _ = self.peek()
        return kind == "op" and m.group("op") in ops

    def parse(self):
        node = self.expr()
        kind, m, pos = self.peek()
        if kind is not None:
            raise InputError(_at(self.text, pos, f"unexpected {m.group(0).strip()!r}"))
        return node

    def expr(self):
        node = self.term()
        while self.is_op("+", "-"):
            _, m, pos = self.take()
            node = _Bin(m.group("op"), node, self.term(), pos, self.text)
        return node

    def term(self):
        node = self.unary()
        while self.is_op("*", "/"):
            _, m, pos = self.take()
            node = _Bin(m.group("op"), node, self.unary(), pos, self.text)
        return node

    def unary(self):
        if self.is_op("-"):
            self.take()
            return _Un(self.unary())
        if self.is_op("+"):
            self.take()
            return self.unary()
        return self.power()

    def power(self):
        node = self.atom()
        if self.is_op("**"):
            _, m, pos = self.take()
            node = _Bin("**", node, self.unary(), pos, self.text)
        return node

    def atom(self):
        kind, m, pos = self.take()
        if kind is None:
            raise InputError(_at(self.text, pos, "unexpected end of text"))
        if kind == "num":
            v = float(m.group("num"))
            return _Num(math.radians(v) if m.group("deg") else v)
        if kind == "op" and m.group("op") == "(":
            node = self.expr()
            self.expect(")")
            return node
        if kind == "name":
            name = m.group("name").upper()
            if name == "TIME":
                return _Time()
            if name == "PI":
                return _Num(math.pi)
            if name in FUNCTIONS:
                self.expect("(")
                args = [self.expr()]
                while self.is_op(","):
                    self.take()
                    args.append(self.expr())
                self.expect(")")
                if len(args) != FUNCTIONS[name]:
                    raise InputError(_at(self.text, pos, f"{name} needs {FUNCTIONS[name]} argument"
                                                          f"{'s' if FUNCTIONS[name] > 1 else ''}, got {len(args)}"))
                return _Call(name, args, pos, self.text)
            raise InputError(_at(self.text, pos, f"unknown name {m.group('name')!r}; valid names: TIME, PI and "
                                                  f"the functions {', '.join(FUNCTIONS)}"))
        raise InputError(_at(self.text, pos, f"unexpected {m.group(0).strip()!r}"))


def _as_array(t):
    t = np.asarray(t, dtype=float)
    if not np.all(np.isfinite(t)):
        raise InputError("time values must be finite numbers (found NaN or inf)")
    return t


class MotionLaw:
    """An ADAMS motion expression, e.g. ``STEP(time,3,0,5,90d) + STEP(time,8,0,10,-90d)``.

    Case-insensitive; ``90d`` is degrees (converted to rad); functions STEP, STEP5, SIN, COS; PI; the variable
    TIME. Parsed into a tree (never eval'ed) with exact first and second derivatives.

    ``breakpoints``: the times [s] where a STEP/STEP5 ramp starts or ends (sorted), ``ramps`` the ramps'
    durations [s]. A STEP's first argument must be affine in time (``time``, ``time - 1``, ``2*time``,
    ``time/2 + 0.5``, ...) and its x0, x1 constants, so those times are known: ``STEP(a*time + b, x0, ...)``
    ramps between the times (x0 - b)/a and (x1 - b)/a. Anything else raises InputError.
    """

    def __init__(self, text: str):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"a motion law must be a non-empty expression string, got {text!r}")
        self.text = text
        self._root = _Parser(text).parse()
        ends = sorted({x for pair in self._root.step_breaks() for x in pair})
        self.breakpoints = tuple(float(x) for x in ends)
        self.ramps = tuple(sorted(float(b - a) for a, b in self._root.step_breaks()))

    def __repr__(self):
        return f"MotionLaw({self.text!r})"

    def _eval(self, t, side=1):
        t = _as_array(t)
        f, d, dd = self._root.eval(np.atleast_1d(t), side)
        for arr, what in ((f, "value"), (d, "velocity"), (dd, "acceleration")):
            if not np.all(np.isfinite(arr)):
                k = int(np.argmax(~np.isfinite(arr)))
                raise InputError(f"motion law {self.text!r} gives a non-finite {what} at time "
                                 f"{np.atleast_1d(t)[k]:g} s")
        return [a.reshape(t.shape) for a in (f, d, dd)]

    def value(self, t):
        """The expression's value at times ``t`` [s] (scalar or array; same shape out): an offset from home
        [rad or m] for a joint law (``d`` suffix = degrees, converted), or whatever unit the law is used in
        (e.g. a force [N])."""
        return self._eval(t)[0]

    def velocity(self, t):
        """Exact first time derivative at ``t`` [s] (same shape as t) [unit/s]."""
        return self._eval(t)[1]

    def acceleration(self, t, side=1):
        """Exact second time derivative at ``t`` [s] (same shape as t) [unit/s^2]; at a STEP breakpoint
        ``side=+1`` gives the right limit, ``side=-1`` the left one."""
        return self._eval(t, side)[2]


# --------------------------------------------------------------------------------------- analytic profiles


@dataclass(frozen=True)
class Constant:
    """A constant offset."""

    q: float = 0.0
    breakpoints: tuple = ()
    ramps: tuple = ()

    def value(self, t):
        """Offset from home [rad or m] at times ``t`` [s] (scalar or array; same shape out)."""
        return np.zeros_like(_as_array(t)) + self.q

    def velocity(self, t):
        """First time derivative [rad/s or m/s] at ``t`` [s] (same shape as t)."""
        return np.zeros_like(_as_array(t))

    def acceleration(self, t, side=1):
        """Second time derivative [rad/s^2 or m/s^2] at ``t`` [s] (same shape as t); ``side=+1`` gives the right
        limit at a breakpoint, ``side=-1`` the left one."""
        return np.zeros_like(_as_array(t))


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
        t = _as_array(t)
        tc = np.clip(t, self.t0, self.t1)
        f, d, dd = self._poly(tc, side)
        # velocity is continuous: the closed interval; acceleration may jump: the chosen one-sided limit
        closed = (t >= self.t0) & (t <= self.t1)
        inside = (t > self.t0) & (t < self.t1) | ((t == self.t0) if side > 0 else (t == self.t1))
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
        if not self.t1 > self.t0:
            raise InputError(f"Quintic needs t1 > t0, got t0 = {self.t0}, t1 = {self.t1}")

    def _poly(self, tc, side=1):
        T = self.t1 - self.t0
        A = np.array([[T ** 3, T ** 4, T ** 5], [3 * T ** 2, 4 * T ** 3, 5 * T ** 4], [6 * T, 12 * T ** 2, 20 * T ** 3]])
        rhs = np.array([self.q1 - self.q0 - self.v0 * T - self.a0 * T ** 2 / 2, self.v1 - self.v0 - self.a0 * T,
                        self.a1 - self.a0])
        c3, c4, c5 = np.linalg.solve(A, rhs)
        s = tc - self.t0
        f = self.q0 + self.v0 * s + self.a0 * s ** 2 / 2 + c3 * s ** 3 + c4 * s ** 4 + c5 * s ** 5
        d = self.v0 + self.a0 * s + 3 * c3 * s ** 2 + 4 * c4 * s ** 3 + 5 * c5 * s ** 4
        dd = self.a0 + 6 * c3 * s + 12 * c4 * s ** 2 + 20 * c5 * s ** 3
        return f, d, dd


def MinimumJerk(t0: float, t1: float, q0: float, q1: float) -> Quintic:
    """Minimum-jerk rest-to-rest motion (Flash & Hogan): the quintic with zero end velocity and acceleration."""
    return Quintic(t0, t1, q0, q1)


@dataclass(frozen=True)
class Trapezoidal(_Piecewise):
    """Rest-to-rest trapezoidal velocity profile from q0 to q1 limited by v_max and a_max (> 0), starting at t0.

    If the distance is too short to reach v_max the profile is triangular."""

    q0: float
    q1: float
    v_max: float
    a_max: float
    t0: float = 0.0

    def __post_init__(self):
        if not (self.v_max > 0 and self.a_max > 0):
            raise InputError(f"Trapezoidal needs v_max > 0 and a_max > 0, got {self.v_max}, {self.a_max}")

    @property
    def _phases(self):
        dist = abs(self.q1 - self.q0)
        v = min(self.v_max, math.sqrt(dist * self.a_max))
        ta = v / self.a_max
        tc = dist / v - ta if v > 0 else 0.0
        return v, ta, tc

    @property
    def t1(self):
        """End time [s] of the profile."""
        v, ta, tc = self._phases
        return self.t0 + 2 * ta + tc

    @property
    def breakpoints(self):
        """Start, end of acceleration, start of deceleration, end [s]."""
        v, ta, tc = self._phases
        return (self.t0, self.t0 + ta, self.t0 + ta + tc, self.t1)

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


@dataclass(frozen=True)
class ModifiedTrapezoidal(_Piecewise):
    """Modified-trapezoid acceleration law (paper 000): acceleration rises and falls along sine quarter-waves
    (each 1/8 of a ramp period) around constant-acceleration segments, so the jerk stays finite. Rest to rest
    from q0 to q1 with peak acceleration a_max and cruise velocity v_max, starting at t0.

    Each acceleration phase of length Ta is [sine rise Ta/4, constant Ta/2, sine fall Ta/4] and gains the
    velocity a_max Ta (1/2 + 1/pi); position and velocity are the exact integrals of that shape."""

    q0: float
    q1: float
    v_max: float
    a_max: float
    t0: float = 0.0

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


@dataclass(frozen=True)
class BSpline:
    """Quintic (or cubic) B-spline through waypoints ``q`` at ``times`` with zero end velocity and acceleration
    (paper 002's palletizing trajectories), held at its end values outside the time span."""

    times: tuple
    waypoints: tuple
    degree: int = 5
    _spl: object = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        from scipy.interpolate import make_interp_spline

        t = np.asarray(self.times, float)
        q = np.asarray(self.waypoints, float)
        if t.ndim != 1 or len(t) != len(q) or len(t) < 2:
            raise InputError(f"BSpline needs as many times as waypoints (>= 2), got {len(t)} and {len(q)}")
        if np.any(np.diff(t) <= 0):
            raise InputError(f"BSpline times must increase strictly, got {list(t)}")
        if self.degree == 5:
            bc = ([(1, 0.0), (2, 0.0)], [(1, 0.0), (2, 0.0)])
        elif self.degree == 3:
            bc = ([(1, 0.0)], [(1, 0.0)])
        else:
            raise InputError(f"BSpline degree must be 3 or 5, got {self.degree}")
        object.__setattr__(self, "_spl", make_interp_spline(t, q, k=self.degree, bc_type=bc))

    @property
    def breakpoints(self):
        """First and last waypoint times [s]."""
        return (float(self.times[0]), float(self.times[-1]))

    @property
    def ramps(self):
        """Shortest interval between waypoints [s]."""
        return (float(np.min(np.diff(self.times))),)

    def _eval(self, t, nu, side=1):
        t = _as_array(t)
        t0, t1 = self.times[0], self.times[-1]
        tc = np.clip(t, t0, t1)
        v = self._spl(tc, nu)
        if nu:
            inside = (t > t0) & (t < t1) | ((t == t0) if side > 0 else (t == t1))
            v = np.where(inside, v, 0.0)
        return v

    def value(self, t):
        """Offset from home [rad or m] at times ``t`` [s] (scalar or array; same shape out)."""
        return self._eval(t, 0)

    def velocity(self, t):
        """First time derivative [rad/s or m/s] at ``t`` [s] (same shape as t)."""
        return self._eval(t, 1)

    def acceleration(self, t, side=1):
        """Second time derivative [rad/s^2 or m/s^2] at ``t`` [s] (same shape as t); ``side=+1`` gives the right
        limit at a breakpoint, ``side=-1`` the left one."""
        return self._eval(t, 2, side)


@dataclass(frozen=True)
class Tabulated:
    """Tabulated joint data (e.g. exported from ADAMS): offsets ``q`` [rad or m] at times ``t`` [s] (equal
    lengths, at least 6 rows, times increasing strictly, all finite), interpolated by a quintic spline so that
    velocity and acceleration are continuous inside the table.

    Outside the table ``[t[0], t[-1]]`` the data say nothing about the motion. With ``outside="error"`` (the
    default) evaluating there raises InputError naming the table's span: extend the table (e.g. with rows at
    rest) or shorten the analysis. With ``outside="hold"`` the joint holds its end value with zero velocity and
    acceleration (as this package's Quintic and BSpline laws do); that is consistent only if the data start
    and end at rest, otherwise the velocity jumps at the table ends (an impulse the rigid-body dynamics does
    not represent). Either way the table ends are ``breakpoints``, so the analysis grid contains them; at an
    end, ``acceleration(t, side)`` gives the one-sided limit (``side=+1`` right, ``-1`` left)."""

    t: tuple
    q: tuple
    source: str = "table"
    outside: str = "error"

    @classmethod
    def from_csv(cls, path, column: str | None = None, time_column: str = "time", units: str = "rad",
                 outside: str = "error"):
        """Read a CSV with a header row. ``column`` names the joint column (default: the only non-time column);
        ``units`` 'rad', 'deg' or 'm'; ``outside`` as for the class. Errors name the file, row, column and
        time."""
        import csv

        if units not in ("rad", "deg", "m"):
            raise InputError(f"units must be 'rad', 'deg' or 'm', got {units!r}")
        try:
            with open(path, newline="") as fh:
                rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
        except OSError as exc:
            raise InputError(f"cannot read motion table {str(path)!r}: {exc.strerror}") from None
        if not rows:
            raise InputError(f"{path}: the motion table is empty; it needs a header row and data rows")
        header = [h.strip() for h in rows[0]]
        lower = [h.lower() for h in header]
        if time_column.lower() not in lower:
            raise InputError(f"{path}: no time column {time_column!r}; columns are {header}")
        it = lower.index(time_column.lower())
        if column is None:
            others = [h for i, h in enumerate(header) if i != it]
            if len(others) != 1:
                raise InputError(f"{path}: several data columns {others}; say which with column=")
            column = others[0]
        if column not in header:
            raise InputError(f"{path}: no column {column!r}; columns are {header}")
        ic = header.index(column)
        t, q = [], []
        for k, r in enumerate(rows[1:], start=2):
            try:
                tv, qv = float(r[it]), float(r[ic])
            except (ValueError, IndexError):
                raise InputError(f"{path}, row {k}: cannot read a number in column {column!r} or "
                                 f"{time_column!r}: {r}") from None
            if not np.isfinite(tv):
                raise InputError(f"{path}, row {k}, column {time_column!r}: the time is NaN or infinite ({r[it]!r})")
            if not np.isfinite(qv):
                raise InputError(f"{path}, row {k}, column {column!r}, time {tv:g} s: value is NaN or infinite "
                                 f"({r[ic]!r})")
            t.append(tv)
            q.append(math.radians(qv) if units == "deg" else qv)
        return cls(tuple(t), tuple(q), source=f"{path}:{column}", outside=outside)

    def __post_init__(self):
        if self.outside not in ("error", "hold"):
            raise InputError(f"{self.source}: outside must be 'error' or 'hold', got {self.outside!r}")
        t, q = _table_column(self.t, self.source, "t"), _table_column(self.q, self.source, "q")
        if len(t) != len(q):
            raise InputError(f"{self.source}: {len(t)} times but {len(q)} values; give one value per time")
        if len(t) < 6:
            raise InputError(f"{self.source}: a table needs at least 6 rows, got {len(t)}")
        bad_t, bad_q = np.flatnonzero(~np.isfinite(t)), np.flatnonzero(~np.isfinite(q))
        if len(bad_t):
            raise InputError(f"{self.source}: the time at index {bad_t[0]} is {t[bad_t[0]]} (NaN or infinite)")
        if len(bad_q):
            k = bad_q[0]
            raise InputError(f"{self.source}: the value at index {k} (time {t[k]:g} s) is {q[k]} (NaN or infinite)")
        bad = np.nonzero(np.diff(t) <= 0)[0]
        if len(bad):
            raise InputError(f"{self.source}: time does not increase at row {bad[0] + 2} "
                             f"({t[bad[0]]:g} -> {t[bad[0] + 1]:g} s)")
        from scipy.interpolate import make_interp_spline

        object.__setattr__(self, "_spl", make_interp_spline(t, q, k=5))

    @property
    def breakpoints(self):
        """The table's first and last times [s]."""
        return (float(self.t[0]), float(self.t[-1]))

    ramps = ()

    def _eval(self, t, nu, side=1):
        t = _as_array(t)
        t0, t1 = self.breakpoints
        if self.outside == "error":
            # round-off of a time grid built from the same end times is not "outside"
            tol = 1e-12 * max(1.0, abs(t0), abs(t1))
            out = (t < t0 - tol) | (t > t1 + tol)
            if np.any(out):
                k = np.flatnonzero(out.ravel())[0]
                raise InputError(f"{self.source}: time {t.ravel()[k]:g} s is outside the table's span "
                                 f"[{t0:g}, {t1:g}] s; extend the table (e.g. with rows at rest), shorten the "
                                 f"analysis, or give outside='hold' to hold the end values")
        v = self._spl(np.clip(t, t0, t1), nu)
        if nu and self.outside == "hold":
            # velocity: the closed span (continuous if the data end at rest); acceleration: one-sided limits
            inside = (t >= t0) & (t <= t1) if nu == 1 else \
                (t > t0) & (t < t1) | ((t == t0) if side > 0 else (t == t1))
            v = np.where(inside, v, 0.0)
        return v

    def value(self, t):
        """Offset from home [rad or m], same shape as t [s]."""
        return self._eval(t, 0)

    def velocity(self, t):
        """d value / dt [rad/s or m/s], same shape as t [s]."""
        return self._eval(t, 1)

    def acceleration(self, t, side=1):
        """d^2 value / dt^2 [rad/s^2 or m/s^2], same shape as t [s]; ``side`` picks the one-sided limit at the
        table ends (only matters with ``outside="hold"``)."""
        return self._eval(t, 2, side)


def _table_column(x, source, what):
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{source}: {what} must be a sequence of numbers") from None
    if a.ndim != 1:
        raise InputError(f"{source}: {what} must be one-dimensional, got shape {a.shape}")
    return a


def as_law(x):
    """A law from a string (ADAMS expression), a number (constant) or a law object."""
    if isinstance(x, str):
        return MotionLaw(x)
    if isinstance(x, (int, float, np.floating, np.integer)):
        return Constant(float(x))
    if not all(hasattr(x, a) for a in ("value", "velocity", "acceleration")):
        raise InputError(f"{x!r} is not a motion law: give an ADAMS expression string, a number or a law object")
    return x


# ---------------------------------------------------------------------------------------------- time grid


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
    """The analysis grid: the uniform output frames on [0, t_end], every breakpoint, ``min_ramp_samples``
    samples across every ramp (fine only where ramps are short), and at most ``max_dt`` between samples
    (default t_end / (4 (n_frames - 1)))."""
    if not t_end > 0:
        raise InputError(f"t_end must be > 0 s, got {t_end}")
    if n_frames < 2:
        raise InputError(f"n_frames must be >= 2, got {n_frames}")
    laws = [as_law(x) for x in laws]
    frames = np.linspace(0.0, t_end, n_frames)
    max_dt = max_dt or t_end / (4 * (n_frames - 1))
    pts = [frames, np.linspace(0, t_end, int(math.ceil(t_end / max_dt)) + 1)]
    bps = sorted({float(b) for law in laws for b in getattr(law, "breakpoints", ()) if 0 <= b <= t_end})
    pts.append(np.array(bps))
    ramps = []
    for law in laws:
        bp = list(getattr(law, "breakpoints", ()))
        for a, b in _ramp_pairs(law):
            if b <= 0 or a >= t_end:
                continue
            ramps.append(b - a)
            dt = (b - a) / min_ramp_samples
            if dt < max_dt:
                pts.append(np.linspace(max(a, 0), min(b, t_end), min_ramp_samples + 1))
        del bp
    t = np.unique(np.concatenate(pts))
    # merge values closer than 1e-12 s (breakpoints equal to frames up to round-off)
    keep = np.r_[True, np.diff(t) > 1e-12]
    t = t[keep]
    frame_index = np.searchsorted(t, frames - 1e-12)
    frame_index = np.minimum(frame_index, len(t) - 1)
    return TimeGrid(t=t, frame_index=frame_index, breakpoints=tuple(bps),
                    shortest_ramp=float(min(ramps)) if ramps else float("inf"))


def _ramp_pairs(law):
    if isinstance(law, MotionLaw):
        return law._root.step_breaks()
    bp = list(getattr(law, "breakpoints", ()))
    return list(zip(bp[:-1], bp[1:]))
