"""Robot models: paper 004's modified D-H forward pose, standard and modified D-H tables, model errors
(URDF reading: tests/test_urdf.py)."""
import math

import numpy as np
import pytest

from structcheck.rigid.dynamics import inverse_dynamics
from structcheck.errors import InputError
from structcheck.model import build_dh_robot
from structcheck.model.robot import Joint, Link, Robot, rot_x, rot_z, trans

# paper 004, Table 1 (modified D-H: alpha_{i-1}, a_{i-1}, d_i), d1 = 250, a2 = 385, a3 = 392, d6 = 188 mm
D1, A2, A3, D6 = 0.250, 0.385, 0.392, 0.188
DH004 = [(0, 0, D1), (math.pi / 2, 0, 0), (0, A2, 0), (0, A3, 0), (-math.pi / 2, 0, 0), (0, 0, D6)]
HOME004 = np.radians([90, 90, 90, -90, 0, 0])


def paper004_eq2(th):
    """Paper 004 eq. (2): closed-form position p and approach vector a of the claw frame."""
    t1, t2, t3, t4, t5, t6 = th
    C, S = np.cos, np.sin
    C34, S34 = C(t3 + t4), S(t3 + t4)
    a = np.array([-C(t1) * C(t2) * S34 - C(t1) * S(t2) * C34, -S(t1) * C(t2) * S34 - S(t1) * S(t2) * C34,
                  -S(t2) * S34 + C(t2) * C34])
    px = C(t1) * C(t2) * (-S34 * D6 + C(t3) * A3 + A2) - C(t1) * S(t2) * (C34 * D6 + S(t3) * A3)
    py = S(t1) * C(t2) * (-S34 * D6 + C(t3) * A3 + A2) - S(t1) * S(t2) * (C34 * D6 + S(t3) * A3)
    pz = S(t2) * (-S34 * D6 + C(t3) * A3 + A2) + C(t2) * (C34 * D6 + S(t3) * A3) + D1
    return np.array([px, py, pz]), a


def test_paper004_home_pose():
    robot = Robot.from_modified_dh(DH004, home=HOME004)
    T = robot.forward_kinematics(robot.home)[0, -1]
    np.testing.assert_allclose(T[:3, :3], [[0, -1, 0], [0, 0, -1], [1, 0, 0]], atol=1e-15)
    np.testing.assert_allclose(T[:3, 3], [0, -0.580, 0.635], atol=1e-15)


def test_paper004_matches_eq2_position_and_approach(rng):
    robot = Robot.from_modified_dh(DH004)
    th = rng.uniform(-np.pi, np.pi, (20, 6))
    T = robot.forward_kinematics(th)[:, -1]
    for k in range(20):
        p, a = paper004_eq2(th[k])
        np.testing.assert_allclose(T[k, :3, 3], p, atol=1e-14)
        np.testing.assert_allclose(T[k, :3, 2], a, atol=1e-14)


def test_standard_dh_equals_product_of_transforms(rng):
    """q is the absolute D-H variable: theta_i of a revolute row, d_i of a prismatic row; the other
    entries are constants, including the constant theta of the prismatic row (an 'offset row')."""
    rows = [(0.0, 0.3, 0.05, math.pi / 2), (0.0, 0.12, 0.4, 0.0), (0.7, 0.0, 0.02, -math.pi / 2),
            (0.0, -0.1, 0.03, 0.4)]
    types = ["revolute", "revolute", "prismatic", "revolute"]
    robot = Robot.from_dh(rows, types=types)
    q = rng.uniform(-2, 2, (5, 4))
    T_link = robot.forward_kinematics(q)
    for k in range(5):
        T = np.eye(4)
        for i, (theta, d, a, al) in enumerate(rows):
            theta, d = (q[k, i], d) if types[i] == "revolute" else (theta, q[k, i])
            T = T @ rot_z(theta) @ trans(z=d) @ trans(x=a) @ rot_x(al)
        # the flange point is the origin of standard frame n; link n's axes are standard frame n's turned back
        flange = T_link[k, -1, :3, :3] @ robot.points["flange"][1] + T_link[k, -1, :3, 3]
        np.testing.assert_allclose(flange, T[:3, 3], atol=1e-14)
        np.testing.assert_allclose(T_link[k, -1, :3, :3] @ rot_x(rows[-1][3])[:3, :3], T[:3, :3], atol=1e-14)


