"""The ADAMS function library of the motion laws, each function against its written definition (the ADAMS/Solver
function reference, computed here independently with numpy/math), its exact derivatives against finite
differences and hand derivatives, its switch times in the analysis grid, and the refusals (a jump in a motion,
VARVAL cycles, unknown names)."""
import math

import numpy as np
import pytest
from scipy.interpolate import Akima1DInterpolator, CubicSpline

from structcheck.errors import InputError
from structcheck.motion import MotionLaw, time_grid
from structcheck.motion.adams_functions import FUNCTIONS
from structcheck.motion.splines import Spline

T = np.array([0.13, 0.4, 0.77, 1.2, 1.9, 2.45, 3.3])  # sample times [s], none at a switch of the laws below
D = math.pi / 180


def step(x, x0, h0, x1, h1, blend):
    D_ = np.clip((x - x0) / (x1 - x0), 0, 1)
    return h0 + (h1 - h0) * blend(D_)


# (expression, its value at the times t by the definition)
DEFINED = {
    "SIN(2*time - 1)": lambda t: np.sin(2 * t - 1),
    "COS(time**2)": lambda t: np.cos(t ** 2),
    "TAN(time/3)": lambda t: np.tan(t / 3),
    "ASIN(time/4)": lambda t: np.arcsin(t / 4),
    "ACOS(0.5 - time/5)": lambda t: np.arccos(0.5 - t / 5),
    "ATAN(3*time - 2)": lambda t: np.arctan(3 * t - 2),
    "ATAN2(SIN(2*time), COS(2*time) - 0.2)": lambda t: np.arctan2(np.sin(2 * t), np.cos(2 * t) - 0.2),
    "SINH(time - 1)": lambda t: np.sinh(t - 1),
    "COSH(time - 1)": lambda t: np.cosh(t - 1),
    "TANH(2*time - 3)": lambda t: np.tanh(2 * t - 3),
    "EXP(-time)": lambda t: np.exp(-t),
    "LOG(1 + time)": lambda t: np.log(1 + t),
    "LOG10(1 + time**2)": lambda t: np.log10(1 + t ** 2),
    "SQRT(1 + time)": lambda t: np.sqrt(1 + t),
    "ABS(time - 1)": lambda t: np.abs(t - 1),
    "MIN(time, 2 - time)": lambda t: np.minimum(t, 2 - t),
    "MAX(SIN(time), 0.5)": lambda t: np.maximum(np.sin(t), 0.5),
    "DIM(time, 1.5)": lambda t: np.where(t > 1.5, t - 1.5, 0.0),
    "SIGN(time - 3, time - 1)": lambda t: np.where(t - 1 >= 0, np.abs(t - 3), -np.abs(t - 3)),
    "AINT(2*time - 3)": lambda t: np.trunc(2 * t - 3),  # truncation toward zero
    "ANINT(2*time - 3)": lambda t: np.where(2 * t - 3 > 0, np.trunc(2 * t - 3 + 0.5), np.trunc(2 * t - 3 - 0.5)),
    "MOD(5*time - 7, 2)": lambda t: (5 * t - 7) - np.trunc((5 * t - 7) / 2) * 2,
    "STEP(time, 0.5, 1, 2.5, -2)": lambda t: step(t, 0.5, 1, 2.5, -2, lambda d: d * d * (3 - 2 * d)),
    "STEP5(time, 0.5, 1, 2.5, -2)": lambda t: step(t, 0.5, 1, 2.5, -2, lambda d: d ** 3 * (10 - 15 * d + 6 * d * d)),
    # HAVSIN as ADAMS writes it: a + b sin(c pi - pi/2), a = (h1 + h0)/2, b = (h1 - h0)/2, c = (x - x0)/(x1 - x0)
    "HAVSIN(time, 0.5, 1, 2.5, -2)": lambda t: np.where(
        t <= 0.5, 1.0, np.where(t >= 2.5, -2.0, -0.5 - 1.5 * np.sin((t - 0.5) / 2 * np.pi - np.pi / 2))),
    "SHF(time, 0.2, 1.5, 3, 0.4, -1)": lambda t: 1.5 * np.sin(3 * (t - 0.2) - 0.4) - 1,
    "POLY(time, 1, 2, -1, 0.5, 0.25)": lambda t: 2 - (t - 1) + 0.5 * (t - 1) ** 2 + 0.25 * (t - 1) ** 3,
    # CHEBY with T2 = 2u^2 - 1, T3 = 4u^3 - 3u (the reference's recurrence written out)
    "CHEBY(time, 1, 2, -1, 0.5, 0.25)": lambda t: (2 - (t - 1) + 0.5 * (2 * (t - 1) ** 2 - 1)
                                                   + 0.25 * (4 * (t - 1) ** 3 - 3 * (t - 1))),
    "FORCOS(time, 0.3, 2, 1, -0.5, 0.25)": lambda t: 1 - 0.5 * np.cos(2 * (t - 0.3)) + 0.25 * np.cos(4 * (t - 0.3)),
    "FORSIN(time, 0.3, 2, 1, -0.5, 0.25)": lambda t: 1 - 0.5 * np.sin(2 * (t - 0.3)) + 0.25 * np.sin(4 * (t - 0.3)),
    "IF(time - 1: -time, 7, time**2)": lambda t: np.where(t < 1, -t, t ** 2),
    "PI * DTOR * RTOD": lambda t: np.pi + 0 * t,
}


