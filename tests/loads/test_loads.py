"""Link loads on their own: the body-load coefficients against the rigid-body acceleration field, the interface
wrench columns against the joint reactions, the structured column index, and the input checks (mesh placement,
payloads, missing surfaces)."""
import numpy as np
import pytest
from helpers import H, L1, L2, beam, two_beam_parts, two_beam_robot

from structcheck.errors import InputError
from structcheck.fe.response import load_resultants
from structcheck.loads import (BODY_COMPONENTS, WRENCH_COMPONENTS, LoadColumn, body_coefficients,
                               check_part_placement, link_loads, payload_table)
from structcheck.study import Payload, PointForce, Study, link_loads as study_link_loads, prepare, rigid_stage


def test_body_coefficients_give_the_rigid_body_acceleration_field(rng):
    """rho (A0 + B x) is the d'Alembert body force of the link's rigid motion: at any point x of the link frame,
    g - (a_O + alpha x x + omega x (omega x x)), per unit mass, for a stack of samples and for one."""
    n = 7
    g, a0, w, al = (rng.standard_normal((n, 3)) for _ in range(4))
    x = rng.standard_normal((n, 3))
    c = body_coefficients(g, a0, w, al)
    assert c.shape == (n, 12) and len(BODY_COMPONENTS) == 12
    A0, B = c[:, :3], c[:, 3:].reshape(n, 3, 3)
    by_hand = g - (a0 + np.cross(al, x) + np.cross(w, np.cross(w, x)))
    np.testing.assert_allclose(A0 + np.einsum("tij,tj->ti", B, x), by_hand, rtol=0, atol=1e-13)
    # one sample given as (3,) vectors, and gravity alone (a link at rest: B = 0)
    np.testing.assert_array_equal(body_coefficients(g[0], a0[0], w[0], al[0]), c[:1])
    np.testing.assert_array_equal(body_coefficients(g[0], 0 * g[0], 0 * g[0], 0 * g[0]),
                                  np.r_[g[0], np.zeros(9)][None])


@pytest.fixture(scope="module")
def arm_parts():
    return two_beam_parts(16, 12)


@pytest.fixture(scope="module")
def swinging(arm_parts):
    """The two-beam arm swinging both joints with a force on the tool: (study, prepared, rigid stage, loads)."""
    study = Study(flexibility="link", name="swing", robot=two_beam_robot(), parts=arm_parts, t_end=1.0, n_frames=6,
                  motion={"joint1": "STEP(time,0,0,1,30d)", "joint2": "STEP(time,0,0,1,-45d)"},
                  point_forces=(PointForce("tool", "STEP(time,0,0,1,40)", (0, 0, -1)),), quasi_static=True)
    prep = prepare(study)
    rigid = rigid_stage(study, prep, prep.grid.t)
    return study, prep, rigid, study_link_loads(study, prep, rigid)


def test_columns_say_what_each_load_is(swinging):
    _, _, _, loads = swinging
    l1, l2 = loads["link1"], loads["link2"]
    assert l1.columns[:12] == tuple(LoadColumn("body", "body", c) for c in BODY_COMPONENTS)
    assert l1.columns[12:] == tuple(LoadColumn("joint2", "interface", c) for c in WRENCH_COMPONENTS)
    assert l1.interface("joint2") == list(range(12, 18)) and l1.support == ("joint1",)
    assert l2.columns[12:] == tuple(LoadColumn("tool", "point", c) for c in WRENCH_COMPONENTS[:3])
    assert l2.interface("joint2") == [] and l2.support == ("joint2",)
    assert l2.index("tool", "Fz") == 14 and l2.index("tool", "Mz") is None and l2.index("body", "ax") is None
    assert l1.F.shape[1] == len(l1.columns) == l1.coeff.shape[1]


def test_interface_columns_carry_minus_the_childs_reaction(swinging):
    """The joint2 columns of link1 add up to minus joint2's wrench (parent on child, child joint axes), turned
    into link1's axes: force -R_12 F, moment about the link1 origin -R_12 M + p2 x (-R_12 F), p2 = (L1, 0, 0)."""
    study, prep, rigid, loads = swinging
    dyn = rigid.body.dynamics
    ld = loads["link1"]
    cols = ld.interface("joint2")
    resultant = ld.coeff[:, cols] @ load_resultants(study.parts["link1"], ld.F[:, cols]).T  # (n_t, 6)
    T = dyn.kinematics.T_world_link
    tree = prep.chain.tree
    R12 = np.einsum("tji,tjk->tik", T[:, tree.link_names.index("link1"), :3, :3],
                    T[:, tree.link_names.index("link2"), :3, :3])
    W = dyn.joint_wrenches[:, list(dyn.joint_names).index("joint2")]
    F = -np.einsum("tij,tj->ti", R12, W[:, :3])
    M = -np.einsum("tij,tj->ti", R12, W[:, 3:]) + np.cross([L1, 0.0, 0.0], F)
    scale = np.abs(W).max()
    assert scale > 1.0  # the arm is loaded (its weight, the tool force, its motion)
    np.testing.assert_allclose(resultant, np.hstack([F, M]), rtol=0, atol=1e-10 * scale)


