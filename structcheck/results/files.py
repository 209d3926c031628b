"""The results folder: its layout and its atomic writing (each kind of file has its own module in this package).

A run is written into a temporary sibling folder and moved into
place at the end, so a failure never leaves a half-written results folder.

Layout (``out/``)::

    summary.json                    verdict, per-link and per-joint peaks, checks, timings, versions (its
                                    timings_s.write: writing everything in the folder but the final move)
    joints.csv                      time, q, qd, qdd, tau and six reaction components of every joint
    links.csv                       time, peak von Mises / strain / deformation / nodal-averaged von Mises of
                                    every link (fine grid), the tool point's deflection
    fatigue.csv                     with fatigue: each link's fatigue-governing stress history (one duty cycle)
    arm_frequencies.csv             with the arm model: its lowest frequencies at each frozen pose of the motion
    report.html                     the review page (structcheck.report), unless report=False
    robot.vtkhdf                    ParaView file gathering the links, a time step per output frame and per
                                    link's peak instant (results.steps), each step's field data output_frame,
                                    around_peak, peak_<link> (VTK 9.7 reads it; older ParaView: open the
                                    vtk/*.vtkhdf files together)
    vtk/<link>.vtkhdf               a link's time series (ParaView 5.12+): mesh once, then per step its points
                                    placed where the robot is and its point fields (5 significant digits, float64
                                    exact at the peak instants)
    vtk/<link>_peak.vtu             the link at the analysis sample of its peak von Mises, float64 exact
    vtk/<link>_envelope.vtu         max over the fine grid (min for the safety factor), in the link frame; its
                                    von_mises_averaged: the envelope of the nodal-averaged von Mises
                                    (.vtu files: VTK XML, zlib-compressed)
    with the arm model (flexibility="arm"):
    modes.vtkhdf                    the assembled arm's lowest modes, one per time step (1, 2, ...), every link
                                    placed at the pose where the first is lowest (results.modes)
    vtk/modes/<link>.vtkhdf         a link's mesh once, point field mode_shape (max-normalized, float64) and
                                    field data frequency_hz per mode
    with vtk_format="pvd" instead of the .vtkhdf kinds (older readers, ~5x larger):
    robot.pvd                       ParaView collection: every link a part, every stored step a time step
    vtk/<link>_<step>.vtu           a link's mesh placed where the robot is, with point fields (float64) and the
                                    step's field data (as robot.vtkhdf's)
    modes.pvd, vtk/modes/<link>_mode<k>.vtu   the arm's modes, a whole mesh per link and mode
    plots/*.png                     joint motion, torques, reactions, stress histories
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError
from .data import RunResult
from .paraview import write_paraview
from .schema import write_summary
from .tables import write_arm_frequency_csv, write_fatigue_csv, write_joint_csv, write_link_csv


def prepare_output(out: str | os.PathLike) -> Path:
    """Check that ``out`` can be written (before hours of work) and return it as a Path.

    Raises InputError if the parent folder cannot be created or written, or ``out`` is a file.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"output path {str(out)!r} is a file, not a folder; choose another --out")
    parent = out.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=parent, prefix=".structcheck-probe-", delete=True)
        probe.close()
    except OSError as exc:
        raise InputError(f"cannot write results to {str(out)!r}: {exc.strerror or exc}; "
                         f"choose a writable --out") from None
    return out


def write_results(run: RunResult, out: str | os.PathLike, *, vtk: bool = True, plots: bool = True,
                  progress: bool = False, vtk_format: str = "hdf",
                  extra_files: Callable[[RunResult, Path], Any] | None = None,
                  after_summary: Callable[[Path], Any] | None = None) -> Path:
    """Write the whole results folder for ``run`` into ``out`` atomically; return the folder path.

    ``vtk_format`` is ``"hdf"`` (VTKHDF time series, default) or ``"pvd"`` (a VTK XML file per link and frame).
    ``extra_files(run, folder)`` writes a study's own files into the folder being written;
    ``after_summary(folder)`` writes what is made from the folder as written (the review page,
    :func:`structcheck.report.write_report`), after summary.json and before the folder is moved into place.

    Everything is written into a temporary sibling folder, ``summary.json`` last and complete (with the time
    all the writing took, under ``timings_s.write``), and the folder is then moved into place."""
    t0 = time.perf_counter()
    out = prepare_output(out)
    tmp = Path(tempfile.mkdtemp(dir=out.resolve().parent, prefix=f".{out.name}.partial-"))
    try:
        write_joint_csv(run, tmp / "joints.csv")
        write_link_csv(run, tmp / "links.csv")
        write_fatigue_csv(run, tmp / "fatigue.csv")
        write_arm_frequency_csv(run, tmp / "arm_frequencies.csv")
        if vtk:
            write_paraview(run, tmp, progress=progress, vtk_format=vtk_format)
        if plots:
            from .plots import write_plots

            write_plots(run, tmp / "plots")
        if extra_files is not None:
            extra_files(run, tmp)
        timings = {**(run.summary.timings_s or {}), "write": time.perf_counter() - t0}
        write_summary(replace(run.summary, timings_s=timings), tmp / "summary.json")
        if after_summary is not None:  # from the written folder (its time is not in the summary's)
            after_summary(tmp)
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out
