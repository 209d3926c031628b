"""What the report pages show of a run's summary: the one place that reads summary.json's values (the adapter
between the summary's layout and the pages).

Every number on a page is a :class:`Number`: its ``key`` (the path of keys to it in summary.json), its value in
the summary's SI unit, and the scale and unit it is shown in. The page writes the key and the value beside the
shown text (``data-key``, ``data-value``), so a reader (or a test) can check each cell against summary.json.
The summary is read as a mapping with summary.json's keys; :func:`as_mapping` turns whatever the run hands over
into one.
"""
from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

MPA, MM = 1e-6, 1e3
#: a value below this fraction of the largest of its table column is shown as 0 (:func:`noise_floored`): round-off
#: of an exact zero (a joint that carries no torque reads 1.75e-7 N m on a 100 N m arm: 2e-9 of the largest;
#: double precision's 1e-16 grown by the sums of the dynamics), while a real value this small changes no check
NOISE_FRACTION = 1e-6


def as_mapping(summary: Any) -> Mapping[str, Any]:
    """The summary as a mapping with summary.json's keys: a dict as it is, a typed summary (a dataclass tree with
    the same field names, or an object with ``to_dict()``) converted."""
    if isinstance(summary, Mapping):
        return summary
    if hasattr(summary, "to_dict"):
        return summary.to_dict()
    if dataclasses.is_dataclass(summary):
        return dataclasses.asdict(summary)
    raise TypeError(f"a run summary must be a mapping or a dataclass, got {type(summary).__name__}")


@dataclass(frozen=True)
class Number:
    """One number of a page: ``value`` in summary.json's unit at ``key`` (the keys from the top), shown times
    ``scale`` in ``unit`` with ``digits`` significant digits. ``value`` None: summary.json's null (``none_text``:
    infinite life or safety factor, or not computed)."""

    key: tuple
    value: float | None
    scale: float = 1.0
    unit: str = ""
    digits: int = 4
    none_text: str = "-"
    zero_below: float = 0.0  # [summary.json's unit] shown as 0 below it: rounding noise (:func:`noise_floored`)

    @property
    def text(self) -> str:
        if self.value is None or (isinstance(self.value, float) and not math.isfinite(self.value)):
            return self.none_text
        if abs(self.value) < self.zero_below:
            return "0"
        return f"{self.value * self.scale:.{self.digits}g}"

    @property
    def shows_zero(self) -> bool:
        """Shown as 0: zero, or below the column's noise floor."""
        return self.value is not None and (self.value == 0 or abs(self.value) < self.zero_below)

    @property
    def key_json(self) -> str:
        return json.dumps(list(self.key))

    @property
    def value_repr(self) -> str:
        return "null" if self.value is None else repr(float(self.value))


def number(summary: Mapping, key: tuple, scale: float = 1.0, unit: str = "", digits: int = 4,
           none_text: str = "-") -> Number:
    """The :class:`Number` at ``key`` in ``summary`` (keys of mappings, positions in lists; a missing one reads as
    null)."""
    value: Any = summary
    for k in key:
        if isinstance(value, Mapping):
            value = value.get(k)
        elif isinstance(value, (list, tuple)) and isinstance(k, int) and k < len(value):
            value = value[k]
        else:
            value = None
    return Number(key, None if value is None else float(value), scale, unit, digits, none_text)


def noise_floored(column: list[Number]) -> list[Number]:
    """The Numbers of one table column (one quantity, one unit), each shown as 0 where its magnitude is below
    :data:`NOISE_FRACTION` of the column's largest finite one: the one rule of every table that prints values."""
    largest = max((abs(n.value) for n in column if n.value is not None and math.isfinite(n.value)), default=0.0)
    return [dataclasses.replace(n, zero_below=NOISE_FRACTION * largest) for n in column]


@dataclass(frozen=True)
class Check:
    """One design check of the verdict: ``utilisation`` = demand / capacity (at least 1 fails), what it is
    (``what``), on which ``link`` ('' for the robot), and the numbers it compares."""

    what: str
    link: str
    utilisation: float
    shown: Number
    limit: Number


def design_checks(summary: Mapping) -> list[Check]:
    """Every check the verdict uses, most utilised first: per link the stress safety factor against the required
    one (utilisation required / smallest), the fatigue safety factor against 1 (1 / factor; with a design life),
    and the tool-point deflection against its limit (when the study states one)."""
    s, required = summary, summary["required_safety_factor"]
    out = []
    for name, L in s["links"].items():
        sf = L.get("min_safety_factor")
        out.append(Check("stress safety factor", name, required / sf if sf else 0.0,
                         number(s, ("links", name, "min_safety_factor"), digits=3, none_text="inf"),
                         number(s, ("required_safety_factor",), digits=3)))
        if "fatigue_safety_factor" in L:
            f = L["fatigue_safety_factor"]
            out.append(Check("fatigue safety factor", name, 1.0 / f if f else 0.0,
                             number(s, ("links", name, "fatigue_safety_factor"), digits=3, none_text="inf"),
                             Number((), 1.0, digits=3)))
    limit, tool = s.get("deflection_limit_m"), s.get("tool_point_deflection_m")
    if limit and tool is not None:
        out.append(Check("tool-point deflection", "", tool / limit, number(s, ("tool_point_deflection_m",), MM, "mm"),
                         number(s, ("deflection_limit_m",), MM, "mm")))
    return sorted(out, key=lambda c: -c.utilisation)


