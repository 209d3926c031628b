"""structcheck.cad: a STEP assembly into link parts.

The reference for the joint interfaces is the paper-004 mesh generator's own naming (meshes/make_paper004_meshes.py
names every flange face by hand with a predicate in the link frame): the parts are built by the generator, placed
at a pose away from home in one frame and written as one STEP file in millimetres, and what the import finds
automatically must be the same faces with the same areas. Input mistakes are built from boxes.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from structcheck.cad import CadWarning, write_step_assembly
from structcheck.cad.assembly import Rule, plan_assembly
from structcheck.errors import InputError
from structcheck.model.robot import Joint, Link, Robot, trans

from . import paper004_cad as p4


@pytest.fixture(scope="module")
def paper004_cad(tmp_path_factory):
    return p4.write_assembly(tmp_path_factory.mktemp("paper004_cad"))


def _plan(step, robot, links, folder: Path, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan = plan_assembly(step, robot, links, brep=folder / "links.brep", **kw)
    return plan, caught


def _same_faces(choice, hand: p4.HandNamed, shift=(0.0, 0.0, 0.0)) -> bool:
    """The choice's faces are the hand-named ones (moved by ``shift`` [m]): the same face centres, one to one (to
    1 um)."""
    got = sorted(tuple(np.round(c * 1e6)) for c, _ in choice.keys)
    want = sorted(tuple(np.round((c + shift) * 1e6)) for c, _ in hand.faces)
    return got == want


def test_every_automatic_interface_is_the_hand_named_surface(paper004_cad, tmp_path):
    robot, _ = p4.robot()
    plan, caught = _plan(paper004_cad.step, robot, {n: n for n in paper004_cad.named}, tmp_path, q=paper004_cad.q)
    assert not plan.warnings and not caught
    found = {(c.link, c.surface): c for c in plan.choices}
    expected = {(link, name): hand for link, named in paper004_cad.named.items() for name, hand in named.items()
                if name.startswith("joint") or name == "ground"}
    assert set(found) == set(expected)  # every joint on both its links, and the base's ground, nothing else
    for key, hand in expected.items():
        choice = found[key]
        assert choice.rule == (Rule.LOWEST if key[1] == "ground" else Rule.CONTACT)
        assert _same_faces(choice, hand), key
        assert choice.area == pytest.approx(hand.area, rel=1e-3), key


def test_a_gap_is_bridged_by_the_nearest_faces_with_a_warning(tmp_path):
    """The gripper moved 2 mm off the wrist roll along joint 6's axis: no contact; the faces nearest the joint
    origin are the flange faces the generator names joint6, and the warning says so."""
    robot, _ = p4.robot()
    cad = p4.write_assembly(tmp_path, links=["wrist_roll", "gripper"], moved={"gripper": trans(0, 0, 0.002)})
    plan, caught = _plan(cad.step, robot, {"wrist_roll": "wrist_roll", "gripper": "gripper"}, tmp_path, q=cad.q)
    joint6 = {c.link: c for c in plan.choices if c.surface == "joint6"}
    for link, shift in (("wrist_roll", (0, 0, 0)), ("gripper", (0, 0, 0.002))):  # the gripper's solid moved
        assert joint6[link].rule == Rule.NEAREST
        assert _same_faces(joint6[link], cad.named[link]["joint6"], shift)
    assert joint6["wrist_roll"].distance == pytest.approx(0.0, abs=1e-9)
    assert joint6["gripper"].distance == pytest.approx(0.002, rel=1e-6)
    said = [str(w.message) for w in caught if issubclass(w.category, CadWarning) and "'joint6'" in str(w.message)]
    assert len(said) == 1 and "2.00 mm apart" in said[0] and "nearest-face rule" in said[0]


# ------------------------------------------------------------------------------------------------ input mistakes
UPPER, FORE = 0.40, 0.30


def _arm() -> Robot:
    """The template's two-link arm: shoulder at the origin, elbow at x = 0.4 m, both about y."""
    y = np.array([0.0, 1.0, 0.0])
    return Robot([Link("ground"), Link("upper"), Link("fore")],
                 [Joint("shoulder", "revolute", "ground", "upper", trans(), y, -3.0, 3.0),
                  Joint("elbow", "revolute", "upper", "fore", trans(UPPER), y, -3.0, 3.0)])


