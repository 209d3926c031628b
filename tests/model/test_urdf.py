"""URDF reading: published robot descriptions (tests/data/urdf, sources and licences in each file's header) load
with the joints, limits, axes and masses they declare, their forward kinematics matches a frame composition
computed here independently (scipy rotations) and the makers' published kinematic parameters; a small URDF
matches a hand-built robot; malformed input gives InputError naming the joint or link and the attribute."""
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from structcheck.errors import InputError
from structcheck.model.robot import Joint, Link, Robot, rot_x, rot_z, trans
from structcheck.model import read_urdf

DATA = Path(__file__).resolve().parents[1] / "data" / "urdf"
PUBLISHED = {  # file: (robot name, joints by type, total mass in the file's <inertial> elements [kg])
    "ur5.urdf": ("ur5", {"revolute": 6, "fixed": 2}, 20.9939),
    "irb2400.urdf": ("abb_irb2400", {"revolute": 6, "fixed": 1}, 0.0),
    "panda.urdf": ("panda", {"revolute": 7, "prismatic": 2, "fixed": 3}, 17.96),
    "j2s6s200.urdf": ("j2s6s200", {"continuous": 3, "revolute": 5, "fixed": 4}, 4.62784),
}


def file_joints(path):
    """The <joint> elements of a URDF as dicts, read here with ElementTree alone (no structcheck code)."""
    out = []
    for el in ET.parse(path).getroot().findall("joint"):
        o, ax, lim, mim = (el.find(t) for t in ("origin", "axis", "limit", "mimic"))
        out.append(dict(
            name=el.get("name"), type=el.get("type"), parent=el.find("parent").get("link"),
            child=el.find("child").get("link"),
            xyz=[float(v) for v in (o.get("xyz", "0 0 0") if o is not None else "0 0 0").split()],
            rpy=[float(v) for v in (o.get("rpy", "0 0 0") if o is not None else "0 0 0").split()],
            axis=[float(v) for v in ax.get("xyz").split()] if ax is not None else [1.0, 0.0, 0.0],
            limits=(float(lim.get("lower")), float(lim.get("upper"))) if lim is not None else None,
            mimic=None if mim is None else (mim.get("joint"), float(mim.get("multiplier", 1)),
                                            float(mim.get("offset", 0)))))
    return out


def composed_frames(path, q_by_joint):
    """T_base_link (4, 4) of every link for joint values {name: value}: URDF origins (rpy = extrinsic x, y, z)
    and joint motions composed with scipy.spatial.transform.Rotation, independent of structcheck's kinematics."""
    joints = file_joints(path)
    frames = {}
    children = {j["child"] for j in joints}
    for el in ET.parse(path).getroot().findall("link"):
        if el.get("name") not in children:
            frames[el.get("name")] = np.eye(4)
    while len(frames) < len(joints) + 1:
        for j in joints:
            if j["parent"] in frames and j["child"] not in frames:
                origin = np.eye(4)
                origin[:3, :3] = Rotation.from_euler("xyz", j["rpy"]).as_matrix()
                origin[:3, 3] = j["xyz"]
                motion, q = np.eye(4), q_by_joint.get(j["name"], 0.0)
                u = np.array(j["axis"]) / np.linalg.norm(j["axis"]) if j["type"] != "fixed" else None
                if j["type"] in ("revolute", "continuous"):
                    motion[:3, :3] = Rotation.from_rotvec(q * u).as_matrix()
                elif j["type"] == "prismatic":
                    motion[:3, 3] = q * u
                frames[j["child"]] = frames[j["parent"]] @ origin @ motion
    return frames


def sample_q(robot, rng, n):
    """n joint vectors (n, n_dof) inside the limits (continuous joints: one turn either way)."""
    lo = np.where(np.isfinite(robot.lower), robot.lower, -math.pi)
    hi = np.where(np.isfinite(robot.upper), robot.upper, math.pi)
    return lo + (hi - lo) * rng.uniform(size=(n, robot.n_dof))


