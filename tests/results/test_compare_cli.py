"""`structcheck compare` and the CLI's exit codes, on hand-written summary.json files."""
import json

import pytest

from structcheck.cli import main
from structcheck.results.compare import compare


def summary(vm=10e6, sf=5.0, defl=2e-5, passed=True, mass=3.0):
    link = {"material": "6061-O", "mass_kg": mass, "yield_strength_pa": 55.2e6, "max_von_mises_pa": vm,
            "time_of_max_s": 2.0, "location_of_max_m": [0, 0, 0], "max_equivalent_strain": vm / 69e9,
            "max_deformation_m": 1e-5, "min_safety_factor": sf, "passed": passed}
    return {"links": {"upper_arm": link}, "passed": passed, "tool_point_deflection_m": defl,
            "max_von_mises_pa": vm, "max_equivalent_strain": vm / 69e9, "max_deformation_m": 1e-5,
            "required_safety_factor": 1.5}


def write(tmp_path, name, s):
    d = tmp_path / name
    d.mkdir()
    (d / "summary.json").write_text(json.dumps(s))
    return str(d)


def test_identical_results_pass(tmp_path):
    a = write(tmp_path, "a", summary())
    b = write(tmp_path, "b", summary())
    assert main(["compare", a, b]) == 0


def test_higher_stress_regresses_beyond_tolerance(tmp_path, capsys):
    a = write(tmp_path, "a", summary(vm=10e6, sf=5.5))
    b = write(tmp_path, "b", summary(vm=12e6, sf=4.6))
    cmp = compare(a, b, tolerance_pct=5)
    regressed = {d.metric for d in cmp.regressions}
    assert regressed == {"max_von_mises_pa", "max_equivalent_strain", "min_safety_factor"}
    vm = next(d for d in cmp.deltas if d.metric == "max_von_mises_pa")
    assert vm.change_pct == pytest.approx(20.0)
    assert main(["compare", a, b, "--tolerance", "5"]) == 1
    assert "REGRESSED" in capsys.readouterr().out
    # a generous tolerance accepts the same change
    assert main(["compare", a, b, "--tolerance", "25"]) == 0


def test_improvement_is_not_a_regression(tmp_path):
    a = write(tmp_path, "a", summary(vm=12e6, sf=4.6, defl=3e-5))
    b = write(tmp_path, "b", summary(vm=10e6, sf=5.5, defl=2e-5, mass=2.5))
    assert compare(a, b, 0.0).ok


def test_failing_candidate_exits_1_even_without_regression(tmp_path):
    a = write(tmp_path, "a", summary(passed=False))
    b = write(tmp_path, "b", summary(passed=False))
    assert main(["compare", a, b]) == 1


def test_tool_deflection_regression(tmp_path):
    a = write(tmp_path, "a", summary(defl=2e-5))
    b = write(tmp_path, "b", summary(defl=2.5e-5))
    cmp = compare(a, b, 1.0)
    assert [d.metric for d in cmp.regressions] == ["tool_point_deflection_m"]


@pytest.mark.parametrize("problem", ["missing", "no_summary", "bad_json", "other_links"])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, problem):
    a = write(tmp_path, "a", summary())
    if problem == "missing":
        b = str(tmp_path / "nope")
    elif problem == "no_summary":
        (tmp_path / "b").mkdir()
        b = str(tmp_path / "b")
    elif problem == "bad_json":
        (tmp_path / "b").mkdir()
        (tmp_path / "b" / "summary.json").write_text("{not json")
        b = str(tmp_path / "b")
    else:
        s = summary()
        s["links"] = {"forearm": s["links"]["upper_arm"]}
        b = write(tmp_path, "b", s)
    assert main(["compare", a, b]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("structcheck: error:") and "\n" not in err


def test_negative_tolerance_rejected(tmp_path):
    a = write(tmp_path, "a", summary())
    assert main(["compare", a, a, "--tolerance", "-1"]) == 2


def test_usage_errors_exit_2():
    assert main(["frobnicate"]) == 2
    assert main(["run"]) == 2


def test_run_missing_or_malformed_study_exits_2(tmp_path, capsys):
    assert main(["run", str(tmp_path / "missing.py")]) == 2
    bad = tmp_path / "bad.py"
    bad.write_text("this is not python(\n")
    assert main(["run", str(bad), "--out", str(tmp_path / "out")]) == 2
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    assert main(["run", str(empty), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()
    err = capsys.readouterr().err
    assert "defines no `study = Study(...)`" in err


def test_higher_averaged_stress_regresses_and_older_results_without_it_compare(tmp_path):
    """The nodal-averaged peak is gated like the unaveraged one; a baseline written before it existed compares
    without a verdict on it."""
    base, cand = summary(), summary()
    base["links"]["upper_arm"]["max_von_mises_averaged_pa"] = 8e6
    cand["links"]["upper_arm"]["max_von_mises_averaged_pa"] = 9e6
    cmp = compare(write(tmp_path, "a", base), write(tmp_path, "b", cand), tolerance_pct=5)
    avg = next(d for d in cmp.deltas if d.metric == "max_von_mises_averaged_pa")
    assert avg.change_pct == pytest.approx(12.5) and {d.metric for d in cmp.regressions} == {avg.metric}
    cmp = compare(write(tmp_path, "old", summary()), write(tmp_path, "new", cand), tolerance_pct=5)
    avg = next(d for d in cmp.deltas if d.metric == "max_von_mises_averaged_pa")
    assert avg.change_pct is None and not avg.regressed and cmp.ok
