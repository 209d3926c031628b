"""A study's drives end to end on the tiny cantilever (a 0.4 m beam on joint1, 100 N at the tip, quasi-static, no
gravity: joint1 holds tau = F L = 40 N m at rest): a reducer whose repeated peak torque is below 40 N m fails the
run (exit 1) with that reason in summary.json and on the report; one above it passes (exit 0); the reducer's
catalogue stiffness k (linear, no lost motion: the secant at any torque is k) adds the beam's rigid rotation
F L / k times L to the tip deflection, as an explicit arm.joint_stiffness does (tests/study/test_rigid_joints.py);
and joints.csv's motor columns are tau / (i eta) + J i qdd (driving) and i qd, computed here from its own columns."""
from __future__ import annotations

import csv
import json
import math
import subprocess
from dataclasses import replace

import numpy as np
import pytest
from helpers import SMALL_H, SMALL_L, write_small_study

from structcheck.drives.study import Drive
from structcheck.errors import InputError
from structcheck.report import write_report
from structcheck.script import load_study
from structcheck.settings import ArmSettings
from structcheck.study import run
from structcheck.user_loads import PointForce

K, RATIO, ETA, J_ROTOR = 1.0e5, 50.0, 0.8, 2.0e-4  # N m/rad, -, -, kg m^2
K_TILT_ARCMIN = 10.0  # N m/arcmin: 3.44e4 N m/rad, soft enough that its share of the tip deflection is large
K_TILT = K_TILT_ARCMIN / (math.pi / (180 * 60))  # N m/rad
CATALOGUE = f"""
[reducer."small"]
kind = "strain_wave"
ratio = {RATIO}
rated_torque_nm = 30
repeated_peak_torque_nm = 20
momentary_peak_torque_nm = 60
torsional_stiffness_nm_per_rad = {K}
efficiency = {ETA}
source = "test entry: repeated peak 20 N m, below the cantilever's 40 N m"

[reducer."large"]
kind = "strain_wave"
ratio = {RATIO}
rated_torque_nm = 100
repeated_peak_torque_nm = 200
momentary_peak_torque_nm = 400
torsional_stiffness_nm_per_rad = {K}
efficiency = {ETA}
source = "test entry: repeated peak 200 N m"

[motor."m1"]
rated_torque_nm = 5
peak_torque_nm = 15
max_speed_rpm = 6000
rotor_inertia_kgm2 = {J_ROTOR}
source = "test entry"

[bearing."crb"]
type = "crossed_roller"
tilting_stiffness_nm_per_arcmin = {K_TILT_ARCMIN}
source = "test entry: a crossed roller bearing's moment rigidity in N m/arcmin, as the catalogues print it"

[reducer."large-crb"]
kind = "strain_wave"
ratio = {RATIO}
repeated_peak_torque_nm = 200
torsional_stiffness_nm_per_rad = {K}
bearing = "crb"
source = "test entry: the large reducer with an output bearing of known tilting stiffness"

[brake."b1"]
side = "motor"
holding_torque_nm = 0.5
source = "test entry: 0.5 N m at the motor, 25 N m at the joint through i = 50: below the 40 N m held"
"""


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    folder = tmp_path_factory.mktemp("drives")
    (folder / "mine.toml").write_text(CATALOGUE)
    return load_study(write_small_study(folder)), folder


def _with(study, folder, reducer, **kw):
    return replace(study, drives={"joint1": Drive(reducer=reducer, catalogue=(folder / "mine.toml",), **kw)})


def test_unknown_entries_and_joints_are_named(setup):
    study, folder = setup
    with pytest.raises(InputError, match=r"no reducer 'nope' .*reducers: .*large.*small"):
        Drive(reducer="nope", catalogue=(folder / "mine.toml",))
    with pytest.raises(InputError, match="no joint 'joint9' in the robot; joints: joint1"):
        run(replace(study, drives={"joint9": Drive(reducer="large", catalogue=(folder / "mine.toml",))}),
            progress=False, write=False)


