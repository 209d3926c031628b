"""The arm-model stage of a study (``Study(flexibility="arm")``): the links reduced to superelements, the assembled
arm integrated along the motion, stresses recovered in every link, the tool point's dynamic deflection.

It takes what the per-link stages built (the rigid-body stage and every link's loads on the analysis grid) and
returns per-link solutions in the layout the results stage reads (:class:`~structcheck.checks.LinkSolution` with
the superelement basis as its 'modes' and the reduced coordinates as its modal coefficients), so the link results,
frame fields, envelopes and verdict are formed exactly as for the per-link model.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from ..checks import LinkSolution
from ..errors import InputError
from ..fe.linkbasis import LinkBasis
from ..fe.response import respond
from ..fe.solvers import single_thread_blas
from .assembly import AttachedMass, link_interfaces
from .modes import ArmModeShapes, FirstModeAlongMotion, arm_mode_shapes, first_mode_along_motion
from .recovery import point_displacement
from .superelement import Superelement
from .transient import ArmTransient, arm_static, arm_transient, external_loads


@dataclass(frozen=True)
class ArmStage:
    """``solutions`` link -> LinkSolution of the arm model; ``transient`` the :class:`ArmTransient`;
    ``tool_deflection`` (n_t, 3) [m] world axes (None without a tool point); ``modes_hz`` (6,) the lowest
    natural frequencies of the assembled arm at the pose (segment) where the first is lowest, at
    ``modes_time_s`` [s] (the time of that segment's reference pose), and ``mode_shapes`` their shapes on every
    link placed at that pose (:class:`~structcheck.flex.modes.ArmModeShapes`); ``cutoff_hz`` link -> the highest
    fixed-interface frequency kept in its superelement [Hz] (0 when it keeps none); ``timings`` wall time [s] of
    its phases (superelements, transient, recovery of the link histories, tool deflection and mode shapes)."""

    solutions: dict
    transient: ArmTransient
    tool_deflection: np.ndarray | None
    modes_hz: np.ndarray
    modes_time_s: float
    mode_shapes: ArmModeShapes | None = None
    cutoff_hz: dict | None = None
    timings: dict | None = None


def check_arm_inputs(study, chain) -> None:
    """InputError for a study the arm model cannot run: closed loops, unknown joints."""
    if chain.cuts:
        raise InputError("flexibility='arm' needs an open tree: this robot has closed loops (cut joints "
                         f"{[j.name for j in chain.cuts]}); use flexibility='link'")
    tree = chain.tree
    for name in study.joint_stiffness:
        if name not in [j.name for j in tree.joints]:
            raise InputError(f"joint_stiffness names unknown joint {name!r}; the robot's joints are "
                             f"{[j.name for j in tree.joints]}")
    missing = [n for n in tree.link_names if n not in study.parts and n != tree.base]
    if missing:
        raise InputError(f"flexibility='arm' needs a Part for every link but the base; missing: {missing}")


def payload_masses(tree, payloads) -> tuple:
    """The study's payloads (``study.Payload``: rigid masses held at named points) as :class:`AttachedMass` on the
    surface named after their point: their elastic inertia in the assembled mass matrix (their rigid-motion
    inertia and weight are loads already). A payload given as a force has no mass in the arm model."""
    out = []
    for pl in payloads:
        link, xyz = tree.points[pl.point]
        out.append(AttachedMass(link, pl.point, float(pl.mass), point=tuple(np.asarray(xyz, float)),
                                inertia=None if pl.inertia is None else tuple(map(tuple, np.asarray(pl.inertia)))))
    return tuple(out)


def reduce_study_links(tree, parts: dict, loads: dict, n_modes: int, attached=()) -> dict:
    """Superelements of every link: interfaces at its joints (and the base's ``ground``) and at the surfaces of
    ``attached`` masses, ``n_modes`` fixed-interface modes, residual vectors of the link's own loads (body loads,
    point forces, payload patches)."""
    ifs = link_interfaces(tree, parts, attached)
    ext = external_loads(loads)
    return {n: Superelement.from_part(parts[n], ifs[n], n_modes, residual_loads=[ext[n][0]]) for n in parts}


def arm_stage(study, chain, body, loads: dict, link_solutions: dict, t: np.ndarray) -> ArmStage:
    """Run the arm model on the analysis samples ``t`` (n_t,) (transient, or quasi-static with
    ``study.quasi_static``: :func:`~structcheck.flex.transient.arm_static`): ``body`` the rigid-body stage (``RigidBody``),
    ``loads`` link -> LinkLoads on ``t``, ``link_solutions`` the per-link model's solutions (their equilibrium
    residuals are kept)."""
    tree = chain.tree
    parts = {n: study.parts[n] for n in loads}
    attached = payload_masses(tree, study.payloads)
    clock = time.perf_counter()
    ses = reduce_study_links(tree, parts, loads, study.n_modes, attached)
    timings = {"arm_superelements": time.perf_counter() - clock}
    if study.quasi_static:  # K(q) x = f(t): the same loads, no elastic inertia
        tr = arm_static(tree, ses, t, body.q, external_loads(loads), joint_stiffness=dict(study.joint_stiffness),
                        attached=attached, max_joint_change=study.arm_max_joint_change)
    else:
        tr = arm_transient(tree, ses, t, body.q, external_loads(loads), damping=study.damping_ratio,
                           joint_stiffness=dict(study.joint_stiffness), attached=attached,
                           max_joint_change=study.arm_max_joint_change)
    timings["arm_transient"] = time.perf_counter() - clock - sum(timings.values())
    solutions = {n: _link_solution(n, ses[n], loads[n], tr.z[n], link_solutions[n]) for n in ses}
    timings["arm_recovery"] = time.perf_counter() - clock - sum(timings.values())
    tool = None
    if study.tool_point:
        tool = tool_deflection(tree, body.dynamics.kinematics.T_world_link, ses, tr, study.tool_point)
    j = int(np.argmin(tr.frequency_hz[:, 0]))
    a, b = tr.segments[j], tr.segments[j + 1]
    time_s = float(t[a + int(np.argmin(np.abs(t[a:b + 1] - 0.5 * (t[a] + t[b]))))])
    shapes = arm_mode_shapes(tree, ses, tr.q_ref[j], tr.frequency_hz.shape[1], dict(study.joint_stiffness), attached,
                             time_s=time_s)
    cutoff = {n: float(se.omega[-1] / (2 * np.pi)) if se.n_modes else 0.0 for n, se in ses.items()}
    timings["arm_modes"] = time.perf_counter() - clock - sum(timings.values())
    return ArmStage(solutions=solutions, transient=tr, tool_deflection=tool, modes_hz=tr.frequency_hz[j],
                    modes_time_s=time_s, mode_shapes=shapes, cutoff_hz=cutoff, timings=timings)


def _link_solution(name, se, ld, z, link_solution) -> LinkSolution:
    """One link's arm-model solution in the per-link layout: no unit-load columns, the superelement basis as the
    'modes' (omega: its fixed-interface frequencies), z as the modal coefficients, both turned to the principal
    directions of the history (:func:`principal_basis`)."""
    n = se.Psi.shape[0]
    V = principal_basis(z)
    S = se.stress_basis
    S = (V.T @ S.reshape(len(V), -1)).reshape(S.shape)
    basis = LinkBasis(F=np.zeros((n, 0)), U=np.zeros((n, 0)), phi=se.Psi @ V, omega=se.omega, S=S)
    z = z @ V
    response = respond(se.part, basis, np.zeros((len(z), 0)), z, brittle=se.part.material.criterion == "max_principal")
    return LinkSolution(name=name, part=se.part, loads=replace(ld, F=ld.F[:, :0], coeff=ld.coeff[:, :0], columns=()),
                        basis=basis, response=response, modal=z, quasi_static_max_von_mises_pa=float("nan"),
                        equilibrium_error=link_solution.equilibrium_error)


def principal_basis(z: np.ndarray) -> np.ndarray:
    """Orthogonal V (n_red, n_red): the right singular vectors of the history z (n_t, n_red) (largest first), so
    that the link's stresses are the same sum over the turned basis Psi V with coefficients z V (V V^T = I).

    Why: fatigue screens element points by bounds of the form sum_j max_t |c_j| |s_j|
    (:mod:`structcheck.fatigue.links`), which are loose when coefficients cancel. The superelement's coordinates
    do: a rigid motion of the link is a combination of its interface nodes' constraint modes, each of large stress
    alone. In the principal directions the coefficients are uncorrelated, the bounds tighter, and fatigue counts
    fewer points (paper 004: 186,000 -> 20,000 element points counted; fatigue CPU time 39 s -> 11 s)."""
    # eigenvectors of z^T z: orthonormal whatever their accuracy, so the turn is exact in any case
    _, V = np.linalg.eigh(z.T @ z)
    return V[:, ::-1]


def tool_deflection(tree, T_world_link: np.ndarray, ses: dict, tr: ArmTransient, tool_point: str) -> np.ndarray:
    """Elastic displacement (n_t, 3) [m], world axes, of the robot point ``tool_point`` relative to its rigid
    motion: the rigid fit of the patches of the tool link's named points carried to the tool point (their mean;
    the tool point's own surface if it has one), else the nearest node."""
    link, xyz = tree.points[tool_point]
    if link not in ses:
        raise InputError(f"tool point {tool_point!r} is on link {link!r}, which has no Part")
    se = ses[link]
    surfaces = [tool_point] if tool_point in se.part.surfaces else \
        [p for p, (ln, _) in tree.points.items() if ln == link and p in se.part.surfaces]
    z = tr.z[link]
    if surfaces:
        u = np.mean([point_displacement(se, z, xyz, s) for s in surfaces], axis=0)
    else:
        u = point_displacement(se, z, xyz)
    R = T_world_link[:, tree.link_names.index(link), :3, :3]
    return np.einsum("tij,tj->ti", R, u)


