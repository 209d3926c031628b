"""summary.json: what a run found, as one JSON document (verdict, per-link and per-joint peaks, checks, warnings,
timings, versions); built here from a run's stages, written and read here."""
from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..errors import InputError
from ..loads import WRENCH_COMPONENTS


def plain(x):
    """JSON-safe version of numpy scalars/arrays and tuples (NaN -> None)."""
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [plain(v) for v in np.asarray(x, dtype=object).tolist()] if isinstance(x, np.ndarray) \
            else [plain(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return None if not np.isfinite(x) else x
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


def run_summary(study, chain, rigid, links: Mapping[str, Any], tool, failures: list[str], warnings: list,
                timings: dict[str, float], t: np.ndarray, n_output_frames: int, duty=None,
                quick: bool = False) -> dict[str, Any]:
    """The summary of a run of ``study`` (a ``study.Study``): ``chain`` its ClosedChain (with the inertials
    used), ``rigid`` the rigid-body stage (``rigid.stage.RigidBody``) on the analysis grid ``t`` (n_t,) [s],
    ``links`` name -> LinkResult, ``tool`` the ``checks.ToolPointChecks`` (None without a tool point), the
    checks the design fails ``failures`` (:func:`structcheck.checks.failures`; none: it passes), the run's
    ``warnings`` (``structcheck.notes.Note`` or str; written whole) and ``timings`` [s]; ``duty`` the study's
    ``fatigue.duty.Duty``
    (None: no fatigue; else a ``fatigue`` entry with the duty, method and the shortest life of the robot); ``quick``
    a quick look (coarse meshes: :mod:`structcheck.quick`)."""
    vm = max(links.values(), key=lambda L: L.max_von_mises_pa)
    tool_norm = np.linalg.norm(tool.deflection, axis=1) if tool is not None else None
    eq_vals = [L.equilibrium_rel_error for L in links.values() if np.isfinite(L.equilibrium_rel_error)]
    return {
        "study": study.name,
        "description": study.description,
        "parameters": dict(study.parameters),
        "passed": not failures,
        "quick": bool(quick),
        "failures": list(failures),
        "required_safety_factor": study.required_safety_factor,
        "deflection_limit_m": study.deflection_limit_m,
        "max_von_mises_pa": vm.max_von_mises_pa,
        "max_von_mises_link": vm.name,
        "max_equivalent_strain": max(L.max_equivalent_strain for L in links.values()),
        "max_deformation_m": max(L.max_deformation_m for L in links.values()),
        "tool_point": study.tool_point,
        "tool_point_deflection_m": float(tool_norm.max()) if tool is not None else None,
        "time_of_max_tool_point_deflection_s": float(t[np.argmax(tool_norm)]) if tool is not None else None,
        "arm_lowest_mode_hz": tool.arm_mode_hz if tool is not None else float("nan"),
        "time_of_arm_lowest_mode_s": tool.arm_mode_time_s if tool is not None else float("nan"),
        "analysis": {"t_end_s": float(t[-1]), "n_time_samples": int(len(t)), "n_output_frames": int(n_output_frames),
                     "damping_ratio": study.damping_ratio, "n_modes": study.n_modes,
                     "quasi_static": study.quasi_static, "total_nodes": int(sum(L.n_nodes for L in links.values())),
                     "total_elements": int(sum(L.n_elements for L in links.values()))},
        "fatigue": fatigue_summary(study, duty, links),
        "links": {n: L.summary() for n, L in links.items()},
        "joints": joint_peaks(chain, rigid, t),
        "checks": {"power_balance_rel_error": float(rigid.power_balance),
                   "equilibrium_rel_error": float(max(eq_vals) if eq_vals else 0.0),
                   "rigid_body_equilibrium_rel_error": rigid.equilibrium,
                   **({"loop_closure_residual": rigid.loop_closure} if rigid.cuts else {})},
        "warnings": [str(w) for w in warnings],
        "timings_s": {k: float(v) for k, v in timings.items()},
        "versions": versions(),
    }


def fatigue_summary(study, duty, links: Mapping[str, Any]) -> dict[str, Any] | None:
    """The run's fatigue entry: the duty (cycles an hour, duty cycle [s], design life in cycles and hours), the
    method and mean-stress correction, and the link of shortest life with that life (cycles, hours; null when
    every life is infinite). None when the study asks for no fatigue."""
    if duty is None:
        return None
    lives = {n: L.fatigue["min_fatigue_life_cycles"] for n, L in links.items() if L.fatigue}
    worst = min(lives, key=lives.get) if lives else None
    life = lives[worst] if worst else float("inf")
    return {"cycles_per_hour": duty.cycles_per_hour, "duty_cycle_s": duty.duty_cycle_s,
            "design_life_cycles": duty.design_life_cycles, "design_life_hours": duty.design_life_hours,
            "method": study.fatigue_method,
            "mean_stress_correction": study.mean_stress_correction or "goodman (material curves), none (detail "
                                                                      "categories)",
            "surface_factor": study.surface_factor, "min_life_link": worst if np.isfinite(life) else None,
            "min_life_cycles": life, "min_life_hours": duty.hours(life) if np.isfinite(life) else float("inf")}


def merge_summary(summary: Mapping[str, Any], extra: Mapping[str, Any], study_name: str, where: str = "") -> dict:
    """``summary`` with ``extra`` merged in: nested mappings key by key, new keys added; InputError when ``extra``
    would replace a value the run computed (``where`` is the dotted path so far, for the message)."""
    if not isinstance(extra, Mapping):
        raise InputError(f"study {study_name!r}: summary_extra must return a mapping (dict), got "
                         f"{type(extra).__name__}{' at ' + where if where else ''}")
    merged = dict(summary)
    for key, value in extra.items():
        path = f"{where}.{key}" if where else str(key)
        if key not in merged:
            merged[key] = value
        elif isinstance(merged[key], Mapping) and isinstance(value, Mapping):
            merged[key] = merge_summary(merged[key], value, study_name, path)
        else:
            raise InputError(f"study {study_name!r}: summary_extra sets {path!r}, which the run already wrote; "
                             f"choose another key")
    return merged


def flexibility_summary(summary: dict, study, arm, link_model=None) -> dict:
    """The summary with the structural model's entries: ``flexibility``; for the arm model the assembled arm's
    lowest six frequencies at the pose where the first is lowest (``arm_modes_hz``, ``time_of_arm_modes_s``), the
    total deformation relative to the ground (``max_total_deformation_m``), and under ``analysis`` the arm stage's
    phases (``arm_timings_s``: parts of ``timings_s.arm``); the arm model's ``quasi_static_max_von_mises_pa`` and
    ``dynamic_amplification`` are then arm-level and its ``lowest_frequency_hz`` its superelement's lowest
    fixed-interface mode. With ``link_model`` (``structural.LinkModelPeaks``: the per-link model run beside the arm
    model on request, ``Study(compare_link_model=True)``), per link the per-link model's peak von Mises
    (``max_von_mises_link_model_pa``), quasi-static peak (``quasi_static_max_von_mises_link_model_pa``) and lowest
    frequency (``lowest_frequency_link_model_hz``: the link clamped at its proximal joint); without it those keys
    are absent. ``study`` a ``study.Study``, ``arm`` its ``flex.stage.ArmStage`` (None for the per-link model, or
    when the study has no parts). ``flexibility`` is the model that ran."""
    out = {**summary, "flexibility": "arm" if arm is not None else "link", "arm_modes_hz": None,
           "time_of_arm_modes_s": None,
           "max_total_deformation_m": None}
    if arm is None:
        return out
    out.update(arm_modes_hz=[float(f) for f in arm.modes_hz], time_of_arm_modes_s=arm.modes_time_s,
               max_total_deformation_m=summary["max_deformation_m"], arm_lowest_mode_hz=float(arm.modes_hz[0]),
               time_of_arm_lowest_mode_s=arm.modes_time_s)
    if link_model is not None:
        lm = link_model
        out["links"] = {n: {**v, "max_von_mises_link_model_pa": lm.max_von_mises_pa[n],
                            "quasi_static_max_von_mises_link_model_pa":
                                plain(lm.quasi_static_max_von_mises_pa.get(n, float("nan"))),
                            "lowest_frequency_link_model_hz": plain(lm.lowest_frequency_hz.get(n, float("nan")))}
                        for n, v in summary["links"].items()}
    out["analysis"] = {**summary["analysis"], "arm_frozen_segments": int(len(arm.transient.segments) - 1),
                       "arm_max_joint_change": study.arm_max_joint_change,
                       "arm_timings_s": {k: float(v) for k, v in (arm.timings or {}).items()}}
    return out


def joint_peaks(chain, rigid, t: np.ndarray) -> dict[str, dict[str, Any]]:
    """Per joint (tree joints, then cut joints): the largest reaction force [N] and moment [N m] with their times
    [s], the largest actuator torque/force of actuated joints, and the wrench components left undetermined."""
    dyn = rigid.dynamics
    tree = chain.tree
    dof_index = {n: i for i, n in enumerate(tree.dof_names) if n in chain.actuated}
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
        joints[name] = entry
    return joints


def versions() -> dict[str, str]:
    """Versions of structcheck, Python and the numerical libraries, and the sparse solver in use."""
    import scipy
    import skfem

    from .. import __version__
    from ..fe.solvers import available_backends

    return {"structcheck": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "scikit-fem": skfem.__version__, "sparse_solver": available_backends()[0]}


def write_summary(summary: dict, path: Path) -> None:
    """Write ``summary`` as JSON (numpy values as plain numbers, NaN as null)."""
    path.write_text(json.dumps(plain(summary), indent=2) + "\n")


def read_summary(folder: str | os.PathLike) -> dict:
    """Read ``summary.json`` from a results folder; InputError naming the folder if it is missing/corrupt."""
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
    if not isinstance(data, dict) or "links" not in data:
        raise InputError(f"{str(path)!r} has no 'links' entry: not a structcheck summary")
    return data
