"""A study's drives over its load cases, end to end on the tiny cantilever (a 0.4 m beam on joint1, the tip force
F held, quasi-static, no gravity): two duty cases ('light': 100 N, joint1 turned 20 deg in 1 s, share 0.7;
'heavy': 150 N, 30 deg, share 0.3) and an emergency stop (category 0, a 300 N m brake biting 10 ms after the
trigger at 0.5 s of the light motion; the beam's 20 mm steel section takes it with a safety factor near 2). The
drive (a strain-wave test entry, repeated peak 100 N m, momentary peak 120 N m) passes both duty cases (60 N m at
most) but not the stop, whose sliding brake puts 150 N m through it: the run exits 1 with
that reason, naming the case, on the report and in summary.json, and nothing else fails. The averages over the duty
cases are checked against the manufacturers' formulas written out here by hand from each case's joints.csv (repr-
exact floats, the samples the checks use): HD SE CSD-2A eq. 18.2's speed-weighted cubic mean over the cases by their
shares, T_av = (sum_k s_k int |n| |T|^3 dt / sum_k s_k int |n| dt)^(1/3), the mean speed
n_av = sum_k s_k int |n| dt / sum_k s_k t_k, the life L = L_r (T_r / T_av)^3 (n_r / n_av) and the motor's
T_rms = sqrt(sum_k s_k int tau_m^2 dt / sum_k s_k t_k). A study of one case gives its run's drive checks bit for bit."""
from __future__ import annotations

import csv
import json
import math
import subprocess
from dataclasses import replace
from html import unescape

import numpy as np
import pytest
from helpers import write_small_study

from structcheck.cases.case import Case
from structcheck.drives.study import Drive
from structcheck.script import load_study
from structcheck.study import run

RATIO, ETA = 50.0, 0.8
T_RATED, N_RATED, L_RATED = 100.0, 15.0, 10000.0  # N m, rpm (output side), h (L10)
BRAKE = 150.0  # N m at the joint: the stop's torque while the brake slides, over the momentary peak 120 N m
SHARES = {"light": 0.7, "heavy": 0.3}
CATALOGUE = f"""
[reducer."sw"]
kind = "strain_wave"
ratio = {RATIO}
rated_torque_nm = {T_RATED}
rated_speed_rpm = {N_RATED}
rated_speed_side = "output"
rated_life_h = {L_RATED}
life_basis = "L10"
average_torque_limit_nm = 140
repeated_peak_torque_nm = 100
momentary_peak_torque_nm = 120
momentary_count_rule = "flexspline_1e4"
max_average_input_speed_rpm = 3000
max_input_speed_rpm = 6000
torsional_stiffness_nm_per_rad = 1e5
efficiency = {ETA}
bearing = "crb"
source = "test entry"

[bearing."crb"]
type = "crossed_roller"
pitch_diameter_m = 0.1
offset_m = 0.0
dynamic_load_rating_n = 50000
static_load_rating_n = 80000
allowable_moment_nm = 2000
load_factor = 1.5
source = "test entry"

[motor."m1"]
rated_torque_nm = 5
peak_torque_nm = 15
max_speed_rpm = 6000
rotor_inertia_kgm2 = 2e-4
source = "test entry"

[brake."b1"]
side = "motor"
holding_torque_nm = 2.0
source = "test entry: 100 N m at the joint through i = 50"
"""

SCRIPT = """
from dataclasses import replace
from structcheck.cases.case import Case
from structcheck.cases.stop import JointStop, StopSpec
from structcheck.cases.stopcase import stop_case
from structcheck.drives.study import Drive
from structcheck.script import load_study
from structcheck.study import PointForce

base = load_study({tiny!r}, law="STEP(time,0,0,1,20d)")
study = replace(base, drives={{"joint1": Drive(reducer="sw", motor="m1", brake="b1", catalogue=({cat!r},),
                                               design_life_h=20000.0)}},
                cases=(Case("light", share=0.7),
                       Case("heavy", share=0.3, changes={{"motion": {{"joint1": "STEP(time,0,0,1,30d)"}},
                                                        "point_forces": (PointForce("tip", 150.0, (0, 0, -1)),)}}),
                       stop_case("stop", StopSpec(0, {{"joint1": JointStop({brake}, delay=0.01)}}), 0.5,
                                 count=100.0)))
"""


@pytest.fixture(scope="module")
def cases_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("case_drives")
    (folder / "mine.toml").write_text(CATALOGUE)
    tiny = write_small_study(folder)
    script = folder / "cases.py"
    script.write_text(SCRIPT.format(tiny=str(tiny), cat=str(folder / "mine.toml"), brake=BRAKE))
    out = folder / "run"
    p = subprocess.run(["structcheck", "run", str(script), "--out", str(out), "--no-vtk", "--quiet"],
                       capture_output=True, text=True)
    return p, out, folder


def _csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return {name: np.array([float(r[k]) for r in rows[1:]]) for k, name in enumerate(rows[0])}


def _integral(t, y):
    return float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(t)))


