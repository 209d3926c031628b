"""The ADAMS/Solver function library of the motion and force expressions: one table, :data:`FUNCTIONS`, name ->
:class:`Function` (arity, definition, evaluation with exact first and second time derivatives, where it switches).

Definitions (as the ADAMS/Solver function reference gives them; x, a, ... any expressions):

- SIN COS TAN ASIN ACOS ATAN SINH COSH TANH EXP LOG (natural) LOG10 SQRT: the usual functions (LOG, LOG10 of a
  positive argument, SQRT of a non-negative one, ASIN, ACOS in [-1, 1]); ATAN2(a1, a2) the angle of (a2, a1) in
  (-pi, pi] (it jumps by 2 pi where a1 changes sign with a2 < 0: keep a motion off that cut).
- ABS(a); MIN(a1, a2), MAX(a1, a2); DIM(a1, a2) = a1 - a2 if a1 > a2 else 0; SIGN(a1, a2) = |a1| if a2 >= 0
  else -|a1| (FORTRAN's transfer of sign); AINT(a) = int(a), the integer nearest a whose magnitude is not larger
  (truncation toward zero); ANINT(a) = int(a + 0.5) if a > 0 else int(a - 0.5) (nearest integer, halves away
  from zero); MOD(a1, a2) = a1 - int(a1 / a2) * a2 (the sign of a1).
- STEP(x, x0, h0, x1, h1) = h0 for x <= x0, h1 for x >= x1, else h0 + (h1 - h0) D^2 (3 - 2 D) with
  D = (x - x0) / (x1 - x0); STEP5 the same with D^3 (10 - 15 D + 6 D^2); HAVSIN the same with
  (1 - cos(pi D)) / 2, i.e. (h0 + h1)/2 + (h1 - h0)/2 sin(pi D - pi/2).
- SHF(x, x0, a, w, phi, b) = a sin(w (x - x0) - phi) + b.
- POLY(x, x0, a0, ..., an) = sum_j a_j (x - x0)^j; CHEBY(x, x0, a0, ..., an) = sum_j a_j T_j(x - x0) with
  T_0 = 1, T_1(u) = u, T_j = 2 u T_{j-1} - T_{j-2}; FORCOS(x, x0, w, a0, ..., an) = a0 + sum_{j>=1} a_j
  cos(j w (x - x0)); FORSIN likewise with sin (up to 31 coefficients a0..a30).
- IF(c: e1, e2, e3) = e1 if c < 0, e2 if c = 0, e3 if c > 0 (each branch evaluated only where it is taken).
- CUBSPL(x, z, id [, iord]), AKISPL(x, z, id [, iord]): the iord-th (0, 1 or 2) x-derivative of the cubic or
  Akima interpolation of SPLINE id at x (see :mod:`.splines`); z, the second variable of a surface, is ignored
  for a spline of one curve, as ADAMS does.

Where a function switches (a ramp's ends, an IF's condition crossing 0, ABS's kink, a spline's knots) its
``switches`` say at which levels of which argument and how smooth it stays there: ``continuity`` -1 the value
may jump, 0 the velocity may jump, 1 the acceleration may jump, 2 smoother. At a switch, ``side`` +1/-1 evaluates
the right/left limit in time; 0 the value exactly as defined (IF's middle branch at c = 0).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .jet import Jet, assemble
from .nodes import Bin, Call, Node
from .span import in_span

_INF = math.inf


@dataclass(frozen=True)
class Switch:
    """Where a call switches: its argument ``node`` crosses ``levels`` (a tuple of values, or "integer" for
    every nonzero integer, "half" for every half-integer); ``continuity`` as in the module docstring."""

    call: Call
    node: Node
    continuity: int
    levels: tuple | str = (0.0,)


@dataclass(frozen=True)
class Function:
    """One ADAMS function: ``n_args`` (min, max) argument count, ``signature`` and ``definition`` for messages and
    docs, ``evaluate(call, t, side) -> Jet``, ``switches(call) -> [Switch]``, ``spans(call) -> [(t0, t1)]`` the
    ramps' start and end times [s] (InputError where they cannot be known)."""

    name: str
    n_args: tuple
    signature: str
    evaluate: Callable
    switches: Callable = field(default=lambda call: [])
    spans: Callable = field(default=lambda call: [])


