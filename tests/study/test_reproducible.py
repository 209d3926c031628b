"""Reproducible to the bit: the same study run twice on the same machine, each in a fresh process, writes the
same summary.json (its wall-clock timings aside; the study runs the default arm model), the same CSV tables and the same VTK files, byte for byte.

Fresh processes matter: MKL's threaded PARDISO (the default solver where it installs) orders its reductions
differently from run to run unless its conditional numerical reproducibility is switched on before MKL first
computes, which is what ``structcheck.fe.solvers`` does; a second run inside one process would not test that."""
import json
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from helpers import two_beam_parts, two_beam_robot
from structcheck.study import PointForce, Study, run

study = Study(name="two_beam_repro", robot=two_beam_robot(m2=0.5), parts=two_beam_parts(24, 18), t_end=0.6,
              n_frames=7, motion={{"joint1": "STEP(time,0,0,0.4,30d)", "joint2": "STEP(time,0.1,0,0.5,-45d)"}},
              point_forces=(PointForce("tool", "STEP(time,0.3,0,0.31,40)", (0, 0, -1)),), tool_point="tool",
              n_modes=4, damping_ratio=0.02)
run(study, {out!r}, progress=False, plots=False)
"""


def _run_in_fresh_process(out: Path) -> None:
    code = SCRIPT.format(tests=str(TESTS), out=str(out))
    env = dict(os.environ)
    env.pop("STRUCTCHECK_REPRODUCIBLE", None)  # the default: reproducible
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=600)


def _summary_without_timings(folder: Path) -> dict:
    summary = json.loads((folder / "summary.json").read_text())
    summary.pop("timings_s")
    summary["analysis"].pop("arm_timings_s", None)  # the arm model's phases: wall-clock too
    return summary


def test_same_study_twice_gives_identical_files(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    _run_in_fresh_process(a)
    _run_in_fresh_process(b)
    assert _summary_without_timings(a) == _summary_without_timings(b)
    # and the text itself once the timings are dropped (key order, number formatting)
    assert json.dumps(_summary_without_timings(a)) == json.dumps(_summary_without_timings(b))
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name != "summary.json")
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file() and p.name != "summary.json")
    assert any(f.suffix == ".csv" for f in files) and any(f.suffix == ".vtu" for f in files)
    differing = [str(f) for f in files if (a / f).read_bytes() != (b / f).read_bytes()]
    assert not differing, f"files differ between two identical runs: {differing}"
