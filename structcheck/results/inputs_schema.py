"""The inputs a run used (``inputs`` in summary.json), as typed entries: the effective study after ``--set`` with where
each value came from, each joint's stiffness, each part's material and mesh, the damping, the solver, and the study
script with what ``structcheck rerun`` needs. Built by :func:`structcheck.results.inputs.study_inputs`; the fields
are listed in docs/summary.md with the rest of the summary (:func:`structcheck.results.schema.markdown`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .entries import NESTING, _Entry, entry

#: where an input's value came from (``InputValue.source``)
SOURCES = ("default", "study", "--set", "--quick")


@dataclass(frozen=True)
class InputValue(_Entry):
    """One input of the run and where its value came from (``inputs.settings.<name>``,
    ``inputs.build_parameters.<name>``)."""

    value: Any = entry("-", "the value the run used, as JSON (numbers in the SI units the Study documents; a motion "
                            "law as its text; a function by its name; an object that is not data by its text)")
    source: str = entry("-", "where it came from: 'default' (equal to structcheck's default, or build()'s own for a "
                             "build() parameter), 'study' (the study script set it), '--set' (given on the command "
                             "line: --set NAME=VALUE, a study script's own option such as --wall-mm, or --link-model "
                             "for arm.compare_link_model), '--quick' (a quick look set it)")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ScriptInput(_Entry):
    """The study script a run was built from (``inputs.script``): what ``structcheck rerun RESULTS`` runs again,
    refusing a script whose bytes changed. No absolute path is stored: the path is relative to the results folder,
    so a project copied whole (scripts and results) to another machine still reruns."""

    name: str = entry("-", "the script's file name")
    path: str | None = entry("-", "its path relative to the results folder, '/'-separated (null: on another drive "
                                  "than the results; rerun then needs --study)")
    sha256: str = entry("-", "SHA-256 of the script's bytes when it ran")
    set: dict = entry("-", "every NAME=VALUE given on the command line, as given (build() parameters and "
                           "part.field settings; --link-model as arm.compare_link_model): what rerun gives again",
                      default=None)
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class JointInput(_Entry):
    """How the structural model held one joint (``inputs.joints.<joint>``): rigid, a spring (its stiffness), free
    about its axis (a closed chain's passive joint) or fixed. The per-link model holds every joint rigid whatever
    ``arm.joint_stiffness`` says (``inputs.settings`` records what was given)."""

    about_axis: str = entry("-", "'rigid', 'spring' (torsional_stiffness_nm_per_rad), 'free' (a closed chain's "
                                 "passive joint) or 'fixed' (a fixed joint)")
    torsional_stiffness_nm_per_rad: float | None = entry("N m/rad", "stiffness about the axis (null: not a spring)")
    tilt: str = entry("-", "about the two axes square to the joint's: 'rigid' or 'spring'")
    tilt_stiffness_nm_per_rad: float | None = entry("N m/rad", "tilt stiffness (null: rigid in tilt)")
    source: str = entry("-", "where the stiffness (or its absence) came from: the source of arm.joint_stiffness")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class SNCurveInput(_Entry):
    """An S-N curve a part's fatigue uses (``inputs.parts.<link>.sn_curves.<region>``): ``N = N_ref (S_ref / S)^m``
    through the knees to the cut-off (structcheck.fatigue.SNCurve), with its source."""

    name: str = entry("-", "curve name (a material, a detail category; 'x f' when scaled by a surface factor f)")
    quantity: str = entry("-", "'amplitude' (base material, R = -1) or 'range' (a welded detail category)")
    S_ref_pa: float = entry("Pa", "stress of the reference point of the first segment")
    N_ref_cycles: float = entry("cycles", "life at S_ref_pa")
    m: tuple = entry("", "inverse slope of each segment")
    N_knee_cycles: tuple = entry("cycles", "lives where the slope changes")
    N_cutoff_cycles: float | None = entry("cycles", "life at the endurance limit or cut-off (null: none, the last "
                                                    "slope goes on)")
    endurance_limit_pa: float = entry("Pa", "stress at the cut-off: below it the life is infinite (0: no cut-off)")
    ultimate_strength_pa: float | None = entry("Pa", "ultimate strength the mean-stress correction uses (null: "
                                                     "none, a detail category)")
    source: str = entry("-", "where the numbers come from")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PartInput(_Entry):
    """One link's part (``inputs.parts.<link>``): its material's constants with their source, the S-N curves its
    fatigue uses, and its mesh: element count, size range, worst quality and a hash of it."""

    material: str = entry("-", "material name")
    criterion: str = entry("-", "failure criterion: 'von_mises' (ductile) or 'max_principal' (brittle)")
    density_kg_m3: float = entry("kg/m^3", "density")
    youngs_modulus_pa: float = entry("Pa", "Young's modulus E")
    poisson_ratio: float = entry("", "Poisson's ratio nu")
    yield_strength_pa: float | None = entry("Pa", "yield strength (null: a brittle material, no yield point)")
    tensile_strength_pa: float | None = entry("Pa", "ultimate tensile strength: a brittle material's strength, a "
                                                    "ductile one's from its fatigue data (null: not stated)")
    material_source: str = entry("-", "where the material's constants come from")
    sn_curves: dict = entry("-", "region -> SNCurveInput: 'material' the material's curve (times the surface "
                                 "factor when fatigue runs), then the fatigue.details regions ('*' the whole link); "
                                 "empty when the material has no fatigue data and none is asked", default=None)
    n_nodes: int = entry("-", "mesh nodes (quadratic tetrahedra: vertices and mid-side nodes)")
    n_elements: int = entry("-", "mesh elements")
    min_edge_m: float = entry("m", "shortest element edge (vertex to vertex)")
    max_edge_m: float = entry("m", "longest element edge (vertex to vertex)")
    worst_shape_quality: float = entry("", "smallest 6 sqrt(2) V / l_max^3 of the elements' vertex tetrahedra (1 a "
                                           "regular tetrahedron, 0 a flat one)")
    worst_scaled_jacobian: float | None = entry("", "curved elements: the smallest det J over the largest in an "
                                                    "element (1 straight edges, <= 0 folded; as gmsh's minimum "
                                                    "scaled Jacobian); null for straight-sided elements")
    mesh_sha256: str = entry("-", "SHA-256 of the mesh (node coordinates, element connectivity, named surfaces): "
                                  "structcheck rerun refuses a mesh that changed")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class InputsSummary(_Entry):
    """Every input of the run (``inputs``): the effective study after ``--set``, each value with where it came
    from; each joint's stiffness; each part's material and mesh; the damping and the solver; the study script."""

    script: ScriptInput | None = entry("-", "the study script (null: run from Python, structcheck.run(study), "
                                            "which structcheck rerun cannot repeat)")
    build_parameters: dict = entry("-", "build() parameter -> InputValue: what build() was given, or its default "
                                        "(empty: no build() or not run from a script)", default=None)
    settings: dict = entry("-", "every field of the Study as the run used it -> InputValue ('arm.joint_stiffness' "
                                "for a field of a part; robot and parts as text, their details below)", default=None)
    joints: dict = entry("-", "joint name -> JointInput", default=None)
    parts: dict = entry("-", "link name -> PartInput", default=None)
    damping: str = entry("-", "the damping as applied: the modal ratio and the modes it damps, or none")
    sparse_solver: str = entry("-", "sparse direct solver of the factorizations (STRUCTCHECK_SOLVER or the best "
                                    "available)")
    extra: dict = field(default_factory=dict)


#: the entries of this module in docs/summary.md's order, with where each sits
ENTRIES = ((InputsSummary, "inputs"), (ScriptInput, "inputs.script"),
           (InputValue, "inputs.settings.&lt;name&gt;, inputs.build_parameters.&lt;name&gt;"),
           (JointInput, "inputs.joints.&lt;joint&gt;"), (PartInput, "inputs.parts.&lt;link&gt;"),
           (SNCurveInput, "inputs.parts.&lt;link&gt;.sn_curves.&lt;region&gt;"))

NESTING.update({
    InputsSummary: {"script": (None, ScriptInput), "build_parameters": (dict, InputValue),
                    "settings": (dict, InputValue), "joints": (dict, JointInput), "parts": (dict, PartInput)},
    PartInput: {"sn_curves": (dict, SNCurveInput)},
})
