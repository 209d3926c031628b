"""Supports of a Part and the static solutions under them.

- 'clamp': every displacement component of the named surfaces held;
- 'averaged': the area-weighted mean translation and least-squares rotation of each named surface held while the
  surface deforms (ANSYS's deformable remote displacement, Nastran's RBE3);
- component supports on named surfaces or lines (``fixed_components``: rollers, symmetry planes);
- 'inertia_relief': a free part whose loads are balanced by its rigid-body inertia.

Every function takes the :class:`~structcheck.fe.part.Part` first; displacements in m, loads in N, link axes.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from .interface import surface_geometry, wrench_basis
from .solvers import factorize


def free_dofs(part, fixed, components: dict | None = None) -> np.ndarray:
    """Dofs (sorted) not held by displacement supports: every component on the clamped surfaces ``fixed``
    (names), and the components ``components[name]`` (letters of 'xyz', link axes) on the nodes of surface or
    line ``name``."""
    if isinstance(fixed, str):
        fixed = [fixed]
    components = dict(components or {})
    if not fixed and not components:
        raise InputError(f"part {part.name!r}: no support given; clamp at least one surface "
                         f"(surfaces: {sorted(part.surfaces)}) or use support='inertia_relief'")
    held = [part.node_dofs[part.surface_nodes(n)].ravel() for n in fixed]
    for name, comps in components.items():
        if not (isinstance(comps, str) and comps and set(comps) <= set("xyz") and len(set(comps)) == len(comps)):
            raise InputError(f"part {part.name!r}: fixed_components[{name!r}] must be letters of 'xyz' "
                             f"(e.g. 'z' or 'xy'), got {comps!r}")
        cols = ["xyz".index(c) for c in comps]
        held.append(part.node_dofs[part.named_nodes(name)][:, cols].ravel())
    mask = np.ones(part.n_dofs, bool)
    mask[np.concatenate(held)] = False
    return np.nonzero(mask)[0]


def submatrix(A, idx: np.ndarray) -> sp.csr_matrix:
    """A[idx][:, idx] (CSR) for sorted unique indices ``idx`` (e.g. :func:`free_dofs`), in one vectorized pass over
    the nonzeros (scipy's two fancy-indexing steps take seconds on a 300k-dof stiffness matrix)."""
    A = sp.csr_matrix(A)
    idx = np.asarray(idx, dtype=np.int64)
    new = np.full(A.shape[0], -1, dtype=np.int64)
    new[idx] = np.arange(len(idx))
    starts, counts = A.indptr[idx], np.diff(A.indptr)[idx]
    offsets = np.r_[0, np.cumsum(counts)]
    take = np.repeat(starts - offsets[:-1], counts) + np.arange(offsets[-1])
    cols = new[A.indices[take]]
    keep = cols >= 0
    rows = np.repeat(np.arange(len(idx)), counts)[keep]
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=len(idx)))]
    return sp.csr_matrix((A.data[take][keep], cols[keep], indptr), shape=(len(idx), len(idx)))


def averaged_motion(part, surface: str) -> np.ndarray:
    """Operator C (n_dof, 6) with C^T u = (d, theta): the area-weighted mean translation d [m] of ``surface`` at
    its centroid and its least-squares small rotation theta = J^-1 int (x - c) x u dA [rad] (link axes).

    Its columns are the load vectors of unit forces and moments at the centroid spread by
    :func:`.interface.wrench_basis`, so holding C^T u = 0 (the 'averaged' support) makes the support reaction
    exactly that linear traction field: an RBE3 / ANSYS deformable remote displacement."""
    return wrench_basis(part, surface, surface_geometry(part, surface)[1])


def solve_unit_loads(part, F: np.ndarray, fixed, support: str = "clamp",
                     fixed_components: dict | None = None) -> np.ndarray:
    """Static solutions U (n_dof, k) [m] of load vectors F (n_dof, k) (or (n_dof,)) [N], one factorization.

    ``support`` 'clamp': the ``fixed`` surfaces are held; 'averaged': the weighted mean translation and
    rotation of each ``fixed`` surface are held and the surface deforms freely (see :func:`averaged_motion`);
    ``fixed_components`` (name -> 'x', 'xy', ...) holds displacement components on surfaces or lines."""
    if support not in ("clamp", "averaged"):
        raise InputError(f"support must be 'clamp' or 'averaged' here, got {support!r}")
    fixed = [fixed] if isinstance(fixed, str) else list(fixed)
    F = np.asarray(F, float)
    if support == "clamp":
        free = free_dofs(part, fixed, fixed_components)
        U = np.zeros_like(F)
        U[free] = factorize(submatrix(part.stiffness, free)).solve(F[free])
        return U
    if not fixed:
        raise InputError(f"part {part.name!r}: support='averaged' needs the surfaces whose mean motion is "
                         f"held (surfaces: {sorted(part.surfaces)})")
    free = free_dofs(part, [], fixed_components) if fixed_components else np.arange(part.n_dofs)
    cols = F.reshape(len(F), -1)
    U = np.zeros_like(cols)
    U[free] = solve_averaged(part, cols[free], fixed, free)
    return U.reshape(F.shape)


