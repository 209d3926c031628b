"""The run summary as one typed tree: what summary.json holds, field by field, with units.

A run builds a :class:`RunSummary` once from its stages (:func:`structcheck.results.summary.run_summary`); it is
written to summary.json by :func:`write_summary` and read back by :func:`read_summary`, the one function that
turns JSON into this tree. The CLI, compare, screenshots, plots and the loader read its fields, never string keys.
A new metric is one field here (with its unit and meaning, which docs/summary.md lists: regenerate it with
``python -c "from structcheck.results.schema import markdown; print(markdown(), end='')" > docs/summary.md``).

JSON conventions: NaN and infinite values are written as null (read back as None: "not computed" or "infinite",
as each field says); a field marked *present with F* belongs to a group of entries that only some runs have
(fatigue, a design life, the per-link model beside the arm model, ...): it is left out of the file when F is
None (the group is absent), and written, null or not, when F is set; the other fields are always written. Keys
a study adds through ``Study.summary_extra`` are kept, at the level where it put them, in each entry's ``extra``
mapping and written back beside the schema's fields.
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ..errors import InputError
from .entries import NESTING, _Entry, _json, _nested, entry, plain  # noqa: F401 (plain, _json: re-exported)
from .inputs_schema import ENTRIES as INPUT_ENTRIES
from .inputs_schema import InputsSummary
from .drivetrain_schema import ENTRIES as DRIVE_ENTRIES
from .drivetrain_schema import JointDriveSummary
from .cases_schema import ENTRIES as CASE_ENTRIES
from .cases_schema import CaseSummary

SCHEMA_VERSION = 1  # summary.json layout version: raised when a field is renamed, removed or changes meaning


@dataclass(frozen=True)
class LinkSummary(_Entry):
    """One link's peaks, safety and fatigue (``links.<name>`` in summary.json). Places are in metres; 'link
    frame' is the link's own frame, 'world' the base frame at the time of the peak."""

    material: str = entry("-", "material name (structcheck.model.materials)")
    mass_kg: float = entry("kg", "mass of the link's mesh")
    yield_strength_pa: float = entry("Pa", "strength the safety factor divides: yield (ductile) or ultimate "
                                           "(brittle) strength")
    criterion: str = entry("-", "failure criterion: 'von_mises' (ductile) or 'max_principal' (brittle)")
    max_von_mises_pa: float = entry("Pa", "peak unaveraged von Mises stress over the link and the motion (the "
                                          "largest element-node value); the safety factor uses it")
    time_of_max_s: float = entry("s", "time of that peak")
    location_of_max_m: tuple = entry("m", "place of the peak, world axes at its time (x, y, z)")
    location_of_max_link_m: tuple = entry("m", "place of the peak in the link frame (x, y, z)")
    max_equivalent_strain: float = entry("", "peak von Mises stress / Young's modulus")
    max_deformation_m: float = entry("m", "largest displacement of the link relative to its support (per-link "
                                          "model) or to its rigid motion (arm model)")
    time_of_max_deformation_s: float = entry("s", "time of the largest deformation")
    min_safety_factor: float | None = entry("", "smallest strength / stress over the link and the motion (null: "
                                                "unloaded, infinite)")
    passed: bool = entry("-", "the link passes: safety factor >= required and fatigue life >= design life")
    max_von_mises_away_from_support_pa: float | None = entry(
        "Pa", "peak von Mises farther than support_band_m from the support surfaces (null: no such node)")
    support_band_m: float | None = entry("m", "width of the band around the supports left out of the previous "
                                             "field (where a clamp makes stress singular)")
    lowest_frequency_hz: float | None = entry("Hz", "the link's lowest mode: clamped at its proximal joint "
                                                    "(per-link model) or fixed-interface (arm model)")
    quasi_static_max_von_mises_pa: float | None = entry("Pa", "peak von Mises of the quasi-static response (no "
                                                              "elastic inertia of the link)")
    equilibrium_rel_error: float | None = entry("", "largest force-balance residual of the link's loads over the "
                                                    "motion, relative to the loads")
    n_nodes: int = entry("-", "mesh nodes")
    n_elements: int = entry("-", "mesh elements (quadratic tetrahedra)")
    max_von_mises_averaged_pa: float | None = entry("Pa", "peak nodal-averaged von Mises (as ANSYS and CalculiX "
                                                          "display)")
    time_of_max_averaged_s: float | None = entry("s", "time of the averaged peak")
    location_of_max_averaged_m: tuple | None = entry("m", "place of the averaged peak, world axes")
    location_of_max_averaged_link_m: tuple | None = entry("m", "place of the averaged peak, link frame")
    von_mises_averaged_at_max_pa: float | None = entry("Pa", "nodal-averaged von Mises at the node and time of "
                                                             "the unaveraged peak")
    stress_discontinuity: float | None = entry("", "max_von_mises_pa / von_mises_averaged_at_max_pa - 1: above "
                                                   "about 0.1 the peak is not converged or is a singularity")
    geometry_order: int = entry("-", "element geometry: 1 straight-sided, 2 curved (isoparametric) P2 tets")
    element_geometry: str = entry("-", "'straight' or 'curved' (from geometry_order)")
    dynamic_amplification: float | None = entry("", "max_von_mises_pa / quasi_static_max_von_mises_pa")
    # fatigue (present when the study asks for fatigue)
    min_fatigue_life_cycles: float | None = entry("duty cycles", "shortest fatigue life over the link (null: "
                                                                 "infinite)", present_with="fatigue_infinite_life")
    min_fatigue_life_hours: float | None = entry("h", "the same life in hours of the duty (null: infinite)",
                                                 present_with="fatigue_infinite_life")
    fatigue_infinite_life: bool | None = entry("-", "no cycle reaches the curve's endurance limit or cut-off",
                                               present_with="fatigue_infinite_life")
    fatigue_damage_per_cycle: float | None = entry("", "largest Miner damage per duty cycle",
                                                   present_with="fatigue_infinite_life")
    location_of_min_life_m: tuple | None = entry("m", "governing node, link frame (null: nothing damaged)",
                                                 present_with="fatigue_infinite_life")
    fatigue_curve: str | None = entry("-", "S-N curve used (null: no point was counted)",
                                      present_with="fatigue_infinite_life")
    fatigue_region: str | None = entry("-", "region whose curve that is: a Region of the part or a surface of "
                                            "fatigue.details (null: the part's material)",
                                       present_with="fatigue_infinite_life")
    fatigue_points_counted: int | None = entry("-", "nodes whose histories were cycle-counted",
                                               present_with="fatigue_infinite_life")
    fatigue_safety_factor: float | None = entry("", "factor on the stress history that brings the shortest life "
                                                    "to the design life (null: no factor damages); with a "
                                                    "design life", present_with="fatigue_passed")
    fatigue_passed: bool | None = entry("-", "shortest life >= design life; with a design life",
                                        present_with="fatigue_passed")
    # the per-link model run beside the arm model (compare_link_model)
    max_von_mises_link_model_pa: float | None = entry("Pa", "the per-link model's peak von Mises, run beside the "
                                                            "arm model", present_with="max_von_mises_link_model_pa")
    quasi_static_max_von_mises_link_model_pa: float | None = entry(
        "Pa", "the per-link model's quasi-static peak", present_with="max_von_mises_link_model_pa")
    lowest_frequency_link_model_hz: float | None = entry("Hz", "the link clamped at its proximal joint",
                                                         present_with="max_von_mises_link_model_pa")
    # the review's detail (results.hotspots, results.boundary; docs/peaks.md)
    hot_spots: list | None = entry("-", "the most stressed places of the link, most stressed first, at least "
                                        "max(10% of the link's box diagonal, support_band_m) apart: location_link_m "
                                        "[m], time_s [s], von_mises_pa and von_mises_averaged_pa [Pa] at that node "
                                        "and time, stress_discontinuity, nearest_joint_face, "
                                        "distance_to_joint_face_m [m], at_joint_face (within support_band_m: "
                                        "maybe a singularity of the support)", present_with="hot_spots")
    boundary_conditions: list | None = entry("-", "the faces the link is held and loaded on: surface, role "
                                                  "(support, interface, point, mass), centre_link_m [m], "
                                                  "force_at_peak_n [N, link axes, at time_of_max_s], max_force_n "
                                                  "[N]", present_with="hot_spots")
    # a study of several load cases: this entry is the governing case's, its fatigue the duty cases' together
    governing_case: str | None = entry("-", "the load case of highest utilisation, whose entry this is",
                                       present_with="governing_case")
    utilisation: float | None = entry("", "that case's required safety factor / safety factor", present_with=
                                      "governing_case")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class JointSummary(_Entry):
    """One joint's peaks along the motion (``joints.<name>``): the reaction of the parent on the child in the
    child joint frame, and the actuator's effort."""

    max_reaction_force_n: float = entry("N", "largest reaction force magnitude")
    time_of_max_force_s: float = entry("s", "its time")
    max_reaction_moment_nm: float = entry("N m", "largest reaction moment magnitude")
    time_of_max_moment_s: float = entry("s", "its time")
    max_abs_torque: float | None = entry("N m (revolute), N (prismatic)", "largest actuator torque or force; "
                                         "actuated joints", present_with="max_abs_torque")
    time_of_max_torque_s: float | None = entry("s", "its time", present_with="max_abs_torque")
    undetermined_components: list | None = entry("-", "wrench components the rigid model leaves undetermined "
                                                      "(closed loops)", present_with="undetermined_components")
    # the reaction split along and across the joint axis a, for bearing and bolt sizing (structcheck.results.reactions)
    max_axial_force_n: float | None = entry("N", "largest |F . a|: force along the joint axis",
                                            present_with="max_axial_force_n")
    time_of_max_axial_force_s: float | None = entry("s", "its time", present_with="max_axial_force_n")
    max_radial_force_n: float | None = entry("N", "largest |F - (F . a) a|: force across the axis",
                                             present_with="max_axial_force_n")
    time_of_max_radial_force_s: float | None = entry("s", "its time", present_with="max_axial_force_n")
    max_tilting_moment_nm: float | None = entry("N m", "largest |M - (M . a) a|: tilting (bending) moment about "
                                                       "the joint origin", present_with="max_axial_force_n")
    time_of_max_tilting_moment_s: float | None = entry("s", "its time", present_with="max_axial_force_n")
    max_axis_moment_nm: float | None = entry("N m", "largest |M . a|: torque about the axis (the actuator's, for "
                                                    "an actuated revolute joint)", present_with="max_axial_force_n")
    time_of_max_axis_moment_s: float | None = entry("s", "its time", present_with="max_axial_force_n")
    governing_case: dict | None = entry("-", "a study of several load cases: each peak above -> the case it comes "
                                             "from", present_with="governing_case")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class AnalysisSummary(_Entry):
    """How the run was analysed (``analysis``)."""

    t_end_s: float = entry("s", "end of the motion")
    n_time_samples: int = entry("-", "samples of the analysis time grid")
    n_output_frames: int = entry("-", "the study's output frames in the VTK files (they also hold each link's peak)")
    damping_ratio: float = entry("", "modal damping ratio")
    n_modes: int = entry("-", "fixed-interface or clamped modes per link")
    quasi_static: bool = entry("-", "links solved without their elastic inertia")
    initial_state: str = entry("-", "the state before t = 0: 'rest' (standing still in the first pose, in "
                                    "equilibrium: a jump at t = 0 rings) or 'moving' (the motion already under way: "
                                    "its quasi-static state)", default="moving")
    total_nodes: int = entry("-", "nodes of all link meshes")
    total_elements: int = entry("-", "elements of all link meshes")
    arm_frozen_segments: int | None = entry("-", "pose changes at which the arm model re-assembled (arm model)",
                                            present_with="arm_timings_s")
    arm_max_joint_change: float | None = entry("rad or m", "joint change that starts a new pose segment (arm "
                                                           "model)", present_with="arm_timings_s")
    arm_timings_s: dict | None = entry("s", "phases of timings_s.arm (arm model)", present_with="arm_timings_s")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class FatigueSummary(_Entry):
    """The duty and the robot's shortest fatigue life (``fatigue``; null when the study asks for none)."""

    cycles_per_hour: float | None = entry("1/h", "duty cycles an hour")
    duty_cycle_s: float | None = entry("s", "length of one duty cycle")
    design_life_cycles: float | None = entry("duty cycles", "design life (null: none asked)")
    design_life_hours: float | None = entry("h", "design life in hours (null: none asked)")
    method: str = entry("-", "fatigue method (critical plane or equivalent stress)")
    mean_stress_correction: str = entry("-", "mean-stress correction used")
    surface_factor: float = entry("", "surface finish factor on the endurance strength")
    min_life_link: str | None = entry("-", "link of shortest life (null: every life infinite)")
    min_life_cycles: float | None = entry("duty cycles", "its life (null: infinite)")
    min_life_hours: float | None = entry("h", "its life in hours (null: infinite)")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RunChecks(_Entry):
    """The run's own consistency checks (``checks``): each near round-off in a sound run."""

    power_balance_rel_error: float = entry("", "joint power vs rate of change of kinetic + potential energy")
    equilibrium_rel_error: float = entry("", "largest link force-balance residual")
    rigid_body_equilibrium_rel_error: float = entry("", "largest rigid-body (Newton-Euler) residual")
    loop_closure_residual: float | None = entry("m", "closed loops' closure error",
                                                present_with="loop_closure_residual")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RunSummary(_Entry):
    """What a run found (summary.json). ``schema_version``: the layout's version (:data:`SCHEMA_VERSION`; 0 for
    summaries written before it existed)."""

    study: str = entry("-", "study name")
    description: str = entry("-", "study description")
    parameters: dict = entry("-", "the study script's build() parameters of this run", default=None)
    passed: bool = entry("-", "the design passes every check")
    quick: bool = entry("-", "a quick look on coarse meshes (structcheck run --quick)", default=False)
    failures: list = entry("-", "each failed check, naming link, value and limit", default=())
    required_safety_factor: float = entry("", "safety factor each link must reach")
    deflection_limit_m: float | None = entry("m", "tool-point deflection limit (null: none)")
    max_von_mises_pa: float = entry("Pa", "largest links' max_von_mises_pa")
    max_von_mises_link: str = entry("-", "the link where it occurs")
    max_equivalent_strain: float = entry("", "largest links' max_equivalent_strain")
    max_deformation_m: float = entry("m", "largest links' max_deformation_m")
    tool_point: str | None = entry("-", "named tool point (null: none)")
    tool_point_deflection_m: float | None = entry("m", "largest deflection of the tool point from its rigid "
                                                       "position")
    time_of_max_tool_point_deflection_s: float | None = entry("s", "its time")
    arm_lowest_mode_hz: float | None = entry("Hz", "the arm's lowest frequency along the motion (null: not "
                                                   "computed)")
    time_of_arm_lowest_mode_s: float | None = entry("s", "the pose's time")
    analysis: AnalysisSummary | None = entry("-", "how the run was analysed (see AnalysisSummary)")
    fatigue: FatigueSummary | None = entry("-", "the duty and shortest life (null: no fatigue asked)")
    links: dict = entry("-", "link name -> LinkSummary", default=None)
    joints: dict = entry("-", "joint name -> JointSummary", default=None)
    checks: RunChecks | None = entry("-", "the run's consistency checks (see RunChecks)")
    warnings: list = entry("-", "every warning, whole", default=())
    timings_s: dict = entry("s", "wall time per stage", default=None)
    versions: dict = entry("-", "versions of structcheck, Python, libraries, and the sparse solver", default=None)
    flexibility: str = entry("-", "structural model that ran: 'arm' (one flexible body) or 'link' (each link "
                                  "alone)", default="link")
    rigid_joints: list | None = entry("-", "joints the structural model held rigid: the arm model those without "
                                           "arm.joint_stiffness, the per-link model every joint; with any, the "
                                           "tool-point deflection and deformations are lower bounds and the "
                                           "frequencies upper bounds (null: written before this field)")
    rigid_joints_meaning: str | None = entry("-", "what holding them rigid means for this run's numbers, in words "
                                                  "('' when no joint is rigid)")
    arm_modes_hz: list | None = entry("Hz", "the assembled arm's lowest six frequencies where the first is "
                                            "lowest (arm model; null otherwise)")
    time_of_arm_modes_s: float | None = entry("s", "that pose's time (arm model)")
    max_total_deformation_m: float | None = entry("m", "largest deformation relative to the ground (arm model)")
    inputs: InputsSummary | None = entry("-", "every input of the run and where it came from (see InputsSummary; "
                                              "null: written before this field)")
    drivetrain: dict | None = entry("-", "joint name -> JointDriveSummary: each drive's checks, most utilised joint "
                                         "first (null: the study names no drives)")
    schema_version: int = entry("-", "summary.json layout version", default=SCHEMA_VERSION)
    cases: dict | None = entry("-", "a study of several load cases: case name -> CaseSummary; the rest of the "
                                    "summary is their envelope", present_with="cases")
    extra: dict = field(default_factory=dict)

    @property
    def governing_link(self) -> str:
        """The link with the smallest safety factor (the peak stress's link when every factor is infinite)."""
        sf = {n: L.min_safety_factor for n, L in self.links.items() if L.min_safety_factor is not None}
        return min(sf, key=sf.get) if sf else self.max_von_mises_link


