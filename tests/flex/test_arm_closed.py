"""Closed chains in the arm model: a planar portal frame (a four-bar) of steel beams against closed-form frame
solutions.

The frame, in the x-z plane, every joint a revolute about y: column col1 (0.4 m, along z) on the ground at A,
actuated (rigid); the beam (0.3 m, along x) pinned to col1's top at B; column col2 (0.4 m, down along -z) pinned to
the beam at C and, through the cut joint jD of the ClosedChain, to the ground at D. All sections 20 x 20 mm. The
passive pins B, C, D are free about their axes, so col2 is a two-force member, the beam is simply supported, and
col1 is a cantilever that alone resists sway. The flanges (the beams' end faces) are rigid.

References (Euler-Bernoulli, with Timoshenko's shear term where it matters, kappa = 5/6 for the square):
- sway frequency: col1 as a cantilever carrying at its top the translating beam and col2 turning about D (its
  kinetic energy that of a mass m_col2 / 3 at its top): the tip-mass cantilever equation
  1 + cos b cosh b + mu b (cos b sinh b - sin b cosh b) = 0, mu = (m_beam + m_col2 / 3) / (rho A h)
  (Blevins, Formulas for Natural Frequency and Mode Shape, Table 8-8);
- a horizontal force P at B: col1's top deflects P h^3 / (3 E I), its bending stress at mid-height is
  P (h / 2) (a / 2) / I, the actuated joint A holds the moment P h about the pin axis and the pins none;
- the beam's own weight (the other links weightless): simply supported, midspan deflection
  5 q w^4 / (384 E I) + q w^2 / (8 kappa G A); with rigid joints at B and C it would be about 5x smaller.
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import beam

from structcheck.errors import InputError
from structcheck.flex import assemble_arm, reduce_links
from structcheck.flex.recovery import interface_wrench
from structcheck.flex.transient import arm_static
from structcheck.fe.stress import von_mises
from structcheck.model.materials import get_material
from structcheck.model.robot import Joint, Link, Robot
from structcheck.rigid.closedchain import ClosedChain, CutJoint
from structcheck.verify.arm import tip_mass_roots

H, W, A = 0.4, 0.3, 0.02  # column height, beam span, section side [m]
Y = np.array([0.0, 1.0, 0.0])
STEEL = get_material("structural_steel")
I_A = A ** 4 / 12


def _T(p):
    M = np.eye(4)
    M[:3, 3] = p
    return M


def frame_chain(actuated=("jA",)) -> ClosedChain:
    """The portal frame as a ClosedChain: tree ground -jA- col1 -jB- beam -jC- col2, cut joint jD col2-ground."""
    links = [Link("ground"), Link("col1"), Link("beam"), Link("col2")]
    joints = [Joint("jA", "revolute", "ground", "col1", _T([0, 0, 0]), Y, -3, 3),
              Joint("jB", "revolute", "col1", "beam", _T([0, 0, H]), Y, -3, 3),
              Joint("jC", "revolute", "beam", "col2", _T([W, 0, 0]), Y, -3, 3)]
    tree = Robot(links, joints)
    cut = CutJoint("jD", "revolute", "col2", "ground", _T([0, 0, -H]), _T([W, 0, 0]), Y)
    return ClosedChain(tree, [cut], independent=["jA"], actuated=list(actuated))


@pytest.fixture(scope="module")
def frame():
    parts = {"col1": beam(H, A, A, 24, ends=("jA", "jB"), axis=2),
             "beam": beam(W, A, A, 18, ends=("jB", "jC")),
             "col2": beam(-H, A, A, 24, ends=("jC", "jD"), axis=2)}
    chain = frame_chain()
    return chain, parts, reduce_links(chain, parts, 4)


def _static(frame, link, F, **kw):
    chain, _, ses = frame
    return arm_static(chain, ses, [0.0, 1.0], np.zeros((2, 3)), {link: (F, np.ones((2, 1)))}, **kw)


def test_sway_frequency_is_the_tip_mass_cantilever(frame):
    """Measured +0.06%: the mesh, the rigid flanges and col2's own bending in the sway (its pinned-pinned mode is
    6.5x higher) together."""
    chain, _, ses = frame
    f = assemble_arm(chain, ses, np.zeros(3)).modes(2)[0]
    mu = (W + H / 3) / H
    b = tip_mass_roots(mu, 1)[0]
    f_ref = b ** 2 * np.sqrt(STEEL.E * I_A / (STEEL.density * A * A * H ** 4)) / (2 * np.pi)
    assert f[0] == pytest.approx(f_ref, rel=5e-3)


def test_actuated_joint_holds_the_moment_and_the_pins_none(frame):
    """P = 100 N along x at B on the beam: joint A carries My = -P h (what the ground exerts on col1), the pins B,
    C, D carry no moment about their axes (to 1e-12 of P h); col1's top deflects as the cantilever (measured
    -0.5%) and its mid-height bending stress is P (h/2)(a/2)/I (mean of its surface element nodes, +0.004%)."""
    chain, parts, ses = frame
    P = 100.0
    F = parts["beam"].wrench_basis("jB", np.zeros(3))[:, [0]] * P
    tr = _static(frame, "beam", F)
    wA = interface_wrench(ses["col1"], "jA", tr.z["col1"][:1])[0]
    assert wA[0] == pytest.approx(-P, rel=1e-6)
    assert wA[4] == pytest.approx(-P * H, rel=1e-6)
    for link, joint in [("col1", "jB"), ("beam", "jC"), ("col2", "jC"), ("col2", "jD")]:
        w = interface_wrench(ses[link], joint, tr.z[link][:1], *((F, np.ones((1, 1))) if link == "beam" else ()))
        assert abs(w[0, 4]) < 1e-12 * P * H, (link, joint)
    # col2 is a two-force member along z: no horizontal force through it, so all of P goes down col1
    w = interface_wrench(ses["col2"], "jD", tr.z["col2"][:1])[0]
    assert abs(w[0]) < 1e-6 * P
    u = ses["col1"].displacement(tr.z["col1"][0])
    top = np.isclose(parts["col1"].points[:, 2], H)
    assert u[top, 0].mean() == pytest.approx(P * H ** 3 / (3 * STEEL.E * I_A), rel=0.01)
    vm = von_mises(ses["col1"].element_node_stress(tr.z["col1"][0]))[0]
    pts = parts["col1"].points[parts["col1"].cells]
    mid = np.isclose(pts[..., 2], H / 2) & np.isclose(np.abs(pts[..., 0]), A / 2)
    assert vm[mid].mean() == pytest.approx(P * (H / 2) * (A / 2) / I_A, rel=2e-3)


def test_pinned_beam_is_simply_supported(frame):
    """The beam's weight alone: midspan deflection relative to its ends is the simply supported Timoshenko beam's
    (measured -0.10%); rigid joints would give about a fifth of it. The pins carry no moment; the actuated joint
    none either (no horizontal thrust: col2 is a two-force member)."""
    chain, parts, ses = frame
    g = 9.81
    F = parts["beam"].body_load_basis()[:, [2]] * -g
    tr = _static(frame, "beam", F)
    u = ses["beam"].displacement(tr.z["beam"][0])
    p = parts["beam"].points
    on_axis = np.isclose(p[:, 1], 0) & np.isclose(p[:, 2], 0)
    at = {x: on_axis & np.isclose(p[:, 0], x) for x in (0.0, W / 2, W)}
    d = u[at[W / 2], 2].mean() - 0.5 * (u[at[0.0], 2].mean() + u[at[W], 2].mean())
    q = STEEL.density * A * A * g
    G = STEEL.E / (2 * (1 + STEEL.nu))
    d_ref = 5 * q * W ** 4 / (384 * STEEL.E * I_A) + q * W ** 2 / (8 * 5 / 6 * G * A * A)
    assert -d == pytest.approx(d_ref, rel=5e-3)
    scale = q * W * W
    for link, joint in [("col1", "jA"), ("col1", "jB"), ("col2", "jC"), ("col2", "jD")]:
        assert abs(interface_wrench(ses[link], joint, tr.z[link][:1])[0, 4]) < 1e-9 * scale, (link, joint)


def test_a_mechanism_is_refused(frame):
    """With the actuated joint given no stiffness the frame can sway freely: a clear InputError naming it."""
    _, parts, _ = frame
    F = parts["beam"].body_load_basis()[:, [2]] * -9.81
    with pytest.raises(InputError, match=r"mechanism.*jA"):
        _static(frame, "beam", F, joint_stiffness={"jA": 0.0})


def test_study_joint_reactions_are_the_rigid_body_ones_where_determined(frame):
    """The frame as a Study (gravity, col1 swung 10 deg by its actuator in 1 s, quasi-static arm model): at the
    reference sample of every frozen pose, every joint's reaction in the arm model equals the closed-chain
    Newton-Euler joint wrench (tree joints: parent on child, child axes; the cut joint: col2 on the ground,
    ground axes) to 1e-6 in every component rigid-body mechanics determines. The planar loop's 3 redundant rows
    leave the pin-axis forces and out-of-plane moments undetermined: those the arm model resolves through the
    links' compliance (no reference)."""
    from structcheck.flex.stage import reduce_study_links, rigid_link_loads
    from structcheck.flex.transient import external_loads
    from structcheck.study import Study, link_loads, prepare, rigid_stage

    chain, parts, _ = frame
    study = Study(name="portal", robot=chain, motion={"jA": "STEP(time,0,0,1,10d)"}, parts=parts, t_end=1.0,
                  n_frames=5, n_modes=2, flexibility="arm", quasi_static=True)
    prep = prepare(study)
    rigid = rigid_stage(study, prep, prep.grid.t)
    loads = link_loads(study, prep, rigid)
    body, tree = rigid.body, prep.chain.tree
    ses = reduce_study_links(prep.chain, parts, loads, study.n_modes)
    ext = {**external_loads(loads), **rigid_link_loads(tree, body.dynamics, study.gravity, rigid.point_forces, ses)}
    tr = arm_static(prep.chain, ses, rigid.t, body.q, ext, max_joint_change=0.02,
                    rigid_inertials=body.dynamics.inertials)
    ref = np.array([np.flatnonzero(np.all(body.q == qr, axis=1))[0] for qr in tr.q_ref])
    W = body.dynamics.joint_wrenches[ref]  # (n_ref, 4, 6): jA, jB, jC, then the cut jD
    assert body.undetermined.any()  # the loop really is over-constrained
    T = body.dynamics.kinematics.T_world_link[ref]
    R = {n: T[:, tree.link_names.index(n), :3, :3] for n in tree.link_names}
    arm = {}
    for joint, child in [("jA", "col1"), ("jB", "beam"), ("jC", "col2")]:
        F, c = ext[child]
        arm[joint] = interface_wrench(ses[child], joint, tr.z[child][ref], F, c[ref])
    F, c = ext["col2"]
    w = -interface_wrench(ses["col2"], "jD", tr.z["col2"][ref], F, c[ref])  # col2 on the ground, col2 axes
    R_gc = np.einsum("tji,tjk->tik", R["ground"], R["col2"])
    arm["jD"] = np.concatenate([np.einsum("tij,tj->ti", R_gc, w[:, :3]), np.einsum("tij,tj->ti", R_gc, w[:, 3:])], 1)
    # the cut wrench is about the ground's jD frame origin; col2's jD point coincides with it (a closed loop)
    scale = np.abs(W).max(axis=(0, 1))
    scale = np.r_[np.full(3, scale[:3].max()), np.full(3, scale[3:].max())]
    for k, joint in enumerate(["jA", "jB", "jC", "jD"]):
        det = ~body.undetermined[k]
        assert det.any()
        assert np.all(np.abs(arm[joint] - W[:, k])[:, det] <= 1e-6 * scale[det]), joint


