"""The report's reactions table for bearing and bolt sizing: per joint the peaks of its axial and radial force,
tilting moment and torque about its axis, each with its time, from summary.json's ``joints.<name>``
(:mod:`structcheck.results.reactions`). Every value is a :class:`.view.Number` tagged with its key."""
from __future__ import annotations

from typing import Mapping

from .view import Number, noise_floored, number

#: (summary field, its time's field, column title, unit) in the table's order
COLUMNS = (("max_axial_force_n", "time_of_max_axial_force_s", "axial force", "N"),
           ("max_radial_force_n", "time_of_max_radial_force_s", "radial force", "N"),
           ("max_tilting_moment_nm", "time_of_max_tilting_moment_s", "tilting moment", "N m"),
           ("max_axis_moment_nm", "time_of_max_axis_moment_s", "torque about the axis", "N m"))


def reaction_rows(s: Mapping) -> list[dict]:
    """Per joint with the split recorded: its name, the undetermined components ('' none) and per column of
    :data:`COLUMNS` a (peak, time) pair of Numbers; the time is blank where the peak shows as 0. Empty for a folder
    written before summary.json recorded the split."""
    joints = {n: J for n, J in s.get("joints", {}).items() if "max_axial_force_n" in J}
    peaks = {k: noise_floored([number(s, ("joints", n, k), unit=u) for n in joints]) for k, _, _, u in COLUMNS}
    rows = []
    for i, (name, J) in enumerate(joints.items()):
        cells = []
        for k, when, _, _ in COLUMNS:
            peak = peaks[k][i]
            cells.append((peak, Number((), None) if peak.shows_zero else number(s, ("joints", name, when), unit="s")))
        rows.append({"name": name, "cells": cells, "undetermined": ", ".join(J.get("undetermined_components") or [])})
    return rows