# --------------------------------------------------------------------------------------- signs at switches

def _taylor_sign(u: Jet, side):
    """Sign of u(t + side eps) - u(t) for small eps > 0: side u', or u'' where u' = 0."""
    s = side * np.sign(u.d)
    return np.where(s != 0, s, abs(side) * np.sign(u.dd))


def side_sign(node: Node, u: Jet, t, side) -> np.ndarray:
    """The sign (n,) of the switching argument ``node`` (its jet ``u``) on the ``side`` of each time; exactly 0
    only where it is 0 and side = 0. An argument affine in time a t + b switches at exactly t* = -b/a (the very
    time the grid holds), whatever the round-off in its value."""
    c = node.constant()
    if c is not None:
        return np.full(len(t), float(np.sign(c)))
    ab = node.affine()
    if ab is not None and ab[0] != 0:
        ts = -ab[1] / ab[0]
        return np.where(t == ts, side * np.sign(ab[0]), np.sign(ab[0]) * np.sign(t - ts))
    s = np.sign(u.v)
    return np.where(s == 0, _taylor_sign(u, side), s)


def _choose(mask, a: Jet, b: Jet) -> Jet:
    return Jet(np.where(mask, a.v, b.v), np.where(mask, a.d, b.d), np.where(mask, a.dd, b.dd))


def _args(call, t, side):
    return [a.eval(t, side) for a in call.args]


# ------------------------------------------------------------------------------------------ smooth functions

def _unary(g, g1, g2, domain=None):
    """f(a) for g = f, g1 = f', g2 = f'' (callables of the argument's value); ``domain`` (test, text)."""
    def evaluate(call, t, side):
        u = call.args[0].eval(t, side)
        if domain is not None and not np.all(domain[0](u.v)):
            k = int(np.argmax(~domain[0](u.v)))
            raise call.error(f"{call.name}'s argument must be {domain[1]}; it is {u.v[k]:g} at time {t[k]:g} s")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return u.map(g(u.v), g1(u.v), g2(u.v))
    return evaluate


_UNIT = (lambda u: np.abs(u) <= 1, "in [-1, 1]")
_POSITIVE = (lambda u: u > 0, "positive")
_LN10 = math.log(10.0)


def _atan2(call, t, side):
    y, x = _args(call, t, side)
    r2 = y.v * y.v + x.v * x.v
    if np.any(r2 == 0):
        raise call.error(f"ATAN2(0, 0) is undefined (at time {t[int(np.argmax(r2 == 0))]:g} s)")
    q = (x.v * y.d - y.v * x.d) / r2  # d/dt atan2(y, x)
    dq = (x.v * y.dd - y.v * x.dd) / r2 - q * 2 * (y.v * y.d + x.v * x.d) / r2
    return Jet(np.arctan2(y.v, x.v), q, dq)


# ---------------------------------------------------------------------------------- kinks and switches

def _abs(call, t, side):
    u = call.args[0].eval(t, side)
    return u.scaled(side_sign(call.args[0], u, t, side))


def _difference(call, t, side):
    """a1, a2 and the sign of a1 - a2 on ``side``."""
    a, b = _args(call, t, side)
    return a, b, side_sign(Bin("-", call.args[0], call.args[1], call.pos, call.text), a - b, t, side)


def _min(call, t, side):
    a, b, s = _difference(call, t, side)
    return _choose(s <= 0, a, b)


def _max(call, t, side):
    a, b, s = _difference(call, t, side)
    return _choose(s >= 0, a, b)


def _dim(call, t, side):
    a, b, s = _difference(call, t, side)
    return (a - b).scaled(s > 0)


def _sign(call, t, side):
    a, b = _args(call, t, side)
    sb = np.where(side_sign(call.args[1], b, t, side) < 0, -1.0, 1.0)  # + where a2 >= 0
    return a.scaled(side_sign(call.args[0], a, t, side) * sb)