@dataclass(frozen=True)
class Verdict:
    passed: bool
    governing: Check | None
    failures: list[str]
    quick: bool


def verdict(summary: Mapping) -> Verdict:
    """The run's verdict (summary.json's ``passed`` and ``failures``) and the check that governs it (the most
    utilised)."""
    checks = design_checks(summary)
    return Verdict(bool(summary["passed"]), checks[0] if checks else None, list(summary.get("failures", [])),
                   bool(summary.get("quick")))


# (summary key, column title, scale, unit, digits) of the per-link table
LINK_COLUMNS = (
    ("mass_kg", "mass", 1.0, "kg", 4),
    ("max_von_mises_pa", "peak von Mises", MPA, "MPa", 4),
    ("max_von_mises_averaged_pa", "nodal-averaged", MPA, "MPa", 4),
    ("stress_discontinuity", "discontinuity", 100.0, "%", 3),
    ("time_of_max_s", "at", 1.0, "s", 4),
    ("min_safety_factor", "min safety factor", 1.0, "", 3),
    ("max_equivalent_strain", "peak strain", 1.0, "", 3),
    ("max_deformation_m", "largest deformation", MM, "mm", 4),
    ("min_fatigue_life_cycles", "fatigue life", 1.0, "cycles", 3),
    ("min_fatigue_life_hours", "fatigue life", 1.0, "h", 3),
    ("fatigue_safety_factor", "fatigue safety factor", 1.0, "", 3),
)
# quantities whose exact zero the computation can give as round-off (shown as 0 below the noise floor)
_NOISE_FLOORED = {"max_von_mises_pa", "max_von_mises_averaged_pa", "max_equivalent_strain", "max_deformation_m"}
# a null in these columns is infinite (no damaging cycle, no stress), elsewhere not computed
_INFINITE_WHEN_NULL = {"min_fatigue_life_cycles", "min_fatigue_life_hours", "fatigue_safety_factor",
                       "min_safety_factor"}


def link_columns(summary: Mapping) -> list[tuple]:
    """The columns of the per-link table that this run has (fatigue only with fatigue)."""
    links = summary["links"].values()
    return [c for c in LINK_COLUMNS if any(c[0] in L for L in links)]


def link_rows(summary: Mapping) -> list[dict]:
    """Per link: name, material, criterion, place of the peak (link frame and world, mm), pass/fail, and a
    Number per column of :func:`link_columns`."""
    cols = link_columns(summary)
    names = list(summary["links"])
    columns = [[number(summary, ("links", name, k), sc, u, d, "inf" if k in _INFINITE_WHEN_NULL else "-")
                for name in names] for k, _, sc, u, d in cols]
    columns = [noise_floored(c) if k in _NOISE_FLOORED else c for (k, *_), c in zip(cols, columns)]
    rows = []
    for i, (name, L) in enumerate(summary["links"].items()):
        cells = [c[i] for c in columns]
        rows.append({"name": name, "material": L.get("material", ""), "criterion": L.get("criterion", ""),
                     "cells": cells, "passed": bool(L.get("passed")),
                     "where_link": _mm(L.get("location_of_max_link_m")), "where_world": _mm(L.get("location_of_max_m")),
                     "geometry": L.get("element_geometry", ""),
                     "strength": number(summary, ("links", name, "yield_strength_pa"), MPA, "MPa"),
                     "nodes": number(summary, ("links", name, "n_nodes"), digits=9),
                     "elements": number(summary, ("links", name, "n_elements"), digits=9),
                     "dofs": Number(("links", name, "n_nodes"), L.get("n_nodes"), 3.0, "", 9)})
    return rows


def _mm(point) -> str:
    return "-" if point is None else "(" + ", ".join(f"{1e3 * v:.1f}" for v in point) + ") mm"


