"""Assembly kernels of quadratic (P2, 10-node) tetrahedra, straight-sided or curved, vectorized over all elements.

The reference element is scikit-fem's ``ElementTetP2`` (its local node order: vertices 0-3, then the mid nodes
of the edges given by :func:`p2_edges`). Meshes come in scikit-fem's layout, vertices ``p`` (3, n_vertices) [m]
and tets ``t`` (4, n_elem); element node tables ``cells`` (n_elem, 10) index the P2 nodes (vertices, then edge
midpoints) and ``node_dofs`` (n_nodes, 3) gives the dof of each node's x, y, z displacement. Matrices are
assembled on the node-pair sparsity pattern (:func:`node_pattern`) with ``np.bincount``, never with a loop over
elements. Straight-sided tets (:class:`ElementMaps`, one affine map each): stiffness uses the 2nd-order rule
(exact), mass and body loads the 4th (exact). Curved tets (:class:`CurvedElements`, the isoparametric map
x(xi) = sum_f N_f(xi) x_f through all 10 nodes, a Jacobian per quadrature point): stiffness uses the 5th-order
rule (14 points; the integrand is rational), mass and body loads the 7th (24 points: N N det J and N x det J are
polynomials of degree <= 7, so these stay exact for the curved geometry).
"""
from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..model.materials import Material


def lame(material: Material) -> tuple[float, float]:
    """Lame parameters (lambda, mu) [Pa] of an isotropic material (E [Pa], nu)."""
    lam = material.E * material.nu / ((1 + material.nu) * (1 - 2 * material.nu))
    mu = material.E / (2 * (1 + material.nu))
    return lam, mu


def p2_reference(X: np.ndarray):
    """Values (10, n) and reference gradients (10, 3, n) of skfem's P2 tet functions (its local order) at
    reference points X (3, n)."""
    from skfem import ElementTetP2

    e = ElementTetP2()
    vals, grads = zip(*(e.lbasis(X, i) for i in range(10)))
    return np.array(vals), np.array(grads)


@lru_cache(maxsize=None)
def p2_vertices() -> np.ndarray:
    """Reference coordinates (3, 4) of the tet vertices (local nodes 0-3)."""
    from skfem import ElementTetP2

    return np.ascontiguousarray(ElementTetP2().doflocs[:4].T)


@lru_cache(maxsize=None)
def p2_edges() -> np.ndarray:
    """(6, 2) vertex pairs of local mid nodes 4-9 of the P2 tet, from skfem's node positions."""
    from skfem import ElementTetP2

    x = ElementTetP2().doflocs
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    return np.array([next(pr for pr in pairs if np.allclose(x[pr[0]] + x[pr[1]], 2 * x[m])) for m in range(4, 10)])


class ElementMaps(NamedTuple):
    """Affine maps x = x0 + J xi of the straight-sided tets: ``det`` |det J| (n_elem,) [m^3], ``J`` (n_elem, 3, 3)
    [m] with columns x_k - x_0, ``inv`` J^-1 (n_elem, 3, 3) [1/m] (``inv[e, r, d]`` = d xi_r / d x_d)."""

    det: np.ndarray
    J: np.ndarray
    inv: np.ndarray


def element_maps(p: np.ndarray, t: np.ndarray) -> ElementMaps:
    """:class:`ElementMaps` of the tets ``t`` (4, n_elem) on vertices ``p`` (3, n_vertices) [m]."""
    x0 = p[:, t[0]]
    J = np.stack([p[:, t[k]] - x0 for k in (1, 2, 3)], axis=-1).transpose(1, 0, 2)
    return ElementMaps(np.abs(np.linalg.det(J)), J, np.linalg.inv(J))


class CurvedElements(NamedTuple):
    """Curved (isoparametric) P2 tets: ``nodes`` (n_elem, 10, 3) [m], the positions of each element's 10 nodes in
    the local P2 order; the map is x(xi) = sum_f N_f(xi) x_f, with det J > 0 everywhere (checked when read)."""

    nodes: np.ndarray


