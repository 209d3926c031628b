"""``structcheck`` command line: run, sweep, compare, verify, info, converge, rerun; and :func:`main_for_study` for study
scripts.

Exit status: 0 success (study passes, every sweep variant ran, comparison OK, all verification cases pass); 1 a
study fails its checks, a sweep variant failed to run, a comparison regresses, a verification case fails, or a
peak is not converged / a verdict may flip within its discretisation error (converge); 2 bad
input (a one-line error, no traceback; ``--traceback``
shows the full one, for debugging a study or structcheck itself).
"""
from __future__ import annotations

import argparse
import inspect
import json
import sys
from pathlib import Path
from typing import Any, Callable

from .errors import InputError
from .scripthelp import build_options, json_or_str

#: `structcheck converge --refine` values: structcheck.converge.Refinement's (not imported here: --help stays fast)
REFINE_CHOICES = ("global", "peak")

EXIT_OK, EXIT_FAIL, EXIT_INPUT = 0, 1, 2


def _params(items: list[str]) -> dict:
    """Parse ``--set name=value`` pairs; values are JSON numbers/booleans/strings (no eval). A dotted name
    (``fatigue.design_life_hours``) is a field of one of the Study's parts, set after build()."""
    out = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not all(part.isidentifier() for part in key.split(".")):
            raise InputError(f"--set expects name=value with a Python name (a build() parameter) or part.field "
                             f"(a Study setting), e.g. --set wall_mm=5 or --set fatigue.design_life_hours=40000; "
                             f"got {item!r}")
        out[key] = json_or_str(raw)
    return out


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _report(study, out, *, quiet: bool, vtk: bool, vtk_format: str = "hdf", quick: bool = False,
            report: bool = True) -> int:
    """Run ``study`` into ``out``, print the table, warnings and where the results are; 0 pass, 1 fail. ``quick``:
    the study is a quick look (summary.json says so, and a line after the table); ``report``: write report.html."""
    from .notes import console_lines
    from .quick import quick_note
    from .results import format_table
    from .study import run

    result = run(study, out, progress=not quiet, vtk=vtk, vtk_format=vtk_format, quick=quick, report=report)
    print(format_table(result.summary))
    if quick:
        print(quick_note(result.summary.study))
    for line in console_lines(result.notes or result.summary.warnings, str(Path(out) / "summary.json")):
        print(line)
    robot_file = getattr(result, "paraview_files", "") or ("robot.vtkhdf" if vtk_format == "hdf" else "robot.pvd")
    where = f"; open {Path(out) / robot_file} in ParaView" if vtk else ""
    print(f"results written to {out}{where}" + (f"; review page {Path(out) / 'report.html'}" if report else ""))
    return EXIT_OK if result.summary.passed else EXIT_FAIL


def _asked(study, args):
    """``study`` with what the run options ask of it: ``--link-model`` the per-link model beside the arm model."""
    from .settings import with_overrides

    return with_overrides(study, {"arm.compare_link_model": True}) if args.link_model else study


def build_study(path, params=None, **options):
    """:func:`structcheck.script.build_study` (imported when a command needs it: ``--help`` stays fast)."""
    from .script import build_study as build

    return build(path, params, **options)


def _writable_out(args) -> None:
    """Refuse an --out that cannot be written before the study is built (reading its meshes takes seconds)."""
    if args.out:
        from .results import prepare_output

        prepare_output(args.out)


def _cmd_run(args) -> int:
    from .results.inputs import command_origin, run_origin

    _writable_out(args)
    given = _params(args.set)
    study = _asked(build_study(args.study, given, debug=args.traceback, quick=args.quick), args)
    out = Path(args.out) if args.out else Path("results") / study.name
    with run_origin(command_origin(args.study, out, given, link_model=args.link_model, quick=args.quick)):
        return _report(study, out, quiet=args.quiet, vtk=not args.no_vtk, vtk_format=args.vtk_format,
                       quick=args.quick, report=not args.no_report)


