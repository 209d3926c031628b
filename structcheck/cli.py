"""``structcheck`` command line: run, compare, verify, info.

Exit status: 0 success (study passes, comparison OK, all verification cases pass); 1 a study fails its checks,
a comparison regresses or a verification case fails; 2 bad input (a one-line error, no traceback).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .errors import InputError

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2


def _params(items: list[str]) -> dict:
    """Parse ``--set name=value`` pairs; values are JSON numbers/booleans/strings (no eval)."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise InputError(f"--set expects name=value, got {item!r}")
        key, raw = item.split("=", 1)
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def _cmd_run(args) -> int:
    from .results import format_table
    from .study import load_study, run

    study = load_study(args.study, **_params(args.set))
    out = Path(args.out) if args.out else Path("results") / study.name
    result = run(study, out, progress=not args.quiet, vtk=not args.no_vtk)
    print(format_table(result.summary))
    for w in result.summary.get("warnings", []):
        print(f"warning: {w}")
    print(f"results written to {out}")
    return EXIT_OK if result.summary["passed"] else EXIT_FAIL


def _cmd_compare(args) -> int:
    from .compare import compare, format_comparison

    cmp = compare(args.baseline, args.candidate, args.tolerance)
    print(format_comparison(cmp))
    return EXIT_OK if cmp.ok else EXIT_FAIL


def _cmd_verify(args) -> int:
    import time

    from .verify import format_table, run_cases

    t0 = time.perf_counter()
    rows = run_cases(args.case or None, quick=args.quick)
    print(format_table(rows))
    print(f"verification {'(quick meshes) ' if args.quick else ''}ran in {time.perf_counter() - t0:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return EXIT_OK if all(r["pass"] for r in rows) else EXIT_FAIL


def _cmd_info(args) -> int:
    from dataclasses import replace

    from .study import load_study, run

    study = load_study(args.study, **_params(args.set))
    robot = study.robot
    driven = getattr(robot, "independent", None) or robot.dof_names  # a closed chain's independent coordinates
    print(f"study {study.name}: {robot.n_dof} degrees of freedom {list(driven)}, t_end {study.t_end} s")
    # the robot held at home under gravity alone: link modes and the arm's mode from the chained compliances
    at_home = replace(study, motion={}, point_forces=(), t_end=1.0, n_frames=2, n_modes=1, quasi_static=False)
    summary = run(at_home, progress=False, write=False).summary
    print(f"{'link':<12} {'material':<8} {'mass kg':>9} {'nodes':>7} {'elements':>8} {'f1 Hz':>9}")
    for name, L in summary["links"].items():
        print(f"{name:<12} {L['material']:<8} {L['mass_kg']:9.3f} {L['n_nodes']:7d} {L['n_elements']:8d} "
              f"{L['lowest_frequency_hz']:9.1f}")
    arm = summary.get("arm_lowest_mode_hz")
    if arm is not None and arm == arm:
        print(f"arm's estimated lowest mode at home (Rayleigh quotient of the chained link compliances, "
              f"payload included): {arm:.1f} Hz")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="structcheck", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a study script; writes a results folder")
    r.add_argument("study", help="study script (Python, defines `study = Study(...)`)")
    r.add_argument("--out", help="results folder (default results/<study name>)")
    r.add_argument("--set", action="append", metavar="NAME=VALUE", help="study parameter for build(**params)")
    r.add_argument("--no-vtk", action="store_true", help="skip the ParaView files")
    r.add_argument("--quiet", action="store_true", help="no progress bars")
    r.set_defaults(func=_cmd_run)
    c = sub.add_parser("compare", help="compare two results folders (design-change gate)")
    c.add_argument("baseline")
    c.add_argument("candidate")
    c.add_argument("--tolerance", type=float, default=1.0, metavar="PCT",
                   help="allowed worsening of any metric, percent of the baseline (default 1)")
    c.set_defaults(func=_cmd_compare)
    v = sub.add_parser("verify", help="run the verification manual (closed forms and benchmarks)")
    v.add_argument("--json", metavar="FILE", help="also write the table as JSON")
    v.add_argument("--case", action="append", help="run only this case (repeatable)")
    v.add_argument("--quick", action="store_true", help="coarser meshes, same tolerances (seconds, not minutes)")
    v.set_defaults(func=_cmd_verify)
    i = sub.add_parser("info", help="links, masses, mesh sizes and lowest frequencies of a study")
    i.add_argument("study")
    i.add_argument("--set", action="append", metavar="NAME=VALUE")
    i.set_defaults(func=_cmd_info)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage error
        return EXIT_INPUT if exc.code else EXIT_OK
    try:
        return args.func(args)
    except InputError as exc:
        print(f"structcheck: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except OSError as exc:
        print(f"structcheck: error: {exc}", file=sys.stderr)
        return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())