def far_apart_vertices(points: np.ndarray) -> list[int]:
    """Indices of three far-apart, non-collinear points among ``points`` (n, 3): the first, the farthest from it,
    and the farthest from the line through both."""
    x = points
    i1 = int(np.argmax(np.linalg.norm(x - x[0], axis=1)))
    d = (x[i1] - x[0]) / np.linalg.norm(x[i1] - x[0])
    off = x - x[0]
    i2 = int(np.argmax(np.linalg.norm(off - np.outer(off @ d, d), axis=1)))
    return [0, i1, i2]


def solve_averaged(part, F: np.ndarray, surfaces: list, free: np.ndarray) -> np.ndarray:
    """Solve K u + C lam = F, C^T u = 0 on the ``free`` dofs (F (n_free, k) [N]; C: :func:`averaged_motion` of each
    surface) with one SPD factorization: springs of stiffness k on the 9 dofs of three far-apart vertices of the
    first surface remove the rigid motions (A = K + k E E^T), and their forces mu = k E^T u are solved for exactly
    with the multipliers lam in a small dense system. Returns u (n_free, k) [m]."""
    nf = len(free)
    pos = -np.ones(part.n_dofs, dtype=np.int64)
    pos[free] = np.arange(nf)
    C = np.hstack([averaged_motion(part, n) for n in surfaces])[free]
    K = submatrix(part.stiffness, free)
    nodes = part.surface_nodes(surfaces[0])
    nodes = nodes[nodes < part.mesh.nvertices]
    e = pos[part.node_dofs[nodes[far_apart_vertices(part.points[nodes])]].ravel()]
    e = e[e >= 0]
    k = float(K.diagonal().mean())
    A = K + sp.csr_matrix((np.full(len(e), k), (e, e)), shape=(nf, nf))
    E = np.zeros((nf, len(e)))
    E[e, np.arange(len(e))] = 1.0
    nk, nc = F.shape[1], C.shape[1]
    Z = factorize(A).solve(np.hstack([F, C, E]))
    Zf, ZC, ZE = Z[:, :nk], Z[:, nk:nk + nc], Z[:, nk + nc:]
    S = np.block([[C.T @ ZC, -C.T @ ZE], [ZC[e], np.eye(len(e)) / k - ZE[e]]])
    sol = np.linalg.solve(S, np.vstack([C.T @ Zf, Zf[e]]))
    return Zf - ZC @ sol[:nc] + ZE @ sol[nc:]


def rigid_body_modes(points: np.ndarray, node_dofs: np.ndarray) -> np.ndarray:
    """Displacements R (n_dof, 6) [m per m or rad] of unit translations along x, y, z and small rotations about
    the x, y, z axes through the origin, for nodes at ``points`` (n_nodes, 3) with dofs ``node_dofs`` (n_nodes, 3)."""
    x, nd = points, node_dofs
    R = np.zeros((nd.size, 6))
    for k in range(3):
        R[nd[:, k], k] = 1.0
    for k, (a, b) in enumerate(((1, 2), (2, 0), (0, 1))):  # rotations about x, y, z
        R[nd[:, a], 3 + k] = -x[:, b]
        R[nd[:, b], 3 + k] = x[:, a]
    return R


def inertia_relief(part, f: np.ndarray) -> np.ndarray:
    """Free-free static solution u (n_dof,) [m] of the load f (n_dof,) [N]: the rigid-body inertia of the part
    balances the resultant of f; the six rigid modes are removed (M-orthogonal) and pinned by Lagrange
    multipliers."""
    import scipy.sparse.linalg as spla

    R = rigid_body_modes(part.points, part.node_dofs)
    M = part.mass_matrix
    MR = M @ R
    # remove the rigid-body part of the load: f_bal = f - M R (R^T M R)^-1 R^T f
    f_bal = f - MR @ np.linalg.solve(R.T @ MR, R.T @ f)
    A = sp.bmat([[part.stiffness, sp.csr_matrix(MR)], [sp.csr_matrix(MR.T), None]]).tocsc()
    sol = spla.spsolve(A, np.r_[f_bal, np.zeros(6)])
    return sol[: part.n_dofs]