# nested entries: field name -> (container kind, class); read_summary builds them from JSON
NESTING[RunSummary] = {"analysis": (None, AnalysisSummary), "fatigue": (None, FatigueSummary),
                       "checks": (None, RunChecks), "links": (dict, LinkSummary), "joints": (dict, JointSummary),
                       "inputs": (None, InputsSummary), "drivetrain": (dict, JointDriveSummary),
                       "cases": (dict, CaseSummary)}


def from_dict(cls, data: Mapping[str, Any]):
    """Build ``cls`` (a summary dataclass) from its JSON form ``data``: known keys into fields (nested entries
    built too), the others into ``extra``."""
    names = {f.name for f in dataclasses.fields(cls)} - {"extra"}
    kwargs, extra = {}, {}
    for key, value in data.items():
        if key not in names:
            extra[key] = value
            continue
        nest = _nested(cls, key)
        if nest is not None and value is not None:
            kind, sub = nest
            value = {k: from_dict(sub, v) for k, v in value.items()} if kind is dict else from_dict(sub, value)
        kwargs[key] = value
    return cls(**kwargs, extra=extra)


def summary_from_json(data: Mapping[str, Any], where: str = "summary") -> RunSummary:
    """The typed summary of a summary.json document ``data`` (a dict); files written before ``schema_version``
    existed read as version 0. InputError naming ``where`` when it is not a summary or is of a newer layout."""
    if not isinstance(data, Mapping) or not isinstance(data.get("links"), Mapping):
        raise InputError(f"{where} has no 'links' entry: not a structcheck summary")
    version = data.get("schema_version", 0)
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise InputError(f"{where} has schema_version {version!r}, newer than this structcheck reads "
                         f"({SCHEMA_VERSION}); upgrade structcheck")
    return from_dict(RunSummary, {**data, "schema_version": version})