@pytest.mark.parametrize("text", DEFINED)
def test_values_match_the_definitions(text):
    np.testing.assert_allclose(MotionLaw(text).value(T), DEFINED[text](T), rtol=1e-14, atol=1e-14)


def test_the_reference_manuals_examples():
    """The worked examples of the ADAMS/Solver function reference."""
    v = lambda text, t=0.0: float(MotionLaw(text).value(t))  # noqa: E731
    assert (v("ANINT(-4.6)"), v("ANINT(4.6)"), v("AINT(-6.5)"), v("AINT(4.6)")) == (-5, 5, -6, 4)
    assert (v("ANINT(2.5)"), v("ANINT(-2.5)"), v("AINT(-0.9)")) == (3, -3, 0)  # halves away from zero
    assert (v("SIGN(-3, 2)"), v("SIGN(3, -2)"), v("SIGN(-3, 0)")) == (3, -3, 3)  # a2 >= 0 keeps |a1|
    assert (v("MOD(-7, 3)"), v("MOD(7, -3)"), v("DIM(5, 3)"), v("DIM(3, 5)")) == (-1, 1, 2, 0)
    assert [v("IF(time-2.5:0,0.5,1)", t) for t in (2.0, 2.5, 3.0)] == [0, 0.5, 1]
    for t in (0.1, 0.37):
        assert v("FORCOS(TIME, 0, 360D, 1, 2, 3, 4)", t) == pytest.approx(
            1 + sum(k * math.cos((k - 1) * 2 * math.pi * t) for k in (2, 3, 4)), abs=1e-13)
        assert v("FORSIN(TIME, -0.25, PI, 0, 1, 2, 3)", t) == pytest.approx(
            sum(k * math.sin(k * math.pi * (t + 0.25)) for k in (1, 2, 3)), abs=1e-13)
        assert v("SHF(TIME, 25D, PI, 360D, 0, 5)", t) == pytest.approx(
            5 + math.pi * math.sin(2 * math.pi * (t - 25 * D)), abs=1e-13)
        assert v("POLY(TIME, 10, 0, 25, 0, 0.75)", t) == pytest.approx(25 * (t - 10) + 0.75 * (t - 10) ** 3)
    assert v("DTOR") == math.pi / 180 and v("RTOD") == 180 / math.pi


def test_cheby_against_numpys_chebyshev_series():
    u = T - 0.4
    coef = [0.3, -1.2, 0.7, 0.05, -0.4, 0.9]
    law = MotionLaw(f"CHEBY(time, 0.4, {', '.join(map(str, coef))})")
    np.testing.assert_allclose(law.value(T), np.polynomial.chebyshev.chebval(u, coef), rtol=1e-13)


@pytest.mark.parametrize("text, value", [
    ("-2**2", -4.0), ("2**3**2", 512.0), ("-2**-1", -0.5), ("2*-3", -6.0), ("(-2)**2", 4.0), ("-2**-2**-1", None),
    ("2**-1*4", 2.0), ("1 - -1", 2.0), ("+3 * -(2)", -6.0)])
