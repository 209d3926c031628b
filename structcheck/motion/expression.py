"""ADAMS function expressions (``STEP(time,3,0,5,90d) + SIN(2*PI*time)``, ``IF(time-2: 0, 0, 98)``,
``AKISPL(time, 0, SPLINE_1)``, ...) parsed safely (no eval) into a tree whose nodes give exact first and second
time derivatives: :class:`MotionLaw`. The functions are in :mod:`.adams_functions`, the splines in
:mod:`.splines`, the tree in :mod:`.nodes`."""
from __future__ import annotations

import math
import re

import numpy as np

from ..errors import InputError
from .adams_functions import CONSTANTS, FUNCTIONS, SPLINE_METHODS, switch_times
from .nodes import Bin, Call, Neg, Num, Time, Var, at
from .span import as_times
from .splines import as_spline, piecewise

_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?P<deg>[dD](?![A-Za-z0-9_]))?"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>\*\*|[-+*/(),:]))")
KNOWN_NAMES = ("TIME", *CONSTANTS, "VARVAL", *sorted(FUNCTIONS))


def _key(k) -> str:
    """The lookup key of a spline or variable name or id: ids as integers' text, names upper case."""
    if isinstance(k, (int, np.integer)) or (isinstance(k, float) and k == int(k)):
        return str(int(k))
    return str(k).strip().upper()


class _Context:
    """The caller's SPLINEs and VARIABLEs (name or id -> (x, y) or Spline; -> expression text) and the
    variables parsed so far, shared by the parsers of a law and of its variables."""

    def __init__(self, splines, variables):
        self.splines = {_key(k): (k, v) for k, v in dict(splines or {}).items()}
        self.variables = {_key(k): (k, v) for k, v in dict(variables or {}).items()}
        self.parsed = {}
        self.stack = []

    def variable(self, key: str, text: str, pos: int):
        if key in self.parsed:
            return self.parsed[key]
        if key not in self.variables:
            raise InputError(at(text, pos, f"no VARIABLE {key!r}; the variables given are "
                                           f"{[k for k, _ in self.variables.values()]}"))
        if key in self.stack:
            chain = " -> ".join(self.stack[self.stack.index(key):] + [key])
            raise InputError(at(text, pos, f"VARIABLEs refer to each other in a cycle ({chain}); a VARVAL chain "
                                           f"must end in expressions of TIME"))
        name, body = self.variables[key]
        if not isinstance(body, str) or not body.strip():
            raise InputError(f"VARIABLE {name!r} must be a non-empty expression string, got {body!r}")
        self.stack.append(key)
        node = Var(key, _Parser(body, self).parse())
        self.stack.pop()
        self.parsed[key] = node
        return node


