"""Finite-element performance of one link at about 300,000 DOF (a benchmark, not a test).

    python benchmarks/bench_fe.py [--dofs 300000] [--modes 20] [--steps 1000] [--newmark-steps 20]

The link is paper 004's upper arm (meshes/make_paper004_meshes.py: a hollow 110 x 80 mm box-section beam with
8 mm walls between a shoulder and an elbow boss) meshed with gmsh to about ``--dofs`` quadratic-tet DOF. It is
clamped on its shoulder flange (``joint2``) and loaded by the body force of a swinging motion (12 unit loads)
and the elbow wrench of a forearm plus a payload that is gripped suddenly (6 unit loads on ``joint3``): the
load set ``linkloads.link_loads`` builds for this link. Phases, each timed with ``time.perf_counter`` and with
the process's peak resident memory during the phase (Linux VmHWM, reset before each phase):

mesh (gmsh, cached across runs), read, loads, assembly of K and M, factorization, unit-load solves, modes,
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

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path.home() / ".cache" / "structcheck" / "bench_fe"
A2 = 0.385  # shoulder-to-elbow length of the upper arm [m] (paper 004, Table 1)
REF = (0.016, 45066)  # (mesh size [m], DOF) of the shipped upper-arm mesh: DOF ~ size^-3


# ---------------------------------------------------------------------------------------------- memory
def _status_kb(key: str) -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return float(line.split()[1])
    except OSError:
        pass
    return float("nan")


def _reset_peak() -> bool:
    """Reset the process's peak RSS (Linux >= 4.0: write 5 to /proc/self/clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


class Phases(dict):
    """Phase name -> seconds; records the peak RSS [MB] of each phase as it is stored (also when
    ``analysis.build_basis`` stores its sub-phases here), then resets the peak for the next phase."""

    def __init__(self):
        super().__init__()
        self.peak_mb = {}
        self.can_reset = _reset_peak()

    def __setitem__(self, name, seconds):
        hwm = _status_kb("VmHWM")
        if not np.isfinite(hwm):
            hwm = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.peak_mb[name] = max(self.peak_mb.get(name, 0.0), hwm / 1024)
        super().__setitem__(name, seconds)
        _reset_peak()

    def timed(self, name):
        phases = self

        class _T:
            def __enter__(self):
                _reset_peak()
                self.t0 = time.perf_counter()

            def __exit__(self, *exc):
                if exc[0] is None:
                    phases[name] = time.perf_counter() - self.t0
        return _T()


# ---------------------------------------------------------------------------------------------- model
def mesh_link(dofs: int, phases: Phases) -> tuple[Path, float]:
    """Mesh the upper arm to about ``dofs`` DOF (cached by mesh size); returns the .msh path and the size."""
    sys.path.insert(0, str(ROOT / "meshes"))
    import make_paper004_meshes as m004

    from structcheck.geometry import PartBuilder

    h = REF[0] * (REF[1] / dofs) ** (1 / 3)
    for _ in range(4):
        path = CACHE / f"upper_arm_h{h * 1e3:.4f}mm.msh"
        if not path.is_file():
            CACHE.mkdir(parents=True, exist_ok=True)
            with phases.timed("mesh (gmsh)"):
                with PartBuilder("upper_arm", h) as b:
                    m004.upper_arm(b, {"wall": m004.DEFAULT_WALL_MM})
                    b.build(None)
                    b.write(path.with_suffix(".tmp.msh"))
            path.with_suffix(".tmp.msh").replace(path)
        n = _p2_dofs(path)
        if abs(n / dofs - 1) < 0.08:
            return path, h
        h *= (n / dofs) ** (1 / 3)
    return path, h


def _p2_dofs(path: Path) -> int:
    import meshio

    tets = meshio.read(path).cells_dict["tetra"]
    edges = np.unique(np.sort(tets[:, [0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3]].reshape(-1, 2), axis=1), axis=0)
    return 3 * (len(np.unique(tets)) + len(edges))


