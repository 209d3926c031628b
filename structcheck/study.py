"""A study: robot + motion + loads + FE settings -> verdict. This module only wires the stages together.

    robot ──> motion ──> inverse dynamics ──> link loads ──> transient FE per link ──> chain ──> verdict ──> results

A study script builds a :class:`Study` at module level (so ``structcheck run`` can import it) and writes files
only under ``if __name__ == "__main__":``.
"""
from __future__ import annotations

import importlib.util
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .errors import InputError

WRENCH_COMPONENTS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")


@dataclass(frozen=True)
class PointForce:
    """An external force at a named robot point: ``magnitude(t)`` [N] (a motion-law string or law object)
    along ``direction`` (3,) in world axes (normalized). Paper 004's claw load: direction (0, 0, -1)."""

    point: str
    magnitude: Any
    direction: tuple[float, float, float] = (0.0, 0.0, -1.0)


@dataclass(frozen=True)
class Payload:
    """A rigid payload held at a named robot point: ``mass`` [kg] with its centre of mass at the point and
    ``inertia`` (3, 3) about it in the point's link axes [kg m^2] (None: a point mass). Its weight and inertia
    (force m (g - a_P), moment -(I alpha + omega x I omega)) load the link on the surface named after the point.
    """

    point: str
    mass: float
    inertia: Any = None


@dataclass(frozen=True)
class Study:
    """Everything a run needs.

    ``robot`` is a ``structcheck.Robot`` or a ``structcheck.closedchain.ClosedChain`` (loops closed by cut
    joints; its independent coordinates are then the driven joints, and each cut joint's interface is a named
    surface on both links it joins). ``motion`` maps joint name -> law (ADAMS expression string, number or law object) giving the offset from
    home [rad or m]; joints not named stay at home. ``parts`` maps link name -> a ``structcheck.Part`` (its mesh
    in the link frame). ``inertia_from_meshes``: link mass properties come from the meshes and densities (the
    robot's own values are replaced, so that the FE loads are in equilibrium). ``damping_ratio`` is the modal
    damping of every mode; ``n_modes`` per link; ``quasi_static`` drops elastic inertia. ``tool_point`` names
    the robot point whose deflection is reported; ``payloads`` are rigid masses held at named points (their
    inertia enters the dynamics and the FE loads); ``payload_mass_kg`` is used only for the arm's lowest-mode
    estimate when the payload is given as a force instead (paper 004: 196 N = 20 kg). The analysis grid holds the
    output frames, every breakpoint of the laws, ``min_ramp_samples`` samples across every ramp, at most
    ``max_step_s`` [s] between samples (default: a quarter of the frame spacing), and samples added wherever a
    link's modes ring after a fast load change (``analysis.ringing_samples``).
    """

    name: str
    robot: Any
    motion: Mapping[str, Any]
    parts: Mapping[str, Any]
    t_end: float
    point_forces: tuple[PointForce, ...] = ()
    payloads: tuple[Payload, ...] = ()
    n_frames: int = 101
    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)
    damping_ratio: float = 0.02
    n_modes: int = 10
    quasi_static: bool = False
    required_safety_factor: float = 1.5
    deflection_limit_m: float | None = None
    tool_point: str | None = None
    payload_mass_kg: float = 0.0
    inertia_from_meshes: bool = True
    support_band_m: float = 0.01
    min_ramp_samples: int = 10
    max_step_s: float | None = None
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)


