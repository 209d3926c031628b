"""Cost of the nodal-averaged peaks on the headline study (paper 004): per link, the time of the whole stress and
deformation history (``fe.response.respond``) and, inside it, of the averaged stress basis and the averaged von
Mises history, with their share.

    python benchmarks/bench_averaged.py

Runs the study without writing files; prints a table and writes benchmarks/results/bench_averaged.json.
"""
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(fn, clock, key, select=lambda *a: True):
    """``fn`` wrapped to add its wall time to ``clock[key]`` and its CPU time (all threads of the process) to
    ``clock[key + "_cpu"]`` when ``select(*args)``."""
    def wrapper(*args, **kwargs):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn(*args, **kwargs)
        if select(*args):
            clock[key] = clock.get(key, 0.0) + time.perf_counter() - t0
            clock[key + "_cpu"] = clock.get(key + "_cpu", 0.0) + time.process_time() - c0
        return out
    return wrapper


def main():
    sys.path.insert(0, str(ROOT / "studies"))
    import loading_unloading_6dof as s  # noqa: E402

    from structcheck.fe import response
    from structcheck.study import run

    per_link, clock = {}, {}
    respond = response.respond
    response.averaged_stress_basis = timed(response.averaged_stress_basis, clock, "averaged_basis")
    # the averaged history is the node history of the 5 von Mises coordinates (displacements have 3)
    response._node_history = timed(response._node_history, clock, "averaged_history", lambda D, *a: D.shape[1] == 5)

    def respond_timed(part, *args, **kwargs):
        clock.clear()
        t0, c0 = time.perf_counter(), time.process_time()
        out = respond(part, *args, **kwargs)
        per_link[part.name] = {"respond": time.perf_counter() - t0, "respond_cpu": time.process_time() - c0, **clock}
        return out

    response.respond = respond_timed
    result = run(s.study, progress=False, write=False)
    rows = {}
    print("wall time [s] (CPU time of all threads [s]); share: of respond's wall (CPU) time")
    print(f"{'link':>12} {'respond':>15} {'averaged basis':>15} {'averaged history':>17} {'share':>13}")
    sums = dict.fromkeys(("respond", "respond_cpu", "extra", "extra_cpu"), 0.0)
    for name, c in per_link.items():
        extra = c.get("averaged_basis", 0.0) + c.get("averaged_history", 0.0)
        extra_cpu = c.get("averaged_basis_cpu", 0.0) + c.get("averaged_history_cpu", 0.0)
        rows[name] = {**c, "share_of_respond": extra / c["respond"],
                      "cpu_share_of_respond": extra_cpu / c["respond_cpu"]}
        for k, v in (("respond", c["respond"]), ("respond_cpu", c["respond_cpu"]), ("extra", extra),
                     ("extra_cpu", extra_cpu)):
            sums[k] += v
        print(f"{name:>12} {c['respond']:6.2f} ({c['respond_cpu']:6.2f}) "
              f"{c.get('averaged_basis', 0):6.2f} ({c.get('averaged_basis_cpu', 0):6.2f}) "
              f"{c.get('averaged_history', 0):7.2f} ({c.get('averaged_history_cpu', 0):6.2f}) "
              f"{100 * extra / c['respond']:4.1f}% ({100 * extra_cpu / c['respond_cpu']:4.1f}%)")
    print(f"{'all':>12} {sums['respond']:6.2f} ({sums['respond_cpu']:6.2f}) averaged {sums['extra']:.2f} "
          f"({sums['extra_cpu']:.2f}): {100 * sums['extra'] / sums['respond']:.1f}% "
          f"({100 * sums['extra_cpu'] / sums['respond_cpu']:.1f}%) of respond; study total "
          f"{result.summary.timings_s['total']:.2f} s, {result.summary.analysis.n_time_samples} samples")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "bench_averaged.json").write_text(json.dumps(
        {"links": rows, **{k + "_s": v for k, v in sums.items()},
         "study_total_s": result.summary.timings_s["total"]}, indent=2))


if __name__ == "__main__":
    main()
