"""Cost of curved elements on the headline study: paper 004 on its shipped (straight-sided) meshes and on the same
meshes made second order (10-node tets whose mid-side nodes lie on the CAD surfaces: same vertices, same tets).

    python benchmarks/bench_curved.py [--mesh-dir DIR]

A curved link's stress basis holds the stresses of all 10 element nodes (each from the isoparametric map's
Jacobian there), a straight one's the 4 vertices' (its mid nodes are the means of their edges): 2.5x the floats.
Each variant runs in a fresh process (so that its peak resident memory is its own); printed per link: the stress
basis [MB] and its time, the stress history time, the peak von Mises [MPa]; per run: total time and peak RSS.
Writes benchmarks/results/bench_curved.json. ``--mesh-dir``: where the second-order meshes go (default: a
temporary folder); they are the parts of ``meshes/make_paper004_meshes.py`` at its sizes, meshed with
``PartBuilder(order=2)``.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, ROOT  # noqa: E402


def one_run(mesh_dir: str) -> dict:
    """Run the study in this process (meshes from ``mesh_dir``, '' the shipped ones); timings and basis sizes."""
    from structcheck.fe import response as fe

    sizes = {}
    build = fe.build_basis

    def build_basis(part, F, fixed, n_modes, timings=None):
        basis = build(part, F, fixed, n_modes, timings=timings)
        sizes[part.name] = {"geometry_order": part.geometry_order, "n_elem": len(part.cells),
                            "n_basis": basis.S.shape[0], "stress_basis_mb": basis.S.nbytes / 1e6}
        return basis

    fe.build_basis = build_basis
    from _study import run_study

    with tempfile.TemporaryDirectory(prefix="bench_curved_") as tmp:
        r = run_study(Path(tmp) / "run", mesh_dir)
    r["basis"] = sizes
    return r


def curved_meshes(folder: Path) -> Path:
    """Paper 004's parts (default wall) meshed second order into ``folder``, at the shipped mesh sizes."""
    sys.path.insert(0, str(ROOT / "meshes"))
    import make_paper004_meshes as meshes

    from structcheck.geometry import PartBuilder

    folder.mkdir(parents=True, exist_ok=True)
    for name, (fn, size) in meshes.PARTS.items():
        with PartBuilder(name, size, order=2) as b:
            fn(b, {"wall": meshes.DEFAULT_WALL_MM})
            b.build(None)
            b.write(folder / f"{name}.msh")
    return folder


def lines(name: str, r: dict) -> list[str]:
    out = [f"{name}: run + write {r['run_and_write_s']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB, "
           f"stress bases {sum(b['stress_basis_mb'] for b in r['basis'].values()):.0f} MB",
           f"  {'link':<11}{'order':>6}{'elements':>9}{'basis MB':>10}{'basis s':>9}{'history s':>10}{'peak MPa':>10}"]
    for link, b in r["basis"].items():
        ph = r["phases_s"].get(link, {})
        out.append(f"  {link:<11}{b['geometry_order']:>6}{b['n_elem']:>9}{b['stress_basis_mb']:>10.1f}"
                   f"{ph.get('stress_basis', 0.0):>9.2f}{ph.get('stress_history', 0.0):>10.2f}"
                   f"{r['max_von_mises_mpa'].get(link, float('nan')):>10.3f}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mesh-dir", default="", help="folder for the second-order meshes (default: temporary)")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)  # internal: run one variant, JSON to stdout
    args = ap.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one_run(args.one)))
        return
    with tempfile.TemporaryDirectory(prefix="paper004_order2_") as tmp:
        folder = curved_meshes(Path(args.mesh_dir or tmp))
        runs = {}
        for name, mesh_dir in (("straight (shipped)", ""), ("curved (order 2)", str(folder))):
            proc = subprocess.run([sys.executable, __file__, "--one", mesh_dir], capture_output=True, text=True,
                                  check=True)
            runs[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    for name, r in runs.items():
        print("\n".join(lines(name, r)))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_curved.json").write_text(json.dumps(runs, indent=2, default=float) + "\n")


if __name__ == "__main__":
    main()