def load_study(path: str | Path, **params) -> Study:
    """Import a study script and return its ``study`` (or ``build(**params)`` when parameters are given).

    The script is the user's own trusted Python: it is imported, not parsed. Errors name the file.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"study script {str(path)!r} does not exist")
    spec = importlib.util.spec_from_file_location(f"structcheck_study_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"study script {str(path)!r} failed to import: {type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(str(path.parent))
    if params:
        build = getattr(module, "build", None)
        if build is None:
            raise InputError(f"study script {str(path)!r} has no build(**params) function to take {sorted(params)}")
        try:
            study = build(**params)
        except TypeError as exc:
            raise InputError(f"study script {str(path)!r}: build() rejected parameters {params}: {exc}") from None
    else:
        study = getattr(module, "study", None)
    if not isinstance(study, Study):
        raise InputError(f"study script {str(path)!r} defines no `study = Study(...)` at module level")
    return study


def _law(x):
    from .motion.laws import Constant, MotionLaw

    if isinstance(x, str):
        return MotionLaw(x)
    if isinstance(x, (int, float)):
        return Constant(float(x))
    return x


MAX_RINGING_SAMPLES = 200_000  # samples a run may add to follow the links' elastic ringing


def _bar(progress, total, desc):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not progress, leave=True)


def run(study: Study, out: str | Path | None = None, *, progress: bool = True, write: bool = True,
        vtk: bool = True, plots: bool = True):
    """Run ``study``; write the results folder to ``out`` (if ``write``); return the RunResult."""
    from .fe import response as analysis
    from .checks import toolchain as chainmod
    from . import loads as linkloads
    from .results import files as results
    from .motion.laws import time_grid
    from .rigid.stage import is_closed_chain, rigid_body

    if out is not None and write:
        results.prepare_output(out)
    timings = {}
    t0 = time.perf_counter()
    closed = is_closed_chain(study.robot)
    robot = study.robot.tree if closed else study.robot  # the spanning tree of a closed chain
    driven = study.robot.independent if closed else robot.dof_names
    unknown = sorted(set(study.motion) - set(driven))
    if unknown:
        raise InputError(f"motion names unknown joints {unknown}; the robot's driven joints are {list(driven)}")
    unknown = sorted(set(study.parts) - set(robot.link_names))
    if unknown:
        raise InputError(f"parts name unknown links {unknown}; the robot's links are {robot.link_names}")
    for pf in study.point_forces:
        if pf.point not in robot.points:
            raise InputError(f"point force at unknown point {pf.point!r}; the robot's points are "
                             f"{sorted(robot.points)}")
    payloads = _payloads(study, robot)

    # ---- robot mass properties from the meshes
    if study.inertia_from_meshes:
        for name, part in study.parts.items():
            mp = part.mass_properties()
            robot = robot.with_link(name, mass=mp.mass, com=mp.com, inertia=mp.inertia_com)

    # ---- motion and time grid
    laws = {j: _law(study.motion.get(j, 0.0)) for j in driven}
    force_laws = [_law(pf.magnitude) for pf in study.point_forces]
    grid = time_grid(list(laws.values()) + force_laws, study.t_end, n_frames=study.n_frames,
                     min_ramp_samples=study.min_ramp_samples, max_dt=study.max_step_s)

    def rigid_stage(t):
        """Driven motion, point forces and the rigid-body dynamics on the samples t."""
        side = np.where(t < t[-1], 1, -1)  # right-sided accelerations at breakpoints, left at the end
        merged = {}
        for pf, law in zip(study.point_forces, force_laws):
            d = np.asarray(pf.direction, float) / np.linalg.norm(pf.direction)
            merged[pf.point] = merged.get(pf.point, 0.0) + law.value(t)[:, None] * d
        home = np.array([robot.joint(j).home for j in driven])
        q_drv = home + np.column_stack([laws[j].value(t) for j in driven])
        qd_drv = np.column_stack([laws[j].velocity(t) for j in driven])
        qdd_drv = np.column_stack([_one_sided_acc(laws[j], t, side) for j in driven])
        return merged, rigid_body(study.robot, robot, t, q_drv, qd_drv, qdd_drv, study.gravity, merged, payloads)

    def loads_of(name, part, rigid, point_forces):
        return linkloads.link_loads(robot, rigid.dynamics, name, part, study.gravity, point_forces, payloads,
                                    cuts=rigid.cuts)

    t = grid.t
    with _bar(progress, 1, "dynamics") as bar:
        point_forces, rigid = rigid_stage(t)
        bar.update()
    timings["dynamics"] = time.perf_counter() - t0
    fe_links = [n for n in robot.link_names if n in study.parts]
    _check_part_placement(robot, study.parts)

    # ---- FE bases of every link: one factorization, unit-load solutions and modes each
    bases, link_loads = {}, {}
    with _bar(progress, len(fe_links), "FE bases (factorization, unit loads, modes)") as bar:
        for name in fe_links:
            t1 = time.perf_counter()
            part = study.parts[name]
            link_loads[name] = loads_of(name, part, rigid, point_forces)
            bases[name] = analysis.build_basis(part, link_loads[name].F, list(link_loads[name].support),
                                               0 if study.quasi_static else study.n_modes)
            timings[f"fe_{name}"] = time.perf_counter() - t1
            bar.update()

    # ---- sample the links' elastic ringing: add samples where a mode rings after a fast load change
    frame_times = t[grid.frame_index]
    notes = []
    if not study.quasi_static:
        extra = np.unique(np.concatenate([
            analysis.ringing_samples(bases[n], t, link_loads[n].coeff, study.damping_ratio) for n in fe_links]))
        if len(extra) > MAX_RINGING_SAMPLES:  # e.g. undamped stiff links ringing all along a long motion
            notes.append(f"the links' ringing after fast load changes wants {len(extra)} more samples; "
                         f"{MAX_RINGING_SAMPLES} were added, evenly among them, so peaks of that ringing may read "
                         f"low: raise damping_ratio, lower n_modes, or set max_step_s")
            extra = extra[np.linspace(0, len(extra) - 1, MAX_RINGING_SAMPLES).astype(int)]
        if len(extra):
            t1 = time.perf_counter()
            t = np.union1d(t, extra)
            with _bar(progress, 1, f"dynamics on the refined grid ({len(t)} samples)") as bar:
                point_forces, rigid = rigid_stage(t)
                link_loads = {n: loads_of(n, study.parts[n], rigid, point_forces) for n in fe_links}
                bar.update()
            timings["refine"] = time.perf_counter() - t1
    frame_index = np.searchsorted(t, frame_times)  # the coarse samples are kept exactly
    q, dqd, dqdd, dyn = rigid.q, rigid.qd, rigid.qdd, rigid.dynamics
    kin = dyn.kinematics

    # ---- transient response of every link on the analysis grid
    link_results, responses, eq_errors = {}, {}, {}
    with _bar(progress, len(fe_links), "FE transient response") as bar:
        for name in fe_links:
            t1 = time.perf_counter()
            part, basis, loads = study.parts[name], bases[name], link_loads[name]
            size = float(np.ptp(part.points, axis=0).max())
            eq_errors[name] = linkloads.equilibrium_residual(analysis.load_resultants(part, loads.F), loads, size)
            modal = (np.zeros((len(t), 0)) if study.quasi_static else
                     analysis.modal_coefficients(basis, t, loads.coeff, study.damping_ratio, from_equilibrium=True))
            brittle = part.material.criterion == "max_principal"
            resp = analysis.respond(part, basis, loads.coeff, modal, brittle=brittle)
            qs_max = float("nan")
            if not study.quasi_static and basis.phi.shape[1]:
                qs_max = analysis.respond(part, basis, loads.coeff, np.zeros_like(modal)).max_von_mises
            responses[name] = (part, basis, loads, resp, modal)
            link_results[name] = _link_result(name, part, resp, basis, loads, study, t, kin, robot, qs_max,
                                              eq_errors[name])
            timings[f"fe_{name}"] += time.perf_counter() - t1
            bar.update()

    # ---- output frames: uniform frames plus every link's peak times
    peak_idx = [responses[n][3].i_time_max for n in responses] + \
               [responses[n][3].i_time_max_deformation for n in responses]
    frame_idx = np.unique(np.r_[frame_index, peak_idx]).astype(int)
    for name, (part, basis, loads, resp, modal) in responses.items():
        ff = analysis.frame_fields(part, basis, loads.coeff[frame_idx], modal[frame_idx],
                                   brittle=part.material.criterion == "max_principal")
        L = link_results[name]
        E = part.material.E
        L.frame_fields = {
            "displacement": ff["displacement"],
            "von_mises": ff["von_mises"],
            "equivalent_strain": ff["von_mises"] / E,
            "safety_factor": part.material.safety_factor(ff["von_mises"], ff.get("max_principal")),
        }

    # ---- tool-point deflection and arm mode
    tool_defl, arm_hz, arm_t = _chain_results(study, robot, kin, responses, t, frame_idx)
    warnings = list(rigid.warnings) + notes
    for name, err in eq_errors.items():
        if err > 1e-6:
            mesh_kg, robot_kg = study.parts[name].mass_properties().mass, robot.link(name).mass
            warnings.append(f"link {name!r}: its FE loads do not balance its joint reaction (relative residual "
                            f"{err:.2g}); the robot's inertia of this link ({robot_kg:.4g} kg) differs from its mesh "
                            f"({mesh_kg:.4g} kg): use inertia_from_meshes=True or add the difference as point masses")
    if rigid.cuts and rigid.undetermined is not None and rigid.undetermined.any():
        names = [f"{n} ({', '.join(c for c, u in zip(WRENCH_COMPONENTS, row) if u)})"
                 for n, row in zip(dyn.joint_names, rigid.undetermined) if row.any()]
        warnings.append("statically indeterminate loop loads: " + "; ".join(names) + ". Rigid-body mechanics "
                        "cannot split these between the loop's joints; the links are loaded with the minimum-norm "
                        "split, so stresses from them are indicative")
    if rigid.cuts and study.tool_point:
        warnings.append("the tool-point deflection follows the spanning tree: the stiffness the loops add in "
                        "parallel is not counted (the estimate is on the flexible side)")
    if np.isfinite(arm_hz):
        ramp = grid.shortest_ramp if hasattr(grid, "shortest_ramp") else float("nan")
        if np.isfinite(ramp) and ramp < 3.0 / arm_hz:
            warnings.append(f"the shortest load ramp ({ramp * 1e3:.3g} ms) is shorter than 3 periods of the arm's "
                            f"estimated lowest mode ({arm_hz:.3g} Hz at the pose of t = {arm_t:.3g} s): arm-level "
                            f"dynamics (payload swinging on the flexible chain) are not captured by the per-link "
                            f"transient")
    timings["total"] = time.perf_counter() - t0
    summary = _summary(study, robot, rigid, link_results, tool_defl, (arm_hz, arm_t), eq_errors, timings, warnings, t,
                       frame_idx)
    run_result = results.RunResult(
        study_name=study.name, t=t, frame_times=t[frame_idx], joint_names=list(dyn.joint_names),
        dof_names=list(robot.dof_names), q=q, qd=dqd, qdd=dqdd, tau=rigid.tau, joint_wrenches=dyn.joint_wrenches,
        link_names=list(robot.link_names), T_world_link_frames=kin.T_world_link[frame_idx], links=link_results,
        summary=summary)
    if out is not None and write:
        t2 = time.perf_counter()
        results.write_results(run_result, out, vtk=vtk, plots=plots, progress=progress)
        summary["timings_s"]["write"] = time.perf_counter() - t2
        results.write_summary(summary, Path(out) / "summary.json")
    return run_result


def _check_part_placement(robot, parts: dict) -> None:
    """Reject a link mesh that cannot be in its link frame and in metres: one whose size is far from the span of
    its joints and points (a mesh in mm read as m, or the reverse), or whose joint surface does not sit on its
    revolute joint's axis (a mesh exported in world or CAD coordinates instead of the link frame)."""
    children = {}
    for j in robot.joints:
        children.setdefault(j.parent, []).append(j)
    proximal = {j.child: j for j in robot.joints}
    for name, part in parts.items():
        # revolute axes of the link's joints in its frame: (joint name, point on the axis, direction)
        axes = []
        if name in proximal:
            axes.append((proximal[name], np.zeros(3), np.asarray(proximal[name].axis, float)))
        for j in children.get(name, []):
            axes.append((j, np.asarray(j.origin, float)[:3, 3], np.asarray(j.origin, float)[:3, :3] @ j.axis))
        marks = [np.zeros(3)] + [x for _, x, _ in axes] + \
                [np.asarray(xyz, float) for ln, xyz in robot.points.values() if ln == name]
        span = max(float(np.ptp(np.array(marks), axis=0).max()), 0.02)
        lo, hi = part.points.min(axis=0), part.points.max(axis=0)
        size = float(np.linalg.norm(hi - lo))
        if size > 50 * span or size < span / 50:
            hint = ("is the mesh in millimetres? read it with units='mm'" if size > 50 * span else
                    "is the mesh in metres but read with units='mm'?")
            raise InputError(f"link {name!r}: its mesh is {size:.4g} m across but its joints and points span "
                             f"{span:.4g} m; {hint}")
        for joint, x0, axis in axes:
            if joint.type not in ("revolute", "continuous") or joint.name not in part.surfaces:
                continue
            c = part.surface_geometry(joint.name)[1]
            a = axis / np.linalg.norm(axis)
            off = float(np.linalg.norm(np.cross(c - x0, a)))
            if off > 0.25 * size:
                raise InputError(f"link {name!r}: the centre of its surface {joint.name!r} is {off:.4g} m from the "
                                 f"axis of joint {joint.name!r} (through {np.round(x0, 6).tolist()} along "
                                 f"{np.round(a, 6).tolist()} in the link frame); the mesh must be given in the "
                                 f"link's own frame")