def test_info_frequencies_of_a_closed_chain(frame):
    """`structcheck info`'s arm frequencies (structcheck.info.arm_info) on the frame as a study: the first at home is the
    sway frequency of the tip-mass cantilever (within 0.5%, as above), the passive pins released."""
    from structcheck.info import arm_info
    from structcheck.study import Study

    chain, parts, _ = frame
    study = Study(name="portal", robot=chain, motion={"jA": "STEP(time,0,0,1,5d)"}, parts=parts, t_end=1.0,
                  n_frames=3, n_modes=4)
    info = arm_info(study)
    b = tip_mass_roots((W + H / 3) / H, 1)[0]
    f_ref = b ** 2 * np.sqrt(STEEL.E * I_A / (STEEL.density * A * A * H ** 4)) / (2 * np.pi)
    assert info.home_hz[0] == pytest.approx(f_ref, rel=5e-3)
    assert info.along.frequency_hz.min() <= info.home_hz[0] * (1 + 1e-9)


def test_a_loop_without_any_part_is_refused_with_the_way_out(frame):
    """col2 without a Part: the cut joint jD would join two links without one (col2 and the ground)."""
    from structcheck.study import Study, run

    chain, parts, _ = frame
    study = Study(name="portal", robot=chain, motion={}, parts={n: parts[n] for n in ("col1", "beam")}, t_end=1.0,
                  n_frames=2)
    with pytest.raises(InputError, match=r"cut joint 'jD' joins two links without a Part.*flexibility='link'"):
        run(study, progress=False, write=False)


