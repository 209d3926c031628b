"""Motion laws against hand-evaluated values, finite differences and one-sided limits."""
import math

import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.motion import (BSpline, MinimumJerk, ModifiedTrapezoidal, MotionLaw, Quintic, Tabulated, Trapezoidal,
                                time_grid)

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


def fd4(f, t, h):
    """4th-order central difference of f at t: error h^4 f^(5) / 30 + round-off ~ eps |f| / h."""
    return (f(t - 2 * h) - 8 * f(t - h) + 8 * f(t + h) - f(t + 2 * h)) / (12 * h)


@pytest.mark.parametrize("text", [J1, J2, FORCE, "STEP5(time, 1, -2, 3, 4) * SIN(2*PI*time/7) + cos(time)**2",
                                  "-(3.5e-1 * TIME ** 3) / (2 + time)", "sin(STEP(2*time - 1, 3, 0, 9, 2))",
                                  "STEP(time/2 + 0.5, 1, 0, 2, 1) * time ** 2"])
def test_derivatives_match_finite_differences(text, rng):
    law = MotionLaw(text)
    h = 1e-3
    bps = np.array(law.breakpoints) if law.breakpoints else np.array([-1.0])
    t = np.r_[rng.uniform(0.1, 9.9, 200), (bps[:-1] + 2 * bps[1:]) / 3]  # also inside every ramp, however short
    t = t[np.min(np.abs(t[:, None] - bps[None, :]), axis=1) > 2.5 * h]  # the stencil must not straddle a kink
    scale_v = max(1.0, np.abs(law.velocity(t)).max())
    scale_a = max(1.0, np.abs(law.acceleration(t)).max())
    # truncation h^4 f^(5) / 30 <~ 1e-11 relative for these laws (a cubic STEP ramp is differenced exactly up to
    # round-off ~ 1e-16 |f| / h); measured errors are below 5e-12 of the scale
    np.testing.assert_allclose(law.velocity(t), fd4(law.value, t, h), rtol=0, atol=1e-10 * scale_v)
    np.testing.assert_allclose(law.acceleration(t), fd4(law.velocity, t, h), rtol=0, atol=1e-10 * scale_a)


@pytest.mark.parametrize("text, ramp", [
    ("STEP(time - 1, 0, 0, 2, 1)", (1.0, 3.0)),
    ("STEP(2*time, 1, 0, 3, 1)", (0.5, 1.5)),
    ("STEP(time/2 + 0.5, 1, 0, 2, 1)", (1.0, 3.0)),
    ("STEP5(-time, -3, 1, -1, 0)", (1.0, 3.0)),  # decreasing argument: the ramp runs from x1 back to x0
    ("STEP(4 - (time - 2)*2 + 3*time, 11, 0, 12, 1)", (3.0, 4.0)),  # x = time + 8
    ("STEP((time - 1.5)*100, 0, 0, 1, 2d)", (1.5, 1.51)),
])
def test_affine_step_arguments_give_breakpoints(text, ramp):
    law = MotionLaw(text)
    np.testing.assert_allclose(law.breakpoints, ramp, rtol=1e-14)
    np.testing.assert_allclose(law.ramps, [ramp[1] - ramp[0]], rtol=1e-12)
    # independently of the breakpoint algebra: the law is at rest just outside the ramp and moving just inside
    a, b = ramp
    eps = 1e-6 * (b - a)
    assert law.velocity(a - eps) == 0.0 and law.velocity(b + eps) == 0.0
    assert law.velocity(a + eps) != 0.0 and law.velocity(b - eps) != 0.0
    # the analysis grid contains both ends and resolves the ramp with min_ramp_samples intervals
    g = time_grid([law], 5.0, n_frames=11, min_ramp_samples=10)
    assert np.min(np.abs(g.t - a)) < 1e-12 and np.min(np.abs(g.t - b)) < 1e-12
    assert np.sum((g.t >= a - 1e-12) & (g.t <= b + 1e-12)) >= 11
    assert g.shortest_ramp == pytest.approx(b - a, rel=1e-12)


@pytest.mark.parametrize("text, needle", [
    ("STEP(SIN(time), -0.5, 0, 0.5, 1)", "STEP's first argument must be affine in time"),
    ("STEP5(time*time, 0, 0, 1, 1)", "STEP5's first argument must be affine in time"),
    ("2 + STEP(1/(time + 1), 0, 0, 1, 1)", "STEP's first argument must be affine in time"),
    ("STEP(time, time, 0, 5, 1)", "x0 and x1 .* must be constants"),
])
def test_non_affine_step_arguments_are_rejected(text, needle):
    with pytest.raises(InputError, match=needle):
        MotionLaw(text)


def test_constant_step_argument_has_no_breakpoints():
    law = MotionLaw("STEP(2, 1, 0, 3, 4) + STEP(SIN(1), 0, 0, 1, 1) * time")
    assert law.breakpoints == ()
    assert law.value(2.0) == pytest.approx(step(2, 1, 0, 3, 4) + step(math.sin(1), 0, 0, 1, 1) * 2.0)


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


