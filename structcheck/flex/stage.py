"""The arm-model stage of a study (``Study(flexibility="arm")``): the links reduced to superelements, the assembled
arm integrated along the motion, stresses recovered in every link, the tool point's dynamic deflection.

It takes what the stages before it built (the rigid-body stage and every link's loads on the analysis grid) and
returns per-link solutions in the layout the results stage reads (:class:`~structcheck.checks.LinkSolution` with
the superelement basis as its 'modes' and the reduced coordinates as its modal coefficients), so the link results,
frame fields, envelopes and verdict are formed exactly as for the per-link model.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from ..checks import LinkSolution
from ..errors import InputError
from ..fe.linkbasis import LinkBasis
from ..fe.response import peak_von_mises, respond
from ..fe.solvers import single_thread_blas
from ..pool import map_in_threads
from .assembly import AttachedMass, link_interfaces
from .modes import ArmModeShapes, arm_mode_shapes
from .recovery import point_displacement
from .superelement import Superelement
from .transient import ArmTransient, arm_static, arm_transient, external_loads, external_rest, segment_middle


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

    def frequency_history(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The assembled arm's lowest frequencies along the motion: the time [s] of each frozen segment's
        reference pose (n_seg,) on the analysis grid ``t`` and its frequencies (n_seg, n_freq) [Hz]."""
        seg = self.transient.segments
        middles = [segment_middle(t, a, b) for a, b in zip(seg[:-1], seg[1:])]  # one per segment, not per sample
        return t[middles], np.asarray(self.transient.frequency_hz)


@dataclass(frozen=True)
class ArmOptions:
    """What the arm model takes from a study: ``n_modes`` fixed-interface modes per link, the modal
    ``damping_ratio`` of the assembled arm's modes, ``quasi_static`` (no elastic inertia), ``joint_stiffness``
    joint name -> torsional stiffness [N m/rad] or (torsional, tilt), ``max_joint_change`` [rad or m] between
    re-assemblies, ``gravity`` (3,) world [m/s^2], ``tool_point`` the named point whose deflection is reported (None:
    none), ``payloads`` rigid masses held at named points (objects with ``point``, ``mass`` [kg] and ``inertia`` (3,
    3) [kg m^2] or None, as ``structcheck.Payload``)."""

    n_modes: int
    damping_ratio: float
    quasi_static: bool = False
    joint_stiffness: Mapping[str, Any] = field(default_factory=dict)
    max_joint_change: float = 0.05
    gravity: tuple = (0.0, 0.0, -9.81)
    tool_point: str | None = None
    payloads: tuple = ()


def check_arm_inputs(chain, parts, joint_stiffness) -> None:
    """InputError for inputs the arm model cannot run: unknown joints in ``joint_stiffness`` (joint name -> its
    stiffness), a cut joint of ``chain`` between two links without a Part (``parts``: link name -> Part). (Links
    without a Part are rigid in the arm model; a mechanism is refused when the first pose is assembled.)"""
    tree = chain.tree
    names = [j.name for j in tree.joints] + [c.name for c in chain.cuts]
    for name in joint_stiffness:
        if name not in names:
            raise InputError(f"joint_stiffness names unknown joint {name!r}; the robot's joints are {names}")
    for c in chain.cuts:
        if c.parent not in parts and c.child not in parts:
            raise InputError(f"flexibility='arm': cut joint {c.name!r} joins two links without a Part ({c.parent!r}, "
                             f"{c.child!r}); give one of them a Part, or set flexibility='link'")


def payload_masses(tree, payloads, parts=None) -> tuple:
    """The study's payloads (``study.Payload``: rigid masses held at named points) as :class:`AttachedMass` on the
    surface named after their point: their elastic inertia in the assembled mass matrix (their rigid-motion
    inertia and weight are loads already). A payload given as a force has no mass in the arm model. With
    ``parts``, only payloads on links with a Part (a rigid link's inertials already hold its payloads)."""
    out = []
    for pl in payloads:
        link, xyz = tree.points[pl.point]
        if parts is not None and link not in parts:
            continue
        out.append(AttachedMass(link, pl.point, float(pl.mass), point=tuple(np.asarray(xyz, float)),
                                inertia=None if pl.inertia is None else tuple(map(tuple, np.asarray(pl.inertia)))))
    return tuple(out)


def reduce_study_links(robot, parts: dict, loads: dict, n_modes: int, attached=(), on_done=None) -> dict:
    """Superelements of every link (:func:`link_reducers`). The links are reduced as many at a time as the process
    has cores (:func:`structcheck.pool.map_in_threads`; ``on_done(link)`` as each is done)."""
    reduce = link_reducers(robot, parts, loads, n_modes, attached)
    ses = map_in_threads(lambda n: reduce[n][1](), list(parts), weight=lambda n: parts[n].n_dofs, on_done=on_done)
    return dict(zip(parts, ses))


