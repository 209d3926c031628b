"""The typed run summary (structcheck.results.schema): one tree of dataclasses, written to summary.json in one
place and read back by one function, every field documented with its unit in docs/summary.md."""
import dataclasses
import json
from pathlib import Path

import pytest

from structcheck.errors import InputError
from structcheck.results import read_summary
from structcheck.results.schema import (SCHEMA_VERSION, AnalysisSummary, FatigueSummary, JointSummary, LinkSummary,
                                        RunChecks, RunSummary, markdown, summary_from_json, write_summary)

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = (RunSummary, AnalysisSummary, FatigueSummary, RunChecks, LinkSummary, JointSummary)


def _extras(s: RunSummary) -> dict:
    """Every non-empty ``extra`` in the tree, by where it sits."""
    found = {"": s.extra, "analysis": s.analysis.extra, "checks": s.checks.extra,
             **{f"links.{n}": L.extra for n, L in s.links.items()},
             **{f"joints.{n}": J.extra for n, J in s.joints.items()}}
    if s.fatigue is not None:
        found["fatigue"] = s.fatigue.extra
    return {k: v for k, v in found.items() if v}


def test_docs_page_lists_every_field_with_its_unit():
    assert (ROOT / "docs" / "summary.md").read_text() == markdown()
    for cls in ENTRIES:
        for f in dataclasses.fields(cls):
            if f.name != "extra":
                assert f.metadata["unit"] is not None and f.metadata["doc"].strip(), (cls.__name__, f.name)


def test_the_headline_summary_json_is_the_schema_exactly(paper004_run):
    """Every key the headline run wrote is a schema field (nothing lands in ``extra``), and reading then writing
    gives the same JSON document, key for key."""
    s = read_summary(paper004_run.out)
    assert s.schema_version == SCHEMA_VERSION and _extras(s) == {}
    assert s.to_dict() == paper004_run.summary
    assert s.links["upper_arm"].max_von_mises_pa == paper004_run.summary["links"]["upper_arm"]["max_von_mises_pa"]
    assert s.governing_link in s.links


def test_a_studys_extra_keys_are_kept_where_it_put_them(tmp_path):
    data = {"study": "x", "passed": True, "links": {"a": {"max_von_mises_pa": 1.0, "my_metric": 2}},
            "joints": {"j": {"max_reaction_force_n": 3.0, "max_torque_nm": 4.0}}, "paper": {"table": [1, 2]},
            "schema_version": SCHEMA_VERSION}
    s = summary_from_json(data)
    assert s.extra == {"paper": {"table": [1, 2]}} and s.links["a"].extra == {"my_metric": 2}
    assert s.joints["j"].extra == {"max_torque_nm": 4.0} and s.joints["j"].max_reaction_force_n == 3.0
    write_summary(s, tmp_path / "summary.json")
    back = json.loads((tmp_path / "summary.json").read_text())
    assert back["paper"] == {"table": [1, 2]} and back["links"]["a"]["my_metric"] == 2
    assert back["joints"]["j"]["max_torque_nm"] == 4.0
    assert "max_abs_torque" not in back["joints"]["j"]  # omitted when absent, as the run writes it


def test_nan_and_infinity_are_written_as_null_and_read_as_none(tmp_path):
    s = RunSummary(study="x", passed=True, links={"a": LinkSummary(max_von_mises_pa=float("nan"),
                                                                  min_safety_factor=float("inf"))})
    assert s.links["a"].max_von_mises_pa is None and s.links["a"].min_safety_factor is None
    write_summary(s, tmp_path / "summary.json")
    assert json.loads((tmp_path / "summary.json").read_text())["links"]["a"]["min_safety_factor"] is None


def test_summaries_before_the_schema_version_read_as_version_0_and_newer_ones_are_refused(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "summary.json").write_text(json.dumps({"study": "x", "passed": False, "links": {}}))
    assert read_summary(old).schema_version == 0 and read_summary(old).passed is False
    (old / "summary.json").write_text(json.dumps({"links": {}, "schema_version": SCHEMA_VERSION + 1}))
    with pytest.raises(InputError, match="newer than this structcheck reads.*upgrade structcheck"):
        read_summary(old)
    (old / "summary.json").write_text(json.dumps({"study": "x"}))
    with pytest.raises(InputError, match="no 'links' entry: not a structcheck summary"):
        read_summary(old)
