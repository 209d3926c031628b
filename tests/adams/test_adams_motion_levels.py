"""MOTIONs given by their velocity or acceleration (ADAMS's VELOCITY, ACCELERATION with ICDISP, ICVEL): the
displacement integrated from t = 0 against closed forms, the exact derivatives, a jumping velocity law refused,
and export-adams writing them back as such."""
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.model.adams import read_adm, write_adm
from structcheck.motion import MotionLaw
from structcheck.motion.integrated import IntegratedLaw
from structcheck.script import load_study

ROOT = Path(__file__).resolve().parents[2]
# a pendulum whose joint sits 60 deg from its J marker at the assembled position (home = 60 deg)
DATASET = """pendulum
PART/1, GROUND
MARKER/10, PART = 1, REULER = 30D, 45D, 0
PART/2, MASS = 2, CM = 20, IP = 1, 2, 3, QG = 0, 0, 0, REULER = 30D, 45D, 60D
MARKER/20, PART = 2, QP = 0.1, 0, 0
MARKER/21, PART = 2
JOINT/1, REVOLUTE, I = 21, J = 10
MOTION/1, JOINT = 1, ROTATION, {motion}
END
"""
T = np.union1d(np.linspace(0.0, 3.0, 301), [1.0, 2.0])


def _law(tmp_path, motion: str):
    path = tmp_path / "m.adm"
    path.write_text(DATASET.format(motion=motion))
    return read_adm(path).motion["JOINT_1"]


def test_constant_acceleration_from_icdisp_and_icvel(tmp_path):
    """q = ICDISP + ICVEL t + a t^2 / 2 (absolute; the law is its offset from home = 60 deg). Budget: the
    quadrature of a constant is exact; t int f - int s f loses ~1e-15 of t^2 a: 1e-13."""
    law = _law(tmp_path, "ACCELERATION, ICDISP = 70D, ICVEL = 0.2, FUNCTION = 2.5")
    assert isinstance(law, IntegratedLaw)
    q = np.radians(10.0) + 0.2 * T + 1.25 * T * T
    assert np.abs(law.value(T) - q).max() < 1e-13
    assert np.abs(law.velocity(T) - (0.2 + 2.5 * T)).max() < 1e-13
    assert np.all(law.acceleration(T) == 2.5)


def test_step_velocity_integrates_to_its_closed_form(tmp_path):
    """VELOCITY = STEP(time, 1, 0, 2, 3), no ICDISP (the joint starts where it is assembled: offset 0): the
    displacement is 3 (D^3 - D^4 / 2) over the ramp (D = time - 1) and 1.5 + 3 (time - 2) after it; the
    acceleration is the STEP's exact derivative 18 D (1 - D). Budget: 8-node Gauss is exact for the cubic on
    panels split at the ramp's ends: rounding only, summed over ~10^4 panels (1e-13 of 4.5)."""
    law = _law(tmp_path, "VELOCITY, FUNCTION = STEP(time, 1, 0, 2, 3)")
    D = np.clip(T - 1.0, 0.0, 1.0)
    assert np.abs(law.value(T) - (3 * (D ** 3 - D ** 4 / 2) + 3 * np.clip(T - 2.0, 0.0, None))).max() < 1e-13
    assert np.abs(law.velocity(T) - 3 * D * D * (3 - 2 * D)).max() < 1e-14
    inside = (T > 1.0) & (T < 2.0)
    assert np.abs(law.acceleration(T) - np.where(inside, 18 * D * (1 - D), 0.0)).max() < 1e-12
    assert law.breakpoints == (1.0, 2.0)


def test_smooth_acceleration_against_its_double_integral(tmp_path):
    """ACCELERATION = SIN(3 time): q = t/3 - sin(3 t)/9 (from rest at home); the quadrature converged to 1e-13
    of the scale (error estimate: half panels)."""
    law = _law(tmp_path, "ACCELERATION, FUNCTION = SIN(3*time)")
    assert np.abs(law.value(T) - (T / 3 - np.sin(3 * T) / 9)).max() < 1e-13
    assert np.abs(law.velocity(T) - (1 - np.cos(3 * T)) / 3).max() < 1e-13


def test_a_velocity_law_that_jumps_is_refused(tmp_path):
    """A velocity that jumps is an infinite acceleration: refused where it jumps, naming the time."""
    law = _law(tmp_path, "VELOCITY, FUNCTION = IF(time - 1: 0, 1, 1)")
    assert law.value(np.array([2.0]))[0] == pytest.approx(1.0, abs=1e-14)
    with pytest.raises(InputError, match="jumps at time 1 s"):
        law.acceleration(T)


def test_export_writes_velocity_and_acceleration_motions(tmp_path):
    study = load_study(ROOT / "studies" / "two_link_arm.py")
    laws = {"shoulder": IntegratedLaw(MotionLaw("STEP(time, 0, 0, 1, 0.5)"), 1, q0=0.1),
            "elbow": IntegratedLaw(MotionLaw("-0.4*SIN(PI*time)"), 2, q0=-0.05, v0=0.2)}
    text = write_adm(replace(study, motion=laws), tmp_path / "m.adm").read_text()
    assert ", VELOCITY\n, ICDISP = 0.1\n, FUNCTION = STEP(time, 0, 0, 1, 0.5)" in text
    assert ", ACCELERATION\n, ICDISP = -0.05\n, ICVEL = 0.2\n" in text
    model = read_adm(tmp_path / "m.adm")
    for name, law in laws.items():
        assert np.array_equal(model.motion[name].value(T), law.value(T))
        assert np.array_equal(model.motion[name].acceleration(T), law.acceleration(T))


def test_a_velocity_motion_drives_the_study_as_its_displacement_would(tmp_path):
    """The pendulum driven by VELOCITY = STEP(time, 1, 0, 2, 3) (from the assembled position, 60 deg) and by its
    displacement written in closed form (absolute, as ADAMS takes a DISPLACEMENT: 60 deg + 3 (D^3 - D^4 / 2), then
    + 1.5 + 3 (time - 2)): the same joint torque and reaction (rigid-body stage, with
    gravity) to 1e-12 of their peaks (the integral's 1e-14 through the dynamics)."""
    from adams_loads import joint_loads

    from structcheck.study import Study

    closed = "IF(time - 1: 0, 0, IF(time - 2: 3*((time - 1)**3 - (time - 1)**4/2), 1.5, 1.5 + 3*(time - 2)))"
    loads = []
    for motion in ("VELOCITY, FUNCTION = STEP(time, 1, 0, 2, 3)", f"FUNCTION = 60D + {closed}"):
        path = tmp_path / "m.adm"
        path.write_text(DATASET.format(motion=motion).replace("END", "ACCGRAV/KGRAV = -9.81\nEND"))
        model = read_adm(path)
        study = Study(name="pendulum", robot=model.robot, motion=model.motion, parts={}, t_end=3.0,
                      gravity=model.gravity, inertia_from_meshes=False)
        loads.append(joint_loads(study, T)["JOINT_1"])
    (tau_a, w_a), (tau_b, w_b) = loads
    assert np.abs(tau_a).max() > 1.0
    assert np.abs(tau_a - tau_b).max() < 1e-12 * np.abs(tau_a).max()
    assert np.abs(w_a - w_b).max() < 1e-12 * np.abs(w_a).max()
