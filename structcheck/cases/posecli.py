"""``structcheck worst-pose STUDY [--points N] [--out DIR]``: the worst static poses of a study, their workspace
map, and the governing pose checked like any load case.

Writes into DIR (default ``results/<study>_worst_pose``): ``worst_pose.json`` (ranges, grid, tolerances, each
joint's worst holding torque and each link's worst static stress with their poses), ``worst_pose_map.png`` (a 2-D
slice through the governing pose) and, in ``DIR/check``, the full results of the study standing still at the
governing pose (the link with the largest static stress relative to its material's strength). Exit 0: that pose
passes, 1: it fails, 2: bad input.
"""
from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from ..errors import InputError


def add_parser(sub, parents, report, params) -> None:
    """The ``worst-pose`` command's parser; ``report(study, out, **options)`` runs a study and prints its table and
    ``params(items)`` parses ``--set`` (the command line's own, handed in so this module does not import it)."""
    w = sub.add_parser("worst-pose", parents=parents, help="worst static pose: holding torques and link stresses "
                                                           "over the joint ranges, the worst pose checked",
                       description=" ".join(__doc__.split("\n\n")[1].split()).replace("``", ""))
    w.add_argument("study", help="study script (Python, defines `study = Study(...)` or build())")
    w.add_argument("--points", type=int, default=7, help="grid values per joint (default 7: 7^6 = 117649 poses "
                                                         "for six joints)")
    w.add_argument("--range", action="append", metavar="JOINT=LO,HI", help="a joint's range [rad or m, absolute] "
                   "instead of its limits; JOINT=V holds it at V (repeatable)")
    w.add_argument("--starts", type=int, default=1, help="local optimizer starts per quantity (default 1: from the "
                   "grid's worst pose)")
    w.add_argument("--map", nargs=2, metavar=("JX", "JY"),
                   help="the map's two joints (default the two with the largest holding torques)")
    w.add_argument("--map-points", type=int, default=41, help="map values per joint (default 41)")
    w.add_argument("--set", action="append", metavar="NAME=VALUE", help="a build() parameter or Study setting")
    w.add_argument("--out", help="output folder (default results/<study>_worst_pose)")
    w.add_argument("--with-forces", action="store_true", help="also the study's point forces, each held at its "
                   "largest magnitude (a payload given as a force)")
    w.add_argument("--no-check", action="store_true", help="only the search and the map: no run at the worst pose")
    w.add_argument("--quiet", action="store_true", help="no progress bars")
    w.set_defaults(func=partial(command, report=report, params=params))


def _ranges(items) -> dict:
    out = {}
    for item in items or []:
        name, sep, raw = item.partition("=")
        try:
            values = [float(v) for v in raw.split(",")]
        except ValueError:
            values = []
        if not sep or len(values) not in (1, 2):
            raise InputError(f"--range {item!r}: give JOINT=LO,HI or JOINT=VALUE (numbers, rad or m)")
        out[name.strip()] = values[0] if len(values) == 1 else tuple(values)
    return out


def command(args, report, params) -> int:
    from ..script import build_study
    from . import pose, posemap

    if args.points < 2 or args.starts < 1 or args.map_points < 2:
        raise InputError("--points and --map-points must be >= 2, --starts >= 1")
    study = build_study(args.study, params(args.set), debug=args.traceback)
    out = Path(args.out) if args.out else Path("results") / f"{study.name}_worst_pose"
    res = pose.search(study, args.points, _ranges(args.range), args.starts, forces=args.with_forces)
    governing = _governing(study, res)
    for line in _table(res, study, governing):
        print(line)
    out.mkdir(parents=True, exist_ok=True)
    (out / "worst_pose.json").write_text(json.dumps(_summary(res, study, governing), indent=2))
    png = _map(study, res, governing, args, out)
    print(f"worst poses written to {out / 'worst_pose.json'}" + (f"; map {png}" if png else "; no map (one joint)"))
    if args.no_check or governing is None:
        return 0
    where = res.stresses[governing].pose
    print(f"checking the study standing still at {governing}'s worst pose {_pose_text(where)}")
    return report(pose.pose_study(study, where, forces=res.forces), out / "check", quiet=args.quiet, vtk=False)


