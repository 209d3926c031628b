"""Inverse kinematics: numerical IK against forward kinematics, paper 004's closed form (all branches, home pose,
cross-check with the numerical IK) and the DOBOT MG400 closed forms of paper 002 against its Tables 3 and 4."""
import csv
import math
from pathlib import Path

import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.rigid.closedform import PAPER004_BRANCHES, mg400_fk, mg400_ik, paper004_ik
from structcheck.rigid.ik import UnreachableError, _rotvec, solve_ik, wrap_to_limits
from structcheck.rigid.kinematics import forward_kinematics, jacobian, point_jacobian, point_world
from structcheck.model.robot import Robot, rot_x, rot_z, trans

DATA = Path(__file__).resolve().parents[1] / "data"

# paper 004, Table 1 (modified D-H: alpha_{i-1}, a_{i-1}, d_i), d1 = 250, a2 = 385, a3 = 392, d6 = 188 mm
D1, A2, A3, D6 = 0.250, 0.385, 0.392, 0.188
DH004 = [(0, 0, D1), (math.pi / 2, 0, 0), (0, A2, 0), (0, A3, 0), (-math.pi / 2, 0, 0), (0, 0, D6)]
HOME004 = np.radians([90, 90, 90, -90, 0, 0])
RANGE004 = np.radians([(-160, 160), (-90, 90), (-225, 45), (-135, 135), (-160, 160), (-160, 160)])

# a PUMA-560-like 6R with a spherical wrist (standard D-H: theta offset, d, a, alpha), plus a 0.1 m flange
PUMA = [(0, 0, 0, math.pi / 2), (0, 0, 0.4318, 0), (0, 0.15005, 0.0203, -math.pi / 2),
        (0, 0.4318, 0, math.pi / 2), (0, 0, 0, -math.pi / 2), (0, 0.1, 0, 0)]


def paper004(limits=False):
    lim = HOME004[:, None] + RANGE004 if limits else None
    return Robot.from_modified_dh(DH004, home=HOME004, limits=lim).with_points({"claw": ("link6", (0, 0, 0))})


def well_conditioned(robot, q, point, rows=slice(None), min_ratio=1e-3):
    """Keep configurations away from singularities, where any IK converges only linearly."""
    s = np.linalg.svd(jacobian(robot, q, point)[:, rows], compute_uv=False)
    return q[s[:, -1] / s[:, 0] > min_ratio]


def angle_diff(a, b):
    return np.abs(np.angle(np.exp(1j * (np.asarray(a) - np.asarray(b)))))


# ---------------------------------------------------------------------------------------- numerical IK


@pytest.mark.parametrize("task", ["position", "position+axis", "pose"])
def test_numerical_ik_reaches_fk_targets(rng, task):
    robot = Robot.from_dh(PUMA)
    # clear of singularities by more than the seed noise, so that the seed is nearest to the true branch
    q_true = well_conditioned(robot, rng.uniform(-np.pi, np.pi, (300, 6)), "flange", min_ratio=0.05)
    assert len(q_true) > 100
    T = forward_kinematics(robot, q_true)
    p, R = point_world(robot, T, "flange"), T[:, -1, :3, :3]
    kw = {"position": {}, "position+axis": {"axis": R[:, :, 2]}, "pose": {"rotation": R}}[task]
    seed = q_true + rng.normal(0, 0.1, q_true.shape)
    res = solve_ik(robot, "flange", p, seed=seed, **kw)
    assert res.task == task
    assert res.converged.all()
    assert (res.rank == {"position": 3, "position+axis": 5, "pose": 6}[task]).all()
    T2 = forward_kinematics(robot, res.q)
    np.testing.assert_allclose(point_world(robot, T2, "flange"), p, atol=1e-12)
    if task == "position+axis":
        np.testing.assert_allclose(T2[:, -1, :3, 2], R[:, :, 2], atol=1e-12)
    if task == "pose":
        np.testing.assert_allclose(T2[:, -1, :3, :3], R, atol=1e-12)
        # a non-redundant task from a close seed returns the configuration the targets came from
        np.testing.assert_allclose(angle_diff(res.q, q_true), 0, atol=1e-9)


def test_numerical_ik_from_home_seed(rng):
    robot = Robot.from_dh(PUMA)
    q_true = well_conditioned(robot, rng.uniform(-np.pi, np.pi, (100, 6)), "flange")
    p = point_world(robot, forward_kinematics(robot, q_true), "flange")
    res = solve_ik(robot, "flange", p)
    np.testing.assert_allclose(point_world(robot, forward_kinematics(robot, res.q), "flange"), p, atol=1e-12)