#: A curved tet whose mid-side nodes all lie within this fraction of its longest edge of their edge midpoints is
#: straight-sided: its map is affine to that relative accuracy (round-off), so straight-tet rules are exact for it.
STRAIGHT_RTOL = 1e-12


def straight_elements(nodes: np.ndarray) -> np.ndarray:
    """(n_elem,) bool: which tets with nodes (n_elem, 10, 3) (local P2 order) are straight-sided (``STRAIGHT_RTOL``).
    Most of a filleted part is: only the elements on its curved faces bend."""
    i, j = p2_edges().T
    dev = np.abs(nodes[:, 4:] - 0.5 * (nodes[:, i] + nodes[:, j])).max(axis=(1, 2))
    h = np.linalg.norm(nodes[:, i] - nodes[:, j], axis=2).max(axis=1)
    return dev <= STRAIGHT_RTOL * h


def vertex_maps(nodes: np.ndarray) -> ElementMaps:
    """:class:`ElementMaps` of straight tets from their nodes (n_elem, 10, 3) (the first 4 are the vertices)."""
    x0 = nodes[:, 0]
    J = (nodes[:, 1:4] - x0[:, None]).transpose(0, 2, 1)  # J[e, d, k] = (x_k+1 - x_0)_d
    return ElementMaps(np.abs(np.linalg.det(J)), J, np.linalg.inv(J))


#: Quadrature orders of the curved tets: stiffness (rational integrand), mass and body loads (exact).
CURVED_STIFFNESS_ORDER = 5
CURVED_MASS_ORDER = 7


def curved_jacobians(nodes: np.ndarray, dN: np.ndarray):
    """J (e, q, 3, 3) [m] with J[e, q, d, r] = d x_d / d xi_r, det J (e, q) [m^3] and J^-1 (e, q, 3, 3) (inv[e, q,
    r, d] = d xi_r / d x_d) of curved tets with nodes (e, 10, 3) at the points of reference gradients dN (10, 3, q)."""
    J = np.einsum("efd,frq->eqdr", nodes, dN)
    return J, np.linalg.det(J), np.linalg.inv(J)


class NodePattern(NamedTuple):
    """Node-level sparsity of the P2 matrices: CSR ``indptr`` (n_nodes + 1,), sorted ``indices`` of the node pairs
    that share an element, and ``pos`` (n_elem, 10, 10), the index in ``indices`` of each element node pair."""

    indptr: np.ndarray
    indices: np.ndarray
    pos: np.ndarray