class _Parser:
    """Recursive descent, with ADAMS's precedence: expr := term (('+'|'-') term)*; term := unary (('*'|'/')
    unary)*; unary := '-' unary | '+' unary | power; power := atom ('**' unary)?; atom := number | name | call |
    (expr). So ``**`` binds tighter than a sign on its left and looser than one on its right (-A**-B =
    -(A**(-B))) and groups from the right (A**B**C = A**(B**C)); IF(c: e1, e2, e3) takes a colon."""

    def __init__(self, text: str, ctx: _Context):
        self.text, self.ctx = text, ctx
        self.toks = []
        i = 0
        while i < len(text):
            if text[i:].strip() == "":
                break
            m = _TOKEN.match(text, i)
            if not m or m.end() == i:
                j = i + (len(text[i:]) - len(text[i:].lstrip()))
                raise InputError(at(text, j, f"unexpected character {text[j]!r}"))
            start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
            kind = "num" if m.group("num") is not None else m.lastgroup
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
            raise InputError(at(self.text, pos, f"expected {op!r}, found {found}"))

    def is_op(self, *ops):
        kind, m, _ = self.peek()
        return kind == "op" and m.group("op") in ops

    def parse(self):
        node = self.expr()
        kind, m, pos = self.peek()
        if kind is not None:
            raise InputError(at(self.text, pos, f"unexpected {m.group(0).strip()!r}"))
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
            node = Bin(m.group("op"), node, operand(), pos, self.text)
        return node

    def unary(self):
        if self.is_op("-"):
            self.take()
            return Neg(self.unary())
        if self.is_op("+"):
            self.take()
            return self.unary()
        return self.power()

    def power(self):
        node = self.atom()
        if self.is_op("**"):
            _, m, pos = self.take()
            node = Bin("**", node, self.unary(), pos, self.text)
        return node

    def atom(self):
        kind, m, pos = self.take()
        if kind is None:
            raise InputError(at(self.text, pos, "unexpected end of text"))
        if kind == "num":
            v = float(m.group("num"))
            if not math.isfinite(v):
                raise InputError(at(self.text, pos, f"the number {m.group('num')} is too large for a float; give "
                                                     f"a finite number"))
            return Num(math.radians(v) if m.group("deg") else v)
        if kind == "op" and m.group("op") == "(":
            node = self.expr()
            self.expect(")")
            return node
        if kind == "name":
            return self.named(m.group("name"), pos)
        raise InputError(at(self.text, pos, f"unexpected {m.group(0).strip()!r}"))

    def named(self, raw: str, pos: int):
        name = raw.upper()
        if name == "TIME":
            return Time()
        if name in CONSTANTS:
            return Num(CONSTANTS[name])
        if name == "VARVAL":
            self.expect("(")
            key = self.reference("VARVAL's argument (a VARIABLE's name or id)")
            self.expect(")")
            return self.ctx.variable(key, self.text, pos)
        if name in FUNCTIONS:
            return self.call(name, pos)
        if name in ("NAN", "INF", "INFINITY"):
            raise InputError(at(self.text, pos, f"{raw} is not a finite number; give a finite number or an "
                                                 f"expression of TIME"))
        raise InputError(at(self.text, pos, f"unknown name {raw!r}; valid names: {', '.join(KNOWN_NAMES)} "
                                             f"(laws are functions of TIME: ADAMS measures of the model's state "
                                             f"such as DX or VZ are not available)"))

    def reference(self, what: str) -> str:
        """A spline's or variable's name or integer id at this point of the text, as a lookup key."""
        kind, m, pos = self.take()
        if kind == "name" or (kind == "num" and not m.group("deg") and float(m.group("num")).is_integer()):
            return _key(m.group("name") if kind == "name" else float(m.group("num")))
        found = "end of text" if kind is None else repr(m.group(0).strip())
        raise InputError(at(self.text, pos, f"{what} must be a name or an integer id, found {found}"))

    def arguments(self, name: str) -> tuple[list, dict]:
        """The argument expressions of ``name`` (after its '('); for a spline function also its curve."""
        args, data = [self.expr()], {}
        if name == "IF":
            self.expect(":")
            args.append(self.expr())
        while self.is_op(","):
            self.take()
            if name in SPLINE_METHODS and len(args) == 2 and not data:
                data = self.spline(name)  # the SPLINE and an optional iord
            else:
                args.append(self.expr())
        return args, data

    def spline(self, name: str) -> dict:
        pos = self.peek()[2]
        key = self.reference(f"{name}'s third argument (a SPLINE's name or id)")
        ref_span = (pos, self.toks[self.k - 1][1].end())  # where the reference is written (export renames it)
        if key not in self.ctx.splines:
            raise InputError(at(self.text, pos, f"no SPLINE {key!r}; the splines given are "
                                                 f"{[k for k, _ in self.ctx.splines.values()]}"))
        given, data = self.ctx.splines[key]
        spline = as_spline(data, str(given))
        iord, given_iord = 0, self.is_op(",")
        if given_iord:
            _, _, ipos = self.take()
            c = self.expr().constant()
            if c not in (0, 1, 2):
                raise InputError(at(self.text, ipos, f"{name}'s iord (4th argument) must be 0, 1 or 2"))
            iord = int(c)
        return {"spline": spline, "iord": iord, "piecewise": piecewise(spline, SPLINE_METHODS[name]),
                "n_taken": 1 + given_iord, "ref_span": ref_span}

    def call(self, name: str, pos: int):
        self.expect("(")
        args, data = self.arguments(name)
        self.expect(")")
        fn = FUNCTIONS[name]
        n = len(args) + data.get("n_taken", 0)
        lo, hi = fn.n_args
        if not lo <= n <= hi:
            need = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise InputError(at(self.text, pos, f"{name} needs {need} argument{'s' if hi > 1 else ''}, got {n} "
                                                 f"({fn.signature})"))
        return Call(fn, args, pos, self.text, data)