def _aint(call, t, side):
    return Jet.const(np.trunc(call.args[0].eval(t, side).v), len(t))


def _anint(call, t, side):
    a = call.args[0].eval(t, side).v
    return Jet.const(np.trunc(a + 0.5 * np.sign(a)), len(t))


def _mod(call, t, side):
    a, b = _args(call, t, side)
    if np.any(b.v == 0):
        raise call.error(f"MOD's divisor is 0 at time {t[int(np.argmax(b.v == 0))]:g} s")
    return a - b.scaled(np.trunc(a.v / b.v))  # the integer part is constant between its jumps


def _if(call, t, side):
    c = call.args[0].eval(t, side)
    s = side_sign(call.args[0], c, t, side)
    pieces = [(s < 0, call.args[1]), (s == 0, call.args[2]), (s > 0, call.args[3])]
    return assemble(len(t), [(m, node.eval(t[m], side)) for m, node in pieces if m.any()])


def _zero_switch(continuity, *which):
    return lambda call: [Switch(call, call.args[i], continuity) for i in which]


def _difference_switch(call):
    return [Switch(call, Bin("-", call.args[0], call.args[1], call.pos, call.text), 0)]


# ------------------------------------------------------------------------------------------------- ramps

def _cubic(D):
    return D * D * (3 - 2 * D), 6 * D * (1 - D), 6 - 12 * D


def _quintic(D):
    return D ** 3 * (10 - 15 * D + 6 * D * D), 30 * D * D * (1 - D) ** 2, 60 * D * (1 - D) * (1 - 2 * D)


def _haversine(D):
    return (1 - np.cos(np.pi * D)) / 2, np.pi / 2 * np.sin(np.pi * D), np.pi ** 2 / 2 * np.cos(np.pi * D)


def ramp_times(call) -> tuple:
    """(start, end) times [s] of a ramp call's ramp (x = a time + b reaches x0 and x1); (inf, -inf) for a = 0."""
    a, b = call.args[0].affine()
    c0, c1 = call.args[1].constant(), call.args[3].constant()
    return tuple(sorted(((c0 - b) / a, (c1 - b) / a))) if a != 0 else (_INF, -_INF)


def _ramp(blend):
    def evaluate(call, t, side):
        x, x0, h0, x1, h1 = _args(call, t, side)
        if np.any(x1.v <= x0.v):
            raise call.error(f"{call.name} needs x1 > x0, got x0 = {np.min(x0.v):g}, x1 = {np.min(x1.v):g}")
        w = x1.v - x0.v
        s, ds, dds = blend(np.clip((x.v - x0.v) / w, 0.0, 1.0))
        # One-sided limits at the ends are taken in time, not in x: the ramp's own (right) limit at its start
        # and (left) limit at its end, on the span spans() reports (and the grid samples), so an exact grid
        # time picks the right side whatever the round-off in a*time + b, and a < 0 does not swap the sides.
        inside = in_span(t, *ramp_times(call), side or None)
        return h0 + (h1 - h0) * x.map(s, np.where(inside, ds, 0.0) / w, np.where(inside, dds, 0.0) / w ** 2)
    return evaluate


def _ramp_spans(call):
    if call.args[1].constant() is None or call.args[3].constant() is None:
        raise call.error(f"{call.name}'s x0 and x1 (2nd and 4th arguments) must be constants, not functions of "
                         f"time")
    if call.args[0].affine() is None:
        raise call.error(f"{call.name}'s first argument must be affine in time (a * time + b, e.g. time, "
                         f"time - 1, 2*time, time/2 + 0.5) so that its ramp's start and end times are known; "
                         f"write the law as a function of time instead")
    t0, t1 = ramp_times(call)
    return [(t0, t1)] if t0 <= t1 else []


def _ramp_switches(continuity):
    return lambda call: [Switch(call, call.args[0], continuity, (call.args[1].constant(),
                                                                 call.args[3].constant()))]


# ------------------------------------------------------------------------------------------------ series

