"""The verdict of a run: each link's peaks against its material's strength, the tool-point deflection against its
limit, and the warnings a run gives about what its model leaves out."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..fe.response import frame_fields
from ..loads import WRENCH_COMPONENTS
from ..results.data import LinkResult
from .solution import LinkSolution


def link_result(sol: LinkSolution, T_world_link: np.ndarray, t: np.ndarray, frame_index: np.ndarray,
                required_safety_factor: float, support_band_m: float) -> LinkResult:
    """Everything the results say about one link: its peaks on the analysis grid ``t`` (n_t,), where they are
    (world axes from ``T_world_link`` (n_t, 4, 4), the link's placement), its safety factor and pass/fail against
    ``required_safety_factor``, the peak away from a band of ``support_band_m`` [m] around its support (where the
    clamp makes stresses singular), and its fields at the output frames ``frame_index``."""
    part, resp, basis, mat = sol.part, sol.response, sol.basis, sol.part.material
    x_link = part.points[resp.node_max]
    T = T_world_link[resp.i_time_max]
    x_world = T[:3, :3] @ x_link + T[:3, 3]
    vm_env = resp.vm_envelope_nodes
    sf_env = mat.safety_factor(vm_env, resp.principal_envelope)
    min_sf = float(np.min(sf_env))
    away = part.distance_to_surfaces(list(sol.loads.support)) > support_band_m
    vm_away = float(vm_env[away].max()) if away.any() else float("nan")
    ff = frame_fields(part, basis, sol.loads.coeff[frame_index], sol.modal[frame_index],
                      brittle=mat.criterion == "max_principal")
    return LinkResult(
        name=sol.name, material=mat.name, mass_kg=float(part.mass_properties().mass),
        yield_strength_pa=float(mat.strength), criterion=mat.criterion, n_nodes=int(len(part.points)),
        n_elements=int(len(part.cells)), max_von_mises_pa=resp.max_von_mises,
        time_of_max_s=float(t[resp.i_time_max]), location_of_max_m=tuple(map(float, x_world)),
        location_of_max_link_m=tuple(map(float, x_link)),
        max_equivalent_strain=resp.max_von_mises / mat.E, max_deformation_m=resp.max_deformation,
        time_of_max_deformation_s=float(t[resp.i_time_max_deformation]), min_safety_factor=min_sf,
        passed=bool(min_sf >= required_safety_factor), max_von_mises_away_from_support_pa=vm_away,
        support_band_m=support_band_m,
        lowest_frequency_hz=float(basis.omega[0] / (2 * np.pi)) if len(basis.omega) else float("nan"),
        quasi_static_max_von_mises_pa=sol.quasi_static_max_von_mises_pa,
        equilibrium_rel_error=sol.equilibrium_error, points=part.points, cells=part.cells,
        frame_fields={"displacement": ff["displacement"], "von_mises": ff["von_mises"],
                      "equivalent_strain": ff["von_mises"] / mat.E,
                      "safety_factor": mat.safety_factor(ff["von_mises"], ff.get("max_principal"))},
        envelope={"von_mises": vm_env, "equivalent_strain": vm_env / mat.E,
                  "displacement_magnitude": resp.deformation_envelope, "safety_factor": sf_env},
        history={"max_von_mises": resp.vm_history, "max_equivalent_strain": resp.vm_history / mat.E,
                 "max_deformation": resp.deformation_history})


def verdict(links: Mapping[str, LinkResult], tool_deflection_m: float | None,
            deflection_limit_m: float | None) -> bool:
    """True when every link passes and the tool point's largest deflection [m] (None: no tool point) is within
    ``deflection_limit_m`` (None: no limit)."""
    passed = all(L.passed for L in links.values())
    if deflection_limit_m is not None and tool_deflection_m is not None:
        passed = passed and tool_deflection_m <= deflection_limit_m
    return passed


def run_warnings(solutions: Mapping[str, LinkSolution], robot, joint_names, undetermined: np.ndarray,
                 has_loops: bool, tool_point: str | None, arm_mode: tuple[float, float],
                 shortest_ramp_s: float) -> list[str]:
    """What the run's model leaves out: links whose FE loads do not balance (the robot's inertia differs from
    the mesh's), wrench components of ``joint_names`` that rigid-body mechanics cannot determine
    (``undetermined`` (n_joints, 6) bool), the loops' stiffness missing from the tool-point deflection, and a
    load ramp too short for the arm's lowest mode ``arm_mode`` = (Hz, time [s]) to follow quasi-statically."""
    warnings = []
    for name, sol in solutions.items():
        if sol.equilibrium_error > 1e-6:
            mesh_kg, robot_kg = sol.part.mass_properties().mass, robot.link(name).mass
            warnings.append(f"link {name!r}: its FE loads do not balance its joint reaction (relative residual "
                            f"{sol.equilibrium_error:.2g}); the robot's inertia of this link ({robot_kg:.4g} kg) "
                            f"differs from its mesh ({mesh_kg:.4g} kg): use inertia_from_meshes=True or add the "
                            f"difference as point masses")
    if undetermined.any():
        names = [f"{n} ({', '.join(c for c, u in zip(WRENCH_COMPONENTS, row) if u)})"
                 for n, row in zip(joint_names, undetermined) if row.any()]
        warnings.append("statically indeterminate loop loads: " + "; ".join(names) + ". Rigid-body mechanics "
                        "cannot split these between the loop's joints; the links are loaded with the minimum-norm "
                        "split, so stresses from them are indicative")
    if has_loops and tool_point:
        warnings.append("the tool-point deflection follows the spanning tree: the stiffness the loops add in "
                        "parallel is not counted (the estimate is on the flexible side)")
    arm_hz, arm_t = arm_mode
    if np.isfinite(arm_hz) and np.isfinite(shortest_ramp_s) and shortest_ramp_s < 3.0 / arm_hz:
        warnings.append(f"the shortest load ramp ({shortest_ramp_s * 1e3:.3g} ms) is shorter than 3 periods of the "
                        f"arm's estimated lowest mode ({arm_hz:.3g} Hz at the pose of t = {arm_t:.3g} s): arm-level "
                        f"dynamics (payload swinging on the flexible chain) are not captured by the per-link "
                        f"transient")
    return warnings
