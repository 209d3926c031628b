"""Every input of a run, as summary.json records it (``inputs``: :mod:`.inputs_schema`): the effective study after
``--set``, each value with where it came from (structcheck's default, the study script, the command line, a quick
look), each joint's stiffness, each part's material and mesh, the damping and the solver.

Where a value came from needs what only the command line knows (the study script, what was given with ``--set``):
it hands that over as an :class:`Origin` around the run (:func:`run_origin`), which the summary reads
(:func:`current_origin`); a run from Python (``structcheck.run(study)``) has none, and its values are 'default' or
'study'. Every field of the Study is recorded, read from the dataclass itself, so a new field is recorded with no
change here. A value counts as 'default' when it equals structcheck's default, whether or not the script wrote it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .inputs_schema import InputsSummary, InputValue, JointInput, PartInput, ScriptInput, SNCurveInput


@dataclass(frozen=True)
class Origin:
    """How the command line made a run's study: ``script`` the study script's path, ``out`` the results folder,
    ``given`` every NAME=VALUE given on the command line as given (build() parameters, ``part.field`` settings;
    ``--link-model`` as ``arm.compare_link_model``), ``quick`` a quick look (``--quick``)."""

    script: Path
    out: Path
    given: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    quick: bool = False


def command_origin(script, out, given: Mapping[str, Any], *, link_model: bool = False, quick: bool = False) -> Origin:
    """The :class:`Origin` of a command-line run of the study script ``script`` into ``out``: ``given`` what was given
    (``--set``, a script's own options), ``link_model`` the ``--link-model`` option, ``quick`` ``--quick``."""
    return Origin(Path(script), Path(out), {**given, **({"arm.compare_link_model": True} if link_model else {})},
                  bool(quick))


_ORIGIN: ContextVar[Origin | None] = ContextVar("structcheck_run_origin", default=None)


@contextmanager
def run_origin(origin: Origin | None):
    """Within the block, runs record ``origin`` as where their study came from."""
    token = _ORIGIN.set(origin)
    try:
        yield
    finally:
        _ORIGIN.reset(token)


def current_origin() -> Origin | None:
    """The :class:`Origin` of the run being made (None: a run from Python)."""
    return _ORIGIN.get()


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes (hex)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def study_inputs(study, origin: Origin | None = None) -> InputsSummary:
    """The inputs of a run of ``study`` (a ``study.Study``) whose study came from ``origin`` (None: from Python)."""
    from ..fe.solvers import default_backend

    given = dict(origin.given) if origin else {}
    settings = study_settings(study, {_setting_name(k): v for k, v in given.items() if "." in k},
                              bool(origin and origin.quick))
    return InputsSummary(
        script=script_input(origin) if origin else None,
        build_parameters=build_parameter_inputs(origin.script, given) if origin else {},
        settings=settings, joints=joint_inputs(study, settings["arm.joint_stiffness"].source),
        parts={name: part_input(study, name) for name in study.parts}, damping=damping_text(study),
        sparse_solver=default_backend())


def _setting_name(key: str) -> str:
    """'study.n_frames' -> 'n_frames'; 'arm.joint_stiffness' as it is."""
    return key.split(".", 1)[1] if key.startswith("study.") else key


# ------------------------------------------------------------------------------------------------ the study itself
def study_settings(study, given: Mapping[str, Any], quick: bool = False) -> dict[str, InputValue]:
    """Every field of ``study`` -> its value (JSON, :func:`describe`) and source: '--set' when named in ``given``
    (``field`` or ``part.field``), '--quick' for what a quick look sets, 'default' when equal to the Study's (or the
    part's) default, else 'study'. A part of :data:`structcheck.settings.PARTS` (``arm``, ``fatigue``) is recorded
    field by field (``arm.joint_stiffness``); a part left None as one value."""
    from ..quick import QUICK_FIELDS
    from ..settings import PARTS

    out = {}
    for f in dataclasses.fields(study):
        value = getattr(study, f.name)
        if f.name in PARTS and value is not None:
            template = PARTS[f.name]()
            for g in dataclasses.fields(value):
                key = f"{f.name}.{g.name}"
                out[key] = _input(getattr(value, g.name), getattr(template, g.name), key in given)
            continue
        if quick and f.name in QUICK_FIELDS and f.name not in given:
            out[f.name] = InputValue(value=describe(value, f.name), source="--quick")
            continue
        out[f.name] = _input(value, _default(f), f.name in given, f.name)
    if "arm.joint_stiffness" not in out:  # not a field of a part: keep the joints' source readable
        out["arm.joint_stiffness"] = InputValue(value={}, source="default")
    return out


_NO_DEFAULT = object()


def _default(f: dataclasses.Field):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return _NO_DEFAULT


def _input(value, default, given: bool, name: str = "") -> InputValue:
    shown = describe(value, name)
    source = ("--set" if given else
              "default" if default is not _NO_DEFAULT and describe(default, name) == shown else "study")
    return InputValue(value=shown, source=source)


def describe(value, name: str = ""):
    """``value`` as JSON data: numbers, text, lists and mappings as they are; an Enum by its value; a dataclass
    field by field; a function by its name; the robot and the parts as text (the parts in ``inputs.parts``);
    anything else by its repr (its type's name where the repr is an address)."""
    if name == "robot":
        return robot_text(value)
    if name == "parts":
        return {link: f"{part.material.name}, {part.mesh.t.shape[1]} elements (inputs.parts.{link})"
                for link, part in dict(value).items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (np.generic, np.ndarray)):
        return describe(value.tolist())
    if isinstance(value, Mapping):
        return {str(k): describe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: describe(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if callable(value) and hasattr(value, "__qualname__"):
        return value.__qualname__
    text = repr(value)
    return type(value).__name__ if " at 0x" in text else text


def robot_text(robot) -> str:
    """The robot in one line: its links, joints (with their type) and named points; a closed chain's cut joints."""
    from ..rigid.stage import as_chain

    chain = as_chain(robot)
    tree = chain.tree
    joints = ", ".join(f"{j.name} ({j.type})" for j in tree.ordered_joints)
    cuts = f"; cut joints {', '.join(c.name for c in chain.cuts)}" if chain.cuts else ""
    return (f"{type(robot).__name__}: links {', '.join(tree.link_names)}; joints {joints}{cuts}; points "
            f"{', '.join(sorted(tree.points)) or 'none'}")


# ------------------------------------------------------------------------------------------------ the study script
def script_input(origin: Origin) -> ScriptInput:
    """The study script of ``origin``: its name, its path relative to the results folder, its bytes' SHA-256 and
    what was given on the command line."""
    script = Path(origin.script).resolve()
    try:
        rel = Path(os.path.relpath(script, Path(origin.out).resolve())).as_posix()
    except ValueError:  # another drive (Windows): no relative path
        rel = None
    return ScriptInput(name=script.name, path=rel, sha256=file_sha256(script), set=describe(dict(origin.given)))


def build_parameter_inputs(script: Path, given: Mapping[str, Any]) -> dict[str, InputValue]:
    """build()'s parameters of ``script`` (read from its source: :func:`structcheck.scripthelp.build_signature`):
    the value given on the command line ('--set'), else build()'s default ('default'; an expression as written)."""
    from ..scripthelp import build_signature

    sig = build_signature(script)
    out = {}
    for p in sig.parameters if sig else ():
        if p.name in given:
            out[p.name] = InputValue(value=describe(given[p.name]), source="--set")
        else:
            out[p.name] = InputValue(value=describe(sig.literal_defaults.get(p.name, p.default)), source="default")
    for name in sorted(set(given) - {p.name for p in (sig.parameters if sig else ())}):
        if "." not in name:  # taken by build(**kwargs)
            out[name] = InputValue(value=describe(given[name]), source="--set")
    return out


# ------------------------------------------------------------------------------------------------ joints
def joint_inputs(study, source: str) -> dict[str, JointInput]:
    """How the study's structural model holds each joint of the robot's tree: a spring where the arm model has
    ``arm.joint_stiffness`` for it (rigid in tilt unless given ``(k, k_tilt)``), free about its axis where a closed
    chain leaves it passive, fixed for a fixed joint, else rigid (the per-link model: every load-bearing joint);
    ``source`` that of ``arm.joint_stiffness``."""
    from ..flex.assembly import chain_parts
    from ..settings import Flexibility

    tree, _, passive = chain_parts(study.robot)
    springs = dict(study.arm.joint_stiffness) if study.flexibility is Flexibility.ARM and study.parts else {}
    out = {}
    for j in tree.ordered_joints:
        k = springs.get(j.name)
        k_axis, k_tilt = (k if isinstance(k, (tuple, list)) else (k, None)) if k is not None else (None, None)
        about = ("fixed" if j.type == "fixed" else "free" if j.name in passive else
                 "spring" if k_axis is not None else "rigid")
        out[j.name] = JointInput(about_axis=about, torsional_stiffness_nm_per_rad=k_axis if about == "spring" else None,
                                 tilt="spring" if k_tilt is not None else "rigid", tilt_stiffness_nm_per_rad=k_tilt,
                                 source=source)
    return out


def damping_text(study) -> str:
    """The damping as the study's structural model applies it."""
    from ..settings import Flexibility

    if study.quasi_static:
        return "none: quasi-static (no elastic inertia, so no damping enters)"
    if not study.parts:
        return "none: no parts (rigid-body dynamics only)"
    where = ("every mode of the assembled arm" if study.flexibility is Flexibility.ARM else
             "every mode of each link clamped at its proximal joint")
    return f"modal damping ratio {study.damping_ratio:g} on {where}"


# ------------------------------------------------------------------------------------------------ parts
def part_input(study, link: str) -> PartInput:
    """Link ``link``'s part: its material's constants, its S-N curves (:func:`sn_curves`) and its mesh
    (:func:`mesh_numbers`)."""
    part = study.parts[link]
    mat = part.material
    brittle = mat.criterion == "max_principal"
    tensile = mat.strength if brittle else mat.tensile_strength  # None: not given (a user's material)
    return PartInput(material=mat.name, criterion=mat.criterion, density_kg_m3=mat.density, youngs_modulus_pa=mat.E,
                     poisson_ratio=mat.nu, yield_strength_pa=None if brittle else mat.strength,
                     tensile_strength_pa=tensile, material_source=mat.source, sn_curves=sn_curves(study, link),
                     **mesh_numbers(part))


def sn_curves(study, link: str) -> dict[str, SNCurveInput]:
    """The S-N curves of link ``link``: those its fatigue uses when the study asks for fatigue ('material' the
    material's, times the surface factor; then the regions of ``fatigue.details``, '*' the whole link), else the
    material's own (none when the material has no fatigue data)."""
    from ..fatigue.duty import study_duty, study_fatigue_settings
    from ..fatigue.links import check_settings
    from ..fatigue.sn import material_sn_curve

    duty = study_duty(study)
    if duty is not None:
        curves = check_settings(study_fatigue_settings(study, duty, link), study.parts[link], link)
    else:
        try:
            curves = {"": material_sn_curve(study.parts[link].material)}  # its own data, a user's too
        except ValueError:
            curves = {}
    return {region or "material": SNCurveInput(
        name=c.name, quantity=c.quantity, S_ref_pa=c.S_ref, N_ref_cycles=c.N_ref, m=c.m, N_knee_cycles=c.N_knee,
        N_cutoff_cycles=c.N_cutoff, endurance_limit_pa=c.limit, ultimate_strength_pa=c.ultimate_strength,
        source=c.source) for region, c in curves.items()}


def mesh_numbers(part) -> dict[str, Any]:
    """A part's mesh: nodes, elements, shortest and longest element edge [m] (vertex to vertex), the worst
    shape quality of the vertex tetrahedra, the worst scaled Jacobian of curved elements (None: straight), and the
    mesh's SHA-256 (:func:`mesh_sha256`)."""
    p, t = part.mesh.p.T, part.mesh.t.T  # (n_vertices, 3) [m], (n_elements, 4)
    edge_len = np.linalg.norm(p[part.mesh.edges[0]] - p[part.mesh.edges[1]], axis=1)
    v = p[t]
    pairs = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))
    l_max = np.stack([np.linalg.norm(v[:, a] - v[:, b], axis=1) for a, b in pairs], 1).max(axis=1)
    volume = np.einsum("ij,ij->i", v[:, 1] - v[:, 0], np.cross(v[:, 2] - v[:, 0], v[:, 3] - v[:, 0])) / 6.0
    quality = 6.0 * np.sqrt(2.0) * np.abs(volume) / l_max ** 3  # 1 for a regular tetrahedron; either node order
    jacobian = None
    if part.geometry_order == 2:
        from ..fe.mesh import curved_quality

        cells = part.cells
        chunks = range(0, len(cells), 20_000)  # the Jacobians at 10 + 31 points of every element: in chunks
        jacobian = min(float(curved_quality(part.points, cells[k:k + 20_000, :4], part.points[cells[k:k + 20_000, 4:]])
                             .min()) for k in chunks)
    return dict(n_nodes=int(len(part.points)), n_elements=int(len(t)), min_edge_m=float(edge_len.min()),
                max_edge_m=float(edge_len.max()), worst_shape_quality=float(quality.min()),
                worst_scaled_jacobian=jacobian, mesh_sha256=mesh_sha256(part))


def mesh_sha256(part) -> str:
    """SHA-256 of a part's mesh: its nodes' coordinates (float64), its elements' node indices (int64) and each named
    surface's name and facets, in name order. Equal for the same mesh however it was made (a file, gmsh in build())."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(part.points, dtype=np.float64).tobytes())
    h.update(np.ascontiguousarray(part.cells, dtype=np.int64).tobytes())
    for name in sorted(part.surfaces):
        h.update(name.encode() + b"\0")
        h.update(np.ascontiguousarray(np.sort(part.surface_facets(name)), dtype=np.int64).tobytes())
    return h.hexdigest()
