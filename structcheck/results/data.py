"""What a run hands to the results writers: the time histories of the joints and each link's peaks and fields."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks.solution import LinkSolution
from ..fe.linkbasis import LinkBasis
from ..fe.regions import safety_factor as node_safety_factor
from ..fe.response import frame_fields
from .boundary import boundary_conditions
from .hotspots import hot_spots, surface_distances
from .schema import RunSummary


def element_geometry(geometry_order: int) -> str:
    """'straight' (geometry order 1: mid-side nodes at the edge midpoints) or 'curved' (2: isoparametric)."""
    return "curved" if geometry_order == 2 else "straight"


def element_geometry_note(parts) -> str:
    """One line for a run's header: which links (name -> Part) have curved and which straight-sided elements."""
    by = {g: [n for n, p in parts.items() if element_geometry(p.geometry_order) == g] for g in ("curved", "straight")}
    if not by["curved"]:
        return "elements: straight-sided P2 tets (all links)"
    if not by["straight"]:
        return "elements: curved P2 tets (all links)"
    return f"elements: curved P2 tets ({', '.join(by['curved'])}), straight-sided ({', '.join(by['straight'])})"


@dataclass(frozen=True)
class LinkResult:
    """Everything the results folder says about one link.

    Arrays: ``points`` (n_nodes, 3) in the link frame [m]; ``cells`` (n_elem, 10) node indices in VTK
    quadratic-tetra order (4 for linear tets); ``frame_fields`` arrays are over the stored steps (n_steps, ...):
    the output frames, and in a run's result every link's peak instant beside them (``RunResult.steps``);
    ``envelope`` maps field name -> (n_nodes,) or (n_nodes, 3); ``history`` maps name -> (n_t,) on the fine grid.
    Stress fields on nodes are the maximum over the elements sharing the node of the unaveraged element-node
    values, so the peak of the plotted field is the reported peak; ``envelope["von_mises_averaged"]`` is the
    envelope of the nodal-averaged von Mises (the plain mean of the element-node stress tensors at each node, as
    ANSYS and CalculiX display), whose peak is ``max_von_mises_averaged_pa``.

    ``stress_discontinuity`` = ``max_von_mises_pa / von_mises_averaged_at_max_pa - 1``: the unaveraged peak over
    the nodal-averaged von Mises at the same node and time (``fe.response.LinkResponse.stress_discontinuity``).
    ``geometry_order``: the element geometry the link was analysed with (``Part.geometry_order``): 1 straight-sided
    P2 tets, 2 curved (isoparametric, stresses at all 10 element nodes); the summary names it ``element_geometry``
    'straight' or 'curved'.
    """

    name: str
    material: str
    mass_kg: float
    yield_strength_pa: float
    criterion: str
    n_nodes: int
    n_elements: int
    max_von_mises_pa: float
    time_of_max_s: float
    location_of_max_m: tuple[float, float, float]  # world axes at the peak time
    location_of_max_link_m: tuple[float, float, float]  # link frame
    max_equivalent_strain: float
    max_deformation_m: float
    time_of_max_deformation_s: float
    min_safety_factor: float
    passed: bool
    max_von_mises_away_from_support_pa: float = float("nan")
    support_band_m: float = float("nan")
    lowest_frequency_hz: float = float("nan")
    quasi_static_max_von_mises_pa: float = float("nan")
    equilibrium_rel_error: float = float("nan")
    max_von_mises_averaged_pa: float = float("nan")
    time_of_max_averaged_s: float = float("nan")
    location_of_max_averaged_m: tuple[float, float, float] = (float("nan"),) * 3  # world axes at its time
    location_of_max_averaged_link_m: tuple[float, float, float] = (float("nan"),) * 3  # link frame
    von_mises_averaged_at_max_pa: float = float("nan")
    stress_discontinuity: float = float("nan")
    points: np.ndarray | None = None
    cells: np.ndarray | None = None
    frame_fields: dict[str, np.ndarray] = field(default_factory=dict)
    peak_fields: dict[str, np.ndarray] = field(default_factory=dict)  # at the peak sample (n_nodes[, 3]), link axes
    T_world_peak: np.ndarray | None = None  # (4, 4) the link's placement at its peak sample
    envelope: dict[str, np.ndarray] = field(default_factory=dict)
    history: dict[str, np.ndarray] = field(default_factory=dict)
    fatigue: dict[str, Any] = field(default_factory=dict)  # summary entries (empty: fatigue did not run)
    fatigue_result: Any = None  # fatigue.LinkFatigue (governing history and cycles, for the plot)
    geometry_order: int = 1
    hot_spots: list | None = None  # results.hotspots: the few most stressed places, each with its time and values
    boundary_conditions: list | None = None  # results.boundary: the faces held and loaded, with their forces


