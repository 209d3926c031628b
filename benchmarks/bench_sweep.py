"""Parallel speed-up of `structcheck sweep`: 8 variants of a cantilever study (the tests' tiny study on a finer
mesh, so that each variant's work outweighs a worker's start-up) on 1 and 2 local worker processes and on a Dask
LocalCluster of 2 worker processes.

    python benchmarks/bench_sweep.py [--n-len 80] [--n-side 4] [--variants 8] [--out DIR]

Prints the wall times (pool or cluster start-up included; the cluster's own start timed apart) and the parallel
efficiency t1 / (2 t2), checks that the three give the same sweep.csv, and writes
benchmarks/results/bench_sweep.json. Target: 2 workers take at most 0.6 x the 1-worker time.
"""
import argparse
import json
import math
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def study_script(folder: Path, n_len: int, n_side: int) -> Path:
    """The tests' tiny cantilever study with ``n_len`` x ``n_side`` x ``n_side`` hexahedra split into tets."""
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers import N_LEN, N_SIDE, SMALL_STUDY

    text = SMALL_STUDY.replace(f"np.linspace(0, L, {N_LEN + 1})", f"np.linspace(0, L, {n_len + 1})")
    text = text.replace(f"np.linspace(-H / 2, H / 2, {N_SIDE + 1})", f"np.linspace(-H / 2, H / 2, {n_side + 1})")
    assert text.count(f"{n_side + 1})") >= 2, "the tiny study's mesh lines changed: update this benchmark"
    path = folder / "bench_cantilever.py"
    path.write_text(text)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-len", type=int, default=80, help="cells along the beam (tests' tiny study: 40)")
    ap.add_argument("--n-side", type=int, default=4, help="cells across (tests' tiny study: 2)")
    ap.add_argument("--variants", type=int, default=8)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    from structcheck.sweep import read_sweep_csv, sweep

    root = Path(args.out or tempfile.mkdtemp(prefix="bench_sweep_"))
    root.mkdir(parents=True, exist_ok=True)
    study = study_script(root, args.n_len, args.n_side)
    params = {"tip_force_n": [100.0 * (k + 1) for k in range(args.variants)]}
    times, rows, cpu = {}, {}, {}
    load_before = os.getloadavg()[0]

    def children_cpu():  # CPU seconds of the finished child processes (pool workers, cluster processes)
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    for workers in (1, 2):
        key = f"local_{workers}_workers"
        c0 = children_cpu()
        res = sweep(study, params, root / key, workers=workers, progress=False)
        times[key], rows[key], cpu[key] = res.wall_s, read_sweep_csv(res.csv), children_cpu() - c0
        print(f"{key:>22}: {res.wall_s:7.1f} s wall, {cpu[key]:7.1f} s CPU of the workers", flush=True)
    c0 = children_cpu()
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        times["dask_cluster_start"] = time.perf_counter() - t0
        res = sweep(study, params, root / "dask_2_workers", client.get_executor(pure=False), progress=False)
        times["dask_2_workers"], rows["dask_2_workers"] = res.wall_s, read_sweep_csv(res.csv)
    cpu["dask_2_workers"] = children_cpu() - c0  # cluster start-up and shut-down included
    print(f"{'dask_2_workers':>22}: {times['dask_2_workers']:7.1f} s wall (cluster start "
          f"{times['dask_cluster_start']:.1f} s), {cpu['dask_2_workers']:7.1f} s CPU of the cluster's processes")
    per_variant = [r["run_time_s"] for r in rows["local_1_workers"]]
    # the same to 1e-9: one worker runs BLAS on all the cores, two on one core each, which changes the order of
    # the sums (measured: 3e-12 relative)
    same = all(math.isclose(a[k], b[k], rel_tol=1e-9) if isinstance(a[k], float) else a[k] == b[k]
               for key in rows for a, b in zip(rows[key], rows["local_1_workers"]) for k in a if k != "run_time_s")
    t1 = times["local_1_workers"]
    result = {
        "variants": args.variants, "mesh_cells": [args.n_len, args.n_side, args.n_side],
        "total_nodes": None, "cores": os.cpu_count(), "times_s": times,
        "workers_cpu_s": cpu, "load_average_1min": [load_before, os.getloadavg()[0]],
        "mean_variant_run_time_s_1_worker": sum(per_variant) / len(per_variant),
        "ratio_2_to_1_local": times["local_2_workers"] / t1,
        "efficiency_local_2": t1 / (2 * times["local_2_workers"]),
        "ratio_2_to_1_dask": times["dask_2_workers"] / t1,
        "efficiency_dask_2": t1 / (2 * times["dask_2_workers"]),
        "same_sweep_csv": same, "target_ratio": 0.6,
    }
    from structcheck.results import read_summary

    result["total_nodes"] = read_summary(root / "local_1_workers" / rows["local_1_workers"][0]["variant"]
                                         )["analysis"]["total_nodes"]
    print(f"1-minute load average before / after: {load_before:.1f} / {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores (other processes share them: the wall-time ratio is only meaningful when idle)")
    print(f"mean variant run time (summary.json, 1 worker): {result['mean_variant_run_time_s_1_worker']:.1f} s; "
          f"{result['total_nodes']} P2 nodes")
    print(f"2 local workers: {result['ratio_2_to_1_local']:.2f} x the 1-worker time, efficiency "
          f"{result['efficiency_local_2']:.0%}; Dask 2 workers: {result['ratio_2_to_1_dask']:.2f} x, efficiency "
          f"{result['efficiency_dask_2']:.0%}; same sweep.csv: {same}")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "bench_sweep.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
