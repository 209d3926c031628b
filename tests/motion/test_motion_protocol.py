"""The motion-law protocol and as_law: every shipped law is a Law; as_law turns each accepted kind of input into a
Law (a partial law object through an adapter whose one-sided acceleration is the plain one) and rejects the rest
by name."""
import math

import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.motion import (BSpline, CartesianLine, Constant, Law, MinimumJerk, ModifiedTrapezoidal, MotionLaw,
                                Quintic, Tabulated, Trapezoidal, as_law, time_grid)
from structcheck.motion.span import in_span


def line_joint_law():
    """One joint's law along a short Cartesian line of paper 004's arm (joints 4-6 locked at home)."""
    from structcheck.model.robot import Robot
    from structcheck.rigid.kinematics import forward_kinematics, point_world

    dh = [(0, 0, 0.25), (math.pi / 2, 0, 0), (0, 0.385, 0), (0, 0.392, 0), (-math.pi / 2, 0, 0), (0, 0, 0.188)]
    home = np.radians([90, 90, 90, -90, 0, 0])
    robot = Robot.from_modified_dh(dh, home=home).with_points({"tcp": ("link6", (0.0, 0.0, 0.05))})
    p0 = point_world(robot, forward_kinematics(robot, home), "tcp")[0]
    line = CartesianLine(robot, "tcp", p0, p0 + np.array([0.2, 0.1, -0.2]), Quintic(0.0, 1.5, 0.0, 0.3),
                         locked=["joint4", "joint5", "joint6"])
    return line.joint_laws()["joint2"]


T_TAB = np.linspace(0.5, 2.5, 21)
SHIPPED = {
    "MotionLaw": lambda: MotionLaw("STEP(time, 1, 0, 2, 90d) + SIN(time)"),
    "Constant": lambda: Constant(0.25),
    "Quintic": lambda: Quintic(0.5, 2.0, 0.0, 1.0, v0=0.1),
    "MinimumJerk": lambda: MinimumJerk(0.0, 2.0, 0.0, 1.0),
    "Trapezoidal": lambda: Trapezoidal(0.0, 1.0, v_max=0.5, a_max=1.0),
    "ModifiedTrapezoidal": lambda: ModifiedTrapezoidal(0.0, 0.7, v_max=1.2, a_max=3.2),
    "BSpline": lambda: BSpline((0.0, 1.0, 2.5, 4.0), (0.0, 0.5, -0.2, 1.0)),
    "Tabulated": lambda: Tabulated(T_TAB, np.sin(T_TAB)),
    "Tabulated hold": lambda: Tabulated(T_TAB, np.sin(T_TAB), outside="hold"),
    "LineJointLaw": line_joint_law,
}


@pytest.mark.parametrize("kind", SHIPPED)
def test_every_shipped_law_is_a_law_as_it_is(kind):
    law = SHIPPED[kind]()
    assert isinstance(law, Law)
    assert as_law(law) is law  # a full law whose acceleration takes side= is not wrapped
    assert isinstance(law.breakpoints, tuple) and isinstance(law.ramps, tuple)
    t = np.array([[1.0, 1.5], [2.0, 2.25]])
    for out in (law.value(t), law.velocity(t), law.acceleration(t, side=1), law.acceleration(t, side=-1)):
        assert np.shape(out) == t.shape


def test_strings_and_numbers():
    law = as_law("STEP(time, 1, 0, 2, 90d)")
    assert isinstance(law, MotionLaw) and law.text == "STEP(time, 1, 0, 2, 90d)"
    assert law.value(2.0) == pytest.approx(math.pi / 2)
    for x in (3, 2.5, np.float64(-1.5), np.int32(7), np.float32(0.5)):
        c = as_law(x)
        assert c == Constant(float(x)) and type(c.q) is float
        assert c.breakpoints == () and c.ramps == ()
        np.testing.assert_array_equal(c.value(np.zeros(3)), [float(x)] * 3)


