"""Stress recovery of P2 tets: unaveraged stresses at the element nodes and nodal averages.

The strain of a straight-sided P2 tet is linear, so the stresses at its 4 vertices give it everywhere: an edge's
mid node has the mean of its two vertices' values. A curved (isoparametric) tet's strain is not linear: its
stresses are evaluated at all 10 element nodes (vertices and mid-side nodes) with the Jacobian of the map at each
node (:func:`curved_node_stress`). Stress vectors are [xx, yy, zz, yz, xz, xy] [Pa], link axes.
"""
from __future__ import annotations

import numpy as np

from ..model.materials import Material
from .assembly import chunks, curved_jacobians, lame, p2_edges, p2_reference, p2_vertices


def vertex_stress(U: np.ndarray, cells: np.ndarray, node_dofs: np.ndarray, inv_jacobians: np.ndarray,
                  material: Material) -> np.ndarray:
    """Unaveraged stresses (k, 6, 4, n_elem) [Pa] at the 4 vertices of every element for displacement columns
    U (n_dof, k) (or (n_dof,)) [m]; ``cells`` (n_elem, 10) element nodes, ``node_dofs`` (n_nodes, 3),
    ``inv_jacobians`` (n_elem, 3, 3) d xi_r / d x_d of each element (:class:`.assembly.ElementMaps`)."""
    return _point_stress(U, cells, node_dofs, p2_vertices(), inv_jacobians[:, None], material)


def curved_node_stress(U: np.ndarray, cells: np.ndarray, node_dofs: np.ndarray, nodes: np.ndarray,
                       material: Material) -> np.ndarray:
    """Unaveraged stresses (k, 6, 10, n_elem) [Pa] at the 10 nodes (vertices, then mid-side nodes in the local P2
    order) of every curved element for displacement columns U (n_dof, k) (or (n_dof,)) [m]: the strain at each
    node from the isoparametric map's Jacobian there; ``nodes`` (n_elem, 10, 3) [m] the element node positions."""
    from skfem import ElementTetP2

    X = np.ascontiguousarray(ElementTetP2().doflocs.T)  # (3, 10) reference node positions
    dN = p2_reference(X)[1]
    invJ = np.empty((len(nodes), 10, 3, 3))
    for a, b in chunks(len(nodes), 65536):
        invJ[a:b] = curved_jacobians(nodes[a:b], dN)[2]
    return _point_stress(U, cells, node_dofs, X, invJ, material)


def _point_stress(U: np.ndarray, cells: np.ndarray, node_dofs: np.ndarray, X: np.ndarray, invJ: np.ndarray,
                  material: Material) -> np.ndarray:
    """Stresses (k, 6, n_p, n_elem) at reference points X (3, n_p) of every element; ``invJ`` (n_elem, n_p or 1,
    3, 3) the inverse Jacobians d xi_r / d x_d there (n_p for curved elements, 1 for straight ones)."""
    U = np.asarray(U, float)
    if U.ndim == 1:
        U = U[:, None]
    k = U.shape[1]
    n_p = X.shape[1]
    lam, mu = lame(material)
    dN = p2_reference(X)[1]  # (10 f, 3 r, n_p)
    Gq = dN.transpose(2, 1, 0).reshape(3 * n_p, 10)  # rows (point p, reference direction r)
    Un = np.ascontiguousarray(U[node_dofs].reshape(-1, 3 * k))  # (n_nodes, (c, k))
    cells_T = cells.T
    n_e = cells_T.shape[1]
    out = np.empty((k, 6, n_p, n_e))
    for a, b in chunks(n_e, max(256, int(1.5e5 * 4 / n_p // k))):  # ~40 MB per work array
        ue = Un[cells_T[:, a:b]]  # (10 f, e, (c, k))
        H = (Gq @ ue.reshape(10, -1)).reshape(n_p, 3, b - a, 3, k)  # d u_c / d xi_r at point p
        iJ = invJ[a:b].transpose(1, 0, 2, 3)[..., None, None]  # (p or 1, e, r, d, 1, 1)
        g = [H[:, 0] * iJ[:, :, 0, d] + H[:, 1] * iJ[:, :, 1, d] + H[:, 2] * iJ[:, :, 2, d] for d in range(3)]
        # g[d][p, e, c, k] = d u_c / d x_d
        exx, eyy, ezz = g[0][:, :, 0], g[1][:, :, 1], g[2][:, :, 2]
        ltr = lam * (exx + eyy + ezz)
        comps = (2 * mu * exx + ltr, 2 * mu * eyy + ltr, 2 * mu * ezz + ltr, mu * (g[2][:, :, 1] + g[1][:, :, 2]),
                 mu * (g[2][:, :, 0] + g[0][:, :, 2]), mu * (g[1][:, :, 0] + g[0][:, :, 1]))
        for j, s in enumerate(comps):  # s (p, e, k)
            out[:, j, :, a:b] = s.transpose(2, 0, 1)
    return out


def element_node_values(vertex_values: np.ndarray) -> np.ndarray:
    """Stresses (k, n_elem, 10, 6) at the 10 element nodes from :func:`vertex_stress`'s (k, 6, 4, n_elem): the
    vertex values, and at each edge's mid node the mean of its two vertices' (exact: the strain is linear)."""
    v = vertex_values.transpose(0, 3, 2, 1)  # (k, n_elem, 4, 6)
    i, j = p2_edges().T
    return np.concatenate([v, 0.5 * (v[:, :, i] + v[:, :, j])], axis=2)


def nodal_average(values: np.ndarray, cells: np.ndarray, n_nodes: int) -> np.ndarray:
    """Average (n_nodes, ...) over the elements sharing each node of element-node values (n_elem, 10, ...)."""
    n = n_nodes
    flat = cells.ravel()
    vals = values.reshape((-1,) + values.shape[2:])
    out = np.zeros((n,) + values.shape[2:])
    np.add.at(out, flat, vals)
    cnt = np.bincount(flat, minlength=n).reshape((n,) + (1,) * (values.ndim - 2))
    return out / cnt