def _too_deep(text: str) -> str:
    short = text if len(text) <= 60 else text[:57] + "..."
    return (f"motion law {short!r} is nested too deeply to evaluate (parentheses, function calls, signs or powers "
            f"thousands deep); write it with fewer levels")


class MotionLaw:
    """An ADAMS function expression of TIME, e.g. ``STEP(time,3,0,5,90d) + STEP(time,8,0,10,-90d)``: a motion or
    force law.

    Case-insensitive; ``90d`` is degrees (converted to rad); TIME, PI, DTOR, RTOD; ``+ - * / **`` with ADAMS's
    precedence; the functions of :mod:`.adams_functions` (ABS ... TANH, STEP, STEP5, HAVSIN, SHF, POLY, CHEBY,
    FORCOS, FORSIN, IF, CUBSPL, AKISPL) and VARVAL. Parsed into a tree (never eval'ed) with exact first and
    second derivatives.

    ``splines``: name or id -> (x, y) or :class:`~.splines.Spline`, the SPLINEs that ``CUBSPL(time, 0, id)`` and
    ``AKISPL`` name (ADAMS passes ids: ``AKISPL(time, 0, 3)`` looks up 3, ``AKISPL(time, 0, SPLINE_1)`` the name
    SPLINE_1, case-insensitive). ``variables``: name or id -> expression text, the VARIABLEs of
    ``VARVAL(id)`` (they may use each other, not in a cycle).

    ``breakpoints``: the times [s] where the law switches and its acceleration may jump (sorted): ramp ends
    (STEP, STEP5, HAVSIN), IF switches, ABS/MIN/MAX/DIM/SIGN kinks, spline knots -- wherever the switching
    argument is affine in time (a * time + b), so the time is known; ``ramps``: the ramps' durations [s]
    (sorted); ``ramp_spans``: each ramp's (start, end) times [s], in the order of the text, then (t, t) for each
    jump of the value at a known time (a load switched on by IF: a ramp of zero duration). A STEP's (STEP5's,
    HAVSIN's) first argument must be affine in time and its x0, x1 constants: ``STEP(a*time + b, x0, ...)`` ramps
    between the times (x0 - b)/a and (x1 - b)/a. Anything else raises InputError.

    As a motion (``velocity`` and ``acceleration`` asked) the law must be continuous: where it would jump (an IF
    whose branches do not meet, SIGN, AINT, ANINT, MOD) InputError names the time and the jump; and for
    ``acceleration`` its velocity must be continuous too (a kink of ABS, MIN, MAX, DIM, a spline's end where the
    velocity jumps is refused; one where it does not gives one-sided accelerations). Those switches' arguments
    must then be affine in time, so the switch times are known. A force law (``value`` only) may jump.
    """

    def __init__(self, text: str, splines=None, variables=None):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"a motion law must be a non-empty expression string, got {text!r}")
        self.text = text
        try:
            self._root = _Parser(text, _Context(splines, variables)).parse()
            calls = list({id(n): n for n in self._root.walk() if isinstance(n, Call)}.values())  # VARVALs: once
            self.ramp_spans = tuple(span for c in calls for span in c.fn.spans(c))
            self._switches = tuple(sw for c in calls for sw in c.fn.switches(c))
            self.ramp_spans += tuple((t, t) for t in _value_jumps(self._root, self._switches))
        except RecursionError:
            raise InputError(_too_deep(text)) from None
        points = [switch_times(sw) for sw in self._switches if not isinstance(sw.levels, str)]
        ends = {x for pair in self.ramp_spans for x in pair} | {float(x) for p in points if p is not None for x in p}
        self.breakpoints = tuple(sorted(float(x) for x in ends))
        self.ramps = tuple(sorted(float(b - a) for a, b in self.ramp_spans))
        self._named = bool(splines or variables)
        self.splines, self.variables = dict(splines or {}), dict(variables or {})

    def __repr__(self):
        return f"MotionLaw({self.text!r}{', ...' if self._named else ''})"

    def spline_references(self) -> list:
        """Where the law's CUBSPL and AKISPL name their SPLINEs: [(text, (start, end), Spline)], ``text`` the law's
        or a VARIABLE's expression and text[start:end] the reference (a name or an id)."""
        return [(n.text, n.data["ref_span"], n.data["spline"]) for n in self._root.walk()
                if isinstance(n, Call) and "ref_span" in n.data]

    def _eval(self, t, side):
        """Value, velocity and acceleration at ``t`` [s], each of t's shape."""
        t = as_times(t)
        flat = np.array(t, dtype=float).reshape(-1)  # a new array: a VARVAL's kept jet is never of a changed t
        try:
            jet = self._root.eval(flat, side)
        except RecursionError:
            raise InputError(_too_deep(self.text)) from None
        for arr, what in ((jet.v, "value"), (jet.d, "velocity"), (jet.dd, "acceleration")):
            if not np.all(np.isfinite(arr)):
                k = int(np.argmax(~np.isfinite(arr)))
                raise InputError(f"motion law {self.text!r} gives a non-finite {what} at time {flat[k]:g} s")
        return [a.reshape(t.shape) for a in (jet.v, jet.d, jet.dd)]

    def _check_motion(self, t, need: int):
        """InputError unless the law, used as a motion over the span of ``t`` [s], is continuous (``need`` 0) or
        has a continuous velocity too (``need`` 1) at every switch of its functions."""
        switches = [sw for sw in self._switches if sw.continuity < need]
        t = np.asarray(t, dtype=float)
        if not switches or t.size == 0 or not np.all(np.isfinite(t)):
            return
        lo, hi = float(t.min()), float(t.max())
        for sw in switches:
            ts = switch_times(sw, lo, hi)
            if ts is None:
                raise sw.call.error(f"in a motion, {sw.call.name} must switch on an argument affine in time "
                                    f"(a * time + b) so that the law can be checked for a jump where it "
                                    f"switches; this one is not (a force law may use it)")
            if len(ts):
                _check_continuous(self._root, sw, ts, need, lo, hi)

    def value(self, t):
        """The expression's value at times ``t`` [s] (scalar or array; same shape out), exactly as ADAMS
        defines it (IF's middle branch where its condition is 0): an offset from home [rad or m] for a joint
        law (``d`` suffix = degrees, converted), or whatever unit the law is used in (e.g. a force [N])."""
        return self._eval(t, 0)[0]

    def velocity(self, t, side=1):
        """Exact first time derivative at ``t`` [s] (same shape as t) [unit/s]; at a kink ``side=+1`` gives the
        right limit, ``side=-1`` the left one. InputError where the law jumps inside the span of t."""
        self._check_motion(t, 0)
        return self._eval(t, side)[1]

    def acceleration(self, t, side=1):
        """Exact second time derivative at ``t`` [s] (same shape as t) [unit/s^2]; at a breakpoint ``side=+1``
        gives the right limit, ``side=-1`` the left one. InputError where the law or its velocity jumps inside
        the span of t."""
        self._check_motion(t, 1)
        return self._eval(t, side)[2]


