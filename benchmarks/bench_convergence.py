"""Mesh convergence of the headline study's peak stresses over three or more refinements: paper 004 in the per-link
model, every link re-meshed at each size factor (fillets scaled too) and re-solved alone under the same loads
(``structcheck.converge``); per link the unaveraged peak at each level, its change from the first level, the
Richardson estimate with its GCI error and observed order where the trend is monotone, else the scatter; the
nodal-averaged peak and the stress-discontinuity indicator at each level.

    python benchmarks/bench_convergence.py [--levels 1 0.8 0.667 0.571] [--fillet-elements N] [--link NAME]
                                           [--model link|arm] [--quiet]

``--model arm``: the headline study as it runs by default (the arm model: every link a superelement of the one
assembled arm), all seven parts re-meshed at each size factor and the whole study run again (no fatigue, no
output files), every level on the first level's samples (its own ringing samples added once); per link the same
table, and its peak away from the support band (the link's joint interfaces) with its own scatter, and the status
``structcheck converge`` gives (a peak at an interface that is not converged while the away peak is: a support
singularity). Writes benchmarks/results/bench_convergence_arm.json. Heavy: ``--levels 1 0.8 0.667`` took 20 min
and 9.1 GB on 2 cores (the default fourth level, 0.571, about twice that memory and time).

Meshes are made once per size factor into ~/.cache/structcheck (``meshes/make_paper004_meshes.py``'s
``part_mesh``), level 1 too (the shipped meshes when they are up to date), with the generator's sizing rules
(``FILLET_ELEMENTS`` per part, ``PEAK_BALLS``) unless ``--fillet-elements`` (elements across every fillet's quarter
circle) asks for other ones. The shipped meshes in meshes/paper004 are never
touched. Every level of a link is solved on its first level's samples (``structcheck.converge``). Prints a table
and writes benchmarks/results/bench_convergence[_fillet<N>].json (N when not the shipped sizing).
"""
import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_LEVELS = (1.0, 0.8, 0.667, 0.571)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=float, nargs="+", default=list(DEFAULT_LEVELS),
                    help="mesh size factors, the first 1 (default 1 0.8 0.667 0.571)")
    ap.add_argument("--fillet-elements", type=float, default=None,
                    help="elements across every fillet's quarter circle (default: the shipped per-part rules)")
    ap.add_argument("--link", action="append", help="only this link (repeatable)")
    ap.add_argument("--model", choices=("link", "arm"), default="link",
                    help="link: each link solved alone (default); arm: the whole headline study per level")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "studies"))
    sys.path.insert(0, str(ROOT / "meshes"))
    import loading_unloading_6dof as s  # noqa: E402
    import make_paper004_meshes as meshes  # noqa: E402

    import structcheck as sc
    from structcheck.converge import converge
    from structcheck.errors import InputError

    fe = args.fillet_elements
    shipped = fe is None
    if args.model == "arm":
        return arm_model(s, meshes, args)

    def mesh_part(link, size_factor):
        return sc.Part.from_mesh(meshes.part_mesh(link, size_factor, fillet_elements=fe),
                                 material=s.MATERIAL[link])

    # level 1 made by the generator too (the shipped meshes when they are up to date with it)
    links = args.link or list(s.LINKS)
    study = dataclasses.replace(s.study, flexibility="link",
                                parts={**s.study.parts, **{n: mesh_part(n, 1.0) for n in links}})
    t0 = time.perf_counter()
    try:  # a link whose finer mesh fails is reported in report.failed; the others go on
        report = converge(study, args.levels, mesh_part, links=args.link, progress=not args.quiet)
    except InputError as exc:
        print(f"bench_convergence: error: {exc}", file=sys.stderr)
        sys.exit(2)
    failed = dict(report.failed)
    seconds = time.perf_counter() - t0

    fs = report.size_factors
    print("unaveraged peak von Mises [MPa] per size factor (change from f = 1), per-link model"
          + (", shipped sizing rules (per-part fillet elements, peak balls)" if shipped
             else f", {fe:g} elements per fillet quarter circle"))
    print(f"{'link':<11} {'nodes':>17} " + " ".join(f"{'f=' + format(f, '.3g'):>16}" for f in fs)
          + f" {'Richardson':>10} {'GCI':>6} {'p':>5} {'scatter':>7}  trend")
    rows = {}
    for n, c in report.links.items():
        lv = c.levels
        p0 = lv[0].peak_pa
        cells = " ".join(f"{v.peak_pa * 1e-6:8.4f} ({100 * (v.peak_pa / p0 - 1):+5.1f}%)" for v in lv)
        ext = f"{c.peak.extrapolated * 1e-6:10.4f}" if np.isfinite(c.peak.extrapolated) else f"{'-':>10}"
        gci = f"{100 * c.peak.gci:5.2f}%" if np.isfinite(c.peak.gci) else f"{'-':>6}"
        p = f"{c.peak.order:5.2f}" if np.isfinite(c.peak.order) else f"{'-':>5}"
        print(f"{n:<11} {lv[0].n_nodes:>8}>{lv[-1].n_nodes:<8} {cells} {ext} {gci} {p} "
              f"{100 * c.peak.scatter:6.2f}%  {c.peak.status}")
        rows[n] = {"levels": [dataclasses.asdict(v) for v in lv],
                   "change_from_first_pct": [100 * (v.peak_pa / p0 - 1) for v in lv],
                   "spread_pct": 100 * (max(v.peak_pa for v in lv) / min(v.peak_pa for v in lv) - 1),
                   "status": c.peak.status, "link_status": c.status, "order": c.peak.order,
                   "richardson_pa": c.peak.extrapolated,
                   "gci": c.peak.gci, "scatter": c.peak.scatter}
    for n, c in report.links.items():  # what structcheck converge concludes (a support singularity named)
        if c.status != "converged":
            print(f"{n:<11} {c.status}" + ("; away from the support band: " + " ".join(
                f"{v * 1e-6:.4f}" for v in c.away.values[::-1]) + f" MPa, error {100 * c.away.relative_error:.2f}%"
                if c.away is not None else ""))
    print("averaged peak [MPa] / indicator per size factor:")
    for n, c in report.links.items():
        print(f"{n:<11} " + "  ".join(f"{v.averaged_peak_pa * 1e-6:8.4f} / {v.stress_discontinuity:4.2f}"
                                      for v in c.levels))
    spread = max((r["spread_pct"] for r in rows.values()), default=float("nan"))
    print(f"largest spread of a link's peak over the levels: {spread:.1f}%; {seconds:.0f} s")
    for n, why in failed.items():
        print(f"{n:<11} failed: {why}")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / ("bench_convergence" + ("" if shipped else f"_fillet{fe:g}") + ".json")
    old = json.loads(path.read_text()) if args.link and path.is_file() else {}
    for n in rows:  # each link's sizing rules: a later run keeps this row while they hold
        rows[n]["rules"] = link_rules(meshes, n, fe)
    if old.get("size_factors") == list(fs):  # adds these links to the earlier run's, those still sized alike
        kept = {n: r for n, r in old["links"].items() if n not in rows and r.get("rules") == link_rules(meshes, n, fe)}
        rows = {**kept, **rows}
        failed = {**{k: v for k, v in old.get("failed", {}).items() if k not in rows}, **failed}
    path.write_text(json.dumps({"size_factors": list(fs), "fillet_elements": fe, "links": rows, "failed": failed,
                                "run_time_s": seconds}, indent=2))