def _boxes(folder: Path, boxes: dict, units="mm", name="arm.step") -> Path:
    """A STEP assembly of named boxes (name -> (lo, hi) [m]) at the arm's home pose."""
    from structcheck.geometry import PartBuilder

    solids = []
    for k, (solid, (lo, hi)) in enumerate(boxes.items()):
        with PartBuilder(solid) as b:
            b.box(lo, hi)
            b.occ.synchronize()
            b.gmsh.write(str(folder / f"{k}.brep"))
        solids.append((solid, folder / f"{k}.brep", np.eye(4)))
    return write_step_assembly(folder / name, solids, units=units)


# the template's tubes as boxes, the upper one's end face on the side of a pedestal: a column on a foot (two solids
# of the ground link; the foot stops short of the column's side so that the floor and the shoulder share no edge)
ARM = {"column": ((-0.06, -0.03, -0.05), (0.0, 0.03, 0.05)),
       "foot": ((-0.1, -0.05, -0.08), (-0.02, 0.05, -0.05)),
       "upper_tube": ((0.0, -0.02, -0.015), (UPPER, 0.02, 0.015)),
       "fore_tube": ((UPPER, -0.02, -0.015), (UPPER + FORE, 0.02, 0.015))}
ARM_LINKS = {"ground": ["column", "foot"], "upper": "upper_tube", "fore": "fore_tube"}


def test_the_box_arm_reads_with_its_joint_faces_and_ground(tmp_path):
    """The reference for the error cases below: the same file read right. The tubes' 40 x 30 mm end faces touch
    the column's side and each other; the faces are named whole (the column's side is 60 x 100 mm); the floor is
    the foot's 80 x 100 mm bottom."""
    plan, caught = _plan(_boxes(tmp_path, ARM), _arm(), ARM_LINKS, tmp_path)
    assert not caught
    want = {("ground", "shoulder"): (Rule.CONTACT, 0.06 * 0.1, 0.0),
            ("upper", "shoulder"): (Rule.CONTACT, 0.04 * 0.03, 0.0),
            ("upper", "elbow"): (Rule.CONTACT, 0.04 * 0.03, 0.0),  # the end face's centre is the elbow
            ("fore", "elbow"): (Rule.CONTACT, 0.04 * 0.03, 0.0),
            ("ground", "ground"): (Rule.LOWEST, 0.08 * 0.1, np.nan)}
    got = {(c.link, c.surface): (c.rule, c.area, c.distance) for c in plan.choices}
    assert sorted(got) == sorted(want)
    for key, (rule, area, distance) in want.items():
        assert got[key][0] == rule
        assert got[key][1:] == pytest.approx((area, distance), nan_ok=True, rel=1e-9, abs=1e-12), key


def test_a_link_without_solids_leaves_its_joint_to_the_nearest_faces(tmp_path):
    """No pedestal: the upper tube's faces square to the shoulder axis (y) nearest its origin are its two sides
    (centres at x = 0.2 m, y = +-0.02 m), not its end face (square to x); a warning says so."""
    plan, caught = _plan(_boxes(tmp_path, ARM), _arm(), {"upper": "upper_tube", "fore": "fore_tube"}, tmp_path)
    shoulder = [c for c in plan.choices if c.surface == "shoulder"]
    assert len(shoulder) == 1 and shoulder[0].rule == Rule.NEAREST and len(shoulder[0].faces) == 2
    assert shoulder[0].distance == pytest.approx(np.hypot(UPPER / 2, 0.02), rel=1e-9)
    assert shoulder[0].area == pytest.approx(2 * UPPER * 0.03, rel=1e-9)
    assert any("joint 'shoulder': link 'ground' has no solids" in str(w.message) for w in caught)