def test_modified_dh_equals_product_of_transforms(rng):
    """Modified D-H with a prismatic row carrying a constant theta and revolute rows with constant d: link i's
    frame is RotX(alpha_{i-1}) TransX(a_{i-1}) RotZ(theta_i) TransZ(d_i) with theta_i = q_i (revolute) or
    d_i = q_i (prismatic), multiplied by hand."""
    rows = [(0.0, 0.0, 0.25), (math.pi / 2, 0.1, 0.05), (0.3, 0.2, 0.0, -0.6), (-math.pi / 2, 0.05, 0.15)]
    types = ["revolute", "revolute", "prismatic", "revolute"]
    robot = Robot.from_modified_dh(rows, types=types)
    q = rng.uniform(-1.5, 1.5, (4, 4))
    T_link = robot.forward_kinematics(q)
    for k in range(4):
        T = np.eye(4)
        for i, r in enumerate(rows):
            alpha, a, d, theta = tuple(r) + (0.0,) * (4 - len(r))
            theta, d = (q[k, i], d) if types[i] == "revolute" else (theta, q[k, i])
            T = T @ rot_x(alpha) @ trans(x=a) @ rot_z(theta) @ trans(z=d)
            np.testing.assert_allclose(T_link[k, i + 1], T, atol=1e-14)


@pytest.mark.parametrize("builder, rows, types, needle", [
    (Robot.from_dh, [(0.3, 0.1, 0.2, 0.0)], ["revolute"], r"row 1: theta_1 = 0.3 is the revolute joint 'joint1'"),
    (Robot.from_dh, [(0.0, 0.1, 0.2, 0.0)], ["prismatic"], r"row 1: d_1 = 0.1 is the prismatic joint"),
    (Robot.from_modified_dh, [(0, 0, 0.25), (0, 0, 0, 0.5)], None, r"row 2: theta_2 = 0.5 .* home="),
    (Robot.from_modified_dh, [(0, 0)], None, r"D-H row 1 must be 3 or 4 finite numbers"),
    (Robot.from_dh, [(0, 0, 0.2)], None, r"D-H row 1 must be 4 finite numbers"),
])
def test_dh_rows_with_an_offset_on_the_joint_variable_are_rejected(builder, rows, types, needle):
    with pytest.raises(InputError, match=needle):
        builder(rows, types=types)


def test_standard_dh_inertials_are_moved_into_the_link_frame(rng):
    """The same physical arm from standard D-H inertials and from explicit joints gives the same torques."""
    rows = [(0.0, 0.2, 0.5, math.pi / 2), (0.0, 0.0, 0.4, 0.0)]
    inert = [dict(mass=2.0, com=(-0.25, 0.0, 0.02), inertia=np.diag([0.01, 0.02, 0.03])),
             dict(mass=1.0, com=(-0.2, 0.01, 0.0), inertia=np.diag([0.02, 0.01, 0.01]))]
    a = Robot.from_dh(rows, inertials=inert)
    # by hand: link i frame = standard frame i moved back by (a_i, alpha_i)
    C1, C2 = trans(x=0.5) @ rot_x(math.pi / 2), trans(x=0.4)
    links = [Link("base"),
             Link("link1", 2.0, tuple(C1[:3, :3] @ inert[0]["com"] + C1[:3, 3]),
                  C1[:3, :3] @ inert[0]["inertia"] @ C1[:3, :3].T),
             Link("link2", 1.0, tuple(C2[:3, :3] @ inert[1]["com"] + C2[:3, 3]), inert[1]["inertia"])]
    joints = [Joint("joint1", "revolute", "base", "link1", trans(z=0.2)),
              Joint("joint2", "revolute", "link1", "link2", C1)]
    b = Robot(links, joints)
    q, qd, qdd = (rng.uniform(-1, 1, (6, 2)) for _ in range(3))
    np.testing.assert_allclose(a.inverse_dynamics(q, qd, qdd).tau, b.inverse_dynamics(q, qd, qdd).tau, atol=1e-12)


