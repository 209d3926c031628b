"""Poses per second of the worst-static-pose search on the headline study's links (paper 004; issue 31 item 3:
10^5 poses in seconds).

    python benchmarks/bench_worst_pose.py [--poses N] [--no-write] [--json FILE]

Builds studies/loading_unloading_6dof.py, each FE link's static unit-load basis (``build_basis(..., n_modes=0)``,
timed once: the factorization is the study's own floor), then for N random poses within the joint limits (seeded)
times with wall clock (``time.perf_counter``) and CPU time (``time.process_time``, all threads): the vectorized
static inverse dynamics (holding torques), the link load coefficients, and each link's exact peak von Mises over
all poses (``fe.response.peak_von_mises``) with the pose that reaches it (``cases.pose.peak_pose``). Results:
benchmarks/results/bench_worst_pose.json. The machine is shared: the 1-minute load average is reported.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, emit  # noqa: E402


def clock():
    return time.perf_counter(), time.process_time()


def since(t0) -> dict:
    w, c = clock()
    return {"wall_s": w - t0[0], "cpu_s": c - t0[1]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--poses", type=int, default=100_000)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args(argv)
    from structcheck.cases import pose
    from structcheck.script import build_study

    study = build_study(ROOT / "studies" / "loading_unloading_6dof.py")
    chain, g, pl = pose.static_model(study, None, None)
    ranges = pose.search_ranges(chain)
    lo, hi = np.array(list(ranges.values())).T
    Q = np.random.default_rng(0).uniform(lo, hi, (args.poses, len(lo)))
    t = clock()
    links = pose.static_links(chain, study.parts, (lo + hi) / 2, g, pl)
    out = {"poses": args.poses, "bases": since(t), "links": {}}
    t = clock()
    pose.holding_torques(chain, Q, g, pl)
    out["holding_torques"] = since(t)
    t = clock()
    coeff = pose.static_coefficients(chain, links, Q, g, pl)
    out["load_coefficients"] = since(t)
    for name, sl in links.items():
        t = clock()
        peak, i = pose.peak_pose(sl.basis, coeff[name])
        out["links"][name] = {"elements": int(sl.basis.S.shape[3]), "columns": int(coeff[name].shape[1]),
                              "peak_mpa": peak / 1e6, "pose_index": i, **since(t)}
    total = out["holding_torques"]["wall_s"] + out["load_coefficients"]["wall_s"] + sum(
        v["wall_s"] for v in out["links"].values())
    out["search_wall_s"] = total
    out["poses_per_s"] = args.poses / total
    emit(out, "bench_worst_pose", not args.no_write, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