def _shf(call, t, side):
    x, x0, a, w, phi, b = _args(call, t, side)
    u = w * (x - x0) - phi
    return a * u.map(np.sin(u.v), np.cos(u.v), -np.sin(u.v)) + b


def _poly(call, t, side):
    x, x0, *coef = _args(call, t, side)
    u, p = x - x0, coef[-1]
    for a in reversed(coef[:-1]):  # Horner
        p = p * u + a
    return p


def _cheby(call, t, side):
    x, x0, *coef = _args(call, t, side)
    u = x - x0
    prev, cur = Jet.const(1.0, len(t)), u
    total = coef[0] * prev
    for a in coef[1:]:
        total = total + a * cur
        prev, cur = cur, 2.0 * u * cur - prev
    return total


def _fourier(trig):
    def evaluate(call, t, side):
        x, x0, w, a0, *coef = _args(call, t, side)
        theta = w * (x - x0)
        total = a0
        for j, a in enumerate(coef, start=1):
            total = total + a * trig(theta * float(j))
        return total
    return evaluate


def _cos(u):
    return u.map(np.cos(u.v), -np.sin(u.v), -np.cos(u.v))


def _sin(u):
    return u.map(np.sin(u.v), np.cos(u.v), -np.sin(u.v))


# ----------------------------------------------------------------------------------------------- splines

def _spline(method):
    def evaluate(call, t, side):
        x = call.args[0].eval(t, side)
        pw, k = call.data["piecewise"], call.data["iord"]
        piece = pw.pieces(x.v, _taylor_sign(x, side))  # at a knot: the piece the time side moves into
        return x.map(*(pw.derivative(x.v, k + j, piece) for j in range(3)))
    return evaluate


def _spline_switches(method):
    def switches(call):
        knots, k = call.data["spline"].x, call.data["iord"]
        inner = (2 if method == "cubic" else 1) - k
        # the extrapolation (a parabola or a line) meets the spline with its value only
        return [Switch(call, call.args[0], -k, (knots[0], knots[-1])), Switch(call, call.args[0], inner, knots)]
    return switches


def _spline_function(name, method):
    return Function(name, (3, 4), f"{name}(x, z, spline [, iord])", _spline(method), _spline_switches(method))


# ---------------------------------------------------------------------------------------------- the table

def _smooth(name, g, g1, g2, domain=None):
    return Function(name, (1, 1), f"{name}(a)", _unary(g, g1, g2, domain))


def _ramp_function(name, blend, continuity):
    return Function(name, (5, 5), f"{name}(x, x0, h0, x1, h1)", _ramp(blend), _ramp_switches(continuity),
                    _ramp_spans)


