"""The drives over a study's load cases (structcheck.drives.envelope) on duties written out by hand, without a run:
which case governs each check, and whose failure each failed check is. Two duty cases at a constant torque and
speed (A: 60 N m at 10 rpm for 1 s, share 0.7; B: 90 N m at 10 rpm for 1 s, share 0.3), a radial bearing load of
1 kN in A and 2 kN in B, and an accidental case with 5 kN radial and 150 N m. By hand: the cubic mean over the duty
cases is (0.7 x 60^3 + 0.3 x 90^3)^(1/3) (equal speeds and times: the speed weights cancel); the repeated peak is
B's 90 N m; the bearing's static safety factor is C0 / 5 kN, the accidental case's (fs = C0 / (Fr + 2 M / dp +
0.44 Fa), HD SE SHG manual pp.42-44); the brake holds the larger of the cases' static torques."""
from __future__ import annotations

import numpy as np
import pytest

from structcheck.drives import JointDuty, drive_checks
from structcheck.drives.envelope import BY_SHARES, CaseDrives, drive_envelope
from structcheck.drives.holding import holding_torque
from structcheck.drives.study import Drive, JointDrive
from structcheck.errors import InputError
from structcheck.results.drivetrain_schema import drivetrain_summary

RATIO, C0 = 50.0, 80000.0
CATALOGUE = f"""
[reducer."sw"]
kind = "strain_wave"
ratio = {RATIO}
average_torque_limit_nm = 75
repeated_peak_torque_nm = 100
momentary_peak_torque_nm = 120
efficiency = 0.8
bearing = "crb"
source = "test entry"

[bearing."crb"]
type = "crossed_roller"
pitch_diameter_m = 0.1
offset_m = 0.0
static_load_rating_n = {C0}
allowable_moment_nm = 2000
source = "test entry"

[brake."b1"]
side = "output"
holding_torque_nm = 45
source = "test entry: 45 N m at the joint"
"""


@pytest.fixture(scope="module")
def drive(tmp_path_factory):
    f = tmp_path_factory.mktemp("env") / "c.toml"
    f.write_text(CATALOGUE)
    return Drive(reducer="sw", brake="b1", catalogue=(f,), stiffness=None)


def _duty(torque, radial, rpm=10.0):
    t = np.linspace(0.0, 1.0, 11)
    force = np.zeros((11, 3))
    force[:, 0] = radial
    return JointDuty(t=t, qd=np.full(11, rpm * 2 * np.pi / 60), tau=np.full(11, torque), qdd=np.zeros(11),
                     force=force, moment=np.zeros((11, 3)))


def _case(name, role, share, drive, torque, radial, held, count=None):
    duty = _duty(torque, radial)
    p = drive.parts
    checks = drive_checks(duty, p["reducer"], p["bearing"], None, p["brake"], static_torque_nm=held)
    jd = JointDrive("j", drive, duty, tuple(checks), None, None, None, "", None,
                    holding_torque(None, held, "not searched here"))
    return CaseDrives(name, role, share, count, {"j": jd})


def test_each_check_names_its_governing_case(drive):
    env = drive_envelope([_case("A", "duty", 0.7, drive, 60.0, 1000.0, 30.0),
                          _case("B", "duty", 0.3, drive, 90.0, 2000.0, 40.0),
                          _case("stop", "accidental", None, drive, 150.0, 5000.0, 20.0, count=10.0)])
    checks = {c.check: c for c in env.joints["j"].checks}
    av = checks["reducer average torque"]
    assert av.case == BY_SHARES and av.value == pytest.approx((0.7 * 60 ** 3 + 0.3 * 90 ** 3) ** (1 / 3), rel=1e-12)
    assert checks["reducer repeated peak torque"].case == "B" and checks["reducer repeated peak torque"].value == 90
    fs = checks["bearing static safety factor"]
    assert fs.case == "stop" and fs.value == pytest.approx(C0 / 5000.0, rel=1e-12)  # the accidental load governs
    assert checks["reducer momentary peak torque"].case == "stop" and checks["reducer momentary peak torque"].value \
        == 150.0
    brake = checks["brake holding torque"]
    assert brake.value == 40.0 and "case 'B'" in brake.note and brake.case == ""
    # whose failures: the average passes (71.8 <= 75 N m); the momentary peak (150 > 120 N m) is the stop's
    assert av.passed and env.failures() == []
    assert env.case_failures("stop") == [f"joint 'j' drive: {checks['reducer momentary peak torque'].line()}"]
    assert env.case_failures("A") == env.case_failures("B") == []
    # each case's own section: a duty case's peaks, the accidental case's momentary peak and bearing checks
    # (the input speed and the count listed as not checked: the entry gives no maximum speed, no count rule)
    assert {c.check for c in env.cases["A"]["j"].checks} == {"reducer repeated peak torque",
                                                             "reducer maximum input speed",
                                                             "bearing static safety factor", "bearing tilting moment"}
    assert {c.check for c in env.cases["stop"]["j"].checks} == {"reducer momentary peak torque",
                                                                "reducer momentary peak count",
                                                                "bearing static safety factor",
                                                                "bearing tilting moment"}


def test_failed_averages_and_brake_are_the_envelopes(drive):
    env = drive_envelope([_case("A", "duty", 0.5, drive, 60.0, 1000.0, 30.0),
                          _case("B", "duty", 0.5, drive, 95.0, 1000.0, 50.0)])
    # (0.5 x 60^3 + 0.5 x 95^3)^(1/3) = 81.2 N m > 75; the brake holds 50 N m > 45
    lines = env.failures()
    assert len(lines) == 2 and lines[0].startswith("joint 'j' drive: reducer average torque") and \
        lines[0].endswith(f"FAIL ({BY_SHARES})") and "brake holding torque" in lines[1]
    assert env.case_failures("A") == env.case_failures("B") == []


def test_no_duty_case_and_changed_drives(drive, tmp_path):
    env = drive_envelope([_case("stop", "accidental", None, drive, 150.0, 5000.0, 20.0),
                          _case("crash", "accidental", None, drive, 110.0, 1000.0, 20.0)])
    assert {(c.check, c.case) for c in env.joints["j"].checks} >= {("reducer momentary peak torque", "stop"),
                                                                   ("reducer momentary peak torque", "crash")}
    # summary.json keeps both: each keyed with its case where the check and part repeat (the second hid the first)
    checks = drivetrain_summary({"j": env.joints["j"]})["j"].checks
    momentary = {k: v.value for k, v in checks.items() if k.startswith("reducer momentary peak torque")}
    assert momentary == {"reducer momentary peak torque (reducer sw) in case 'stop'": 150.0,
                         "reducer momentary peak torque (reducer sw) in case 'crash'": 110.0}
    other = tmp_path / "o.toml"
    other.write_text(CATALOGUE)
    changed = _case("B", "duty", 0.5, Drive(reducer="sw", catalogue=(other,), stiffness=None), 60.0, 1000.0, 30.0)
    with pytest.raises(InputError, match="case 'B': its drives differ from those of case 'A'; a load case cannot"):
        drive_envelope([_case("A", "duty", 0.5, drive, 60.0, 1000.0, 30.0), changed])
