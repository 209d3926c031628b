"""summary.json: what a run found (verdict, per-link and per-joint peaks, checks, warnings, timings, versions),
built here once from a run's stages as the typed tree of :mod:`structcheck.results.schema`, which writes and
reads it."""
from __future__ import annotations

import platform
from typing import Any, Mapping

import numpy as np

from ..errors import InputError
from ..loads import WRENCH_COMPONENTS
from ..structural import rigid_joints
from .data import element_geometry
from .inputs import current_origin, study_inputs
from .reactions import joint_axes, reaction_peaks
from .schema import (AnalysisSummary, FatigueSummary, JointSummary, LinkSummary, RunChecks, RunSummary,
                     summary_from_json)


def run_summary(study, chain, rigid, links: Mapping[str, Any], structure, failures: list[str], warnings: list,
                timings: dict[str, float], t: np.ndarray, n_output_frames: int, duty=None,
                quick: bool = False) -> RunSummary:
    """The summary of a run of ``study`` (a ``study.Study``), built once: ``chain`` its ClosedChain (with the
    inertials used), ``rigid`` the rigid-body stage (``rigid.stage.RigidBody``) on the analysis grid ``t`` (n_t,)
    [s], ``links`` name -> LinkResult, ``structure`` the structural stage's ``structural.StructuralResult`` (its
    tool point, the arm model's modes and phases, the per-link model's numbers beside the arm model's when asked
    for), the checks the design fails ``failures`` (:func:`structcheck.checks.failures`; none: it passes), the
    run's ``warnings`` (``structcheck.notes.Note`` or str; written whole) and ``timings`` [s]; ``duty`` the study's
    ``fatigue.duty.Duty`` (None: no fatigue; else a ``fatigue`` entry with the duty, method and the shortest life
    of the robot); ``quick`` a quick look (coarse meshes: :mod:`structcheck.quick`). Its ``inputs`` record the study
    as it ran, with where each value came from: the command line's :class:`.inputs.Origin` when it made the run."""
    vm = max(links.values(), key=lambda L: L.max_von_mises_pa)
    tool, arm = structure.tool, structure.arm
    tool_norm = np.linalg.norm(tool.deflection, axis=1) if tool is not None else None
    eq_vals = [L.equilibrium_rel_error for L in links.values() if np.isfinite(L.equilibrium_rel_error)]
    lowest = ((arm.modes_hz[0], arm.modes_time_s) if arm is not None else
              (tool.arm_mode_hz, tool.arm_mode_time_s) if tool is not None else (None, None))
    held = rigid_joints(study)
    return RunSummary(
        study=study.name, description=study.description, parameters=dict(study.parameters), passed=not failures,
        quick=bool(quick), failures=list(failures), required_safety_factor=study.required_safety_factor,
        deflection_limit_m=study.deflection_limit_m, max_von_mises_pa=vm.max_von_mises_pa,
        max_von_mises_link=vm.name, max_equivalent_strain=max(L.max_equivalent_strain for L in links.values()),
        max_deformation_m=max(L.max_deformation_m for L in links.values()), tool_point=study.tool_point,
        tool_point_deflection_m=float(tool_norm.max()) if tool is not None else None,
        time_of_max_tool_point_deflection_s=float(t[np.argmax(tool_norm)]) if tool is not None else None,
        arm_lowest_mode_hz=lowest[0], time_of_arm_lowest_mode_s=lowest[1],
        analysis=analysis_summary(study, links, t, n_output_frames, arm),
        fatigue=fatigue_summary(study, duty, links),
        links={n: link_summary(L, structure.link_model) for n, L in links.items()},
        joints=joint_peaks(chain, rigid, t),
        checks=RunChecks(power_balance_rel_error=float(rigid.power_balance),
                         equilibrium_rel_error=float(max(eq_vals) if eq_vals else 0.0),
                         rigid_body_equilibrium_rel_error=rigid.equilibrium,
                         loop_closure_residual=rigid.loop_closure if rigid.cuts else None),
        warnings=[str(w) for w in warnings], timings_s={k: float(v) for k, v in timings.items()},
        versions=versions(), flexibility="arm" if arm is not None else "link",
        rigid_joints=list(held.names), rigid_joints_meaning=held.meaning,
        arm_modes_hz=None if arm is None else [float(f) for f in arm.modes_hz],
        time_of_arm_modes_s=None if arm is None else arm.modes_time_s,
        max_total_deformation_m=None if arm is None else max(L.max_deformation_m for L in links.values()),
        inputs=study_inputs(study, current_origin()))


