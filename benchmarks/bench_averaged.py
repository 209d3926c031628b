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
    """``fn`` wrapped to add its wall time to ``clock[key]`` when ``select(*args)``."""
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        if select(*args):
            clock[key] = clock.get(key, 0.0) + time.perf_counter() - t0
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
        t0 = time.perf_counter()
        out = respond(part, *args, **kwargs)
        per_link[part.name] = {"respond": time.perf_counter() - t0, **clock}
        return out

    response.respond = respond_timed
    result = run(s.study, progress=False, write=False)
    rows = {}
    print(f"{'link':>12} {'respond s':>10} {'avg basis s':>12} {'avg hist s':>11} {'avg share':>10}")
    for name, c in per_link.items():
        extra = c.get("averaged_basis", 0.0) + c.get("averaged_history", 0.0)
        rows[name] = {**c, "share_of_respond": extra / c["respond"]}
        print(f"{name:>12} {c['respond']:10.3f} {c.get('averaged_basis', 0):12.3f} {c.get('averaged_history', 0):11.3f}"
              f" {100 * extra / c['respond']:9.1f}%")
    total = sum(c["respond"] for c in per_link.values())
    extra = sum(c.get("averaged_basis", 0.0) + c.get("averaged_history", 0.0) for c in per_link.values())
    print(f"{'all':>12} {total:10.3f} {'':>12} {extra:11.3f} {100 * extra / total:9.1f}%   "
          f"(study total {result.summary['timings_s']['total']:.2f} s, "
          f"{result.summary['analysis']['n_time_samples']} samples)")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "bench_averaged.json").write_text(json.dumps(
        {"links": rows, "respond_s": total, "averaged_s": extra, "study_total_s": result.summary["timings_s"]["total"]},
        indent=2))


if __name__ == "__main__":
    main()
