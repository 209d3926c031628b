"""Load histories of one link from the rigid-body results (floating frame of reference, link axes).

On link L (body frame L, time-first arrays):
- body force density ``rho (g - a_O - alpha x x - omega x (omega x x))`` from the link's rigid motion;
- at each distal joint j: minus the child's reaction wrench (the child pushes back on L), on the surface named
  after the joint; at a cut joint that closes a loop: minus its wrench on the parent side, plus it on the child
  side (the child's support stays its tree joint);
- at each named point of L with an external force: that force, on the surface named after the point;
- at each non-structural point mass: its weight and inertia force ``m (g - a_P)``, on the surface named after it;
- at each payload held at a named point P of L: ``m (g - a_P)`` and the moment ``-(I alpha + omega x I omega)``
  about P, on the surface named after the point;
- the proximal joint's surface (or ``ground`` for the base) is the support.
Every load is (unit load vectors F (n_dof, k)) x (coefficients (n_t, k)), so the FE history is F @ coeff.T; each
column is described by a :class:`LoadColumn`.

Also here: the checks of a study's inputs that concern the loads (link meshes placed in their link frames and in
metres, payloads) and the point-force histories.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError, named_input
from .spatial import skew

GROUND_SURFACE = "ground"
WRENCH_COMPONENTS = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")
FORCE_COMPONENTS = WRENCH_COMPONENTS[:3]
#: Components of the body-load columns: g - a_O (3), then B = -[alpha]x - [omega]x^2 row by row (9).
BODY_COMPONENTS = ("ax", "ay", "az", *[f"B{a}{b}" for a in "xyz" for b in "xyz"])


@dataclass(frozen=True)
class LoadColumn:
    """What one unit-load column is: ``kind`` ``"body"`` (the rigid-motion body force, ``source`` "body"),
    ``"interface"`` (a joint's wrench on the surface named after the joint ``source``), ``"point"`` (a force or a
    payload at the robot point ``source``) or ``"mass"`` (a non-structural point mass named ``source``);
    ``component`` one of :data:`BODY_COMPONENTS` or :data:`WRENCH_COMPONENTS`."""

    source: str
    kind: str
    component: str


@dataclass(frozen=True)
class LinkLoads:
    """Unit loads and their coefficient histories for one link.

    ``F`` (n_dof, k); ``coeff`` (n_t, k); ``columns`` (k,) say what each column is; ``support`` the surface
    names clamped; ``proximal_wrench`` (n_t, 6) the wrench the parent (or, for the base, the ground) must exert
    on the link at the link-frame origin in link axes. ``rest`` (k,): the coefficients of the loads before the
    first sample, the robot standing still in its first pose (gravity, forces and payloads as at the first
    sample, no motion), under which the link starts in static equilibrium; None: the motion is already under way
    at the first sample (:class:`structcheck.settings.InitialState`).
    """

    F: np.ndarray
    coeff: np.ndarray
    columns: tuple[LoadColumn, ...]
    support: tuple[str, ...]
    proximal_wrench: np.ndarray
    rest: np.ndarray | None = None

    def index(self, source: str, component: str, kinds=("interface", "point", "mass")) -> int | None:
        """Index of the first column of ``source``'s ``component`` among ``kinds``, or None."""
        return next((k for k, c in enumerate(self.columns)
                     if c.source == source and c.component == component and c.kind in kinds), None)

    def interface(self, joint: str) -> list[int]:
        """Indices of the six wrench columns (Fx .. Mz) of ``joint``'s interface (empty if it has none here)."""
        return [k for k, c in enumerate(self.columns) if c.kind == "interface" and c.source == joint]


def body_coefficients(gravity, acceleration, angular_velocity, angular_acceleration) -> np.ndarray:
    """Coefficients (n_t, 12) of :meth:`Part.body_load_basis` for the rigid-motion body force (columns
    :data:`BODY_COMPONENTS`).

    Inputs (n_t, 3) or (3,) in link axes: gravity g [m/s^2], frame-origin acceleration a_O [m/s^2], angular
    velocity omega [rad/s], angular acceleration alpha [rad/s^2]. The body force density at x is
    rho (A0 + B x) with A0 = g - a_O and B = -[alpha]x - [omega]x [omega]x."""
    g, a, w, al = (np.atleast_2d(np.asarray(x, float)) for x in (gravity, acceleration, angular_velocity,
                                                                  angular_acceleration))
    n = max(len(g), len(a), len(w), len(al))
    g, a, w, al = (np.broadcast_to(x, (n, 3)) for x in (g, a, w, al))
    W = skew(w)
    B = -skew(al) - W @ W
    return np.hstack([g - a, B.reshape(n, 9)])