def link_reducers(robot, parts: dict, loads: dict, n_modes: int, attached=()) -> dict:
    """link -> (its interface names, ``reduce(clamped=None) -> Superelement``): the link's superelement with
    interfaces at its joints (a
    closed chain's cut joints too; ``robot`` a Robot or ClosedChain) and the base's ``ground``, and at the surfaces
    of ``attached`` masses, ``n_modes`` fixed-interface modes, residual vectors of the link's own loads (body
    loads, point forces, payload patches: ``loads`` link -> LinkLoads); ``clamped`` a factorization of the link
    to reuse where it is clamped on the same dofs (``Superelement.from_part``)."""
    ifs = link_interfaces(robot, parts, attached)
    ext = external_loads(loads)
    return {n: (tuple(ifs[n]), functools.partial(Superelement.from_part, parts[n], ifs[n], n_modes,
                                                  residual_loads=[ext[n][0]])) for n in parts}


def rigid_link_loads(tree, dynamics, gravity, point_forces, elastic) -> dict:
    """Loads of the links without a Part (rigid in the arm model; the base is the ground): link -> (F = I (6, 6),
    coeff (n_t, 6)) with coeff the link's free-body wrench (gravity, point forces, payloads, minus its rate of
    momentum: force [N] and moment about its frame origin [N m], link axes), as :func:`arm_transient` takes a
    rigid link's loads."""
    from ..rigid.dynamics import free_body_wrenches

    F, N = free_body_wrenches(tree, dynamics, gravity, point_forces)
    return {n: (np.eye(6), np.hstack([F[:, i], N[:, i]])) for i, n in enumerate(tree.link_names)
            if n not in elastic and n != tree.base}


def rest_loads(tree, loads: dict, rest, gravity, elastic) -> dict | None:
    """The arm model's loads at rest before the motion, link -> coefficients (k,) of :func:`arm_transient`'s
    ``loads`` columns: the elastic links' from ``LinkLoads.rest``, the rigid links' free-body wrenches from
    ``rest`` (the rigid-body stage standing still, one sample); None without a rest state."""
    elastic_rest = external_rest(loads)
    if rest is None or elastic_rest is None:
        return None
    rigid = rigid_link_loads(tree, rest.body.dynamics, gravity, rest.point_forces, elastic)
    return {**elastic_rest, **{n: coeff[0] for n, (_, coeff) in rigid.items()}}


def _progress(bar, n_steps: int):
    """(step(*_), on_segment(n_segments)) advancing ``bar`` (None: both do nothing): ``n_steps`` counted steps, and
    the segments added to its total on the first segment's report."""
    if bar is None:
        return (lambda *_: None), None
    bar.reset(total=n_steps)

    def on_segment(n_segments):
        if bar.total == n_steps:
            bar.total = n_steps + n_segments
        bar.update()

    return (lambda *_: bar.update()), on_segment


def arm_stage(chain, parts: dict, body, loads: dict, equilibrium_errors: dict, t: np.ndarray, options: ArmOptions,
              point_forces: dict | None = None, bar=None, superelements: dict | None = None,
              finish=None, rest=None) -> ArmStage:
    """Run the arm model on the analysis samples ``t`` (n_t,) (transient, or quasi-static with
    ``options.quasi_static``: :func:`~structcheck.flex.transient.arm_static`): ``chain`` the robot's ClosedChain
    (an open robot has no cuts), ``parts`` link -> Part of the elastic links, ``body`` the rigid-body stage
    (``RigidBody``), ``loads`` link -> LinkLoads on ``t`` (every link of ``parts``), ``equilibrium_errors`` link ->
    the relative equilibrium residual of its loads (kept in its solution), ``point_forces`` point -> (n_t, 3) [N,
    world] (the loads of links without a Part); ``bar`` a tqdm progress bar (or None) counting the links'
    superelements, the frozen segments and the links' stress histories; ``superelements`` link -> Superelement
    already reduced (:func:`reduce_study_links`, or one link at a time with the same inputs) instead of reducing
    them here; ``finish(solution) -> solution`` applied to each link's solution in the thread that recovered it
    (the caller forms its results there: the solutions' stress bases need not all be held at once); ``rest`` the
    rigid-body stage of the robot standing still before t[0] (its ``body`` and ``point_forces``, one sample; the
    ``loads`` then carry their ``rest`` coefficients): the arm starts at rest in static equilibrium under them;
    None: the motion is already under way at t[0]."""
    # Every dense product of the arm stage is thin (n_dof x n_red, n_red ~ 30) or small (the assembled arm): on
    # them OpenBLAS's threads only wait on each other, several times slower than one thread on busy cores (a link's
    # stress basis: 0.2-0.5 s against 0.17 s on a 50k-dof link). PARDISO (MKL) keeps its threads, and the stress
    # histories run in threads of their own (fe.response).
    with single_thread_blas():
        return _arm_stage(chain, {n: parts[n] for n in loads}, body, loads, equilibrium_errors, t, options,
                          point_forces, bar, superelements, finish or (lambda sol: sol), rest)