def arm_model(s, meshes, args) -> None:
    """``--model arm``: the headline study run whole at each of ``args.levels`` (every part re-meshed by
    ``meshes.part_mesh``), the peaks per link and level tabulated and analysed; JSON to
    benchmarks/results/bench_convergence_arm.json."""
    from structcheck import converge as cv

    levels = [float(f) for f in args.levels]
    fe, t0 = args.fillet_elements, time.perf_counter()
    runs = []
    for k, f in enumerate(levels):
        result, seconds = run_level(s, meshes, f, fe, runs[0][0].t if runs else None)
        runs.append((result, seconds))
        if not args.quiet:
            nodes = sum(r.n_nodes for r in result.links.values())
            print(f"arm model {k + 1}/{len(levels)} size factor {f:.3g}: {nodes:,} nodes, {seconds:.0f} s",
                  file=sys.stderr, flush=True)
    h = np.array(levels)
    rows, table = {}, []
    for n in (args.link or list(s.LINKS)):
        res = [r.links[n] for r, _ in runs]
        lv = tuple(cv.LinkLevel(
            size_factor=f, n_nodes=r.n_nodes, peak_pa=r.max_von_mises_pa, time_s=r.time_of_max_s,
            location_link_m=r.location_of_max_link_m, safety_factor=r.min_safety_factor,
            averaged_peak_pa=r.max_von_mises_averaged_pa, stress_discontinuity=r.stress_discontinuity,
            peak_away_from_support_pa=r.max_von_mises_away_from_support_pa, seconds=sec,
            # the peak node lies in the band exactly when the largest value outside it is lower
            peak_in_support_band=bool(r.max_von_mises_away_from_support_pa < r.max_von_mises_pa))
            for f, r, (_, sec) in zip(levels, res, runs))
        away = [v.peak_away_from_support_pa for v in lv]
        c = cv.LinkConvergence(n, lv, cv.richardson(h, [v.peak_pa for v in lv]),
                               cv.richardson(h, away) if np.all(np.isfinite(away)) else None,
                               s.study.required_safety_factor, cv.TOLERANCE)
        rows[n] = {"levels": [dataclasses.asdict(v) for v in lv], "status": c.status,
                   "judged": c.judged_name,
                   "converged": c.converged, "peak": cv.convergence_dict(c.peak), "away": cv.convergence_dict(c.away)}
        table.append(c)
    print(cv.format_report(cv.ConvergenceReport(s.study.name, tuple(levels), {c.name: c for c in table},
                                                {c.name: "meshes/make_paper004_meshes.py part_mesh" for c in table}))
          .replace("(per-link model)", "(arm model, the whole study per level)"))
    print("averaged peak [MPa] / indicator / away from the support band [MPa] per size factor:")
    for c in table:
        print(f"{c.name:<11} " + "  ".join(f"{v.averaged_peak_pa * 1e-6:7.4f} / {v.stress_discontinuity:4.2f} / "
                                           f"{v.peak_away_from_support_pa * 1e-6:7.4f}" for v in c.levels))
    seconds = time.perf_counter() - t0
    print(f"{seconds:.0f} s")
    dest = ROOT / "benchmarks" / "results"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "bench_convergence_arm.json").write_text(json.dumps(
        {"model": "arm", "size_factors": levels, "fillet_elements": fe, "links": rows,
         "nodes": [sum(r.n_nodes for r in run.links.values()) for run, _ in runs],
         "level_seconds": [sec for _, sec in runs], "run_time_s": seconds}, indent=2))


