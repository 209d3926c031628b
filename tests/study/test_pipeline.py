"""End-to-end pipeline on a small two-beam arm: chained tool deflection against hand beam theory,
equilibrium and power balance, transient vs quasi-static, and agreement of every output of a run."""
import numpy as np
import pytest

from structcheck.study import PointForce, Study, run

from helpers import H, L1, L2, two_beam_parts, two_beam_robot


@pytest.fixture(scope="module")
def arm_parts():
    return two_beam_parts(40, 30)


def test_tool_deflection_matches_hand_chained_beams(arm_parts):
    """Static tip force P (world -z) at the tool of a straight two-beam arm, no gravity: Timoshenko beams chained."""
    P = 100.0
    study = Study(name="two_beam", robot=two_beam_robot(), motion={}, parts=arm_parts, t_end=1.0, n_frames=3,
                  point_forces=(PointForce("tool", P, (0, 0, -1)),), gravity=(0, 0, 0), quasi_static=True,
                  tool_point="tool", inertia_from_meshes=True, flexibility="link")
    res = run(study, progress=False, write=False)
    mat = arm_parts["link1"].material
    E, nu = mat.E, mat.nu
    G = E / (2 * (1 + nu))
    I, A = H ** 4 / 12, H ** 2
    kappa = 10 * (1 + nu) / (12 + 11 * nu)
    # link1 carries P and the moment P*L2 at its end; its end face translates and rotates
    d1 = P * L1 ** 3 / (3 * E * I) + P * L1 / (kappa * G * A) + P * L2 * L1 ** 2 / (2 * E * I)
    th1 = P * L1 ** 2 / (2 * E * I) + P * L2 * L1 / (E * I)
    d2 = P * L2 ** 3 / (3 * E * I) + P * L2 / (kappa * G * A)
    expected = d1 + th1 * L2 + d2
    got = res.summary.tool_point_deflection_m
    assert got == pytest.approx(expected, rel=0.02)
    # the deflection is downward (world -z), along the force, at every sample: no x or y component to speak of
    defl = res.tool_point_deflection
    assert defl.shape == (len(res.t), 3)
    assert np.abs(defl[:, :2]).max() < 1e-3 * got
    np.testing.assert_allclose(defl[:, 2], -got, rtol=1e-6)  # |defl| also holds the small x, y components


def test_equilibrium_and_power_balance_along_motion(arm_parts):
    study = Study(name="two_beam_motion", robot=two_beam_robot(), parts=arm_parts, t_end=1.0, n_frames=11,
                  flexibility="link", motion={"joint1": "STEP(time,0,0,1,30d)", "joint2": "STEP(time,0,0,1,-45d)"},
                  point_forces=(PointForce("tool", "STEP(time,0.2,0,0.21,50)", (0, 0, -1)),), tool_point="tool",
                  n_modes=4)
    res = run(study, progress=False, write=False)
    checks = res.summary.checks
    assert checks.power_balance_rel_error < 1e-6
    assert checks.equilibrium_rel_error < 1e-6
    for link in res.summary.links.values():
        assert link.equilibrium_rel_error < 1e-6


def test_fast_ramp_transient_exceeds_quasi_static(arm_parts):
    """A 10 ms force ramp on the tool excites the links: the transient peak exceeds the quasi-static one,
    while a slow ramp gives the same peak."""
    base = dict(name="ramp", robot=two_beam_robot(), parts=arm_parts, t_end=0.5, n_frames=6, motion={},
                gravity=(0, 0, 0), tool_point="tool", n_modes=6, damping_ratio=0.02, flexibility="link")
    fast = Study(**base, point_forces=(PointForce("tool", "STEP(time,0.1,0,0.101,50)", (0, 0, -1)),))
    slow = Study(**base, point_forces=(PointForce("tool", "STEP(time,0,0,0.5,50)", (0, 0, -1)),))
    rf = run(fast, progress=False, write=False).summary.links["link1"]
    rs = run(slow, progress=False, write=False).summary.links["link1"]
    assert rf.max_von_mises_pa > 1.2 * rf.quasi_static_max_von_mises_pa
    assert rs.max_von_mises_pa == pytest.approx(rs.quasi_static_max_von_mises_pa, rel=0.02)


def tool_patch_parts(arm_parts):
    """The two-beam parts with the tool patch also named 'gripper_mass' (payload mounting) and a motor pad on
    link1's top face around mid-span."""
    p1, p2 = arm_parts["link1"], arm_parts["link2"]
    pad = p1.select_facets(lambda x: np.isclose(x[2], H / 2) & (np.abs(x[0] - L1 / 2) < 0.03))
    p1 = p1.with_surfaces({**{k: p1.surface_facets(k) for k in p1.surfaces}, "motor": pad})
    return {"link1": p1, "link2": p2}


