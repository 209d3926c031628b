"""ADAMS SPLINE curves and the two interpolations the function expressions use on them, CUBSPL and AKISPL.

A SPLINE is a curve through the points (x_i, y_i), i = 0..n-1, n >= 4 and x strictly increasing (the ADAMS SPLINE
statement's rule). Both interpolations are piecewise cubic Hermite polynomials between the points,
p_i(x) = y_i + s_i h + c2_i h^2 + c3_i h^3 with h = x - x_i, m_i = (y_{i+1} - y_i) / (x_{i+1} - x_i) the chord
slopes, c2_i = (3 m_i - 2 s_i - s_{i+1}) / dx_i, c3_i = (s_i + s_{i+1} - 2 m_i) / dx_i^2; they differ in the
slopes s_i at the points:

- **CUBSPL** (ADAMS: "the standard cubic method"): the cubic spline, C2 at every interior point, with the
  not-a-knot end conditions (the third derivative continuous at x_1 and at x_{n-2}; de Boor's recommendation,
  SciPy's ``CubicSpline`` default). ADAMS does not publish its end conditions: a spline through data of a cubic
  reproduces it exactly either way, other data can differ from ADAMS's near the ends.
- **AKISPL**: Akima's method (H. Akima, J. ACM 17(4), 1970, 589-602): s_i = (|m_{i+1} - m_i| m_{i-1} +
  |m_{i-1} - m_{i-2}| m_i) / (|m_{i+1} - m_i| + |m_{i-1} - m_{i-2}|), or (m_{i-1} + m_i) / 2 where both weights
  are zero, with Akima's end extension m_{-1} = 2 m_0 - m_1, m_{-2} = 2 m_{-1} - m_0 (and likewise past the last
  point). The curve is C1: its second derivative jumps at the points (ADAMS: "the second derivative ... is
  unreliable").

Outside [x_0, x_{n-1}] both extrapolate as ADAMS does for a SPLINE given by its values: by the parabola through the
first (last) three points, or, with ``linear_extrapolate``, the line through the first (last) two points (the
SPLINE statement's LINEAR_EXTRAPOLATE). SciPy extrapolates the end cubic instead.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import solve_banded

from ..errors import InputError


@dataclass(frozen=True)
class Spline:
    """An ADAMS SPLINE curve: ``x`` (n,) strictly increasing, ``y`` (n,), n >= 4; ``linear_extrapolate`` as the
    SPLINE statement's LINEAR_EXTRAPOLATE (else parabolic). ``name`` names it in messages."""

    x: tuple
    y: tuple
    linear_extrapolate: bool = False
    name: str = "SPLINE"

    def __post_init__(self):
        x, y = np.asarray(self.x, dtype=float).ravel(), np.asarray(self.y, dtype=float).ravel()
        what = f"spline {self.name}"
        if len(x) != len(y):
            raise InputError(f"{what}: {len(x)} x values but {len(y)} y values; give one y per x")
        if len(x) < 4:
            raise InputError(f"{what}: {len(x)} points; a SPLINE needs at least 4 (as in ADAMS)")
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
            raise InputError(f"{what}: the x and y values must be finite numbers")
        if np.any(np.diff(x) <= 0):
            k = int(np.argmax(np.diff(x) <= 0)) + 1
            raise InputError(f"{what}: x must increase strictly; x[{k}] = {x[k]:g} follows x[{k - 1}] = "
                             f"{x[k - 1]:g}")
        object.__setattr__(self, "x", tuple(float(v) for v in x))
        object.__setattr__(self, "y", tuple(float(v) for v in y))


def as_spline(data, name: str) -> Spline:
    """A caller's spline entry (a :class:`Spline`, or an (x, y) pair of sequences) as a Spline named ``name``."""
    if isinstance(data, Spline):
        return data
    try:
        x, y = data
    except (TypeError, ValueError):
        raise InputError(f"spline {name}: give a Spline or an (x, y) pair of sequences, got {data!r}") from None
    return Spline(x, y, name=name)


def _chords(x, y):
    dx = np.diff(x)
    return dx, np.diff(y) / dx


def cubic_slopes(x, y) -> np.ndarray:
    """Slopes (n,) of the not-a-knot cubic spline through (x, y): C2 at x_1..x_{n-2} (rows 1..n-2) and a
    continuous third derivative at x_1 and x_{n-2} (rows 0 and n-1); solved as a banded system."""
    dx, m = _chords(x, y)
    n = len(x)
    ab = np.zeros((5, n))  # diagonals +2, +1, 0, -1, -2 (solve_banded's layout)
    rhs = np.zeros(n)
    i = np.arange(1, n - 1)
    # interior: dx_i s_{i-1} + 2 (dx_{i-1} + dx_i) s_i + dx_{i-1} s_{i+1} = 3 (dx_i m_{i-1} + dx_{i-1} m_i)
    ab[3, i - 1] = dx[i]
    ab[2, i] = 2 * (dx[i - 1] + dx[i])
    ab[1, i + 1] = dx[i - 1]
    rhs[i] = 3 * (dx[i] * m[i - 1] + dx[i - 1] * m[i])
    # c3_0 = c3_1: dx_1^2 s_0 + (dx_1^2 - dx_0^2) s_1 - dx_0^2 s_2 = 2 (dx_1^2 m_0 - dx_0^2 m_1)
    ab[2, 0], ab[1, 1], ab[0, 2] = dx[1] ** 2, dx[1] ** 2 - dx[0] ** 2, -dx[0] ** 2
    rhs[0] = 2 * (dx[1] ** 2 * m[0] - dx[0] ** 2 * m[1])
    # c3_{n-3} = c3_{n-2}, the same with the last two intervals a = dx_{n-3}, b = dx_{n-2}
    a, b = dx[-2], dx[-1]
    ab[4, n - 3], ab[3, n - 2], ab[2, n - 1] = b ** 2, b ** 2 - a ** 2, -a ** 2
    rhs[n - 1] = 2 * (b ** 2 * m[-2] - a ** 2 * m[-1])
    return solve_banded((2, 2), ab, rhs)