def write_summary(summary: RunSummary, path: Path) -> None:
    """Write ``summary`` as summary.json (NaN and infinities as null)."""
    Path(path).write_text(json.dumps(summary.to_dict(), indent=2) + "\n")


def read_summary(folder: str | os.PathLike) -> RunSummary:
    """The typed summary of a results folder's summary.json; InputError naming the folder when it is missing or
    not a summary."""
    folder = Path(folder)
    path = folder / "summary.json"
    if not folder.is_dir():
        raise InputError(f"results folder {str(folder)!r} does not exist")
    if not path.is_file():
        raise InputError(f"{str(folder)!r} is not a structcheck results folder: no summary.json in it")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{str(path)!r} is not valid JSON: {exc}") from None
    return summary_from_json(data, repr(str(path)))


def markdown() -> str:
    """docs/summary.md: every field of summary.json with its type, unit and meaning, entry by entry."""
    lines = ["# summary.json, field by field", "",
             "Generated from `structcheck/results/schema.py` (its `markdown()`); a test keeps it in step. "
             + __doc__.split("\n\n")[2].replace("\n", " "), ""]
    for cls, where in ((RunSummary, "top level"), (AnalysisSummary, "analysis"), (FatigueSummary, "fatigue"),
                       (RunChecks, "checks"), (LinkSummary, "links.&lt;link&gt;"),
                       (JointSummary, "joints.&lt;joint&gt;"), *INPUT_ENTRIES,
                       *DRIVE_ENTRIES, *CASE_ENTRIES):
        lines += [f"## {where} ({cls.__name__})", "", " ".join(cls.__doc__.split()), "",
                  "| field | type | unit | meaning |", "|---|---|---|---|"]
        hints = typing.get_type_hints(cls, {**vars(sys.modules[__name__]), **vars(sys.modules[cls.__module__])})
        for f in dataclasses.fields(cls):
            if f.name == "extra":
                continue
            group = f.metadata["present_with"]
            doc = f.metadata["doc"] + (f" *(present with `{group}`)*" if group else "")
            lines.append(f"| `{f.name}` | {_type_name(hints[f.name])} | {f.metadata['unit'] or '1'} | {doc} |")
        lines.append("")
    return "\n".join(lines)


def _type_name(hint) -> str:
    """'float or None' for ``float | None``; class names without their module."""
    args = typing.get_args(hint)
    if args and type(hint).__name__ == "UnionType":
        return " or ".join(_type_name(a) for a in args)
    return "None" if hint is type(None) else getattr(hint, "__name__", str(hint))
