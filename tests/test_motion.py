"""Motion laws against hand-evaluated values, finite differences and one-sided limits."""
import math

import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.motion import (BSpline, MinimumJerk, ModifiedTrapezoidal, MotionLaw, Quintic, Tabulated,
                                Trapezoidal, time_grid)

# paper 004, section 3.1, verbatim
J1 = "STEP(time,3,0,5,90d) + STEP(time,8,0,10,-90d)"
J2 = "STEP(time,0,0,2,75d) + STEP(time,2,0,5,-75d) + STEP(time,5,0,8,75d) + STEP(time,8,0,10,-75d)"
J3 = "STEP(time,0,0,2,-75d) + STEP(time,2,0,5,75d) + STEP(time,5,0,8,-75d) + STEP(time,8,0,10,75d)"
FORCE = "STEP(time, 1.99, 0, 2, 98) + STEP(time, 7.99, 0, 8, -98)"


def step(x, x0, h0, x1, h1):
    """ADAMS STEP by hand."""
    if x <= x0:
        return h0
    if x >= x1:
        return h1
    d = (x - x0) / (x1 - x0)
    return h0 + (h1 - h0) * d * d * (3 - 2 * d)


@pytest.mark.parametrize("t", [0.0, 0.5, 1.0, 2.0, 2.7, 3.0, 4.0, 4.9, 5.0, 6.5, 8.0, 8.3, 9.5, 10.0])
def test_paper004_laws_match_hand_steps(t):
    d = math.radians
    assert MotionLaw(J1).value(t) == pytest.approx(step(t, 3, 0, 5, d(90)) + step(t, 8, 0, 10, -d(90)), abs=1e-15)
    assert MotionLaw(J2).value(t) == pytest.approx(
        step(t, 0, 0, 2, d(75)) + step(t, 2, 0, 5, -d(75)) + step(t, 5, 0, 8, d(75)) + step(t, 8, 0, 10, -d(75)),
        abs=1e-15)
    assert MotionLaw(J3).value(t) == pytest.approx(-MotionLaw(J2).value(t), abs=1e-15)
    assert MotionLaw(FORCE).value(t) == pytest.approx(step(t, 1.99, 0, 2, 98) + step(t, 7.99, 0, 8, -98), abs=1e-12)


def test_hand_values():
    assert math.degrees(MotionLaw(J1).value(4.0)) == pytest.approx(45.0)
    assert math.degrees(MotionLaw(J1).value(6.0)) == pytest.approx(90.0)
    assert MotionLaw(FORCE).value(5.0) == pytest.approx(98.0)
    assert MotionLaw(FORCE).value(1.995) == pytest.approx(49.0)


@pytest.mark.parametrize("text", [J1, J2, FORCE, "STEP5(time, 1, -2, 3, 4) * SIN(2*PI*time/7) + cos(time)**2",
                                  "-(3.5e-1 * TIME ** 3) / (2 + time)", "step(sin(time), -0.5, 0, 0.5, 1)"])
def test_derivatives_match_finite_differences(text, rng):
    law = MotionLaw(text)
    bps = np.array(law.breakpoints) if law.breakpoints else np.array([-1.0])
    t = rng.uniform(0.1, 9.9, 200)
    t = t[np.min(np.abs(t[:, None] - bps[None, :]), axis=1) > 1e-3]
    h = 1e-5
    fd_v = (law.value(t + h) - law.value(t - h)) / (2 * h)
    fd_a = (law.velocity(t + h) - law.velocity(t - h)) / (2 * h)
    scale_v = max(1.0, np.abs(law.velocity(t)).max())
    scale_a = max(1.0, np.abs(law.acceleration(t)).max())
    np.testing.assert_allclose(law.velocity(t), fd_v, atol=1e-6 * scale_v * 1e3)
    np.testing.assert_allclose(law.acceleration(t), fd_a, atol=1e-6 * scale_a * 1e3)


