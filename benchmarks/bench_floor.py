"""The headline study's floor alone: assembling K and M and factorizing the supported K of every link (paper 004,
studies/loading_unloading_6dof.py), as benchmarks/_study.py measures it after a run, without the run.

    python benchmarks/bench_floor.py [--json FILE] [--summary DIR]

With ``--summary DIR`` (a results folder of the same study) it also gives that run's time over the floor: its
``timings_s`` total plus writing (the run and its writing, without the process start and the study's build) over
the floor, the faster of one link at a time and as many at a time as there are cores.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, ROOT, environment  # noqa: E402
from _study import measure_floor  # noqa: E402


def supports(script) -> dict:
    """link -> the surfaces the per-link basis clamps (its proximal joint; the base's ground)."""
    from structcheck.study import link_loads, prepare, rigid_stage

    study = script.study
    prep = prepare(study)
    loads = link_loads(study, prep, rigid_stage(study, prep, prep.grid.t[:2]))
    return {n: list(ld.support) for n, ld in loads.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=RESULTS / "bench_floor.json")
    ap.add_argument("--summary", type=Path, help="a results folder of the headline study: its run over the floor")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "studies"))
    import loading_unloading_6dof as script

    floor = measure_floor(lambda: script.build().parts, supports(script))
    out = {"environment": environment(), "floor_detail_s": floor, "floor_s": min(floor.values())}
    if args.summary:
        t = json.loads((args.summary / "summary.json").read_text())["timings_s"]
        out["run_and_write_s"] = t["total"] + t.get("write", 0.0)
        out["over_floor"] = out["run_and_write_s"] / out["floor_s"]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=2) + "\n")
    print(json.dumps({k: v for k, v in out.items() if k != "environment"}, indent=1))


if __name__ == "__main__":
    main()
