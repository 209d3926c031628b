"""The joints' reactions split along and across their axes (structcheck.results.reactions) against closed forms."""
from __future__ import annotations

import math

import numpy as np
import pytest

from structcheck.model.links import rot_x
from structcheck.model.robot import Joint, Link, Robot
from structcheck.results.reactions import bearing_components, reaction_peaks
from structcheck.rigid.dynamics import inverse_dynamics


def test_turntable_with_a_tilted_joint_frame():
    """A link on a vertical joint spun up at constant angular acceleration alpha from omega0: its centre of mass
    lc off the axis. About the (fixed) joint origin, with a the axis: F = m (a_c + g a), so the axial force is m g and
    the radial force m lc sqrt(omega^4 + alpha^2) (centripetal and tangential); M = (I_yy + m lc^2) alpha a + m g lc
    (x . y -> z), so the torque is (I_yy + m lc^2) alpha and the tilting moment m g lc (Newton-Euler about a fixed
    point, I diagonal in the link frame with the axis a principal axis). The joint's axis is y of its frame and the
    frame is turned so that y points up: the split must follow the stated axis, not the frame's z."""
    m, lc, Iyy, g = 3.0, 0.25, 0.04, 9.81
    omega0, alpha = 0.5, 2.0
    robot = Robot([Link("ground"), Link("arm", m, (lc, 0, 0), np.diag([0.02, Iyy, 0.03]))],
                  [Joint("j", "revolute", "ground", "arm", rot_x(math.pi / 2), np.array([0, 1.0, 0]))])
    t = np.linspace(0.0, 1.5, 31)
    q, qd, qdd = omega0 * t + alpha * t ** 2 / 2, omega0 + alpha * t, np.full_like(t, alpha)
    dyn = inverse_dynamics(robot, q[:, None], qd[:, None], qdd[:, None], gravity=(0, 0, -g))
    parts = bearing_components(dyn.joint_wrenches[:, 0], [0, 2.0, 0])  # any length: normalised
    tol = dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(parts["axial_force_n"], m * g, **tol)  # the parent holds the link up: along +a
    np.testing.assert_allclose(parts["radial_force_n"], m * lc * np.sqrt(qd ** 4 + alpha ** 2), **tol)
    np.testing.assert_allclose(parts["tilting_moment_nm"], m * g * lc, **tol)
    np.testing.assert_allclose(parts["axis_moment_nm"], (Iyy + m * lc ** 2) * alpha, **tol)
    np.testing.assert_allclose(parts["axis_moment_nm"], dyn.tau[:, 0], **tol)  # the actuator's torque
    peaks = reaction_peaks(dyn.joint_wrenches[:, 0], [0, 1.0, 0], t)
    # the radial force grows with the speed: its peak is the last sample's; a constant's is the first sample's
    assert peaks["max_radial_force_n"] == pytest.approx(m * lc * math.sqrt(qd[-1] ** 4 + alpha ** 2), rel=1e-12)
    assert peaks["time_of_max_radial_force_s"] == t[-1]
    assert peaks["max_tilting_moment_nm"] == pytest.approx(m * g * lc, rel=1e-12)
    assert set(peaks) == {"max_axial_force_n", "time_of_max_axial_force_s", "max_radial_force_n",
                          "time_of_max_radial_force_s", "max_tilting_moment_nm", "time_of_max_tilting_moment_s",
                          "max_axis_moment_nm", "time_of_max_axis_moment_s"}  # the JointSummary fields


def test_signed_parts_peak_in_magnitude():
    """A reaction that is largest pushing against the axis: the peak is its magnitude, at its time."""
    W = np.zeros((3, 6))
    W[:, 2] = [10.0, -30.0, 20.0]  # Fz
    W[:, 5] = [-7.0, 1.0, 2.0]  # Mz
    W[:, 0] = [3.0, 4.0, 0.0]  # Fx: radial
    W[:, 4] = [0.0, 0.0, -5.0]  # My: tilting
    peaks = reaction_peaks(W, (0, 0, 1), np.array([0.0, 1.0, 2.0]))
    assert (peaks["max_axial_force_n"], peaks["time_of_max_axial_force_s"]) == (30.0, 1.0)
    assert (peaks["max_axis_moment_nm"], peaks["time_of_max_axis_moment_s"]) == (7.0, 0.0)
    assert (peaks["max_radial_force_n"], peaks["time_of_max_radial_force_s"]) == (4.0, 1.0)
    assert (peaks["max_tilting_moment_nm"], peaks["time_of_max_tilting_moment_s"]) == (5.0, 2.0)
