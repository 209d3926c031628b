"""ADAMS motion expressions (``STEP(time,3,0,5,90d) + SIN(2*PI*time)``, ...) parsed safely into a tree whose
nodes give exact first and second time derivatives: :class:`MotionLaw`."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .span import as_times, in_span

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
        # One-sided limits at the ends are taken in time, not in x: the ramp's own (right) limit at its start and
        # (left) limit at its end. The span in time is the one step_breaks reports (and time_grid samples), so an
        # exact grid time picks the right side whatever the round-off in a*time + b, and a < 0 (x falling in
        # time) does not swap the sides.
        a, b = self.args[0].affine()
        c0, c1 = self.args[1].constant(), self.args[3].constant()
        t0, t1 = sorted(((c0 - b) / a, (c1 - b) / a)) if a != 0 else (np.inf, -np.inf)
        inside = in_span(t, t0, t1, side)
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
        return self.left_assoc(("+", "-"), self.term)

    def term(self):
        return self.left_assoc(("*", "/"), self.unary)

    def left_assoc(self, ops, operand):
        """operand (op operand)* for the binary operators ``ops``, grouped from the left."""
        node = operand()
        while self.is_op(*ops):
            _, m, pos = self.take()
            node = _Bin(m.group("op"), node, operand(), pos, self.text)
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
            if not math.isfinite(v):
                raise InputError(_at(self.text, pos, f"the number {m.group('num')} is too large for a float; give "
                                                      f"a finite number"))
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
            if name in ("NAN", "INF", "INFINITY"):
                raise InputError(_at(self.text, pos, f"{m.group('name')} is not a finite number; give a finite "
                                                      f"number or an expression of TIME"))
            raise InputError(_at(self.text, pos, f"unknown name {m.group('name')!r}; valid names: TIME, PI and "
                                                  f"the functions {', '.join(FUNCTIONS)}"))
        raise InputError(_at(self.text, pos, f"unexpected {m.group(0).strip()!r}"))


def _too_deep(text: str) -> str:
    short = text if len(text) <= 60 else text[:57] + "..."
    return (f"motion law {short!r} is nested too deeply to evaluate (parentheses, function calls, signs or powers "
            f"thousands deep); write it with fewer levels")


class MotionLaw:
    """An ADAMS motion expression, e.g. ``STEP(time,3,0,5,90d) + STEP(time,8,0,10,-90d)``.

    Case-insensitive; ``90d`` is degrees (converted to rad); functions STEP, STEP5, SIN, COS; PI; the variable
    TIME. Parsed into a tree (never eval'ed) with exact first and second derivatives.

    ``breakpoints``: the times [s] where a STEP/STEP5 ramp starts or ends (sorted); ``ramps``: the ramps'
    durations [s] (sorted); ``ramp_spans``: each ramp's (start, end) times [s], in the order of the text. A
    STEP's first argument must be affine in time (``time``, ``time - 1``, ``2*time``, ``time/2 + 0.5``, ...) and
    its x0, x1 constants, so those times are known: ``STEP(a*time + b, x0, ...)`` ramps between the times
    (x0 - b)/a and (x1 - b)/a. Anything else raises InputError.
    """

    def __init__(self, text: str):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"a motion law must be a non-empty expression string, got {text!r}")
        self.text = text
        try:
            self._root = _Parser(text).parse()
            self.ramp_spans = tuple(self._root.step_breaks())
        except RecursionError:
            raise InputError(_too_deep(text)) from None
        ends = sorted({x for pair in self.ramp_spans for x in pair})
        self.breakpoints = tuple(float(x) for x in ends)
        self.ramps = tuple(sorted(float(b - a) for a, b in self.ramp_spans))

    def __repr__(self):
        return f"MotionLaw({self.text!r})"

    def _eval(self, t, side=1):
        """Value, velocity and acceleration at ``t`` [s], each of t's shape."""
        t = as_times(t)
        try:
            f, d, dd = self._root.eval(np.atleast_1d(t), side)
        except RecursionError:
            raise InputError(_too_deep(self.text)) from None
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

