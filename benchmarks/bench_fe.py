"""Finite-element performance of one link at about 300,000 DOF (a benchmark, not a test).

    python benchmarks/bench_fe.py [--dofs 300000] [--modes 20] [--steps 1000] [--newmark-steps 20]

The link is paper 004's upper arm (meshes/make_paper004_meshes.py: a hollow 110 x 80 mm box-section beam with
8 mm walls between a shoulder and an elbow boss) meshed with gmsh to about ``--dofs`` quadratic-tet DOF. It is
clamped on its shoulder flange (``joint2``) and loaded by the body force of a swinging motion (12 unit loads)
and the elbow wrench of a forearm plus a payload that is gripped suddenly (6 unit loads on ``joint3``): the
load set ``linkloads.link_loads`` builds for this link. Phases, each timed with ``time.perf_counter`` and with
the process's peak resident memory during the phase (Linux VmHWM, reset before each phase):

mesh (gmsh, cached across runs), read + loads, assembly of K and M, factorization, unit-load solves, modes,
stress basis (unaveraged element-node stresses of every basis column), the transient phase (exact modal
integration + the ``--steps``-step stress and deformation history reduced to peaks and envelopes by
``analysis.respond``), output frames (101 frames of fields), and the direct Newmark marching of the same history
(``transient.newmark``). Newmark is marched for ``--newmark-steps`` steps and extrapolated linearly to
``--steps`` (fixed cost: its factorizations; per step: the mean of the marched steps); it is timed without
computing any stress, so the ratio Newmark / transient is a lower bound.

Targets (issue 3): transient phase < 15 s; Newmark >= 20 x the transient phase. Prints a table and writes
benchmarks/results/bench_fe.json.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from _common import ROOT, Phases, load_history, mesh_link, reset_peak, upper_arm_part  # noqa: E402


# ---------------------------------------------------------------------------------------------- run
def run(args) -> dict:
    import scipy

    import structcheck
    from structcheck.fe import response as analysis
    from structcheck.fe.supports import submatrix
    from structcheck.fe.solvers import available_backends
    from structcheck.fe.transient import newmark

    phases = Phases()
    path, h = mesh_link(args.dofs, phases)
    with phases.timed("read + loads"):
        part, F = upper_arm_part(path)
    t, coeff = load_history(args.steps)
    support = ["joint2"]

    with phases.timed("assembly_K"):
        part.stiffness
    with phases.timed("assembly_M"):
        part.mass_matrix
    assembly = {k: (phases[k], phases.peak_mb[k]) for k in ("assembly_K", "assembly_M")}
    reset_peak()
    basis = analysis.build_basis(part, F, support, args.modes, timings=phases)
    for k, (sec, mb) in assembly.items():  # build_basis found K and M already assembled (cached)
        dict.__setitem__(phases, k, sec)
        phases.peak_mb[k] = mb

    reset_peak()
    t0 = time.perf_counter()
    modal = analysis.modal_coefficients(basis, t, coeff, damping_ratio=0.02)
    t_modal = time.perf_counter() - t0
    resp = analysis.respond(part, basis, coeff, modal)
    phases["transient"] = time.perf_counter() - t0
    frames = np.linspace(0, len(t) - 1, 101).astype(int)
    with phases.timed("output_frames"):
        analysis.frame_fields(part, basis, coeff[frames], modal[frames])

    # direct Newmark on the same history (marching only: no stresses)
    free = part.free_dofs(support)
    K = submatrix(part.stiffness, free)
    M = submatrix(part.mass_matrix, free)
    n_mk = min(args.newmark_steps, args.steps)
    stamps = []
    reset_peak()
    t0 = time.perf_counter()
    u_nm = newmark(K, M, F[free], coeff[: n_mk + 1], t[: n_mk + 1],
                   on_step=lambda k: stamps.append(time.perf_counter()))
    t_nm = time.perf_counter() - t0
    per_step = (stamps[-1] - stamps[0]) / (len(stamps) - 1) if len(stamps) > 1 else t_nm
    fixed = t_nm - per_step * n_mk
    phases["newmark"] = fixed + per_step * args.steps
    del u_nm

    e2e_names = ["read + loads", "assembly_K", "assembly_M", "factorization", "unit_solves", "modes",
                 "stress_basis", "transient", "output_frames"]
    end_to_end = sum(phases.get(n, 0.0) for n in e2e_names)
    out = {
        "model": {"link": "paper-004 upper arm (hollow box beam, 8 mm walls)", "mesh_size_mm": h * 1e3,
                  "dofs": part.n_dofs, "free_dofs": int(len(free)), "nodes": len(part.points),
                  "elements": int(part.mesh.t.shape[1]), "unit_loads": F.shape[1], "modes": len(basis.omega),
                  "lowest_hz": float(basis.omega[0] / 2 / np.pi) if len(basis.omega) else None,
                  "steps": args.steps, "newmark_steps_marched": n_mk, "nnz_K": int(part.stiffness.nnz)},
        "phases_s": dict(phases),
        "peak_rss_mb": phases.peak_mb,
        "transient_detail_s": {"modal_integration": t_modal, "stress_history": phases["transient"] - t_modal},
        "newmark_detail_s": {"marched": t_nm, "fixed": fixed, "per_step": per_step, "extrapolated": True},
        "end_to_end_s": end_to_end,
        "ratios": {"newmark_over_transient": phases["newmark"] / phases["transient"],
                   "transient_over_15s_target": phases["transient"] / 15.0},
        "result": {"max_von_mises_MPa": resp.max_von_mises / 1e6, "max_deformation_mm": resp.max_deformation * 1e3},
        "environment": {"solver": os.environ.get("STRUCTCHECK_SOLVER") or available_backends()[0],
                        "cpus": os.cpu_count(),
                        "python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
                        "structcheck": getattr(structcheck, "__version__", "?"), "peak_reset": phases.can_reset,
                        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024},
    }
    return out


def print_table(r: dict) -> None:
    m = r["model"]
    print(f"\nFE benchmark: {m['link']}, mesh size {m['mesh_size_mm']:.2f} mm")
    print(f"  {m['dofs']} DOF ({m['free_dofs']} free), {m['nodes']} P2 nodes, {m['elements']} tets, nnz(K) "
          f"{m['nnz_K']}, {m['unit_loads']} unit loads, {m['modes']} modes (lowest {m['lowest_hz']:.1f} Hz), "
          f"{m['steps']} steps; solver {r['environment']['solver']}")
    print(f"\n  {'phase':<48}{'time [s]':>10}{'peak RSS [MB]':>15}")
    labels = {"mesh (gmsh)": "mesh (gmsh, cached afterwards)", "read + loads": "read mesh, unit loads (18)",
              "assembly_K": "assembly K", "assembly_M": "assembly M", "factorization": "factorization",
              "unit_solves": "unit-load solves", "modes": f"{m['modes']} modes", "stress_basis": "stress basis",
              "transient": f"transient phase ({m['steps']} steps)", "output_frames": "output frames (101)",
              "newmark": f"Newmark ({m['newmark_steps_marched']} steps marched, extrapolated)"}
    for k, lab in labels.items():
        if k in r["phases_s"]:
            print(f"  {lab:<48}{r['phases_s'][k]:>10.2f}{r['peak_rss_mb'].get(k, float('nan')):>15.0f}")
    d = r["transient_detail_s"]
    print(f"    (transient = modal integration {d['modal_integration']:.2f} s + stress history "
          f"{d['stress_history']:.2f} s)")
    nd = r["newmark_detail_s"]
    print(f"    (Newmark: marched {nd['marched']:.2f} s = fixed {nd['fixed']:.2f} s + {nd['per_step']:.3f} s/step)")
    ra = r["ratios"]
    print(f"    (Newmark is timed without computing stresses; the fast path's time includes them)")
    print(f"\n  end-to-end (read .. output frames, no gmsh, no Newmark): {r['end_to_end_s']:.1f} s")
    print(f"  transient phase / 15 s target: {ra['transient_over_15s_target']:.2f}  (target < 1)")
    print(f"  Newmark / transient phase:     {ra['newmark_over_transient']:.1f}  (target >= 20)")
    print(f"  peak von Mises {r['result']['max_von_mises_MPa']:.3f} MPa, max deformation "
          f"{r['result']['max_deformation_mm']:.4f} mm")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dofs", type=int, default=300_000, help="target number of DOF (default 300000)")
    ap.add_argument("--modes", type=int, default=20)
    ap.add_argument("--steps", type=int, default=1000, help="time steps of the history (default 1000)")
    ap.add_argument("--newmark-steps", type=int, default=20, help="Newmark steps actually marched")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "bench_fe.json")
    args = ap.parse_args(argv)
    r = run(args)
    print_table(r)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(r, indent=2, default=float))
    print(f"\n  wrote {args.out}")


if __name__ == "__main__":
    main()