def load_history(n_steps: int, t_end: float = 2.0):
    """Time samples (n_steps + 1,) and the coefficients (n_t, 18) of the upper arm's 12 body loads and its 6
    elbow-wrench loads: the arm swings 75 deg about its shoulder axis z between 0.2 s and 1.2 s (ADAMS STEP
    law) under gravity in its x-y plane, carrying at the elbow a 30 kg forearm + payload whose centre is
    0.3 m beyond the elbow, and a 196 N gripping force 0.6 m beyond it applied over 10 ms at 1.5 s."""
    from structcheck.loads import body_coefficients

    t = np.linspace(0.0, t_end, n_steps + 1)
    t0, t1, amp = 0.2, 1.2, np.radians(75.0)
    D = np.clip((t - t0) / (t1 - t0), 0, 1)
    inside = (t > t0) & (t < t1)
    th = amp * D * D * (3 - 2 * D)
    thd = np.where(inside, amp * 6 * D * (1 - D) / (t1 - t0), 0.0)
    thdd = np.where(inside, amp * (6 - 12 * D) / (t1 - t0) ** 2, 0.0)
    z = np.zeros_like(t)
    g = 9.81 * np.column_stack([-np.sin(th), -np.cos(th), z])  # world gravity in link axes
    w = np.column_stack([z, z, thd])
    al = np.column_stack([z, z, thdd])
    body = body_coefficients(g, np.zeros(3), w, al)  # (n_t, 12)

    p = np.array([A2, 0.0, 0.0])  # elbow: the wrench's reference point

    def inertia_force(mass, r):
        a = np.cross(al, r) + np.cross(w, np.cross(w, r))
        return mass * (g - a)  # what the carried mass exerts on the arm

    r_c, r_tip = p + [0.3, 0.0, 0.0], p + [0.6, 0.0, 0.0]
    F_c = inertia_force(30.0, r_c)
    grip = 196.0 * np.clip((t - 1.5) / 0.01, 0, 1)
    F_tip = grip[:, None] * np.column_stack([-np.sin(th), -np.cos(th), z])  # along gravity
    F = F_c + F_tip
    M = np.cross(r_c - p, F_c) + np.cross(r_tip - p, F_tip)
    return t, np.hstack([body, F, M])


# ---------------------------------------------------------------------------------------------- run
def run(args) -> dict:
    import scipy

    import structcheck
    from structcheck.fe import response as analysis
    from structcheck.fe.supports import submatrix
    from structcheck.fe.part import Part
    from structcheck.fe.solvers import available_backends
    from structcheck.fe.transient import newmark

    phases = Phases()
    path, h = mesh_link(args.dofs, phases)
    with phases.timed("read"):
        part = Part.from_mesh(path, material="6061")
        _ = part.node_dofs, part.cells
    with phases.timed("loads"):
        F = np.hstack([part.body_load_basis(), part.wrench_basis("joint3", [A2, 0.0, 0.0])])
    t, coeff = load_history(args.steps)
    support = ["joint2"]

    with phases.timed("assembly_K"):
        part.stiffness
    with phases.timed("assembly_M"):
        part.mass_matrix
    assembly = {k: (phases[k], phases.peak_mb[k]) for k in ("assembly_K", "assembly_M")}
    _reset_peak()
    basis = analysis.build_basis(part, F, support, args.modes, timings=phases)
    for k, (sec, mb) in assembly.items():  # build_basis found K and M already assembled (cached)
        dict.__setitem__(phases, k, sec)
        phases.peak_mb[k] = mb

    _reset_peak()
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
    _reset_peak()
    t0 = time.perf_counter()
    u_nm = newmark(K, M, F[free], coeff[: n_mk + 1], t[: n_mk + 1],
                   on_step=lambda k: stamps.append(time.perf_counter()))
    t_nm = time.perf_counter() - t0
    per_step = (stamps[-1] - stamps[0]) / (len(stamps) - 1) if len(stamps) > 1 else t_nm
    fixed = t_nm - per_step * n_mk
    phases["newmark"] = fixed + per_step * args.steps
    del u_nm

    e2e_names = ["read", "loads", "assembly_K", "assembly_M", "factorization", "unit_solves", "modes",
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
    labels = {"mesh (gmsh)": "mesh (gmsh, cached afterwards)", "read": "read mesh", "loads": "unit loads (18)",
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