def test_the_stop_fails_its_momentary_peak_and_nothing_else(cases_run):
    p, out, _ = cases_run
    assert p.returncode == 1, p.stderr[-3000:]
    s = json.loads((out / "summary.json").read_text())
    key = "reducer momentary peak torque (reducer sw)"
    (line,) = s["failures"]  # the one reason: the stop's, not its run's repeated peak (that run took it as a duty)
    assert line.startswith(f"case 'stop' (accidental): joint 'joint1' drive: {key}: ") and "FAIL" in line
    check = s["drivetrain"]["joint1"]["checks"][key]
    # the brake slides at its 150 N m until the beam stands still: the stop's largest joint torque (the sampled
    # stop law's inverse dynamics gives it back to the simulator's step tolerance, ~1e-6 seen)
    assert check["case"] == "stop" and check["passed"] is False
    assert check["value"] == pytest.approx(BRAKE, rel=1e-5) and check["limit"] == 120.0
    assert s["cases"]["stop"]["passed"] is False and s["cases"]["stop"]["failures"] == [line.split(": ", 1)[1]]
    stop = s["cases"]["stop"]["drivetrain"]["joint1"]["checks"]
    assert {"reducer momentary peak count (reducer sw)", "bearing static safety factor (output bearing crb)",
            "bearing tilting moment (output bearing crb)"} <= set(stop)
    assert stop["reducer momentary peak count (reducer sw)"]["passed"] is True  # 100 stops against <= 10^4 allowed
    for name in SHARES:
        assert s["cases"][name]["passed"] is True and s["cases"][name]["failures"] == []
    # its own folder is the stop run alone, as the whole duty: there its repeated peak fails (documented)
    own = json.loads((out / "cases" / "stop" / "summary.json").read_text())
    assert any("reducer repeated peak torque" in f for f in own["failures"])
    html = (out / "report.html").read_text()
    assert line in unescape(html)  # the reason in the banner
    table = html[html.index('<section id="drivetrain">'):]
    table = table[:table.index("</section>")]
    assert '<table class="drive-table" data-joint="joint1">' in table
    assert "<tr><td>reducer momentary peak torque</td><td>reducer sw</td><td>stop</td>" in table and ">FAIL<" in table


def test_averages_over_the_duty_cases_by_their_shares_by_hand(cases_run):
    _, out, _ = cases_run
    s = json.loads((out / "summary.json").read_text())
    checks = s["drivetrain"]["joint1"]["checks"]
    turned = cubic = square = span = 0.0
    peak = {}
    for name, share in SHARES.items():
        c = _csv(out / "cases" / name / "joints.csv")
        t, n, T, tau_m = c["time_s"], np.abs(c["qd_joint1"]) * 60 / (2 * math.pi), c["tau_joint1"], \
            c["motor_tau_joint1_Nm"]
        turned += share * _integral(t, n)
        cubic += share * _integral(t, n * np.abs(T) ** 3)
        square += share * _integral(t, tau_m ** 2)
        span += share * (t[-1] - t[0])
        peak[name] = np.abs(T).max()
    t_av = (cubic / turned) ** (1 / 3)
    n_av = turned / span
    life = L_RATED * (T_RATED / t_av) ** 3 * N_RATED / n_av
    assert 30 < t_av < 80 and n_av > 1  # the duty turns the joint under load: the check is not empty
    for key, expected in (("reducer average torque (reducer sw)", t_av), ("reducer life (reducer sw)", life),
                          ("reducer average input speed (reducer sw)", RATIO * n_av),
                          ("motor RMS torque (motor m1)", math.sqrt(square / span))):
        # the same trapezoid sums in another order: round-off only
        assert checks[key]["value"] == pytest.approx(expected, rel=1e-12), key
        assert checks[key]["case"] == "the duty cases by their shares"
    rep = checks["reducer repeated peak torque (reducer sw)"]
    assert rep["value"] == max(peak.values()) and rep["case"] == "heavy"  # 150 N at the tip: the larger torque
    brake = checks["brake holding torque (brake b1)"]
    assert "case 'heavy'" in brake["note"] and brake["value"] == pytest.approx(150.0 * 0.4 / RATIO, rel=1e-9)


def test_each_case_folder_has_its_motor_columns(cases_run):
    _, out, _ = cases_run
    for name in (*SHARES, "stop"):
        c = _csv(out / "cases" / name / "joints.csv")
        expected = np.where(c["tau_joint1"] * c["qd_joint1"] >= 0, c["tau_joint1"] / (RATIO * ETA),
                            c["tau_joint1"] * ETA / RATIO) + 2e-4 * RATIO * c["qdd_joint1"]
        np.testing.assert_allclose(c["motor_tau_joint1_Nm"], expected, rtol=1e-12, atol=1e-12)


def test_one_case_is_the_run_alone_bit_for_bit(tmp_path):
    (tmp_path / "mine.toml").write_text(CATALOGUE)
    study = replace(load_study(write_small_study(tmp_path), law="STEP(time,0,0,1,20d)"),
                    drives={"joint1": Drive(reducer="sw", motor="m1", catalogue=(tmp_path / "mine.toml",),
                                            design_life_h=20000.0)})
    alone = run(study, progress=False, write=False).summary
    one = run(replace(study, cases=(Case("only"),)), progress=False, write=False).summary
    assert alone.drivetrain and one.drivetrain == alone.drivetrain  # every value, limit and note, to the bit
    assert one.failures == [f"case 'only' (duty): {f}" for f in alone.failures]


def test_a_case_count_is_an_accidental_cases_own():
    from structcheck.errors import InputError

    with pytest.raises(InputError, match="case 'light': count is for accidental cases; a duty case has its share"):
        Case("light", count=3)
    with pytest.raises(InputError, match="case 'stop': count"):
        Case("stop", role="accidental", count=-1)
    assert Case("stop", role="accidental", count=10).count == 10