def _arm_stage(chain, parts, body, loads, equilibrium_errors, t, options: ArmOptions, point_forces,
               bar, ses, finish, rest=None) -> ArmStage:
    tree = chain.tree
    attached = payload_masses(tree, options.payloads, parts)
    clock = time.perf_counter()
    step, on_segment = _progress(bar, (1 if ses is not None else 2) * len(parts))
    timings = {}
    if ses is None:
        ses = reduce_study_links(chain, parts, loads, options.n_modes, attached, on_done=step)
        timings["arm_superelements"] = time.perf_counter() - clock
    ext = {**external_loads(loads), **rigid_link_loads(tree, body.dynamics, options.gravity, point_forces, parts)}
    stiffness = dict(options.joint_stiffness)
    kw = dict(joint_stiffness=stiffness, attached=attached, max_joint_change=options.max_joint_change,
              rigid_inertials=body.dynamics.inertials, on_segment=on_segment)
    if options.quasi_static:  # K(q) x = f(t): the same loads, no elastic inertia
        tr = arm_static(chain, ses, t, body.q, ext, **kw)
    else:
        tr = arm_transient(chain, ses, t, body.q, ext, damping=options.damping_ratio,
                           rest=rest_loads(tree, loads, rest, options.gravity, parts), **kw)
    timings["arm_transient"] = time.perf_counter() - clock - sum(timings.values())
    # the links' stress histories as many at a time as there are cores (each on its share of them: the same results)
    solutions = dict(zip(ses, map_in_threads(
        lambda n: finish(_link_solution(n, ses[n], loads[n], tr.z[n], equilibrium_errors[n],
                                        None if options.quasi_static else tr.z_static[n])),
        list(ses), weight=lambda n: ses[n].part.n_dofs, on_done=step)))
    timings["arm_recovery"] = time.perf_counter() - clock - sum(timings.values())
    tool = None
    if options.tool_point:
        tool = tool_deflection(tree, body.dynamics.kinematics.T_world_link, ses, tr, options.tool_point)
    j = int(np.argmin(tr.frequency_hz[:, 0]))
    a, b = tr.segments[j], tr.segments[j + 1]
    time_s = float(t[segment_middle(t, a, b)])
    shapes = arm_mode_shapes(chain, ses, tr.q_ref[j], tr.frequency_hz.shape[1], stiffness, attached,
                             time_s=time_s, rigid_inertials=body.dynamics.inertials)
    cutoff = {n: float(se.omega[-1] / (2 * np.pi)) if se.n_modes else 0.0 for n, se in ses.items()}
    timings["arm_modes"] = time.perf_counter() - clock - sum(timings.values())
    return ArmStage(solutions=solutions, transient=tr, tool_deflection=tool, modes_hz=tr.frequency_hz[j],
                    modes_time_s=time_s, mode_shapes=shapes, cutoff_hz=cutoff, timings=timings)


def _link_solution(name, se, ld, z, equilibrium_error: float, z_static=None) -> LinkSolution:
    """One link's arm-model solution in the per-link layout: no unit-load columns, the superelement basis as the
    'modes' (omega: its fixed-interface frequencies), z as the modal coefficients, both turned to the principal
    directions of the history (:func:`principal_basis`). ``z_static`` (n_t, n_red): the quasi-static part of z
    (transient runs), whose peak at the element nodes is the solution's quasi-static peak: the transient / quasi-
    static ratio is then the arm-level dynamic amplification (NaN for a quasi-static run, as per link)."""
    n = se.Psi.shape[0]
    V = principal_basis(z)
    phi = se.Psi @ V
    # the stress basis of the turned columns: the same linear map, without the superelement's own (a pass less)
    basis = LinkBasis(F=np.zeros((n, 0)), U=np.zeros((n, 0)), phi=phi, omega=se.omega, S=se.part.stress_basis(phi))
    z = z @ V
    response = respond(se.part, basis, np.zeros((len(z), 0)), z, brittle=se.part.material.criterion == "max_principal")
    qs = float("nan") if z_static is None else peak_von_mises(basis, z_static @ V)
    return LinkSolution(name=name, part=se.part, loads=replace(ld, F=ld.F[:, :0], coeff=ld.coeff[:, :0], columns=()),
                        basis=basis, response=response, modal=z, quasi_static_max_von_mises_pa=qs,
                        equilibrium_error=equilibrium_error)


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
    R = T_world_link[:, tree.link_names.index(link), :3, :3]
    if link not in ses:  # a rigid link: its origin's motion carried to the point
        z = tr.z.get(link, np.zeros((len(R), 6)))  # the ground does not move
        return np.einsum("tij,tj->ti", R, z[:, :3] + np.cross(z[:, 3:], np.asarray(xyz, float)))
    se = ses[link]
    surfaces = [tool_point] if tool_point in se.part.surfaces else \
        [p for p, (ln, _) in tree.points.items() if ln == link and p in se.part.surfaces]
    z = tr.z[link]
    if surfaces:
        u = np.mean([point_displacement(se, z, xyz, s) for s in surfaces], axis=0)
    else:
        u = point_displacement(se, z, xyz)
    return np.einsum("tij,tj->ti", R, u)