def test_hydraulic_cylinders_hold_the_arm_along_their_stroke():
    """Paper 001's arm (studies/hydraulic_arm.py) at rest under gravity, quasi-static arm model: the boom and the
    arm are held only by the two cylinders (their joints theta2, theta5 and the rod eyes are passive pins), so the
    assembly is non-singular only because a prismatic actuator is rigid along its stroke; the force each
    cylinder's rod carries along its axis (the interface wrench at the prismatic joint) is the rigid-body
    actuator force (1e-6), and the passive pins carry no moment about their axes."""
    import importlib.util
    from pathlib import Path

    from structcheck.flex.stage import reduce_study_links, rigid_link_loads
    from structcheck.flex.transient import external_loads
    from structcheck.study import link_loads, prepare, replace, rigid_stage

    path = Path(__file__).resolve().parents[2] / "studies" / "hydraulic_arm.py"
    spec = importlib.util.spec_from_file_location("hydraulic_arm_study", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    study = replace(mod.build(n_frames=2), motion={}, t_end=1.0, n_modes=2, quasi_static=True, summary_extra=None,
                    write_extra=None)
    prep = prepare(study)
    rigid = rigid_stage(study, prep, prep.grid.t[:1])
    loads = link_loads(study, prep, rigid)
    body, tree = rigid.body, prep.chain.tree
    ses = reduce_study_links(prep.chain, dict(study.parts), loads, study.n_modes)
    ext = {**external_loads(loads), **rigid_link_loads(tree, body.dynamics, study.gravity, rigid.point_forces, ses)}
    tr = arm_static(prep.chain, ses, rigid.t, body.q, ext, rigid_inertials=body.dynamics.inertials)
    for cyl, rod in [("d4", "rod_1"), ("d7", "rod_2")]:
        F, c = ext[rod]
        w = interface_wrench(ses[rod], cyl, tr.z[rod], F, c)[0]
        axis = tree.joint(cyl).axis  # along the rod, its link axes
        tau = body.tau[0, tree.dof_names.index(cyl)]
        assert abs(tau) > 100.0  # the cylinders really carry the arm's weight [N]
        assert w[:3] @ axis == pytest.approx(tau, rel=1e-6)
    for pin, link in [("theta2", "boom"), ("theta5", "arm"), ("pin_C", "rod_1"), ("pin_G", "rod_2")]:
        F, c = ext[link]
        w = interface_wrench(ses[link], pin, tr.z[link], F, c)[0]
        assert abs(w[5]) < 1e-9 * abs(body.tau[0]).max(), pin  # the pin axes are the link frames' z


def test_stacked_poses_assemble_as_one_pose_each(frame):
    """assemble_arm at a stack of poses (the arm transient's frozen poses in one pass) gives, pose by pose, exactly
    the model assembled at that pose alone: passive releases of the loop, a cut joint, a torsion + tilt spring."""
    chain, _, ses = frame
    q = np.random.default_rng(0).uniform(-0.3, 0.3, (5, 3))
    js = {"jB": (2e4, 5e5)}
    stack = assemble_arm(chain, ses, q, js)
    assert stack.K.shape[0] == 5
    for k in range(len(q)):
        one, at = assemble_arm(chain, ses, q[k], js), stack.at(k)
        for a, b in [(one.K, at.K), (one.M, at.M), (one.gravity_loads, at.gravity_loads)]:
            np.testing.assert_array_equal(a, b)
        for name in one.maps:
            np.testing.assert_array_equal(one.maps[name], at.maps[name])
            np.testing.assert_array_equal(one.R_world_link[name], at.R_world_link[name])
        assert one.labels == at.labels
