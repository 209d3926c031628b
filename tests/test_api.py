"""The public names other tools rely on (issues #2, #3, #4) and `structcheck info`."""
from pathlib import Path

import numpy as np
import pytest

import structcheck

ROOT = Path(__file__).resolve().parents[1]


def test_motion_and_robot_interface(tmp_path):
    law = structcheck.MotionLaw("STEP(time,3,0,5,90d)")
    assert law.value(np.array([5.0]))[0] == pytest.approx(np.pi / 2)
    with pytest.raises(structcheck.InputError) as err:
        structcheck.MotionLaw("STEP(time,3,0,5")
    assert isinstance(err.value, ValueError) and "STEP(time,3,0,5" in str(err.value)
    urdf = tmp_path / "r.urdf"
    urdf.write_text("""<robot name="r"><link name="a"/><link name="b"><inertial><mass value="2"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="c"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <joint name="f" type="fixed"><parent link="b"/><child link="c"/></joint></robot>""")
    robot = structcheck.Robot.from_urdf(urdf)
    res = robot.inverse_dynamics(np.zeros((4, 1)), np.zeros((4, 1)), np.ones((4, 1)), gravity=(0, 0, -9.81))
    assert res.tau.shape == (4, 1) and res.joint_names == ("j", "f") and res.joint_wrenches.shape == (4, 2, 6)
    assert res.tau[0, 0] == pytest.approx(0.1)  # izz * qdd


def test_part_interface():
    part = structcheck.Part.from_mesh(ROOT / "meshes" / "paper004" / "wrist_roll.msh", material="6061", units="m")
    assert set(part.surfaces) == {"joint5", "joint6"}
    sol = part.solve_static(fixed=["joint5"], wrenches={"joint6": ((0, 100.0, 0), (0, 0, 0), (0, 0, 0.188))},
                            gravity=(0, 0, -9.81))
    n = len(sol.points)
    assert sol.displacement.shape == (n, 3) and sol.von_mises.shape == (n,)
    assert sol.max_von_mises >= sol.von_mises.max()  # unaveraged peak >= nodal averages
    with pytest.raises(structcheck.InputError, match=r"no surface 'tip'.*\['joint5', 'joint6'\]"):
        part.solve_static(fixed=["joint5"], wrenches={"tip": ((0, 1, 0), (0, 0, 0), (0, 0, 0))})


def test_info_command(capsys):
    from structcheck.cli import main

    assert main(["info", str(ROOT / "studies" / "loading_unloading_6dof.py")]) == 0
    out = capsys.readouterr().out
    assert "upper_arm" in out and "gripper" in out and "f1 Hz" in out and "lowest mode" in out