def test_failing_drive_exits_1_with_its_reason(setup):
    study, folder = setup
    script = folder / "failing.py"
    script.write_text(f"from structcheck.script import load_study\nfrom dataclasses import replace\n"
                      f"from structcheck.drives.study import Drive\n"
                      f"study = replace(load_study({str(folder / 'tiny_study.py')!r}), drives={{'joint1': "
                      f"Drive(reducer='small', catalogue=({str(folder / 'mine.toml')!r},))}})\n")
    out = folder / "failing"
    p = subprocess.run(["structcheck", "run", str(script), "--out", str(out), "--no-vtk", "--quiet"],
                       capture_output=True, text=True)
    assert p.returncode == 1, p.stderr[-2000:]
    s = json.loads((out / "summary.json").read_text())
    reason = [f for f in s["failures"] if "joint 'joint1' drive" in f]
    # the held torque F L = 100 N * 0.4 m against the entry's repeated peak 20 N m: utilisation 2
    assert len(reason) == 1 and "reducer repeated peak torque" in reason[0] and "40 <= 20 N m" in reason[0], \
        s["failures"]
    d = s["drivetrain"]["joint1"]
    assert d["passed"] is False and d["max_utilisation"] == pytest.approx(2.0, rel=1e-9)
    html = (out / "report.html").read_text()
    table = html[html.index('<section id="drivetrain">'):]
    table = table[:table.index("</section>")]
    assert '<table class="drive-table" data-joint="joint1">' in table
    assert "<tr><td>reducer repeated peak torque</td><td>reducer small</td>" in table and ">FAIL<" in table


def test_passing_drive_and_catalogue_stiffness(setup, capsys):
    study, folder = setup
    rigid = run(study, progress=False, write=False)
    out = folder / "passing"
    res = run(_with(study, folder, "large"), out, progress=True, vtk=False, plots=False)
    assert "joints: none held rigid" in capsys.readouterr().err  # the run header counts the drive's stiffness
    s = json.loads((out / "summary.json").read_text())
    assert s["passed"] is True and s["failures"] == [] and s["rigid_joints"] == []
    # the inputs are the study's: the drive's stiffness is not written as an explicit arm.joint_stiffness
    assert s["inputs"]["settings"]["arm.joint_stiffness"]["value"] == {}
    assert s["inputs"]["settings"]["drives"]["value"]["joint1"]["reducer"] == "large"
    d = s["drivetrain"]["joint1"]
    assert d["stiffness_nm_per_rad"] == pytest.approx(K, rel=1e-12) and "rms torque 40 N m" in d["stiffness_note"]
    # the spring adds the beam's rigid rotation F L / k times L (statics: independent of the mesh)
    F = 100.0
    extra = res.summary.tool_point_deflection_m - rigid.summary.tool_point_deflection_m
    assert extra == pytest.approx(F * SMALL_L ** 2 / K, rel=1e-6)
    # an explicit stiffness wins, and the summary says so
    both = run(replace(_with(study, folder, "large"), arm=ArmSettings(joint_stiffness={"joint1": 2 * K})),
               progress=False, write=False)
    assert both.summary.drivetrain["joint1"].stiffness_nm_per_rad is None
    assert "explicit arm.joint_stiffness" in both.summary.drivetrain["joint1"].stiffness_note
    assert both.summary.tool_point_deflection_m - rigid.summary.tool_point_deflection_m == \
        pytest.approx(F * SMALL_L ** 2 / (2 * K), rel=1e-6)


def test_brake_against_the_static_holding_torque(setup):
    study, folder = setup
    res = run(_with(study, folder, "large", motor="m1", brake="b1"), progress=False, write=False)
    (brake,) = [c for c in res.summary.drivetrain["joint1"].checks.values() if c.check == "brake holding torque"]
    # 40 N m held at the joint is 40 / 50 = 0.8 N m at the motor against 0.5 N m; without gravity the worst static
    # pose over the range holds nothing, so the tip force held at rest (the motion's own pose) governs
    assert brake.value == pytest.approx(0.8, rel=1e-9) and brake.passed is False
    assert brake.note.startswith("S = 1; held: the motion's own poses") and "40 N m" in brake.note
    assert any("brake holding torque" in f for f in res.summary.failures)


