"""End-to-end timing of the headline study (paper 004): dynamics, FE per link and phase, writing, total.

    python benchmarks/bench_study.py [--out DIR] [--mesh-dir DIR]

Runs the study in this process through _study.run_study (per-link phases: assembly, factorization, unit-load
solves, modes, stress basis, modal response, stress history), prints them with the floor (assembly +
factorization over the links) and writes benchmarks/results/bench_study.json. benchmarks/run.py runs the same in
a fresh process to measure its peak memory too.
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS  # noqa: E402
from _study import run_study  # noqa: E402
from run import study_lines  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="results folder (default: a new temporary folder)")
    ap.add_argument("--mesh-dir", default="", help="the parts' meshes (default: the shipped ones)")
    args = ap.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="bench_study_")) / "run"
    r = run_study(out, args.mesh_dir)
    r["process_wall_s"] = float("nan")  # in-process: not measured
    print("\n".join(study_lines("study", r)))
    print(f"run + write / floor: {r['over_floor']:.2f}; results in {out}")
    t = r["study_timings_s"]
    if "fatigue" in t:  # issue 13's budget: the fatigue stage adds at most half the rest of the run
        print(f"fatigue / rest of the run: {t['fatigue'] / (t['total'] - t['fatigue']):.2f} (budget <= 0.5)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_study.json").write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