def test_unreachable_target_is_named(rng):
    robot = Robot.from_dh(PUMA)
    q = rng.uniform(-1, 1, (5, 6))
    p = point_world(robot, forward_kinematics(robot, q), "flange")
    p[3] = (2.0, 0.5, 0.3)  # the arm reaches about 1.05 m
    with pytest.raises(UnreachableError, match=r"1 of 5 targets; first: target 3 \(time 0.3 s\)") as exc:
        solve_ik(robot, "flange", p, seed=q, times=np.arange(5) / 10)
    assert exc.value.index == 3
    # the closest the flange gets is the stretched arm: the error is the distance beyond the reach
    res = exc.value.result
    assert res.converged.sum() == 4
    reach = np.linalg.norm(point_world(robot, forward_kinematics(robot, res.q[3:4]), "flange")[0])
    assert exc.value.residual[0] == pytest.approx(np.linalg.norm(p[3]) - reach, rel=1e-6)
    res = solve_ik(robot, "flange", p, seed=q, raise_on_failure=False)
    assert res.converged.tolist() == [True, True, True, False, True]


def test_joint_limits_respected_and_reported():
    robot = paper004(limits=True)
    lower, upper = robot.lower, robot.upper
    # a target reached by a configuration inside the limits, seeded a whole turn of joint 1 outside them
    q_in = HOME004 + np.radians([20, -30, 40, 10, 0, 0])
    T = forward_kinematics(robot, q_in)[0, -1]
    res = solve_ik(robot, "claw", T[:3, 3], axis=T[:3, 2], locked=["joint5", "joint6"],
                   seed=q_in + np.radians([360, 0, 0, 0, 0, 0]) + 0.05)
    assert res.converged.all() and res.within_limits.all()
    assert np.all((res.q >= lower) & (res.q <= upper))
    np.testing.assert_allclose(res.q[0, :4], q_in[:4], atol=1e-9)  # joints 5, 6 stay locked at the seed
    # joint 2 at 185 deg is beyond its 180 deg limit: the same pose is unreachable within the limits
    q_out = HOME004 + np.radians([0, 95, -60, 0, 0, 0])
    T = forward_kinematics(robot, q_out)[0, -1]
    with pytest.raises(UnreachableError, match=r"joints \['joint2'\] end at their limits"):
        solve_ik(robot, "claw", T[:3, 3], axis=T[:3, 2], locked=["joint5", "joint6"], seed=q_out - 0.02)
    res = solve_ik(robot, "claw", T[:3, 3], axis=T[:3, 2], locked=["joint5", "joint6"], seed=q_out - 0.02,
                   limits="report")
    assert res.converged.all() and not res.within_limits.any()


def test_wrap_to_limits():
    lower, upper = np.radians([-70, -225]), np.radians([250, 45])
    q = np.radians([[-100, 170], [300, -200], [10, 100]])
    out = np.degrees(wrap_to_limits(q, lower, upper))
    # -100 deg has no whole-turn equivalent in [-70, 250] (260 > 250) and stays; 100 deg none in [-225, 45]
    np.testing.assert_allclose(out, [[-100, -190], [-60, -200], [10, 100]], atol=1e-12)


def test_rotvec_matches_scipy(rng):
    from scipy.spatial.transform import Rotation

    rv = rng.normal(size=(200, 3))
    rv *= (rng.uniform(0, np.pi, 200) / np.linalg.norm(rv, axis=1))[:, None]
    rv[:3] = [[np.pi, 0, 0], [0, np.pi - 1e-9, 0], [1e-14, 0, 0]]  # half turn, nearly a half turn, almost none
    R = Rotation.from_rotvec(rv).as_matrix()
    np.testing.assert_allclose(np.abs(_rotvec(R)), np.abs(rv), atol=1e-12)  # the sign at exactly pi is free
    np.testing.assert_allclose(_rotvec(R)[3:], rv[3:], atol=1e-12)


def test_point_jacobian_from_placements_equals_jacobian(rng):
    """IK evaluates the Jacobian at the placements it already has; a named point and (link, xyz) are the same."""
    robot = paper004().with_points({"tip": ("link6", (0.01, 0.02, 0.03))})
    q = rng.uniform(-3, 3, (7, 6))
    J = jacobian(robot, q, "tip")
    np.testing.assert_array_equal(point_jacobian(robot, forward_kinematics(robot, q), "tip"), J)
    np.testing.assert_array_equal(jacobian(robot, q, ("link6", (0.01, 0.02, 0.03))), J)


