"""What the report's Inputs section shows of summary.json's ``inputs`` (:mod:`structcheck.results.inputs_schema`):
the effective study with where each value came from, the joints' stiffness, the parts' materials, S-N curves and
meshes, and the study script with the command that reruns it. Every number is a :class:`.view.Number` tagged with
its key, as on the rest of the page."""
from __future__ import annotations

import json
from typing import Any, Mapping

from .view import MM, MPA, number

GPA = 1e-9


def value_text(value: Any) -> str:
    """An input's value as shown: text as it is, '-' for null, anything else as compact JSON."""
    if value is None:
        return "-"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def setting_rows(summary: Mapping, group: str) -> list[tuple[str, str, str]]:
    """(name, value, source) of ``inputs.<group>`` (``settings`` or ``build_parameters``)."""
    entries = (summary.get("inputs") or {}).get(group) or {}
    return [(name, value_text(e.get("value")), e.get("source", "")) for name, e in entries.items()]


def joint_rows(summary: Mapping) -> list[dict]:
    """Per joint: how it is held about its axis and in tilt, the stiffnesses [N m/rad] and their source."""
    joints = (summary.get("inputs") or {}).get("joints") or {}
    return [{"name": n, "about": j["about_axis"], "tilt": j["tilt"], "source": j["source"],
             "k": number(summary, ("inputs", "joints", n, "torsional_stiffness_nm_per_rad"), unit="N m/rad"),
             "k_tilt": number(summary, ("inputs", "joints", n, "tilt_stiffness_nm_per_rad"), unit="N m/rad")}
            for n, j in joints.items()]


# (key, label, scale, unit) of the material and mesh columns
MATERIAL_COLUMNS = (("density_kg_m3", "density", 1.0, "kg/m^3"), ("youngs_modulus_pa", "E", GPA, "GPa"),
                    ("poisson_ratio", "nu", 1.0, ""), ("yield_strength_pa", "yield", MPA, "MPa"),
                    ("tensile_strength_pa", "tensile strength", MPA, "MPa"))
MESH_COLUMNS = (("n_nodes", "nodes", 1.0, ""), ("n_elements", "elements", 1.0, ""),
                ("min_edge_m", "shortest edge", MM, "mm"), ("max_edge_m", "longest edge", MM, "mm"),
                ("worst_shape_quality", "worst shape quality", 1.0, ""),
                ("worst_scaled_jacobian", "worst scaled Jacobian", 1.0, ""))
SN_COLUMNS = (("S_ref_pa", "S_ref", MPA, "MPa"), ("N_ref_cycles", "N_ref", 1.0, "cycles"),
              ("N_cutoff_cycles", "cut-off", 1.0, "cycles"), ("endurance_limit_pa", "endurance limit", MPA, "MPa"),
              ("ultimate_strength_pa", "ultimate strength", MPA, "MPa"))


def part_rows(summary: Mapping) -> list[dict]:
    """Per link: its material (name, criterion, source), the material and mesh numbers of :data:`MATERIAL_COLUMNS`
    and :data:`MESH_COLUMNS`, and the mesh's SHA-256 (its first 12 digits shown)."""
    parts = (summary.get("inputs") or {}).get("parts") or {}

    def cells(link, columns):
        return [number(summary, ("inputs", "parts", link, k), scale, unit) for k, _, scale, unit in columns]

    return [{"name": n, "material": p["material"], "criterion": p["criterion"], "source": p["material_source"],
             "materials": cells(n, MATERIAL_COLUMNS), "mesh": cells(n, MESH_COLUMNS), "sha": p["mesh_sha256"][:12]}
            for n, p in parts.items()]


def sn_rows(summary: Mapping) -> list[dict]:
    """Per link and region: the S-N curve's name, quantity, inverse slopes and knees, the numbers of
    :data:`SN_COLUMNS` and its source."""
    parts = (summary.get("inputs") or {}).get("parts") or {}
    return [{"link": n, "region": r, "name": c["name"], "quantity": c["quantity"], "source": c["source"],
             "m": value_text(c["m"]), "knees": value_text(c["N_knee_cycles"]) if c["N_knee_cycles"] else "-",
             "cells": [number(summary, ("inputs", "parts", n, "sn_curves", r, k), scale, unit, none_text="none")
                       for k, _, scale, unit in SN_COLUMNS]}
            for n, p in parts.items() for r, c in (p.get("sn_curves") or {}).items()]


def script_facts(summary: Mapping) -> list[tuple[str, str]]:
    """(what, text) of the study script the run came from, with the command that reruns it; empty without one."""
    script = (summary.get("inputs") or {}).get("script")
    if not script:
        return []
    given = " ".join(f"--set {k}={json.dumps(v)}" for k, v in (script.get("set") or {}).items())
    return [("script", script["name"]), ("path, from the results folder", script.get("path") or "-"),
            ("SHA-256", script["sha256"]), ("given on the command line", given or "nothing"),
            ("run again with", "structcheck rerun RESULTS (RESULTS: this results folder; --out DIR for the new one)")]
