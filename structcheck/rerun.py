"""``structcheck rerun RESULTS [--out DIR]``: run a results folder's study again with its exact inputs.

A run of a study script records in summary.json (:mod:`structcheck.results.inputs`) the script's path relative to
the results folder and the SHA-256 of its bytes, everything given on the command line (``--set`` values, a
script's own options, ``--link-model``) and whether it was a quick look (``inputs.script``, ``quick``), and the
SHA-256 of every mesh it ran on (``inputs.parts.<link>.mesh_sha256``). A rerun finds the script there (or at
``--study PATH``, for a folder moved apart from its script), refuses one whose bytes changed, builds the study with
the same values, refuses when a mesh it builds or reads differs from the recorded one, and runs it into ``--out``
(default: ``RESULTS-rerun`` beside the folder). Each refusal is one line and exit status 2, before anything is
written. On the same machine and versions the rerun's numbers are the original's to the bit (a run is
reproducible: tests/study/test_reproducible.py).

No absolute path is stored: a project copied whole (scripts and results folders) to another machine reruns there.
What the script imports besides structcheck (a module of your own beside it) and files it reads other than meshes
are not hashed: the meshes are compared after the study is built, whatever made them.
"""
from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from .errors import InputError


def add_parser(sub, parents, report) -> None:
    """The ``rerun`` command's parser; ``report(study, out, **options)`` runs a study and prints its table (the
    command line's own, handed in so that this module does not import the command line)."""
    r = sub.add_parser("rerun", parents=parents, help="run a results folder's study again with its exact inputs",
                       description="Run the study of results folder RESULTS again with the inputs it recorded: "
                                   "its study script (found relative to RESULTS, or at --study), its --set values "
                                   "and options. Refused (exit 2) when the script or a mesh changed since.")
    r.add_argument("results", metavar="RESULTS", help="a results folder written by structcheck run")
    r.add_argument("--out", help="folder for the new results (default RESULTS-rerun beside RESULTS)")
    r.add_argument("--study", metavar="PATH", help="the study script, when it is no longer where summary.json "
                                                   "says relative to RESULTS (its bytes must still match)")
    r.add_argument("--no-vtk", action="store_true", help="skip the ParaView files")
    r.add_argument("--vtk-format", choices=("hdf", "pvd"), default="hdf", help="ParaView files: VTKHDF or .pvd/.vtu")
    r.add_argument("--no-report", action="store_true", help="skip report.html")
    r.add_argument("--quiet", action="store_true", help="no progress bars")
    r.set_defaults(func=partial(command, report=report))


def command(args, report) -> int:
    """``structcheck rerun``: 0 the design passes, 1 it fails; InputError (exit 2) for what :func:`rerun_study`
    refuses."""
    from .results import prepare_output
    from .results.inputs import command_origin, run_origin

    results = Path(args.results)
    out = Path(args.out) if args.out else results.parent / f"{results.resolve().name}-rerun"
    if out.resolve() == results.resolve():
        raise InputError(f"--out {str(out)!r} is the results folder being rerun; choose another folder")
    prepare_output(out)
    script, given, quick, study = rerun_study(results, args.study, debug=args.traceback)
    with run_origin(command_origin(script, out, given, quick=quick)):
        return report(study, out, quiet=args.quiet, vtk=not args.no_vtk, vtk_format=args.vtk_format, quick=quick,
                      report=not args.no_report)


def rerun_study(results: Path, study_path: str | None = None, debug: bool = False):
    """(script path, what was given, quick, the study) of the results folder ``results``, built again as it ran;
    InputError when summary.json records no script, the script is missing or changed, or a mesh changed."""
    from .results import read_summary
    from .results.inputs import file_sha256, mesh_sha256
    from .script import build_study

    summary = read_summary(results)
    recorded = summary.inputs.script if summary.inputs is not None else None
    if recorded is None:
        raise InputError(f"{str(results)!r} records no study script (a run from Python, structcheck.run(study), a "
                         f"sweep variant, or one written before structcheck recorded its inputs): run the study again "
                         f"with structcheck run")
    if study_path is None and recorded.path is None:
        raise InputError(f"{str(results)!r} records no path to its study script {recorded.name!r} (another drive): "
                         f"give it with --study PATH")
    script = Path(study_path) if study_path else Path(os.path.normpath(results / recorded.path))
    if not script.is_file():
        raise InputError(f"study script {str(script)!r} (where {str(results)!r} says its {recorded.name!r} is) does "
                         f"not exist; give its place with --study PATH")
    sha = file_sha256(script)
    if sha != recorded.sha256:
        raise InputError(f"study script {str(script)!r} changed since {str(results)!r} was run (SHA-256 {sha[:12]}, "
                         f"recorded {recorded.sha256[:12]}): restore it, or run the changed study with structcheck run")
    given = dict(recorded.set or {})
    study = build_study(script, given, debug=debug, quick=bool(summary.quick))
    parts = summary.inputs.parts or {}
    for link in sorted(set(parts) | set(study.parts)):
        was = parts[link].mesh_sha256 if link in parts else None
        now = mesh_sha256(study.parts[link]) if link in study.parts else None
        if was != now:
            what = ("has no part now" if now is None else "had no part then" if was is None else
                    "has another mesh now")
            raise InputError(f"link {link!r} {what} than when {str(results)!r} was run (mesh SHA-256 "
                             f"{(now or '-')[:12]}, recorded {(was or '-')[:12]}): a mesh file or its generator "
                             f"changed; restore it, or run the changed study with structcheck run")
    return script, given, bool(summary.quick), study
