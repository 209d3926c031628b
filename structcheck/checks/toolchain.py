"""Tool-point deflection and the arm's lowest mode from the links' interface motions (small deformation).

Each link is solved in its own frame, supported at its proximal joint. The rigid motion of its distal interface
(translation ``d`` of the joint point and small rotation ``theta``, fitted by least squares to the interface
nodes) carries everything outboard with it. The tool point therefore moves by

    delta_tool = sum_L R_wL (d_L + theta_L x (x_tool,L - r_L))  +  R_wN u_tool,N

over the links L of the chain from the base to the tool link N (r_L the distal joint point, x_tool,L the tool
point in frame L, u_tool,N the tool point's own displacement on the last link). Small rotations add, so this is
exact to first order for the per-link model. With unit loads the same sums give compliances: the 6x6 interface
compliance of each link is ``C_L = P_L @ U_L[:, wrench columns]``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