def test_missing_surface_names_the_link_the_surface_and_the_choices(swinging, arm_parts):
    study, prep, rigid, _ = swinging
    bare = arm_parts["link1"].with_surfaces({"joint1": arm_parts["link1"].surface_facets("joint1")})
    with pytest.raises(InputError, match=r"link 'link1': its mesh has no surface 'joint2' \(the interface of "
                                         r"joint 'joint2' to child link 'link2'\); the mesh has \['joint1'\]"):
        link_loads(prep.chain, rigid.body.dynamics, "link1", bare, study.gravity, rigid.point_forces)


# "across": the diagonal of the mesh's bounding box, 0.4005 m for link1 (0.4 x 0.02 x 0.02 m)
@pytest.mark.parametrize("factor, message", [(75.0, r"link 'link1': its mesh is 30\.07 m across but its joints and "
                                                    r"points span 0\.4 m; is the mesh in millimetres\?"),
                                             (5e-3, r"link 'link1': its mesh is 0\.00200\d m across .* is the mesh "
                                                    r"in metres but read with units='mm'\?")])
def test_placement_rejects_a_mesh_in_the_wrong_units(arm_parts, factor, message):
    from structcheck.fe.part import Part

    p1 = arm_parts["link1"]
    scaled = Part.from_skfem(p1.mesh.scaled(factor), p1.material,
                             surfaces={n: p1.surface_facets(n) for n in p1.surfaces})
    with pytest.raises(InputError, match=message):
        check_part_placement(two_beam_robot(), {"link1": scaled})


def test_placement_rejects_a_joint_face_off_its_axis(arm_parts):
    from structcheck.fe.part import Part

    p1 = arm_parts["link1"]
    moved = Part.from_skfem(p1.mesh.translated((0.0, 0.0, 0.3)), p1.material,
                            surfaces={n: p1.surface_facets(n) for n in p1.surfaces})
    with pytest.raises(InputError, match=r"link 'link1': the centre of its surface 'joint1' is 0\.3 m from the axis "
                                         r"of joint 'joint1' .* the mesh must be given in the link's own frame"):
        check_part_placement(two_beam_robot(), {"link1": moved})
    check_part_placement(two_beam_robot(), arm_parts)  # the right meshes pass


@pytest.mark.parametrize("payloads, message", [
    ((Payload("nowhere", 1.0),), r"payload at unknown point 'nowhere'; the robot's points are \['tool'\]"),
    ((Payload("tool", 1.0), Payload("tool", 2.0)), r"two payloads at point 'tool'; combine them into one"),
    ((Payload("tool", 1.0, np.array([[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]])),),
     r"payload at 'tool': inertia must be a symmetric positive semi-definite 3x3 matrix"),
    ((Payload("tool", 1.0, -np.eye(3)),), r"inertia must be a symmetric positive semi-definite"),
])
def test_bad_payloads_are_rejected(payloads, message):
    with pytest.raises(InputError, match=message):
        payload_table(payloads, two_beam_robot())


@pytest.mark.parametrize("mass, inertia, message", [
    (-1.0, None, r"payload at 'tool': mass = -1\.0: give a finite number > 0 \(kg\)"),
    (float("nan"), None, r"payload at 'tool': mass = nan: give a finite number > 0 \(kg\)"),
    ("2", None, r"payload at 'tool': mass = '2': give a finite number > 0 \(kg\), not str"),
    (1.0, np.full((3, 3), np.inf), r"payload at 'tool': inertia = .*: give 3 x 3 finite numbers \(kg m\^2\)"),
])
def test_payload_numbers_are_checked_where_they_enter(mass, inertia, message):
    with pytest.raises(InputError, match=message):
        Payload("tool", mass, inertia)


def test_payload_table():
    table = payload_table((Payload("tool", 2.0), Payload("tool2", 1.0, np.diag([1.0, 2, 3]))),
                          two_beam_robot().with_points({"tool2": ("link1", (0.1, 0, H / 2))}))
    assert table["tool"][0] == 2.0 and np.array_equal(table["tool"][1], np.zeros((3, 3)))
    assert np.array_equal(table["tool2"][1], np.diag([1.0, 2, 3]))


def test_placement_counts_cut_joints_in_a_links_span():
    """A loop member whose far end is only a cut joint (a parallelogram's rocker): 1.5 m long, 75 x the 0.02 m
    floor of a span with nothing but its proximal joint, so in a tree it would look like a mesh in mm; the cut
    joint at its far end makes the span its length."""
    from structcheck.model.robot import Joint, Link, Robot
    from structcheck.rigid.closedchain import CutJoint

    length = 1.5
    robot = Robot([Link("ground"), Link("rocker")],
                  [Joint("crank", "revolute", "ground", "rocker", np.eye(4), np.array([0, 1.0, 0]), -3, 3)])
    part = beam(length, H, H, 30, ends=("crank", "pin"))
    far = np.eye(4)
    far[0, 3] = length
    with pytest.raises(InputError, match="link 'rocker': its mesh is 1.5 m across but its joints and points span"):
        check_part_placement(robot, {"rocker": part})
    check_part_placement(robot, {"rocker": part}, (CutJoint("pin", "revolute", "ground", "rocker", np.eye(4), far,
                                                            np.array([0, 1.0, 0])),))
