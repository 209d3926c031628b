"""Mesh convergence of the headline study's peak stresses: paper 004 on the shipped meshes and on meshes refined
by a size factor (default 0.667, about 1.5x finer in every direction), per link the unaveraged and the
nodal-averaged peak von Mises, their change in %, and the stress-discontinuity indicator on both meshes.

    python benchmarks/bench_convergence.py [--size-factor 0.667] [--mesh-dir DIR] [--flexibility link|arm]

The refined meshes are generated into ``--mesh-dir`` (default: a temporary folder) with
``meshes/make_paper004_meshes.py``'s ``build_meshes``, unless that folder already holds them; the shipped meshes
in meshes/paper004 are never touched. Prints a table and writes benchmarks/results/bench_convergence.json.
A peak that changes much under refinement, with a large indicator, sits on a support singularity (a clamped
flange edge, a re-entrant corner): it has no converged value, and only its averaged or away-from-support value
means something.
"""
import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEYS = ("max_von_mises_pa", "max_von_mises_averaged_pa", "stress_discontinuity", "max_von_mises_away_from_support_pa",
        "n_nodes", "time_of_max_s", "location_of_max_link_m")


def run_on(script, mesh_dir: Path | None, flexibility: str = "link"):
    """Link summaries (name -> dict of KEYS) and run time [s] of the study of ``script`` (the paper-004 study
    module) on the meshes of ``mesh_dir`` (None: the shipped ones), with the structural model ``flexibility``
    (the README's table: the per-link model, whose supports and loads do not depend on the other links' meshes)."""
    import structcheck as sc
    from structcheck.study import run

    study = dataclasses.replace(script.study, flexibility=flexibility)
    if mesh_dir is not None:
        parts = {n: sc.Part.from_mesh(mesh_dir / f"{n}.msh", material=script.MATERIAL.get(n, "6061"))
                 for n in script.LINKS}
        study = dataclasses.replace(study, parts=parts)
    t0 = time.perf_counter()
    result = run(study, progress=False, write=False)
    links = {n: {k: L[k] for k in KEYS} for n, L in result.summary["links"].items()}
    return links, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-factor", type=float, default=0.667, help="mesh size of the refined run / shipped")
    ap.add_argument("--mesh-dir", type=Path, default=None, help="folder of the refined meshes (made if missing)")
    ap.add_argument("--flexibility", choices=("link", "arm"), default="link", help="structural model of both runs")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "studies"))
    sys.path.insert(0, str(ROOT / "meshes"))
    import loading_unloading_6dof as s  # noqa: E402
    import make_paper004_meshes as meshes  # noqa: E402

    mesh_dir = args.mesh_dir or Path(tempfile.mkdtemp(prefix="paper004_refined_"))
    if not all((mesh_dir / f"{n}.msh").is_file() for n in s.LINKS):
        meshes.build_meshes(mesh_dir, size_factor=args.size_factor)
    shipped, t_shipped = run_on(s, None, args.flexibility)
    refined, t_refined = run_on(s, mesh_dir, args.flexibility)

    def pct(a, b):
        return 100.0 * (b - a) / a

    print(f"{'link':>11} {'nodes':>15} | {'unaveraged MPa':>22} {'change':>7} | {'averaged MPa':>22} {'change':>7} |"
          f" {'indicator':>15}")
    rows = {}
    for n in shipped:
        a, b = shipped[n], refined[n]
        rows[n] = {"shipped": a, "refined": b,
                   "change_pct": {k: pct(a[k], b[k]) for k in ("max_von_mises_pa", "max_von_mises_averaged_pa")}}
        print(f"{n:>11} {a['n_nodes']:>7}>{b['n_nodes']:<7} | {a['max_von_mises_pa'] * 1e-6:10.4f} "
              f"{b['max_von_mises_pa'] * 1e-6:11.4f} {rows[n]['change_pct']['max_von_mises_pa']:+6.1f}% | "
              f"{a['max_von_mises_averaged_pa'] * 1e-6:10.4f} {b['max_von_mises_averaged_pa'] * 1e-6:11.4f} "
              f"{rows[n]['change_pct']['max_von_mises_averaged_pa']:+6.1f}% | "
              f"{a['stress_discontinuity']:7.2f} {b['stress_discontinuity']:7.2f}")
    print(f"run time: shipped {t_shipped:.1f} s, refined {t_refined:.1f} s (size factor {args.size_factor}, "
          f"meshes in {mesh_dir})")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "bench_convergence.json").write_text(json.dumps(
        {"size_factor": args.size_factor, "links": rows, "run_time_s": {"shipped": t_shipped, "refined": t_refined}},
        indent=2))


if __name__ == "__main__":
    main()