def _governing(study, res) -> str | None:
    """The link with the largest worst static stress relative to its material's strength (None: no FE link)."""
    ratio = {n: w.value / study.parts[n].material.yield_strength for n, w in res.stresses.items()}
    return max(ratio, key=ratio.get) if ratio else None


def _forces_text(forces: dict) -> str:
    if not forces:
        return ", no point forces"
    return ", point forces held at their largest " + ", ".join(f"{p} {tuple(round(float(x), 4) for x in f)} N"
                                                               for p, f in forces.items())


def _pose_text(pose: dict) -> str:
    return "(" + ", ".join(f"{j} {v:.4g}" for j, v in pose.items()) + ")"


def _table(res, study, governing) -> list[str]:
    from . import pose

    lines = [f"worst static pose of {study.name}: {res.n_grid} grid poses ({res.points} per joint), then Powell "
             f"(xtol {pose.XTOL:g} / {pose.XTOL_STRESS:g}, ftol {pose.FTOL:g} / {pose.FTOL_STRESS:g} for torques / "
             f"stresses); gravity, payloads{_forces_text(res.forces)}"]
    for j, w in res.torques.items():
        lines.append(f"  joint {j:<12} holding torque {w.value:11.5g} N m (grid {w.grid_value:.5g}) at "
                     f"{_pose_text(w.pose)}")
    for n, w in res.stresses.items():
        sf = study.parts[n].material.yield_strength / w.value if w.value > 0 else float("inf")
        mark = "  <- governing" if n == governing else ""
        lines.append(f"  link  {n:<12} static von Mises {w.value / 1e6:9.4g} MPa (grid {w.grid_value / 1e6:.4g}), "
                     f"safety factor {sf:.3g}, at {_pose_text(w.pose)}{mark}")
    return lines


def _summary(res, study, governing) -> dict:
    from . import pose

    def one(w, unit):
        return {f"value_{unit}": w.value, f"grid_value_{unit}": w.grid_value, "pose": w.pose}

    return {"study": study.name, "ranges": {j: list(r) for j, r in res.ranges.items()}, "points_per_joint": res.points,
            "grid_poses": res.n_grid, "optimizer": {"method": "Powell (scipy.optimize.minimize, bounded)",
                                                    "torques": {"xtol": pose.XTOL, "ftol": pose.FTOL},
                                                    "stresses": {"xtol": pose.XTOL_STRESS, "ftol": pose.FTOL_STRESS}},
            "loads": f"gravity, payloads{_forces_text(res.forces)}; robot still (qd = qdd = 0)",
            "held_forces_n": {p: list(map(float, f)) for p, f in res.forces.items()},
            "holding_torques": {j: one(w, "n_m") for j, w in res.torques.items()},
            "link_static_stress": {n: one(w, "pa") for n, w in res.stresses.items()}, "governing_link": governing}


def _map(study, res, governing, args, out: Path) -> Path | None:
    from . import pose, posemap

    # default: the two searched joints with the largest worst holding torques (a vertical axis's is flat)
    def torque(j):
        return abs(getattr(res.torques.get(j), "value", 0.0))

    free = sorted((j for j, (lo, hi) in res.ranges.items() if hi > lo), key=lambda j: -torque(j))
    joints = tuple(args.map) if args.map else tuple(sorted(free[:2], key=list(res.ranges).index))
    if len(joints) < 2:
        return None
    at = res.stresses[governing].pose if governing else next(iter(res.torques.values())).pose
    joint = max(res.torques, key=lambda j: abs(res.torques[j].value))
    chain, g, pl = pose.static_model(study, None, None)
    links = pose.static_links(chain, {governing: study.parts[governing]}, [at[j] for j in res.ranges], g, pl,
                              res.forces) if governing else None
    m = posemap.slice_map(chain, res.ranges, at, joints, joint, g, pl, links, governing, args.map_points, res.forces)
    marks = {"worst stress" if governing else "worst": (at[joints[0]], at[joints[1]])}
    return posemap.plot_map(m, out / "worst_pose_map.png", marks)