def test_bad_ik_input():
    robot = paper004()
    p = np.array([0.0, -0.58, 0.635])
    with pytest.raises(InputError, match="unknown point 'tcp'; the robot's points are"):
        solve_ik(robot, "tcp", p)
    with pytest.raises(InputError, match="unknown link 'hand'"):
        solve_ik(robot, ("hand", (0, 0, 0)), p)
    with pytest.raises(InputError, match=r"target position must have shape \(3,\) or \(n, 3\)"):
        solve_ik(robot, "claw", np.zeros((4, 2)))
    with pytest.raises(InputError, match=r"seed must have shape \(6,\) or \(2, 6\)"):
        solve_ik(robot, "claw", np.tile(p, (2, 1)), seed=np.zeros(5))
    with pytest.raises(InputError, match=r"target axis must have shape \(3,\) or \(2, 3\)"):
        solve_ik(robot, "claw", np.tile(p, (2, 1)), axis=np.zeros((3, 3)))
    with pytest.raises(InputError, match="target axis of target 0 is a zero vector"):
        solve_ik(robot, "claw", p, axis=(0, 0, 0))
    with pytest.raises(InputError, match="either axis= .* or rotation="):
        solve_ik(robot, "claw", p, axis=(0, 0, 1), rotation=np.eye(3))
    with pytest.raises(InputError, match="target rotation 0 is not a rotation matrix"):
        solve_ik(robot, "claw", p, rotation=np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(InputError, match=r"locked names unknown joints \['joint7'\]"):
        solve_ik(robot, "claw", p, locked=["joint7"])
    with pytest.raises(InputError, match="limits must be one of"):
        solve_ik(robot, "claw", p, limits="clip")
    with pytest.raises(InputError, match="target position of target 0 is not finite"):
        solve_ik(robot, "claw", (np.nan, 0, 0))
    with pytest.raises(InputError, match=r"times must have one value per target \(1\)"):
        solve_ik(robot, "claw", p, times=[0.0, 1.0])


# ---------------------------------------------------------------------------------------- paper 004 closed form


def test_paper004_home_pose_and_branches():
    robot = paper004()
    T = forward_kinematics(robot, HOME004)[0, -1]
    # the paper's forward pose check (section 2.2), the reference the closed form must invert
    np.testing.assert_allclose(T[:3, :3], [[0, -1, 0], [0, 0, -1], [1, 0, 0]], atol=1e-15)
    np.testing.assert_allclose(T[:3, 3], [0, -0.580, 0.635], atol=1e-15)
    q = paper004_ik(T[:3, 3], T[:3, 2], T[:3, 0])
    assert q.shape == (1, 4, 6) and len(PAPER004_BRANCHES) == 4
    # every branch reproduces the full pose
    for b in range(4):
        np.testing.assert_allclose(forward_kinematics(robot, q[:, b])[0, -1], T, atol=1e-14)
    # four distinct arm configurations, one of them the home pose, with theta5 + theta6 = 0 (theta5 = 0 split)
    assert min(np.abs(q[0, i, :4] - q[0, j, :4]).max() for i in range(4) for j in range(i)) > 0.1
    home = [b for b in range(4) if np.allclose(np.degrees(q[0, b, :4]), [90, 90, 90, -90], atol=1e-12)]
    assert home == [2]  # theta1 = atan2(py, px) + 180 deg: the branch eq. (6) misses
    np.testing.assert_allclose(q[0, :, 4], 0, atol=1e-15)
    # on the home branch the wrist roll theta5 + theta6 equals the home pose's (0 + 0), as a full pose must
    np.testing.assert_allclose(angle_diff(q[0, 2, 4] + q[0, 2, 5], 0.0), 0, atol=1e-12)
    np.testing.assert_allclose(angle_diff(q[0, 2], HOME004), 0, atol=1e-12)
    # eq. (6) alone gives theta1 = -90 deg at home (seeds README erratum)
    np.testing.assert_allclose(np.degrees(q[0, :2, 0]), -90, atol=1e-12)


def test_paper004_all_branches_reproduce_random_poses(rng):
    robot = paper004()
    q_true = rng.uniform(-np.pi, np.pi, (300, 6))
    T = forward_kinematics(robot, q_true)[:, -1]
    q = paper004_ik(T[:, :3, 3], T[:, :3, 2], T[:, :3, 0], theta5=0.3)
    for b in range(4):
        np.testing.assert_allclose(forward_kinematics(robot, q[:, b])[:, -1], T, atol=1e-12)
    np.testing.assert_allclose(q[:, :, 4], 0.3)
    # the configuration the pose came from is one branch once its roll theta5 + theta6 is split the same way
    expect = q_true.copy()
    expect[:, 5] = q_true[:, 4] + q_true[:, 5] - 0.3
    expect[:, 4] = 0.3
    dist = angle_diff(q, expect[:, None, :]).max(axis=2).min(axis=1)
    np.testing.assert_allclose(dist, 0, atol=1e-9)


def test_paper004_position_and_axis_only(rng):
    robot = paper004()
    q_true = rng.uniform(-np.pi, np.pi, (50, 6))
    T = forward_kinematics(robot, q_true)[:, -1]
    q = paper004_ik(T[:, :3, 3], T[:, :3, 2])
    for b in range(4):
        T2 = forward_kinematics(robot, q[:, b])[:, -1]
        np.testing.assert_allclose(T2[:, :3, 3], T[:, :3, 3], atol=1e-12)
        np.testing.assert_allclose(T2[:, :3, 2], T[:, :3, 2], atol=1e-12)
    np.testing.assert_allclose(angle_diff(q[..., 4] + q[..., 5], 0), 0, atol=1e-12)


def test_paper004_closed_form_agrees_with_numerical_ik(rng):
    robot = paper004()
    q_true = rng.uniform(-np.pi, np.pi, (40, 6))
    q_true[:, 4] = 0.0
    q_true = well_conditioned(robot, q_true, "claw")
    T = forward_kinematics(robot, q_true)[:, -1]
    closed = paper004_ik(T[:, :3, 3], T[:, :3, 2], T[:, :3, 0])
    for b in range(4):
        # the 5-D pose task over joints 1-4 and 6 (joint 5 held at 0, the closed form's split)
        res = solve_ik(robot, "claw", T[:, :3, 3], rotation=T[:, :3, :3], locked=["joint5"],
                       seed=closed[:, b] + rng.normal(0, 0.05, closed[:, b].shape) * [1, 1, 1, 1, 0, 1])
        assert (res.rank == 5).all()
        np.testing.assert_allclose(angle_diff(res.q, closed[:, b]), 0, atol=1e-9)


def test_paper004_tool_axis_has_one_free_direction(rng):
    """Joints 5 and 6 are coaxial: position + tool axis has rank 4 (not 5), a tool axis out of the vertical plane
    through the base axis is unreachable for the numerical IK too, and the full pose has rank 5."""
    robot = paper004()
    q = well_conditioned(robot, rng.uniform(-np.pi, np.pi, (30, 6)), "claw")
    T = forward_kinematics(robot, q)[:, -1]
    res = solve_ik(robot, "claw", T[:, :3, 3], axis=T[:, :3, 2], seed=q + 0.05)
    assert (res.rank == 4).all()
    assert (solve_ik(robot, "claw", T[:, :3, 3], rotation=T[:, :3, :3], seed=q + 0.05).rank == 5).all()
    T0 = forward_kinematics(robot, HOME004)[0, -1]
    tilted = np.array([np.sin(0.1), -np.cos(0.1), 0.0])  # the home axis turned 5.7 deg out of the y-z plane
    with pytest.raises(UnreachableError, match=r"m from its target position and the tool axis .* deg off"):
        solve_ik(robot, "claw", T0[:3, 3], axis=tilted)


def test_paper004_point_and_axis_on_the_base_axis():
    # wrist on the base axis (0.385 cos 60 + 0.392 cos(theta2 + theta3) = 0) and the tool axis straight down:
    # theta1 is free; the closed form uses theta1_free and the roll absorbs the rest
    t3 = math.acos(-A2 * 0.5 / A3) - math.radians(60)
    q = np.array([0.5, math.radians(60), t3, math.pi - math.radians(60) - t3, 0.2, 0.1])
    robot = paper004()
    T = forward_kinematics(robot, q)[0, -1]
    assert np.linalg.norm(T[:2, 3]) < 1e-15 and np.allclose(T[:3, 2], [0, 0, -1])
    closed = paper004_ik(T[:3, 3], T[:3, 2], T[:3, 0])
    np.testing.assert_allclose(closed[0, [0, 1], 0], math.pi / 2)
    for b in range(4):
        np.testing.assert_allclose(forward_kinematics(robot, closed[:, b])[0, -1], T, atol=1e-12)


def test_paper004_bad_targets():
    # tool axis out of the vertical plane through the base axis and the point
    with pytest.raises(InputError, match=r"target 1: the tool axis leaves the arm's vertical plane by 90 deg"):
        paper004_ik([[0, -0.58, 0.635], [0, -0.58, 0.635]], [[0, -1, 0], [1, 0, 0]])
    with pytest.raises(InputError, match="target 0 is out of reach: the wrist point is 1.5.* m from the shoulder"):
        paper004_ik([0, -1.5, 0.25 + 0.188], [0, 0, 1])
    with pytest.raises(InputError, match="x_axis is not normal to the axis"):
        paper004_ik([0, -0.58, 0.635], [0, -1, 0], [0, -1, 0])
    with pytest.raises(InputError, match=r"axis must have shape"):
        paper004_ik([0, -0.58, 0.635], [0, -1])


# ---------------------------------------------------------------------------------------- paper 002: MG400


def read_table(name):
    with open(DATA / name) as fh:
        rows = list(csv.DictReader(line for line in fh if not line.startswith("#")))
    return {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}


def test_mg400_fk_reproduces_table3():
    tab = read_table("paper002_table3_fk.csv")
    q = np.radians(np.column_stack([tab[f"theta{i}_deg"] for i in range(1, 5)]))
    p, rz = mg400_fk(q)
    # the table rounds its angles to 0.01 deg (up to 0.03 mm at 350 mm) and positions to 0.01 mm
    np.testing.assert_allclose(p * 1e3, np.column_stack([tab["px_mm"], tab["py_mm"], tab["pz_mm"]]), atol=0.05)
    np.testing.assert_allclose(np.degrees(rz), tab["rz_deg"], atol=0.05)


def test_mg400_eq6_equals_table2_dh_product(rng):
    """Eq. (6) against the product of the standard D-H transforms of Table 2 (the -90/+90 deg offsets of joints 2
    and 33 are the zero pose of eq. 6; the base frame sits on the J1 axis 123 mm below joint 1's frame)."""
    q = rng.uniform(-np.pi, np.pi, (20, 4))
    p, rz = mg400_fk(q)
    for k in range(20):
        t1, t2, t33, t4 = q[k]
        rows = [(t1, 0.105, 0.0435, -math.pi / 2), (t2 - math.pi / 2, 0, 0.175, 0), (t33 + math.pi / 2, 0, 0.175, 0),
                (-t2 - t33, 0, 0.066, math.pi / 2), (t4, -0.036, 0, 0)]
        T = trans(z=0.123)
        for th, d, a, al in rows:
            T = T @ rot_z(th) @ trans(z=d) @ trans(x=a) @ rot_x(al)
        np.testing.assert_allclose(p[k], T[:3, 3], atol=1e-15)
        np.testing.assert_allclose(T[:3, :3], rot_z(rz[k])[:3, :3], atol=1e-14)


def test_mg400_ik_reproduces_table4():
    tab = read_table("paper002_table4_ik.csv")
    p = np.column_stack([tab["px_mm"], tab["py_mm"], tab["pz_mm"]]) / 1e3
    q = np.degrees(mg400_ik(p, np.radians(tab["rz_deg"])))
    expected = np.column_stack([tab[f"theta{i}_deg"] for i in range(1, 5)])
    # 0.05 deg: row 9's pz in Table 4 is 0.05 mm off Table 3's, which moves theta2 by 0.04 deg
    np.testing.assert_allclose(q, expected, atol=0.05)
    assert np.all(np.abs(q[:, 3]) <= 180)


def test_mg400_ik_inverts_fk(rng):
    n = 500  # the MG400's working ranges: J1 +-160, J2 -25..85 deg, theta33 with cos >= 0, J4 +-180
    q = np.radians(np.column_stack([rng.uniform(-160, 160, n), rng.uniform(-25, 85, n), rng.uniform(-85, 85, n),
                                    rng.uniform(-180, 180, n)]))
    p, rz = mg400_fk(q)
    np.testing.assert_allclose(mg400_ik(p, rz), q, atol=1e-10)
    allq = mg400_ik(p, rz, all_branches=True)
    assert np.isnan(allq[:, 2:]).any() and not np.isnan(allq[:, :2]).any()
    for b in range(4):
        ok = ~np.isnan(allq[:, b, 0])
        p2, rz2 = mg400_fk(allq[ok, b])
        np.testing.assert_allclose(p2, p[ok], atol=1e-12)
        np.testing.assert_allclose(angle_diff(rz2, rz[ok]), 0, atol=1e-12)


def test_mg400_bad_input():
    with pytest.raises(InputError, match="MG400 target 1 is out of reach"):
        mg400_ik([[0.3, 0, 0.2], [1.0, 0, 0.2]], 0.0)
    with pytest.raises(InputError, match=r"shape \(4,\) or \(n, 4\)"):
        mg400_fk(np.zeros(3))
    with pytest.raises(InputError, match="rz must be a finite scalar or have 2"):
        mg400_ik([[0.3, 0, 0.2], [0.3, 0, 0.2]], [0.0, 1.0, 2.0])
