"""Parallel speed-up of `structcheck sweep`: 8 variants of a real study (benchmarks/sweep_study.py: a two-link arm
swinging a payload, 10 modes per link, fatigue and plots; about 5 s per variant on one core) on 1 and 2 local
worker processes and on a Dask LocalCluster of 2 worker processes.

    python benchmarks/bench_sweep.py [--payloads 1,2,3,4] [--sections 18,22] [--n-len 40] [--out DIR]
                                     [--no-single-thread]

The 1-worker pool gives its worker every core's BLAS/MKL threads (what a sweep on one worker does), so the
2-worker ratio is against an already partly threaded run; the 1-worker run with one thread per worker (the
environment's OMP/OPENBLAS/MKL_NUM_THREADS = 1) separates the processes' scaling from the threads'. Prints the
wall times (pool or cluster start-up included; the cluster's own start timed apart), the workers' CPU seconds,
the 1-minute load average before and after each run (other processes share the cores: a wall-time ratio means
little under load) and the parallel efficiency t1 / (2 t2); checks that every run gives the same sweep.csv;
writes benchmarks/results/bench_sweep.json. Target: 2 workers take at most 0.6 x the 1-worker time.
"""
import argparse
import json
import math
import os
import resource
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "benchmarks" / "sweep_study.py"