class PlainLaw:
    """A user's law with value/velocity/acceleration only: no side, no breakpoints, no ramps."""

    def value(self, t):
        return np.asarray(t, float) ** 3

    def velocity(self, t):
        return 3 * np.asarray(t, float) ** 2

    def acceleration(self, t):
        return 6 * np.asarray(t, float)


class SidedLaw(PlainLaw):
    """A user's law with one-sided accelerations (a kink at t = 1 s) but no breakpoints or ramps."""

    def acceleration(self, t, side=1):
        return np.where((np.asarray(t) > 1) | ((np.asarray(t) == 1) & (side > 0)), 1.0, 0.0)


class KeywordLaw(PlainLaw):
    """acceleration(t, **options) takes side= too; breakpoints as a list."""

    breakpoints = [1.0, 2.0]

    def acceleration(self, t, **options):
        return np.full(np.shape(t), float(options.get("side", 1)))


def test_a_law_without_side_gets_the_plain_acceleration_on_both_sides():
    user = PlainLaw()
    law = as_law(user)
    assert law is not user and isinstance(law, Law)
    assert law.breakpoints == () and law.ramps == ()
    t = np.array([0.5, 1.0, 2.0])
    for side in (1, -1):
        np.testing.assert_array_equal(law.acceleration(t, side=side), user.acceleration(t))
    np.testing.assert_array_equal(law.value(t), user.value(t))
    np.testing.assert_array_equal(law.velocity(t), user.velocity(t))
    # what a study does with a per-sample side: right limits, the left one at the last sample
    side = np.where(t < t[-1], 1, -1)
    acc = np.where(side > 0, law.acceleration(t, side=1), law.acceleration(t, side=-1))
    np.testing.assert_array_equal(acc, [3.0, 6.0, 12.0])
    assert "as_law(" in repr(law)


def test_a_law_with_side_but_no_breakpoints_keeps_its_one_sided_limits():
    law = as_law(SidedLaw())
    assert isinstance(law, Law) and law.breakpoints == () and law.ramps == ()
    assert law.acceleration(1.0, side=1) == 1.0 and law.acceleration(1.0, side=-1) == 0.0
    kw = as_law(KeywordLaw())
    assert kw.breakpoints == (1.0, 2.0)  # a list of the user's becomes a tuple
    assert kw.acceleration(0.5, side=-1) == -1.0
    # the grid holds the adapted law's breakpoints
    g = time_grid([kw], 3.0, n_frames=4)
    assert set(g.breakpoints) == {1.0, 2.0}


@pytest.mark.parametrize("x, needle", [
    (None, r"None \(NoneType\) is not a motion law: it has no value, velocity, acceleration method"),
    ([0.0, 1.0], r"\[0.0, 1.0\] \(list\) is not a motion law"),
    (np.zeros(3), r"\(ndarray\) is not a motion law"),
    (Quintic, r"it is a class, not a law object"),
])
def test_anything_else_is_rejected_by_name_with_the_choices(x, needle):
    with pytest.raises(InputError, match=needle) as err:
        as_law(x)
    assert "an ADAMS expression string" in str(err.value) and "a number" in str(err.value)
    assert "acceleration(t, side=1)" in str(err.value)


def test_a_partial_law_object_names_what_it_lacks():
    class ValueOnly:
        def value(self, t):
            return t

    with pytest.raises(InputError, match="it has no velocity, acceleration method"):
        as_law(ValueOnly())
    with pytest.raises(InputError, match="is not a motion law"):
        time_grid([ValueOnly()], 1.0)


def test_in_span_closed_and_one_sided():
    t = np.array([0.0, 1.0, 1.5, 2.0, 3.0])
    np.testing.assert_array_equal(in_span(t, 1.0, 2.0), [False, True, True, True, False])
    np.testing.assert_array_equal(in_span(t, 1.0, 2.0, side=1), [False, True, True, False, False])
    np.testing.assert_array_equal(in_span(t, 1.0, 2.0, side=-1), [False, False, True, True, False])
