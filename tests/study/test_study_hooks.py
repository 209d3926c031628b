"""A study's own results through its hooks: ``summary_extra`` merged into summary.json (and refused where it would
overwrite the run's own keys), ``write_extra`` writing into the same atomic results folder, a failing hook
reported as an InputError naming the study; the loop-closure residual in every closed chain's checks."""
import json
from dataclasses import replace

import numpy as np
import pytest

from helpers import write_small_study
from structcheck.errors import InputError
from structcheck.results import RunSummary
from structcheck.results.summary import merge_summary
from structcheck.script import load_study
from structcheck.study import run


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return load_study(write_small_study(tmp_path_factory.mktemp("hooks")))


def test_summary_extra_merges_nested_keys_and_write_extra_writes_into_the_folder(tiny, tmp_path):
    def extra(result):
        # computed from the run itself: the tip deflection in mm, a key beside the run's own checks
        return {"checks": {"tip_deflection_mm": 1e3 * float(np.linalg.norm(result.tool_point_deflection, axis=1)
                                                            .max())},
                "paper": {"table": [1, 2]}}

    def files(result, folder):
        (folder / "paper_table.csv").write_text("a,b\n1,2\n")

    res = run(replace(tiny, summary_extra=extra, write_extra=files), tmp_path / "out", progress=False, vtk=False,
              plots=False)
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert s["checks"]["tip_deflection_mm"] == pytest.approx(1e3 * s["tool_point_deflection_m"], rel=1e-15)
    assert "power_balance_rel_error" in s["checks"] and s["paper"] == {"table": [1, 2]}
    assert res.summary.extra["paper"] == {"table": [1, 2]}
    assert (tmp_path / "out" / "paper_table.csv").read_text() == "a,b\n1,2\n"
    assert "loop_closure_residual" not in s["checks"]  # an open tree has no loops to close


def test_summary_extra_may_not_overwrite_what_the_run_computed(tiny, tmp_path):
    bad = replace(tiny, summary_extra=lambda r: {"checks": {"power_balance_rel_error": 0.0}})
    with pytest.raises(InputError, match=r"sets 'checks.power_balance_rel_error', which the run already wrote"):
        run(bad, tmp_path / "out", progress=False, vtk=False, plots=False)
    assert not (tmp_path / "out").exists()  # nothing half-written
    with pytest.raises(InputError, match="must return a mapping"):
        merge_summary(RunSummary(study="s", links={}), [("b", 2)], "s")
    merged = merge_summary(RunSummary(study="s", links={}, parameters={"b": 1}), {"parameters": {"c": 2}, "d": 3}, "s")
    assert merged.parameters == {"b": 1, "c": 2} and merged.extra == {"d": 3}


def test_a_failing_hook_is_reported_with_the_study_and_hook_names(tiny, tmp_path):
    def files(result, folder):
        raise KeyError("table7")

    with pytest.raises(InputError, match=r"study 'tiny_cantilever': its write_extra hook failed: KeyError"):
        run(replace(tiny, write_extra=files), tmp_path / "out", progress=False, vtk=False, plots=False)
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob(".out.partial*"))