def _payloads(study: Study, robot) -> dict:
    """Payloads as inverse_dynamics takes them: point name -> (mass, inertia (3, 3)); clear errors."""
    out = {}
    for pl in study.payloads:
        if pl.point not in robot.points:
            raise InputError(f"payload at unknown point {pl.point!r}; the robot's points are {sorted(robot.points)}")
        if pl.point in out:
            raise InputError(f"two payloads at point {pl.point!r}; combine them into one")
        I = np.zeros((3, 3)) if pl.inertia is None else np.asarray(pl.inertia, float)
        if not (np.isfinite(pl.mass) and pl.mass > 0):
            raise InputError(f"payload at {pl.point!r}: mass must be a positive number of kg, got {pl.mass!r}")
        if I.shape != (3, 3) or not np.allclose(I, I.T) or np.linalg.eigvalsh(0.5 * (I + I.T)).min() < -1e-12:
            raise InputError(f"payload at {pl.point!r}: inertia must be a symmetric positive semi-definite 3x3 "
                             f"matrix [kg m^2] about the point in link axes, got {pl.inertia!r}")
        out[pl.point] = (float(pl.mass), I)
    return out


def _one_sided_acc(law, t, side):
    try:
        right = law.acceleration(t, side=1)
        left = law.acceleration(t, side=-1)
        return np.where(side > 0, right, left)
    except TypeError:
        return law.acceleration(t)