def test_one_sided_accelerations_at_breakpoints():
    law = MotionLaw("STEP(time, 1, 0, 3, 2)")
    # STEP'' = 6 (h1-h0)/(x1-x0)^2 (1 - 2D): +3 at x0+, -3 at x1-, 0 outside
    assert law.acceleration(1.0, side=1) == pytest.approx(3.0)
    assert law.acceleration(1.0, side=-1) == 0.0
    assert law.acceleration(3.0, side=-1) == pytest.approx(-3.0)
    assert law.acceleration(3.0, side=1) == 0.0
    five = MotionLaw("STEP5(time, 1, 0, 3, 2)")
    assert five.acceleration(1.0, 1) == pytest.approx(0.0, abs=1e-12)
    assert five.acceleration(3.0, -1) == pytest.approx(0.0, abs=1e-12)
    assert five.value(2.0) == pytest.approx(1.0)


def test_degrees_and_case():
    assert MotionLaw("90D").value(0.0) == pytest.approx(math.pi / 2)
    assert MotionLaw("Step(TIME,0,0,1,180d)").value(1.0) == pytest.approx(math.pi)
    assert MotionLaw("2*pi").value(3.0) == pytest.approx(2 * math.pi)


@pytest.mark.parametrize("text, needle, pos", [
    ("STEP(time,3,0,5)", "STEP needs 5 arguments, got 4", 0),
    ("STEP(time,3,0,5,90d) + FOO(time)", "unknown name 'FOO'", 23),
    ("STEP(time,3,0,5,90d", "expected ')'", 19),
    ("1 + * 2", "unexpected '*'", 4),
    ("time $ 2", "unexpected character '$'", 5),
    ("__import__(os)", "unknown name '__import__'", 0),
    ("open('x')", "unexpected character", 5),
])
def test_malformed_expressions_point_at_position(text, needle, pos):
    with pytest.raises(InputError) as err:
        MotionLaw(text)
    msg = str(err.value)
    assert needle in msg and repr(text) in msg
    caret_line = msg.splitlines()[-1]
    assert caret_line.index("^") - 2 == pos


def test_step_with_inverted_interval_and_division_by_zero():
    with pytest.raises(InputError, match="x1 > x0"):
        MotionLaw("STEP(time, 5, 0, 3, 1)").value(1.0)
    with pytest.raises(InputError, match="division by zero at time 2"):
        MotionLaw("1/(time-2)").value(np.array([1.0, 2.0]))
    with pytest.raises(InputError, match="NaN"):
        MotionLaw("time").value(np.array([np.nan]))


def test_quintic_and_minimum_jerk_boundary_conditions():
    q = Quintic(1.0, 3.0, 0.2, 1.4, v0=0.1, v1=-0.2, a0=0.3, a1=0.0)
    assert (q.value(1.0), q.velocity(1.0), q.acceleration(1.0)) == pytest.approx((0.2, 0.1, 0.3))
    assert (q.value(3.0), q.velocity(3.0), q.acceleration(3.0, side=-1)) == pytest.approx((1.4, -0.2, 0.0), abs=1e-12)
    mj = MinimumJerk(0, 2, 0, 1)
    # Flash-Hogan closed form 10 s^3 - 15 s^4 + 6 s^5
    s = np.linspace(0, 1, 11)
    np.testing.assert_allclose(mj.value(2 * s), 10 * s ** 3 - 15 * s ** 4 + 6 * s ** 5, atol=1e-14)


def test_trapezoidal_profiles():
    tr = Trapezoidal(0.0, 1.0, v_max=0.5, a_max=1.0)
    assert tr.t1 == pytest.approx(2 * 0.5 + 1.0 / 0.5 - 0.5)
    t = np.linspace(0, tr.t1, 4001)
    assert tr.value(tr.t1) == pytest.approx(1.0)
    assert np.max(tr.velocity(t)) <= 0.5 + 1e-12
    np.testing.assert_allclose(np.gradient(tr.value(t), t), tr.velocity(t), atol=2e-3)
    # paper 000: 700 mm lift, v_max 1200 mm/s, a_max 3200 mm/s^2
    mt = ModifiedTrapezoidal(0.0, 0.7, v_max=1.2, a_max=3.2)
    t = np.linspace(0, mt.t1, 20001)
    assert mt.value(mt.t1) == pytest.approx(0.7)
    assert mt.velocity(t).max() == pytest.approx(1.2)
    assert np.abs(mt.acceleration(t)).max() == pytest.approx(3.2, rel=1e-6)
    np.testing.assert_allclose(np.gradient(mt.value(t), t), mt.velocity(t), atol=1e-6)
    np.testing.assert_allclose(np.gradient(mt.velocity(t), t)[1:-1], mt.acceleration(t)[1:-1], atol=2e-3)