def test_arithmetic_as_adams_binds_it(text, value):
    """ADAMS: ** groups from the right, binds tighter than a sign on its left and looser than one on its right
    (-A**-B = -(A**(-B))), then * /, then + -."""
    expected = -(2 ** (-(2 ** -1))) if value is None else value
    assert MotionLaw(text).value(0.0) == pytest.approx(expected, rel=1e-15)


# ------------------------------------------------------------------------------------------------ derivatives

def fd4(f, t, h):
    """4th-order central difference: truncation h^4 f^(5) / 30, round-off ~ 2 eps |f| / h."""
    return (f(t - 2 * h) - 8 * f(t - h) + 8 * f(t + h) - f(t + 2 * h)) / (12 * h)


SPLINES = {"S1": (np.array([0.0, 0.7, 1.5, 2.0, 3.1, 4.0, 5.2]), np.array([0.0, 1.0, 0.4, 0.45, 0.4, 2.0, 1.5])),
           3: Spline((-1.0, 0.5, 1.0, 2.5), (1.0, -1.0, 0.0, 2.0), linear_extrapolate=True)}
SMOOTH_ONLY = ["AINT(2*time - 3)", "ANINT(2*time - 3)", "MOD(5*time - 7, 2)", "IF(time - 1: -time, 7, time**2)",
               "SIGN(time - 3, time - 1)"]  # these jump: derivatives checked through the force-law path below
DERIVATIVE_LAWS = [t for t in DEFINED if t not in SMOOTH_ONLY and not t.startswith("MAX")] + [
    "CUBSPL(time, 0, S1)", "CUBSPL(1.5*time - 0.3, 0, S1, 1)", "AKISPL(time, 0, S1)", "AKISPL(5 - time, 0, s1)",
    "CUBSPL(time - 1, 0, 3)", "AKISPL(time, 0, 3, 2) * time", "IF(time - 1: 0, 0, (time - 1)**3)",
    "STEP(time, 0, SIN(time), 3, time**2)", "VARVAL(V) * EXP(-VARVAL(2))"]


def _law(text):
    return MotionLaw(text, splines=SPLINES, variables={"V": "SHF(time, 0, 1, 2, 0, 0)", 2: "time/2 + VARVAL(V)"})


@pytest.mark.parametrize("text", DERIVATIVE_LAWS)
def test_derivatives_match_central_differences(text):
    """Velocity and acceleration (exact, chain rule on the tree) against 4th-order central differences of the
    value and the velocity, h = 1e-3 s, at samples at least 3h from every breakpoint, asked one at a time (a law
    with a kink is a motion only on spans without it). Truncation h^4 |f^(5)| / 30 <~ 1e-11 here
    (|f^(5)| < 300 for these laws) and round-off 2 eps |f| / h ~ 1e-12: tolerance 1e-8 of the scale, a wrong
    chain rule is off by O(1)."""
    law = _law(text)
    h = 1e-3
    t = np.linspace(0.05, 3.45, 60)
    if law.breakpoints:
        t = t[np.min(np.abs(t[:, None] - np.array(law.breakpoints)[None, :]), axis=1) > 3 * h]
    v = np.array([law.velocity(x) for x in t])
    a = np.array([law.acceleration(x) for x in t])
    fd_v = np.array([fd4(law.value, x, h) for x in t])
    fd_a = np.array([fd4(law.velocity, x, h) for x in t])
    np.testing.assert_allclose(v, fd_v, rtol=0, atol=1e-8 * (1 + np.abs(v).max()))
    np.testing.assert_allclose(a, fd_a, rtol=0, atol=1e-8 * (1 + np.abs(a).max()))


