"""What the headline's sign-off cases cost beside the headline's own run (issue 31 item 6: an emergency stop at
every instant of the headline plus its worst-pose search add at most the headline's own run time).

    python benchmarks/bench_signoff.py [--step S] [--points N] [--headline-s S] [--no-write] [--json FILE]

Builds studies/loading_unloading_6dof.py and, with studies/loading_unloading_6dof_signoff.py's stop (category 0,
its brakes, delays and rotors), times with wall clock (``time.perf_counter``) and CPU time (``time.process_time``,
all threads): the headline's own run (``structcheck.run`` into a temporary folder, as ``structcheck run`` writes
it; ``--headline-s`` gives a measured wall time instead), the trigger sweep (a category-0 stop simulated from every
``--step`` of the 10 s motion, default the sign-off's 0.05 s: 201 stops) with the golden-section refinement of the
worst trigger, and the worst-pose search with the part's forces held (``--points`` per joint, default 7: 117,649
poses) split into its holding torques, the links' static bases (one factorization per link) and the links' stress
search. Results: benchmarks/results/bench_signoff.json. The machine is shared: the 1-minute load average is
reported.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, emit  # noqa: E402

sys.path.insert(0, str(ROOT / "studies"))


def clock():
    return time.perf_counter(), time.process_time()


def since(t0) -> dict:
    w, c = clock()
    return {"wall_s": w - t0[0], "cpu_s": c - t0[1]}


def headline_run(study) -> dict:
    import structcheck as sc

    with tempfile.TemporaryDirectory() as tmp:
        t = clock()
        sc.run(study, Path(tmp) / "run", progress=False)
        return since(t)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--step", type=float, default=None, help="trigger spacing [s] (default the sign-off's)")
    ap.add_argument("--points", type=int, default=None, help="pose grid values per joint (default the sign-off's)")
    ap.add_argument("--headline-s", type=float, help="the headline's run wall time [s], measured elsewhere")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args(argv)
    import loading_unloading_6dof_signoff as so

    from structcheck.cases import pose
    from structcheck.cases.stop import golden_max, sweep_triggers
    from structcheck.study import prepare

    step, points = args.step or so.TRIGGER_STEP, args.points or so.POSE_POINTS
    study = so.headline.build()
    out = {"trigger_step_s": step, "pose_points": points}
    out["headline"] = {"wall_s": args.headline_s, "cpu_s": None} if args.headline_s else headline_run(study)
    t = clock()
    prep = prepare(study)
    out["prepare"] = since(t)
    t = clock()
    sweep = sweep_triggers(study, prep, so.STOP, step)
    out["trigger_sweep"] = {"stops": int(len(sweep.triggers)), **since(t)}
    out["trigger_sweep"]["per_stop_wall_s"] = out["trigger_sweep"]["wall_s"] / len(sweep.triggers)
    k = int(np.argmax(sweep.max_distance))
    w = float(sweep.worst_distance[k])
    t = clock()
    t0, d = golden_max(lambda t0: so.stop_at(study, t0, prep, loads=False).stop_distance[k],
                       max(0.0, w - step), min(study.t_end, w + step), so.REFINE_TOL)
    out["refinement"] = {"joint": sweep.joints[k], "grid_trigger_s": w, "refined_trigger_s": t0,
                         "stop_distance_deg": float(np.degrees(max(d, sweep.max_distance[k]))), **since(t)}
    # the worst-pose search, step by step as pose.search does it (with the part's forces held)
    chain, g, pl = pose.static_model(study, None, None)
    ranges = pose.search_ranges(chain)
    held = pose.held_forces(study)
    t = clock()
    pose.search_torques(chain, ranges, points, g, pl, 1, held)
    out["pose_torques"] = since(t)
    home = np.array([chain.tree.joint(j).home for j in ranges])
    q0 = np.clip(home, [lo for lo, _ in ranges.values()], [hi for _, hi in ranges.values()])
    t = clock()
    links = pose.static_links(chain, study.parts, q0, g, pl, held)
    out["pose_static_bases"] = since(t)
    t = clock()
    found = pose.search_stresses(chain, links, ranges, points, g, pl, 1, held)
    out["pose_stresses"] = {"peaks_mpa": {n: w.value / 1e6 for n, w in found.items()}, **since(t)}
    parts = ("prepare", "trigger_sweep", "refinement", "pose_torques", "pose_static_bases", "pose_stresses")
    added = sum(out[p]["wall_s"] for p in parts)
    out["added_wall_s"] = added
    out["ratio_to_headline"] = added / out["headline"]["wall_s"]
    emit(out, "bench_signoff", not args.no_write, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
