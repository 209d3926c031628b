"""`structcheck run` and `main_for_study` end to end on a tiny study (one steel cantilever, quasi-static, a few
seconds): exit 0 on a pass, 1 on a failing verdict, 2 on bad input with one line and nothing half-written;
--set reaching the build, --no-vtk, and errors raised by the user's own study script."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from structcheck.cli import main, main_for_study

ROOT = Path(__file__).resolve().parents[2]

from helpers import N_LEN, N_SIDE, SMALL_H as H, SMALL_L as L, SMALL_STUDY, write_small_study


def small_study_module(folder: Path):
    path = write_small_study(folder)
    spec = importlib.util.spec_from_file_location("tiny_study_for_cli_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read(out: Path) -> dict:
    return json.loads((out / "summary.json").read_text())


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err and "\n" not in err and "Traceback" not in err, err
    return err


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    """`structcheck run` of the tiny study with its defaults: (exit status, results folder, study path)."""
    folder = tmp_path_factory.mktemp("cli_run")
    study = write_small_study(folder)
    out = folder / "base"
    return main(["run", str(study), "--out", str(out), "--quiet"]), out, study


def test_run_passing_study_exits_0_with_all_outputs(default_run):
    status, out, _ = default_run
    assert status == 0
    s = read(out)
    assert s["passed"] is True and s["parameters"] == {"tip_force_n": 100.0, "required_safety_factor": 1.5}
    assert s["links"]["beam"]["min_safety_factor"] >= 1.5
    for f in ("summary.json", "joints.csv", "links.csv", "robot.vtkhdf"):
        assert (out / f).is_file(), f
    # the tip deflection is that of a cantilever under P = 100 N (Euler-Bernoulli + Timoshenko shear); 2 %: the
    # clamped face is rigid in the FE model but not in beam theory, and the mesh is 2 elements across
    E, nu, P, I, A = 200e9, 0.3, 100.0, H ** 4 / 12, H ** 2
    kappa = 10 * (1 + nu) / (12 + 11 * nu)
    expected = P * L ** 3 / (3 * E * I) + P * L / (kappa * E / (2 * (1 + nu)) * A)
    assert s["tool_point_deflection_m"] == pytest.approx(expected, rel=0.02)


def test_run_failing_verdict_exits_1_and_still_writes(tmp_path, capsys):
    study = write_small_study(tmp_path)
    out = tmp_path / "strict"
    assert main(["run", str(study), "--out", str(out), "--quiet", "--set", "required_safety_factor=1e6"]) == 1
    s = read(out)
    assert s["passed"] is False and s["required_safety_factor"] == 1e6
    assert s["links"]["beam"]["passed"] is False
    assert "results written to" in capsys.readouterr().out


def test_set_reaches_the_build_and_no_vtk_writes_no_paraview(default_run, tmp_path):
    _, base, study = default_run
    out = tmp_path / "heavy"
    assert main(["run", str(study), "--out", str(out), "--quiet", "--no-vtk", "--set", "tip_force_n=300"]) == 0
    s, b = read(out), read(base)
    assert s["parameters"]["tip_force_n"] == 300
    # the force itself changed, not only its label: with no gravity every output is linear in it
    assert s["tool_point_deflection_m"] == pytest.approx(3 * b["tool_point_deflection_m"], rel=1e-9)
    assert s["links"]["beam"]["max_von_mises_pa"] == pytest.approx(3 * b["links"]["beam"]["max_von_mises_pa"],
                                                                   rel=1e-9)
    assert not list(out.rglob("*.pvd")) and not list(out.rglob("*.vtu")) and not list(out.rglob("*.vtkhdf"))
    assert (out / "summary.json").is_file() and (out / "links.csv").is_file()


@pytest.mark.parametrize("where", ["under_a_file", "is_a_file", "proc"])
def test_unwritable_out_exits_2_and_writes_nothing(tmp_path, capsys, where):
    study = write_small_study(tmp_path)
    (tmp_path / "a_file").write_text("x")
    out = {"under_a_file": tmp_path / "a_file" / "results", "is_a_file": tmp_path / "a_file",
           "proc": Path("/proc/structcheck_forbidden/results")}[where]
    before = sorted(tmp_path.rglob("*"))
    assert main(["run", str(study), "--out", str(out), "--quiet"]) == 2
    err = one_line_error(capsys)
    assert err.startswith("structcheck: error:") and str(out) in err and "--out" in err
    assert sorted(tmp_path.rglob("*")) == before  # no results, no partial folder
    assert (tmp_path / "a_file").read_text() == "x"


BAD_BUILD = '''
from structcheck.study import Study


def build(wall_mm=8.0):
    return Study(name="x", robot=None, motion={}, parts={}, t_end=1.0,
                 parameters={"ratio": 100.0 / (wall_mm - 8.0)})  # a bug: fails for the default


study = None
'''


@pytest.mark.parametrize("case", ["build_value_error", "build_zero_division", "import_error", "argv_at_import"])
def test_errors_in_the_users_study_exit_2_in_one_line(tmp_path, capsys, case):
    path = tmp_path / "user_study.py"
    args = []
    if case == "build_value_error":
        anchor = "    if mesh_file is None:\n"
        assert anchor in SMALL_STUDY
        path.write_text(SMALL_STUDY.replace(anchor, "    if tip_force_n == 5:\n        int('five')\n" + anchor))
        args, expect = ["--set", "tip_force_n=5"], ["tip_force_n=5", "ValueError", "invalid literal"]
    elif case == "build_zero_division":
        path.write_text(BAD_BUILD)
        args, expect = ["--set", "wall_mm=8"], ["wall_mm=8", "ZeroDivisionError", "division by zero"]
    elif case == "import_error":
        path.write_text("import numpy as np\nstudy = np.zeros(3)[7]\n")
        expect = ["IndexError", "out of bounds"]
    else:  # a script that parses the command line at import instead of under `if __name__ == "__main__":`
        path.write_text("import argparse\nargparse.ArgumentParser().parse_args(['--nope'])\n")
        expect = ["sys.exit(2)", 'if __name__ == "__main__":']
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet", *args]) == 2
    if case == "argv_at_import":  # argparse's own usage lines come first; ours is the last and only one
        lines = capsys.readouterr().err.strip().splitlines()
        assert [ln for ln in lines if ln.startswith("structcheck:")] == lines[-1:]
        err = lines[-1]
    else:
        err = one_line_error(capsys)
    assert str(path) in err and all(e in err for e in expect), err
    assert not out.exists()


def test_traceback_flag_shows_the_original_exception(tmp_path):
    path = tmp_path / "user_study.py"
    path.write_text(BAD_BUILD)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        main(["run", str(path), "--set", "wall_mm=8", "--traceback", "--out", str(tmp_path / "out")])
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        main(["info", str(path), "--set", "wall_mm=8", "--traceback"])


@pytest.mark.parametrize("item", ["=5", "no_equals", "two words=1"])
def test_malformed_set_exits_2(tmp_path, capsys, item):
    study = write_small_study(tmp_path)
    assert main(["run", str(study), "--set", item, "--out", str(tmp_path / "out")]) == 2
    err = one_line_error(capsys)
    assert "--set expects name=value" in err and repr(item) in err


def test_main_for_study_exit_statuses(tmp_path, capsys):
    """The helper study scripts call under `if __name__ == "__main__":`: build()'s parameters become options."""
    mod = small_study_module(tmp_path)
    out = tmp_path / "ok"
    assert main_for_study(mod.build, ["--out", str(out), "--quiet", "--no-vtk", "--tip-force-n", "50"],
                          default=mod.study) == 0
    assert read(out)["parameters"]["tip_force_n"] == 50.0 and (out / "report.html").is_file()  # the review page
    assert main_for_study(mod.build, ["--out", str(tmp_path / "strict"), "--quiet", "--no-vtk",
                                      "--required-safety-factor", "1e6", "--no-report"]) == 1
    assert not (tmp_path / "strict" / "report.html").exists()
    capsys.readouterr()
    # bad input: an unwritable folder, a value the run rejects, a value argparse rejects
    assert main_for_study(mod.build, ["--out", str(tmp_path / "ok" / "summary.json" / "x"), "--quiet"]) == 2
    assert "cannot write results" in one_line_error(capsys)
    assert main_for_study(mod.build, ["--out", str(tmp_path / "nan"), "--tip-force-n", "nan", "--quiet"]) == 2
    err = one_line_error(capsys)
    assert "build() parameter tip_force_n = nan: give a finite number (N)" in err, err
    assert not (tmp_path / "nan").exists()
    assert main_for_study(mod.build, ["--tip-force-n", "abc"]) == 2
    assert "invalid float value: 'abc'" in capsys.readouterr().err
    # a ready-made Study works too (no build parameters)
    assert main_for_study(mod.study, ["--out", str(tmp_path / "plain"), "--quiet", "--no-vtk"]) == 0
    # with every option at build()'s default, the already-built `default` study is run (not rebuilt)
    prebuilt = mod.build(tip_force_n=77.0)
    assert main_for_study(mod.build, ["--out", str(tmp_path / "pre"), "--quiet", "--no-vtk"], default=prebuilt) == 0
    assert read(tmp_path / "pre")["parameters"]["tip_force_n"] == 77.0
    capsys.readouterr()
    # an exception in the script's own build() is one line naming the script and the option values
    (tmp_path / "bad_build.py").write_text(BAD_BUILD)
    spec = importlib.util.spec_from_file_location("bad_build_for_cli_tests", tmp_path / "bad_build.py")
    bad = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bad)
    assert main_for_study(bad.build, ["--wall-mm", "8", "--out", str(tmp_path / "bad")]) == 2
    err = one_line_error(capsys)
    assert f"building {tmp_path / 'bad_build.py'} with wall_mm=8.0 failed: ZeroDivisionError" in err, err
    assert not (tmp_path / "bad").exists()