@dataclass(frozen=True)
class RunResult:
    """A study run: time grids, joint histories, link results, verdict and the typed summary (summary.json).

    ``t`` (n_t,) is the fine analysis grid [s]; ``frame_times`` (n_steps,) the stored steps (a subset of t): the
    output frames and, with ``steps`` (``results.steps.Steps``: which step is what), each link's peak instant and
    the samples around it; ``T_world_link_frames`` (n_steps, n_links, 4, 4) places each link at the stored steps;
    ``tool_point_deflection`` (n_t, 3) the tool point's deflection in world axes [m] (None without a tool point);
    ``arm_modes`` the assembled arm's lowest modes at the pose where the first is lowest
    (``flex.modes.ArmModeShapes``; None unless the arm model ran); ``arm_frequencies`` its lowest frequencies
    along the motion: (times (n_seg,) [s] of the frozen poses, frequencies (n_seg, n_freq) [Hz]) (arm model).
    """

    study_name: str
    t: np.ndarray
    frame_times: np.ndarray
    joint_names: list[str]
    dof_names: list[str]
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    joint_wrenches: np.ndarray  # (n_t, n_joints, 6) parent on child, child joint frame
    link_names: list[str]
    T_world_link_frames: np.ndarray
    links: dict[str, LinkResult]
    summary: RunSummary
    tool_point_deflection: np.ndarray | None = None
    arm_modes: Any = None
    arm_frequencies: tuple | None = None
    notes: tuple = ()  # the run's warnings (structcheck.notes.Note): summary.warnings holds their whole text
    drives: dict = field(default_factory=dict)  # joint -> drives.study.JointDrive (motor columns of joints.csv)
    steps: Any = None  # results.steps.Steps; None: every stored step is an output frame


def fatigue_entries(fat, duty, points: np.ndarray) -> dict[str, Any]:
    """A link's fatigue entries of summary.json from its ``fatigue.LinkFatigue`` and the study's ``Duty``: lives
    in duty cycles and hours (inf, written null, with ``fatigue_infinite_life`` true: no cycle reaches the
    curve's endurance limit or cut-off), damage per duty cycle, the governing node's place (link frame [m]),
    and with a design life the fatigue safety factor (factor on the stress history that brings the shortest life
    to the design life; null when no factor damages) and ``fatigue_passed`` (shortest life >= design life)."""
    life = fat.min_life_cycles
    out = {"min_fatigue_life_cycles": life, "min_fatigue_life_hours": duty.hours(life) if np.isfinite(life) else
           float("inf"), "fatigue_infinite_life": bool(np.isinf(life)),
           "fatigue_damage_per_cycle": float(fat.damage_per_cycle.max()),
           "location_of_min_life_m": None if fat.governing_node is None else
           tuple(map(float, points[fat.governing_node])),
           "fatigue_curve": fat.curve.name if fat.curve is not None else None,
           "fatigue_region": fat.region if fat.curve is not None else None,
           "fatigue_points_counted": fat.n_points_counted}
    if duty.design_life_cycles is not None:
        out["fatigue_safety_factor"] = fat.safety_factor
        out["fatigue_passed"] = bool(life >= duty.design_life_cycles)
    return out