def test_payload_mass_at_rest_equals_its_weight_as_a_force(arm_parts):
    """A 5 kg payload held still at the tool loads the arm exactly like a 5 g N force (same deflection, stress)."""
    from structcheck.study import Payload

    m, g = 5.0, 9.81
    base = dict(robot=two_beam_robot(), motion={}, parts=arm_parts, t_end=1.0, n_frames=3, quasi_static=True,
                tool_point="tool", flexibility="link")
    as_mass = run(Study(name="mass", payloads=(Payload("tool", m, np.diag([0.01, 0.02, 0.03])),), **base),
                  progress=False, write=False).summary
    as_force = run(Study(name="force", point_forces=(PointForce("tool", m * g, (0, 0, -1)),), **base),
                   progress=False, write=False).summary
    assert as_mass.tool_point_deflection_m == pytest.approx(as_force.tool_point_deflection_m, rel=1e-9)
    for name in ("link1", "link2"):
        assert as_mass.links[name].max_von_mises_pa == pytest.approx(
            as_force.links[name].max_von_mises_pa, rel=1e-9)


def test_payload_inertia_torque_and_fe_equilibrium(arm_parts):
    """Joint 1 swings the straight arm (gravity along -z, axes along y) with a payload of mass m and inertia Iyy
    at the tool: on top of the links, joint 1 needs (Iyy + m (L1 + L2)^2) qdd - m g (L1 + L2) cos(q). The FE loads of each link balance the joint
    wrenches, and the power balance holds with the payload's energy."""
    from structcheck.study import Payload, run as run_study

    m, Iyy, Lt = 3.0, 0.04, L1 + L2
    motion = {"joint1": "STEP(time,0,0,1,40d)"}
    # on the motion's own samples (no samples added where the links ring, which differ with the payload): the two
    # runs' torques compare sample by sample
    common = dict(robot=two_beam_robot(), motion=motion, parts=arm_parts, t_end=1.0, n_frames=5, n_modes=3,
                  tool_point="tool", flexibility="link", ringing_samples=False)
    with_pl = run_study(Study(name="pl", payloads=(Payload("tool", m, np.diag([0.0, Iyy, 0.0])),), **common),
                        progress=False, write=False)
    without = run_study(Study(name="nopl", **common), progress=False, write=False)
    q, qdd = with_pl.q[:, 0], with_pl.qdd[:, 0]
    # turning about +y takes the arm's x axis to (cos q, 0, -sin q): the weight at r = Lt (cos q, 0, -sin q)
    # has moment (r x F)_y = r_z F_x - r_x F_z = m g Lt cos q about +y, which the actuator opposes
    extra = (Iyy + m * Lt ** 2) * qdd - m * 9.81 * Lt * np.cos(q)
    assert with_pl.tau[:, 0] - without.tau[:, 0] == pytest.approx(extra, rel=1e-9, abs=1e-9)
    checks = with_pl.summary.checks
    assert checks.power_balance_rel_error < 1e-8
    assert checks.equilibrium_rel_error < 1e-8


def test_non_structural_mass_loads_its_pad(arm_parts):
    """A 2 kg motor on link1's top pad: the FE loads still balance the joint wrench (which now carries the
    motor), and the static deflection grows by the hand-calculated amount of a point load at mid-span."""
    from structcheck.model.robot import PointMass

    parts = tool_patch_parts(arm_parts)
    robot = two_beam_robot()
    motor = PointMass("motor", 2.0, (L1 / 2, 0.0, H / 2))
    loaded = robot.with_link("link1", point_masses=(motor,))
    common = dict(motion={}, parts=parts, t_end=1.0, n_frames=3, quasi_static=True, tool_point="tool")
    a = run(Study(flexibility="link", name="bare", robot=robot, **common), progress=False, write=False).summary
    b = run(Study(flexibility="link", name="motor", robot=loaded, **common), progress=False, write=False).summary
    assert b.checks.equilibrium_rel_error < 1e-9
    E, I = parts["link1"].material.E, H ** 4 / 12
    W, a_ = 2.0 * 9.81, L1 / 2
    # point load W at a from the clamp: tip of link1 moves W a^3/3EI + W a^2/2EI (L1 - a), rotates W a^2/2EI;
    # the tool, L2 further, gains that rotation times L2 (shear terms are below 0.3% here)
    extra = W * a_ ** 3 / (3 * E * I) + W * a_ ** 2 / (2 * E * I) * (L1 - a_) + W * a_ ** 2 / (2 * E * I) * L2
    assert b.tool_point_deflection_m - a.tool_point_deflection_m == pytest.approx(extra, rel=0.03)