def joint_rows(summary: Mapping) -> list[dict]:
    """Per joint: a Number for its peak torque (actuated joints), reaction force and moment, each with its
    time ('-' where the peak shows as 0, zero or rounding noise: :func:`noise_floored` per column), and the wrench
    components rigid-body mechanics leaves undetermined."""
    joints = summary.get("joints", {})
    peaks = {key: noise_floored([number(summary, ("joints", name, key), 1.0, unit) for name in joints])
             for key, unit in (("max_abs_torque", "N m or N"), ("max_reaction_force_n", "N"),
                               ("max_reaction_moment_nm", "N m"))}
    rows = []
    for i, (name, J) in enumerate(joints.items()):
        def at(key, when):  # the peak's time; none for a peak shown as 0 (no peak)
            peak = peaks[key][i]
            return Number((), None) if peak.shows_zero else number(summary, ("joints", name, when), 1.0, "s")

        rows.append({"name": name, "torque": peaks["max_abs_torque"][i],
                     "torque_t": at("max_abs_torque", "time_of_max_torque_s"),
                     "force": peaks["max_reaction_force_n"][i],
                     "force_t": at("max_reaction_force_n", "time_of_max_force_s"),
                     "moment": peaks["max_reaction_moment_nm"][i],
                     "moment_t": at("max_reaction_moment_nm", "time_of_max_moment_s"),
                     "undetermined": ", ".join(J.get("undetermined_components", []))})
    return rows


def robot_numbers(summary: Mapping) -> list[tuple[str, Number, Number | None]]:
    """The robot-level numbers: (label, value, time or None), those this run has."""
    s = summary
    rows = [("peak von Mises (link " + str(s.get("max_von_mises_link")) + ")",
             number(s, ("max_von_mises_pa",), MPA, "MPa"), None),
            ("peak equivalent strain", number(s, ("max_equivalent_strain",), digits=3), None),
            ("largest link deformation", number(s, ("max_deformation_m",), MM, "mm"), None)]
    if s.get("tool_point_deflection_m") is not None:
        rows.append((f"tool-point deflection ({s.get('tool_point')})",
                     number(s, ("tool_point_deflection_m",), MM, "mm"),
                     number(s, ("time_of_max_tool_point_deflection_s",), unit="s")))
    if s.get("deflection_limit_m") is not None:
        rows.append(("tool-point deflection limit", number(s, ("deflection_limit_m",), MM, "mm"), None))
    if s.get("max_total_deformation_m") is not None:
        rows.append(("total deformation (whole arm, relative to the ground)",
                     number(s, ("max_total_deformation_m",), MM, "mm"), None))
    return rows


def link_frequency_rows(summary: Mapping) -> list[tuple[str, Number, Number | None]]:
    """Per link its lowest frequency [Hz] (the arm model: its superelement's lowest fixed-interface mode; the
    per-link model: the link clamped at its proximal joint) and, beside the arm model, the per-link model's."""
    return [(n, number(summary, ("links", n, "lowest_frequency_hz"), unit="Hz"),
             number(summary, ("links", n, "lowest_frequency_link_model_hz"), unit="Hz")
             if "lowest_frequency_link_model_hz" in L else None) for n, L in summary["links"].items()]


def mode_rows(summary: Mapping) -> list[Number]:
    """The assembled arm's lowest natural frequencies [Hz] (arm model), else its estimated lowest one."""
    modes = summary.get("arm_modes_hz")
    if modes:
        return [number(summary, ("arm_modes_hz", k), unit="Hz") for k in range(len(modes))]
    if summary.get("arm_lowest_mode_hz") is not None:
        return [number(summary, ("arm_lowest_mode_hz",), unit="Hz")]
    return []


def check_rows(summary: Mapping) -> list[tuple[str, Number]]:
    """The run's own checks (power balance, equilibrium, loop closure): relative residuals."""
    return [(k.replace("_", " "), number(summary, ("checks", k), digits=3))
            for k, v in summary.get("checks", {}).items() if isinstance(v, (int, float)) or v is None]


_SUBJECT = re.compile(r"^link '([^']*)'")


def warning_groups(summary: Mapping) -> dict[str, list[str]]:
    """The warnings in full, grouped: those about one link (they begin ``link 'name'``) under its name, the
    others under 'robot and motion'."""
    groups: dict[str, list[str]] = {}
    for w in summary.get("warnings", []):
        m = _SUBJECT.match(str(w))
        groups.setdefault(f"link {m.group(1)}" if m else "robot and motion", []).append(str(w))
    return groups


def flat_items(mapping: Mapping | None, key: tuple = ()) -> list[tuple[str, str, tuple]]:
    """(name, shown text, key path) of a part of the summary shown as a list (parameters, analysis, timings,
    versions); nested entries are flattened with dotted names, floats shown with 4 significant digits."""
    out = []
    for k, v in (mapping or {}).items():
        if isinstance(v, Mapping):
            out += [(f"{k}.{n}", x, p) for n, x, p in flat_items(v, (*key, k))]
        else:
            out.append((str(k), _text(v), (*key, k)))
    return out


def _text(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_text(x) for x in v)
    return str(v)
