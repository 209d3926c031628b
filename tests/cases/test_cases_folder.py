"""A results folder of several load cases read back and run again (issue 31): `structcheck rerun` of the top folder
gives the same summary.json, envelope and every case's, number for number (a run is deterministic:
tests/study/test_reproducible.py); `structcheck.results.load` of it gives the envelope, the case names and each
case's Results (the same as loading the case's folder), and refuses the robot in motion or a peak sample at the top
level in one line naming the cases."""
import json

import numpy as np
import pytest
from helpers import SMALL_STUDY

from structcheck.cli import main
from structcheck.errors import InputError
from structcheck.results import load

CASES = '''
import dataclasses
from structcheck import Case
study = dataclasses.replace(study, cases=(
    Case("duty"),
    Case("crash", role="accidental", required_safety_factor=0.5, changes={"point_forces": (
        PointForce("tip", 1000.0, (0, 0, -1)),)}),))
'''


def _numbers(folder) -> dict:
    """summary.json without its wall-clock timings."""
    s = json.loads((folder / "summary.json").read_text())
    s.pop("timings_s", None)
    s.get("analysis", {}).pop("arm_timings_s", None)
    return s


@pytest.fixture(scope="module")
def cases_folder(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cases_folder")
    script = tmp / "cases_study.py"
    script.write_text(SMALL_STUDY + CASES)
    out = tmp / "out"
    assert main(["run", str(script), "--out", str(out), "--no-report", "--quiet"]) == 0
    return out


def test_rerun_of_a_cases_folder_gives_the_same_numbers(cases_folder, capsys):
    again = cases_folder.parent / "again"
    assert main(["rerun", str(cases_folder), "--out", str(again), "--no-vtk", "--no-report", "--quiet"]) == 0
    assert "results written to" in capsys.readouterr().out
    assert _numbers(again) == _numbers(cases_folder)
    assert sorted(p.name for p in (again / "cases").iterdir()) == ["crash", "duty"]
    for case in ("duty", "crash"):
        assert _numbers(again / "cases" / case) == _numbers(cases_folder / "cases" / case)


def test_load_gives_the_envelope_and_each_case(cases_folder):
    res = load(cases_folder)
    assert res.case_names == ["duty", "crash"]
    crash = res.case("crash")
    alone = load(cases_folder / "cases" / "crash")
    assert crash.summary == alone.summary and np.array_equal(crash.times, alone.times)
    # the crash (1000 N) governs: the envelope's peak is its peak, its field the crash case's envelope field
    assert res.summary.links["beam"].governing_case == "crash"
    env = res.envelope("beam")
    assert np.array_equal(env.point_data["von_mises"], crash.envelope("beam").point_data["von_mises"])
    assert set(np.unique(env.point_data["governing_case"])) <= {0, 1}
    assert crash.peak("beam").point_data["von_mises"].max() == pytest.approx(
        crash.summary.links["beam"].max_von_mises_pa, rel=1e-12)
    assert len(crash.frame(0.0)) == 1
    for ask in (lambda: res.frame(0.0), lambda: res.peak("beam")):
        with pytest.raises(InputError, match=r"envelope of the load cases \['duty', 'crash'\].*case\('duty'\)"):
            ask()
    with pytest.raises(InputError, match="no load case 'stop'; the cases are"):
        res.case("stop")
    with pytest.raises(InputError, match="study without cases"):
        crash.case("duty")