def numbers(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def children_cpu() -> float:
    """CPU seconds of the finished child processes (pool workers, cluster processes)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_sweep(key, params, root, times, rows, cpu, loads, **kwargs):
    """One sweep into root/key: its wall time, the sweep.csv rows, the children's CPU and the load averages."""
    from structcheck.sweep import read_sweep_csv, sweep

    c0, l0 = children_cpu(), os.getloadavg()[0]
    res = sweep(STUDY, params, root / key, progress=False, **kwargs)
    times[key], rows[key], cpu[key] = res.wall_s, read_sweep_csv(res.csv), children_cpu() - c0
    loads[key] = [l0, os.getloadavg()[0]]
    failed = [r["error"] for r in rows[key] if r["status"] != "ran"]
    assert not failed, f"{key}: variants did not run: {failed}"
    print(f"{key:>24}: {res.wall_s:7.1f} s wall, {cpu[key]:7.1f} s CPU of the workers, load "
          f"{l0:.1f} -> {loads[key][1]:.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--payloads", type=numbers, default=[1.0, 2.0, 3.0, 4.0], help="payload_kg values")
    ap.add_argument("--sections", type=numbers, default=[18.0, 22.0], help="section_mm values")
    ap.add_argument("--n-len", type=int, default=40, help="cells along link1 (the mesh size)")
    ap.add_argument("--out", default=None, help="results folder (default: a new temporary folder)")
    ap.add_argument("--no-single-thread", action="store_true", help="skip the 1-worker, 1-thread run")
    args = ap.parse_args()
    import tempfile

    from distributed import Client, LocalCluster

    root = Path(args.out or tempfile.mkdtemp(prefix="bench_sweep_"))
    root.mkdir(parents=True, exist_ok=True)
    params = {"payload_kg": args.payloads, "section_mm": args.sections, "n_len": [args.n_len]}
    n_variants = len(args.payloads) * len(args.sections)
    times, rows, cpu, loads = {}, {}, {}, {}
    timed_sweep("local_1_workers", params, root, times, rows, cpu, loads, workers=1)
    timed_sweep("local_2_workers", params, root, times, rows, cpu, loads, workers=2)
    if not args.no_single_thread:  # the spawned worker inherits these; the pool's own limit yields to them
        saved = {v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
        os.environ.update({v: "1" for v in saved})
        try:
            timed_sweep("local_1_workers_1_thread", params, root, times, rows, cpu, loads, workers=1)
        finally:
            for v, old in saved.items():
                os.environ.pop(v) if old is None else os.environ.__setitem__(v, old)
    c0, l0 = children_cpu(), os.getloadavg()[0]
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        times["dask_cluster_start"] = time.perf_counter() - t0
        from structcheck.sweep import read_sweep_csv, sweep

        res = sweep(STUDY, params, root / "dask_2_workers", client.get_executor(pure=False), progress=False)
        times["dask_2_workers"], rows["dask_2_workers"] = res.wall_s, read_sweep_csv(res.csv)
    cpu["dask_2_workers"] = children_cpu() - c0  # cluster start-up and shut-down included
    loads["dask_2_workers"] = [l0, os.getloadavg()[0]]
    print(f"{'dask_2_workers':>24}: {times['dask_2_workers']:7.1f} s wall (cluster start "
          f"{times['dask_cluster_start']:.1f} s), {cpu['dask_2_workers']:7.1f} s CPU of the cluster's processes, "
          f"load {l0:.1f} -> {loads['dask_2_workers'][1]:.1f}")
    base = rows["local_1_workers"]
    per_variant = [r["run_time_s"] for r in base]
    # the same to 1e-9: one worker runs BLAS on all the cores, two on one core each, which changes the order of
    # the sums (measured: 3e-12 relative)
    same = all(math.isclose(a[k], b[k], rel_tol=1e-9) if isinstance(a[k], float) else a[k] == b[k]
               for key in rows for a, b in zip(rows[key], base) for k in a if k != "run_time_s")
    t1 = times["local_1_workers"]
    result = {
        "study": str(STUDY.relative_to(ROOT)), "parameters": params, "variants": n_variants,
        "total_nodes": None, "cores": os.cpu_count(), "times_s": times, "workers_cpu_s": cpu,
        "load_average_1min": loads, "mean_variant_run_time_s_1_worker": sum(per_variant) / len(per_variant),
        "ratio_2_to_1_local": times["local_2_workers"] / t1,
        "efficiency_local_2": t1 / (2 * times["local_2_workers"]),
        "ratio_2_to_1_dask": times["dask_2_workers"] / t1,
        "efficiency_dask_2": t1 / (2 * times["dask_2_workers"]),
        "same_sweep_csv": same, "target_ratio": 0.6,
        # the work the parallel runs add (process start-up, imports, the cluster's own processes), independent
        # of how busy the machine is: their workers' CPU seconds over the 1-worker run's
        "cpu_ratio_2_to_1_local": cpu["local_2_workers"] / cpu["local_1_workers"],
        "cpu_ratio_2_to_1_dask": cpu["dask_2_workers"] / cpu["local_1_workers"],
    }
    if "local_1_workers_1_thread" in times:
        result["ratio_2_to_1_local_single_thread"] = times["local_2_workers"] / times["local_1_workers_1_thread"]
    from structcheck.results import read_summary

    result["total_nodes"] = read_summary(root / "local_1_workers" / base[0]["variant"]).analysis.total_nodes
    print(f"{n_variants} variants of {STUDY.name}, {result['total_nodes']} P2 nodes each; mean variant run time "
          f"(summary.json, 1 worker): {result['mean_variant_run_time_s_1_worker']:.1f} s; {os.cpu_count()} cores "
          f"(other processes share them: the wall-time ratio is only meaningful when idle)")
    line = (f"2 local workers: {result['ratio_2_to_1_local']:.2f} x the 1-worker time (efficiency "
            f"{result['efficiency_local_2']:.0%})")
    if "ratio_2_to_1_local_single_thread" in result:
        line += f", {result['ratio_2_to_1_local_single_thread']:.2f} x the 1-worker 1-thread time"
    print(f"{line}; Dask 2 workers: {result['ratio_2_to_1_dask']:.2f} x (efficiency "
          f"{result['efficiency_dask_2']:.0%}); same sweep.csv: {same}")
    print(f"CPU seconds of the workers against the 1-worker run: 2 local workers "
          f"{result['cpu_ratio_2_to_1_local']:.2f} x, Dask {result['cpu_ratio_2_to_1_dask']:.2f} x")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "bench_sweep.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