def _link_result(name, part, resp, basis, loads, study, t, kin, robot, qs_max, eq_err):
    from .results.files import LinkResult

    mat = part.material
    i_link = robot.link_names.index(name)
    x_link = part.points[resp.node_max]
    T = kin.T_world_link[resp.i_time_max, i_link]
    x_world = T[:3, :3] @ x_link + T[:3, 3]
    vm_env = resp.vm_envelope_nodes
    sf_env = mat.safety_factor(vm_env, resp.principal_envelope)
    min_sf = float(np.min(sf_env))
    # maxima away from the (singular) clamped edge, next to the value at the support
    d_support = part.distance_to_surfaces(list(loads.support))
    away = d_support > study.support_band_m
    vm_away = float(vm_env[away].max()) if away.any() else float("nan")
    passed = bool(min_sf >= study.required_safety_factor)
    return LinkResult(
        name=name, material=mat.name, mass_kg=float(part.mass_properties().mass),
        yield_strength_pa=float(mat.strength), criterion=mat.criterion, n_nodes=int(len(part.points)),
        n_elements=int(len(part.cells)), max_von_mises_pa=resp.max_von_mises,
        time_of_max_s=float(t[resp.i_time_max]), location_of_max_m=tuple(map(float, x_world)),
        location_of_max_link_m=tuple(map(float, x_link)),
        max_equivalent_strain=resp.max_von_mises / mat.E, max_deformation_m=resp.max_deformation,
        time_of_max_deformation_s=float(t[resp.i_time_max_deformation]), min_safety_factor=min_sf,
        passed=passed, max_von_mises_away_from_support_pa=vm_away, support_band_m=study.support_band_m,
        lowest_frequency_hz=float(basis.omega[0] / (2 * np.pi)) if len(basis.omega) else float("nan"),
        quasi_static_max_von_mises_pa=qs_max, equilibrium_rel_error=eq_err,
        points=part.points, cells=part.cells, frame_fields={},
        envelope={"von_mises": vm_env, "equivalent_strain": vm_env / mat.E,
                  "displacement_magnitude": resp.deformation_envelope, "safety_factor": sf_env},
        history={"max_von_mises": resp.vm_history, "max_equivalent_strain": resp.vm_history / mat.E,
                 "max_deformation": resp.deformation_history})


