"""structcheck.cad.starter, called directly: the starter motion's size and direction from each joint's limits,
LINKS.toml read into links, materials and pose, the robot's source, and the starter script's text (parsed, its
tables read back)."""
import ast
from pathlib import Path

import numpy as np
import pytest

from helpers import two_beam_robot
from structcheck.cad.starter import STARTER_STROKE, STARTER_TURN, load_robot, read_links, starter_motion, starter_script
from structcheck.errors import InputError
from structcheck.model.robot import Joint, Link, Robot
from structcheck.motion import as_law

DATA = Path(__file__).resolve().parents[1] / "data"


def tight_robot():
    """j_near_top: home 0 in (-0.1, 0.05) rad; j_slide: prismatic, home 0 in (-0.5, 0.004) m; j_free: +-3 rad."""
    T = np.eye(4)
    links = [Link("base"), Link("a", 1.0), Link("b", 1.0), Link("c", 1.0)]
    joints = [Joint("j_near_top", "revolute", "base", "a", T, np.array([0, 0, 1.0]), -0.1, 0.05),
              Joint("j_slide", "prismatic", "a", "b", T, np.array([1.0, 0, 0]), -0.5, 0.004),
              Joint("j_free", "revolute", "b", "c", T, np.array([0, 1.0, 0]), -3, 3)]
    return Robot(links, joints)


def test_starter_motion_moves_each_joint_towards_its_farther_limit_and_at_most_half_way():
    motion = starter_motion(tight_robot())
    end = {name: float(as_law(law).value(np.array([1.0]))[0]) for name, law in motion.items()}
    # 0.1 rad of room below, 0.05 above: down, by min(10 deg, half of 0.1 rad) = 0.05 rad (printed to 4 digits)
    assert end["j_near_top"] == pytest.approx(-0.05, rel=1e-4)
    # prismatic: 0.5 m below, by min(10 mm, 0.25 m) = 10 mm, in metres
    assert end["j_slide"] == pytest.approx(-STARTER_STROKE, rel=1e-12)
    assert end["j_free"] == pytest.approx(STARTER_TURN, rel=1e-4)  # equal room: up
    assert motion["j_free"] == "STEP(time, 0, 0, 1, 10d)"
    for law in motion.values():  # at rest at home at t = 0, still at t = 1
        assert as_law(law).value(np.array([0.0]))[0] == 0 and as_law(law).velocity(np.array([1.0]))[0] == 0


def test_read_links(tmp_path):
    robot = two_beam_robot()
    path = tmp_path / "links.toml"
    path.write_text('[links]\nlink1 = ["tube", "boss"]\nlink2 = "fore"\n\n[materials]\ndefault = "6061-T6"\n'
                    'link2 = "structural_steel"\n\n[pose]\njoint2 = 0.5\n')
    spec = read_links(path, robot)
    assert spec["links"] == {"link1": ["tube", "boss"], "link2": "fore"}
    assert spec["materials"] == {"link1": "6061-T6", "link2": "structural_steel"}
    np.testing.assert_array_equal(spec["q"], [0.0, 0.5])


@pytest.mark.parametrize("text, match", [
    ('[links]\nlink1 = "tube"\n', r"\[materials\] gives no material for links \['link1'\]"),
    ('[links]\nlink1 = "tube"\n[materials]\ndefault = "6061-T6"\n[pose]\nelbow = 1\n',
     r"\[pose\] names 'elbow', which is no moving joint; they are \['joint1', 'joint2'\]"),
    ('[links]\nlink1 = "tube"\n[material]\ndefault = "6061-T6"\n', r"unknown tables \['material'\]"),
    ('[links\n', "cannot read it as TOML"),
])
def test_read_links_refuses_with_the_input_named(tmp_path, text, match):
    path = tmp_path / "links.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=match):
        read_links(path, two_beam_robot())


def test_load_robot_from_urdf_and_refusal():
    robot, source = load_robot(str(DATA / "urdf" / "ur5.urdf"))
    assert robot.n_dof == 6 and source == (DATA / "urdf" / "ur5.urdf").resolve()
    with pytest.raises(InputError, match=r"give a URDF file \(.urdf\) or a study script \(.py\)"):
        load_robot("arm.step")


def test_starter_script_is_python_holding_the_given_tables(tmp_path):
    robot = two_beam_robot()
    spec = {"materials": {"link1": "6061-T6", "link2": "structural_steel"},
            "links": {"link1": ["Solid1"], "link2": ["Solid2"]}, "q": [0.0, 0.1]}
    text = starter_script(robot, tmp_path / "robot" / "arm.urdf", spec, tmp_path / "cad" / "arm.step", tmp_path / "out",
                          {"units": "mm", "mesh_size": 0.01, "order": 2})
    tree = ast.parse(text)
    values = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
              if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
              and node.targets[0].id in ("MATERIALS", "MOTION")}
    assert values["MATERIALS"] == spec["materials"]
    assert values["MOTION"] == starter_motion(robot)
    # the robot and the assembly named relative to the study's folder: no absolute path
    assert "sc.Robot.from_urdf(HERE / '../robot/arm.urdf')" in text and "'../cad/arm.step'" in text
    assert str(tmp_path) not in text
    assert "build_study" not in text  # imported only when the robot comes from a study script