_TABLE = [
    _smooth("SIN", np.sin, np.cos, lambda u: -np.sin(u)),
    _smooth("COS", np.cos, lambda u: -np.sin(u), lambda u: -np.cos(u)),
    _smooth("TAN", np.tan, lambda u: 1 / np.cos(u) ** 2, lambda u: 2 * np.tan(u) / np.cos(u) ** 2),
    _smooth("ASIN", np.arcsin, lambda u: 1 / np.sqrt(1 - u * u), lambda u: u / (1 - u * u) ** 1.5, _UNIT),
    _smooth("ACOS", np.arccos, lambda u: -1 / np.sqrt(1 - u * u), lambda u: -u / (1 - u * u) ** 1.5, _UNIT),
    _smooth("ATAN", np.arctan, lambda u: 1 / (1 + u * u), lambda u: -2 * u / (1 + u * u) ** 2),
    Function("ATAN2", (2, 2), "ATAN2(a1, a2)", _atan2),
    _smooth("SINH", np.sinh, np.cosh, np.sinh),
    _smooth("COSH", np.cosh, np.sinh, np.cosh),
    _smooth("TANH", np.tanh, lambda u: 1 - np.tanh(u) ** 2, lambda u: -2 * np.tanh(u) * (1 - np.tanh(u) ** 2)),
    _smooth("EXP", np.exp, np.exp, np.exp),
    _smooth("LOG", np.log, lambda u: 1 / u, lambda u: -1 / u ** 2, _POSITIVE),
    _smooth("LOG10", np.log10, lambda u: 1 / (u * _LN10), lambda u: -1 / (u * u * _LN10), _POSITIVE),
    _smooth("SQRT", np.sqrt, lambda u: 0.5 / np.sqrt(u), lambda u: -0.25 / u ** 1.5,
            (lambda u: u >= 0, "non-negative")),
    Function("ABS", (1, 1), "ABS(a)", _abs, _zero_switch(0, 0)),
    Function("MIN", (2, 2), "MIN(a1, a2)", _min, _difference_switch),
    Function("MAX", (2, 2), "MAX(a1, a2)", _max, _difference_switch),
    Function("DIM", (2, 2), "DIM(a1, a2)", _dim, _difference_switch),
    Function("SIGN", (2, 2), "SIGN(a1, a2)", _sign,
             lambda call: _zero_switch(0, 0)(call) + _zero_switch(-1, 1)(call)),
    Function("AINT", (1, 1), "AINT(a)", _aint, lambda call: [Switch(call, call.args[0], -1, "integer")]),
    Function("ANINT", (1, 1), "ANINT(a)", _anint, lambda call: [Switch(call, call.args[0], -1, "half")]),
    Function("MOD", (2, 2), "MOD(a1, a2)", _mod,
             lambda call: [Switch(call, Bin("/", *call.args, call.pos, call.text), -1, "integer")]),
    Function("IF", (4, 4), "IF(c: e1, e2, e3)", _if, _zero_switch(-1, 0)),
    _ramp_function("STEP", _cubic, 1),
    _ramp_function("STEP5", _quintic, 2),
    _ramp_function("HAVSIN", _haversine, 1),
    Function("SHF", (6, 6), "SHF(x, x0, a, w, phi, b)", _shf),
    Function("POLY", (3, 33), "POLY(x, x0, a0, ..., a30)", _poly),
    Function("CHEBY", (3, 33), "CHEBY(x, x0, a0, ..., a30)", _cheby),
    Function("FORCOS", (4, 34), "FORCOS(x, x0, w, a0, ..., a30)", _fourier(_cos)),
    Function("FORSIN", (4, 34), "FORSIN(x, x0, w, a0, ..., a30)", _fourier(_sin)),
    _spline_function("CUBSPL", "cubic"),
    _spline_function("AKISPL", "akima"),
]
FUNCTIONS: dict[str, Function] = {f.name: f for f in _TABLE}
SPLINE_METHODS = {"CUBSPL": "cubic", "AKISPL": "akima"}  # the interpolation of each spline function
CONSTANTS = {"PI": math.pi, "DTOR": math.pi / 180, "RTOD": 180 / math.pi}


def _integer_levels(lo, hi):
    k = np.arange(math.ceil(lo), math.floor(hi) + 1, dtype=float)
    return k[k != 0]


def _half_levels(lo, hi):
    return np.arange(math.ceil(lo - 0.5), math.floor(hi - 0.5) + 1, dtype=float) + 0.5


_LATTICES = {"integer": _integer_levels, "half": _half_levels}
MAX_SWITCHES = 100_000


def switch_times(sw: Switch, lo=-_INF, hi=_INF):
    """The times [s] in [lo, hi] where ``sw``'s argument crosses its levels (sorted array); None where the
    argument is not affine in time (they are unknown), empty where it is constant."""
    ab = sw.node.affine()
    if ab is None:
        return None
    a, b = ab
    if a == 0:
        return np.zeros(0)
    if isinstance(sw.levels, str):  # a lattice: only over a finite span
        xs = sorted((a * lo + b, a * hi + b))
        if (xs[1] - xs[0]) > MAX_SWITCHES:
            raise sw.call.error(f"{sw.call.name} switches more than {MAX_SWITCHES} times over [{lo:g}, {hi:g}] s")
        levels = _LATTICES[sw.levels](*xs)
    else:
        levels = np.array(sw.levels, dtype=float)
    ts = np.sort((levels - b) / a)
    return ts[(ts >= lo) & (ts <= hi)]