def _jumps(root, ts, order: int, lo: float = -math.inf, hi: float = math.inf):
    """Where the law ``root`` (``order`` 0) or its velocity (1) jumps at the times ``ts`` (m,) [s] inside the span
    [lo, hi] of the times it is used at: (mask (m,), the values before (m,) and after (m,) the jump, the
    tolerance (m,)). Compared at
    ts -+ dt, dt = 1e-9 (1 + |ts|), and for the value also at ts itself (IF's middle branch): a jump is a change
    larger than 1e-7 of the law's scale plus what its slope gives over 2 dt (4 dt |slope|, a factor 2 of margin).
    At the span's start only the value at ts and its right are compared (the left is never used: a spline from
    its first knot at t = 0), at its end the left and the value at ts."""
    dt = 1e-9 * (1 + np.abs(ts))
    left, right = root.eval(ts - dt, -1), root.eval(ts + dt, 1)
    a, b, slope = ((left.v, right.v, (left.d, right.d)), (left.d, right.d, (left.dd, right.dd)))[order]
    scale = 1 + max(np.abs(a).max(), np.abs(b).max())
    tol = 1e-7 * scale + 4 * dt * np.maximum(np.abs(slope[0]), np.abs(slope[1]))
    has_left, has_right = ts > lo, ts < hi
    bad = has_left & has_right & (np.abs(b - a) > tol)
    if order == 0:  # the jump reported: left to right, else left to the value at ts, else that to the right
        mid = root.eval(ts, 0).v
        bad_left, bad_right = has_left & (np.abs(mid - a) > tol), has_right & (np.abs(mid - b) > tol)
        a, b = np.where(bad | bad_left, a, mid), np.where(bad, b, np.where(bad_left, mid, b))
        bad = bad | bad_left | bad_right
    return bad, a, b, tol


