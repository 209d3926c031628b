"""Nodal-averaged stresses of a link's P2 tets, the stresses ANSYS and CalculiX display by default.

At a node shared by k elements, the averaged stress tensor is the plain mean of the k element-node stress tensors
(each element's own stress at that node, unaveraged), and its von Mises stress is taken of that mean tensor. This
is what the two tools a user compares with show by default: CalculiX's ``extrapolate.f`` sums the elements' nodal
stress components at each node and divides by the number of elements sharing it, and ANSYS averages the
components at a common node before it computes principal and equivalent values (the ``AVPRIN`` command's default,
KEY = 0). The mean is plain (every element counts once, whatever its size), as there; a volume weight would also
let the large elements away from a concentration outvote the small ones at it.

Averaging is linear, so it commutes with the superposition of a link's response: the averaged stress history is
``C[t] @ A`` with A the averaged stress basis (n_b, 6, n_nodes), formed once from the element stress basis by one
sparse matrix (:func:`averaging_operator`). The history then costs one matrix product per node block, about
n_nodes / (10 n_elem) ~ 1/7 of the unaveraged element-node history on P2 tet meshes.

Element-node values are those of :mod:`.response`: on straight-sided tets the 4 vertex stresses of each element
and, at each mid-side node, the mean of its edge's two vertices' (exact: their strain is linear); on curved
(isoparametric) tets the stresses of all 10 nodes, each from the map's Jacobian at its node.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .assembly import p2_edges
from .stress import VON_MISES_MATRIX


def averaging_operator(cells: np.ndarray, n_nodes: int, n_points: int = 4) -> sp.csr_matrix:
    """Sparse Q (n_nodes, n_points n_elem) taking the element stresses of every element, flattened as
    ``v * n_elem + e`` (the layout of the last two axes of ``LinkBasis.S``), to the plain mean over the elements
    sharing each node of the element-node values. ``n_points`` 4: vertex stresses (straight elements; vertex v of
    element e: its own value; mid node of edge (i, j): half of each); 10: the stresses of all 10 nodes (curved
    elements; each node its own value).

    ``cells`` (n_elem, 10) element nodes (vertices, then mid nodes in skfem's P2 order); every node must belong to
    an element."""
    cells = np.asarray(cells)
    n_e = len(cells)
    e = np.arange(n_e)
    if n_points == 10:
        rows, cols, weights = [cells[:, p] for p in range(10)], [p * n_e + e for p in range(10)], [np.ones(n_e)] * 10
    elif n_points == 4:
        edges = p2_edges()
        # one (row node, column vertex value, weight) triple per vertex and two per mid node of every element
        rows = [cells[:, v] for v in range(4)] + [cells[:, 4 + m] for m in range(6) for _ in range(2)]
        cols = [v * n_e + e for v in range(4)] + [edges[m, s] * n_e + e for m in range(6) for s in range(2)]
        weights = [np.ones(n_e)] * 4 + [np.full(n_e, 0.5)] * 12
    else:
        raise ValueError(f"n_points must be 4 (vertices) or 10 (element nodes), got {n_points}")
    count = np.bincount(cells.ravel(), minlength=n_nodes).astype(float)  # elements sharing each node
    Q = sp.csr_matrix((np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))),
                      shape=(n_nodes, n_points * n_e))  # duplicate entries are summed
    return sp.diags(1.0 / count) @ Q


def averaged_stress_basis(S: np.ndarray, cells: np.ndarray, n_nodes: int, chunk_bytes: float = 64e6) -> np.ndarray:
    """Nodal-averaged stresses (n_b, 6, n_nodes) [Pa per unit coefficient] of the element stress basis S
    (n_b, 6, n_p, n_elem) (``LinkBasis.S``: n_p = 4 vertex stresses of straight elements, 10 node stresses of
    curved ones): see :func:`averaging_operator`. Basis columns go through in chunks of about ``chunk_bytes`` of
    input."""
    n_b, _, n_p, n_e = S.shape
    Q = averaging_operator(cells, n_nodes, n_p)
    out = np.empty((n_b, 6, n_nodes))
    step = max(1, int(chunk_bytes // (6 * n_p * n_e * 8)))
    for a in range(0, n_b, step):
        b = min(n_b, a + step)
        flat = S[a:b].reshape((b - a) * 6, n_p * n_e)
        out[a:b] = (Q @ flat.T).T.reshape(b - a, 6, n_nodes)
    return out


def von_mises_coordinates(A: np.ndarray) -> np.ndarray:
    """(n_b, 5, n) coordinates T A whose Euclidean norm over axis 1 of ``C[t] @`` them is the von Mises stress,
    for stress bases A (n_b, 6, n) (T = :data:`.stress.VON_MISES_MATRIX`)."""
    return np.ascontiguousarray(np.einsum("cs,bsn->bcn", VON_MISES_MATRIX, A))
