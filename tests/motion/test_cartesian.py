"""Cartesian straight lines through IK: the point follows the line and the path profile's closed-form velocity and
acceleration (checked with the forward link kinematics, a different code path from the J^+ solution), the held
axis or orientation stays put, the joint laws plug into the time grid and Study, and bad lines fail by name."""
import math

import numpy as np
import pytest

from structcheck.motion.cartesian import CartesianLine
from structcheck.errors import InputError
from structcheck.rigid.kinematics import forward_kinematics, link_kinematics, point_world
from structcheck.motion import ModifiedTrapezoidal, MotionLaw, Quintic, Trapezoidal, time_grid
from structcheck.model.robot import Robot

# paper 004, Table 1 (modified D-H) with its joint ranges read as offsets from home
D1, A2, A3, D6 = 0.250, 0.385, 0.392, 0.188
DH004 = [(0, 0, D1), (math.pi / 2, 0, 0), (0, A2, 0), (0, A3, 0), (-math.pi / 2, 0, 0), (0, 0, D6)]
HOME004 = np.radians([90, 90, 90, -90, 0, 0])
RANGE004 = np.radians([(-160, 160), (-90, 90), (-225, 45), (-135, 135), (-160, 160), (-160, 160)])
TCP = ("link6", (0.0, 0.0, 0.05))  # 50 mm beyond the claw frame along the tool axis
DOWN = HOME004 + np.radians([0, 0, 0, 90, 0, 0])  # theta2 + theta3 + theta4 = 180 deg: tool axis straight down


def paper004(range_deg=None):
    rng_ = RANGE004 if range_deg is None else np.radians(range_deg)
    return Robot.from_modified_dh(DH004, home=HOME004, limits=HOME004[:, None] + rng_).with_points({"tcp": TCP})


def tcp_at(robot, q):
    return point_world(robot, forward_kinematics(robot, q), "tcp")[0]


def line_case(kind):
    robot = paper004()
    if kind == "pose":  # paper 000's law: modified trapezoid, a_max 3200 mm/s^2, v_max 1200 mm/s
        p0 = tcp_at(robot, HOME004)
        p1 = p0 + np.array([0.0, -0.1, -0.3])
        prof = ModifiedTrapezoidal(0.0, np.linalg.norm(p1 - p0), v_max=1.2, a_max=3.2, t0=0.1)
        return robot, CartesianLine(robot, "tcp", p0, p1, prof, hold="pose", locked=["joint5"]), prof
    if kind == "axis":  # tool axis straight down while joint 1 turns
        p0 = tcp_at(robot, DOWN)
        p1 = np.array([0.25, -0.45, 0.25])
        prof = Trapezoidal(0.0, np.linalg.norm(p1 - p0), v_max=0.5, a_max=2.0, t0=0.2)
        return robot, CartesianLine(robot, "tcp", p0, p1, prof, hold="axis", seed=DOWN,
                                    locked=["joint5", "joint6"]), prof
    p0 = tcp_at(robot, HOME004)  # position only: joints 4-6 locked at home
    p1 = p0 + np.array([0.2, 0.1, -0.2])
    prof = Quintic(0.0, 1.5, 0.0, np.linalg.norm(p1 - p0))
    return robot, CartesianLine(robot, "tcp", p0, p1, prof, locked=["joint4", "joint5", "joint6"]), prof


def tcp_motion(robot, q, qd, qdd):
    """World position, velocity, acceleration of the tcp and the link's R, omega, alpha (world axes), from the
    forward link kinematics."""
    kin = link_kinematics(robot, q, qd, qdd)
    li = robot.link_names.index("link6")
    R = kin.T_world_link[:, li, :3, :3]
    r = np.array(TCP[1])
    w, al = kin.omega[:, li], kin.alpha[:, li]
    x = R @ r + kin.T_world_link[:, li, :3, 3]
    v = np.einsum("nij,nj->ni", R, kin.v_origin[:, li] + np.cross(w, r))
    a = np.einsum("nij,nj->ni", R, kin.a_origin[:, li] + np.cross(al, r) + np.cross(w, np.cross(w, r)))
    return x, v, a, R, np.einsum("nij,nj->ni", R, w), np.einsum("nij,nj->ni", R, al)


