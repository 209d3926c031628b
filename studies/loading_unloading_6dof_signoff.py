"""Paper 004's robot signed off (issue 31): the programmed motion, an emergency stop at its worst instant and the
worst static pose, in one run with one enveloped verdict. The headline study (loading_unloading_6dof.py) is
unchanged; this script adds two accidental load cases to it:

- ``duty``: the programmed motion of the headline, as it is (its numbers are the headline's);
- ``estop``: a category-0 stop (drives off, spring-applied motor brakes bite after their engagement delay, the arm
  coasting under gravity with the rotors' inertia until then), triggered at the instant of the motion where a
  joint's stopping distance is largest: stops triggered every :data:`TRIGGER_STEP` over the 10 s, the worst refined
  by golden-section search to :data:`REFINE_TOL`. A stop triggered while the part is held carries it as a rigid
  body (:data:`HELD`: its weight and inertia, in the stop's simulation and in the arm model's mass matrix) instead
  of the paper's claw forces: a weight without mass pulls the coasting arm harder than gravity can (with the claw
  forces the wrist sagged 12 deg in the brakes' delay) and leaves out the part's inertia when the brakes bite;
- ``worst_pose``: the arm held still under gravity and the part (the claw forces at their largest) at the pose of
  the largest static stress relative to strength, from a grid of :data:`POSE_POINTS` values per joint over the
  joint ranges and a local optimizer (docs/worst_pose.md).

Brakes and rotors are OUR CHOICE (the paper names no drives): joints 1-3 carry the headline's assumed 1 kW servos
(loading_unloading_drives.toml: rotor 2.6e-4 kg m^2, ratio 100) with a 3.5 N m holding brake, 350 N m at the joint,
1.24 times the shoulder's largest holding torque with the part (283 N m, docs/worst_pose.md); joints 4-6 assumed
400 W servos (rotor 0.4e-4 kg m^2, ratio 100) with a 1.5 N m brake, 150 N m at the joint. Engagement delay 50 ms,
of the order of spring-applied holding brakes' (20-100 ms). The emergency stop is checked against yield with a
safety factor 1.0 (an accidental case), the held pose with the study's 1.5 (the arm may stand there for hours).

    python studies/loading_unloading_6dof_signoff.py [--out DIR] [--wall-mm 8] [--flexibility arm|link]

Numbers and what they mean: docs/load_cases.md ("The headline signed off").
"""
from __future__ import annotations

import sys
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import loading_unloading_6dof as headline  # noqa: E402  (the paper-004 study, unchanged)

from structcheck import Case  # noqa: E402
from structcheck.cases import pose  # noqa: E402
from structcheck.cases.pose import pose_study  # noqa: E402
from structcheck.cases.held import HeldPart, block_payloads  # noqa: E402
from structcheck.cases.stop import (JointStop, StopCategory, StopSpec, golden_max, stop_from,  # noqa: E402
                                    sweep_triggers)
from structcheck.cases.stopcase import stop_case  # noqa: E402
from structcheck.rigid import Rotor  # noqa: E402
from structcheck.study import Study, lazy_study, prepare  # noqa: E402

SHOULDER = JointStop(brake_torque=350.0, delay=0.05, rotor=Rotor(2.6e-4, 100.0))  # joints 1-3 [N m, s]
WRIST = JointStop(brake_torque=150.0, delay=0.05, rotor=Rotor(0.4e-4, 100.0))     # joints 4-6
# The part in the stop (OUR CHOICE of its shape: the paper gives only "a 20 kg weight", as 2 x 98 N on the claws):
# a steel block of 20 kg, 90 mm between the claw pads (gripper x) by 168 x 168 mm (7850 kg/m^3: 19.9 kg), centred
# between the pads, as two 10 kg halves at claw_left and claw_right (block_payloads: their weight acts where the
# paper's claw forces act, their inertia about the centre is the block's). Held while the claw forces are fully on
# (2 s to 7.99 s): a stop triggered then carries the part's mass and inertia instead of the claw forces; outside,
# the headline's loads (no part; the forces ramping in the 10 ms ramps).
PART_MASS_KG = 20.0
PART_SIZE_M = (0.090, 0.168, 0.168)
HELD = HeldPart(block_payloads({p: headline.meshes.POINTS[p][1] for p in ("claw_left", "claw_right")},
                               PART_MASS_KG, PART_SIZE_M), start=2.0, end=7.99)
STOP = StopSpec(StopCategory.ZERO, {j: SHOULDER if j in headline.JOINTS[:3] else WRIST for j in headline.JOINTS},
                t_max=2.0, held=HELD)