def _require_surface(part, surface: str, link: str, why: str) -> None:
    if surface not in part.surfaces:
        raise InputError(f"link {link!r}: its mesh has no surface {surface!r} ({why}); the mesh has "
                         f"{sorted(part.surfaces)}. Tag that interface as a physical surface group named "
                         f"{surface!r} or pass a geometric selection")


class _Columns:
    """Collects (unit loads (n_dof, c), coefficients (n_t, c), LoadColumns) blocks in order. ``make_F`` is called
    only when the unit loads are wanted (``build_F``): they do not depend on time, so a second grid reuses them."""

    def __init__(self, build_F: bool = True):
        self.build_F = build_F
        self.F, self.coeff, self.columns = [], [], []

    def add(self, make_F, coeff, source, kind, components):
        if self.build_F:
            self.F.append(make_F())
        self.coeff.append(coeff)
        self.columns += [LoadColumn(source, kind, c) for c in components]


def link_loads(chain, dyn, link: str, part, gravity, point_forces: dict | None = None,
               payloads: dict | None = None, unit_loads: np.ndarray | None = None) -> LinkLoads:
    """Unit loads and coefficient histories of ``link`` (see module docstring).

    ``chain`` the ClosedChain (its ``tree`` the Robot whose inertials the dynamics used; no cuts for an open
    robot); ``dyn`` its dynamics (joint wrenches of the tree's joints, then of the cut joints, and
    ``.kinematics``); ``gravity`` (3,) world [m/s^2]; ``point_forces`` maps point name -> (n_t, 3) force in world
    axes [N] (or (n_t, 6): force and moment about the point [N, N m], an event payload's wrench); ``payloads``
    maps point name -> (mass [kg], inertia (3, 3) about the point in link axes), as given to the inverse dynamics.
    ``unit_loads`` (n_dof, k): the F of an earlier call for the same link, robot, forces and payloads on other
    samples, reused as it is (F does not depend on time; building it is most of the cost).
    """
    robot, kin = chain.tree, dyn.kinematics
    i = robot.link_names.index(link)
    R_wl = kin.T_world_link[:, i, :3, :3]
    g_link = np.einsum("tji,j->ti", R_wl, np.asarray(gravity, float))
    cols = _Columns(build_F=unit_loads is None)
    cols.add(part.body_load_basis, body_coefficients(g_link, kin.a_origin[:, i], kin.omega[:, i],
                                                        kin.alpha[:, i]), "body", "body", BODY_COMPONENTS)
    _interface_columns(cols, chain, dyn, link, part)
    _point_force_columns(cols, robot, kin, link, part, point_forces or {})
    _carried_mass_columns(cols, robot, kin, link, part, g_link, payloads or {})
    support, W_prox = _support(robot, dyn, link, part, gravity, point_forces)
    coeff = np.hstack(cols.coeff)
    F = np.hstack(cols.F) if unit_loads is None else unit_loads
    if F.shape[1] != coeff.shape[1]:
        raise ValueError(f"link {link!r}: the reused unit loads have {F.shape[1]} columns, its loads {coeff.shape[1]}")
    return LinkLoads(F=F, coeff=coeff, columns=tuple(cols.columns), support=support, proximal_wrench=W_prox)


def _interface_columns(cols: _Columns, chain, dyn, link, part) -> None:
    """Minus each distal joint's wrench (parent on child) on the link, plus a cut joint's on its child side."""
    robot, kin = chain.tree, dyn.kinematics
    i = robot.link_names.index(link)
    T_wl = kin.T_world_link[:, i]
    R_wl = T_wl[:, :3, :3]
    joints = {j.name: j for j in robot.joints}
    cut_of = {c.name: c for c in chain.cuts}
    for k, name in enumerate(dyn.joint_names):
        # the joint's wrench (parent on child) in world axes about its point x_w: minus it on the parent side
        # (the child pushes back), plus it on the child side of a cut joint (the loop's far end is loaded)
        if name in cut_of:
            cj = cut_of[name]
            if link not in (cj.parent, cj.child):
                continue
            T_b = kin.T_world_link[:, robot.link_names.index(cj.child)]
            x_w = T_b[:, :3, :3] @ cj.child_origin[:3, 3] + T_b[:, :3, 3]
            sign, p_ref = (-1.0, cj.origin[:3, 3]) if link == cj.parent else (1.0, cj.child_origin[:3, 3])
            why = f"the interface of cut joint {name!r} between links {cj.parent!r} and {cj.child!r}"
        else:
            j = joints[name]
            if j.parent != link:
                continue
            x_w = kin.T_world_link[:, robot.link_names.index(j.child), :3, 3]
            # a prismatic joint's origin slides: refer the moment to its fixed placement at q = 0
            sign, p_ref = -1.0, np.asarray(j.origin, float)[:3, 3]
            why = f"the interface of joint {name!r} to child link {j.child!r}"
        _require_surface(part, name, link, why)
        W = dyn.joint_wrenches_world[:, k]
        F_l = sign * np.einsum("tji,tj->ti", R_wl, W[:, :3])
        p_l = np.einsum("tji,tj->ti", R_wl, x_w - T_wl[:, :3, 3])
        M_l = sign * np.einsum("tji,tj->ti", R_wl, W[:, 3:]) + np.cross(p_l - p_ref, F_l)
        cols.add(lambda name=name, p_ref=p_ref: part.wrench_basis(name, p_ref), np.hstack([F_l, M_l]), name,
                 "interface", WRENCH_COMPONENTS)


