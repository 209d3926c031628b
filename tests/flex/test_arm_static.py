"""Study(flexibility="arm", quasi_static=True): the assembled reduced arm solved statically at every sample,
K(q) x = f(t), with the rigid motion's inertial body loads (d'Alembert), gravity and the tool force.

References, each independent of the arm model's own output:
- equilibrium: the joint reactions the arm model carries (the interface forces of its superelements,
  K_r z - Psi^T f on the interface rows) are the rigid-body Newton-Euler joint wrenches at every sample of a
  moving arm (the reaction at joint1 is the whole arm's equilibrium with the ground);
- the transient arm model under a slow load (the elastic inertia is then negligible);
- the per-link quasi-static model where the two must agree: link2 (clamped at a rigid flange in both) everywhere,
  link1 away from its flanges (near them the per-link model spreads the joint2 wrench as a traction field, the arm
  model joins rigid flanges).
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import two_beam_parts, two_beam_robot

from structcheck.study import PointForce, Study, link_loads, prepare, rigid_stage, run

SWING = {"joint1": "STEP(time,0,0,2,40d)", "joint2": "STEP(time,0,0,2,-70d)"}


@pytest.fixture(scope="module")
def parts():
    return two_beam_parts(24, 18)


def _study(parts, **kw):
    base = dict(name="arm_static", robot=two_beam_robot(), parts=parts, t_end=2.0, n_frames=6, motion=SWING,
                n_modes=4, tool_point="tool", flexibility="arm", quasi_static=True,
                point_forces=(PointForce("tool", "STEP(time,0,0,2,50)", (0, 0.6, -0.8)),))
    return Study(**{**base, **kw})


def test_joint_reactions_are_the_rigid_body_wrenches(parts):
    """Along a 2 s swing of both joints (inertial loads at every sample), at the reference sample of every frozen
    pose (where the assembled pose is the sample's own), the reaction the arm model carries at each joint equals
    the Newton-Euler joint wrench (parent on child at the joint, child axes) to 1e-6 of its largest force and
    moment: the quasi-static arm is in equilibrium link by link. Elsewhere in a segment the frozen pose turns
    the load link2 passes to link1 by up to the 0.05 rad criterion (first-order error, ~3% here)."""
    from structcheck.flex.recovery import interface_wrench
    from structcheck.flex.stage import reduce_study_links
    from structcheck.flex.transient import arm_static, external_loads

    study = _study(parts)
    prep = prepare(study)
    rigid = rigid_stage(study, prep, prep.grid.t)
    loads = link_loads(study, prep, rigid)
    tree = prep.chain.tree
    ses = reduce_study_links(tree, parts, loads, study.n_modes)
    ext = external_loads(loads)
    tr = arm_static(tree, ses, rigid.t, rigid.body.q, ext, max_joint_change=study.arm.max_joint_change)
    assert len(tr.segments) > 10  # the swing is really cut into many frozen poses
    ref = np.array([np.flatnonzero(np.all(rigid.body.q == qr, axis=1))[0] for qr in tr.q_ref])
    W = rigid.body.dynamics.joint_wrenches[ref]  # (n_ref, n_joints, 6), child joint-frame axes = child link axes
    for k, (joint, child) in enumerate([("joint1", "link1"), ("joint2", "link2")]):
        F, c = ext[child]
        w = interface_wrench(ses[child], joint, tr.z[child][ref], F, c[ref])
        scale = np.abs(W[:, k]).max(axis=0)
        scale = np.r_[np.full(3, scale[:3].max()), np.full(3, scale[3:].max())]
        assert np.all(np.abs(w - W[:, k]).max(axis=0) <= 1e-6 * scale)


@pytest.fixture(scope="module")
def runs(parts):
    static = run(_study(parts, motion={}), progress=False, write=False)
    transient = run(_study(parts, motion={}, quasi_static=False), progress=False, write=False)
    link = run(_study(parts, motion={}, flexibility="link"), progress=False, write=False)
    return static, transient, link


def test_agrees_with_the_transient_arm_model_under_a_slow_load(runs):
    """The 50 N tool force ramped over 2 s (the arm's first mode is 33 Hz: dynamic part ~(1 / (2 pi f T))^2 ~ 2e-5):
    peaks of both links and the tool deflection within 1e-3."""
    static, transient, _ = runs
    assert static.summary.flexibility == "arm" and static.summary.analysis.quasi_static
    for name in ("link1", "link2"):
        assert static.links[name].max_von_mises_pa == pytest.approx(transient.links[name].max_von_mises_pa, rel=1e-3)
    d_s = np.linalg.norm(static.tool_point_deflection, axis=1).max()
    d_t = np.linalg.norm(transient.tool_point_deflection, axis=1).max()
    assert d_s == pytest.approx(d_t, rel=1e-3)
    # the frequencies are still reported (quasi-static is justified by them), and equal the transient run's
    # two eigensolvers (a subset of the lowest against all modes)
    assert static.summary.arm_modes_hz == pytest.approx(transient.summary.arm_modes_hz, rel=1e-7)
    assert not any("fixed-interface modes only up to" in w for w in static.summary.warnings)
    # the transient run's quasi-static peak (the static part K^-1 f of its own solution, for the arm-level dynamic
    # amplification) is the quasi-static run's peak; a quasi-static run reports none, as the per-link model
    for name in ("link1", "link2"):
        qs = transient.summary.links[name].quasi_static_max_von_mises_pa
        assert qs == pytest.approx(static.links[name].max_von_mises_pa, rel=1e-9)
        assert transient.summary.links[name].dynamic_amplification == pytest.approx(
            transient.links[name].max_von_mises_pa / qs, rel=1e-12)
        assert static.summary.links[name].quasi_static_max_von_mises_pa is None


def test_agrees_with_the_per_link_quasi_static_model(runs, parts):
    """Link2 everywhere and link1 away from its flanges (> 50 mm) within 0.2%, the tool deflection within 0.3%
    (the per-link model chains traction-loaded flange compliances)."""
    static, _, link = runs
    assert static.links["link2"].max_von_mises_pa == pytest.approx(link.links["link2"].max_von_mises_pa, rel=1e-3)
    away = parts["link1"].distance_to_surfaces(["joint1", "joint2"]) > 0.05
    va = static.links["link1"].envelope["von_mises"][away]
    vl = link.links["link1"].envelope["von_mises"][away]
    assert va.max() == pytest.approx(vl.max(), rel=2e-3)
    d_a = np.linalg.norm(static.tool_point_deflection, axis=1).max()
    d_l = np.linalg.norm(link.tool_point_deflection, axis=1).max()
    assert d_a == pytest.approx(d_l, rel=3e-3)


def test_a_link_without_a_part_is_a_rigid_body():
    """The two-beam arm with link2 given no Part: the arm model takes it as a rigid body (its mass matrix at its
    origin from mass, centre of mass and inertia; its weight through its free-body wrench). Reference: the same
    arm with link2 meshed in a material 1e3 times stiffer (same density), elastic: the lowest three frequencies
    (the rigid link swinging on link1) and link1's deflection under gravity at a bent pose agree to 2e-4 (measured
    1.1e-5, 9.0e-6, 7.6e-5 and 6.5e-6: the stiff link's own compliance; 1e4 times stiffer loses digits instead)."""
    from dataclasses import replace

    from helpers import H, L1, L2, beam

    from structcheck.flex import assemble_arm, reduce_links
    from structcheck.model.materials import get_material
    from structcheck.rigid.dynamics import Inertials

    robot = two_beam_robot()
    steel = get_material("structural_steel")
    stiff = replace(steel, name="stiff_steel", E=1e3 * steel.E)
    link1 = beam(L1, H, H, 24, ends=("joint1", "joint2"))
    link2 = beam(L2, H, H, 18, material=stiff, ends=("joint2", "tool"))
    elastic = reduce_links(robot, {"link1": link1, "link2": link2}, 4)
    rigid = reduce_links(robot, {"link1": link1}, 4)
    mp = link2.mass_properties()
    n = len(robot.link_names)
    inert = Inertials(np.zeros(n), np.zeros((n, 3)), np.zeros((n, 3, 3)))
    i = robot.link_names.index("link2")
    inert.mass[i], inert.com[i], inert.inertia[i] = mp.mass, mp.com, mp.inertia_com
    q = np.array([0.3, -1.0])
    a = assemble_arm(robot, elastic, q)
    b = assemble_arm(robot, rigid, q, rigid_inertials=inert)
    assert "link2" in b.rigid_maps and "link2" not in b.maps
    fa, fb = a.modes(3)[0], b.modes(3)[0]
    assert fb == pytest.approx(fa, rel=2e-4)
    g = np.array([0.0, 0.0, -9.81])
    ua = elastic["link1"].displacement(a.link_coordinates(a.solve_static(g))["link1"])
    ub = rigid["link1"].displacement(b.link_coordinates(b.solve_static(g))["link1"])
    assert np.abs(ub - ua).max() < 2e-4 * np.abs(ua).max()
