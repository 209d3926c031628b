"""Motor and brake checks by hand (Parker NK manual p.14: T_rms = sqrt(sum T_i^2 t_i / T_cycle))."""
import math
import textwrap

import numpy as np
import pytest

from structcheck.drives import JointDuty, brake_check, load_catalogue, motor_checks, motor_torque
from structcheck.drives.motor import rated_torque

I, ETA, J = 100.0, 0.8, 1e-4  # ratio, efficiency, rotor inertia [kg m^2]


@pytest.fixture
def cat(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text(textwrap.dedent("""
        [reducer.R]
        kind = "cycloidal_rv"
        ratio = 100
        efficiency = 0.8
        source = "made up for a test"

        [motor.M]
        rated_torque_nm = 0.8
        peak_torque_nm = 1.3
        max_speed_rpm = 1000
        rotor_inertia_kgm2 = 1e-4
        source = "made up for a test"

        [brake.B]
        side = "motor"
        holding_torque_nm = 2.0
        source = "made up for a test"

        [brake.Bout]
        side = "output"
        holding_torque_nm = 150.0
        source = "made up for a test"
        """))
    return load_catalogue(f, shipped=False)


def _piecewise_duty():
    """Accelerate (0.5 s: tau = 100 N m, qdd = 10 rad/s^2), run (2 s: 50 N m), brake (0.5 s: -40 N m, qdd = -10) at
    qd = 1 rad/s, then rest 1 s (0 N m): steps at repeated instants."""
    t = np.array([0.0, 0.5, 0.5, 2.5, 2.5, 3.0, 3.0, 4.0])
    tau = np.array([100.0, 100.0, 50.0, 50.0, -40.0, -40.0, 0.0, 0.0])
    qdd = np.array([10.0, 10.0, 0.0, 0.0, -10.0, -10.0, 0.0, 0.0])
    qd = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0])
    return JointDuty(t=t, qd=qd, tau=tau, qdd=qdd)


def test_motor_torque_and_rms_of_a_piecewise_constant_duty_by_hand(cat):
    """tau_m = tau / (i eta) + J i qdd when driving, tau eta / i + J i qdd when braking:
    accelerate 100 / 80 + 1e-4 x 100 x 10 = 1.35; run 50 / 80 = 0.625; brake -40 x 0.8 / 100 - 0.1 = -0.42;
    T_rms = sqrt((1.35^2 x 0.5 + 0.625^2 x 2 + 0.42^2 x 0.5) / 4) = 0.6848 N m."""
    duty = _piecewise_duty()
    np.testing.assert_allclose(motor_torque(duty, I, ETA, J)[[0, 2, 4, 6]], [1.35, 0.625, -0.42, 0.0], rtol=1e-12)
    rms, peak, speed = motor_checks(cat.get("motor", "M"), cat.get("reducer", "R"), duty)
    expected = math.sqrt((1.35**2 * 0.5 + 0.625**2 * 2 + 0.42**2 * 0.5) / 4)
    assert rms.value == pytest.approx(expected, rel=1e-12) and rms.passed  # 0.6848 <= 0.8
    assert peak.value == pytest.approx(1.35) and not peak.passed and peak.utilisation == pytest.approx(1.35 / 1.3)
    assert speed.value == pytest.approx(100 * 60 / (2 * math.pi)) and speed.passed  # 954.9 rpm <= 1000


def test_rated_torque_from_rated_power():
    """Paper 000 Table 3: 1FT7064-1AF7, 2,390 W at 3,000 rpm -> 2390 / (3000 x 2 pi / 60) = 7.608 N m."""
    motor = load_catalogue().get("motor", "1FT7064-1AF7")
    torque, how = rated_torque(motor)
    assert torque == pytest.approx(2390 / (3000 * 2 * math.pi / 60)) and "P_rated" in how


def test_table3_drive_without_efficiency_is_not_checked():
    cat = load_catalogue()
    results = motor_checks(cat.get("motor", "1FT7064-1AF7"), cat.get("reducer", "RV-80E"), _piecewise_duty())
    assert [r.note for r in results[:2]] == ["not checked: efficiency missing from catalogue entry RV-80E"] * 2
    assert results[2].note == "not checked: max_speed_rpm missing from catalogue entry 1FT7064-1AF7"


def test_brake_holding_torque_by_hand(cat):
    """A motor-side brake holds the joint's static torque through the ratio: 180 N m / 100 = 1.8 N m <= 2.0 N m;
    with a required factor 1.2: 2.16 N m fails. On the output: 180 N m > 150 N m fails."""
    r = cat.get("reducer", "R")
    ok = brake_check(cat.get("brake", "B"), r, np.array([120.0, -180.0, 60.0]))
    assert ok.value == pytest.approx(1.8) and ok.passed
    assert not brake_check(cat.get("brake", "B"), r, 180.0, required_factor=1.2).passed
    out = brake_check(cat.get("brake", "Bout"), None, 180.0)
    assert out.value == pytest.approx(180.0) and not out.passed
