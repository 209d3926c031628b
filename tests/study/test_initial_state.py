"""The robot at rest before its motion (Study.initial_state, docs/how_it_works.md "Before the motion").

References: a closed form (an undamped one-degree-of-freedom arm, a rigid block on a torsional spring joint, given a
step of joint acceleration at t = 0 swings to twice its quasi-static spring deflection) and an invariance (the same
study delayed in time, its laws shifted with the arm standing still before, gives the same peaks, envelopes and
fatigue damage: a jump at t = 0 rings exactly as the same jump later does), in both structural models.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers import beam, delayed, two_beam_parts, two_beam_robot

from structcheck.errors import InputError
from structcheck.model.robot import Joint, Link, Robot
from structcheck.settings import ArmSettings, Fatigue
from structcheck.cases.events import PayloadRelease
from structcheck.study import Payload, PointForce, Study, run


# ---------------------------------------------------------------------------- closed form: a block on a spring
A, B = 0.2, 0.05  # the block: length along x from the joint, square side [m] (steel)
K_JOINT = 200.0  # the joint's torsional spring [N m/rad]
ALPHA = 0.5  # the step of joint acceleration at t = 0 [rad/s^2]


def spring_arm(initial_state: str) -> Study:
    """A steel block (A x B x B, from the joint along x) on a revolute joint about z with a torsional spring
    K_JOINT, no gravity, no damping; the joint accelerates at ALPHA from t = 0 (q = ALPHA t^2 / 2)."""
    z = np.array([0.0, 0.0, 1.0])
    robot = Robot([Link("ground"), Link("block")], [Joint("j", "revolute", "ground", "block", np.eye(4), z)],
                  points={"tip": ("block", np.array([A, 0.0, 0.0]))})
    part = beam(A, B, B, 8, n_side=2, ends=("j", "tip"))
    return Study(name="spring", robot=robot, parts={"block": part}, t_end=0.4, n_frames=41,
                 motion={"j": f"0.5 * {ALPHA} * time**2"}, gravity=(0.0, 0.0, 0.0), damping_ratio=0.0,
                 n_modes=4, tool_point="tip", arm=ArmSettings(joint_stiffness={"j": K_JOINT}),
                 initial_state=initial_state)


@pytest.fixture(scope="module")
def spring_runs():
    return {s: run(spring_arm(s), progress=False, write=False) for s in ("rest", "moving")}


def test_a_step_of_joint_acceleration_swings_a_spring_arm_to_twice_its_static_deflection(spring_runs):
    """I theta'' + K theta = -I ALPHA from rest: theta = theta_s (1 - cos w t), theta_s = I ALPHA / K, so the
    spring's largest deflection is 2 theta_s, reached at w t = pi (w = sqrt(K / I) = 2 pi x 5.8 Hz: within the
    0.4 s run). The tip lags by A theta. I is the block's moment of inertia about the joint axis, from its mesh.
    Error budget: the block's own bending under its inertia, (w / w_block)^2 ~ 1e-5 with w_block > 1 kHz; the
    angle ALPHA t^2 / 2 < 0.04 rad, whose centripetal load is radial (no moment about the axis); the peak read
    at the samples, (1 - cos(pi / n)) with n >= 16 per period ring-sampled: 2e-3 at worst; held to 3e-3."""
    res = spring_runs["rest"]
    part = spring_arm("rest").parts["block"]
    mp = part.mass_properties()
    I_axis = mp.inertia_com[2, 2] + mp.mass * (mp.com[0] ** 2 + mp.com[1] ** 2)
    theta_s = I_axis * ALPHA / K_JOINT
    tip = np.linalg.norm(res.tool_point_deflection, axis=1)
    assert tip.max() == pytest.approx(2 * A * theta_s, rel=3e-3)
    w = np.sqrt(K_JOINT / I_axis)
    assert res.t[np.argmax(tip)] == pytest.approx(np.pi / w, abs=0.01)
    # a motion already under way at t = 0 starts in its quasi-static state, moving with it: no ringing, the tip
    # lags by its static A theta_s all along (the constant acceleration's load does not change)
    moving = np.linalg.norm(spring_runs["moving"].tool_point_deflection, axis=1)
    assert moving.max() == pytest.approx(A * theta_s, rel=3e-3)


def test_the_initial_state_is_said_in_the_summary(spring_runs):
    assert spring_runs["rest"].summary.analysis.initial_state == "rest"
    assert spring_runs["moving"].summary.analysis.initial_state == "moving"


def test_a_motion_that_starts_moving_needs_initial_state_moving():
    """A robot at rest cannot start with a speed: the error names the joint and the option; 'moving' runs it."""
    study = replace(spring_arm("rest"), motion={"j": "0.3 * time"})
    with pytest.raises(InputError, match=r"starts moving at t = 0: joints j \(0\.3/s\).*initial_state='moving'"):
        run(study, progress=False, write=False)
    assert run(replace(study, initial_state="moving"), progress=False, write=False).summary.passed in (True,)


def test_an_unknown_initial_state_names_the_choices():
    with pytest.raises(InputError, match=r"initial_state = 'still': choose one of \['rest', 'moving'\]"):
        replace(spring_arm("rest"), initial_state="still")


# ------------------------------------------------------------------------------------ invariance under a delay
# fatigue on the distal link (the cost of counting every node's history is the test's largest). No design life:
# the damage per duty cycle, which the test compares, is counted at the points whose onset bound is below 1 either
# way; a design life adds the safety factor's search, counting on past them (zero damage there), and the test never
# compared that factor. Measured on the acceleration jump, per-link model: the same damage to the last digit
# (7.63807937102535e-08 with and without), the test's two runs 8.0 s of CPU with a 1,000-h life, 2.3 s without.
FATIGUE = Fatigue(cycles_per_hour=60, details={"link2": "EC3-71"}, method="signed_von_mises")
CASES = {  # motion of the two joints, tool force, events: with and without a jump at t = 0
    "acceleration jump at 0": ({"joint1": "STEP(time, 0, 0, 0.3, 20d)", "joint2": "STEP(time, 0.1, 0, 0.35, -30d)"},
                               "STEP(time, 0.25, 0, 0.26, 150)", ()),
    "smooth start, force ramp at 0": ({"joint1": "STEP5(time, 0, 0, 0.3, 20d)"}, "STEP(time, 0, 0, 0.01, 150)", ()),
}
# measured by benchmarks/bench_delay.py beside CASES; tests/study/test_events.py holds a release and a collision
EVENT_CASES = {"payload held, then released": ({"joint1": "STEP(time, 0, 0, 0.3, 20d)"}, "0",
                                               (PayloadRelease(Payload("tool", 4.0), 0.4),))}
# Both structural models are held to the 0.1% on their default grids, fatigue damage included: the grid's
# samples are laid from the laws' breakpoints and its default step leaves out the time before anything moves
# (motion.grid), the arm standing still before it moves is a frozen segment of its own (flex.transient), and the
# output frames are analysis samples, so the delayed study is solved on the same samples, shifted. Measured within
# 1e-7 (`python benchmarks/bench_delay.py`: the 1e-7 s step JUMP_S before a breakpoint against a jump at t = 0,
# within 2e-5 for every mode kept). Held to 1e-4, ten times tighter than the issue asks, so that a regression shows.
# Before (grid laid from t = 0, the uniform frames among its samples): the arm model 0.2% on the peaks and both
# models 0.3-0.7% on the damage; with the per-link model a held payload 0.5%.
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def delay_parts():
    return two_beam_parts(8, 6)


@pytest.mark.parametrize("flexibility", ["arm", "link"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_delayed_study_gives_the_same_peaks_envelopes_and_damage(delay_parts, flexibility, case):
    """The same study delayed by random times (seeded): every link's peak von Mises, its envelope at every node,
    its largest deformation and its fatigue damage per duty cycle, and the tool's largest deflection, within
    TOLERANCE; each peak at its own instant, d later."""
    motion, force, events = CASES[case]
    rel = TOLERANCE
    study = Study(name="delay", robot=two_beam_robot(), parts=delay_parts, motion=motion, t_end=0.6, n_frames=13,
                  point_forces=(PointForce("tool", force, (0, 0, -1)),), tool_point="tool", n_modes=4,
                  damping_ratio=0.02, flexibility=flexibility, fatigue=FATIGUE, events=events)
    ref = run(study, progress=False, write=False)
    for d in np.random.default_rng(len(case) + len(flexibility)).uniform(0.05, 0.5, 1).round(4):
        other = run(delayed(study, float(d)), progress=False, write=False)
        for name, a in ref.summary.links.items():
            b = other.summary.links[name]
            assert b.max_von_mises_pa == pytest.approx(a.max_von_mises_pa, rel=rel), (name, d)
            assert b.time_of_max_s == pytest.approx(a.time_of_max_s + d, abs=1e-9), (name, d)
            assert b.max_deformation_m == pytest.approx(a.max_deformation_m, rel=rel), (name, d)
            assert (b.fatigue_damage_per_cycle or 0) == pytest.approx(a.fatigue_damage_per_cycle or 0,
                                                                    rel=rel)
            env_a, env_b = ref.links[name].envelope["von_mises"], other.links[name].envelope["von_mises"]
            assert np.max(np.abs(env_b - env_a)) <= rel * env_a.max(), (name, d)
        assert ref.summary.links["link2"].fatigue_damage_per_cycle > 0  # the fatigue compared is not zero
        tip_a = np.linalg.norm(ref.tool_point_deflection, axis=1).max()
        tip_b = np.linalg.norm(other.tool_point_deflection, axis=1).max()
        assert tip_b == pytest.approx(tip_a, rel=rel)