def test_trapezoid_one_sided_accelerations_at_every_breakpoint():
    tr = Trapezoidal(0.0, 1.0, v_max=0.5, a_max=1.0, t0=0.25)
    t0, ta_end, tc_end, t1 = tr.breakpoints  # start, end of acceleration, start of deceleration, stop
    b = np.array([t0, ta_end, tc_end, t1])
    np.testing.assert_array_equal(tr.acceleration(b, side=-1), [0.0, 1.0, 0.0, -1.0])
    np.testing.assert_array_equal(tr.acceleration(b, side=1), [1.0, 0.0, -1.0, 0.0])
    down = Trapezoidal(1.0, 0.0, v_max=0.5, a_max=1.0, t0=0.25)
    np.testing.assert_array_equal(down.acceleration(b, side=-1), [0.0, -1.0, 0.0, 1.0])


def test_bspline_through_waypoints():
    b = BSpline((0, 1, 2.5, 4), (0.0, 0.5, -0.2, 1.0))
    np.testing.assert_allclose(b.value(np.array([0, 1, 2.5, 4.0])), [0, 0.5, -0.2, 1.0], atol=1e-12)
    assert b.velocity(0.0) == pytest.approx(0.0, abs=1e-12) and b.acceleration(4.0, -1) == pytest.approx(0, abs=1e-10)


def test_tabulated_recovers_derivatives(tmp_path):
    t = np.linspace(0, 2, 201)
    path = tmp_path / "joint.csv"
    path.write_text("time,j1\n" + "".join(f"{float(a)!r},{math.degrees(math.sin(3 * a))!r}\n" for a in t))
    law = Tabulated.from_csv(path, units="deg")
    tt = np.linspace(0.2, 1.8, 50)
    np.testing.assert_allclose(law.value(tt), np.sin(3 * tt), atol=1e-9)
    np.testing.assert_allclose(law.velocity(tt), 3 * np.cos(3 * tt), atol=1e-6)
    np.testing.assert_allclose(law.acceleration(tt), -9 * np.sin(3 * tt), atol=1e-4)


def test_tabulated_errors_name_row_and_column(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("time,j1\n0,0\n0.1,1\n0.2,nan\n0.3,1\n0.4,1\n0.5,1\n")
    with pytest.raises(InputError, match="row 4, column 'j1'"):
        Tabulated.from_csv(p)
    p.write_text("time,j1\n0,0\n0.1,1\n0.1,2\n0.3,1\n0.4,1\n0.5,1\n")
    with pytest.raises(InputError, match="time does not increase at row 3"):
        Tabulated.from_csv(p)
    with pytest.raises(InputError, match="no column 'j9'"):
        Tabulated.from_csv(p, column="j9")


def test_time_grid_contains_breakpoints_and_resolves_short_ramp():
    laws = [MotionLaw(J1), MotionLaw(J2), MotionLaw(FORCE)]
    g = time_grid(laws, 10.0, n_frames=101, min_ramp_samples=10)
    for b in (0, 1.99, 2, 3, 5, 7.99, 8, 10):
        assert np.min(np.abs(g.t - b)) < 1e-12
    assert np.allclose(g.t[g.frame_index], np.linspace(0, 10, 101))
    inside = (g.t >= 1.99) & (g.t <= 2.0)
    assert inside.sum() >= 11
    assert g.shortest_ramp == pytest.approx(0.01)
    assert len(g.t) < 1000  # fine only near the short ramps
    assert np.all(np.diff(g.t) > 0)
