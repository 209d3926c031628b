"""End-to-end timing of the headline study (paper 004): dynamics, FE per link, writing, total.

    python benchmarks/bench_study.py [--out DIR]

Prints the phases and writes benchmarks/results/bench_study.json.
"""
import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "studies"))
    t0 = time.perf_counter()
    import loading_unloading_6dof as s  # noqa: E402

    from structcheck.study import run

    t_build = time.perf_counter() - t0
    out = args.out or tempfile.mkdtemp(prefix="bench_study_")
    t1 = time.perf_counter()
    result = run(s.study, Path(out) / "run", progress=False)
    t_run = time.perf_counter() - t1
    timings = dict(result.summary["timings_s"])
    timings.update(build_study=t_build, run_and_write=t_run,
                   peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    for k, v in timings.items():
        print(f"{k:>24}: {v:9.2f}")
    nodes = result.summary["analysis"]["total_nodes"]
    print(f"{'total P2 nodes':>24}: {nodes}")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "bench_study.json").write_text(json.dumps({"timings_s": timings, "total_nodes": nodes}, indent=2))


if __name__ == "__main__":
    main()
