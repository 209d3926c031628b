"""ADAMS function text of the project's own laws: a piecewise law as nested IFs of POLY and SHF pieces, numbers
with 17 significant digits, so that :class:`~.expression.MotionLaw` of the text gives the law's value, velocity and
acceleration to rounding (the profiles' ``adams_text``; export-adams writes it as the MOTION's FUNCTION)."""
from __future__ import annotations


def number(x) -> str:
    """``x`` as ADAMS text, 17 significant digits (repr of a float round-trips exactly)."""
    return repr(float(x))


def poly(t0: float, *coef) -> str:
    """POLY(time, t0, a0, a1, ...) = sum_j a_j (time - t0)^j."""
    return f"POLY(time, {', '.join(number(c) for c in (t0, *coef))})"


def shf(t0: float, a: float, w: float) -> str:
    """SHF(time, t0, a, w, 0, 0) = a sin(w (time - t0))."""
    return f"SHF(time, {number(t0)}, {number(a)}, {number(w)}, 0, 0)"


def piecewise(first: str, pieces) -> str:
    """The law that is ``first`` before the first switch and each piece's text from its start time [s] on:
    ``pieces`` [(t_start, text)] sorted by time; IF(time - t: before, from t, after) nested, the piece after the
    switch taken at the switch itself (the pieces must meet there: a motion's IF may not jump)."""
    if not pieces:
        return first
    (t, text), rest = pieces[0], pieces[1:]
    return f"IF(time - {number(t)}: {first}, {text}, {piecewise(text, rest)})" if rest else \
        f"IF(time - {number(t)}: {first}, {text}, {text})"