@dataclass(frozen=True)
class ArmInfo:
    """The assembled arm's frequencies for ``structcheck info``: ``home_hz`` (n,) [Hz] the lowest at the home pose
    and ``along`` (:class:`~structcheck.flex.modes.FirstModeAlongMotion`) the first at every frozen pose of the
    study's motion on its analysis grid; ``dof_names`` the joints of its q, ``prismatic`` (n_dof,) which are
    prismatic [m] (the others [rad])."""

    home_hz: np.ndarray
    along: FirstModeAlongMotion
    dof_names: tuple
    prismatic: np.ndarray

    def pose_text(self, q) -> str:
        """Joint values q (n_dof,) as 'name value unit' (degrees, mm)."""
        return ", ".join(f"{n} {v * 1e3:.1f} mm" if p else f"{n} {np.degrees(v):.1f} deg"
                         for n, v, p in zip(self.dof_names, q, self.prismatic))


def arm_info(study, n: int = 6) -> ArmInfo | None:
    """Lowest ``n`` natural frequencies [Hz] of the assembled arm at the home pose, and its first frequency at the
    frozen poses of the motion (``study.arm_max_joint_change`` on the study's analysis grid, before the refinement
    a run adds where links ring), the links reduced once with ``study.n_modes`` fixed-interface modes and
    body-load residual vectors, ``study.joint_stiffness``, payloads given as masses included. None where the arm
    model does not apply (closed loops, a link other than the base without a Part). A run's ``arm_modes_hz`` can
    differ slightly: its superelements carry residual vectors of all its loads (point-force patches too)."""
    from ..study import prepare, rigid_stage
    from .assembly import assemble_arm, reduce_links

    prep = prepare(replace(study, flexibility="link", cycles_per_hour=None, design_life_hours=None,
                           design_life_cycles=None))
    tree = prep.chain.tree
    if prep.chain.cuts or any(ln not in study.parts and ln != tree.base for ln in tree.link_names):
        return None
    attached = payload_masses(tree, study.payloads)
    ses = reduce_links(tree, dict(study.parts), study.n_modes, attached)
    js = dict(study.joint_stiffness)
    q_home = np.array([tree.joint(j).home for j in tree.dof_names])
    with single_thread_blas():
        home = assemble_arm(tree, ses, q_home, js, attached).modes(n)[0]
    body = rigid_stage(study, prep, prep.grid.t).body
    along = first_mode_along_motion(tree, ses, prep.grid.t, body.q, study.arm_max_joint_change, js, attached)
    return ArmInfo(home_hz=home, along=along, dof_names=tuple(tree.dof_names),
                   prismatic=np.array([tree.joint(j).type == "prismatic" for j in tree.dof_names]))
