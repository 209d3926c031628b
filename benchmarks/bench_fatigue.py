"""Timing of the link fatigue (structcheck.fatigue.links.link_fatigue) on the headline study's links (paper 004).

    python benchmarks/bench_fatigue.py [--repeats N] [--reference] [--inputs DIR]

Builds each link's inputs by running the study's stages in this process without writing
(``structcheck.study.run(write=False)``, its ``solution_fatigue`` wrapped to keep the arguments it passes to
link_fatigue; about 3 minutes), then times link_fatigue per link: CPU seconds (``time.process_time``, all threads)
and wall seconds, best and median of ``--repeats`` calls, and prints them with ``n_points_counted`` (element points
whose 6-component history was formed, of ``n_points``). ``--reference`` also times ``screening=False`` (every
block up to the limit counted, the loop before the block screening; about 40 s of CPU) once per link and checks
that every field of the two results is identical. ``--inputs DIR`` keeps the inputs as pickles in DIR (about
2.5 GB) and reuses them on the next run instead of running the study. Writes
benchmarks/results/bench_fatigue.json.
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, ROOT, environment  # noqa: E402

FIELDS = ("damage_per_cycle", "life_cycles", "governing_node", "safety_factor", "governing_history",
          "governing_normal", "n_points")


def study_inputs() -> dict[str, tuple]:
    """Each FE link's link_fatigue arguments (part, basis, coeff, modal, settings, curves) in the headline study."""
    sys.path.insert(0, str(ROOT / "studies"))
    import loading_unloading_6dof as headline

    from structcheck import study as st

    inputs, real = {}, st.solution_fatigue

    def keep(study, prep, sol):
        if sol.name in prep.fatigue:
            inputs[sol.name] = (sol.part, sol.basis, sol.loads.coeff, sol.modal, *prep.fatigue[sol.name])
        return real(study, prep, sol)

    st.solution_fatigue = keep
    try:
        st.run(headline.study, write=False, progress=False)
    finally:
        st.solution_fatigue = real
    return inputs


def cached_inputs(folder: Path | None) -> dict[str, tuple]:
    if folder is not None and (folder / "links.txt").exists():
        names = (folder / "links.txt").read_text().split()
        return {n: pickle.loads((folder / f"{n}.pkl").read_bytes()) for n in names}
    inputs = study_inputs()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for n, args in inputs.items():
            (folder / f"{n}.pkl").write_bytes(pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL))
        (folder / "links.txt").write_text("\n".join(inputs))
    return inputs


def timed(fn, repeats: int):
    """(result, CPU seconds per call (best, median), wall seconds per call (best, median))."""
    cpu, wall = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return out, (min(cpu), float(np.median(cpu))), (min(wall), float(np.median(wall)))


def differences(a, b) -> list[str]:
    """Names of the LinkFatigue fields (besides n_points_counted) that are not identical."""
    bad = []
    for f in FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        same = (x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))
        bad += [] if same else [f]
    ca, cb = a.governing_cycles, b.governing_cycles
    for f in ("range", "mean", "count"):
        if (ca is None) != (cb is None) or (ca is not None and not np.array_equal(getattr(ca, f), getattr(cb, f))):
            bad.append(f"governing_cycles.{f}")
    if (a.curve is None) != (b.curve is None) or (a.curve is not None and a.curve.name != b.curve.name):
        bad.append("curve")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed calls per link (default 3)")
    ap.add_argument("--reference", action="store_true", help="also time screening=False and compare the results")
    ap.add_argument("--inputs", type=Path, default=None, help="folder to keep / reuse the inputs (pickles)")
    args = ap.parse_args()
    from structcheck.fatigue.links import link_fatigue

    t0 = time.perf_counter()
    inputs = cached_inputs(args.inputs)
    print(f"inputs of {len(inputs)} links in {time.perf_counter() - t0:.0f} s")
    rows = {}
    for name, a in inputs.items():
        r, cpu, wall = timed(lambda: link_fatigue(*a, link=name), args.repeats)
        row = {"cpu_s": cpu[0], "cpu_median_s": cpu[1], "wall_s": wall[0], "wall_median_s": wall[1],
               "n_points_counted": r.n_points_counted, "n_points": r.n_points, "n_t": len(a[2]),
               "safety_factor": r.safety_factor, "min_life_cycles": r.min_life_cycles}
        line = (f"{name:11s} cpu {cpu[0]:6.2f} s (median {cpu[1]:6.2f})  wall {wall[0]:6.2f} s  "
                f"counted {r.n_points_counted:6d} of {r.n_points:7d}")
        if args.reference:
            full, rcpu, rwall = timed(lambda: link_fatigue(*a, link=name, screening=False), 1)
            bad = differences(r, full)
            row.update(reference_cpu_s=rcpu[0], reference_wall_s=rwall[0],
                       reference_n_points_counted=full.n_points_counted, identical=not bad, differences=bad)
            line += (f" | every block: cpu {rcpu[0]:6.2f} s counted {full.n_points_counted:6d} "
                     f"{'identical' if not bad else 'DIFFERENT: ' + ', '.join(bad)}")
        rows[name] = row
        print(line, flush=True)
    total = {k: sum(r[k] for r in rows.values()) for k in ("cpu_s", "wall_s")}
    summary = f"total cpu {total['cpu_s']:.2f} s, wall {total['wall_s']:.2f} s"
    if args.reference:
        total.update({k: sum(r[k] for r in rows.values()) for k in ("reference_cpu_s", "reference_wall_s")})
        total["identical"] = all(r["identical"] for r in rows.values())
        summary += (f"; every block counted: cpu {total['reference_cpu_s']:.2f} s, wall "
                    f"{total['reference_wall_s']:.2f} s (cpu x{total['reference_cpu_s'] / total['cpu_s']:.1f}); "
                    f"results {'identical' if total['identical'] else 'DIFFERENT'}")
    print(summary)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_fatigue.json").write_text(json.dumps(
        {"links": rows, "total": total, "repeats": args.repeats, "environment": environment()}, indent=2))


if __name__ == "__main__":
    main()