def test_paper004_script_bad_out_and_wall_exit_2_without_traceback(tmp_path):
    """`python studies/loading_unloading_6dof.py` itself (stops before any FE work)."""
    script = ROOT / "studies" / "loading_unloading_6dof.py"
    for args, expect in ((["--out", "/proc/forbidden"], "cannot write results to '/proc/forbidden'"),
                         (["--wall-mm", "50", "--out", str(tmp_path / "w")], "1 <= wall_mm < 40")):
        p = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, cwd=tmp_path)
        assert p.returncode == 2, p.stderr
        err = p.stderr.strip()
        assert "\n" not in err and "Traceback" not in err and expect in err, err
    assert list(tmp_path.iterdir()) == []



def test_link_model_option_adds_the_per_link_model_beside_the_arm_model(default_run, tmp_path):
    """`--link-model` (structcheck run and a study script) runs the per-link model beside the default arm model:
    its peak, quasi-static peak and first frequency appear per link, the arm model's own numbers do not move; a run
    without it has none of them."""
    _, base, study = default_run
    out = tmp_path / "both"
    assert main(["run", str(study), "--out", str(out), "--quiet", "--no-vtk", "--link-model"]) == 0
    a, b = read(base), read(out)
    keys = {"max_von_mises_link_model_pa", "quasi_static_max_von_mises_link_model_pa",
            "lowest_frequency_link_model_hz"}
    assert a["flexibility"] == b["flexibility"] == "arm"
    assert not keys & set(a["links"]["beam"]) and keys <= set(b["links"]["beam"])
    assert b["links"]["beam"]["max_von_mises_pa"] == a["links"]["beam"]["max_von_mises_pa"]
    # a quasi-static cantilever under a tip force: both models clamp the root face, where the peak is, and differ
    # only in how the tip load is spread (measured: -8.6e-9)
    assert b["links"]["beam"]["max_von_mises_link_model_pa"] == pytest.approx(
        a["links"]["beam"]["max_von_mises_pa"], rel=1e-6)
    mod = small_study_module(tmp_path)
    assert main_for_study(mod.build, ["--out", str(tmp_path / "script"), "--quiet", "--no-vtk", "--link-model"]) == 0
    assert keys <= set(read(tmp_path / "script")["links"]["beam"])
