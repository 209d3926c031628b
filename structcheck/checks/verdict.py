"""The verdict of a run: each link's peaks against its material's strength, the tool-point deflection against its
limit, and the warnings a run gives about what its model leaves out."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..loads import WRENCH_COMPONENTS
from ..notes import Note
from .peaks import discontinuity_warnings
from .solution import LinkSolution


def failures(links: Mapping[str, Any], required_safety_factor: float, tool_deflection_m: float | None,
             deflection_limit_m: float | None) -> list[str]:
    """The checks a design fails, one line each naming the link (or the tool point) and the check: a link
    (``results.LinkResult``) whose smallest safety factor is below ``required_safety_factor`` or whose shortest
    fatigue life is below the design life, and the tool point's largest deflection [m] (None: no tool point) above
    ``deflection_limit_m`` (None: no limit). Empty: the design passes."""
    out = []
    for name, L in links.items():
        if not L.min_safety_factor >= required_safety_factor:  # NaN fails too
            stress = "von Mises" if L.criterion == "von_mises" else "max principal"
            out.append(f"link {name!r}: safety factor {L.min_safety_factor:.3g} < {required_safety_factor:g} "
                       f"({stress} stress up to {L.max_von_mises_pa * 1e-6:.4g} MPa at t = {L.time_of_max_s:.4g} s "
                       f"against {L.yield_strength_pa * 1e-6:.4g} MPa)")
        if L.fatigue.get("fatigue_passed") is False:
            region = L.fatigue.get("fatigue_region")
            where = f"region {region!r}, " if region else ""
            out.append(f"link {name!r}: fatigue life {L.fatigue['min_fatigue_life_cycles']:.3g} cycles < the design "
                       f"life ({where}S-N curve {L.fatigue.get('fatigue_curve')})")
    if deflection_limit_m is not None and tool_deflection_m is not None and tool_deflection_m > deflection_limit_m:
        out.append(f"tool-point deflection {tool_deflection_m * 1e3:.4g} mm > limit {deflection_limit_m * 1e3:.4g} mm")
    return out


def run_warnings(solutions: Mapping[str, LinkSolution], robot, joint_names, undetermined: np.ndarray,
                 has_loops: bool, tool_point: str | None, arm_mode: tuple[float, float],
                 shortest_ramp_s: float, arm_dynamics: str = "not captured") -> list[Note]:
    """What the run's model leaves out: links whose FE loads do not balance (the robot's inertia differs from
    the mesh's), wrench components of ``joint_names`` that rigid-body mechanics cannot determine
    (``undetermined`` (n_joints, 6) bool), the loops' stiffness missing from the tool-point deflection, and a
    load ramp too short for the arm's lowest mode ``arm_mode`` = (Hz, time [s]) to follow quasi-statically, and
    links whose peak stress is not converged (:func:`.peaks.discontinuity_warnings`). ``arm_dynamics``:
    "integrated" when the run's arm model integrates the arm's modes in time (the ramp warning then says the arm
    rings and the peaks include it), "not captured" for the per-link or a quasi-static model."""
    warnings = []
    for name, sol in solutions.items():
        if sol.equilibrium_error > 1e-6:
            mesh_kg, robot_kg = sol.part.mass_properties().mass, robot.link(name).mass
            warnings.append(Note(
                f"link {name!r}: its FE loads do not balance its joint reaction (relative residual "
                f"{sol.equilibrium_error:.2g}): the robot's inertia of this link ({robot_kg:.4g} kg) differs from "
                f"its mesh ({mesh_kg:.4g} kg)", subject=name,
                advice="where a link's inertia differs from its mesh: use inertia_from_meshes=True or add the "
                       "difference as point masses"))
    warnings += discontinuity_warnings(solutions)
    if undetermined.any():
        names = [f"{n} ({', '.join(c for c, u in zip(WRENCH_COMPONENTS, row) if u)})"
                 for n, row in zip(joint_names, undetermined) if row.any()]
        warnings.append(Note(
            "statically indeterminate loop loads: " + "; ".join(names),
            detail="rigid-body mechanics cannot split these between the loop's joints; the links are loaded with the "
                   "minimum-norm split, so stresses from them are indicative",
            advice="for the loops' load split, run the arm model (flexibility='arm'), which carries it through the "
                   "links' compliance"))
    if has_loops and tool_point:
        warnings.append(Note("the tool-point deflection follows the spanning tree: the stiffness the loops add in "
                             "parallel is not counted (the estimate is on the flexible side)"))
    arm_hz, arm_t = arm_mode
    if np.isfinite(arm_hz) and np.isfinite(shortest_ramp_s) and shortest_ramp_s < 3.0 / arm_hz:
        if arm_dynamics == "integrated":
            warnings.append(Note(
                f"the shortest load ramp ({shortest_ramp_s * 1e3:.3g} ms) is shorter than 3 periods of the arm's "
                f"lowest mode ({arm_hz:.3g} Hz at the pose of t = {arm_t:.3g} s): the arm rings after it",
                detail="the arm model integrates that ringing, so the peaks include it (see each link's dynamic "
                       "amplification)", advice="to reduce the ringing, stiffen the arm or lengthen the ramp"))
        else:
            warnings.append(Note(
                f"the shortest load ramp ({shortest_ramp_s * 1e3:.3g} ms) is shorter than 3 periods of the arm's "
                f"estimated lowest mode ({arm_hz:.3g} Hz at t = {arm_t:.3g} s)",
                detail="arm-level dynamics (payload swinging on the flexible chain) are not captured by the per-link "
                       "transient", advice="for arm-level dynamics, run the arm model (flexibility='arm')"))
    return warnings


def arm_basis_warnings(cutoff_hz: Mapping[str, float], shortest_ramp_s: float) -> list[Note]:
    """The arm model's warning when its superelements keep too few modes for the loads' fastest change: a ramp of
    duration T excites up to about 1/T [Hz], and the kept fixed-interface modes should reach twice that.

    ``cutoff_hz``: link -> the highest fixed-interface frequency kept in its superelement [Hz] (0: none kept). The
    criterion is the lowest of these, not the assembled arm's highest frequency: Craig-Bampton's assembled modes
    converge only up to about the components' cut-off (above it the reduced spectrum is made of constraint-mode
    and residual-vector Ritz values, upper bounds far from any true mode), and a link's dynamics above its cut-off
    are represented only quasi-statically (its residual vectors)."""
    if not cutoff_hz or not np.isfinite(shortest_ramp_s) or shortest_ramp_s <= 0:
        return []
    link = min(cutoff_hz, key=cutoff_hz.get)
    f_ramp = 1.0 / shortest_ramp_s
    if cutoff_hz[link] >= 2.0 * f_ramp:
        return []
    return [Note(f"the arm model keeps fixed-interface modes only up to {cutoff_hz[link]:.4g} Hz in link {link!r}, "
                 f"while the shortest load ramp ({shortest_ramp_s * 1e3:.3g} ms) excites up to ~{f_ramp:.3g} Hz",
                 subject=link, detail=f"that link's dynamics above {cutoff_hz[link]:.4g} Hz are only quasi-static",
                 advice=f"keep modes up to 2x that ({2 * f_ramp:.3g} Hz): raise n_modes")]
