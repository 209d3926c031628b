"""Speed and scale in one run: batch inverse dynamics, the headline study against its floor, the fast transient
path against Newmark, and a refined headline study of at least 500,000 DOF.

    python benchmarks/run.py [--json FILE] [--skip-refined] [--size-factor 0.94] [--rnea-samples 10000]

1. Inverse dynamics per sample (_rnea.py): our vectorized RNEA with all joint reaction wrenches on paper 004's
   6-DOF arm and on the MG400 closed chain (paper 002), 10,000 samples, against Pinocchio's per-sample
   ``pin.rnea`` loop when ``pinocchio`` is installed (``pip install -e .[bench]``); torques checked to agree to
   1e-9 relative before timing.
2. The headline study (paper 004, studies/loading_unloading_6dof.py) in a fresh process (_study.py): every link's
   phases, the run's wall time with all outputs written, its floor (assembling K and M and factorizing the
   supported K of every link, measured alone after the run, the faster of one link at a time and as many at a
   time as there are cores), their ratio, the process's peak resident memory and the results folder's size [MB].
3. The fast transient path (mode acceleration) against direct Newmark on the upper arm (_modal.py): speed-up and
   the relative difference of the peak von Mises.
4. The headline study on meshes refined by ``--size-factor`` (meshes/make_paper004_meshes.py, generated once into
   benchmarks/results/, never over the shipped meshes) to at least 500,000 DOF (3 x the P2 nodes summed over the
   links; the factor shrinks by 5% until it does), in a fresh process: wall time and peak resident memory.
   ``--skip-refined`` leaves it out (its keys are then null).

Prints the measurements beside the targets of issues 11 and 21 and writes JSON (default benchmarks/results/run.json)
with the keys of ``KEYS`` plus the details under ``detail``. The machine may be shared: the 1-minute load average
is recorded before each part; timings are wall-clock (``time.perf_counter``).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import RESULTS, ROOT, environment, p2_dofs  # noqa: E402

KEYS = ("rnea_us_per_sample", "study_seconds", "study_floor_seconds", "study_over_floor", "study_peak_rss_mb",
        "refined_study_dofs", "refined_study_seconds", "refined_study_peak_rss_mb", "modal_vs_newmark_speedup",
        "modal_vs_newmark_peak_rel_diff", "study_results_mb")
MIN_REFINED_DOFS = 500_000
# issue 11's targets, with issue 21's for the headline against its floor and its peak memory: key -> (comparison,
# bound, how it reads)
TARGETS = {
    "rnea_us_per_sample": ("<=", 1.5, "<= 1.5 us"),
    "study_seconds": ("<", 12.0, "< 12 s"),
    "study_over_floor": ("<=", 4.0, "<= 4 x floor"),
    "study_peak_rss_mb": ("<=", 3072.0, "<= 3 GB"),
    "refined_study_dofs": (">=", MIN_REFINED_DOFS, ">= 500,000"),
    "refined_study_seconds": ("<", 180.0, "< 180 s"),
    "refined_study_peak_rss_mb": ("<", 8192.0, "< 8 GB"),
    "modal_vs_newmark_speedup": (">=", 20.0, ">= 20 x"),
    "modal_vs_newmark_peak_rel_diff": ("<=", 0.01, "<= 1%"),
    "study_results_mb": ("<", 150.0, "< 150 MB"),
}


def parse(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=RESULTS / "run.json", help="where to write the results")
    ap.add_argument("--skip-refined", action="store_true", help="leave out the refined (>= 500k DOF) study")
    ap.add_argument("--size-factor", type=float, default=0.94,
                    help="mesh-size factor of the refined study's meshes (default 0.94: about 515k DOF, curved meshes)")
    ap.add_argument("--rnea-samples", type=int, default=10_000, help="samples of the inverse-dynamics benchmark")
    return ap.parse_args(argv)


# ---------------------------------------------------------------------------------------------- parts
def study_in_subprocess(mesh_dir: str = "") -> dict:
    """_study.py in a fresh Python process; its timings, with ``process_wall_s`` (interpreter start and imports
    included) added."""
    with tempfile.TemporaryDirectory(prefix="bench_run_") as tmp:
        out = Path(tmp) / "study.json"
        cmd = [sys.executable, str(HERE / "_study.py"), "--json", str(out)] + (["--mesh-dir", mesh_dir] if mesh_dir
                                                                             else [])
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, cwd=ROOT)
        wall = time.perf_counter() - t0
        r = json.loads(out.read_text())
    r["process_wall_s"] = wall
    return r


def refined_meshes(size_factor: float) -> tuple[Path, int, float]:
    """The paper-004 meshes at ``size_factor`` (shrunk by 5% until they have >= MIN_REFINED_DOFS), generated once
    into benchmarks/results/ (keyed by the factor and the mesh script's cache key); (folder, DOF, factor)."""
    sys.path.insert(0, str(ROOT / "meshes"))
    import make_paper004_meshes as meshes

    for _ in range(8):
        folder = RESULTS / f"paper004_meshes_sf{size_factor:.4g}_{meshes.mesh_cache_key()}"
        if not all((folder / f"{n}.msh").is_file() for n in meshes.PARTS):
            RESULTS.mkdir(parents=True, exist_ok=True)  # a fresh clone has no benchmarks/results/ yet
            tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=RESULTS))
            meshes.build_meshes(tmp, size_factor=size_factor, verbose=False)
            shutil.rmtree(folder, ignore_errors=True)
            tmp.replace(folder)
        dofs = sum(p2_dofs(folder / f"{n}.msh") for n in meshes.PARTS)
        if dofs >= MIN_REFINED_DOFS:
            return folder, dofs, size_factor
        size_factor *= 0.95
    raise RuntimeError(f"no size factor down to {size_factor:.3g} gave {MIN_REFINED_DOFS} DOF")