@pytest.mark.parametrize("kind", ["pose", "axis", "position"])
def test_point_follows_line_and_profile(rng, kind):
    robot, line, prof = line_case(kind)
    bps = np.array(line.breakpoints)
    t = np.unique(np.concatenate([np.linspace(line.t_start - 0.05, line.t_stop + 0.05, 101), bps,
                                  rng.uniform(line.t_start, line.t_stop, 40)]))
    d = line.direction
    for side in (1, -1):
        q, qd, qdd = line.evaluate(t, side)
        x, v, a, R, w, al = tcp_motion(robot, q, qd, qdd)
        s = prof.value(t)
        np.testing.assert_allclose(x, line.p0 + np.outer(s, d), atol=1e-9, rtol=0)
        np.testing.assert_allclose(v, np.outer(prof.velocity(t), d), atol=1e-12, rtol=0)
        np.testing.assert_allclose(a, np.outer(prof.acceleration(t, side=side), d), atol=1e-10, rtol=0)
        if kind == "pose":
            np.testing.assert_allclose(R, np.broadcast_to(R[0], R.shape), atol=1e-12)
            np.testing.assert_allclose(w, 0, atol=1e-12)
            np.testing.assert_allclose(al, 0, atol=1e-10)
        if kind == "axis":
            np.testing.assert_allclose(R[:, :, 2], np.broadcast_to([0, 0, -1.0], (len(t), 3)), atol=1e-12)
            np.testing.assert_allclose(np.cross(w, R[:, :, 2]), 0, atol=1e-12)  # the axis does not turn
            np.testing.assert_allclose(np.cross(al, R[:, :, 2]), 0, atol=1e-10)
        np.testing.assert_allclose(q[:, ~line.free], np.broadcast_to(line.seed[~line.free], q[:, ~line.free].shape))
    # the trapezoid's acceleration jumps from 0 to a_max at its start and from -a_max to 0 at its end: one-sided
    # values (the interior breakpoints are left out: Trapezoidal itself returns the right-hand value there)
    if kind == "axis":
        ends = bps[[0, -1]]
        a_r = tcp_motion(robot, *line.evaluate(ends, 1))[2] @ d
        a_l = tcp_motion(robot, *line.evaluate(ends, -1))[2] @ d
        np.testing.assert_allclose(a_r, [2.0, 0.0], atol=1e-10)
        np.testing.assert_allclose(a_l, [0.0, -2.0], atol=1e-10)


def test_joint_laws_are_consistent_motion_laws():
    robot, line, prof = line_case("pose")
    laws = line.joint_laws()
    assert list(laws) == list(robot.dof_names)
    law = laws["joint2"]
    assert law.breakpoints == prof.breakpoints and law.ramps == prof.ramps
    # the time grid of a study holds the profile's breakpoints
    grid = time_grid(list(laws.values()), 1.0, n_frames=11)
    assert all(np.isclose(grid.t, b).any() for b in prof.breakpoints)
    t = grid.t
    side = np.where(t < t[-1], 1, -1)
    q = robot.home + np.column_stack([laws[j].value(t) for j in robot.dof_names])
    qdd = np.column_stack([np.where(side > 0, laws[j].acceleration(t, side=1), laws[j].acceleration(t, side=-1))
                           for j in robot.dof_names])
    q_ref, qd_ref, _ = line.evaluate(t)
    np.testing.assert_allclose(q, q_ref, atol=1e-15)
    np.testing.assert_allclose(np.column_stack([laws[j].velocity(t) for j in robot.dof_names]), qd_ref, atol=1e-15)
    np.testing.assert_allclose(qdd[:-1], line.evaluate(t, 1)[2][:-1], atol=1e-15)
    # value, velocity and acceleration agree with each other (central differences, h = 1e-5 s, error ~ h^2 q''')
    tc = np.linspace(0.12, 0.7, 30)
    tc = tc[np.min(np.abs(tc[:, None] - np.array(prof.breakpoints)), axis=1) > 2e-5]
    h = 1e-5
    for j in ("joint2", "joint3", "joint4", "joint6"):
        lw = laws[j]
        fd_v = (lw.value(tc + h) - lw.value(tc - h)) / (2 * h)
        fd_a = (lw.velocity(tc + h) - lw.velocity(tc - h)) / (2 * h)
        np.testing.assert_allclose(fd_v, lw.velocity(tc), atol=1e-6 * np.abs(lw.velocity(tc)).max() + 1e-9)
        np.testing.assert_allclose(fd_a, lw.acceleration(tc), atol=1e-5 * np.abs(lw.acceleration(tc)).max() + 1e-8)
    # one sample in, one sample out, same shape
    assert np.shape(law.value(0.3)) == () and np.shape(law.acceleration(np.array([[0.3]]))) == (1, 1)