def test_deflection_limit_enters_the_verdict(arm_parts):
    base = dict(name="limit", robot=two_beam_robot(), motion={}, parts=arm_parts, t_end=1.0, n_frames=3,
                quasi_static=True, tool_point="tool", point_forces=(PointForce("tool", 100.0, (0, 0, -1)),),
                flexibility="link")
    free = run(Study(**base), progress=False, write=False).summary
    d = free.tool_point_deflection_m
    assert free.passed
    assert run(Study(**base, deflection_limit_m=1.01 * d), progress=False, write=False).summary.passed
    assert not run(Study(**base, deflection_limit_m=0.99 * d), progress=False, write=False).summary.passed


def test_robot_inertia_that_differs_from_the_mesh_is_reported(arm_parts):
    """With the robot's own (here: massless) links instead of the meshes' mass, the FE body loads cannot balance
    the joint reactions: the run says so, naming the link and both masses."""
    study = Study(name="massless", robot=two_beam_robot(), motion={}, parts=arm_parts, t_end=1.0, n_frames=3,
                  flexibility="link", quasi_static=True, inertia_from_meshes=False)
    summary = run(study, progress=False, write=False).summary
    assert summary.checks.equilibrium_rel_error > 0.5
    assert any("link 'link1'" in w and "0 kg" in w and "inertia_from_meshes" in w for w in summary.warnings)


def test_arm_at_rest_under_gravity_is_static(arm_parts):
    """Held still under gravity, a link starts in its static equilibrium (not as if gravity were switched on at
    t = 0): the transient stress history is constant and equals the quasi-static one."""
    study = Study(name="still", robot=two_beam_robot(), parts=arm_parts, t_end=0.5, n_frames=6, motion={},
                  flexibility="link", tool_point="tool", n_modes=6, damping_ratio=0.02)
    res = run(study, progress=False, write=False)
    for name, link in res.links.items():
        hist = link.history["max_von_mises"]
        qs = res.summary.links[name].quasi_static_max_von_mises_pa
        assert hist.max() == pytest.approx(qs, rel=1e-9)
        assert hist.min() == pytest.approx(qs, rel=1e-9)


def test_ringing_after_a_fast_ramp_is_sampled():
    """A 1 ms force ramp makes the links ring at their own periods (~2-10 ms) after it. The peak read on the run's
    grid (17.5 ms steps away from the ramp, samples added where modes ring) equals the peak on a uniform 20 us
    grid, and the ringing is real (well above the quasi-static peak)."""
    parts = two_beam_parts(16, 12)
    base = dict(name="ring", robot=two_beam_robot(), parts=parts, t_end=0.07, n_frames=2, motion={},
                gravity=(0, 0, 0), tool_point="tool", n_modes=6, damping_ratio=0.02,
                point_forces=(PointForce("tool", "STEP(time,0.05,0,0.051,50)", (0, 0, -1)),))
    run_ = run(Study(flexibility="link", **base), progress=False, write=False)
    dense = run(Study(flexibility="link", **base, max_step_s=2e-5), progress=False, write=False)
    assert run_.summary.analysis.n_time_samples < dense.summary.analysis.n_time_samples / 5
    for name in ("link1", "link2"):
        got, ref = (r.summary.links[name].max_von_mises_pa for r in (run_, dense))
        assert got == pytest.approx(ref, rel=2e-3)
        assert ref > 1.1 * dense.summary.links[name].quasi_static_max_von_mises_pa


def test_arm_lowest_mode_of_a_heavy_tip_mass(arm_parts):
    """A 1000 kg mass at the tool of the straight two-beam arm (the beams weigh 2.2 kg) swings at
    f = sqrt(k / m) / (2 pi), with k the tip stiffness of the chained Timoshenko beams."""
    from structcheck.study import Payload

    m = 1000.0
    study = Study(name="tip_mass", robot=two_beam_robot(), parts=arm_parts, t_end=1.0, n_frames=3, motion={},
                  flexibility="link", payloads=(Payload("tool", m),), quasi_static=True, tool_point="tool")
    res = run(study, progress=False, write=False)
    mat = arm_parts["link1"].material
    E, G = mat.E, mat.E / (2 * (1 + mat.nu))
    I, A = H ** 4 / 12, H ** 2
    kappa = 10 * (1 + mat.nu) / (12 + 11 * mat.nu)
    compliance = ((L1 ** 3 / 3 + L2 * L1 ** 2 / 2) / (E * I) + L1 / (kappa * G * A)
                  + (L1 ** 2 / 2 + L2 * L1) / (E * I) * L2 + L2 ** 3 / (3 * E * I) + L2 / (kappa * G * A))
    expected = np.sqrt(1 / (compliance * m)) / (2 * np.pi)
    assert res.summary.arm_lowest_mode_hz == pytest.approx(expected, rel=0.02)