def _tool_chain(robot, tool_point, parts):
    """Links from the base to the tool point's link (those with parts), and each one's distal joint."""
    link_of = {j.child: j for j in robot.joints}
    tool_link = robot.points[tool_point][0]
    path = [tool_link]
    while path[-1] in link_of:
        path.append(link_of[path[-1]].parent)
    path = path[::-1]
    out = []
    for k, ln in enumerate(path):
        nxt = link_of[path[k + 1]].name if k + 1 < len(path) else None
        if ln in parts:
            out.append((ln, nxt))
    return out


def _tool_link_compliance(P, basis, loads, patches) -> np.ndarray | None:
    """6x6 compliance [d, theta] per unit [F, M] at the tool point of the tool link (link axes): the unit loads
    on its patches, shared equally between them (moment columns zero where the patches carry forces only).
    None when no unit load acts on the patches (nothing there is loaded in this study)."""
    comps = "Fx Fy Fz Mx My Mz".split()
    C = np.zeros((6, 6))
    found = False
    for patch in patches:
        for c, name in enumerate(comps):
            if f"{patch}:{name}" in loads.labels:
                C[:, c] += P @ basis.U[:, loads.labels.index(f"{patch}:{name}")] / len(patches)
                found = True
    return C if found else None


def _chain_results(study, robot, kin, responses, t, frame_idx):
    from .fe import response as analysis
    from .checks.toolchain import ChainLink, arm_lowest_mode, tool_point_deflection

    if not study.tool_point:
        return None, float("nan"), float("nan")
    tool_link, tool_xyz = robot.points[study.tool_point]
    tool_xyz = np.asarray(tool_xyz, float)
    i_tool = robot.link_names.index(tool_link)
    T_tool = kin.T_world_link[:, i_tool]
    tool_world = np.einsum("tij,j->ti", T_tool[:, :3, :3], tool_xyz) + T_tool[:, :3, 3]
    joints = {j.name: j for j in robot.joints}
    chain = []
    for ln, distal_joint in _tool_chain(robot, study.tool_point, responses):
        part, basis, loads, resp, modal = responses[ln]
        if distal_joint is None:  # the tool link: motion of the loaded patches about the tool point
            patches = [p for p in robot.points if robot.points[p][0] == ln and p in part.surfaces]
            if not patches:
                continue
            ref = tool_xyz
            P = np.mean([analysis.rigid_fit_operator(part, s, ref) for s in patches], axis=0)
            comp = _tool_link_compliance(P, basis, loads, patches)
        else:
            ref = np.asarray(joints[distal_joint].origin, float)[:3, 3]
            P = analysis.rigid_fit_operator(part, distal_joint, ref)
            cols = [i for i, lab in enumerate(loads.labels) if lab.startswith(distal_joint + ":")]
            comp = P @ basis.U[:, cols]
        D = P @ np.hstack([basis.U, basis.phi])
        motion = np.hstack([loads.coeff, modal]) @ D.T
        chain.append(ChainLink(index=robot.link_names.index(ln), ref_point=ref, motion=motion, compliance=comp))
    defl = tool_point_deflection(chain, kin.T_world_link, tool_world)
    # lowest arm mode over the motion: link masses at their centres of mass plus the payload, at the poses of
    # up to 21 of the output frames (the arm is most flexible at full reach)
    mass_props = {ln: responses[ln][0].mass_properties() for ln in responses}

    def lowest_mode_at(k):
        masses = []
        for ln, mp in mass_props.items():
            i = robot.link_names.index(ln)
            T = kin.T_world_link[k, i]
            masses.append((mp.mass, T[:3, :3] @ mp.com + T[:3, 3], i))
        if study.payload_mass_kg > 0:
            masses.append((study.payload_mass_kg, tool_world[k], i_tool))
        for pl in study.payloads:
            lname, xyz = robot.points[pl.point]
            i = robot.link_names.index(lname)
            T = kin.T_world_link[k, i]
            masses.append((pl.mass, T[:3, :3] @ np.asarray(xyz, float) + T[:3, 3], i))
        return arm_lowest_mode(chain, kin.T_world_link[k], masses, study.gravity)

    poses = np.unique(np.asarray(frame_idx)[np.linspace(0, len(frame_idx) - 1, min(21, len(frame_idx))).astype(int)])
    hz = np.array([lowest_mode_at(k) for k in poses])
    if not np.isfinite(hz).any():
        return defl, float("nan"), float("nan")
    j = int(np.nanargmin(hz))
    return defl, float(hz[j]), float(t[poses[j]])


