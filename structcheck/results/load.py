"""A results folder read back in Python: ``structcheck.results.load(folder)``.

    >>> res = load("results/loading_unloading_6dof")
    >>> res.summary.max_von_mises_pa                 # summary.json (results.schema.RunSummary)
    >>> res.times                                   # stored steps [s]: output frames and the links' peak instants
    >>> robot = res.frame(2.0)                      # pyvista MultiBlock: every link, world placement, nearest step
    >>> res.frame(res.summary.links["gripper"].time_of_max_s)  # the robot at the gripper's peak instant
    >>> robot["gripper"].point_data["von_mises"]    # [Pa] at each node
    >>> res.peak("gripper"), res.envelope("gripper")  # pyvista UnstructuredGrids (exact float64 fields)
    >>> res.joints["joint2_tau"], res.links["t"]    # time histories of joints.csv and links.csv
    >>> res.fatigue, res.arm_frequencies            # fatigue.csv, arm_frequencies.csv ({} when not written)

A folder of several load cases (``Study.cases``) holds their envelope at the top (summary.json, the links'
``envelope``) and each case's whole results in ``cases/<case>/``: ``res.case_names``, ``res.case("estop")`` (a
Results of that case: its frames, peaks and tables).

Fields on the meshes: ``displacement`` [m, world axes], ``von_mises`` [Pa], ``equivalent_strain`` [-],
``safety_factor`` [-] (envelopes also ``von_mises_averaged`` [Pa], ``displacement_magnitude`` [m] and, with
fatigue, ``fatigue_damage`` and ``fatigue_life_cycles``). Frames are read from ``robot.vtkhdf`` (or ``robot.pvd``
in a folder written with ``--vtk-format pvd``); ``pyvista.read(folder / "robot.vtkhdf")`` gives the first frame
the same way.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from .schema import RunSummary, read_summary
from .tables import read_csv


@dataclass(frozen=True)
class Results:
    """A results folder: ``summary`` (summary.json, a ``results.schema.RunSummary``), ``times`` (n_steps,) [s] of the
    stored steps (the output frames and each link's peak instant: :mod:`.steps`),
    ``joints`` and ``links`` the columns of joints.csv and links.csv (name -> (n_samples,) array, SI units as in
    their headers); ``fatigue`` and ``arm_frequencies`` those of fatigue.csv and arm_frequencies.csv (empty when the
    run wrote none: no fatigue, the per-link model)."""

    folder: Path
    summary: RunSummary
    times: np.ndarray
    joints: dict = field(repr=False)
    links: dict = field(repr=False)
    fatigue: dict = field(default_factory=dict, repr=False)
    arm_frequencies: dict = field(default_factory=dict, repr=False)

    @property
    def link_names(self) -> list[str]:
        return list(self.summary.links)

    @property
    def case_names(self) -> list[str]:
        """The load cases of a folder of several (``Study.cases``), in the study's order; [] for a single run."""
        return list(self.summary.cases or {})

    def case(self, name: str) -> "Results":
        """The results of load case ``name`` of a folder of several (its folder ``cases/<name>``)."""
        if name not in self.case_names:
            raise InputError(f"{self.folder}: no load case {name!r}; " + (
                f"the cases are {self.case_names}" if self.case_names else "it is the run of a study without cases"))
        return load(self.folder / "cases" / name)

    def _no_cases(self, what: str) -> None:
        """InputError for ``what`` (frames, a peak sample) asked of a folder of several cases' envelope."""
        if self.case_names:
            raise InputError(f"{self.folder} holds the envelope of the load cases {self.case_names}, not {what}: "
                             f"ask a case's, e.g. load(...).case({self.case_names[0]!r})")

    def frame(self, time: float):
        """The robot at the stored step nearest ``time`` [s] (a link's ``time_of_max_s`` is one): a pyvista
        ``MultiBlock`` keyed by link name (world placement, fields in the module doc); :meth:`frame_time` gives its
        time."""
        if len(self.times) == 0:
            self._no_cases("the robot in motion")
            raise InputError(f"{self.folder}: no frames were written (a run with --no-vtk); run again without it")
        k = self.frame_index(time)
        if (self.folder / "robot.vtkhdf").is_file():
            from .vtkhdf import read_vtkhdf

            return read_vtkhdf(self.folder / "robot.vtkhdf", k)
        import pyvista as pv

        reader = pv.get_reader(str(self.folder / "robot.pvd"))
        reader.set_active_time_value(float(self.times[k]))
        blocks = reader.read()  # one block per part, in part order
        out = pv.MultiBlock()
        for i, name in enumerate(_pvd_groups(self.folder / "robot.pvd")):
            out[name] = blocks[i]
        return out

    def frame_index(self, time: float) -> int:
        """Index of the stored step nearest ``time`` [s]."""
        return int(np.argmin(np.abs(self.times - float(time))))

    def frame_time(self, time: float) -> float:
        """The time [s] of the stored step nearest ``time``."""
        return float(self.times[self.frame_index(time)])

    def peak(self, link: str):
        """Link ``link`` at its peak sample (world placement, float64 fields): a pyvista ``UnstructuredGrid``."""
        self._no_cases("a peak sample")
        return self._vtu(link, "peak")

    def envelope(self, link: str):
        """Link ``link``'s envelope (max over the analysis grid, min for the safety factor) in its link frame: a
        pyvista ``UnstructuredGrid``; over the cases too in a folder of several (with ``utilisation`` and
        ``governing_case``, docs/load_cases.md)."""
        return self._vtu(link, "envelope")

    def _vtu(self, link: str, kind: str):
        import pyvista as pv

        if link not in self.summary.links:
            raise InputError(f"{self.folder}: no link {link!r}; the links are {self.link_names}")
        path = self.folder / "vtk" / f"{link}_{kind}.vtu"
        if not path.is_file():
            raise InputError(f"{path} is missing (a run with --no-vtk); run again without it")
        return pv.read(path)


def _pvd_groups(path: Path) -> list[str]:
    """The group (link) name of every part of a ParaView collection, in part order."""
    import xml.etree.ElementTree as ET

    parts = {int(d.get("part", 0)): d.get("group", "") for d in ET.parse(path).getroot().iter("DataSet")}
    return [parts[k] for k in sorted(parts)]


def load(folder: str | os.PathLike) -> Results:
    """Read the results folder ``folder`` written by ``structcheck run`` (or ``structcheck.run(study, out)``)."""
    folder = Path(folder)
    if not (folder / "summary.json").is_file():
        raise InputError(f"{folder} is not a results folder (no summary.json); give the --out folder of a run")
    summary = read_summary(folder)
    if (folder / "robot.vtkhdf").is_file():
        from .vtkhdf import vtkhdf_times

        times = vtkhdf_times(folder / "robot.vtkhdf")
    elif (folder / "robot.pvd").is_file():
        import pyvista as pv

        times = np.asarray(pv.get_reader(str(folder / "robot.pvd")).time_values, float)
    else:
        times = np.zeros(0)
    tables = {name: read_csv(folder / f"{name}.csv") if (folder / f"{name}.csv").is_file() else {}
              for name in ("joints", "links", "fatigue", "arm_frequencies")}
    return Results(folder=folder, summary=summary, times=times, **tables)