@pytest.mark.parametrize("links, message", [
    ({**ARM_LINKS, "fore": ["fore_tube", "upper_tube"]},
     "solid 'upper_tube' is claimed by links 'upper' and 'fore'"),
    ({"upper": "upper_tub", "fore": "fore_tube"},
     "no solid named 'upper_tub' (claimed by link 'upper'); the file holds ['column', 'foot', 'fore_tube', "
     "'upper_tube']"),
    ({"upper": "upper_tube", "forearm": "fore_tube"}, "links names 'forearm', which is no link of robot"),
])
def test_claims_that_cannot_be_met_are_input_errors(tmp_path, links, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        _plan(_boxes(tmp_path, ARM), _arm(), links, tmp_path)


def test_a_file_without_a_solid_is_an_input_error(tmp_path):
    from structcheck.geometry import PartBuilder

    with PartBuilder("sheet") as b:
        b.occ.addRectangle(0, 0, 0, 0.4, 0.03)
        b.occ.synchronize()
        b.gmsh.write(str(tmp_path / "sheet.step"))
    with pytest.raises(InputError, match=r"sheet.step: the file holds no solid \(only surfaces\)"):
        _plan(tmp_path / "sheet.step", _arm(), {"upper": "x"}, tmp_path)


def test_a_file_in_metres_read_as_millimetres_names_the_unit(tmp_path):
    step = _boxes(tmp_path, ARM, units="m")
    with pytest.raises(InputError, match=r"the file's numbers look to be in m: pass units='m'"):
        _plan(step, _arm(), ARM_LINKS, tmp_path)
    plan, _ = _plan(step, _arm(), ARM_LINKS, tmp_path, units="m")
    assert plan.diagonal["upper"] == pytest.approx(np.linalg.norm([UPPER, 0.04, 0.03]), rel=1e-6)


def test_solids_of_one_link_that_do_not_touch_are_an_input_error(tmp_path):
    boxes = {**ARM, "boss": ((0.1, 0.05, -0.01), (0.12, 0.07, 0.01))}  # 30 mm off the tube
    with pytest.raises(InputError, match=r"link 'upper': its solids \['boss', 'upper_tube'\] do not all touch"):
        _plan(_boxes(tmp_path, boxes), _arm(), {**ARM_LINKS, "upper": ["upper_tube", "boss"]}, tmp_path)


def test_an_unclaimed_solid_is_named_in_a_warning(tmp_path):
    boxes = {**ARM, "cable_guide": ((0.1, 0.02, -0.01), (0.12, 0.03, 0.01))}
    plan, caught = _plan(_boxes(tmp_path, boxes), _arm(), ARM_LINKS, tmp_path)
    said = [str(w.message) for w in caught if issubclass(w.category, CadWarning)]
    assert "arm.step: solids no link claims are left out: ['cable_guide']" in said
    assert said == plan.warnings


def test_touching_faces_off_the_joint_axis_are_named_in_a_warning(tmp_path):
    """A forearm laid beside the upper tube, their sides touching over 20 mm at the elbow: both side faces touch
    and are named whole, their centres 200 mm (upper) and 140 mm (fore) off the elbow's axis, more than a quarter
    of either tube's size: the study would refuse them, the import says so first."""
    boxes = {**ARM, "fore_tube": ((UPPER - 0.02, 0.02, -0.015), (UPPER + FORE, 0.06, 0.015))}
    plan, caught = _plan(_boxes(tmp_path, boxes), _arm(), ARM_LINKS, tmp_path)
    elbow = {c.link: c for c in plan.choices if c.surface == "elbow"}
    assert {c.rule for c in elbow.values()} == {Rule.CONTACT}
    said = [str(w.message) for w in caught if "off the joint axis" in str(w.message)]
    assert len(said) == 2
    assert "the faces of 'upper' that touch its other link have their centre 200.0 mm off the joint axis" in said[0]
    assert "the faces of 'fore' that touch its other link have their centre 140.0 mm off the joint axis" in said[1]


def test_a_pin_in_a_clearance_bore_is_found_coaxial(tmp_path):
    """The forearm's end is a pin along the elbow axis (y) of 10 mm radius, 50 mm long, in a 12 mm bore through the
    upper tube's 40 mm wide end boss: 2 mm of clearance, no contact. The faces coaxial with or square to the axis
    whose centres are nearest the joint origin are the bore's wall (centre on it) and the pin's side (10 mm from
    it), not the boss's ends (20 mm) or the pin's free end (15 mm)."""
    from structcheck.geometry import PartBuilder

    solids = []
    for name, make in (("upper_tube", lambda b: b.cut(b.fuse(b.box((0, -0.02, -0.015), (UPPER, 0.02, 0.015)),
                                                             b.cylinder((UPPER, 0, 0), (0, 1, 0), 0.025, 0.04)),
                                                      b.cylinder((UPPER, 0, 0), (0, 1, 0), 0.012, 0.05))),
                       ("fore_pin", lambda b: b.fuse(b.cylinder((UPPER, -0.01, 0), (0, 1, 0), 0.010, 0.05),
                                                     b.box((UPPER - 0.015, -0.045, -0.015),
                                                           (UPPER + FORE, -0.035, 0.015))))):
        with PartBuilder(name) as b:
            make(b)
            b.occ.synchronize()
            b.gmsh.write(str(tmp_path / f"{name}.brep"))
        solids.append((name, tmp_path / f"{name}.brep", np.eye(4)))
    step = write_step_assembly(tmp_path / "pin.step", solids)
    plan, caught = _plan(step, _arm(), {"upper": "upper_tube", "fore": "fore_pin"}, tmp_path)
    elbow = {c.link: c for c in plan.choices if c.surface == "elbow"}
    assert {c.rule for c in elbow.values()} == {Rule.NEAREST}
    assert elbow["upper"].area == pytest.approx(2 * np.pi * 0.012 * 0.04, rel=1e-6)  # the bore's wall
    assert elbow["fore"].area == pytest.approx(2 * np.pi * 0.010 * 0.05, rel=1e-6)  # the pin's side
    assert elbow["upper"].distance == pytest.approx(0.0, abs=1e-9)
    assert elbow["fore"].distance == pytest.approx(0.01, rel=1e-6)
    assert any("links 'upper' and 'fore' do not touch (their solids are 2.00 mm apart)" in str(w.message)
               for w in caught)


def test_a_refinement_ball_of_the_sizing_meshes_the_imported_part_finer_there(tmp_path):
    """MeshSizing(refine=...): the ball's size [m] inside it, the part's size far from it (the paper-004 generator's
    PEAK_BALLS reach imported parts this way); a ball with a bad size is refused naming the link."""
    from structcheck.cad import MeshSizing, read_assembly

    step = _boxes(tmp_path, {"upper_tube": ARM["upper_tube"]})
    centre = np.array([0.1, 0.02, 0.015])  # an edge of the tube's top face
    sizing = MeshSizing(0.01, refine={"upper": ((centre, 0.002, 0.006),)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no neighbours: both joints by the nearest-face rule
        part = read_assembly(step, _arm(), {"upper": "upper_tube"}, materials="6061-O", mesh_size=sizing,
                             order=1, out=tmp_path / "out").parts["upper"]
    x = part.mesh.p.T[part.mesh.t[:4].T]  # (m, 4, 3) vertices
    h = np.linalg.norm(x[:, [0, 0, 0, 1, 1, 2]] - x[:, [1, 2, 3, 2, 3, 3]], axis=2).mean(axis=1)
    d = np.linalg.norm(x.mean(axis=1) - centre, axis=1)
    # gmsh meets a requested element size to about 30% (tests/fe/test_fillet.py, tests/study/test_converge.py); the
    # ball's 2 mm and the part's 10 mm are 5x apart, so 35% still tells them apart
    assert np.median(h[d < 0.003]) == pytest.approx(0.002, rel=0.35)
    assert np.median(h[d > 0.05]) == pytest.approx(0.01, rel=0.35)
    with pytest.raises(InputError, match="refinement ball 0 of link 'upper': size"):
        MeshSizing(0.01, refine={"upper": ((centre, -1.0, 0.006),)}).link_balls("upper")