TRIGGER_STEP = 0.05  # [s] trigger grid over the motion
REFINE_TOL = 1e-3    # [s] the worst trigger refined to this
POSE_POINTS = 7      # grid values per joint of the worst-pose search (7^6 = 117,649 poses)
ESTOP_SAFETY_FACTOR = 1.0
# [s] the stop case's analysis step, finer than the default (a quarter of the 2.5 ms frame spacing) at little cost:
# the links' ringing samples after the brakes' bites are most of the stop's samples either way (8,800 on 0.1 ms, 8,840
# by default). Measured without the part's mass: the default step reads the links' peaks within 1.6% of 0.1 ms; with
# it, 0.25 and 0.1 ms agree within 0.05% (docs/load_cases.md)
ESTOP_MAX_STEP_S = 1e-4


def worst_trigger(study: Study, prep=None) -> tuple[float, str, object]:
    """(t0 [s], joint, sweep): the trigger of the largest stopping distance of any joint over the grid, refined."""
    prep = prep or prepare(study)
    sweep = sweep_triggers(study, prep, STOP, TRIGGER_STEP)
    k = int(np.argmax(sweep.max_distance))

    def distance(t0):
        return stop_at(study, t0, prep, loads=False).stop_distance[k]

    t_grid = float(sweep.worst_distance[k])
    t0, d = golden_max(distance, max(0.0, t_grid - TRIGGER_STEP), min(study.t_end, t_grid + TRIGGER_STEP), REFINE_TOL)
    return (t0 if d > sweep.max_distance[k] else t_grid), sweep.joints[k], sweep


def stop_at(study: Study, t0: float, prep=None, loads: bool = True):
    """The stop :data:`STOP` triggered at ``t0`` [s] of the study's motion (a StopResult; the part held as
    :data:`HELD` when triggered between 2 and 7.99 s)."""
    return stop_from(study, prep or prepare(study), STOP, t0, loads=loads)


def worst_pose(study: Study) -> tuple[str, dict, object]:
    """(link, pose, search): the pose of the largest static stress relative to yield, with the part (the claw
    forces held at their largest), over the joint ranges."""
    res = pose.search(study, POSE_POINTS, forces=True)
    ratio = {n: w.value / study.parts[n].material.yield_strength for n, w in res.stresses.items()}
    link = max(ratio, key=ratio.get)
    return link, res.stresses[link].pose, res


def held_still(study: Study, pose: dict, forces: dict) -> Study:
    """``study`` standing still at ``pose`` under gravity and the held ``forces`` (docs/worst_pose.md), run by
    the study's own transient model: it starts at rest in static equilibrium and the loads stay constant, so it
    stays in the static state; with the study's model options the case reuses the duty case's reductions (one
    factorization per link for the three cases) instead of a quasi-static model's own."""
    held = pose_study(study, pose, forces=forces)
    return replace(held, quasi_static=study.quasi_static, ringing_samples=study.ringing_samples)


def signoff(study: Study) -> tuple[Study, dict]:
    """The study with its three cases, and what chose them: ``{"t0", "stop_joint", "sweep", "pose_link", "pose",
    "search"}``."""
    t0, joint, sweep = worst_trigger(study)
    link, at, res = worst_pose(study)
    cases = (Case("duty"),
             stop_case("estop", STOP, t0, required_safety_factor=ESTOP_SAFETY_FACTOR,
                       changes={"max_step_s": ESTOP_MAX_STEP_S}),
             Case("worst_pose", role="accidental", build=partial(held_still, pose=at, forces=res.forces)))
    text = (f"; signed off with a category-0 stop at t = {t0:.4g} s ({joint}'s largest stopping distance, triggers "
            f"every {TRIGGER_STEP:g} s refined to {REFINE_TOL:g} s) and {link}'s worst static pose")
    return replace(study, name="loading_unloading_6dof_signoff", cases=cases, description=study.description + text), \
        {"t0": t0, "stop_joint": joint, "sweep": sweep, "pose_link": link, "pose": at, "search": res}


def build(wall_mm: float = headline.meshes.DEFAULT_WALL_MM, flexibility: str = "arm") -> Study:
    """The headline study (upper-arm wall ``wall_mm`` [mm], structural model ``flexibility``) with its duty, the
    emergency stop at its worst instant and its worst static pose as load cases (about 5 min to choose them)."""
    return signoff(headline.build(wall_mm=wall_mm, flexibility=flexibility))[0]


__getattr__ = lazy_study(build)

if __name__ == "__main__":  # --out DIR; exit 0 every case passes, 1 a case fails, 2 bad input
    from structcheck.cli import main_for_study

    sys.exit(main_for_study(build))