def _cmd_sweep(args) -> int:
    from tqdm.auto import tqdm

    from .sweep import check_study, parse_params, sweep

    params = parse_params(args.param)
    check_study(args.study, list(params), params)  # bad input is reported before connecting to a cluster
    out = Path(args.out) if args.out else Path("results") / f"{Path(args.study).stem}_sweep"
    executor = client = None
    if args.scheduler:
        if args.workers:
            raise InputError("--workers sizes the local process pool; with --scheduler the cluster's workers run "
                             "the variants")
        try:
            from distributed import Client
        except ImportError:
            raise InputError("--scheduler needs Dask: pip install 'structcheck[dask]'") from None
        try:
            client = Client(args.scheduler, timeout="10s")
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot connect to the Dask scheduler {args.scheduler!r}: {exc}") from None
        executor = client.get_executor(pure=False)  # pure=False: a rerun runs again, never a cached result

    def report(row):
        if row["status"] == "failed":
            tqdm.write(f"structcheck sweep: variant {row['variant']} failed: {row['error']}", file=sys.stderr)

    try:
        res = sweep(args.study, params, out, executor, workers=args.workers, vtk=args.vtk, progress=not args.quiet,
                    report=report, html=not args.no_report)
    finally:
        if client is not None:
            client.close()
    width = max(len(r["variant"]) for r in res.rows)
    print(f"{'variant':<{width}}  {'status':<7} {'verdict':<7} {'max vM MPa':>10} {'min SF':>7} {'tool mm':>8}")
    for r in res.rows:
        def num(key, scale, fmt):
            return format(r[key] * scale, fmt) if r[key] is not None else "-"
        print(f"{r['variant']:<{width}}  {r['status']:<7} {r['verdict'] or '-':<7} "
              f"{num('max_von_mises_pa', 1e-6, '10.2f'):>10} {num('min_safety_factor', 1, '7.2f'):>7} "
              f"{num('tool_point_deflection_m', 1e3, '8.3f'):>8}")
    c = res.counts
    print(f"{len(res.rows)} variants: {c['ran']} ran, {c['skipped']} up to date (skipped), {c['failed']} failed; "
          f"{res.csv}" + (f", {res.plot}" if res.plot else "") + (f", {res.html}" if res.html else ""))
    return EXIT_FAIL if res.failed else EXIT_OK


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return n


def _cmd_compare(args) -> int:
    from .report.commands import write_compare_html
    from .results.compare import compare, format_comparison

    cmp = compare(args.baseline, args.candidate, args.tolerance, allow_quick=args.allow_quick)
    print(format_comparison(cmp))
    write_compare_html(args, cmp)
    return EXIT_OK if cmp.ok else EXIT_FAIL