def test_joint_limit_crossing_names_joint_and_time():
    robot, line, _ = line_case("pose")
    q, _, _ = line.evaluate(np.linspace(line.t_start, line.t_stop, 201))
    top = math.degrees(q[:, 1].max() - HOME004[1])  # joint 2 rises this much above home along the line
    tight = np.degrees(RANGE004)
    tight[1, 1] = top - 5.0
    robot2 = paper004(tight)
    with pytest.raises(InputError, match=r"joint 'joint2' reaches .* deg at time .* s, beyond its upper limit"):
        CartesianLine(robot2, "tcp", line.p0, line.p1, line.profile, hold="pose", locked=["joint5"])


def test_line_beyond_reach_names_time():
    robot = paper004()
    p0 = tcp_at(robot, HOME004)
    p1 = p0 + np.array([0.0, -0.6, 0.0])  # 1.23 m from the base axis; the arm reaches about 1.0 m
    prof = Trapezoidal(0.0, 0.6, v_max=0.5, a_max=2.0)
    with pytest.raises(InputError, match=r"leaves the reach of point 'tcp' between .* m along it, at time "):
        CartesianLine(robot, "tcp", p0, p1, prof, locked=["joint4", "joint5", "joint6"])


def test_held_orientation_that_cannot_be_held():
    robot = paper004()
    p0 = tcp_at(robot, HOME004)
    # sideways at home: joint 1 must turn, which swings the horizontal tool axis out of its direction
    prof = Quintic(0.0, 1.0, 0.0, 0.1)
    with pytest.raises(InputError, match=r"with its held orientation between 0 and .* at time 0 to"):
        CartesianLine(robot, "tcp", p0, p0 + [0.1, 0, 0], prof, hold="pose", locked=["joint5"])


def test_undetermined_joints_are_refused():
    robot = paper004()
    p0 = tcp_at(robot, HOME004)
    prof = Quintic(0.0, 1.0, 0.0, 0.1)
    # paper 004's coaxial joints 5 and 6: a held pose fixes 5 joint coordinates, not 6
    with pytest.raises(InputError, match=r"fixes only 5 joint coordinates .* Lock 1 of them"):
        CartesianLine(robot, "tcp", p0, p0 + [0, 0, -0.1], prof, hold="pose")
    with pytest.raises(InputError, match=r"fixes only 3 joint coordinates .* Lock 3 of them"):
        CartesianLine(robot, "tcp", p0, p0 + [0, 0, -0.1], prof)


def test_bad_line_input():
    robot = paper004()
    p0 = tcp_at(robot, HOME004)
    p1 = p0 + [0, 0, -0.1]
    prof = Quintic(0.0, 1.0, 0.0, 0.1)
    lock = ["joint4", "joint5", "joint6"]
    with pytest.raises(InputError, match="unknown point 'flange'; the robot's points are"):
        CartesianLine(robot, "flange", p0, p1, prof, locked=lock)
    with pytest.raises(InputError, match=r"p0 must be a finite \(3,\) vector"):
        CartesianLine(robot, "tcp", p0[:2], p1, prof, locked=lock)
    with pytest.raises(InputError, match="p0 and p1 coincide"):
        CartesianLine(robot, "tcp", p0, p0, prof, locked=lock)
    with pytest.raises(InputError, match="hold must be one of"):
        CartesianLine(robot, "tcp", p0, p1, prof, hold="orientation", locked=lock)
    with pytest.raises(InputError, match="axis= goes with hold='axis'"):
        CartesianLine(robot, "tcp", p0, p1, prof, axis=(0, 0, 1), locked=lock)
    with pytest.raises(InputError, match=r"locked names unknown joints \['wrist'\]"):
        CartesianLine(robot, "tcp", p0, p1, prof, locked=["wrist"])
    with pytest.raises(InputError, match=r"the profile must give the distance along the line .* 0.1 m"):
        CartesianLine(robot, "tcp", p0, p1, Quintic(0.0, 1.0, 0.0, 0.05), locked=lock)
    with pytest.raises(InputError, match="no breakpoints: give t_end="):
        CartesianLine(robot, "tcp", p0, p1, MotionLaw("0.1*TIME"), locked=lock)
    with pytest.raises(InputError, match=r"the start point p0 = .* is out of reach"):
        CartesianLine(robot, "tcp", p0 + [0, -1, 0], p1 + [0, -1, 0], prof, locked=lock)
    with pytest.raises(InputError, match=r"seed must have shape"):
        CartesianLine(robot, "tcp", p0, p1, prof, locked=lock, seed=np.zeros(4))
    # a profile given as an ADAMS expression with t_end: fine
    line = CartesianLine(robot, "tcp", p0, p1, MotionLaw("0.1*TIME"), locked=lock, t_end=1.0)
    np.testing.assert_allclose(tcp_at(robot, line.evaluate(1.0)[0][0]), p1, atol=1e-9)
