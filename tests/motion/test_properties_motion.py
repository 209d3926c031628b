"""Property-based tests (hypothesis) of the ADAMS motion-expression parser and of STEP/STEP5.

Every test is derandomized (a fixed sequence of examples) so the default suite is deterministic; the examples
are few and small so that this file runs in seconds.
"""
import ast
import math
import string
import warnings

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from structcheck.errors import InputError
from structcheck.motion import MotionLaw

COMMON = dict(deadline=None, derandomize=True)
TIMES = np.array([0.0, 0.25, 1.0, 2.5, 7.0])


def _exercise(text):
    """Construct the law and evaluate value, velocity and both one-sided accelerations at a few times."""
    law = MotionLaw(text)
    law.value(TIMES)
    law.velocity(TIMES)
    law.acceleration(TIMES, side=1)
    law.acceleration(TIMES, side=-1)
    law.value(1.5)
    return law


def _only_input_errors(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy overflow inside a rejected law is not an error
        try:
            _exercise(text)
        except InputError:
            pass


def _parses_to_its_value(tree, data):
    """A valid text of ``tree`` (a random rendering: case, blanks, parentheses, ``d`` suffixes) must parse, and its
    value at TIMES equal the tree's evaluated from its own pieces (:func:`evaluate`, not the parser). Returns the
    text. This is what keeps the fuzz tests able to fail: a parser that refused every text would pass the
    robustness half of them, never this one."""
    text, _ = render(tree, data, minimal=data.draw(st.booleans()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow of a large power: not a value to compare
        expected = evaluate(tree, TIMES)
        law = MotionLaw(text)  # must not raise
        ok = np.isfinite(expected)
        np.testing.assert_allclose(law.value(TIMES)[ok], expected[ok], rtol=1e-12,
                                   atol=1e-12 * (1 + np.abs(expected[ok]).max(initial=0)), err_msg=text)
    return text


# ------------------------------------------------------------------------------------- parser robustness

TOKENS = ["0", "1", "2.5", ".5", "3.", "1e3", "2E-2", "90d", "45D", "1.5e1d", "1e", "d", "e", "time", "TIME",
          "Time", "t", "+", "-", "*", "/", "**", "***", "(", ")", "(", ")", ",", "STEP", "STEP5", "step", "SIN",
          "cos", "COS", "PI", "pi", "TAN", "x", "_", "1e999", "0.0", " ", "\t", "@", "#", "=", "^", "[", "]"]


@settings(max_examples=300, **COMMON)
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=25), st.lists(st.sampled_from(["", " "]),
                                                                             min_size=25, max_size=25),
       st.deferred(lambda: valid_trees), st.data())
def test_token_soup_raises_only_input_error(tokens, seps, tree, data):
    """Any sequence of expression tokens (numbers, TIME, operators, parentheses, STEP/STEP5/SIN/COS/PI, commas,
    degree suffixes, junk) either gives a law that evaluates, or raises InputError: a user's typo must never
    surface as a TypeError, ZeroDivisionError, IndexError, ... from inside the parser or the evaluation. The same
    for the soup spliced into a valid text of the grammar, which alone must parse to its independent value."""
    soup = "".join(t + s for t, s in zip(tokens, seps))
    _only_input_errors(soup)
    valid = _parses_to_its_value(tree, data)
    k = data.draw(st.integers(0, len(valid)))
    _only_input_errors(valid[:k] + soup + valid[k:])


@settings(max_examples=200, **COMMON)
@given(st.text(alphabet=string.printable, min_size=0, max_size=40) | st.text(max_size=15),
       st.deferred(lambda: valid_trees), st.data())
def test_random_text_raises_only_input_error(text, tree, data):
    """Arbitrary printable (and arbitrary unicode) text: a law, or InputError, nothing else (also for the
    empty and the all-blank string); also spliced into a valid text, which alone must parse to its value."""
    _only_input_errors(text)
    valid = _parses_to_its_value(tree, data)
    k = data.draw(st.integers(0, len(valid)))
    _only_input_errors(valid[:k] + text + valid[k:])


@pytest.mark.parametrize("left, right", [("(", ")"), ("SIN(", ")"), ("-", ""), ("2**", "")])
def test_deep_nesting_raises_only_input_error(left, right):
    """Valid expressions nested deeply (parentheses, SIN(, unary minus, power towers) parse or raise InputError;
    a stack overflow is not a message a user can act on. (Not a hypothesis test: where the stack overflows
    varies between runs, which hypothesis reports as flaky.)"""
    for depth in (1, 10, 100, 1000, 3000):  # a fixed ladder: the stack limit is the same on every run
        _only_input_errors(left * depth + "time" + right * depth)


# ----------------------------------------------------------------------------- random expression trees
# A tree is a tuple: ("num", value, degrees?), ("time",), ("pi",), ("dtor",), ("rtod",), ("neg", a), ("pos", a),
# ("bin", op, a, b), ("call", NAME, [args]). Trees are built valid by construction: denominators are positive, exponents are small
# non-negative integers (or the base is a positive number), STEP arguments are affine in time with x0 < x1.

ADD, MUL, UNARY, POW, ATOM = 1, 2, 3, 4, 5

numbers = st.builds(lambda v, deg: ("num", v, deg),
                    st.floats(0, 3, allow_nan=False).map(lambda v: round(v, 3)) | st.sampled_from([0.0, 1.0, 2.0]),
                    st.booleans())
positive_numbers = st.floats(0.5, 3).map(lambda v: ("num", round(v, 3), False))
leaves = numbers | st.just(("time",)) | st.just(("pi",))


@st.composite
def steps(draw, names=("STEP", "STEP5")):
    """STEP/STEP5 (or the ramps ``names``) with an affine argument a*time + b (several spellings), constant
    x0 < x1, h0, h1."""
    a, b = draw(st.floats(0.25, 3)), draw(st.floats(-2, 2))
    arg = draw(st.sampled_from([
        ("time",),
        ("bin", "+", ("bin", "*", ("num", round(a, 3), False), ("time",)), ("num", round(abs(b), 3), False)),
        ("bin", "-", ("time",), ("num", round(abs(b), 3), False)),
        ("bin", "/", ("time",), ("num", round(a, 3), False)),
        ("neg", ("bin", "*", ("num", round(a, 3), False), ("time",))),
    ]))
    x0 = draw(st.floats(-3, 3).map(lambda v: round(v, 3)))
    x1 = round(x0 + draw(st.floats(0.1, 3)), 3)
    assume(x1 > x0)

    def const(v):
        return ("neg", ("num", -v, False)) if v < 0 else ("num", v, False)

    h0, h1 = (round(draw(st.floats(-3, 3)), 3) for _ in range(2))
    return ("call", draw(st.sampled_from(names)), [arg, const(x0), const(h0), const(x1), const(h1)])


def _extend(children):
    return st.one_of(
        st.builds(lambda a: ("neg", a), children),
        st.builds(lambda op, a, b: ("bin", op, a, b), st.sampled_from(["+", "-", "*"]), children, children),
        # positive denominator: c + a**2 with c >= 0.5
        st.builds(lambda a, c, b: ("bin", "/", a, ("bin", "+", c, ("bin", "**", b, ("num", 2.0, False)))),
                  children, positive_numbers, children),
        st.builds(lambda a, k: ("bin", "**", a, ("num", float(k), False)), children, st.integers(0, 3)),
        st.builds(lambda c, a: ("bin", "**", c, a), positive_numbers, children),
        st.builds(lambda name, a: ("call", name, [a]), st.sampled_from(["SIN", "COS"]), children),
    )


trees = st.recursive(leaves | steps(), _extend, max_leaves=8)


def _extend_wide(children):
    """_extend and more of the grammar, for values only (a kink of ABS/MIN/MAX in a non-affine argument is refused
    as a motion, allowed as a force law): unary plus, ATAN, TANH, ABS, MIN, MAX, and SQRT, LOG of a positive
    argument c + a**2."""
    positive = st.builds(lambda c, a: ("bin", "+", c, ("bin", "**", a, ("num", 2.0, False))), positive_numbers,
                         children)
    return st.one_of(
        _extend(children),
        st.builds(lambda a: ("pos", a), children),
        st.builds(lambda name, a: ("call", name, [a]), st.sampled_from(["ATAN", "TANH", "ABS"]), children),
        st.builds(lambda name, a, b: ("call", name, [a, b]), st.sampled_from(["MIN", "MAX"]), children, children),
        st.builds(lambda name, a: ("call", name, [a]), st.sampled_from(["SQRT", "LOG"]), positive),
    )


# STEP, STEP5 and HAVSIN ramps; the constants DTOR, RTOD
valid_trees = st.recursive(leaves | st.sampled_from([("dtor",), ("rtod",)]) | steps(("STEP", "STEP5", "HAVSIN")),
                           _extend_wide, max_leaves=8)


def evaluate(node, t):
    """The tree's value at times t, straight from the closed forms (independent of the package)."""
    kind = node[0]
    if kind == "num":
        return np.zeros_like(t) + (math.radians(node[1]) if node[2] else node[1])
    if kind == "time":
        return t.copy()
    if kind in CONSTANT_VALUES:
        return np.zeros_like(t) + CONSTANT_VALUES[kind]
    if kind == "neg":
        return -evaluate(node[1], t)
    if kind == "pos":
        return evaluate(node[1], t)
    if kind == "bin":
        a, b = evaluate(node[2], t), evaluate(node[3], t)
        return {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "**": np.power}[node[1]](a, b)
    name, args = node[1], node[2]
    if name in FUNCTION_VALUES:
        return FUNCTION_VALUES[name](*(evaluate(a, t) for a in args))
    x, x0, h0, x1, h1 = (evaluate(a, t) for a in args)
    D = np.clip((x - x0) / (x1 - x0), 0.0, 1.0)
    return h0 + (h1 - h0) * RAMP_BLENDS[name](D)


# the closed forms of the grammar's constants, functions and ramps (ADAMS's definitions)
CONSTANT_VALUES = {"pi": math.pi, "dtor": math.pi / 180, "rtod": 180 / math.pi}
FUNCTION_VALUES = {"SIN": np.sin, "COS": np.cos, "ATAN": np.arctan, "TANH": np.tanh, "ABS": np.abs,
                   "SQRT": np.sqrt, "LOG": np.log, "MIN": np.minimum, "MAX": np.maximum}
RAMP_BLENDS = {"STEP": lambda D: D ** 2 * (3 - 2 * D), "STEP5": lambda D: D ** 3 * (10 - 15 * D + 6 * D ** 2),
               "HAVSIN": lambda D: (1 - np.cos(np.pi * D)) / 2}


def _num_text(v, deg, rnd):
    text = repr(float(v)) if rnd.draw(st.booleans()) or v != int(v) else str(int(v))
    return text + (rnd.draw(st.sampled_from(["d", "D"])) if deg else "")


def render(node, rnd, minimal):
    """Text of a tree: fully parenthesized, or with the fewest parentheses the grammar allows; random case of
    names and random blanks. Returns (text, precedence level)."""
    def sp():
        return rnd.draw(st.sampled_from(["", " ", "  "]))

    def case(name):
        return rnd.draw(st.sampled_from([name.upper(), name.lower(), name.capitalize()]))

    def sub(child, need):
        text, level = render(child, rnd, minimal)
        return text if (minimal and level >= need) or level == ATOM else f"({sp()}{text}{sp()})"

    kind = node[0]
    if kind == "num":
        return _num_text(node[1], node[2], rnd), ATOM
    if kind in ("time", *CONSTANT_VALUES):
        return case(kind), ATOM
    if kind in ("neg", "pos"):
        return f"{'-' if kind == 'neg' else '+'}{sp()}{sub(node[1], UNARY)}", UNARY
    if kind == "bin":
        op = node[1]
        if op in "+-":
            return f"{sub(node[2], ADD)}{sp()}{op}{sp()}{sub(node[3], MUL)}", ADD
        if op in "*/":
            return f"{sub(node[2], MUL)}{sp()}{op}{sp()}{sub(node[3], UNARY)}", MUL
        return f"{sub(node[2], ATOM)}{sp()}**{sp()}{sub(node[3], UNARY)}", POW
    args = f",{sp()}".join(render(a, rnd, minimal)[0] for a in node[2])
    return f"{case(node[1])}({sp()}{args}{sp()})", ATOM


def _triple(law, t, side):
    return law.value(t), law.velocity(t), law.acceleration(t, side=side)


@settings(max_examples=120, **COMMON)
@given(trees, st.data())
def test_printed_expression_reparses_to_the_same_law(tree, data):
    """Printing and re-parsing gives the same law. A random valid expression tree is printed fully
    parenthesized and with minimal parentheses (random case, blanks, ``d`` suffixes); both texts, and the
    text recovered from ``repr`` of the law, must parse to laws whose value, velocity and acceleration (both
    sides) agree exactly at sample times (same tree, same arithmetic), and whose value equals the closed-form
    evaluation of the tree -- so operator precedence, associativity, unary minus, ``**`` and degree suffixes are
    read as written."""
    full, _ = render(tree, data, minimal=False)
    short, _ = render(tree, data, minimal=True)
    law = MotionLaw(full)
    again = MotionLaw(short)
    text = repr(law)
    assert text.startswith("MotionLaw(") and text.endswith(")")
    from_repr = MotionLaw(ast.literal_eval(text[len("MotionLaw("):-1]))
    t = np.r_[TIMES, law.breakpoints, 1.234]
    for side in (1, -1):
        ref = _triple(law, t, side)
        for other in (again, from_repr):
            for a, b in zip(ref, _triple(other, t, side)):
                np.testing.assert_array_equal(a, b)
    assert again.breakpoints == law.breakpoints
    expected = evaluate(tree, t)
    np.testing.assert_allclose(law.value(t), expected, rtol=1e-12, atol=1e-12 * (1 + np.abs(expected).max()))


def fd4(f, t, h):
    """4th-order central difference of f at t."""
    return (f(t - 2 * h) - 8 * f(t - h) + 8 * f(t + h) - f(t + 2 * h)) / (12 * h)


def _close_to_fd(exact, f, t, h):
    """exact ~ fd4(f, t, h) within an a-posteriori error bound: Richardson's estimate |D(h) - D(2h)| / 15 of the
    4th-order truncation error (times a safety factor) plus round-off eps |f| / h. A wrong chain rule gives an
    O(1) gap that this bound does not cover."""
    d1, d2 = fd4(f, t, h), fd4(f, t, 2 * h)
    fmax = max(abs(f(t + k * h)).max() for k in (-4, 0, 4))
    tol = 10 * np.abs(d1 - d2) / 15 + 1e-12 * (1 + fmax) / h + 1e-8 * (1 + np.abs(exact))
    assert np.all(np.abs(exact - d1) <= tol), (exact, d1, d2)


@settings(max_examples=80, **COMMON)
@given(trees, st.floats(0.05, 4.0), st.data())
def test_random_expression_derivatives_match_finite_differences(tree, t0, data):
    """Velocity and acceleration of any valid expression (exact chain rule over the tree) equal 4th-order central
    finite differences of the value and of the velocity, away from STEP breakpoints."""
    law = MotionLaw(render(tree, data, minimal=True)[0])
    h = 1e-3
    assume(all(abs(t0 - b) > 6 * h for b in law.breakpoints))
    t = np.array([t0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _close_to_fd(law.velocity(t), law.value, t, h)
        _close_to_fd(law.acceleration(t), law.velocity, t, h)


# --------------------------------------------------------------------------------------------- STEP laws

@st.composite
def step_laws(draw, sign=0):
    """(text, kind, a, b, x0, h0, x1, h1): STEP or STEP5 of a * time + b."""
    kind = draw(st.sampled_from(["STEP", "STEP5"]))
    mag = draw(st.floats(0.2, 5))
    if sign == 0:
        a = mag * draw(st.sampled_from([1, -1]))
    else:
        a = sign * mag
    b, x0 = draw(st.floats(-3, 3)), draw(st.floats(-5, 5))
    x1 = x0 + draw(st.floats(0.1, 5))
    h0, h1 = draw(st.floats(-10, 10)), draw(st.floats(-10, 10))
    assume(x1 > x0)
    text = f"{kind}({a!r} * time + {b!r}, {x0!r}, {h0!r}, {x1!r}, {h1!r})"
    return text, kind, a, b, x0, h0, x1, h1


def step_closed_form(kind, x, x0, h0, x1, h1):
    D = np.clip((x - x0) / (x1 - x0), 0.0, 1.0)
    if kind == "STEP":
        return h0 + (h1 - h0) * D ** 2 * (3 - 2 * D)
    return h0 + (h1 - h0) * D ** 3 * (10 - 15 * D + 6 * D ** 2)


def _ramp_times(a, b, x0, x1):
    return tuple(sorted(((x0 - b) / a, (x1 - b) / a)))


@settings(max_examples=150, **COMMON)
@given(step_laws(), st.lists(st.floats(-0.5, 1.5), min_size=1, max_size=8))
def test_step_values_match_closed_form(law_args, fractions):
    """STEP is h0 + (h1 - h0) D^2 (3 - 2D) and STEP5 h0 + (h1 - h0) D^3 (10 - 15D + 6D^2) with
    D = (x - x0)/(x1 - x0) clamped to [0, 1], for x = a*time + b of either sign of a; its breakpoints are the
    times where x reaches x0 and x1."""
    text, kind, a, b, x0, h0, x1, h1 = law_args
    law = MotionLaw(text)
    t_lo, t_hi = _ramp_times(a, b, x0, x1)
    np.testing.assert_allclose(law.breakpoints, (t_lo, t_hi), rtol=1e-12, atol=1e-12)
    t = t_lo + np.array(fractions) * (t_hi - t_lo)
    expected = step_closed_form(kind, a * t + b, x0, h0, x1, h1)
    np.testing.assert_allclose(law.value(t), expected, rtol=0, atol=1e-12 * (1 + abs(h0) + abs(h1)))


@settings(max_examples=150, **COMMON)
@given(step_laws(), st.floats(-0.4, 1.4).filter(lambda u: min(abs(u), abs(u - 1)) > 0.02))
def test_step_derivatives_match_central_differences(law_args, u):
    """Away from the breakpoints, velocity and acceleration equal 4th-order central finite differences of the
    value (and of the velocity): the chain rule through a*time + b and the blend polynomial's derivatives."""
    text, kind, a, b, x0, h0, x1, h1 = law_args
    law = MotionLaw(text)
    t_lo, t_hi = _ramp_times(a, b, x0, x1)
    T = t_hi - t_lo
    t = np.array([t_lo + u * T])
    h = 1e-3 * T
    scale = abs(h1 - h0) + 1e-300
    # truncation h^4 f^(5) / 30 ~ 1e-12 dh / T and round-off eps (|h0| + |h1|) / h: far below these tolerances
    np.testing.assert_allclose(law.velocity(t), fd4(law.value, t, h), rtol=0, atol=1e-7 * (scale + abs(h0)) / T)
    np.testing.assert_allclose(law.acceleration(t), fd4(law.velocity, t, h), rtol=0,
                               atol=1e-7 * (scale + abs(h0)) / T ** 2)
    np.testing.assert_array_equal(law.acceleration(t, side=1), law.acceleration(t, side=-1))


def one_sided_second_derivative(f, t, h, side):
    """Third-order one-sided second difference (35 f0 - 104 f1 + 114 f2 - 56 f3 + 11 f4) / (12 h^2), samples at
    t + side k h."""
    c = [35, -104, 114, -56, 11]
    return sum(ck * f(t + side * k * h) for k, ck in enumerate(c)) / (12 * h * h)


def _check_one_sided(law_args):
    text, kind, a, b, x0, h0, x1, h1 = law_args
    law = MotionLaw(text)
    T = law.breakpoints[1] - law.breakpoints[0]
    h = 1e-3 * T
    for tb in law.breakpoints:  # the very times the analysis grid contains
        t = np.array([tb])
        for side in (1, -1):
            # the velocity is continuous: both one-sided slopes equal it
            slope = side * sum(ck * law.value(t + side * k * h) for k, ck in enumerate([-11, 18, -9, 2])) / (6 * h)
            np.testing.assert_allclose(law.velocity(t), slope, rtol=0, atol=1e-6 * (abs(h1 - h0) + abs(h0)) / T,
                                       err_msg=f"{text} at t = {tb!r}, side = {side}")
            expected = one_sided_second_derivative(law.value, t, h, side)
            np.testing.assert_allclose(law.acceleration(t, side=side), expected, rtol=0,
                                       atol=1e-4 * (abs(h1 - h0) + abs(h0) + abs(h1)) / T ** 2,
                                       err_msg=f"{text} at t = {tb!r}, side = {side}")


@settings(max_examples=60, **COMMON)
@example(law_args=("STEP(time - 1, 0.1, 0, 0.3, 1)", "STEP", 1.0, -1.0, 0.1, 0.0, 0.3, 1.0))
@given(step_laws(sign=+1))
def test_step_one_sided_accelerations_at_breakpoints_increasing_argument(law_args):
    """At a breakpoint, ``acceleration(t, side=+1)`` is the right limit and ``side=-1`` the left limit (one-sided
    finite differences of the value), for an increasing time argument a*time + b (a > 0). STEP's acceleration
    jumps there, so the wrong side is an O(1) error in the joint accelerations at those grid times."""
    _check_one_sided(law_args)


@settings(max_examples=20, **COMMON)
@example(law_args=("STEP(-time, -2, 0, -1, 1)", "STEP", -1.0, 0.0, -2.0, 0.0, -1.0, 1.0))
@given(step_laws(sign=-1).filter(lambda args: args[1] == "STEP"))
def test_step_one_sided_accelerations_at_breakpoints_decreasing_argument(law_args):
    """As for an increasing argument: with x = a*time + b, a < 0, the ramp runs from x1 down to x0 in time, and
    the right (side=+1) and left (side=-1) limits in TIME must match one-sided finite differences."""
    _check_one_sided(law_args)