def test_velocity_of_a_kink_on_an_unknown_argument():
    """MAX on an argument not affine in time: one-sided velocities (its kink times are unknown, so it is no
    motion: acceleration refused), still equal to central differences away from the kinks."""
    law = MotionLaw("MAX(SIN(time), 0.5)")
    t = np.array([0.2, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(law.velocity(t), fd4(law.value, t, 1e-3), atol=1e-9)
    np.testing.assert_allclose(law.velocity(t), np.where(np.sin(t) > 0.5, np.cos(t), 0.0), atol=1e-15)
    with pytest.raises(InputError, match="in a motion, MAX must switch on an argument affine in time"):
        law.acceleration(t)


def test_hand_derivatives():
    law = MotionLaw("SIN(2*time) + POLY(time, 1, 0, 0, 3)")  # sin 2t + 3 (t - 1)^2
    t = np.array([0.3, 1.7])
    np.testing.assert_allclose(law.velocity(t), 2 * np.cos(2 * t) + 6 * (t - 1), rtol=1e-14)
    np.testing.assert_allclose(law.acceleration(t), -4 * np.sin(2 * t) + 6, rtol=1e-14)
    # HAVSIN'' = (h1 - h0) pi^2 / (2 (x1 - x0)^2) cos(pi D): +-pi^2/2 * 3/4 at the ends, from inside only
    hav = MotionLaw("HAVSIN(time, 1, 0, 3, 3)")
    assert hav.acceleration(1.0, side=1) == pytest.approx(3 * math.pi ** 2 / 8)
    assert hav.acceleration(3.0, side=-1) == pytest.approx(-3 * math.pi ** 2 / 8)
    assert hav.acceleration(1.0, side=-1) == 0.0 and hav.acceleration(3.0, side=1) == 0.0
    assert hav.velocity(2.0) == pytest.approx(3 * math.pi / 4)  # (h1 - h0) pi / (2 (x1 - x0)) at the middle
    # FORCOS' = -sum j w a_j sin(j w (t - x0))
    fc = MotionLaw("FORCOS(time, 0, 3, 0, 1, 2)")
    assert fc.velocity(0.4) == pytest.approx(-3 * math.sin(1.2) - 12 * math.sin(2.4))
    # ATAN2(sin 2t, cos 2t) = 2t on (-pi/2, pi/2): velocity 2, acceleration 0
    at2 = MotionLaw("ATAN2(2*SIN(2*time), 2*COS(2*time))")
    np.testing.assert_allclose(at2.velocity(t[:1]), [2.0], rtol=1e-14)
    np.testing.assert_allclose(at2.acceleration(t[:1]), [0.0], atol=1e-13)


def test_one_sided_derivatives_at_kinks_and_switches():
    """The rule: at a switch, side=+1 is the right limit in time and side=-1 the left one (for velocity and
    acceleration); the value is the function's own value there."""
    law = MotionLaw("ABS(time - 2)")
    assert (law.velocity(2.0, side=1), law.velocity(2.0, side=-1), law.value(2.0)) == (1.0, -1.0, 0.0)
    down = MotionLaw("MIN(4 - time, 2)")  # 2 until t = 2, then 4 - t
    assert (down.velocity(2.0, side=-1), down.velocity(2.0, side=1)) == (0.0, -1.0)
    cubic = MotionLaw("IF(time - 1: 0, 0, 3*(time - 1)**2)")  # velocity continuous, acceleration jumps 0 -> 6
    assert (cubic.acceleration(1.0, side=-1), cubic.acceleration(1.0, side=1)) == (0.0, 6.0)
    square = MotionLaw("IF(time - 1: 0, 0, (time - 1)**2)")  # acceleration jumps 0 -> 2
    assert (square.acceleration(1.0, side=-1), square.acceleration(1.0, side=1)) == (0.0, 2.0)
    assert square.breakpoints == (1.0,)


# --------------------------------------------------------------------------------------------------- splines

X, Y = SPLINES["S1"]


@pytest.mark.parametrize("name, reference", [("CUBSPL", CubicSpline(X, Y)), ("AKISPL", Akima1DInterpolator(X, Y))])
def test_splines_inside_the_data_match_scipy(name, reference):
    """Inside [x_0, x_n-1]: CUBSPL is the not-a-knot cubic spline (SciPy's CubicSpline default), AKISPL Akima's
    1970 method with his end slopes (SciPy's Akima1DInterpolator). iord = 0, 1, 2 and the time derivatives
    through x = 1.5 t. Outside the data they differ: SciPy extrapolates the end cubic, ADAMS (and structcheck)
    the parabola through the three end points (test_spline_extrapolation_as_adams)."""
    t = np.linspace(0.01, 3.45, 91)
    smooth = {"CUBSPL": 2, "AKISPL": 1}[name]  # continuous x-derivatives of the interpolation at the knots
    for k in range(3):
        law = MotionLaw(f"{name}(1.5*time, 0, S1, {k})", splines=SPLINES)
        np.testing.assert_allclose(law.value(t), reference(1.5 * t, k), rtol=0, atol=1e-12)
        if k <= smooth:  # else the law jumps at the knots: no motion
            np.testing.assert_allclose(law.velocity(t), 1.5 * reference(1.5 * t, k + 1), rtol=0, atol=1e-11)
        if k + 1 <= smooth:  # else its velocity jumps at the knots
            np.testing.assert_allclose(law.acceleration(t, side=1), 2.25 * reference(1.5 * t, k + 2), rtol=0,
                                       atol=1e-10)
        else:
            # (the not-a-knot spline's third derivative is continuous at x_1: the first jump is at x_2)
            first = X[1] if name == "AKISPL" else X[2]
            with pytest.raises(InputError, match=f"jumps at time {first / 1.5:g} s .* where {name} switches"):
                law.acceleration(t)


def test_akima_where_both_weights_vanish():
    """At a corner between two straight runs Akima's weights |m_{i+1} - m_i| and |m_{i-1} - m_{i-2}| are both 0:
    his slope is then the mean of the two chords, 0.5 here; SciPy agrees, here and everywhere."""
    x, y = np.arange(7.0), np.array([0, 1, 2, 3, 3, 3, 3.0])
    assert MotionLaw("AKISPL(time, 0, 1, 1)", splines={1: (x, y)}).value(3.0) == 0.5
    t = np.linspace(0, 6, 25)
    np.testing.assert_allclose(MotionLaw("AKISPL(time, 0, 1)", splines={1: (x, y)}).value(t),
                               Akima1DInterpolator(x, y)(t), atol=1e-14)


def test_akima_slope_by_hand_and_a_cubic_reproduced():
    # Akima's slope at x_2 = 1.5 from the chords m0..m3: (|m3 - m2| m1 + |m1 - m0| m2) / (|m3 - m2| + |m1 - m0|)
    m = np.diff(Y) / np.diff(X)
    s2 = (abs(m[3] - m[2]) * m[1] + abs(m[1] - m[0]) * m[2]) / (abs(m[3] - m[2]) + abs(m[1] - m[0]))
    assert MotionLaw("AKISPL(time, 0, S1, 1)", splines=SPLINES).value(1.5) == pytest.approx(s2, rel=1e-14)
    x = np.array([0.0, 0.4, 1.1, 1.5, 2.6, 3.0])
    cubic = lambda u: 1 - u + 0.5 * u ** 2 - 0.3 * u ** 3  # noqa: E731
    law = MotionLaw("CUBSPL(time, 0, 1)", splines={1: (x, cubic(x))})
    t = np.linspace(0, 3, 17)
    np.testing.assert_allclose(law.value(t), cubic(t), atol=1e-13)  # not-a-knot reproduces a cubic exactly


def test_spline_extrapolation_as_adams():
    """Outside the data, ADAMS extrapolates by the parabola through the three end points (the line through the
    two end points with LINEAR_EXTRAPOLATE); written here as Lagrange's parabola."""
    def parabola(xs, ys, u):
        return sum(ys[i] * np.prod([(u - xs[j]) / (xs[i] - xs[j]) for j in range(3) if j != i], axis=0)
                   for i in range(3))
    u = np.array([-0.8, -0.1])
    law = MotionLaw("AKISPL(time, 0, S1)", splines=SPLINES)
    np.testing.assert_allclose(law.value(u), parabola(X[:3], Y[:3], u), rtol=1e-13)
    np.testing.assert_allclose(law.value(u + 6.0), parabola(X[-3:], Y[-3:], u + 6.0), rtol=1e-13)
    lin = MotionLaw("CUBSPL(time, 0, 3)", splines=SPLINES)  # x from -1 to 2.5, LINEAR_EXTRAPOLATE
    assert lin.value(3.5) == pytest.approx(2.0 + (2.0 - 0.0) / 1.5 * 1.0)
    assert lin.value(-2.0) == pytest.approx(1.0 - (-1.0 - 1.0) / 1.5 * 1.0)


@pytest.mark.parametrize("text, splines, needle", [
    ("AKISPL(time, 0, 9)", SPLINES, r"no SPLINE '9'; the splines given are \['S1', 3\]"),
    ("AKISPL(time, 0, S1, 3)", SPLINES, "AKISPL's iord .* must be 0, 1 or 2"),
    ("CUBSPL(time, 0, S1, 0, 5)", SPLINES, "CUBSPL needs 3 to 4 arguments, got 5"),
    ("CUBSPL(time, 0, 1.5)", SPLINES, "third argument .* must be a name or an integer id"),
    ("CUBSPL(time, 0, 1)", {1: ([0, 1, 2], [0, 1, 0])}, "3 points; a SPLINE needs at least 4"),
    ("CUBSPL(time, 0, 1)", {1: ([0, 1, 1, 2], [0, 1, 0, 1])}, r"x must increase strictly; x\[2\] = 1"),
])
def test_spline_errors(text, splines, needle):
    with pytest.raises(InputError, match=needle):
        MotionLaw(text, splines=splines)


# --------------------------------------------------------------------------------------- breakpoints and grid

@pytest.mark.parametrize("text, times", [
    ("IF(time - 2: 0, 0, 98)", [2.0]),
    ("HAVSIN(2*time, 1, 0, 3, 5)", [0.5, 1.5]),
    ("ABS(time - 1.3) + MAX(time/2, 1) + DIM(4, 2*time)", [1.3, 2.0]),
    ("AKISPL(2*time, 0, S1)", list(X / 2)),
    ("SIGN(3, VARVAL(1))", [2.5]),
])
def test_switch_times_are_breakpoints_in_the_grid(text, times):
    law = MotionLaw(text, splines=SPLINES, variables={1: "time - 2.5"})
    np.testing.assert_allclose(law.breakpoints, sorted(times), rtol=1e-15)
    grid = time_grid([law], 4.0, n_frames=5)
    for b in times:
        assert np.min(np.abs(grid.t - b)) < 1e-12


def test_a_force_switched_on_by_if_is_a_ramp_of_zero_duration():
    """A jump of a force law at a known time is the fastest load change there is: the grid reports it as a ramp
    of zero duration (so the load-ramp warnings see a step load); an IF whose branches meet is no ramp."""
    law = MotionLaw("IF(time - 2: 0, 0, 98) + STEP(time, 3, 0, 4, 1)")
    assert law.ramp_spans == ((3.0, 4.0), (2.0, 2.0)) and law.ramps == (0.0, 1.0)
    assert time_grid([law], 5.0, n_frames=6).shortest_ramp == 0.0
    assert MotionLaw("IF(time - 2: 0, 0, (time - 2)**2)").ramps == ()


# ----------------------------------------------------------------------------------------------- refusals

@pytest.mark.parametrize("text, needle", [
    ("IF(time - 2: 0, 0, 1.5)", "the law jumps at time 2 s (from 0 to 1.5) where IF switches"),
    ("IF(time - 2: 0, 3, 0)", "the law jumps at time 2 s (from 0 to 3) where IF switches"),
    ("SIGN(2, time - 1)", "the law jumps at time 1 s (from -2 to 2) where SIGN switches"),
    ("AINT(time/2)", "the law jumps at time 2 s (from 0 to 1) where AINT switches"),
    ("MOD(time, 1.5)", "the law jumps at time 1.5 s (from 1.5 to 0) where MOD switches"),
    ("ANINT(time)", "the law jumps at time 0.5 s (from 0 to 1) where ANINT switches"),
    ("IF(SIN(time): 0, 0, 1)", "in a motion, IF must switch on an argument affine in time"),
])
def test_a_law_that_jumps_is_refused_as_a_motion_but_not_as_a_force(text, needle):
    law = MotionLaw(text)
    t = np.linspace(0.0, 3.0, 31)
    law.value(t)  # a force law may jump
    for f in (law.velocity, law.acceleration):
        with pytest.raises(InputError) as err:
            f(t)
        assert needle in str(err.value), str(err.value)


def test_a_velocity_jump_is_refused_for_accelerations_only():
    law = MotionLaw("ABS(time - 2)")
    law.velocity(np.linspace(0, 3, 7))  # one-sided velocities are defined
    with pytest.raises(InputError, match=r"its velocity jumps at time 2 s \(from -1 to 1 per s\) where ABS"):
        law.acceleration(np.linspace(0, 3, 7))
    law.acceleration(np.linspace(0, 1.9, 7))  # the kink outside the times asked
    assert MotionLaw("IF(time - 2: 0, 0, 1)").velocity(np.array([3.0, 4.0])).tolist() == [0.0, 0.0]


def test_if_evaluates_each_branch_only_where_taken():
    law = MotionLaw("IF(time - 1: 0, 0, 1/(time - 1))")
    np.testing.assert_array_equal(law.value(np.array([0.0, 1.0, 3.0])), [0.0, 0.0, 0.5])


@pytest.mark.parametrize("variables, chain", [
    ({"A": "VARVAL(B)", "B": "VARVAL(a) + 1"}, "A -> B -> A"),
    ({1: "2 * VARVAL(1)"}, "1 -> 1"),
    ({1: "VARVAL(2)", 2: "VARVAL(3)", 3: "time + VARVAL(2)"}, "2 -> 3 -> 2"),
])
def test_varval_cycles_are_refused(variables, chain):
    with pytest.raises(InputError, match=f"VARIABLEs refer to each other in a cycle \\({chain}\\)"):
        MotionLaw("VARVAL(A)" if "A" in variables else "VARVAL(1)", variables=variables)


def test_varval_values_and_names():
    law = MotionLaw("VARVAL(2) + varval(speed)", variables={2: "time**2", "SPEED": "3*VARVAL(2)"})
    assert law.value(2.0) == pytest.approx(16.0)
    assert law.velocity(2.0) == pytest.approx(16.0)
    with pytest.raises(InputError, match=r"no VARIABLE '7'; the variables given are \[2, 'SPEED'\]"):
        MotionLaw("VARVAL(7)", variables={2: "time", "SPEED": "1"})


def test_unknown_names_list_every_known_one_on_one_line():
    with pytest.raises(InputError) as err:
        MotionLaw("2 * BISTOP(time)")
    line = next(x for x in str(err.value).splitlines() if "unknown name 'BISTOP'" in x)
    for name in ["TIME", "PI", "DTOR", "RTOD", "VARVAL", *FUNCTIONS]:
        assert f" {name}," in line or f" {name} " in line or f" {name}\n" in line + "\n"


@pytest.mark.parametrize("text, needle", [
    ("IF(time, 0, 0, 1)", "expected ':', found ','"),
    ("IF(time: 0, 0)", "IF needs 4 arguments, got 3"),
    ("POLY(time)", r"POLY needs 3 to 33 arguments, got 1 \(POLY\(x, x0, a0, ..., a30\)\)"),
    ("ASIN(time)", "ASIN's argument must be in \\[-1, 1\\]; it is 2 at time 2 s"),
    ("LOG(time - 0.5)", "LOG's argument must be positive; it is 0 at time 0.5 s"),
    ("MOD(time, time - 1)", "MOD's divisor is 0 at time 1 s"),
])
def test_argument_errors(text, needle):
    with pytest.raises(InputError, match=needle):
        MotionLaw(text).value(np.array([0.5, 1.0, 2.0]))


def test_a_spline_used_from_its_first_knot_has_no_jump_there():
    """CUBSPL on samples of a law starting at rest, used from its first knot t = 0: the parabola extrapolated
    before the knot (never used) has another slope (~1e-6/s) than the spline, which is no jump of the motion; over
    a span that starts before the knot it is one, reported with its digits (not "from 0 to 0"). A law that jumps
    at the span's start itself (IF's value at 0 is not its right limit) is still refused."""
    x = np.linspace(0.0, 2.0, 201)
    law = MotionLaw("CUBSPL(time, 0, 1)", splines={1: (x, 0.5 * (1 - np.cos(np.pi * x / 2)) ** 2)})
    t = np.linspace(0.0, 2.0, 41)
    assert np.all(np.isfinite(law.acceleration(t))) and abs(law.velocity(0.0)) < 1e-5
    with pytest.raises(InputError, match=r"velocity jumps at time 0 s \(from -4\.56\d*e-06 to 3\.27\d*e-06 per s\)"):
        law.acceleration(np.linspace(-1.0, 2.0, 41))
    with pytest.raises(InputError, match="jumps at time 0 s"):
        MotionLaw("IF(time: 0, 0, 1)").velocity(t)
    assert MotionLaw("IF(time: 0, 1, 1)").velocity(t)[0] == 0.0