def measure(args) -> dict:
    """Every part's detailed results (see the module docstring)."""
    import _modal
    import _rnea

    detail = {"environment": environment(), "load_average_1min": {}}

    def part(name, fn, *a):
        detail["load_average_1min"][name] = os.getloadavg()[0]
        print(f"[{time.strftime('%H:%M:%S')}] {name} ...", flush=True)
        detail[name] = fn(*a)

    part("rnea", _rnea.rnea_benchmark, args.rnea_samples)
    part("study", study_in_subprocess)
    part("modal_vs_newmark", _modal.modal_vs_newmark)
    if not args.skip_refined:
        t0 = time.perf_counter()
        folder, dofs, factor = refined_meshes(args.size_factor)
        print(f"refined meshes: {folder} ({dofs:,} DOF, size factor {factor:.4g}, "
              f"{time.perf_counter() - t0:.1f} s to make or find)", flush=True)
        part("refined_study", study_in_subprocess, str(folder))
        detail["refined_study"].update(size_factor=factor, mesh_dofs=dofs, mesh_folder=str(folder))
    return detail


def headline(detail: dict) -> dict:
    """The keys of ``KEYS`` from the details (refined keys None when it was skipped)."""
    s, m, r = detail["study"], detail["modal_vs_newmark"], detail.get("refined_study")
    return {
        "rnea_us_per_sample": detail["rnea"]["paper004_6dof"]["us_per_sample_best"],
        "study_seconds": s["run_and_write_s"], "study_floor_seconds": s["floor_s"],
        "study_over_floor": s["over_floor"], "study_peak_rss_mb": s["peak_rss_mb"],
        "refined_study_dofs": r["dofs"] if r else None,
        "refined_study_seconds": r["run_and_write_s"] if r else None,
        "refined_study_peak_rss_mb": r["peak_rss_mb"] if r else None,
        "modal_vs_newmark_speedup": m["speedup"], "modal_vs_newmark_peak_rel_diff": m["peak_rel_diff"],
        "study_results_mb": s["results_mb"],
    }


# ---------------------------------------------------------------------------------------------- report
def verdict(key: str, value) -> str:
    """'met', 'NOT met', 'skipped' or '' (no target) for ``value`` of ``key``."""
    if key not in TARGETS:
        return ""
    if value is None:
        return "skipped"
    op, bound, _ = TARGETS[key]
    ok = {"<=": value <= bound, "<": value < bound, ">=": value >= bound}[op]
    return "met" if ok else "NOT met"


def table(head: dict, detail: dict) -> str:
    """The measurements beside the targets, then the details that explain them."""
    fmt = {"rnea_us_per_sample": "{:.2f} us", "study_seconds": "{:.1f} s", "study_floor_seconds": "{:.1f} s",
           "study_over_floor": "{:.2f} x", "study_peak_rss_mb": "{:.0f} MB", "refined_study_dofs": "{:,}",
           "refined_study_seconds": "{:.1f} s", "refined_study_peak_rss_mb": "{:.0f} MB",
           "modal_vs_newmark_speedup": "{:.1f} x", "modal_vs_newmark_peak_rel_diff": "{:.2%}",
           "study_results_mb": "{:.0f} MB"}
    lines = [f"{'measure':<32}{'measured':>14}  {'target':<14}{'':<8}"]
    for k in KEYS:
        v = head[k]
        shown = "-" if v is None else fmt[k].format(v)
        lines.append(f"{k:<32}{shown:>14}  {TARGETS.get(k, ('', '', ''))[2]:<14}{verdict(k, v):<8}")
    return "\n".join(lines + [""] + details(detail))