def run_level(s, meshes, size_factor: float, fillet_elements, samples):
    """The headline study (arm model, no fatigue) on every part meshed at ``size_factor``, solved on ``samples``
    [s] (None: its own, the analysis grid and the ringing samples its modes add); (RunResult, wall seconds)."""
    import structcheck as sc
    import structcheck.study as st

    parts = {n: sc.Part.from_mesh(meshes.part_mesh(n, size_factor, fillet_elements=fillet_elements),
                                  material=s.MATERIAL[n]) for n in s.LINKS}
    study = dataclasses.replace(s.study, parts=parts, fatigue=None)
    refine = st.refine

    def on_first_samples(study, prep, bases, rigid, loads):  # the first level's samples, as structcheck.converge
        fine = st.rigid_stage(study, prep, samples)
        return fine, st.link_loads(study, prep, fine, previous=loads), []

    t0 = time.perf_counter()
    st.refine = refine if samples is None else on_first_samples
    try:
        result = st.run(study, None, progress=False, write=False)
    finally:
        st.refine = refine
    return result, time.perf_counter() - t0


def link_rules(meshes, link: str, fillet_elements) -> str:
    """What the link's meshes are made of, as text: its part function's source, size, fillet elements, balls and
    curvature sizing in the generator, and PartBuilder's module (gmsh meshes are not bit for bit repeatable, so the
    rules, not the files, are compared)."""
    import hashlib
    import inspect

    import structcheck.fe.geometry

    fn, size = meshes.PARTS[link]
    text = repr((inspect.getsource(fn), size, meshes.FILLET_ELEMENTS[link] if fillet_elements is None else
                 fillet_elements, meshes.PEAK_BALLS.get(link), meshes.CURVATURE_POINTS[link], meshes.FILLET[link],
                 meshes.ORDER))
    return hashlib.sha1(text.encode() + Path(structcheck.fe.geometry.__file__).read_bytes()).hexdigest()


if __name__ == "__main__":
    main()
