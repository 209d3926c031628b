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
Every load is (unit load vectors F (n_dof, k)) x (coefficients (n_t, k)), so the FE history is F @ coeff.T.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError

GROUND_SURFACE = "ground"


@dataclass(frozen=True)
class LinkLoads:
    """Unit loads and their coefficient histories for one link.

    ``F`` (n_dof, k); ``coeff`` (n_t, k); ``labels`` (k,) say what each column is; ``support`` the surface
    names clamped; ``proximal_wrench`` (n_t, 6) the wrench the parent (or the ground) must exert on the link
    at the link-frame origin in link axes (None for the base, whose ground reaction dynamics does not give);
    ``distal`` maps joint name -> (surface, reference point (3,) in link frame).
    """

    F: np.ndarray
    coeff: np.ndarray
    labels: tuple[str, ...]
    support: tuple[str, ...]
    proximal_wrench: np.ndarray | None
    distal: dict


def _require_surface(part, surface: str, link: str, why: str) -> None:
    if surface not in part.surfaces:
        raise InputError(f"link {link!r}: its mesh has no surface {surface!r} ({why}); the mesh has "
                         f"{sorted(part.surfaces)}. Tag that interface as a physical surface group named "
                         f"{surface!r} or pass a geometric selection")


def link_loads(robot, dyn, link: str, part, gravity, point_forces: dict | None = None,
               payloads: dict | None = None, cuts=()) -> LinkLoads:
    """Unit loads and coefficient histories of ``link`` (see module docstring).

    ``dyn`` is the Dynamics of ``robot.inverse_dynamics`` (with ``.kinematics``); ``gravity`` (3,) world
    [m/s^2]; ``point_forces`` maps point name -> (n_t, 3) force in world axes [N]; ``payloads`` maps point
    name -> (mass [kg], inertia (3, 3) about the point in link axes), as given to the inverse dynamics;
    ``cuts`` the cut joints of a closed chain (``robot`` is then its spanning tree and ``dyn`` the
    ClosedChainDynamics, whose joint wrenches end with the cut joints').
    """
    from .fe.part import body_coefficients

    kin = dyn.kinematics
    i = robot.link_names.index(link)
    T_wl = kin.T_world_link[:, i]
    R_wl = T_wl[:, :3, :3]
    n_t = len(T_wl)
    g_link = np.einsum("tji,j->ti", R_wl, np.asarray(gravity, float))
    cols = [part.body_load_basis()]
    coeffs = [body_coefficients(g_link, kin.a_origin[:, i], kin.omega[:, i], kin.alpha[:, i])]
    labels = [f"body:{k}" for k in ("ax", "ay", "az", *[f"B{a}{b}" for a in "xyz" for b in "xyz"])]

    joints = {j.name: j for j in robot.joints}
    cut_of = {c.name: c for c in cuts}
    distal = {}
    for k, name in enumerate(dyn.joint_names):
        # the joint's wrench (parent on child) in world axes about its point x_w: minus it on the parent side
        # (the child pushes back), plus it on the child side of a cut joint (the loop's far end is loaded)
        if name in cut_of:
            cj = cut_of[name]
            if link not in (cj.parent, cj.child):
                continue
            b = robot.link_names.index(cj.child)
            T_b = kin.T_world_link[:, b]
            x_w = T_b[:, :3, :3] @ cj.child_origin[:3, 3] + T_b[:, :3, 3]
            sign, p_ref = (-1.0, cj.origin[:3, 3]) if link == cj.parent else (1.0, cj.child_origin[:3, 3])
            why = (f"the interface of cut joint {name!r} between links {cj.parent!r} and {cj.child!r}")
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
        cols.append(part.wrench_basis(name, p_ref))
        coeffs.append(np.hstack([F_l, M_l]))
        labels += [f"{name}:{c}" for c in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")]
        if sign < 0:
            distal[name] = (name, p_ref)

    for pname, force in (point_forces or {}).items():
        plink, xyz = robot.points[pname]
        if plink != link:
            continue
        _require_surface(part, pname, link, f"the patch where the force at point {pname!r} acts")
        F_world = np.broadcast_to(np.asarray(force, float), (n_t, 3))
        F_l = np.einsum("tji,tj->ti", R_wl, F_world)
        cols.append(part.wrench_basis(pname, np.asarray(xyz, float))[:, :3])
        coeffs.append(F_l)
        labels += [f"{pname}:{c}" for c in ("Fx", "Fy", "Fz")]

    # rigid masses carried by the link: non-structural point masses (force only) and payloads (full wrench)
    w, al = kin.omega[:, i], kin.alpha[:, i]
    carried = [(pm.name, pm.mass, None, pm.position, f"the mounting of non-structural mass {pm.name!r}")
               for pm in getattr(robot.links[i], "point_masses", ()) or ()]
    carried += [(pname, m, I, robot.points[pname][1], f"the mounting of the payload at point {pname!r}")
                for pname, (m, I) in (payloads or {}).items() if robot.points[pname][0] == link]
    for surface, m, I, xyz, why in carried:
        _require_surface(part, surface, link, why)
        r = np.asarray(xyz, float)
        a_p = kin.a_origin[:, i] + np.cross(al, r) + np.cross(w, np.cross(w, r))
        force = m * (g_link - a_p)
        if I is None:
            cols.append(part.wrench_basis(surface, r)[:, :3])
            coeffs.append(force)
            labels += [f"{surface}:{c}" for c in ("Fx", "Fy", "Fz")]
        else:
            I = np.asarray(I, float)
            cols.append(part.wrench_basis(surface, r))
            coeffs.append(np.hstack([force, -(al @ I.T + np.cross(w, w @ I.T))]))
            labels += [f"{surface}:{c}" for c in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")]

    proximal = [k for k, name in enumerate(dyn.joint_names) if name in joints and joints[name].child == link]
    if proximal:
        jp = dyn.joint_names[proximal[0]]
        _require_surface(part, jp, link, f"the support at its proximal joint {jp!r}")
        support, W_prox = (jp,), dyn.joint_wrenches[:, proximal[0]]
    else:
        _require_surface(part, GROUND_SURFACE, link, "the ground mounting of the base, where it is clamped")
        support, W_prox = (GROUND_SURFACE,), ground_wrench(robot, dyn, link, gravity, point_forces)
    return LinkLoads(F=np.hstack(cols), coeff=np.hstack(coeffs), labels=tuple(labels), support=support,
                     proximal_wrench=W_prox, distal=distal)


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
    applied loads (|F| + |M|/size, M about the link origin).

    ``resultants`` (6, k) of the unit loads about the link origin (``analysis.load_resultants``).
    """
    if loads.proximal_wrench is None:
        return float("nan")
    applied = loads.coeff @ resultants.T
    total = applied + loads.proximal_wrench

    def magnitude(w):
        return np.linalg.norm(w[:, :3], axis=1) + np.linalg.norm(w[:, 3:], axis=1) / size

    scale = max(magnitude(loads.proximal_wrench).max(), magnitude(applied).max())
    return float(magnitude(total).max() / scale) if scale > 0 else 0.0