def _point_force_columns(cols: _Columns, robot, kin, link, part, point_forces: dict) -> None:
    """External forces at the link's named points, on the patches named after them."""
    R_wl = kin.T_world_link[:, robot.link_names.index(link), :3, :3]
    for pname, force in point_forces.items():
        plink, xyz = robot.points[pname]
        if plink != link:
            continue
        _require_surface(part, pname, link, f"the patch where the force at point {pname!r} acts")
        force = np.asarray(force, float)
        W_world = np.broadcast_to(force, (len(R_wl), force.shape[-1]))  # a force, or a force and its moment
        k = W_world.shape[1]
        cols.add(lambda pname=pname, xyz=xyz, k=k: part.wrench_basis(pname, np.asarray(xyz, float))[:, :k],
                 np.hstack([np.einsum("tji,tj->ti", R_wl, W_world[:, a:a + 3]) for a in range(0, k, 3)]), pname,
                 "point", WRENCH_COMPONENTS[:k])


def _carried_mass_columns(cols: _Columns, robot, kin, link, part, g_link, payloads: dict) -> None:
    """Rigid masses carried by the link: non-structural point masses (force only) and payloads (full wrench)."""
    i = robot.link_names.index(link)
    w, al = kin.omega[:, i], kin.alpha[:, i]
    carried = [(pm.name, "mass", pm.mass, None, pm.position, f"the mounting of non-structural mass {pm.name!r}")
               for pm in robot.links[i].point_masses]
    carried += [(pname, "point", m, I, robot.points[pname][1], f"the mounting of the payload at point {pname!r}")
                for pname, (m, I) in payloads.items() if robot.points[pname][0] == link]
    for surface, kind, m, I, xyz, why in carried:
        _require_surface(part, surface, link, why)
        r = np.asarray(xyz, float)
        a_p = kin.a_origin[:, i] + np.cross(al, r) + np.cross(w, np.cross(w, r))
        force = m * (g_link - a_p)
        if I is None:
            cols.add(lambda surface=surface, r=r: part.wrench_basis(surface, r)[:, :3], force, surface, kind,
                     FORCE_COMPONENTS)
        else:
            I = np.asarray(I, float)
            cols.add(lambda surface=surface, r=r: part.wrench_basis(surface, r),
                     np.hstack([force, -(al @ I.T + np.cross(w, w @ I.T))]), surface, kind, WRENCH_COMPONENTS)


def _support(robot, dyn, link, part, gravity, point_forces) -> tuple[tuple[str, ...], np.ndarray]:
    """The clamped surface (proximal joint, or ``ground`` for the base) and the wrench the support exerts."""
    parent_joint = {j.child: j.name for j in robot.joints}
    if link in parent_joint:
        jp = parent_joint[link]
        _require_surface(part, jp, link, f"the support at its proximal joint {jp!r}")
        return (jp,), dyn.joint_wrenches[:, dyn.joint_names.index(jp)]
    _require_surface(part, GROUND_SURFACE, link, "the ground mounting of the base, where it is clamped")
    return (GROUND_SURFACE,), ground_wrench(robot, dyn, link, gravity, point_forces)


def ground_wrench(robot, dyn, base: str, gravity, point_forces: dict | None = None) -> np.ndarray:
    """What the ground exerts on the base (n_t, 6) [N, N m], at the base frame origin in base axes, from the
    momentum balance of the whole robot: minus the sum over every link (with its point masses and payloads, as
    in ``dyn.inertials``) of gravity, the external point forces and d'Alembert inertia.

    Computed without the joint reaction wrenches, so the base's FE loads (built from them) balancing it checks
    the propagation of the reactions through the whole chain. Holds for closed chains too (the loop forces are
    internal)."""
    from .rigid.dynamics import free_body_wrenches

    F, N = free_body_wrenches(robot, dyn, gravity, point_forces)  # link axes, about each link's origin
    T = dyn.kinematics.T_world_link
    R, p = T[..., :3, :3], T[..., :3, 3]
    i = robot.link_names.index(base)
    F_w = np.einsum("tlij,tlj->tli", R, F)
    M_w = np.einsum("tlij,tlj->tli", R, N) + np.cross(p - p[:, i:i + 1], F_w)  # about the base origin
    Rb = R[:, i]
    return -np.hstack([np.einsum("tji,tj->ti", Rb, F_w.sum(axis=1)), np.einsum("tji,tj->ti", Rb, M_w.sum(axis=1))])