def link_result(sol: LinkSolution, T_world_link: np.ndarray, t: np.ndarray, frame_index: np.ndarray,
                required_safety_factor: float, support_band_m: float, fatigue=None, duty=None,
                applied=None) -> LinkResult:
    """Everything the results say about one link: its peaks on the analysis grid ``t`` (n_t,), where they are
    (world axes from ``T_world_link`` (n_t, 4, 4), the link's placement), its safety factor and pass/fail against
    ``required_safety_factor``, the peak away from a band of ``support_band_m`` [m] around its support (where the
    clamp makes stresses singular), and its fields at the output frames ``frame_index``; with ``fatigue`` (a
    ``fatigue.LinkFatigue``) and the study's ``duty``, its fatigue entries and envelope fields, and a pass that
    needs the design life too. ``applied``: the link's loads with their columns (``LinkLoads``; default
    ``sol.loads``, which the arm model's solution carries without them), for the faces and their forces."""
    part, resp, basis, mat = sol.part, sol.response, sol.basis, sol.part.material
    x_link = part.points[resp.node_max]
    x_world = _world(T_world_link[resp.i_time_max], x_link)
    x_avg_link = part.points[resp.node_max_averaged]
    x_avg_world = _world(T_world_link[resp.i_time_max_averaged], x_avg_link)
    vm_env = resp.vm_envelope_nodes
    sf_env = node_safety_factor(part, vm_env, resp.principal_envelope)  # each node its weakest region's material
    min_sf = float(np.min(sf_env))
    away = part.distance_to_surfaces(list(sol.loads.support)) > support_band_m
    vm_away = float(vm_env[away].max()) if away.any() else float("nan")
    i_peak = resp.i_time_max
    ff = _fields(part, basis, mat, sol.loads.coeff[np.r_[frame_index, i_peak]], sol.modal[np.r_[frame_index, i_peak]])
    peak_fields = {k: v[-1] for k, v in ff.items()}  # the peak sample (results.steps stores it as a step)
    ff = {k: v[:-1] for k, v in ff.items()}
    fat = {} if fatigue is None else fatigue_entries(fatigue, duty, part.points)
    envelope = {"von_mises": vm_env, "equivalent_strain": vm_env / mat.E,
                "displacement_magnitude": resp.deformation_envelope, "safety_factor": sf_env,
                "von_mises_averaged": resp.vm_averaged_envelope_nodes}
    bcs, envelope["joint_face"] = boundary_conditions(part, sol.loads if applied is None else applied, i_peak)
    if fatigue is not None:
        envelope.update(fatigue_damage=fatigue.damage_per_cycle, fatigue_life_cycles=fatigue.life_cycles)
    return LinkResult(
        name=sol.name, material=mat.name, mass_kg=float(part.mass_properties().mass),
        yield_strength_pa=float(mat.strength), criterion=mat.criterion, n_nodes=int(len(part.points)),
        n_elements=int(len(part.cells)), geometry_order=int(part.geometry_order),
        max_von_mises_pa=resp.max_von_mises,
        time_of_max_s=float(t[resp.i_time_max]), location_of_max_m=tuple(map(float, x_world)),
        location_of_max_link_m=tuple(map(float, x_link)),
        max_equivalent_strain=resp.max_von_mises / mat.E, max_deformation_m=resp.max_deformation,
        time_of_max_deformation_s=float(t[resp.i_time_max_deformation]), min_safety_factor=min_sf,
        passed=bool(min_sf >= required_safety_factor and fat.get("fatigue_passed", True)),
        max_von_mises_away_from_support_pa=vm_away,
        support_band_m=support_band_m,
        lowest_frequency_hz=float(basis.omega[0] / (2 * np.pi)) if len(basis.omega) else float("nan"),
        quasi_static_max_von_mises_pa=sol.quasi_static_max_von_mises_pa,
        equilibrium_rel_error=sol.equilibrium_error, max_von_mises_averaged_pa=resp.max_von_mises_averaged,
        time_of_max_averaged_s=float(t[resp.i_time_max_averaged]),
        location_of_max_averaged_m=tuple(map(float, x_avg_world)),
        location_of_max_averaged_link_m=tuple(map(float, x_avg_link)),
        von_mises_averaged_at_max_pa=resp.von_mises_averaged_at_max, stress_discontinuity=resp.stress_discontinuity,
        points=part.points, cells=part.cells,
        frame_fields=ff, peak_fields=peak_fields, T_world_peak=T_world_link[i_peak],
        envelope=envelope,
        hot_spots=hot_spots(part, sol.basis.S, np.hstack([sol.loads.coeff, sol.modal]), t, vm_env,
                            surface_distances(part, [b["surface"] for b in bcs]), support_band_m),
        boundary_conditions=bcs,
        history={"max_von_mises": resp.vm_history, "max_equivalent_strain": resp.vm_history / mat.E,
                 "max_deformation": resp.deformation_history,
                 "max_von_mises_averaged": resp.vm_averaged_history}, fatigue=fat, fatigue_result=fatigue)


def _fields(part, basis, mat, coeff: np.ndarray, modal: np.ndarray) -> dict[str, np.ndarray]:
    """The point fields (ParaView names) of samples with load coefficients ``coeff`` (n, k) and mode-acceleration
    coefficients ``modal`` (n, m): displacement (n, n_nodes, 3) [m, link axes], von_mises [Pa], equivalent_strain,
    safety_factor (n, n_nodes)."""
    ff = frame_fields(part, basis, coeff, modal, brittle=mat.criterion == "max_principal")
    return {"displacement": ff["displacement"], "von_mises": ff["von_mises"],
            "equivalent_strain": ff["von_mises"] / mat.E,
            "safety_factor": node_safety_factor(part, ff["von_mises"], ff.get("max_principal"))}


def fields_at_samples(sol: LinkSolution, samples: np.ndarray) -> dict[str, np.ndarray]:
    """The point fields of :func:`_fields` (link axes) of the solution ``sol`` at the analysis samples ``samples``
    (k,), from its displacement basis alone (the stress basis may be gone: ``LinkSolution.without_stresses``):
    the displacements u = [U phi] [coeff modal]^T (n_dof, k) [m] and their stresses ``Part.stress_basis(u)``, the
    same linear map as the stress basis's columns combined (equal to rounding), k columns instead of its k + m."""
    part, basis = sol.part, sol.basis
    u = basis.U @ sol.loads.coeff[samples].T + basis.phi @ sol.modal[samples].T
    n, k = u.shape
    at = LinkBasis(F=np.zeros((n, 0)), U=u, phi=np.zeros((n, 0)), omega=np.zeros(0), S=part.stress_basis(u))
    return _fields(part, at, part.material, np.eye(k), np.zeros((k, 0)))


def _world(T: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Point x (3,) of the link frame in world axes, for the placement T (4, 4)."""
    return T[:3, :3] @ x + T[:3, 3]