@pytest.mark.parametrize("change, message", [("scale", "millimetres"), ("shift", "link's own frame")])
def test_mesh_in_mm_or_off_its_frame_is_rejected(arm_parts, change, message):
    """A link mesh in mm read as m (1000x its joints' span), or exported in other coordinates (its joint face off
    the joint axis), is a one-line InputError naming the link, not silently wrong stresses."""
    from structcheck.errors import InputError
    from structcheck.fe.part import Part

    p1 = arm_parts["link1"]
    # 30 m across: under the mesh reader's absolute 50 m limit, but 75x the joints' span
    mesh = p1.mesh.scaled(75.0) if change == "scale" else p1.mesh.translated((0.0, 0.0, 0.3))
    bad = Part.from_skfem(mesh, p1.material, surfaces={n: p1.surface_facets(n) for n in p1.surfaces})
    study = Study(name="bad", robot=two_beam_robot(), parts={**arm_parts, "link1": bad}, t_end=1.0, n_frames=3,
                  flexibility="link", motion={}, quasi_static=True)
    with pytest.raises(InputError, match=message) as err:
        run(study, progress=False, write=False)
    assert "'link1'" in str(err.value)


def test_ringing_samples_are_capped_with_a_warning(arm_parts, monkeypatch):
    """An undamped link rings for ever: the samples added to follow it are capped and the run says so."""
    import structcheck.study as study_mod

    monkeypatch.setattr(study_mod, "MAX_RINGING_SAMPLES", 300)
    study = Study(name="undamped", robot=two_beam_robot(), parts=arm_parts, t_end=0.2, n_frames=3, motion={},
                  flexibility="link", gravity=(0, 0, 0), n_modes=2, damping_ratio=0.0,
                  point_forces=(PointForce("tool", "STEP(time,0.05,0,0.051,50)", (0, 0, -1)),))
    res = run(study, progress=False, write=False)
    from dataclasses import replace

    coarse = run(replace(study, quasi_static=True), progress=False, write=False)
    added = res.summary.analysis.n_time_samples - coarse.summary.analysis.n_time_samples
    assert added == 300
    assert any("wants" in w and "300 were added" in w for w in res.summary.warnings)


def test_rigid_stage_takes_right_sided_accelerations_at_breakpoints(arm_parts):
    """At a STEP's breakpoints the acceleration jumps: the rigid stage takes the value after the jump (the one
    that holds over the next interval), and at the last sample the value before it; the grid holds a sample
    JUMP_S before the breakpoint with the value before the jump, so the loads jump there instead of over the step
    before. STEP(time, 0, 0, 1, h) is h (3 s^2 - 2 s^3): acceleration 6 h at t = 0+, -6 h at t = 1-, and 0 after
    t = 1."""
    from structcheck.motion.grid import JUMP_S
    from structcheck.study import prepare, rigid_stage

    h = np.radians(30)
    common = dict(name="steps", robot=two_beam_robot(), parts=arm_parts, n_frames=5, quasi_static=True)
    for t_end, expected_end in ((2.0, 0.0), (1.0, -6 * h)):
        study = Study(flexibility="link", **common, t_end=t_end, motion={"joint1": "STEP(time,0,0,1,30d)"})
        prep = prepare(study)
        rigid = rigid_stage(study, prep, prep.grid.t)
        t, qdd = rigid.t, rigid.body.qdd[:, 0]
        assert qdd[0] == pytest.approx(6 * h, rel=1e-12)
        i1 = int(np.flatnonzero(t == 1.0)[0])
        assert qdd[i1] == pytest.approx(expected_end, abs=1e-12)  # after the breakpoint, or at the last sample
        # the sample before: the left-sided value, to the law's change over JUMP_S (its jerk 12 h / s^3)
        assert t[i1 - 1] == pytest.approx(1.0 - JUMP_S, abs=1e-15)
        assert qdd[i1 - 1] == pytest.approx(-6 * h, abs=12 * h * 2 * JUMP_S)
        assert qdd[-1] == pytest.approx(expected_end, abs=1e-12)