@pytest.mark.parametrize("fname", sorted(PUBLISHED))
def test_published_description_loads_as_declared(fname):
    path = DATA / fname
    robot = read_urdf(path)
    name, by_type, mass = PUBLISHED[fname]
    declared = file_joints(path)
    assert robot.name == name and robot.joint_names == tuple(j["name"] for j in declared)
    assert {t: sum(j.type == t for j in robot.joints) for t in by_type} == by_type
    assert len(robot.links) == len(robot.joints) + 1
    total = sum(float(m.get("value")) for m in ET.parse(path).getroot().iterfind("link/inertial/mass"))
    assert sum(ln.mass for ln in robot.links) == pytest.approx(total, abs=1e-12)
    assert total == pytest.approx(mass, abs=1e-12)
    for j in declared:
        rj = robot.joint(j["name"])
        assert (rj.type, rj.parent, rj.child, rj.mimic) == (j["type"], j["parent"], j["child"], j["mimic"])
        if j["type"] in ("revolute", "prismatic"):
            assert (rj.lower, rj.upper) == j["limits"]
        else:  # continuous and fixed joints have no limits, whatever the file writes
            assert (rj.lower, rj.upper) == (-math.inf, math.inf)
        if j["type"] != "fixed":
            np.testing.assert_array_equal(rj.axis, np.array(j["axis"]) / np.linalg.norm(j["axis"]))


@pytest.mark.parametrize("fname", sorted(PUBLISHED))
def test_published_forward_kinematics_equals_the_composed_origins(fname, rng):
    path = DATA / fname
    robot = read_urdf(path)
    q = np.vstack([np.zeros(robot.n_dof), sample_q(robot, rng, 4)])
    T = robot.forward_kinematics(q)
    qj = robot.joint_values(q)
    for k in range(len(q)):
        frames = composed_frames(path, dict(zip(robot.joint_names, qj[k])))
        for i, link in enumerate(robot.link_names):
            # rotations built two ways (closed-form rpy and Rodrigues vs scipy) agree to a few ulps
            np.testing.assert_allclose(T[k, i], frames[link], atol=1e-14, err_msg=f"{fname} {link}")


def test_ur5_flange_matches_the_published_dh_parameters(rng):
    """Universal Robots' published standard D-H parameters of the UR5. The URDF's base_link is the D-H base
    turned by pi about z (at q = 0 the flange is at (a2 + a3, -(d4 + d6), d1 - d5) in D-H base axes), and its
    joint angles are the D-H thetas; the URDF writes pi/2 as 1.570796325 (1.8e-9 rad short), hence the 1e-8 m
    tolerance."""
    d1, a2, a3, d4, d5, d6 = 0.089159, -0.425, -0.39225, 0.10915, 0.09465, 0.0823
    dh = Robot.from_dh([(0, d1, 0, math.pi / 2), (0, 0, a2, 0), (0, 0, a3, 0), (0, d4, 0, math.pi / 2),
                        (0, d5, 0, -math.pi / 2), (0, d6, 0, 0)])
    ur5 = read_urdf(DATA / "ur5.urdf")
    q = np.vstack([np.zeros(6), rng.uniform(-math.pi, math.pi, (5, 6))])
    T_ee = ur5.forward_kinematics(q)[:, ur5.link_names.index("ee_link")]
    T6 = dh.forward_kinematics(q)[:, -1]
    flange = np.einsum("tij,j->ti", T6[:, :3, :3], dh.points["flange"][1]) + T6[:, :3, 3]
    np.testing.assert_allclose(T_ee[0, :3, 3], [-(a2 + a3), d4 + d6, d1 - d5], atol=1e-8)
    np.testing.assert_allclose(T_ee[:, :3, 3], flange @ rot_z(math.pi)[:3, :3].T, atol=1e-8)


def test_panda_matches_frankas_published_modified_dh(rng):
    """Franka Emika's published modified (Craig) D-H table of the Panda, flange d = 0.107 m: the URDF's link
    frames are the D-H frames (the URDF writes pi/2 as 1.57079632679, 5e-12 rad short)."""
    rows = [(0, 0, 0.333), (-math.pi / 2, 0, 0), (math.pi / 2, 0, 0.316), (math.pi / 2, 0.0825, 0),
            (-math.pi / 2, -0.0825, 0.384), (math.pi / 2, 0, 0), (math.pi / 2, 0.088, 0)]
    dh = Robot.from_modified_dh(rows)
    panda = read_urdf(DATA / "panda.urdf")
    q = sample_q(panda, rng, 5)
    T_dh, T = dh.forward_kinematics(q[:, :7]), panda.forward_kinematics(q)
    for i in range(8):
        np.testing.assert_allclose(T[:, panda.link_names.index(f"panda_link{i}")], T_dh[:, i], atol=1e-10)
    np.testing.assert_allclose(T[:, panda.link_names.index("panda_link8")], T_dh[:, 7] @ trans(z=0.107), atol=1e-10)