def equilibrium_residual(resultants: np.ndarray, loads: LinkLoads, size: float) -> float:
    """Max over time of |sum of all loads on the link| relative to the larger of the proximal wrench and the
    applied loads (|F| + |M|/size, M about the link origin; ``size`` [m]).

    ``resultants`` (6, k) of the unit loads about the link origin (``fe.response.load_resultants``).
    """
    applied = loads.coeff @ resultants.T
    total = applied + loads.proximal_wrench

    def magnitude(w):
        return np.linalg.norm(w[:, :3], axis=1) + np.linalg.norm(w[:, 3:], axis=1) / size

    scale = max(magnitude(loads.proximal_wrench).max(), magnitude(applied).max())
    return float(magnitude(total).max() / scale) if scale > 0 else 0.0


# ------------------------------------------------------------------------------- inputs that load the links


def point_force_histories(point_forces, laws, t: np.ndarray) -> dict[str, np.ndarray]:
    """Point name -> (n_t, 3) force [N] in world axes: each PointForce's law value times its unit direction,
    summed over the forces at the same point. ``laws`` are the forces' magnitude laws, in the same order."""
    merged = {}
    for pf, law in zip(point_forces, laws):
        d = np.asarray(pf.direction, float) / np.linalg.norm(pf.direction)
        with named_input(f"point force at {pf.point!r}: magnitude"):
            merged[pf.point] = merged.get(pf.point, 0.0) + law.value(t)[:, None] * d
    return merged


def payload_table(payloads, robot) -> dict[str, tuple[float, np.ndarray]]:
    """Payloads (``study.Payload``) as the inverse dynamics takes them: point name -> (mass [kg], inertia (3, 3)
    [kg m^2] about the point in link axes). InputError for an unknown or repeated point or an inertia that is not
    symmetric positive semi-definite (``Payload`` checks its numbers)."""
    out = {}
    for pl in payloads:
        if pl.point not in robot.points:
            raise InputError(f"payload at unknown point {pl.point!r}; the robot's points are {sorted(robot.points)}")
        if pl.point in out:
            raise InputError(f"two payloads at point {pl.point!r}; combine them into one")
        I = np.zeros((3, 3)) if pl.inertia is None else np.asarray(pl.inertia, float)
        if I.shape != (3, 3) or not np.allclose(I, I.T) or np.linalg.eigvalsh(0.5 * (I + I.T)).min() < -1e-12:
            raise InputError(f"payload at {pl.point!r}: inertia must be a symmetric positive semi-definite 3x3 "
                             f"matrix [kg m^2] about the point in link axes, got {pl.inertia!r}")
        out[pl.point] = (float(pl.mass), I)
    return out


def check_part_placement(robot, parts: dict, cuts=()) -> None:
    """Reject a link mesh that cannot be in its link frame and in metres: one whose size is far from the span of
    its joints (tree joints and the closed chain's ``cuts``) and points (a mesh in mm read as m, or the reverse),
    or whose joint surface does not sit on its revolute joint's axis (a mesh exported in world or CAD
    coordinates instead of the link frame)."""
    for name, part in parts.items():
        axes = _joint_axes(robot, name, cuts)
        marks = [np.zeros(3)] + [x for _, x, _ in axes] + \
                [np.asarray(xyz, float) for ln, xyz in robot.points.values() if ln == name]
        span = max(float(np.ptp(np.array(marks), axis=0).max()), 0.02)
        size = float(np.linalg.norm(part.points.max(axis=0) - part.points.min(axis=0)))
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


def _joint_axes(robot, link: str, cuts=()) -> list:
    """The axes of ``link``'s joints in its frame: (joint, point on the axis (3,), direction (3,)), the proximal
    joint first, then its child joints, then the cut joints on either side of it."""
    axes = [(j, np.zeros(3), np.asarray(j.axis, float)) for j in robot.joints if j.child == link]
    frames = [(j, j.origin) for j in robot.joints if j.parent == link] + \
        [(c, c.origin) for c in cuts if c.parent == link] + [(c, c.child_origin) for c in cuts if c.child == link]
    for j, T in frames:
        T = np.asarray(T, float)
        axes.append((j, T[:3, 3], T[:3, :3] @ np.asarray(j.axis, float)))
    return axes