def test_standard_and_modified_tables_of_one_arm_give_the_same_link_frames(rng):
    """Standard row i's x-screw (a_i, alpha_i) is modified row i+1's (a_{i}, alpha_{i}): both builders put link i
    on joint i's axis, so one arm written in both conventions has the same link frames at every q."""
    std = [(0.0, 0.3, 0.05, math.pi / 2), (0.0, 0.12, 0.4, 0.0), (0.7, 0.0, 0.02, -math.pi / 2), (0.0, -0.1, 0.03, 0.4)]
    types = ["revolute", "revolute", "prismatic", "revolute"]
    mod = [(0.0, 0.0, std[0][1], std[0][0])] + [(std[i - 1][3], std[i - 1][2], std[i][1], std[i][0])
                                                for i in range(1, 4)]
    q = rng.uniform(-1.5, 1.5, (6, 4))
    a, b = Robot.from_dh(std, types=types), Robot.from_modified_dh(mod, types=types)
    np.testing.assert_allclose(a.forward_kinematics(q), b.forward_kinematics(q), atol=1e-15)


def test_builder_serves_both_conventions_with_the_same_numbers():
    inert = [dict(mass=2.0, com=(0.1, 0, 0), inertia=np.diag([0.01, 0.02, 0.03])), None]
    for builder, convention, rows in ((Robot.from_dh, "standard", [(0.0, 0.3, 0.05, 1.5), (0.0, 0.12, 0.4, 0.0)]),
                                      (Robot.from_modified_dh, "modified", [(1.5, 0.05, 0.3), (0.0, 0.4, 0.12)])):
        a, b = builder(rows, inertials=inert), build_dh_robot(rows, convention, inertials=inert)
        for ja, jb in zip(a.joints, b.joints):
            assert np.array_equal(ja.origin, jb.origin) and np.array_equal(ja.axis, jb.axis)
        assert a.links == b.links and a.points.keys() == b.points.keys()
    with pytest.raises(InputError, match=r"D-H convention must be one of \['modified', 'standard'\], got 'craig'"):
        build_dh_robot([(0.0, 0.3, 0.05, 1.5)], "craig")


def test_a_fixed_joints_axis_is_ignored_and_a_movable_zero_axis_is_an_error():
    links = [Link("a"), Link("b")]
    assert Robot(links, [Joint("j", "fixed", "a", "b", axis=np.zeros(3))]).n_dof == 0
    for jtype in ("revolute", "continuous", "prismatic"):
        with pytest.raises(InputError, match=rf"{jtype} joint 'j' has a zero axis \[0.0, 0.0, 0.0\]"):
            Robot(links, [Joint("j", jtype, "a", "b", axis=np.zeros(3))])


def test_check_q_and_ordered_joints():
    robot = Robot([Link("c"), Link("b"), Link("a")],
                  [Joint("bc", "revolute", "b", "c"), Joint("ab", "prismatic", "a", "b")])
    assert [j.name for j in robot.ordered_joints] == ["ab", "bc"]  # parents before children
    assert robot.check_q([0.1, 0.2]).shape == (1, 2)
    with pytest.raises(InputError, match=r"qd must have shape \(n_samples, 2\)"):
        robot.check_q(np.zeros((3, 3)), "qd")
    with pytest.raises(InputError, match="qdd of joint 'ab' is not finite"):
        robot.check_q([0.0, np.nan], "qdd")


def test_model_errors():
    with pytest.raises(InputError, match="unsupported type 'spherical'"):
        Robot([Link("a"), Link("b")], [Joint("j", "spherical", "a", "b")])
    with pytest.raises(InputError, match="exactly one base link"):
        Robot([Link("a"), Link("b"), Link("c")], [Joint("j", "revolute", "a", "b")])
    with pytest.raises(InputError, match="unknown joint 'j9'"):
        Robot([Link("a"), Link("b")], [Joint("j", "revolute", "a", "b")]).joint("j9")
    with pytest.raises(InputError, match="point 'tcp' is on unknown link 'hand'"):
        Robot([Link("a"), Link("b")], [Joint("j", "revolute", "a", "b")], points={"tcp": ("hand", (0, 0, 0))})
