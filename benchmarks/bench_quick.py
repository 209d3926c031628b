"""A quick look (``structcheck run --quick``) against the full run of the headline study: wall time and every link's
peak von Mises.

    python benchmarks/bench_quick.py [--full DIR] [--json FILE]

Runs ``structcheck run studies/loading_unloading_6dof.py`` in a child process, once in full (unless ``--full``
names a results folder of it to reuse) and twice with ``--quick`` (the first makes the coarse meshes into the mesh
cache; the second is the quick look as a user runs it again), timing each process's wall clock, and compares each
link's peak von Mises (unaveraged) and the tool-point deflection of the quick run with the full one. Results:
benchmarks/results/bench_quick.json.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, ROOT, environment  # noqa: E402

STUDY = ROOT / "studies" / "loading_unloading_6dof.py"


def timed_run(out: Path, *extra: str) -> float:
    """Wall time [s] of ``structcheck run STUDY --out out --quiet *extra`` in a child process."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "structcheck.cli", "run", str(STUDY), "--out", str(out), "--quiet", *extra],
                   check=False, stdout=subprocess.DEVNULL, env={**os.environ})
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", type=Path, help="a results folder of the full headline run to reuse (not timed)")
    ap.add_argument("--json", type=Path, default=RESULTS / "bench_quick.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        full = args.full or tmp / "full"
        full_s = None if args.full else timed_run(full)
        first_s = timed_run(tmp / "quick1", "--quick")
        quick_s = timed_run(tmp / "quick", "--quick")
        sf, sq = (json.loads((d / "summary.json").read_text()) for d in (full, tmp / "quick"))
    assert sq["quick"] and not sf.get("quick")
    peaks = {n: {"full_mpa": L["max_von_mises_pa"] * 1e-6, "quick_mpa": sq["links"][n]["max_von_mises_pa"] * 1e-6,
                 "change_pct": 100 * (sq["links"][n]["max_von_mises_pa"] / L["max_von_mises_pa"] - 1)}
             for n, L in sf["links"].items()}
    tool = 100 * (sq["tool_point_deflection_m"] / sf["tool_point_deflection_m"] - 1)
    out = {"environment": environment(), "full_wall_s": full_s, "quick_first_wall_s": first_s, "quick_wall_s": quick_s,
           "ratio": quick_s / full_s if full_s else None, "full_nodes": sf["analysis"]["total_nodes"],
           "quick_nodes": sq["analysis"]["total_nodes"], "peaks": peaks, "tool_deflection_change_pct": tool,
           "largest_peak_change_pct": max(abs(p["change_pct"]) for p in peaks.values())}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=2) + "\n")
    print(f"full {full_s and round(full_s, 1)} s, quick {quick_s:.1f} s (first, making its meshes: {first_s:.1f} s), "
          f"ratio {out['ratio'] and round(out['ratio'], 3)}; nodes {out['full_nodes']} -> {out['quick_nodes']}")
    for n, p in peaks.items():
        print(f"  {n:<12} {p['full_mpa']:8.3f} -> {p['quick_mpa']:8.3f} MPa  {p['change_pct']:+6.1f}%")
    print(f"  tool-point deflection {tool:+.1f}%; largest peak change {out['largest_peak_change_pct']:.1f}%")


if __name__ == "__main__":
    main()
