"""Averaged and unaveraged peak von Mises of a steel cantilever under a tip load on refined meshes, against beam
theory, for a clamped root (singular edges) and for an RBE3-like averaged support (no singular edge).

    python benchmarks/bench_cantilever_peaks.py [--n-side 2 4 6 8]

L = 0.2 m, 20 mm square section, P = 100 N at the tip face; n_side elements across, 10 n_side along (cubes split
into 6 P2 tets). Values are divided by beam theory's bending stress M c / I = 6 P (L - x) / (w h^2) at the root
(x = 0) and at mid-span (x = L/2). tests/fe/test_averaged_peaks.py holds the same runs (n_side 2, 4, 6).
"""
import argparse
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
L, H, P = 0.2, 0.02, 100.0


def cantilever(n_side: int, support: str):
    """(part, response) of the cantilever with ``n_side`` elements across under ``support``."""
    from skfem import MeshTet

    from structcheck.fe.part import Part
    from structcheck.fe.response import LinkBasis, respond

    across = np.linspace(-H / 2, H / 2, n_side + 1)
    mesh = MeshTet.init_tensor(np.linspace(0, L, 10 * n_side + 1), across, across)
    x = mesh.p[0, mesh.facets].mean(axis=0)
    bnd = mesh.boundary_facets()
    part = Part.from_skfem(mesh, "structural_steel", surfaces={"root": bnd[np.isclose(x[bnd], 0.0)],
                                                               "tip": bnd[np.isclose(x[bnd], L)]})
    F = part.patch_force_basis("tip")
    U = part.solve_unit_loads(F, ["root"], support=support)
    basis = LinkBasis(F=F, U=U, phi=np.zeros((len(U), 0)), omega=np.zeros(0), S=part.vertex_stress(U))
    return part, respond(part, basis, np.array([[0.0, 0.0, P]]), np.zeros((1, 0)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-side", type=int, nargs="+", default=[2, 4, 6, 8])
    args = ap.parse_args()
    sigma_root = 6 * P * L / H ** 3
    rows = []
    print("peaks / M c/I: at the root (x = 0) for the link's peaks, at x = L/2 for the mid-span section's")
    print(f"{'support':>9} {'n_side':>6} {'nodes':>6} | {'peak':>7} {'avg peak':>8} {'indicator':>9} | "
          f"{'mid-span':>8} {'avg mid':>7}")
    for support in ("clamp", "averaged"):
        for n in args.n_side:
            part, r = cantilever(n, support)
            mid = np.isclose(part.points[:, 0], L / 2)
            row = {"support": support, "n_side": n, "n_nodes": len(part.points),
                   "peak_unaveraged": r.max_von_mises / sigma_root,
                   "peak_averaged": r.max_von_mises_averaged / sigma_root,
                   "stress_discontinuity": r.stress_discontinuity,
                   "mid_unaveraged": r.vm_envelope_nodes[mid].max() / (sigma_root / 2),
                   "mid_averaged": r.vm_averaged_envelope_nodes[mid].max() / (sigma_root / 2)}
            rows.append(row)
            print(f"{support:>9} {n:6d} {row['n_nodes']:6d} | {row['peak_unaveraged']:7.4f} "
                  f"{row['peak_averaged']:8.4f} {row['stress_discontinuity']:9.4f} | {row['mid_unaveraged']:8.4f} "
                  f"{row['mid_averaged']:7.4f}")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "bench_cantilever_peaks.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
