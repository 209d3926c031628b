"""Stress recovery of P2 tets: unaveraged stresses at the element nodes and nodal averages.

The strain of a straight-sided P2 tet is linear, so the stresses at its 4 vertices give it everywhere: an edge's
mid node has the mean of its two vertices' values. A curved (isoparametric) tet's strain is not linear: its
stresses are evaluated at all 10 element nodes (vertices and mid-side nodes) with the Jacobian of the map at each
node (:func:`curved_node_stress`), except on the elements of a curved mesh whose edges are straight (most of a
filleted part), which take the straight rule. Stress vectors are [xx, yy, zz, yz, xz, xy] [Pa], link axes.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..model.materials import Material
from .assembly import (chunks, curved_jacobians, lame, p2_edges, p2_reference, p2_vertices, straight_elements,
                       vertex_maps)


def vertex_stress(U: np.ndarray, cells: np.ndarray, node_dofs: np.ndarray, inv_jacobians: np.ndarray,
                  material: Material) -> np.ndarray:
    """Unaveraged stresses (k, 6, 4, n_elem) [Pa] at the 4 vertices of every element for displacement columns
    U (n_dof, k) (or (n_dof,)) [m]; ``cells`` (n_elem, 10) element nodes, ``node_dofs`` (n_nodes, 3),
    ``inv_jacobians`` (n_elem, 3, 3) d xi_r / d x_d of each element (:class:`.assembly.ElementMaps`)."""
    return _point_stress(U, cells, node_dofs, p2_vertices(), inv_jacobians[:, None], material)


class NodeMaps(NamedTuple):
    """Where a curved part's element-node stresses are evaluated: ``straight`` (n_s,) the elements whose mid-side
    nodes sit at their edge midpoints (:func:`.assembly.straight_elements`; their map is affine, so their 4
    vertices give every node's stress), with ``inv_straight`` (n_s, 3, 3) d xi_r / d x_d; ``curved`` (n_c,) the
    others, with ``inv_curved`` (n_c, 10, 3, 3) the map's inverse Jacobian at each of their 10 nodes."""

    straight: np.ndarray
    inv_straight: np.ndarray
    curved: np.ndarray
    inv_curved: np.ndarray


def node_maps(nodes: np.ndarray) -> NodeMaps:
    """:class:`NodeMaps` of curved P2 tets with nodes (n_elem, 10, 3) [m] (local P2 order)."""
    from skfem import ElementTetP2

    is_straight = straight_elements(nodes)
    straight, curved = np.flatnonzero(is_straight), np.flatnonzero(~is_straight)
    X = np.ascontiguousarray(ElementTetP2().doflocs.T)  # (3, 10) reference node positions
    dN = p2_reference(X)[1]
    inv_curved = np.empty((len(curved), 10, 3, 3))
    for a, b in chunks(len(curved), 65536):
        inv_curved[a:b] = curved_jacobians(nodes[curved[a:b]], dN)[2]
    return NodeMaps(straight, vertex_maps(nodes[straight]).inv, curved, inv_curved)


def curved_node_stress(U: np.ndarray, cells: np.ndarray, node_dofs: np.ndarray, maps: NodeMaps,
                       material: Material) -> np.ndarray:
    """Unaveraged stresses (k, 6, 10, n_elem) [Pa] at the 10 nodes (vertices, then mid-side nodes in the local P2
    order) of every element of a curved mesh for displacement columns U (n_dof, k) (or (n_dof,)) [m]: on curved
    elements the strain at each node from the isoparametric map's Jacobian there; on the straight ones (``maps``,
    :func:`node_maps`) at the 4 vertices, each mid node the mean of its edge's vertices (exact: the strain is linear
    in an affine element), for 0.4 of the work. Elements go in chunks of consecutive indices, so that the two kinds'
    values are merged in cache."""
    from skfem import ElementTetP2

    U = np.asarray(U, float)
    U = U[:, None] if U.ndim == 1 else U
    k = U.shape[1]
    Un = np.ascontiguousarray(U[node_dofs].reshape(-1, 3 * k))  # (n_nodes, (c, k))
    D = elasticity_matrix(material)
    vertex = _PointRule(p2_vertices())
    node = _PointRule(np.ascontiguousarray(ElementTetP2().doflocs.T))
    is_straight = np.zeros(len(cells), bool)
    is_straight[maps.straight] = True
    where = np.empty(len(cells), np.int64)  # index of each element within its kind
    where[maps.straight] = np.arange(len(maps.straight))
    where[maps.curved] = np.arange(len(maps.curved))
    out = np.empty((k, 6, 10, len(cells)))
    i, j = p2_edges().T
    for a, b in chunks(len(cells), max(256, int(1.5e5 // k))):  # ~40 MB per work array
        buf = np.empty((b - a, 10, 6, k))  # element-major: each kind's rows land whole, then one transpose
        s = is_straight[a:b]
        sel = np.flatnonzero(s)
        if len(sel):
            v = vertex.stress(Un, cells[a + sel].T, maps.inv_straight[where[a + sel], None], D, k)  # (e, 4, 6, k)
            buf[sel, :4] = v
            buf[sel, 4:] = 0.5 * (v[:, i] + v[:, j])
        sel = np.flatnonzero(~s)
        if len(sel):
            buf[sel] = node.stress(Un, cells[a + sel].T, maps.inv_curved[where[a + sel]], D, k)
        _put_transposed(out, a, buf)
    return out


def _put_transposed(out: np.ndarray, a: int, values: np.ndarray) -> None:
    """out[k, c, p, a + e] = values[e, p, c, k]: in blocks of 64 elements, whose transposes stay in cache (10x
    faster than one strided copy of the whole chunk)."""
    for e0 in range(0, len(values), 64):
        block = values[e0:e0 + 64]
        out[..., a + e0:a + e0 + len(block)] = block.transpose(3, 2, 1, 0)


def elasticity_matrix(material: Material) -> np.ndarray:
    """D (6, 9) [Pa]: the stress [xx, yy, zz, yz, xz, xy] of displacement gradients g (3, 3) flattened row-major,
    g[d, c] = d u_c / d x_d (isotropic Hooke's law of the symmetric part)."""
    lam, mu = lame(material)
    D = np.zeros((6, 3, 3))
    for i in range(3):
        D[i, i, i] += 2 * mu
        D[i, [0, 1, 2], [0, 1, 2]] += lam
    for row, (a, b) in zip((3, 4, 5), ((1, 2), (0, 2), (0, 1))):
        D[row, a, b] = D[row, b, a] = mu
    return D.reshape(6, 9)


class _PointRule:
    """Stresses at reference points X (3, n_p) of P2 tets."""

    def __init__(self, X: np.ndarray):
        self.n_p = X.shape[1]
        dN = p2_reference(X)[1]  # (10 f, 3 r, n_p)
        self.Gq = dN.transpose(2, 1, 0).reshape(3 * self.n_p, 10)  # rows (point p, reference direction r)

    def stress(self, Un: np.ndarray, cells_T: np.ndarray, invJ: np.ndarray, D: np.ndarray, k: int) -> np.ndarray:
        """(e, n_p, 6, k) for element nodes ``cells_T`` (10, e), nodal displacements Un (n_nodes, (c, k)), inverse
        Jacobians ``invJ`` (e, n_p or 1, 3, 3) (d xi_r / d x_d), elasticity D (6, 9). Per element and point two
        small stacked products: the physical gradients J^-T (3, 3) @ the reference ones (3, 3 k), then
        D (6, 9) @ the gradients (9, k) (4x faster than the same sums as broadcast array passes)."""
        e = cells_T.shape[1]
        ue = Un[cells_T]  # (10 f, e, (c, k))
        H = (self.Gq @ ue.reshape(10, -1)).reshape(self.n_p, 3, e, 3 * k)  # d u_c / d xi_r: (p, r, e, (c, k))
        g = np.matmul(invJ.transpose(1, 0, 3, 2), H.transpose(0, 2, 1, 3))  # (p, e, d, (c, k)): d u_c / d x_d
        return np.matmul(D, g.reshape(self.n_p, e, 9, k)).transpose(1, 0, 2, 3)  # (e, p, 6, k)


def _point_stress(U: np.ndarray, cells: np.ndarray, node_dofs: np.ndarray, X: np.ndarray, invJ: np.ndarray,
                  material: Material) -> np.ndarray:
    """Stresses (k, 6, n_p, n_elem) at reference points X (3, n_p) of every element; ``invJ`` (n_elem, n_p or 1,
    3, 3) the inverse Jacobians d xi_r / d x_d there (n_p for curved elements, 1 for straight ones)."""
    U = np.asarray(U, float)
    if U.ndim == 1:
        U = U[:, None]
    k = U.shape[1]
    rule = _PointRule(X)
    D = elasticity_matrix(material)
    Un = np.ascontiguousarray(U[node_dofs].reshape(-1, 3 * k))  # (n_nodes, (c, k))
    cells_T = cells.T
    n_e = cells_T.shape[1]
    out = np.empty((k, 6, rule.n_p, n_e))
    for a, b in chunks(n_e, max(256, int(1.5e5 * 4 / rule.n_p // k))):  # ~40 MB per work array
        _put_transposed(out, a, rule.stress(Un, cells_T[:, a:b], invJ[a:b], D, k))
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