def details(detail: dict) -> list[str]:
    """Readable lines: inverse dynamics of both robots, the study's phases per link, the Newmark comparison."""
    out = []
    rn = detail["rnea"]
    out.append(f"inverse dynamics, {rn['n_samples']} samples, best of {rn['repeats']} [us/sample] "
               f"({rn['pinocchio']}):")
    for key in ("paper004_6dof", "mg400_closed_chain"):
        r = rn[key]
        pin = f"{r['pinocchio_us_per_sample_best']:.2f}" if "pinocchio_us_per_sample_best" in r else "n/a"
        agree = f"{r['torque_rel_diff']:.1e}" if "torque_rel_diff" in r else "n/a"
        out.append(f"  {r['robot']}\n    ours {r['us_per_sample_best']:.2f} (median {r['us_per_sample_median']:.2f})"
                   f", pin.rnea loop {pin}, torques agree to {agree}")
        if "closed_chain_us_per_sample_best" in r:
            out.append(f"    whole closed-chain step (+ actuators, cut-joint multipliers, wrenches) "
                       f"{r['closed_chain_us_per_sample_best']:.1f}; loop closure "
                       f"{r['loop_closure_us_per_sample']:.1f}")
    for name in ("study", "refined_study"):
        if name in detail:
            out += study_lines(name, detail[name])
    m = detail["modal_vs_newmark"]
    out.append(f"fast path vs Newmark: {m['link']}, {m['dofs']} DOF, {m['modes']} modes ({m['lowest_hz']:.0f} .. "
               f"{m['highest_mode_hz']:.0f} Hz), {m['steps']} steps of {m['dt_s'] * 1e3:.2f} ms, undamped")
    out.append(f"  fast path {m['fast_transient_s']:.2f} s (+ basis {m['basis_s']:.1f} s), Newmark "
               f"{m['newmark_s']:.1f} s without stresses; peak von Mises {m['peak_von_mises_mpa']['modal']:.4f} / "
               f"{m['peak_von_mises_mpa']['newmark']:.4f} MPa, peak deformation "
               f"{m['peak_deformation_mm']['modal']:.5f} / {m['peak_deformation_mm']['newmark']:.5f} mm")
    env = detail["environment"]
    out.append(f"machine: {env['cpus']} CPUs, solver {env['solver']}, load average before each part "
               + ", ".join(f"{k} {v:.1f}" for k, v in detail["load_average_1min"].items()))
    return out


PHASES = ("assembly_K", "assembly_M", "factorization", "unit_solves", "modes", "stress_basis", "modal_response",
          "stress_history")


def study_lines(name: str, s: dict) -> list[str]:
    """One study's per-link phases [s] and totals."""
    out = [f"{name}: {s['dofs']:,} DOF ({s['total_nodes']:,} P2 nodes) in {s['n_links']} links, {s['n_samples']} "
           f"samples; run + write {s['run_and_write_s']:.1f} s (build {s['build_s']:.1f} s, process "
           f"{s['process_wall_s']:.1f} s), floor {s['floor_s']:.1f} s, peak RSS {s['peak_rss_mb']:.0f} MB",
           "  " + f"{'link':<12}" + "".join(f"{p[:13]:>14}" for p in PHASES)]
    for link, ph in s["phases_s"].items():
        out.append("  " + f"{link:<12}" + "".join(f"{ph.get(p, 0.0):>14.2f}" for p in PHASES))
    t = s["study_timings_s"]
    sums = {p: sum(ph.get(p, 0.0) for ph in s["phases_s"].values()) for p in PHASES}
    per_link = [k for k in t if k.startswith("fe_") and k != "fe_bases"]
    out.append("  summed over links (they run in threads, as many at a time as there are cores, so the sums "
               "overlap): " + ", ".join(f"{p} {v:.1f}" for p, v in sums.items()))
    out.append("  study phases: " + ", ".join(f"{k} {v:.1f}" for k, v in t.items() if k not in per_link))
    if s.get("floor_detail_s"):
        out.append("  floor: " + ", ".join(f"{k} {v:.1f} s" for k, v in s["floor_detail_s"].items()))
    if s.get("cpu_s"):
        out.append("  CPU seconds (all threads): " + ", ".join(f"{k} {v:.1f}" for k, v in s["cpu_s"].items())
                   + f"; 1-minute load average at the end {s.get('load_average_1min', float('nan')):.1f}")
    return out


def main(argv=None) -> int:
    args = parse(argv)
    detail = measure(args)
    head = headline(detail)
    print("\n" + table(head, detail))
    result = {**head, "targets": {k: v[2] for k, v in TARGETS.items()},
              "verdicts": {k: verdict(k, head[k]) for k in TARGETS}, "detail": detail}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2, default=float) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