def test_brake_against_the_worst_static_pose_over_the_range(tmp_path):
    """Under gravity with a 2 kg payload at the tip and no tip force, the beam held still at 0.6 rad (link tilted
    up: it holds cos 0.6 of the horizontal torque) must still be braked at its worst pose in the joint's range
    (-3, 3) rad: horizontal, tau = g (m L / 2 + mp L), m = rho L H^2 the steel beam's mass."""
    (tmp_path / "mine.toml").write_text(CATALOGUE)
    m, mp = 7850.0 * SMALL_L * SMALL_H ** 2, 2.0  # structural_steel's density (kg/m^3): the mesh's box volume
    tau = 9.81 * (m * SMALL_L / 2 + mp * SMALL_L)
    study = load_study(write_small_study(tmp_path), tip_force_n=0.0, gravity_z=-9.81, payload_kg=mp,
                       law="STEP(time,0,0.6,1,0.6)")
    study = replace(study, drives={"joint1": Drive(reducer="large", motor="m1", brake="b1",
                                                   catalogue=(tmp_path / "mine.toml",))})
    res = run(study, progress=False, write=False)
    d = res.summary.drivetrain["joint1"]
    (brake,) = [c for c in d.checks.values() if c.check == "brake holding torque"]
    # the pose search's Powell tolerance (1e-8 rad) leaves the maximum to round-off
    assert brake.value == pytest.approx(tau / RATIO, rel=1e-9)
    assert "held: the worst static pose" in brake.note and f"{tau * math.cos(0.6):.4g} N m" in brake.note


def test_bearing_tilt_stiffness_in_the_arm_model(setup):
    """The output bearing's moment rigidity (catalogue N m/arcmin) as the joint's tilt spring. A tip force
    F = (0, F_y, F_z) on the beam along x: F_y (parallel to the joint axis y, at L from it) tilts the joint about z
    by M / k_tilt = F_y L / k_tilt, moving the tip F_y L^2 / k_tilt along y; F_z turns it about the axis through
    the reducer's k, F_z L^2 / k along z. Statics: the extra over the rigid joint is exact, mesh aside."""
    study, folder = setup
    F, (cy, cz) = 100.0, (0.6, -0.8)
    pushed = replace(study, point_forces=(PointForce("tip", F, (0.0, cy, cz)),))
    rigid = run(pushed, progress=False, write=False)
    res = run(_with(pushed, folder, "large-crb"), progress=False, write=False)
    d = res.summary.drivetrain["joint1"]
    assert d.tilt_stiffness_nm_per_rad == pytest.approx(K_TILT, rel=1e-12) and "crb" in d.stiffness_note
    extra = res.tool_point_deflection[-1] - rigid.tool_point_deflection[-1]
    expected = np.array([0.0, F * cy * SMALL_L ** 2 / K_TILT, F * cz * SMALL_L ** 2 / K])
    # the springs' rotations are linear statics on top of the same elastic beam: seen to the solver's round-off;
    # 1e-6 of the largest component leaves room for the factorization's ~1e-9 relative error
    np.testing.assert_allclose(extra, expected, rtol=0, atol=1e-6 * np.abs(expected).max())
    assert abs(expected[1]) > 2 * abs(expected[2])  # the tilt share is the larger: the test sees it


def test_motor_columns_of_joints_csv(setup):
    study, folder = setup
    moving = replace(_with(study, folder, "large", motor="m1"), motion={"joint1": "STEP(time,0,0,1,20d)"},
                     n_frames=11)
    out = folder / "moving"
    run(moving, out, progress=False, vtk=False, plots=False)
    with open(out / "joints.csv") as f:
        rows = list(csv.reader(f))
    cols = {name: np.array([float(r[k]) for r in rows[1:]]) for k, name in enumerate(rows[0])}
    tau, qd, qdd = cols["tau_joint1"], cols["qd_joint1"], cols["qdd_joint1"]
    driving = tau * qd >= 0  # power flows from the motor: tau / (i eta); back-driven: tau eta / i
    expected = np.where(driving, tau / (RATIO * ETA), tau * ETA / RATIO) + J_ROTOR * RATIO * qdd
    assert np.abs(qd).max() > 0.1 and np.abs(qdd).max() > 0.1  # the motion does move the joint
    np.testing.assert_allclose(cols["motor_tau_joint1_Nm"], expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cols["motor_speed_joint1_rpm"], RATIO * qd * 60 / (2 * math.pi), rtol=1e-12,
                               atol=1e-9)