def test_tabulated_errors_name_row_column_and_time(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("time,j1\n0,0\n0.1,1\n0.2,nan\n0.3,1\n0.4,1\n0.5,1\n")
    with pytest.raises(InputError, match=r"bad.csv, row 4, column 'j1', time 0.2 s: value is NaN"):
        Tabulated.from_csv(p)
    p.write_text("time,j1\n0,0\n0.1,1\nnan,2\n0.3,1\n0.4,1\n0.5,1\n")
    with pytest.raises(InputError, match=r"row 4, column 'time': the time is NaN"):
        Tabulated.from_csv(p)
    p.write_text("time,j1\n0,0\n0.1,1\n0.1,2\n0.3,1\n0.4,1\n0.5,1\n")
    with pytest.raises(InputError, match="time does not increase at row 3"):
        Tabulated.from_csv(p)
    with pytest.raises(InputError, match="no column 'j9'"):
        Tabulated.from_csv(p, column="j9")


def test_tabulated_direct_nan_and_shape_errors():
    t = np.linspace(0, 1, 8)
    q = np.sin(t)
    q[5] = np.nan
    with pytest.raises(InputError, match=r"table: the value at index 5 \(time 0.714286 s\) is nan"):
        Tabulated(t, q)
    t2 = t.copy()
    t2[2] = np.nan
    with pytest.raises(InputError, match=r"the time at index 2 is nan"):
        Tabulated(t2, np.sin(t))
    with pytest.raises(InputError, match=r"8 times but 7 values"):
        Tabulated(t, np.sin(t[:7]))
    with pytest.raises(InputError, match=r"outside must be 'error' or 'hold'"):
        Tabulated(t, np.sin(t), outside="clip")


def test_tabulated_outside_the_table():
    t = np.linspace(1.0, 3.0, 41)
    law = Tabulated(t, np.sin(t))
    assert law.breakpoints == (1.0, 3.0)
    with pytest.raises(InputError, match=r"time 3.5 s is outside the table's span \[1, 3\] s"):
        law.velocity(np.array([2.0, 3.5]))
    with pytest.raises(InputError, match=r"time 0 s is outside"):
        law.value(0.0)
    # the ends themselves (and round-off beyond them) are inside
    assert law.value(3.0 + 1e-15) == pytest.approx(math.sin(3.0), abs=1e-12)
    # hold: end values with zero velocity and acceleration, consistently (the value does not move out there)
    held = Tabulated(t, np.sin(t), outside="hold")
    out = np.array([0.0, 0.5, 3.2, 10.0])
    np.testing.assert_allclose(held.value(out), np.sin([1, 1, 3, 3]), atol=1e-12)
    assert not held.velocity(out).any() and not held.acceleration(out).any()
    h = 1e-3
    for x in (0.5, 3.2):
        assert (held.value(x + h) - held.value(x - h)) / (2 * h) == 0.0
    # inside, the spline; one-sided accelerations at the ends
    assert held.acceleration(1.0, side=1) == pytest.approx(-math.sin(1.0), abs=1e-3)
    assert held.acceleration(1.0, side=-1) == 0.0
    assert held.acceleration(3.0, side=-1) == pytest.approx(-math.sin(3.0), abs=1e-3)
    assert held.acceleration(3.0, side=1) == 0.0


def test_time_grid_contains_table_ends():
    t = np.linspace(0.37, 2.61, 30)
    g = time_grid([Tabulated(t, t ** 2, outside="hold"), MotionLaw("STEP(time, 1, 0, 2, 1)")], 4.0, n_frames=5)
    for b in (0.37, 2.61, 1.0, 2.0):
        assert np.min(np.abs(g.t - b)) < 1e-12
    assert set(g.breakpoints) == {0.37, 2.61, 1.0, 2.0}


def test_time_grid_contains_breakpoints_and_resolves_short_ramp():
    laws = [MotionLaw(J1), MotionLaw(J2), MotionLaw(FORCE)]
    g = time_grid(laws, 10.0, n_frames=101, min_ramp_samples=10)
    for b in (0, 1.99, 2, 3, 5, 7.99, 8, 10):
        assert np.min(np.abs(g.t - b)) < 1e-12
    frames = np.linspace(0, 10, 101)  # the output frames: the samples nearest the uniform times, within half a step
    assert np.array_equal(g.frame_index, [np.argmin(np.abs(g.t - f)) for f in frames])
    assert np.max(np.abs(g.t[g.frame_index] - frames)) <= g.max_dt / 2
    inside = (g.t >= 1.99) & (g.t <= 2.0)
    assert inside.sum() >= 11
    assert g.shortest_ramp == pytest.approx(0.01)
    assert len(g.t) < 1000  # fine only near the short ramps
    assert np.all(np.diff(g.t) > 0)


def test_breakpoints_a_round_off_apart_stay_samples_and_a_spike_between_them_stays_there():
    """A category-0 stop's brakes bite at events 3.1e-10 and 5.6e-12 s apart (the simulator's event times); a
    held wrist joint's acceleration is -373 rad/s^2 between the first and the last and 0 after. Every one of them
    must be a sample: the grid had crowded ramp samples at round-off spacing before the last one and merged it
    away, so the spike's value held until the next sample 0.6 ms on and the loads took it over that whole step.
    Check by conservation: the sampled accelerations, taken linear between the samples as the loads are, integrate
    to the law's velocity change (about -1e-7 rad/s), up to the JUMP_S ramps before each jump (373 x 1e-7 s); the
    merged grid gave 0.12 rad/s."""
    from structcheck.cases.stopcase import SampledLaw
    from structcheck.motion.grid import JUMP_S

    b1 = 0.05
    b2, b3 = b1 + 3.12100568e-10, b1 + 3.12100568e-10 + 5.63282754e-12
    t = np.array([0.0, b1, b2, b3, 0.25])
    law = SampledLaw(t, np.zeros(5), np.zeros(5), np.array([0.0, -373.0, -373.0, 0.0, 0.0]), events=(b1, b2, b3))
    g = time_grid([law], 0.25, n_frames=101)
    for b in (b1, b2, b3):
        assert np.min(np.abs(g.t - b)) == 0.0
    a = law.acceleration(g.t)
    impulse = float(np.sum(np.diff(g.t) * (a[1:] + a[:-1]) / 2))
    assert abs(impulse) < 2 * 373.0 * JUMP_S
    assert np.all(np.diff(g.t) > 1e-12)
