"""The expression tree of an ADAMS function expression: numbers, TIME, unary minus, the binary operators, function
calls (each carrying its :class:`~.adams_functions.Function` from the one table) and VARVAL references. A node
evaluates to a :class:`~.jet.Jet` over the sample times, so derivatives are exact (chain rule on the tree).

``side`` in ``eval(t, side)``: +1 or -1 pick the right or left limit in time where a function switches (a STEP
ramp's end, an IF's switch, ABS at its kink); 0 evaluates each function exactly as ADAMS defines it at the switch
itself (IF's middle branch where its condition is exactly 0), for values."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .jet import Jet


def at(text: str, pos: int, msg: str) -> str:
    """``msg`` with the expression ``text`` and a caret under position ``pos``."""
    return f"{msg} in motion law {text!r}\n  {text}\n  {' ' * pos}^ (position {pos})"


class Node:
    def children(self) -> tuple:
        return ()

    def eval(self, t, side) -> Jet:
        raise NotImplementedError

    def constant(self):
        """The node's value if it does not depend on time, else None."""
        kids = self.children()
        if not kids or any(k.constant() is None for k in kids):
            return None
        return float(self.eval(np.zeros(1), 0).v[0])

    def affine(self):
        """(a, b) if the node equals a * time + b for constants a, b, else None."""
        c = self.constant()
        return None if c is None else (0.0, c)

    def walk(self):
        """This node and every node below it (a VARVAL's variable once per reference)."""
        yield self
        for k in self.children():
            yield from k.walk()


@dataclass
class Num(Node):
    v: float

    def eval(self, t, side):
        return Jet.const(self.v, len(t))

    def constant(self):
        return self.v


class Time(Node):
    def eval(self, t, side):
        return Jet(t.copy(), np.ones_like(t), np.zeros_like(t))

    def affine(self):
        return 1.0, 0.0


@dataclass
class Neg(Node):
    a: Node

    def children(self):
        return (self.a,)

    def eval(self, t, side):
        return -self.a.eval(t, side)

    def constant(self):
        c = self.a.constant()
        return None if c is None else -c

    def affine(self):
        ab = self.a.affine()
        return None if ab is None else (-ab[0], -ab[1])


def _divide(node, f, g, t):
    if np.any(g.v == 0):
        k = int(np.argmax(g.v == 0))
        raise InputError(at(node.text, node.pos, f"division by zero at time {t.flat[k]:g} s"))
    return f / g


def _power(node, f, g, t):
    c = node.b.constant()
    if c is not None:  # a constant exponent (the usual case)
        with np.errstate(divide="ignore", invalid="ignore"):
            h = f.v ** c
            d1 = c * f.v ** (c - 1) if c != 0 else np.zeros_like(f.v)
            d2 = c * (c - 1) * f.v ** (c - 2) if c not in (0, 1) else np.zeros_like(f.v)
        return f.map(h, d1, d2)
    if np.any(f.v <= 0):
        raise InputError(at(node.text, node.pos, "a time-varying exponent needs a positive base"))
    lf = f.map(np.log(f.v), 1 / f.v, -1 / f.v ** 2)
    u = g * lf  # f**g = exp(g ln f)
    h = f.v ** g.v
    return Jet(h, h * u.d, h * (u.dd + u.d * u.d))


_BINARY = {"+": lambda node, f, g, t: f + g, "-": lambda node, f, g, t: f - g,
           "*": lambda node, f, g, t: f * g, "/": _divide, "**": _power}


@dataclass
class Bin(Node):
    op: str
    a: Node
    b: Node
    pos: int
    text: str

    def children(self):
        return self.a, self.b

    def eval(self, t, side):
        return _BINARY[self.op](self, self.a.eval(t, side), self.b.eval(t, side), t)

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


@dataclass
class Call(Node):
    """A call of ``fn`` (a :class:`~.adams_functions.Function`) on the argument nodes ``args``; ``data`` holds
    what is not an expression (a SPLINE's curve, a derivative order)."""

    fn: object
    args: list
    pos: int
    text: str
    data: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.fn.name

    def children(self):
        return tuple(self.args)

    def eval(self, t, side):
        return self.fn.evaluate(self, t, side)

    def error(self, msg: str) -> InputError:
        """InputError for ``msg`` pointing at this call in its text."""
        return InputError(at(self.text, self.pos, msg))


@dataclass
class Var(Node):
    """VARVAL(name): the VARIABLE ``name``'s expression ``root`` (parsed from its own text)."""

    name: str
    root: Node
    _last: tuple = field(default=(None, None, None), repr=False, compare=False)

    def children(self):
        return (self.root,)

    def eval(self, t, side):
        # A variable used many times in a law (the closed-form inverse kinematics of a Cartesian line) is
        # evaluated once per sample array: the last (t, side) and its jet are kept (jets are never changed in
        # place; an IF's branches pass new arrays, which miss).
        last = self._last  # one read: another thread's evaluation may replace it meanwhile
        if last[0] is not t or last[1] != side:
            last = (t, side, self.root.eval(t, side))
            self._last = last
        return last[2]

    def constant(self):
        return self.root.constant()

    def affine(self):
        return self.root.affine()
