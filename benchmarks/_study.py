"""The headline study (paper 004, studies/loading_unloading_6dof.py) run once with per-link phase timings.

    python benchmarks/_study.py --json FILE [--mesh-dir DIR] [--out DIR]

run.py starts this in a fresh process so that the process's peak resident memory (``ru_maxrss``, reported here at
the end) is the study's alone. The phases of each link are timed by wrapping the functions that
``structcheck.study.run`` calls (``structcheck.fe.response``: build_basis with its own phase clock, then
modal_coefficients, respond, peak_von_mises, ringing_samples); the wrappers add two clock reads per call. Phases
per link [s]: assembly_K, assembly_M, factorization, unit_solves, modes, stress_basis, modal_response (the exact
modal integration), stress_history (stress and deformation history reduced to peaks and envelopes), plus
quasi_static_peak and ringing_samples (the links run in threads, two at a time on two cores, so these overlap).
The floor of the study is the unavoidable work: assembling K and M and factorizing the supported K of every link,
measured after the run on parts read anew, once a link at a time (MKL on every core) and once as the study runs
the links (``structcheck.pool.map_in_threads``); the faster counts. ``run_and_write_s`` is
``structcheck.study.run`` with every output written. ``cpu_s``: the CPU
seconds (all threads) of that run, of its fatigue stage and of its writing, which a shared machine's load
changes much less than their wall times.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT



def _cpu(who=resource.RUSAGE_SELF) -> float:
    """CPU seconds so far of this process (all its threads), or with ``resource.RUSAGE_THREAD`` of the calling
    thread."""
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def _instrument_cpu(cpu: dict) -> None:
    """Wrap each link's fatigue (run in the structural stage's threads: the calling thread's CPU seconds) and the
    writing of the results (all threads), as ``structcheck.study`` calls them, so that their CPU seconds land in
    cpu["fatigue"] and cpu["write"]: on a shared machine their wall times follow the other processes' load, their
    CPU times much less."""
    import structcheck.study as study

    def timed(fn, name, who):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            c0 = _cpu(who)
            try:
                return fn(*args, **kwargs)
            finally:
                cpu[name] = cpu.get(name, 0.0) + _cpu(who) - c0
        return wrapper

    study.solution_fatigue = timed(study.solution_fatigue, "fatigue", resource.RUSAGE_THREAD)
    study.write_results = timed(study.write_results, "write", resource.RUSAGE_SELF)


def _instrument(phases: dict) -> None:
    """Wrap the FE functions the study calls so that each call's time lands in phases[link][name]."""
    from structcheck.fe import response as fe

    names = {}  # id(basis) -> link name

    def timed(fn, name, link_of):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            out = fn(*args, **kwargs)
            link = phases.setdefault(link_of(args, out), {})
            link[name] = link.get(name, 0.0) + time.perf_counter() - t0
            return out
        return wrapper

    build = fe.build_basis

    @functools.wraps(build)
    def build_basis(part, F, fixed, n_modes, timings=None, **options):
        SUPPORTS[part.name] = list(fixed)
        link = phases.setdefault(part.name, {})
        basis = build(part, F, fixed, n_modes, timings=link, **options)
        names[id(basis)] = part.name
        return basis

    fe.build_basis = build_basis
    fe.modal_coefficients = timed(fe.modal_coefficients, "modal_response", lambda a, o: names[id(a[0])])
    fe.respond = timed(fe.respond, "stress_history", lambda a, o: a[0].name)
    fe.peak_von_mises = timed(fe.peak_von_mises, "quasi_static_peak", lambda a, o: names[id(a[0])])
    fe.ringing_samples = timed(fe.ringing_samples, "ringing_samples", lambda a, o: names[id(a[0])])


SUPPORTS: dict = {}  # link -> the surfaces the run clamped it on (recorded by _instrument)


def measure_floor(make_parts, supports: dict) -> dict:
    """Wall time [s] of assembling K and M and factorizing the supported K of every link of ``make_parts()`` (a
    new link -> Part dict, not yet assembled: Part caches K) clamped on ``supports`` (link -> surface names):
    {"sequential": one link at a time, "threaded": as the study runs them (``map_in_threads``)}."""
    from structcheck.fe.solvers import factorize
    from structcheck.fe.supports import submatrix
    from structcheck.pool import map_in_threads

    def work(part):
        K = part.stiffness
        part.mass_matrix  # noqa: B018 (assembled, as the study assembles it)
        factorize(submatrix(K, part.free_dofs(supports[part.name])))

    out = {}
    for way in ("sequential", "threaded"):
        parts = [p for n, p in make_parts().items() if n in supports]
        t0 = time.perf_counter()
        if way == "sequential":
            for part in parts:
                work(part)
        else:
            map_in_threads(work, parts, weight=lambda p: p.n_dofs)
        out[way] = time.perf_counter() - t0
    return out


def run_study(out: Path, mesh_dir: str = "") -> dict:
    """Build and run the paper-004 study into ``out`` (meshes from ``mesh_dir`` if given); the timings."""
    sys.path.insert(0, str(ROOT / "studies"))
    t0 = time.perf_counter()
    import loading_unloading_6dof as script

    from structcheck.results import read_summary
    from structcheck.study import run

    study = script.build(mesh_dir=mesh_dir) if mesh_dir else script.study
    t_build = time.perf_counter() - t0
    phases: dict = {}
    cpu: dict = {}
    _instrument(phases)
    _instrument_cpu(cpu)
    t1, c1 = time.perf_counter(), _cpu()
    result = run(study, out, progress=False)
    t_run = time.perf_counter() - t1
    cpu["run_and_write"] = _cpu() - c1
    summary = read_summary(out)  # with the writing time
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the run's, before the floor's
    results_mb = sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) / 1e6
    build = (lambda: script.build(mesh_dir=mesh_dir).parts) if mesh_dir else (lambda: script.build().parts)
    floor_detail = measure_floor(build, SUPPORTS)
    floor = min(floor_detail.values())
    return {
        "build_s": t_build, "run_and_write_s": t_run, "floor_s": floor, "floor_detail_s": floor_detail,
        "over_floor": t_run / floor,
        "phases_s": phases, "study_timings_s": summary.timings_s, "cpu_s": cpu,
        "load_average_1min": os.getloadavg()[0],
        "total_nodes": summary.analysis.total_nodes, "dofs": 3 * summary.analysis.total_nodes,
        "n_samples": len(result.t), "n_links": len(study.parts),
        "max_von_mises_mpa": {n: v.max_von_mises_pa / 1e6 for n, v in summary.links.items()},
        "peak_rss_mb": peak_rss_mb, "results_mb": results_mb,
        "mesh_dir": mesh_dir or str(ROOT / "meshes" / "paper004"),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, required=True, help="where to write the timings")
    ap.add_argument("--mesh-dir", default="", help="the parts' meshes (default: the shipped ones)")
    ap.add_argument("--out", type=Path, default=None, help="results folder (default: a temporary one, removed)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_study_") as tmp:
        r = run_study(args.out or Path(tmp) / "run", args.mesh_dir)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(r, indent=2))


if __name__ == "__main__":
    main()