def _check_continuous(root, sw, ts, need: int, lo: float, hi: float):
    """InputError if the law ``root`` jumps (or, ``need`` 1, its velocity jumps) at the times ``ts`` (m,) [s]
    where ``sw`` switches, inside the span [lo, hi] [s] (see :func:`_jumps`)."""
    for order, what, unit in ((0, "the law", ""), (1, "its velocity", " per s"))[:need + 1]:
        bad, a, b, tol = _jumps(root, ts, order, lo, hi)
        if np.any(bad):
            k = int(np.argmax(bad))
            # below a quarter of the tolerance a value is 0 to the check, printed as 0 (both cannot be: the jump
            # exceeds the tolerance)
            a_k, b_k = (0.0 if abs(x) < tol[k] / 4 else x for x in (a[k], b[k]))
            raise sw.call.error(
                f"{what} jumps at time {ts[k]:g} s (from {a_k:.6g} to {b_k:.6g}{unit}) where {sw.call.name} "
                f"switches: a motion must be continuous with a continuous velocity (else its "
                f"{'velocity' if order == 0 else 'acceleration'} is infinite there); make the pieces meet "
                f"there, or blend them with STEP or STEP5 (a force law may jump)")


def _value_jumps(root, switches) -> list:
    """The times [s] where the law ``root`` jumps at a switch of known time (an IF on TIME minus a constant
    switching a force on): zero-length ramps for the grid and the load-ramp warnings."""
    out = []
    for sw in switches:
        ts = switch_times(sw) if sw.continuity < 0 and not isinstance(sw.levels, str) else None
        if ts is None or not len(ts):
            continue
        try:
            out += [float(x) for x in ts[_jumps(root, ts, 0)[0]]]
        except InputError:  # a branch undefined right at its switch: no ramp to report
            continue
    return out
