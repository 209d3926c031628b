"""Robot models: paper 004's modified D-H forward pose, standard D-H, URDF reading and model errors."""
import math

import numpy as np
import pytest

from structcheck.rigid.dynamics import inverse_dynamics
from structcheck.errors import InputError
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
    """q is the absolute D-H variable: theta_i of a revolute row, d_i of a prismatic row (DESIGN.md); the other
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


URDF = """<?xml version="1.0"?>
<robot name="tiny">
  <link name="base"/>
  <link name="arm">
    <inertial><origin xyz="0.2 0 0.01" rpy="0 0 1.5707963267948966"/><mass value="2.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.04" iyz="0" izz="0.05"/></inertial>
    <collision><geometry><mesh filename="package://tiny/arm.stl" scale="0.001 0.001 0.001"/></geometry></collision>
  </link>
  <link name="fore"><inertial><mass value="1.0"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
  </inertial></link>
  <link name="tool"><inertial><origin xyz="0 0 0.05"/><mass value="0.3"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.3" rpy="1.5707963267948966 0 0"/><axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="arm"/><child link="fore"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 0 1"/><limit lower="-2.5" upper="1.75" effort="1" velocity="1"/>
    <mimic joint="shoulder" multiplier="-1" offset="0.2"/></joint>
  <joint name="flange" type="fixed"><parent link="fore"/><child link="tool"/><origin xyz="0.3 0 0"/></joint>
</robot>
"""


def test_urdf_matches_hand_built_robot(tmp_path, rng):
    path = tmp_path / "tiny.urdf"
    path.write_text(URDF)
    robot = Robot.from_urdf(path)
    assert robot.joint_names == ("shoulder", "elbow", "flange")
    assert robot.dof_names == ("shoulder",)
    assert robot.link("arm").mesh == "package://tiny/arm.stl"
    # limits as written (absolute); the fixed joint has none
    assert (robot.lower.tolist(), robot.upper.tolist()) == ([-2.0], [2.0])
    assert (robot.joint("elbow").lower, robot.joint("elbow").upper) == (-2.5, 1.75)
    assert (robot.joint("flange").lower, robot.joint("flange").upper) == (-math.inf, math.inf)
    Rz = rot_z(math.pi / 2)[:3, :3]
    hand = Robot(
        [Link("base"), Link("arm", 2.5, (0.2, 0, 0.01), Rz @ np.diag([0.01, 0.04, 0.05]) @ Rz.T),
         Link("fore", 1.0, (0, 0, 0), np.eye(3) * 0.01), Link("tool", 0.3, (0, 0, 0.05), np.eye(3) * 0.001)],
        [Joint("shoulder", "revolute", "base", "arm", trans(z=0.3) @ rot_x(math.pi / 2), lower=-2, upper=2),
         Joint("elbow", "revolute", "arm", "fore", trans(x=0.4), lower=-2.5, upper=1.75,
               mimic=("shoulder", -1.0, 0.2)),
         Joint("flange", "fixed", "fore", "tool", trans(x=0.3))])
    q, qd, qdd = (rng.uniform(-1, 1, (5, 1)) for _ in range(3))
    a, b = robot.inverse_dynamics(q, qd, qdd), hand.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(a.tau, b.tau, atol=1e-12)
    np.testing.assert_allclose(a.joint_wrenches, b.joint_wrenches, atol=1e-12)
    # the fixed flange joint carries the tool's weight
    static = robot.inverse_dynamics(np.zeros(1), np.zeros(1), np.zeros(1))
    assert np.linalg.norm(static.joint_wrenches[0, 2, :3]) == pytest.approx(0.3 * 9.81)


@pytest.mark.parametrize("change, needle", [
    (lambda s: s.replace('type="fixed"', 'type="floating"'), "unsupported type 'floating'"),
    (lambda s: s.replace('<child link="fore"/>', '<child link="forearm"/>'), "unknown link 'forearm'"),
    (lambda s: s.replace('mass value="2.5"', 'mass value="abc"'), "mass is not a number"),
    (lambda s: s.replace('joint="shoulder"', 'joint="wrist"'), "mimics 'wrist'"),
    (lambda s: s.replace("</robot>", "<robot"), "cannot read URDF"),
    (lambda s: s.replace('<origin xyz="0.4 0 0"/>', '<origin xyz="0.4 0"/>'),
     r"joint 'elbow' <origin xyz> needs 3 numbers \(x y z \[m\]\), got 2: '0.4 0'"),
    (lambda s: s.replace('rpy="1.5707963267948966 0 0"', 'rpy="0 0"'),
     r"joint 'shoulder' <origin rpy> needs 3 numbers \(roll pitch yaw \[rad\]\), got 2"),
    (lambda s: s.replace('<origin xyz="0.2 0 0.01" rpy="0 0 1.5707963267948966"/>', '<origin xyz="0.2 0 0.01 4"/>'),
     r"link 'arm' <origin xyz> needs 3 numbers"),
    (lambda s: s.replace('<origin xyz="0 0 0.05"/>', '<origin xyz="0 0 0.05" rpy="0 0 x"/>'),
     r"link 'tool' <origin rpy> is not a number: 'x'"),
    (lambda s: s.replace('<axis xyz="0 0 1"/><limit lower="-2.5"', '<axis xyz="0 1"/><limit lower="-2.5"'),
     r"joint 'elbow' <axis xyz> needs 3 numbers"),
    (lambda s: s.replace('<limit lower="-2" upper="2"', '<limit lower="-2" upper="two"'),
     r"joint 'shoulder' upper limit is not a number: 'two'"),
])
def test_urdf_errors(tmp_path, change, needle):
    path = tmp_path / "bad.urdf"
    path.write_text(change(URDF))
    with pytest.raises(InputError, match=needle):
        Robot.from_urdf(path)


def test_model_errors():
    with pytest.raises(InputError, match="unsupported type 'spherical'"):
        Robot([Link("a"), Link("b")], [Joint("j", "spherical", "a", "b")])
    with pytest.raises(InputError, match="exactly one base link"):
        Robot([Link("a"), Link("b"), Link("c")], [Joint("j", "revolute", "a", "b")])
    with pytest.raises(InputError, match="unknown joint 'j9'"):
        Robot([Link("a"), Link("b")], [Joint("j", "revolute", "a", "b")]).joint("j9")
    with pytest.raises(InputError, match="point 'tcp' is on unknown link 'hand'"):
        Robot([Link("a"), Link("b")], [Joint("j", "revolute", "a", "b")], points={"tcp": ("hand", (0, 0, 0))})
