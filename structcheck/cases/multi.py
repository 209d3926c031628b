"""A study of several load cases (``Study.cases``) run in one go: every case's study built and checked first (bad
input is refused before any FE work), the cases run one after the other on the same links' reductions (a mesh's
factorization, its unit-load responses and modes are made once for every case that loads the link alike), then
enveloped (:mod:`structcheck.results.envelope`).

Results folder (written atomically, as a single run's)::

    summary.json              the envelope: verdict over the cases, each link's entry from the case that governs
                              it (``governing_case``), the duty cases' fatigue together, per-joint peaks over the
                              cases, and ``cases`` (each case's role, verdict and load-case matrix row)
    vtk/<link>_envelope.vtu   the links' envelope fields over the cases (link frame), with ``utilisation`` and
                              ``governing_case`` (index into the cases, in the study's order)
    report.html               the load-case matrix and the envelope, linking each case's page
    cases/<case>/             each case's whole results folder (as a run of the case's study alone)

This module knows no Study: the run hands it its one-case runner and its ``prepare``
(:func:`structcheck.study.run`)."""
from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from ..results.envelope import CaseRun, envelope
from ..results.files import prepare_output
from ..results.inputs import current_origin, study_inputs
from ..results.schema import RunSummary, write_summary
from ..results.vtu import write_vtu
from .case import CaseRole, case_study, share


@dataclass(frozen=True)
class CasesResult:
    """A run of several cases: ``summary`` their envelope (summary.json), ``cases`` case name -> its ``RunResult``,
    ``notes`` every case's warnings, ``fields`` link -> its envelope fields over the cases (link frame);
    ``paraview_files`` the ParaView file to open first, relative to the folder (the first case's robot)."""

    study_name: str
    summary: RunSummary
    cases: dict
    notes: tuple
    fields: dict
    paraview_files: str = ""


def _fingerprint(value) -> Any:
    """A hashable stand-in of ``value`` for the reduction cache's key: numbers, text, Enums, arrays, mappings,
    sequences and the settings' dataclasses by value; anything else (a robot, a Part, a law) by identity (the
    objects stay alive in the cache, so an identity is never reused)."""
    if value is None or isinstance(value, (bool, int, float, str, Enum)):
        return value
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.tobytes())
    if isinstance(value, Mapping):
        return ("map", tuple(sorted((str(k), _fingerprint(v)) for k, v in value.items())))
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(map(_fingerprint, value)))
    if dataclasses.is_dataclass(value) and type(value).__module__.split(".")[-1] in ("settings", "user_loads"):
        return (type(value).__name__, tuple((f.name, _fingerprint(getattr(value, f.name)))
                                            for f in dataclasses.fields(value) if f.name != "magnitude"))
    return ("id", id(value))


#: the Study fields a structural model's reduction reads (meshes, robot, what loads each link where, modes kept,
#: model options); a point force's magnitude law is left out (the unit loads do not depend on it)
REDUCTION_FIELDS = ("robot", "parts", "point_forces", "payloads", "gravity", "n_modes", "quasi_static",
                    "ringing_samples", "flexibility", "arm", "support_band_m", "inertia_from_meshes", "damping_ratio")


class ReductionCache:
    """The links' reductions (``structural.LinkReductions``) of the cases, made once per distinct set of the
    fields :data:`REDUCTION_FIELDS` and the links' supports, and handed to each case as a fresh container (a model
    may clear its own, never the arrays in it). Call it as the model's ``reduce``: ``(model, study, prep, loads,
    clock, progress)``."""

    def __init__(self):
        self._kept: dict = {}
        self.made = 0  # reductions made (the rest were reused)

    def __call__(self, model, study, prep, loads, clock, progress):
        key = (tuple(_fingerprint(getattr(study, f)) for f in REDUCTION_FIELDS),
               tuple((n, tuple(sorted(ld.support))) for n, ld in loads.items()))
        if key not in self._kept:
            self._kept[key] = (study, model.reduce(study, prep, loads, clock, progress))
            self.made += 1
        red = self._kept[key][1]
        return replace(red, bases=dict(red.bases),
                       superelements=None if red.superelements is None else dict(red.superelements))


def _tensile(study) -> dict:
    return {n: getattr(p.material, "tensile_strength", None) for n, p in study.parts.items()}


def run_cases(study, out, run_one: Callable, prepare: Callable, *, write: bool = True, progress: bool = True,
              report: bool = False, vtk: bool = True, **options) -> CasesResult:
    """Run every case of ``study`` (each with ``run_one(case_study, folder, reuse=cache, ...)``, the single run,
    after ``prepare(case_study)`` checked them all) and envelope them; write the folder ``out`` (module doc) when
    ``write``; ``report`` the top-level page too (each case's own with it)."""
    studies = {c.name: case_study(study, c) for c in study.cases}
    for s in studies.values():
        prepare(s)  # every case's input refused now, before any case's FE work
    tmp = None
    if out is not None and write:
        out = prepare_output(out)
        tmp = Path(tempfile.mkdtemp(dir=out.resolve().parent, prefix=f".{out.name}.partial-"))
    try:
        cache, runs = ReductionCache(), []
        for c in study.cases:
            if progress:
                print(f"structcheck: case {c.name!r} ({c.role.value})", file=sys.stderr)
            s = studies[c.name]
            res = run_one(s, None if tmp is None else tmp / "cases" / c.name, reuse=cache, write=write,
                          progress=progress, report=report, vtk=vtk, **options)
            runs.append(CaseRun(c.name, c.role.value, share(c), s.required_safety_factor,
                                c.required_tensile_safety_factor, _tensile(s), res, c.count))
        env = envelope(runs, study, study_inputs(study, current_origin()))
        if tmp is not None:
            _write(env, runs, tmp, vtk=vtk, report=report)
            if out.exists():
                shutil.rmtree(out)
            os.replace(tmp, out)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    notes = tuple(n for r in runs for n in r.result.notes)
    robot = "robot.pvd" if options.get("vtk_format") == "pvd" else "robot.vtkhdf"
    return CasesResult(study_name=study.name, summary=env.summary, cases={r.name: r.result for r in runs},
                       notes=notes, fields=env.fields, paraview_files=f"cases/{runs[0].name}/{robot}")


def _write(env, runs: list[CaseRun], folder: Path, *, vtk: bool, report: bool) -> None:
    """The envelope's files into ``folder`` (its cases' folders are there already): the links' envelope .vtu files
    (on the first case's meshes: every case has the same), summary.json, report.html."""
    if vtk:
        (folder / "vtk").mkdir()
        for link, fields in env.fields.items():
            mesh = runs[0].result.links[link]
            write_vtu(folder / "vtk" / f"{link}_envelope.vtu", mesh.points, mesh.cells, fields)
    write_summary(env.summary, folder / "summary.json")
    if report:
        from ..report.cases_page import write_cases_report

        write_cases_report(folder, folder / "report.html")