def analysis_summary(study, links: Mapping[str, Any], t: np.ndarray, n_output_frames: int, arm) -> AnalysisSummary:
    """How the run was analysed; with the arm model (``arm`` its ``flex.stage.ArmStage``) its frozen-pose
    segments and phases (``arm_timings_s``: parts of ``timings_s.arm``)."""
    return AnalysisSummary(
        t_end_s=float(t[-1]), n_time_samples=int(len(t)), n_output_frames=int(n_output_frames),
        damping_ratio=study.damping_ratio, n_modes=study.n_modes, quasi_static=study.quasi_static,
        initial_state=str(study.initial_state),
        total_nodes=int(sum(L.n_nodes for L in links.values())),
        total_elements=int(sum(L.n_elements for L in links.values())),
        arm_frozen_segments=None if arm is None else int(len(arm.transient.segments) - 1),
        arm_max_joint_change=None if arm is None else study.arm.max_joint_change,
        arm_timings_s=None if arm is None else {k: float(v) for k, v in (arm.timings or {}).items()})


def link_summary(L, link_model=None) -> LinkSummary:
    """A link's entry of the summary from its ``results.data.LinkResult``: its peaks, where and when, its safety
    and (when fatigue ran) its fatigue entries; ``dynamic_amplification`` is the transient peak over the
    quasi-static one (the link's own elastic inertia; arm-level for the arm model, whose ``lowest_frequency_hz`` is
    its superelement's lowest fixed-interface mode). With ``link_model`` (``structural.LinkModelPeaks``: the
    per-link model run beside the arm model on request, ``ArmSettings(compare_link_model=True)``) the per-link model's
    peak von Mises, quasi-static peak and lowest frequency (the link clamped at its proximal joint)."""
    names = {f for f in LinkSummary.__dataclass_fields__} - {"extra", "element_geometry", "dynamic_amplification"}
    qs = L.quasi_static_max_von_mises_pa
    return LinkSummary(**{k: getattr(L, k) for k in names if hasattr(L, k) and k != "fatigue"},
                       element_geometry=element_geometry(L.geometry_order),
                       dynamic_amplification=L.max_von_mises_pa / qs if qs and np.isfinite(qs) else None,
                       **L.fatigue, **({} if link_model is None else {
                           "max_von_mises_link_model_pa": link_model.max_von_mises_pa[L.name],
                           "quasi_static_max_von_mises_link_model_pa":
                               link_model.quasi_static_max_von_mises_pa.get(L.name, float("nan")),
                           "lowest_frequency_link_model_hz": link_model.lowest_frequency_hz.get(L.name, float("nan"))}))