def test_irb2400_tool0_at_zero_matches_the_published_opw_parameters():
    """ABB IRB 2400 in the OPW parametrisation (Brandstoetter et al. 2014), as ROS-Industrial's opw_kinematics
    publishes it (opw_parameters_examples.h, makeIrb2400_10): a1 = 0.100, a2 = -0.135, b = 0, c1 = 0.615,
    c2 = 0.705, c3 = 0.755, c4 = 0.085 m. At the URDF's q = 0 the arm stands upright with the wrist along x:
    tool0 at (a1 + c3 + c4, b, c1 + c2 - a2), axes as the base's."""
    a1, a2, b, c1, c2, c3, c4 = 0.100, -0.135, 0.0, 0.615, 0.705, 0.755, 0.085
    irb = read_urdf(DATA / "irb2400.urdf")
    T = irb.forward_kinematics(np.zeros(6))[0, irb.link_names.index("tool0")]
    np.testing.assert_allclose(T, trans(a1 + c3 + c4, b, c1 + c2 - a2), atol=1e-15)


def test_panda_mimic_finger_follows_its_source():
    """panda_finger_joint2 mimics panda_finger_joint1 (multiplier 1, offset 0 by default) along the opposite
    axis: the fingers open symmetrically, 2 q apart."""
    panda = read_urdf(DATA / "panda.urdf")
    assert panda.dof_names[-1] == "panda_finger_joint1" and "panda_finger_joint2" not in panda.dof_names
    assert panda.joint("panda_finger_joint2").mimic == ("panda_finger_joint1", 1.0, 0.0)
    q = np.zeros((3, 8))
    q[:, 7] = [0.0, 0.01, 0.04]
    qj = panda.joint_values(q)
    np.testing.assert_array_equal(qj[:, panda.joint_names.index("panda_finger_joint2")], q[:, 7])
    T = panda.forward_kinematics(q)
    left, right = (T[:, panda.link_names.index(f"panda_{s}finger"), :3, 3] for s in ("left", "right"))
    np.testing.assert_allclose(np.linalg.norm(left - right, axis=1), 2 * q[:, 7], atol=1e-15)


def test_fixed_joints_with_a_zero_axis_load_and_a_movable_one_is_rejected(tmp_path):
    """Kinova's and the Panda's fixed joints carry <axis xyz="0 0 0"/> (ignored, as the URDF specification says
    for fixed joints); the same axis on a movable joint is an error naming the joint and the attribute."""
    kinova = read_urdf(DATA / "j2s6s200.urdf")
    assert kinova.joint("j2s6s200_joint_base").type == "fixed" and kinova.base == "root"
    text = (DATA / "panda.urdf").read_text()
    bad = tmp_path / "panda_zero_axis.urdf"
    bad.write_text(text.replace('<axis xyz="0 1 0"/>', '<axis xyz="0 0 0"/>'))
    with pytest.raises(InputError, match=r"prismatic joint 'panda_finger_joint1' <axis xyz> is zero: '0 0 0'"):
        read_urdf(bad)


def test_mesh_references_are_kept_as_written():
    """package:// and relative mesh paths are references only: they need not exist to read the robot."""
    ur5, panda = read_urdf(DATA / "ur5.urdf"), read_urdf(DATA / "panda.urdf")
    assert ur5.link("upper_arm_link").mesh == "package://ur_description/meshes/ur5/collision/UpperArm.dae"
    assert panda.link("panda_link3").mesh == "meshes/collision/link3.obj"
    assert ur5.link("ee_link").mesh is None


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
    (lambda s: s.replace('<axis xyz="0 0 1"/><limit lower="-2" ', '<axis xyz="0 0 0"/><limit lower="-2" '),
     r"revolute joint 'shoulder' <axis xyz> is zero: '0 0 0'"),
    (lambda s: s.replace('<link name="fore">', '<link>'), r"a <link> has no name attribute"),
    (lambda s: s.replace('<joint name="flange" ', '<joint '), r"a <joint> has no name attribute"),
    (lambda s: s.replace('<mimic joint="shoulder"', '<mimic'), r"joint 'elbow' <mimic> needs a joint= attribute"),
    (lambda s: s.replace('<parent link="fore"/>', '<parent/>'), r"joint 'flange' needs <parent link=...>"),
    (lambda s: s.replace('<limit lower="-2" upper="2" effort="1" velocity="1"/>', ''),
     r"revolute joint 'shoulder' needs a <limit lower= upper=>"),
    (lambda s: s.replace('ixx="0.01" ixy="0"', 'ixx="inf" ixy="0"'), r"link 'arm' inertia ixx is not finite"),
])
def test_urdf_errors(tmp_path, change, needle):
    path = tmp_path / "bad.urdf"
    path.write_text(change(URDF))
    with pytest.raises(InputError, match=needle):
        Robot.from_urdf(path)