def node_pattern(cells: np.ndarray, n_nodes: int) -> NodePattern:
    """:class:`NodePattern` of element node tables ``cells`` (n_elem, 10) over ``n_nodes`` nodes."""
    c = cells.astype(np.int64)
    n = n_nodes
    keys = (c[:, :, None] * n + c[:, None, :]).ravel()
    uniq, inv = np.unique(keys, return_inverse=True)
    indptr = np.r_[0, np.cumsum(np.bincount(uniq // n, minlength=n))]
    return NodePattern(indptr, uniq % n, inv.reshape(len(c), 10, 10))


def node_major_to_dofs(A: sp.csr_matrix, node_dofs: np.ndarray) -> sp.csr_matrix:
    """A matrix over node-major dofs (3 n + c) renumbered to ``node_dofs`` (n_nodes, 3) (skfem already numbers
    them so; kept general)."""
    nd = node_dofs.ravel()
    if np.array_equal(nd, np.arange(len(nd))):
        return A
    order = np.argsort(nd)  # dof d is node-major index order[d]
    return A[order][:, order].tocsr()


def chunks(n: int, size: int) -> list[tuple[int, int]]:
    """(start, stop) of consecutive ranges of at most ``size`` covering range(n)."""
    size = max(1, int(size))
    return [(a, min(n, a + size)) for a in range(0, n, size)]


def stiffness_matrix(maps, pattern: NodePattern, node_dofs: np.ndarray,
                     material: Material) -> sp.csr_matrix:
    """Stiffness matrix (n_dof, n_dof) [N/m] of isotropic linear-elastic P2 tets, straight (``maps`` an
    :class:`ElementMaps`) or curved (a :class:`CurvedElements`).

    2nd-order quadrature (4 points) is exact on straight-sided P2 tets; curved ones use the 5th order (14 points),
    except those of a curved mesh whose edges are straight (:func:`straight_elements`), which take the exact rule.
    For a chunk of elements at once, with G_d (e, q, f) the physical gradients d N_f / d x_d at the quadrature
    points scaled by sqrt(w_q |det J|) and P_ij = G_i^T G_j (e, 10, 10), the 3 x 3 node blocks are
    K_ij = lam P_ij + mu P_ij^T + mu delta_ij (P_00 + P_11 + P_22), summed into the node-pair pattern."""
    indptr, indices, pos = pattern
    data = np.zeros((len(indices), 3, 3))
    if isinstance(maps, CurvedElements):  # the straight-sided ones with the straight rule (4 points, not 14)
        straight = straight_elements(maps.nodes)
        _stiffness_data(data, vertex_maps(maps.nodes[straight]), pos[straight], material)
        _stiffness_data(data, CurvedElements(maps.nodes[~straight]), pos[~straight], material)
    else:
        _stiffness_data(data, maps, pos, material)
    n = 3 * (len(indptr) - 1)
    K = sp.bsr_matrix((data, indices, indptr), shape=(n, n)).tocsr()
    K.eliminate_zeros()
    return node_major_to_dofs(K, node_dofs)


def _stiffness_data(data: np.ndarray, maps, pos: np.ndarray, material: Material) -> None:
    """Add the 3 x 3 node blocks of the elements of ``maps`` (their node pairs at ``pos`` (n_elem, 10, 10)) to
    ``data`` (n_pairs, 3, 3): :func:`stiffness_matrix`."""
    from skfem.quadrature import get_quadrature
    from skfem.refdom import RefTet

    lam, mu = lame(material)
    curved = isinstance(maps, CurvedElements)
    X, W = get_quadrature(RefTet, CURVED_STIFFNESS_ORDER if curved else 2)
    dN = p2_reference(X)[1]  # (10 functions, 3 reference directions, n_qp)
    n_elem = len(maps.nodes) if curved else len(maps.det)
    nb = len(data)
    for a, b in chunks(n_elem, 32768 // (4 if curved else 1)):
        if curved:  # a Jacobian per quadrature point
            _, det, invJ = curved_jacobians(maps.nodes[a:b], dN)  # (e, q), (e, q, r, d)
            sw = np.sqrt(W[None, :] * det)
            G = [np.einsum("frq,eqr->eqf", dN, invJ[..., d]) * sw[:, :, None] for d in range(3)]
        else:
            det, _, invJ = maps
            sw = np.sqrt(W[None, :] * det[a:b, None])  # (e, q)
            G = [np.einsum("frq,er->eqf", dN, invJ[a:b, :, d]) * sw[:, :, None] for d in range(3)]
        P = {(i, j): np.matmul(G[i].transpose(0, 2, 1), G[j]) for i in range(3) for j in range(i, 3)}
        tr = P[0, 0] + P[1, 1] + P[2, 2]
        at, at_T = pos[a:b].ravel(), pos[a:b].transpose(0, 2, 1).ravel()
        for (i, j), Pij in P.items():
            Kij = lam * Pij + mu * Pij.transpose(0, 2, 1)
            if i == j:
                Kij += mu * tr
            data[:, i, j] += np.bincount(at, weights=Kij.ravel(), minlength=nb)
            if i != j:  # K_ji is K_ij with the node pair swapped
                data[:, j, i] += np.bincount(at_T, weights=Kij.ravel(), minlength=nb)


def mass_matrix(maps, pattern: NodePattern, node_dofs: np.ndarray, density: float) -> sp.csr_matrix:
    """Consistent mass matrix (n_dof, n_dof) [kg] for ``density`` [kg/m^3]: per element rho |det J| times the
    reference P2 mass matrix (exact with 4th-order quadrature; 4 points would make it singular), the same for
    each displacement component, i.e. the scalar P2 mass matrix expanded to the 3 components. Curved tets
    (``maps`` a :class:`CurvedElements`): rho sum_q w_q det J_q N_q N_q^T, 7th order, exact."""
    from skfem.quadrature import get_quadrature
    from skfem.refdom import RefTet

    indptr, indices, pos = pattern
    X, W = get_quadrature(RefTet, 4)
    N = p2_reference(X)[0]  # (10, n_qp)
    M_ref = (N * W) @ N.T
    if isinstance(maps, CurvedElements):  # per element sum_q w_q det J_q N_q N_q^T; straight-sided ones as below
        straight = straight_elements(maps.nodes)
        vals = np.zeros(len(indices))
        vals += np.bincount(pos[straight].ravel(), minlength=len(indices),
                            weights=(vertex_maps(maps.nodes[straight]).det[:, None, None] * M_ref).ravel())
        X, W = get_quadrature(RefTet, CURVED_MASS_ORDER)
        N, dN = p2_reference(X)
        nodes, pos = maps.nodes[~straight], pos[~straight]
        for a, b in chunks(len(nodes), 16384):
            wdet = curved_jacobians(nodes[a:b], dN)[1] * W  # (e, q)
            Me = np.einsum("eq,fq,gq->efg", wdet, N, N)
            vals += np.bincount(pos[a:b].ravel(), weights=Me.ravel(), minlength=len(indices))
    else:
        vals = np.bincount(pos.ravel(), weights=(maps.det[:, None, None] * M_ref).ravel(), minlength=len(indices))
    n = len(indptr) - 1
    Ms = sp.csr_matrix((density * vals, indices, indptr), shape=(n, n))
    return node_major_to_dofs(sp.kron(Ms, sp.identity(3), format="csr"), node_dofs)


def body_load_basis(maps, x0: np.ndarray, cells: np.ndarray, node_dofs: np.ndarray,
                    density: float) -> np.ndarray:
    """(n_dof, 12) load vectors [N per unit coefficient] of the body force densities rho e_i (columns 0-2, per
    m/s^2) and rho x_j e_i (column 3 + 3 i + j, per 1/s^2), link axes; ``maps`` an :class:`ElementMaps`
    (straight tets) or :class:`CurvedElements`; ``x0`` (n_elem, 3) the first vertex of each tet [m].

    Exact per element from the reference moments of the P2 functions: int_e N_f = |det J| m0_f and
    int_e x_j N_f = |det J| (x0_j m0_f + sum_r J_jr m1_fr), m0 = int N, m1 = int N xi (4th-order rule).
    Curved tets (``maps`` a :class:`CurvedElements`; ``x0`` unused): int_e N_f = sum_q w_q det J_q N_fq and
    int_e x_j N_f = sum_q w_q det J_q x_j(xi_q) N_fq, 7th order, exact for the curved geometry."""
    from skfem.quadrature import get_quadrature
    from skfem.refdom import RefTet

    if isinstance(maps, CurvedElements):
        X, W = get_quadrature(RefTet, CURVED_MASS_ORDER)
        N, dN = p2_reference(X)
        xe = maps.nodes
        wdet = curved_jacobians(xe, dN)[1] * W  # (e, q)
        x = np.einsum("efd,fq->eqd", xe - x0[:, None, :], N) + x0[:, None, :]  # quadrature points [m]
        s0 = wdet @ N.T  # (e, f)
        sx = np.einsum("eq,fq,eqj->efj", wdet, N, x)
    else:
        X, W = get_quadrature(RefTet, 4)
        N = p2_reference(X)[0]  # (10, n_qp)
        m0, m1 = N @ W, (N * W) @ X.T  # (10,), (10, 3)
        det, J, _ = maps
        s0 = det[:, None] * m0
        sx = det[:, None, None] * (x0[:, None, :] * m0[None, :, None] + np.einsum("ejr,fr->efj", J, m1))
    n, c = len(node_dofs), cells.ravel()
    v0 = np.bincount(c, weights=s0.ravel(), minlength=n)
    vx = [np.bincount(c, weights=sx[..., j].ravel(), minlength=n) for j in range(3)]
    rho = density
    out = np.zeros((node_dofs.size, 12))
    for i in range(3):
        out[node_dofs[:, i], i] = rho * v0
        for j in range(3):
            out[node_dofs[:, i], 3 + 3 * i + j] = rho * vx[j]
    return out