def _summary(study, robot, rigid, links, tool_defl, arm_mode, eq_errors, timings, warnings, t, frame_idx):
    import scipy
    import skfem

    from . import __version__
    from .fe.solvers import available_backends

    link_summ = {n: L.summary() for n, L in links.items()}
    vm = max(links.values(), key=lambda L: L.max_von_mises_pa)
    tool_max = float(np.linalg.norm(tool_defl, axis=1).max()) if tool_defl is not None else None
    tool_t = float(t[np.argmax(np.linalg.norm(tool_defl, axis=1))]) if tool_defl is not None else None
    passed = all(L.passed for L in links.values())
    if study.deflection_limit_m is not None and tool_max is not None:
        passed = passed and tool_max <= study.deflection_limit_m
    dyn = rigid.dynamics
    joints = {}
    actuated = getattr(study.robot, "actuated", robot.dof_names)
    dof_index = {n: i for i, n in enumerate(robot.dof_names) if n in actuated}
    for k, name in enumerate(dyn.joint_names):
        W = dyn.joint_wrenches[:, k]
        F = np.linalg.norm(W[:, :3], axis=1)
        M = np.linalg.norm(W[:, 3:], axis=1)
        entry = {"max_reaction_force_n": float(F.max()), "time_of_max_force_s": float(t[np.argmax(F)]),
                 "max_reaction_moment_nm": float(M.max()), "time_of_max_moment_s": float(t[np.argmax(M)])}
        if name in dof_index:
            tau = dyn.tau[:, dof_index[name]]
            entry.update(max_abs_torque=float(np.abs(tau).max()), time_of_max_torque_s=float(t[np.argmax(np.abs(tau))]))
        if rigid.undetermined is not None and rigid.undetermined[k].any():
            entry["undetermined_components"] = [c for c, u in zip(WRENCH_COMPONENTS, rigid.undetermined[k]) if u]
        joints[name] = entry
    eq_vals = [v for v in eq_errors.values() if np.isfinite(v)]
    return {
        "study": study.name,
        "description": study.description,
        "parameters": dict(study.parameters),
        "passed": bool(passed),
        "required_safety_factor": study.required_safety_factor,
        "deflection_limit_m": study.deflection_limit_m,
        "max_von_mises_pa": vm.max_von_mises_pa,
        "max_von_mises_link": vm.name,
        "max_equivalent_strain": max(L.max_equivalent_strain for L in links.values()),
        "max_deformation_m": max(L.max_deformation_m for L in links.values()),
        "tool_point": study.tool_point,
        "tool_point_deflection_m": tool_max,
        "time_of_max_tool_point_deflection_s": tool_t,
        "arm_lowest_mode_hz": arm_mode[0],
        "time_of_arm_lowest_mode_s": arm_mode[1],
        "analysis": {"t_end_s": float(t[-1]), "n_time_samples": int(len(t)), "n_output_frames": int(len(frame_idx)),
                     "damping_ratio": study.damping_ratio, "n_modes": study.n_modes,
                     "quasi_static": study.quasi_static, "total_nodes": int(sum(L.n_nodes for L in links.values())),
                     "total_elements": int(sum(L.n_elements for L in links.values()))},
        "links": link_summ,
        "joints": joints,
        "checks": {"power_balance_rel_error": float(rigid.power_balance),
                   "equilibrium_rel_error": float(max(eq_vals) if eq_vals else 0.0),
                   "rigid_body_equilibrium_rel_error": rigid.equilibrium},
        "warnings": warnings,
        "timings_s": {k: float(v) for k, v in timings.items()},
        "versions": {"structcheck": __version__, "python": platform.python_version(), "numpy": np.__version__,
                     "scipy": scipy.__version__, "scikit-fem": skfem.__version__,
                     "sparse_solver": available_backends()[0]},
    }