def fatigue_summary(study, duty, links: Mapping[str, Any]) -> FatigueSummary | None:
    """The run's fatigue entry: the duty (cycles an hour, duty cycle [s], design life in cycles and hours), the
    method and mean-stress correction, and the link of shortest life with that life (cycles, hours; null when
    every life is infinite). None when the study asks for no fatigue."""
    if duty is None:
        return None
    lives = {n: L.fatigue["min_fatigue_life_cycles"] for n, L in links.items() if L.fatigue}
    worst = min(lives, key=lives.get) if lives else None
    life = lives[worst] if worst else float("inf")
    return FatigueSummary(
        cycles_per_hour=duty.cycles_per_hour, duty_cycle_s=duty.duty_cycle_s,
        design_life_cycles=duty.design_life_cycles, design_life_hours=duty.design_life_hours,
        method=str(study.fatigue.method),
        mean_stress_correction=study.fatigue.mean_stress_correction or "goodman (material curves), none (detail "
                                                                "categories)",
        surface_factor=study.fatigue.surface_factor, min_life_link=worst if np.isfinite(life) else None,
        min_life_cycles=life, min_life_hours=duty.hours(life) if np.isfinite(life) else None)


def merge_summary(summary: RunSummary, extra: Mapping[str, Any], study_name: str) -> RunSummary:
    """``summary`` with a study's ``extra`` entries (``Study.summary_extra``) merged in: nested mappings key by
    key, new keys added (kept in the entries' ``extra``); InputError when ``extra`` would replace a value the run
    computed."""
    where = repr(f"study {study_name!r}'s summary_extra")
    return summary_from_json(_merged(summary.to_dict(), extra, study_name), where)


def _merged(summary: Mapping[str, Any], extra: Mapping[str, Any], study_name: str, where: str = "") -> dict:
    if not isinstance(extra, Mapping):
        raise InputError(f"study {study_name!r}: summary_extra must return a mapping (dict), got "
                         f"{type(extra).__name__}{' at ' + where if where else ''}")
    merged = dict(summary)
    for key, value in extra.items():
        path = f"{where}.{key}" if where else str(key)
        if key not in merged:
            merged[key] = value
        elif isinstance(merged[key], Mapping) and isinstance(value, Mapping):
            merged[key] = _merged(merged[key], value, study_name, path)
        else:
            raise InputError(f"study {study_name!r}: summary_extra sets {path!r}, which the run already wrote; "
                             f"choose another key")
    return merged




def joint_peaks(chain, rigid, t: np.ndarray) -> dict[str, JointSummary]:
    """Per joint (tree joints, then cut joints): the largest reaction force [N] and moment [N m] with their times
    [s], the largest actuator torque/force of actuated joints, the wrench components left undetermined, and the
    peaks of its axial and radial force, tilting moment and torque about its axis (:mod:`.reactions`)."""
    dyn = rigid.dynamics
    tree = chain.tree
    dof_index = {n: i for i, n in enumerate(tree.dof_names) if n in chain.actuated}
    axes = joint_axes(chain)
    joints = {}
    for k, name in enumerate(dyn.joint_names):
        W = dyn.joint_wrenches[:, k]
        F = np.linalg.norm(W[:, :3], axis=1)
        M = np.linalg.norm(W[:, 3:], axis=1)
        entry = {"max_reaction_force_n": float(F.max()), "time_of_max_force_s": float(t[np.argmax(F)]),
                 "max_reaction_moment_nm": float(M.max()), "time_of_max_moment_s": float(t[np.argmax(M)])}
        if name in dof_index:
            tau = rigid.tau[:, dof_index[name]]  # every tree coordinate, 0 on passive ones
            entry.update(max_abs_torque=float(np.abs(tau).max()), time_of_max_torque_s=float(t[np.argmax(np.abs(tau))]))
        if rigid.undetermined[k].any():
            entry["undetermined_components"] = [c for c, u in zip(WRENCH_COMPONENTS, rigid.undetermined[k]) if u]
        entry.update(reaction_peaks(W, axes[name], t))  # along and across the axis: bearing and bolt sizing
        joints[name] = JointSummary(**entry)
    return joints


def versions() -> dict[str, str]:
    """Versions of structcheck, Python and the numerical libraries, and the sparse solver in use."""
    import scipy
    import skfem

    from .. import __version__
    from ..fe.solvers import available_backends

    return {"structcheck": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "scikit-fem": skfem.__version__, "sparse_solver": available_backends()[0]}
