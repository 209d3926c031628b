"""The arm model's cost against the per-link model's on the headline study (paper 004; issue 11's budget: the whole
arm run within 2x the per-link run).

    python benchmarks/bench_arm.py [--repeat N] [--no-write] [--json FILE]

Runs studies/loading_unloading_6dof.py with ``flexibility='link'`` then ``'arm'`` (fresh Parts each run: nothing
cached from the run before), ``--repeat`` times alternating, in this process, and times with wall clock
(``time.perf_counter``) and CPU time of the process (``time.process_time``: all its threads) every phase of
``structcheck.study.run`` (dynamics, loads, FE bases, refinement, per-link transient, arm stage, fatigue, writing;
the arm run without the per-link model beside it, the study's default; the links' bases and superelements, which
run in threads, as the run's own ``fe_bases`` in ``study_timings_s``)
and of the arm stage (superelements, transient, recovery of the link histories, tool deflection, mode shapes). The
machine is shared: CPU time is the steadier measure, and both are reported per run with the 1-minute load average;
the ratios use the median over the repeats. Results: benchmarks/results/bench_arm.json.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, ROOT, environment  # noqa: E402

STUDY_PHASES = {  # structcheck.study function -> phase
    "prepare": "dynamics", "rigid_stage": "dynamics", "link_loads": "loads", "refine": "refine",
    "write_results": "write"}
STRUCTURAL_PHASES = {  # structcheck.structural.link / .arm function -> phase
    "link_solution": "fe_transient", "arm_stage": "arm"}
ARM_PHASES = {  # structcheck.flex.stage function -> arm phase
    "reduce_study_links": "superelements", "arm_transient": "transient", "arm_static": "transient",
    "_link_solution": "recovery", "tool_deflection": "tool_deflection", "arm_mode_shapes": "mode_shapes"}


class Clock:
    """Wall and CPU seconds per phase, summed over calls; nested calls of the same table are not double counted
    (the outermost call is timed)."""

    def __init__(self):
        self.wall, self.cpu, self._depth = {}, {}, 0

    def wrap(self, fn, phase):
        @functools.wraps(fn)
        def timed(*args, **kwargs):
            self._depth += 1
            w0, c0 = time.perf_counter(), time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self.wall[phase] = self.wall.get(phase, 0.0) + time.perf_counter() - w0
                    self.cpu[phase] = self.cpu.get(phase, 0.0) + time.process_time() - c0
        return timed


def instrument(module, table: dict, clock: Clock) -> dict:
    """Wrap ``module``'s functions named in ``table``; returns the originals (to restore)."""
    originals = {name: getattr(module, name) for name in table if hasattr(module, name)}
    for name, fn in originals.items():
        setattr(module, name, clock.wrap(fn, table[name]))
    return originals


def run_once(flexibility: str, write: bool) -> dict:
    """One run of the headline study with ``flexibility``; its phase times, totals and peaks."""
    import structcheck.flex.stage as stage
    import structcheck.structural.arm as arm_model
    import structcheck.structural.link as link_model
    import structcheck.study as study_module

    sys.path.insert(0, str(ROOT / "studies"))
    import loading_unloading_6dof as script

    study = script.build(flexibility=flexibility)  # fresh Parts: no K, M or factor cached from the previous run
    clocks, originals = Clock(), []
    arm_clock = Clock()
    originals.append((study_module, instrument(study_module, STUDY_PHASES, clocks)))
    for module in (link_model, arm_model):
        originals.append((module, instrument(module, STRUCTURAL_PHASES, clocks)))
    originals.append((stage, instrument(stage, ARM_PHASES, arm_clock)))
    load0 = os.getloadavg()[0]
    try:
        with tempfile.TemporaryDirectory(prefix="bench_arm_") as tmp:
            w0, c0 = time.perf_counter(), time.process_time()
            result = study_module.run(study, Path(tmp) / "run", progress=False, write=write)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    finally:
        for module, fns in originals:
            for name, fn in fns.items():
                setattr(module, name, fn)
    links = result.summary.links
    return {"flexibility": flexibility, "wall_s": wall, "cpu_s": cpu, "load_1min": [load0, os.getloadavg()[0]],
            "phases_wall_s": clocks.wall, "phases_cpu_s": clocks.cpu,
            "arm_phases_wall_s": arm_clock.wall, "arm_phases_cpu_s": arm_clock.cpu,
            "n_samples": len(result.t), "study_timings_s": result.summary["timings_s"],
            "max_von_mises_pa": {n: v.get("max_von_mises_pa") for n, v in links.items() if isinstance(v, dict)}}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2, help="runs of each model (alternating)")
    ap.add_argument("--no-write", action="store_true", help="do not write the results folders")
    ap.add_argument("--json", type=Path, default=RESULTS / "bench_arm.json")
    args = ap.parse_args(argv)
    runs = []
    for i in range(args.repeat):
        for flexibility in ("link", "arm"):
            r = run_once(flexibility, not args.no_write)
            runs.append(r)
            arm = " ".join(f"{k} {r['arm_phases_wall_s'][k]:.1f}/{r['arm_phases_cpu_s'][k]:.1f}"
                           for k in r["arm_phases_wall_s"])
            print(f"run {i} {flexibility:4s}: wall {r['wall_s']:6.1f} s, CPU {r['cpu_s']:6.1f} s, load "
                  f"{r['load_1min'][0]:.2f}->{r['load_1min'][1]:.2f}" + (f"; arm phases wall/CPU [s]: {arm}"
                                                                         if arm else ""), flush=True)
    med = {f: {k: float(np.median([r[k] for r in runs if r["flexibility"] == f])) for k in ("wall_s", "cpu_s")}
           for f in ("link", "arm")}
    ratio = {k: med["arm"][k] / med["link"][k] for k in ("wall_s", "cpu_s")}
    phases = {}
    for f in ("link", "arm"):
        rs = [r for r in runs if r["flexibility"] == f]
        for key in ("phases_wall_s", "phases_cpu_s", "arm_phases_wall_s", "arm_phases_cpu_s"):
            names = sorted({n for r in rs for n in r[key]})
            if names:
                phases.setdefault(f, {})[key] = {n: float(np.median([r[key].get(n, 0.0) for r in rs]))
                                                 for n in names}
    print("median phases [s]:")
    for f, p in phases.items():
        for key, v in p.items():
            print(f"  {f:4s} {key:18s} " + ", ".join(f"{n} {s:.1f}" for n, s in v.items()))
    print(f"arm / link (median of {args.repeat}): wall {ratio['wall_s']:.2f}, CPU {ratio['cpu_s']:.2f} "
          f"(issue 11's budget: <= 2)")
    out = {"environment": environment(), "write": not args.no_write, "repeat": args.repeat, "median": med,
           "ratio_arm_over_link": ratio, "median_phases": phases, "runs": runs}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=2))
    print(f"written {args.json}")


if __name__ == "__main__":
    main()