def akima_slopes(x, y) -> np.ndarray:
    """Akima's (1970) slopes (n,) at the points, with his end extension of the chord slopes."""
    _, m = _chords(x, y)
    left = 2 * m[0] - m[1]
    right = 2 * m[-1] - m[-2]
    mm = np.r_[2 * left - m[0], left, m, right, 2 * right - m[-1]]  # mm[k + 2] = m_k, k = -2 .. n
    w1 = np.abs(mm[3:] - mm[2:-1])  # |m_{i+1} - m_i|, i = 0 .. n-1
    w2 = np.abs(mm[1:-2] - mm[:-3])  # |m_{i-1} - m_{i-2}|
    den = w1 + w2
    flat = den == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        s = (w1 * mm[1:-2] + w2 * mm[2:-1]) / den
    return np.where(flat, (mm[1:-2] + mm[2:-1]) / 2, s)


@dataclass(frozen=True)
class Piecewise:
    """A piecewise cubic over the knots ``x`` (n,): piece 0 is the extrapolation left of x_0, piece k (1..n-1)
    the interval [x_{k-1}, x_k], piece n the extrapolation right of x_{n-1}; ``coef`` (n+1, 4) the power
    coefficients of each piece in h = x - ``base`` (n+1,)."""

    x: np.ndarray
    base: np.ndarray
    coef: np.ndarray

    def derivative(self, xv, order: int, piece) -> np.ndarray:
        """d^order p / dx^order at ``xv`` (m,) on the pieces ``piece`` (m,) int; 0 for order > 3."""
        if order > 3:
            return np.zeros_like(xv)
        c = self.coef[piece]
        h = xv - self.base[piece]
        fall = [[1, 1, 1, 1], [0, 1, 2, 3], [0, 0, 2, 6], [0, 0, 0, 6]][order]  # k! / (k - order)!
        return sum(fall[k] * c[:, k] * h ** (k - order) for k in range(order, 4))

    def pieces(self, xv, direction) -> np.ndarray:
        """The piece (m,) int of each ``xv`` (m,); at a knot (to 1e-12 of the knots' span) the piece on the side
        of ``direction`` (m,) (+1 toward larger x, -1 smaller, 0 either)."""
        k = np.searchsorted(self.x, xv, side="right")  # xv in [x_{k-1}, x_k): piece k
        tol = 1e-12 * (self.x[-1] - self.x[0])
        near = np.clip(np.searchsorted(self.x, xv), 0, len(self.x) - 1)
        near = np.where(np.abs(self.x[near] - xv) <= tol, near, np.clip(near - 1, 0, len(self.x) - 1))
        at_knot = np.abs(self.x[near] - xv) <= tol
        return np.where(at_knot & (direction < 0), near, np.where(at_knot, near + 1, k))


def piecewise(spline: Spline, method: str) -> Piecewise:
    """The CUBSPL (``method`` "cubic") or AKISPL ("akima") piecewise cubic of ``spline`` with ADAMS's
    extrapolation."""
    x, y = np.array(spline.x), np.array(spline.y)
    s = cubic_slopes(x, y) if method == "cubic" else akima_slopes(x, y)
    dx, m = _chords(x, y)
    inner = np.column_stack([y[:-1], s[:-1], (3 * m - 2 * s[:-1] - s[1:]) / dx, (s[:-1] + s[1:] - 2 * m) / dx ** 2])
    ends = [_extrapolation(x[:3], y[:3], x[0], spline.linear_extrapolate, first=True),
            _extrapolation(x[-3:], y[-3:], x[-1], spline.linear_extrapolate, first=False)]
    coef = np.vstack([ends[0], inner, ends[1]])
    base = np.r_[x[0], x[:-1], x[-1]]
    return Piecewise(x=x, base=base, coef=coef)


def _extrapolation(x3, y3, x_end, linear: bool, first: bool) -> np.ndarray:
    """Power coefficients in (x - x_end) of the line through the two end points or the parabola through the
    three end points (x3, y3 the three points nearest that end, in increasing x)."""
    if linear:
        pair = (0, 1) if first else (1, 2)
        slope = (y3[pair[1]] - y3[pair[0]]) / (x3[pair[1]] - x3[pair[0]])
        return np.array([y3[0] if first else y3[2], slope, 0.0, 0.0])
    c2, c1, c0 = np.polyfit(x3 - x_end, y3, 2)  # the interpolating parabola (3 points, degree 2: exact)
    return np.array([c0, c1, c2, 0.0])
