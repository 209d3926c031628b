"""Interface loads of a Part: the geometry of named surfaces, load vectors spread over them, resultants, and the
rigid motion of a surface.

A wrench (F, M) at a reference point p is spread over a named surface as the linear traction
t(x) = F/A + theta x (x - c), theta = J^-1 (M + (p - c) x F): its resultant is exactly (F, M about p).
Pressure is the traction -p n (positive pushes into the surface). Surface integrals use 4th-order quadrature on
the facets: scikit-fem's FacetBasis on straight-sided parts; on curved parts (``part.geometry_order == 2``) the
same triangle rule on the curved 6-node facets, i.e. the tet's isoparametric map restricted to the face
(:class:`CurvedFacets`), so areas, centroids, tractions and their load vectors all live on the curved surface. Every function takes the :class:`~structcheck.fe.part.Part` first; lengths in m, forces in N, link axes.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..spatial import LEVI_CIVITA, skew


class CurvedFacets:
    """Quadrature on the curved 6-node boundary facets of a curved part: the owning tet's isoparametric map
    x(xi) restricted to the face, at the points of a triangle rule mapped straight to the face's reference
    coordinates (no inverse map). ``x`` (3, n_facets, n_qp) [m] points, ``dx`` (n_facets, n_qp) [m^2] weights,
    ``n`` (3, n_facets, n_qp) outward unit normals, ``N`` (10, n_facets, n_qp) the owning tet's P2 functions
    there, ``elements`` (n_facets,) the owning tets."""

    def __init__(self, part, facets: np.ndarray, intorder: int = 4):
        from skfem.quadrature import get_quadrature
        from skfem.refdom import RefTri

        from .assembly import p2_reference, p2_vertices

        mesh = part.mesh
        e = mesh.f2t[0, facets]
        tv = mesh.t[:, e].T  # (nf, 4) vertices of the owning tets
        fv = mesh.facets[:, facets].T  # (nf, 3)
        # local index (0-3) of each facet vertex in its tet, and of the opposite vertex
        loc = np.argmax(tv[:, None, :] == fv[:, :, None], axis=2)  # (nf, 3)
        opp = 6 - loc.sum(axis=1)
        V = p2_vertices().T  # (4, 3) reference vertices
        a, b, o = V[loc[:, 0]], V[loc[:, 1]], V[loc[:, 2]]
        (s, t), W = get_quadrature(RefTri, intorder)
        xi = a[:, :, None] + (b - a)[:, :, None] * s + (o - a)[:, :, None] * t  # (nf, 3, q) reference points
        m = np.cross(b - a, o - a)
        sign = np.sign(np.einsum("fi,fi->f", m, a - V[opp]))  # +1 if (b - a) x (o - a) points out of the tet
        nf, nq = len(facets), len(W)
        N, dN = p2_reference(xi.transpose(1, 0, 2).reshape(3, -1))  # (10, nf*q), (10, 3, nf*q)
        N, dN = N.reshape(10, nf, nq), dN.reshape(10, 3, nf, nq)
        xe = part.points[part.cells[e]]  # (nf, 10, 3)
        self.x = np.einsum("fkd,kfq->dfq", xe, N)
        J = np.einsum("fkd,krfq->dfqr", xe, dN)  # (3 d, nf, q, 3 r)
        ta, tb = np.einsum("dfqr,fr->dfq", J, b - a), np.einsum("dfqr,fr->dfq", J, o - a)
        area = np.cross(ta, tb, axis=0) * sign[None, :, None]  # n dA per unit reference triangle
        norm = np.linalg.norm(area, axis=0)
        self.n = area / norm
        self.dx = norm * W  # RefTri rule: weights sum to 1/2, the reference triangle's area
        self.N = N
        self.elements = e
        self.part = part

    def assemble(self, traction: np.ndarray) -> np.ndarray:
        """Load vector (n_dof,) [N] of a traction ``traction`` (3, n_facets, n_qp) [Pa]: sum_q N_f t dx."""
        part = self.part
        w = np.einsum("kfq,cfq,fq->fkc", self.N, traction, self.dx)  # (nf, 10, 3)
        out = np.zeros(part.n_dofs)
        np.add.at(out, part.node_dofs[part.cells[self.elements]].ravel(), w.ravel())
        return out


def facet_basis(part, surface: str):
    """Quadrature of ``surface`` (4th order): skfem FacetBasis of the P2 vector field on its facets for a
    straight-sided part, :class:`CurvedFacets` for a curved one."""
    from skfem import ElementTetP2, ElementVector, FacetBasis

    if part.geometry_order == 2:
        return CurvedFacets(part, part.surface_facets(surface), intorder=4)
    return FacetBasis(part.mesh, ElementVector(ElementTetP2()), facets=part.surface_facets(surface), intorder=4)


def _points_weights(fb):
    """Quadrature points x (3, n_facets, n_qp) [m] and weights dx (n_facets, n_qp) [m^2] of :func:`facet_basis`."""
    if isinstance(fb, CurvedFacets):
        return fb.x, fb.dx
    return np.asarray(fb.global_coordinates()), fb.dx


def surface_geometry(part, surface: str):
    """Area A [m^2], centroid c (3,) [m] and polar tensor J (3, 3) [m^4] of a surface (same quadrature as loads)."""
    fb = facet_basis(part, surface)
    x, dx = _points_weights(fb)  # (3, n_facets, n_qp), (n_facets, n_qp)
    A = dx.sum()
    c = np.einsum("iqp,qp->i", x, dx) / A
    r = x - c[:, None, None]
    rr = np.einsum("iqp,jqp,qp->ij", r, r, dx)
    J = np.trace(rr) * np.eye(3) - rr
    return float(A), c, J


def wrench_basis(part, surface: str, point) -> np.ndarray:
    """(n_dof, 6) load vectors of unit Fx, Fy, Fz [N], Mx, My, Mz [N m] at ``point`` (3,) [m], spread over
    ``surface`` as the linear traction field whose resultant is exactly that wrench."""
    from skfem import LinearForm

    fb = facet_basis(part, surface)
    A, c, J = surface_geometry(part, surface)
    p = np.asarray(point, float)
    size = np.sqrt(A)
    if np.linalg.cond(J / size ** 4) > 1e10:
        raise InputError(f"part {part.name!r}: surface {surface!r} is too thin (a line) to carry a moment; "
                         f"give it some width")
    Jinv = np.linalg.inv(J)
    cols = []
    for k in range(6):
        F = np.eye(3)[k] if k < 3 else np.zeros(3)
        M = np.eye(3)[k - 3] if k >= 3 else np.zeros(3)
        theta = Jinv @ (M + np.cross(p - c, F))
        if isinstance(fb, CurvedFacets):
            r = fb.x - c[:, None, None]
            cols.append(fb.assemble(np.cross(theta, r, axis=0) + (F / A)[:, None, None]))
            continue

        @LinearForm
        def f(v, w, F=F, theta=theta):
            r = w.x - c[:, None, None]
            t = np.stack([theta[1] * r[2] - theta[2] * r[1], theta[2] * r[0] - theta[0] * r[2],
                          theta[0] * r[1] - theta[1] * r[0]]) + (F / A)[:, None, None]
            return t[0] * v[0] + t[1] * v[1] + t[2] * v[2]
        cols.append(f.assemble(fb))
    return np.column_stack(cols)


def pressure_load(part, surface: str, p: float) -> np.ndarray:
    """(n_dof,) load vector of pressure p [Pa] on ``surface`` (positive pushes into the surface)."""
    from skfem import LinearForm

    fb = facet_basis(part, surface)
    if isinstance(fb, CurvedFacets):
        return fb.assemble(-p * fb.n)

    @LinearForm
    def f(v, w):
        return -p * (w.n[0] * v[0] + w.n[1] * v[1] + w.n[2] * v[2])

    return f.assemble(fb)


def patch_force_basis(part, surface: str) -> np.ndarray:
    """(n_dof, 3) load vectors of unit forces [N] on a named patch (zero moment about its centroid)."""
    return wrench_basis(part, surface, surface_geometry(part, surface)[1])[:, :3]


def resultant(part, f: np.ndarray) -> np.ndarray:
    """Force [N] and moment [N m] about the link-frame origin, (6,) of a load vector f (n_dof,) or (6, k) of the
    columns of f (n_dof, k)."""
    fn = f[part.node_dofs]  # (n_nodes, 3) or (n_nodes, 3, k)
    if fn.ndim == 2:
        return np.concatenate([fn.sum(axis=0), np.cross(part.points, fn).sum(axis=0)])
    moment = np.einsum("ijk,nj,nkc->ic", LEVI_CIVITA, part.points, fn)
    return np.vstack([fn.sum(axis=0), moment])


def rigid_fit_operator(part, surface: str, point: np.ndarray) -> np.ndarray:
    """Operator P (6, n_dof): [d; theta] = P @ u is the least-squares rigid motion of the surface's nodes
    (translation d [m] of ``point`` (3,) [m] and small rotation theta [rad], link axes)."""
    nodes = part.surface_nodes(surface)
    r = part.points[nodes] - point
    n = len(nodes)
    A = np.zeros((3 * n, 6))
    A[:, :3] = np.tile(np.eye(3), (n, 1))
    # u = d + theta x r  ->  u = d - [r]x theta
    A[:, 3:] = -skew(r).reshape(3 * n, 3)
    pinv = np.linalg.pinv(A)  # (6, 3n)
    P = np.zeros((6, part.n_dofs))
    P[:, part.node_dofs[nodes].ravel()] = pinv
    return P
