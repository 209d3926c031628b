"""The report's reactions table for bearing and bolt sizing: per joint the peaks of its axial and radial force,
tilting moment and torque about its axis, each with its time, from summary.json's ``joints.<name>``
(:mod:`structcheck.results.reactions`). Every value is a :class:`.view.Number` tagged with its key."""
from __future__ import annotations

import dataclasses
from typing import Mapping

from .view import NOISE_FRACTION, Number, number

#: (summary field, its time's field, column title, unit, the whole reaction's peak it is a part of) in table order
COLUMNS = (("max_axial_force_n", "time_of_max_axial_force_s", "axial force", "N", "max_reaction_force_n"),
           ("max_radial_force_n", "time_of_max_radial_force_s", "radial force", "N", "max_reaction_force_n"),
           ("max_tilting_moment_nm", "time_of_max_tilting_moment_s", "tilting moment", "N m", "max_reaction_moment_nm"),
           ("max_axis_moment_nm", "time_of_max_axis_moment_s", "torque about the axis", "N m",
            "max_reaction_moment_nm"))


def reaction_rows(s: Mapping) -> list[dict]:
    """Per joint with the split recorded: its name, the undetermined components ('' none) and per column of
    :data:`COLUMNS` a (peak, time) pair of Numbers; the time is blank where the peak shows as 0: below
    :data:`.view.NOISE_FRACTION` of the largest whole reaction force (moment) of the table, the round-off of a part
    that is zero (a cantilever's load square to the axis has 1e-15 N m of tilt). Empty for a folder written before
    summary.json recorded the split."""
    joints = {n: J for n, J in s.get("joints", {}).items() if "max_axial_force_n" in J}
    rows = []
    for name, J in joints.items():
        cells = []
        for k, when, _, unit, whole in COLUMNS:
            largest = max((abs(L.get(whole) or 0.0) for L in joints.values()), default=0.0)
            peak = dataclasses.replace(number(s, ("joints", name, k), unit=unit), zero_below=NOISE_FRACTION * largest)
            cells.append((peak, Number((), None) if peak.shows_zero else number(s, ("joints", name, when), unit="s")))
        rows.append({"name": name, "cells": cells, "undetermined": ", ".join(J.get("undetermined_components") or [])})
    return rows
