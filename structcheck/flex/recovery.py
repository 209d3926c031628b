"""Stresses and deformations of every link of the arm model from its reduced coordinates.

A link's displacement is u(t) = Psi z(t) (link axes, relative to the ground: the interface-node motion carries the
deflection of the links before it), its stress the same superposition of the basis columns' stresses. The history
is reduced to peaks and envelopes by :func:`structcheck.fe.response.respond`, the per-link model's reducer, with
the superelement basis in place of the unit-load and modal solutions: unaveraged element-node maxima (the vertex
stresses of each basis column and mid nodes the means of their edges on straight elements, all 10 node stresses on
curved ones), on every analysis sample.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..fe.linkbasis import LinkBasis
from ..fe.response import LinkResponse, frame_fields, respond


def superelement_basis(se) -> LinkBasis:
    """The superelement's basis in the per-link layout: U = Psi (n_dof, n_red), no separate modes, S its stress
    basis (n_red, 6, 4 or 10, n_elem) [Pa per unit z]."""
    n = se.Psi.shape[0]
    return LinkBasis(F=np.zeros((n, 0)), U=se.Psi, phi=np.zeros((n, 0)), omega=np.zeros(0), S=se.stress_basis)


def link_response(se, z: np.ndarray, brittle: bool = False) -> LinkResponse:
    """Peaks and envelopes of one link over the samples of its reduced coordinates z (n_t, n_red): von Mises
    [Pa] (and the max principal stress if ``brittle``) at the element nodes, |u| [m] relative to the ground."""
    z = np.atleast_2d(np.asarray(z, float))
    if z.shape[1] != se.n_red:
        raise InputError(f"link {se.name!r}: z has {z.shape[1]} columns, its superelement {se.n_red} coordinates")
    return respond(se.part, superelement_basis(se), z, np.zeros((len(z), 0)), brittle=brittle)


def link_frame_fields(se, z_frames: np.ndarray, brittle: bool = False) -> dict:
    """Point fields at output frames (z_frames (n_f, n_red)): displacement (n_f, n_nodes, 3) [m] link axes,
    von_mises (n_f, n_nodes) [Pa] (max over the elements sharing a node), max_principal if ``brittle``."""
    z = np.atleast_2d(np.asarray(z_frames, float))
    return frame_fields(se.part, superelement_basis(se), z, np.zeros((len(z), 0)), brittle=brittle)


def point_displacement(se, z: np.ndarray, point, surface: str | None = None) -> np.ndarray:
    """Elastic displacement (n_t, 3) [m], link axes, of the material point at ``point`` (3,) [m, link frame]: the
    rigid fit of ``surface`` (area-weighted mean translation and least-squares rotation, carried to the point)
    when given, else the nearest node's displacement."""
    z = np.atleast_2d(np.asarray(z, float))
    part, p = se.part, np.asarray(point, float)
    if surface is not None:
        C = part.wrench_basis(surface, p)  # (n_dof, 6): (d at p, theta) = C^T u
        return (z @ (se.Psi.T @ C))[:, :3]
    node = int(np.argmin(np.linalg.norm(part.points - p, axis=1)))
    return z @ se.Psi[part.node_dofs[node]].T


def interface_wrench(se, interface: str, z: np.ndarray, F=None, coeff=None) -> np.ndarray:
    """Wrench (n_t, 6) that the rest of the arm exerts on the link through ``interface``: force [N] and moment
    about the interface's reference point [N m], link axes, from the link's equilibrium K_r z = Psi^T f + w on
    its interface rows (quasi-static: the elastic inertia M_r z'' is left out). ``F`` (n_dof, k), ``coeff``
    (n_t, k) the link's own loads (as given to the transient), none if omitted."""
    z = np.atleast_2d(np.asarray(z, float))
    rows = se.interface_dofs(interface)
    w = z @ se.K[rows].T
    if F is not None:
        w = w - np.atleast_2d(np.asarray(coeff, float)) @ (se.Psi.T @ np.asarray(F, float))[rows].T
    return w
