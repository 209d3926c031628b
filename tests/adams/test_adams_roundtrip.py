"""export-adams then read_adm: every shipped study's robot and motion give the same joint loads; closed chains are
refused on export with a clear line; the commands run."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from adams_loads import imported_study, joint_loads
from structcheck.errors import InputError
from structcheck.model.adams import read_adm, write_adm
from structcheck.script import load_study

ROOT = Path(__file__).resolve().parents[2]
# every shipped study's laws are ADAMS expressions (pr1300_palletizer's: the closed-form inverse kinematics of its
# straight line over the modified trapezoid's own expression) or profiles that write themselves as one
# (adams_text): written as they are, so the loads agree to 1e-12 of their peaks
STUDIES = ("two_link_arm", "loading_unloading_6dof", "kr500_identification", "cad_arm", "mg400", "hydraulic_arm",
           "pr1300_palletizer")
# studies/paper001_lagrange.py and studies/pr1300_paper.py hold no Study (paper checks, no robot run)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_export_then_import_gives_the_same_joint_loads(tmp_path, name):
    """Torques (or forces) and joint reactions (world axes: a joint whose axis is not z gets its ADAMS markers
    turned, so the reimported child frame is turned too) on the analysis grid, to 1e-12 of each quantity's peak.
    Budget: 17-digit numbers and the REULER round trip (1e-16 relative) through recursions and the closed chains'
    loop closure (~1e-14). Closed chains come back as closed chains with the same cut joints."""
    study = load_study(ROOT / "studies" / f"{name}.py")
    text = write_adm(study, tmp_path / "model.adm").read_text()
    assert "AKISPL" not in text  # no law sampled
    model = read_adm(tmp_path / "model.adm")
    tol = 1e-12
    assert set(study.robot.joint_names) <= set(model.robot.joint_names)
    t = np.linspace(0.0, study.t_end, 101)
    a, b = joint_loads(study, t), joint_loads(imported_study(model, study), t)
    peak_tau = max(np.abs(tau).max() for tau, _ in a.values() if tau is not None)
    peak_w = max(np.abs(w).max() for _, w in a.values())
    assert peak_tau > 0.1 and peak_w > 1.0
    for joint, (tau, w) in a.items():
        if tau is not None:
            assert np.abs(tau - b[joint][0]).max() < tol * peak_tau, joint
        assert np.abs(w - b[joint][1]).max() < tol * peak_w, joint


def test_a_chain_actuated_elsewhere_than_driven_is_refused_on_export(tmp_path):
    from dataclasses import replace

    from structcheck.rigid.closedchain import ClosedChain

    study = load_study(ROOT / "studies" / "hydraulic_arm.py")
    chain = study.robot
    other = ClosedChain(chain.tree, chain.cuts, independent=chain.independent,
                        actuated=["theta2", *chain.independent[1:]])
    with pytest.raises(InputError, match="actuated"):
        write_adm(replace(study, robot=other), tmp_path / "model.adm")


class _Wave:
    """A law object with no ADAMS expression of its own: 0.1 (1 - cos(pi t)) [rad]."""

    breakpoints, ramps = (), ()

    def value(self, t):
        return 0.1 * (1 - np.cos(np.pi * np.asarray(t)))

    def velocity(self, t):
        return 0.1 * np.pi * np.sin(np.pi * np.asarray(t))

    def acceleration(self, t, side=1):
        return 0.1 * np.pi ** 2 * np.cos(np.pi * np.asarray(t))


def test_export_writes_what_adams_reads(tmp_path):
    """The dataset's statements: units, GROUND, IP with the products' ADAMS sign, MOTION text as the study's
    law, ACCGRAV, END; a profile writes itself as an expression (exact: its value, velocity and acceleration
    read back to rounding); a law object that is no expression becomes an AKISPL SPLINE of its samples (values at
    the knots exact)."""
    from dataclasses import replace

    from structcheck.motion import Quintic

    study = load_study(ROOT / "studies" / "two_link_arm.py")
    study = replace(study, motion={"shoulder": _Wave(), "elbow": Quintic(0.5, 1.5, 0.0, 0.4)})
    text = write_adm(study, tmp_path / "m.adm").read_text()
    assert "UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND" in text
    assert "FUNCTION = IF(time - 0.5: 0.0, POLY(time, 0.5, 0.0, 0.0, 0.0," in text and "AKISPL(time, 0, 1)" in text
    assert text.rstrip().endswith("END") and "ACCGRAV/IGRAV = 0.0, JGRAV = 0.0, KGRAV = -9.81" in text
    model = read_adm(tmp_path / "m.adm")
    t = np.union1d(np.linspace(0.0, 2.0, 41), [0.5, 1.5])
    q = Quintic(0.5, 1.5, 0.0, 0.4)
    for side in (-1, 1):
        assert np.abs(model.motion["elbow"].acceleration(t, side) - q.acceleration(t, side=side)).max() < 1e-12
    assert np.abs(model.motion["elbow"].value(t) - q.value(t)).max() < 1e-15
    knots = np.linspace(0.0, study.t_end, 4001)
    assert np.abs(model.motion["shoulder"].value(knots) - _Wave().value(knots)).max() < 1e-15


def test_splines_of_a_law_are_written_as_splines(tmp_path):
    """A law's CUBSPL and AKISPL (here one in a VARIABLE) name SPLINEs written with ids (one per curve); the law
    reads back the same to the bit: no sampling."""
    from dataclasses import replace

    from structcheck.motion import MotionLaw

    x = (0.0, 0.5, 1.0, 1.5, 2.0)
    splines = {"Lift": (x, (0.0, 0.1, 0.4, 0.5, 0.5)), 7: (x, (0.0, -0.2, -0.3, -0.1, 0.0))}
    variables = {"v": "AKISPL(time, 0, 7)"}
    laws = {"shoulder": MotionLaw("CUBSPL(time, 0, lift) + 0.5*VARVAL(v)", splines=splines, variables=variables),
            "elbow": MotionLaw("AKISPL(time - 0.1, 0, LIFT, 0)", splines=splines)}
    study = replace(load_study(ROOT / "studies" / "two_link_arm.py"), motion=laws)
    text = write_adm(study, tmp_path / "m.adm").read_text()
    assert text.count("SPLINE/") == 2 and "FUNCTION = CUBSPL(time, 0, 1) + 0.5*VARVAL(1)" in text
    assert "FUNCTION = AKISPL(time, 0, 2)" in text and "FUNCTION = AKISPL(time - 0.1, 0, 1, 0)" in text
    model = read_adm(tmp_path / "m.adm")
    t = np.linspace(0.0, 2.0, 41)
    for name, law in laws.items():
        assert np.array_equal(model.motion[name].acceleration(t), law.acceleration(t))


def test_joint_stiffness_written_as_springdamper_or_bushing(tmp_path):
    """A torsional stiffness is a SPRINGDAMPER, one with a tilt stiffness a BUSHING (KT = tilt, tilt, torsion
    about the joint markers' axes); both read back to the same joint stiffness."""
    from dataclasses import replace

    from structcheck.settings import ArmSettings

    study = load_study(ROOT / "studies" / "two_link_arm.py")
    stiffness = {"shoulder": (2.5e5, 1.5e7), "elbow": 4.0e4}
    text = write_adm(replace(study, arm=ArmSettings(joint_stiffness=stiffness)), tmp_path / "m.adm").read_text()
    assert "BUSHING/1" in text and "KT = 15000000.0, 15000000.0, 250000.0" in text and "SPRINGDAMPER/1" in text
    assert read_adm(tmp_path / "m.adm").joint_stiffness == stiffness


def test_variables_are_written_once_with_ids(tmp_path):
    """A law's VARVALs by name become VARIABLEs with ids (shared by the laws that use the same text), and read
    back to the same law."""
    from dataclasses import replace

    from structcheck.motion import MotionLaw

    variables = {"ramp": "STEP(time, 0, 0, 1, 1)", "Half": "0.5*VARVAL(ramp)"}
    laws = {"shoulder": MotionLaw("VARVAL(half) + 0.1*VARVAL(RAMP)", variables=variables),
            "elbow": MotionLaw("-VARVAL(Half)", variables=variables)}
    study = replace(load_study(ROOT / "studies" / "two_link_arm.py"), motion=laws)
    text = write_adm(study, tmp_path / "m.adm").read_text()
    assert text.count("VARIABLE/") == 2 and "FUNCTION = 0.5*VARVAL(1)" in text
    assert "FUNCTION = VARVAL(2) + 0.1*VARVAL(1)" in text and "FUNCTION = -VARVAL(2)" in text
    model = read_adm(tmp_path / "m.adm")
    t = np.linspace(0.0, 2.0, 41)
    for name, law in laws.items():
        assert np.array_equal(model.motion[name].acceleration(t), law.acceleration(t))


def _run(*args, cwd):
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-c", "import sys; from structcheck.cli import main; sys.exit(main(sys.argv[1:]))", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=600)


def test_import_adams_writes_a_starter_study_that_builds(tmp_path):
    links = tmp_path / "links"
    links.mkdir()
    for link in ("waist", "upper_arm"):
        (links / f"{link}.msh").write_bytes((ROOT / "meshes" / "paper004" / f"{link}.msh").read_bytes())
    (links / "links.toml").write_text('[links]\nwaist = "waist.msh"\nupper_arm = "upper_arm.msh"\n'
                                      '[materials]\ndefault = "6061-O"\nwaist = "304"\n')
    r = _run("import-adams", str(ROOT / "tests" / "data" / "paper004.adm"), "--links", str(links / "links.toml"),
             "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    script = (tmp_path / "out" / "study.py").read_text()
    assert str(tmp_path) not in script and "def mesh_part" in script
    study = load_study(tmp_path / "out" / "study.py")
    assert sorted(study.parts) == ["upper_arm", "waist"] and study.t_end == 10.0
    bad = _run("import-adams", str(ROOT / "tests" / "data" / "paper004.adm"), "--links", str(links / "links.toml"),
               "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert bad.returncode == 2 and "not an empty folder" in bad.stderr


def test_export_adams_command(tmp_path):
    r = _run("export-adams", str(ROOT / "studies" / "two_link_arm.py"), "-o", str(tmp_path / "m.adm"), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert read_adm(tmp_path / "m.adm").robot.dof_names == ("shoulder", "elbow")
