"""Tool-point deflection and the arm's lowest mode from the links' interface motions (small deformation).

Each link is solved in its own frame, supported at its proximal joint. The rigid motion of its distal interface
(translation ``d`` of the joint point and small rotation ``theta``, fitted by least squares to the interface
nodes) carries everything outboard with it. The tool point therefore moves by

    delta_tool = sum_L R_wL (d_L + theta_L x (x_tool,L - r_L))  +  R_wN u_tool,N

over the links L of the chain from the base to the tool link N (r_L the distal joint point, x_tool,L the tool
point in frame L, u_tool,N the tool point's own displacement on the last link). Small rotations add, so this is
exact to first order for the per-link model. With unit loads the same sums give compliances: the 6x6 interface
compliance of each link is ``C_L = P_L @ U_L[:, wrench columns]``.

:func:`tool_point_checks` builds the chain from the links' FE solutions and gives the deflection history and the
arm's lowest mode over the motion.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..fe.response import rigid_fit_operator
from ..loads import WRENCH_COMPONENTS, LinkLoads
from .solution import LinkSolution


@dataclass(frozen=True)
class ChainLink:
    """One link of the serial chain toward the tool.

    ``motion`` (n_t, 6): [d, theta] of the distal interface about ``ref_point`` (link axes; for the tool link,
    the tool point's own displacement and rotation about the tool point); ``compliance`` (6, 6) [d, theta] per
    unit [F, M] at ``ref_point`` (link axes), or None.
    """

    index: int
    ref_point: np.ndarray
    motion: np.ndarray
    compliance: np.ndarray | None = None


def tool_point_deflection(chain: list[ChainLink], T_world_link: np.ndarray, tool_world: np.ndarray) -> np.ndarray:
    """Deflection of the tool point (n_t, 3) in world axes [m].

    ``T_world_link`` (n_t, n_links, 4, 4) rigid placements; ``tool_world`` (n_t, 3) the rigid tool position.
    """
    total = np.zeros((len(tool_world), 3))
    for cl in chain:
        T = T_world_link[:, cl.index]
        R, p = T[:, :3, :3], T[:, :3, 3]
        x_tool = np.einsum("tji,tj->ti", R, tool_world - p)
        d, th = cl.motion[:, :3], cl.motion[:, 3:]
        total += np.einsum("tij,tj->ti", R, d + np.cross(th, x_tool - cl.ref_point))
    return total


def point_compliance(chain: list[ChainLink], T_world_link: np.ndarray, load_point: np.ndarray,
                     load_link: int, disp_point: np.ndarray, disp_link: int) -> np.ndarray:
    """3x3 world-axes compliance: displacement at ``disp_point`` per unit force at ``load_point`` (one pose).

    ``T_world_link`` (n_links, 4, 4). The chain list is ordered base -> tool. A link's distal-interface
    compliance counts when the link is inboard of both the loaded link and the displacement point's link (it
    carries the force and moves the point). The tool link's own compliance (about the tool point, the last chain
    entry) counts when both points are on it. Links without compliance, and links off the chain, are rigid.
    """
    order = [cl.index for cl in chain]
    pos_load = order.index(load_link) if load_link in order else len(order)
    pos_disp = order.index(disp_link) if disp_link in order else len(order)
    G = np.zeros((3, 3))
    for pos, cl in enumerate(chain):
        own = pos == pos_load == pos_disp == len(chain) - 1
        if cl.compliance is None or not (pos < min(pos_load, pos_disp) or own):
            continue
        R, p = T_world_link[cl.index, :3, :3], T_world_link[cl.index, :3, 3]
        r = cl.ref_point
        a = R.T @ (load_point - p) - r  # load point relative to the reference point, link axes
        b = R.T @ (disp_point - p) - r
        for k in range(3):
            F = R.T[:, k]
            W = np.r_[F, np.cross(a, F)]
            dth = cl.compliance @ W
            G[:, k] += R @ (dth[:3] + np.cross(dth[3:], b))
    return G


def arm_lowest_mode(chain: list[ChainLink], T_world_link: np.ndarray, masses: list[tuple[float, np.ndarray, int]],
                    gravity=(0.0, 0.0, -9.81)) -> float:
    """Rayleigh estimate [Hz] of the arm's lowest mode at one pose from the chained link compliances.

    ``masses``: (mass [kg], position (3,) world, link index) lumped masses (link masses at their centres of
    mass, payload at the tool). The trial shape is the static deflection under their weights. A link's own
    deformation between its support and its centre of mass is ignored (its mass moves with the interfaces of
    the links inboard of it), except on the tool link, whose compliance at the tool point carries the payload;
    so the estimate errs on the stiff side by the links' own flexibility under their own weight.
    """
    g = np.asarray(gravity, float)
    n = len(masses)
    delta = np.zeros((n, 3))
    for i, (_, xi, li) in enumerate(masses):
        for j, (mj, xj, lj) in enumerate(masses):
            delta[i] += point_compliance(chain, T_world_link, xj, lj, xi, li) @ (mj * g)
    m = np.array([mm for mm, _, _ in masses])
    work = float(np.sum(m[:, None] * g * delta))
    kinetic = float(np.sum(m * np.sum(delta ** 2, axis=1)))
    if kinetic <= 0 or work <= 0:
        return float("nan")
    return float(np.sqrt(work / kinetic) / (2 * np.pi))


@dataclass(frozen=True)
class ToolPointChecks:
    """``deflection`` (n_t, 3) of the tool point in world axes [m]; ``arm_mode_hz`` the lowest of the arm's
    estimated lowest modes over the poses sampled, at ``arm_mode_time_s`` (NaN when no estimate exists)."""

    deflection: np.ndarray
    arm_mode_hz: float
    arm_mode_time_s: float


def tool_chain(robot, tool_point: str, links) -> list[tuple[str, str | None]]:
    """The links from the base to ``tool_point``'s link that are in ``links`` (those with an FE solution), each
    with its distal joint on the path (None for the tool link itself), base first."""
    tool_link = robot.points[tool_point][0]
    out = [(j.parent, j.name) for j in reversed(robot.path_to_base(tool_link)) if j.parent in links]
    return out + [(tool_link, None)] if tool_link in links else out


def tool_link_compliance(P: np.ndarray, U: np.ndarray, loads: LinkLoads, patches: list[str]) -> np.ndarray | None:
    """6x6 compliance [d, theta] per unit [F, M] at the tool point of the tool link (link axes): the unit loads
    on its ``patches``, shared equally between them (moment columns zero where the patches carry forces only).
    ``P`` (6, n_dof) the rigid-fit operator about the tool point, ``U`` (n_dof, k) the unit-load solutions.
    None when no unit load acts on the patches (nothing there is loaded in this study)."""
    C = np.zeros((6, 6))
    found = False
    for patch in patches:
        for c, component in enumerate(WRENCH_COMPONENTS):
            k = loads.index(patch, component)
            if k is not None:
                C[:, c] += P @ U[:, k] / len(patches)
                found = True
    return C if found else None


def chain_links(robot, tool_point: str, solutions: Mapping[str, LinkSolution]) -> list[ChainLink]:
    """The chain toward ``tool_point`` from the links' FE solutions: each link's distal-interface motion and
    compliance (for the tool link: of the patches of its named points, about the tool point)."""
    tool_xyz = np.asarray(robot.points[tool_point][1], float)
    joints = {j.name: j for j in robot.joints}
    chain = []
    for ln, distal_joint in tool_chain(robot, tool_point, solutions):
        sol = solutions[ln]
        part, U = sol.part, sol.basis.U
        if distal_joint is None:  # the tool link: motion of the loaded patches about the tool point
            patches = [p for p in robot.points if robot.points[p][0] == ln and p in part.surfaces]
            if not patches:
                continue
            ref = tool_xyz
            P = np.mean([rigid_fit_operator(part, s, ref) for s in patches], axis=0)
            comp = tool_link_compliance(P, U, sol.loads, patches)
        else:
            ref = np.asarray(joints[distal_joint].origin, float)[:3, 3]
            P = rigid_fit_operator(part, distal_joint, ref)
            comp = P @ U[:, sol.loads.interface(distal_joint)]
        D = P @ np.hstack([U, sol.basis.phi])
        motion = np.hstack([sol.loads.coeff, sol.modal]) @ D.T
        chain.append(ChainLink(index=robot.link_names.index(ln), ref_point=ref, motion=motion, compliance=comp))
    return chain


def tool_point_checks(robot, T_world_link: np.ndarray, solutions: Mapping[str, LinkSolution], tool_point: str,
                      t: np.ndarray, frame_index: np.ndarray, payloads=(), payload_mass_kg: float = 0.0,
                      gravity=(0.0, 0.0, -9.81), max_poses: int = 21) -> ToolPointChecks:
    """Deflection history of ``tool_point`` and the arm's lowest mode over the motion.

    ``T_world_link`` (n_t, n_links, 4, 4) on the analysis grid ``t`` (n_t,); the mode is estimated at the poses
    of up to ``max_poses`` of the output frames ``frame_index`` (the arm is most flexible at full reach), with the
    link masses at their centres of mass, the ``payloads`` (``study.Payload``) at their points and
    ``payload_mass_kg`` at the tool point (a payload given as a force)."""
    tool_link, tool_xyz = robot.points[tool_point]
    i_tool = robot.link_names.index(tool_link)
    T_tool = T_world_link[:, i_tool]
    tool_world = np.einsum("tij,j->ti", T_tool[:, :3, :3], np.asarray(tool_xyz, float)) + T_tool[:, :3, 3]
    chain = chain_links(robot, tool_point, solutions)
    deflection = tool_point_deflection(chain, T_world_link, tool_world)
    # lumped masses: (mass, link index, point in the link frame); the tool point's is placed from tool_world
    lumped = [(mp.mass, robot.link_names.index(ln), mp.com)
              for ln, mp in ((ln, sol.part.mass_properties()) for ln, sol in solutions.items())]
    point_masses = [(pl.mass, robot.link_names.index(robot.points[pl.point][0]),
                     np.asarray(robot.points[pl.point][1], float)) for pl in payloads]

    def lowest_mode_at(k):
        def placed(m, i, x):
            T = T_world_link[k, i]
            return m, T[:3, :3] @ x + T[:3, 3], i

        masses = [placed(*lm) for lm in lumped]
        if payload_mass_kg > 0:
            masses.append((payload_mass_kg, tool_world[k], i_tool))
        masses += [placed(*pm) for pm in point_masses]
        return arm_lowest_mode(chain, T_world_link[k], masses, gravity)

    frame_index = np.asarray(frame_index)
    poses = np.unique(frame_index[np.linspace(0, len(frame_index) - 1, min(max_poses, len(frame_index))).astype(int)])
    hz = np.array([lowest_mode_at(k) for k in poses])
    if not np.isfinite(hz).any():
        return ToolPointChecks(deflection, float("nan"), float("nan"))
    j = int(np.nanargmin(hz))
    return ToolPointChecks(deflection, float(hz[j]), float(t[poses[j]]))