def _cmd_verify(args) -> int:
    import time

    from tqdm.auto import tqdm

    from .verify import format_table, run_cases

    t0 = time.perf_counter()
    with tqdm(desc="verification cases", unit="case", disable=args.quiet) as bar:
        def done(name, n):
            bar.total = n
            bar.set_postfix_str(name)
            bar.update()

        rows = run_cases(args.case or None, quick=args.quick, on_case=done)
    print(format_table(rows))
    print(f"verification {'(quick meshes) ' if args.quick else ''}ran in {time.perf_counter() - t0:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return EXIT_OK if all(r["pass"] for r in rows) else EXIT_FAIL


def _cmd_info(args) -> int:
    from .info import study_info

    study = build_study(args.study, _params(args.set), debug=args.traceback)
    for line in study_info(study, progress=not args.quiet):
        print(line)
    return EXIT_OK


def _cmd_converge(args) -> int:
    from .converge import TOLERANCE, Refinement, converge, format_report, level_factors

    params = _params(args.set)
    module, study = build_study(args.study, params, debug=args.traceback, with_module=True)
    factors = tuple(args.factors) if args.factors else level_factors(args.levels)
    report = converge(study, factors, getattr(module, "mesh_part", None), links=args.link,
                      tolerance=(TOLERANCE if args.tolerance is None else args.tolerance / 100),
                      progress=not args.quiet, refine=Refinement(args.refine),
                      rebuild=lambda: build_study(args.study, params, debug=args.traceback))
    print(format_report(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    bad = [f"{n} ({c.peak.status}, error {100 * c.peak.relative_error:.1f}%)" for n, c in report.links.items()
           if not c.converged]
    flips = [n for n, c in report.links.items() if c.may_flip]
    if bad:
        print(f"not converged: {', '.join(bad)}")
    if flips:
        print(f"verdict may flip within the discretisation error: {', '.join(flips)}")
    singular = [n for n, c in report.links.items() if c.support_singularity]
    if singular:
        print("judged on the peak away from the support band (the peak a support singularity): "
              + ", ".join(singular))
    if report.ok:
        print("every peak converged; no verdict within its error of the required safety factor")
    for n, why in report.failed.items():
        print(f"structcheck: error: link {n!r}: its mesh at {_one_line(why)}", file=sys.stderr)
    return EXIT_INPUT if report.failed else EXIT_OK if report.ok else EXIT_FAIL


def _traceback_option() -> argparse.ArgumentParser:
    """--traceback, as a parent parser."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--traceback", action="store_true",
                        help="on an error, show the full Python traceback instead of one line")
    return common


def _run_options() -> argparse.ArgumentParser:
    """--out, --no-vtk and --quiet of a command that runs a study, as a parent parser."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out", help="results folder (default results/<study name>)")
    common.add_argument("--no-vtk", action="store_true", help="skip the ParaView files")
    common.add_argument("--vtk-format", choices=("hdf", "pvd"), default="hdf",
                        help="ParaView files: one VTKHDF time series per link (default; ParaView 5.12+) or .pvd/.vtu "
                             "frames for older readers")
    common.add_argument("--quiet", action="store_true", help="no progress bars")
    common.add_argument("--no-report", action="store_true", help="skip report.html (the review page)")
    common.add_argument("--quick", action="store_true",
                        help="a quick look: meshes 2x coarser (from the study's generator), at most 26 frames")
    common.add_argument("--link-model", action="store_true",
                        help="also run the per-link model beside the arm model and add its peaks and first "
                             "frequencies to summary.json (for comparison; costs its time)")
    return common


SET_HELP = ("a parameter of the study's build() (wall_mm=5), or part.field of the Study "
            "(fatigue.design_life_hours=40000, arm.compare_link_model=true, study.n_frames=51)")
DESCRIPTION = """Robot-arm structural checks: the joint loads of a motion, transient finite elements of every
link, stress, deflection and fatigue against the materials' limits, results for ParaView."""
EPILOG = """examples:
  structcheck run studies/two_link_arm.py --out results/arm     run a study; exit 1 if the design fails
  structcheck run studies/two_link_arm.py --set wall_mm=2       a variant (a parameter of the study's build())
  structcheck run STUDY.py --set fatigue.design_life_hours=40000 a Study setting (fatigue.*, arm.*, study.*)
  structcheck compare results/base results/thin --tolerance 2   gate a design change; exit 1 on a regression
  structcheck report results/arm -o arm.html                    the review page of a results folder, again
  structcheck info STUDY.py                                     links, masses, meshes, lowest frequencies

exit status: 0 pass, 1 the design fails (or regresses, or a check fails), 2 bad input (one line, no traceback;
--traceback shows it)."""


class _StudyHelp(argparse.Action):
    """-h/--help of a command that takes a study script: the command's help, then the study's own description and
    build() parameters with their defaults and types, read from the script without running it."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0,
                         help="show this help and, after STUDY, the study's parameters; exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from .scripthelp import parameters_help

        parser.print_help()
        study = getattr(namespace, "study", None)
        if study:
            try:
                print("\n" + parameters_help(study))
            except InputError as exc:
                print(f"\n{parser.prog}: {exc}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    from .cad import starter as import_cad
    from .model.adams import commands as adams_commands

    common = _traceback_option()
    p = argparse.ArgumentParser(prog="structcheck", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"structcheck {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", parents=[common, _run_options()], help="run a study script; writes a results folder",
                       add_help=False)
    r.add_argument("-h", "--help", action=_StudyHelp)
    r.add_argument("study", help="study script (Python, defines `study = Study(...)`)")
    r.add_argument("--set", action="append", metavar="NAME=VALUE", help=SET_HELP)
    r.set_defaults(func=_cmd_run)
    _add_sweep(sub, common)
    c = sub.add_parser("compare", parents=[common], help="compare two results folders (design-change gate)")
    c.add_argument("baseline")
    c.add_argument("candidate")
    c.add_argument("--tolerance", type=float, default=1.0, metavar="PCT",
                   help="allowed worsening of any metric, percent of the baseline (default 1)")
    c.add_argument("--allow-quick", action="store_true",
                   help="compare a quick look (--quick, coarse meshes) with a full run all the same")
    c.add_argument("--html", metavar="FILE", help="also write the comparison page (self-contained HTML)")
    c.set_defaults(func=_cmd_compare)
    from .report.commands import add_report_command

    add_report_command(sub, [common])
    v = sub.add_parser("verify", parents=[common], help="run the verification manual (closed forms and benchmarks)")
    v.add_argument("--json", metavar="FILE", help="also write the table as JSON")
    v.add_argument("--case", action="append", help="run only this case (repeatable)")
    v.add_argument("--quick", action="store_true", help="coarser meshes, same tolerances (seconds, not minutes)")
    v.add_argument("--quiet", action="store_true", help="no progress bar")
    v.set_defaults(func=_cmd_verify)
    k = sub.add_parser("converge", parents=[common], add_help=False,
                       help="re-solve every link on finer meshes: peaks with their discretisation error",
                       description="Solve every link of STUDY alone (per-link model) on its mesh and on finer ones "
                                   "(the script's mesh_part(link, size_factor), else every tet split into 8), and "
                                   "report each link's peak von Mises per level, its Richardson estimate with its "
                                   "error, and whether the verdict could flip within it. Exit 0: every peak "
                                   "converged and no verdict may flip; 1: a peak not converged or a verdict that "
                                   "may flip (named); 2: bad input (a link whose finer mesh cannot be made or read: the "
                                   "other links are still reported).")
    k.add_argument("-h", "--help", action=_StudyHelp)
    k.add_argument("study")
    k.add_argument("--set", action="append", metavar="NAME=VALUE", help=SET_HELP)
    k.add_argument("--levels", type=_positive_int, default=3,
                   help="number of meshes, size factors 1/(1 + k/4): 3 -> 1, 0.8, 0.667 (default 3)")
    k.add_argument("--factors", type=float, nargs="+", metavar="F",
                   help="explicit size factors instead, starting at 1 and decreasing (e.g. 1 0.5 0.25)")
    k.add_argument("--link", action="append", help="only this link (repeatable)")
    k.add_argument("--refine", choices=REFINE_CHOICES, default="global",
                   help="global: every element size times f (default); peak: only around each link's peak, its "
                        "part re-built by build() with a gmsh size field (PartBuilder parts named after their links)")
    k.add_argument("--tolerance", type=float, metavar="PCT", help="converged within this error, percent (default 3)")
    k.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    k.add_argument("--quiet", action="store_true", help="no progress lines")
    k.set_defaults(func=_cmd_converge)
    i = sub.add_parser("info", parents=[common], help="links, masses, mesh sizes and lowest frequencies of a study",
                       add_help=False)
    i.add_argument("-h", "--help", action=_StudyHelp)
    i.add_argument("study")
    i.add_argument("--set", action="append", metavar="NAME=VALUE", help=SET_HELP)
    i.add_argument("--quiet", action="store_true", help="no progress bars")
    i.set_defaults(func=_cmd_info)
    import_cad.add_parser(sub, [common])
    from . import materials_table, rerun
    from .cases import command as stopping, posecli
    for add in (materials_table.add_parser, stopping.add_parser):
        add(sub, [common])
    rerun.add_parser(sub, [common], _report)
    posecli.add_parser(sub, [common], _report, _params)
    k = sub.add_parser("cache", parents=[common], help="show or clear the mesh cache (meshes made for --set values)")
    k.add_argument("--clear", action="store_true", help="remove every cached mesh")
    k.set_defaults(func=_cmd_cache)
    adams_commands.add_parser(sub, [common])
    return p


def _add_sweep(sub, common) -> None:
    """The ``sweep`` command's parser."""
    w = sub.add_parser("sweep", parents=[common], help="run a study for every combination of parameter values",
                       description="Run STUDY's build() for every combination of the --param values, each variant "
                                   "into its own results folder under --out, plus sweep.csv and sweep.png; variants "
                                   "already run from the same inputs are skipped.")
    w.add_argument("study", help="study script (Python, defines `def build(**params) -> Study`)")
    w.add_argument("--param", action="append", required=True, metavar="NAME=V1,V2,...",
                   help="a build() parameter and its values (numbers when they look like numbers, else strings); "
                        "repeat for more parameters")
    w.add_argument("--workers", type=_positive_int, help="local worker processes (default: the number of cores)")
    w.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask distributed scheduler instead")
    w.add_argument("--out", help="sweep folder (default results/<script name>_sweep)")
    w.add_argument("--vtk", action="store_true", help="also write every variant's ParaView files")
    w.add_argument("--quiet", action="store_true", help="no progress bar")
    w.add_argument("--no-report", action="store_true", help="skip sweep.html and the variants' report.html")
    w.set_defaults(func=_cmd_sweep)


def _cmd_cache(args) -> int:
    from .cache import cache_dir, cache_entries, clear_cache

    if args.clear:
        print(f"removed {clear_cache() / 1e6:.1f} MB from {cache_dir()}")
        return EXIT_OK
    entries = cache_entries()
    print(f"mesh cache {cache_dir()}: {len(entries)} entries, {sum(s for _, s in entries) / 1e6:.1f} MB")
    for name, size in entries:
        print(f"  {name:<60} {size / 1e6:8.1f} MB")
    return EXIT_OK


def _guarded(fn: Callable[[], int], debug: bool, prog: str) -> int:
    """``fn()``, with bad input (InputError, OSError) reported in one line as exit status 2."""
    try:
        return fn()
    except (InputError, OSError) as exc:
        if debug:
            raise
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_INPUT


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage error
        return EXIT_INPUT if exc.code else EXIT_OK
    return _guarded(lambda: args.func(args), args.traceback, "structcheck")


def main_for_study(study_or_build: Any, argv: list[str] | None = None, *, default=None) -> int:
    """The command line of a study script: ``sys.exit(main_for_study(build))`` under ``if __name__ == "__main__":``.

    ``study_or_build`` is a ``Study`` or a ``build(**params) -> Study`` function; each keyword parameter of
    ``build`` becomes an option (``wall_mm=8.0`` -> ``--wall-mm 8.0``, typed like its default). ``default`` is the
    study already built with build()'s defaults (reused when no option differs, to save rebuilding it).
    Also ``--set part.field=VALUE`` (a Study setting: ``fatigue.design_life_hours=40000``), ``--out DIR``
    (default ``results/<study name>``), ``--no-vtk``, ``--no-report``, ``--quiet``, ``--traceback``.
    Returns the exit status: 0 the design passes, 1 it fails, 2 bad input (one line on stderr, nothing written).
    """
    build = study_or_build if callable(study_or_build) else None
    # the script's globals: those of build(), else the __main__ module running main_for_study(study)
    where = getattr(build, "__globals__", None) or vars(sys.modules["__main__"])
    script = where.get("__file__") or "study"
    prog = Path(sys.argv[0]).name if argv is None else Path(script).name
    def paragraph(text):  # the first paragraph, whole (a first line alone can stop mid-sentence), plain text
        return " ".join(inspect.cleandoc(text or "").split("\n\n")[0].split()).replace("``", "") or None

    build_doc = paragraph(getattr(build, "__doc__", None))
    ap = argparse.ArgumentParser(prog=prog, description=paragraph(where.get("__doc__")),
                                 epilog=f"build(): {build_doc}" if build_doc else None,
                                 parents=[_run_options(), _traceback_option()])
    ap.add_argument("--set", action="append", metavar="PART.FIELD=VALUE",
                    help="a Study setting: fatigue.design_life_hours=40000, arm.compare_link_model=true, "
                         "study.n_frames=51")
    defaults = build_options(ap, build) if build is not None else {}
    try:
        args = ap.parse_args(argv)
    except SystemExit as exc:  # argparse already printed the usage error
        return EXIT_INPUT if exc.code else EXIT_OK

    def make() -> Any:
        if build is None:
            return study_or_build
        from .script import build_params, with_params

        params = build_params(build, {k: getattr(args, k) for k in defaults}, script)
        if default is not None and params == defaults and not args.quick:
            return default
        try:
            return build(**params)
        except Exception as exc:
            if args.traceback:
                raise
            detail = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
            raise InputError(f"building {script}{with_params(params)} failed: {detail}") from exc

    def go() -> int:
        from types import SimpleNamespace

        from .quick import quick_study
        from .results.inputs import command_origin, run_origin
        from .settings import with_overrides

        _writable_out(args)
        settings = _params(args.set)
        for key in settings:
            if "." not in key:
                raise InputError(f"--set {key}: a build() parameter is an option of its own here "
                                 f"(--{key.replace('_', '-')}); --set takes part.field=VALUE")
        study = _asked(quick_study(SimpleNamespace(mesh_part=where.get("mesh_part")), make) if args.quick else make(),
                       args)
        study = with_overrides(study, settings)
        out = Path(args.out) if args.out else Path("results") / study.name
        given = {**{k: getattr(args, k) for k in defaults if getattr(args, k) != defaults[k]}, **settings}
        origin = command_origin(script, out, given, link_model=args.link_model, quick=args.quick)
        with run_origin(origin if where.get("__file__") else None):
            return _report(study, out, quiet=args.quiet, vtk=not args.no_vtk, vtk_format=args.vtk_format,
                           quick=args.quick, report=not args.no_report)

    return _guarded(go, args.traceback, prog)


if __name__ == "__main__":
    sys.exit(main())
