"""Craig-Bampton superelement of one link (component mode synthesis), in the link frame.

Each interface (a named surface of the :class:`~structcheck.fe.part.Part`) becomes one 6-DOF node at a reference
point p: translation d [m] of p and small rotation theta [rad] of the flange, link axes. Two couplings:

- ``"rigid"`` (the bolted flange): every node x of the surface follows the node rigidly,
  u(x) = d + theta x (x - p); the flange dofs are eliminated in favour of the 6 node dofs (a transformation, not
  a penalty).
- ``"averaged"`` (RBE3-like): the flange deforms freely and the node's motion is the weighted least-squares rigid
  fit of it, (d, theta) = C^T u with C = :meth:`Part.wrench_basis` (surface, p) (the area-weighted mean
  translation at p and the least-squares rotation); imposed with Lagrange multipliers on the 6 averaged
  constraints per interface.

Basis Psi (n_dof, n_red), columns in this order (the reduced coordinates z):

1. constraint modes, 6 per interface: unit motion of one interface dof, the other interface dofs held, the rest
   of the link at minimum strain energy (they reproduce the rigid motions of the link exactly);
2. fixed-interface modes (all interface nodes held), mass-normalized, ascending frequency;
3. residual vectors: static responses to the link's own interior loads (by default the 12 body-load patterns of
   :meth:`Part.body_load_basis`) with the interface nodes held, M-orthogonalized against the fixed-interface modes
   and among themselves, near-dependent ones dropped (Gram eigenvalue below ``residual_tol`` after unit
   M-normalization of each column), then K-diagonalized in their own span (Nastran RESVEC). Blocks 2 and 3
   together are M-orthonormal and K-diagonal: K_r's fixed-interface block is diag(omega^2).

With the residual vectors of a load the static response to that load is exact (whatever the number of modes):
u = Psi_c d + K_held^-1 f lies in the span of the basis. One factorization per link serves the constraint modes,
the residual vectors and the shift-invert eigen solve.

Reference: R. R. Craig, M. C. C. Bampton, "Coupling of substructures for dynamic analyses", AIAA J. 6(7),
1313-1319 (1968). See docs/flex.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..errors import InputError
from ..fe.solvers import factorize, single_thread_blas
from ..fe.stress import von_mises
from ..fe.supports import far_apart_vertices, submatrix
from ..fe.transient import modes as lowest_modes
from ..spatial import skew

COUPLINGS = ("rigid", "averaged")


@dataclass(frozen=True)
class Superelement:
    """A reduced link. Reduced coordinates z = [interface node dofs (6 per interface: d, theta), fixed-interface
    modal coordinates, residual-vector coordinates].

    ``K`` (n_red, n_red) [N/m, N, N m per unit z], ``M`` (n_red, n_red) [kg, ...] symmetric; ``Psi`` (n_dof, n_red)
    the full-link displacement of a unit z [m per unit z], link axes; ``body_loads`` (n_red, 12) the reduced load
    matrix Psi^T F of the 12 body-load patterns of :meth:`Part.body_load_basis` (coefficients:
    :func:`structcheck.loads.body_coefficients`); ``interfaces`` names, ``points`` (n_if, 3) their reference points
    [m] (link frame); ``omega`` (n_modes,) fixed-interface circular frequencies [rad/s]; ``n_residual`` kept
    residual vectors; ``coupling`` 'rigid' or 'averaged'."""

    part: object
    interfaces: tuple
    points: np.ndarray
    coupling: str
    K: np.ndarray
    M: np.ndarray
    Psi: np.ndarray
    body_loads: np.ndarray
    omega: np.ndarray
    n_residual: int
    info: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ layout
    @property
    def name(self) -> str:
        return self.part.name

    @property
    def n_interface_dofs(self) -> int:
        """6 per interface node."""
        return 6 * len(self.interfaces)

    @property
    def n_modes(self) -> int:
        return len(self.omega)

    @property
    def n_red(self) -> int:
        return self.K.shape[0]

    def interface_dofs(self, name: str) -> np.ndarray:
        """Indices (6,) in z of interface ``name``: d_x, d_y, d_z, theta_x, theta_y, theta_z (link axes)."""
        if name not in self.interfaces:
            raise InputError(f"superelement {self.name!r} has no interface {name!r}; its interfaces are "
                             f"{list(self.interfaces)}")
        i = self.interfaces.index(name)
        return np.arange(6 * i, 6 * i + 6)

    def truncated(self, n_modes: int | None = None, residual: bool = True) -> "Superelement":
        """The same superelement keeping its lowest ``n_modes`` fixed-interface modes (all if None) and, with
        ``residual``, its residual vectors: the basis columns dropped, no new solve (convergence studies).
        The residual vectors stay M-orthogonal to the dropped modes too, so they no longer carry those modes'
        static part."""
        m = self.n_modes if n_modes is None else int(n_modes)
        if not 0 <= m <= self.n_modes:
            raise InputError(f"superelement {self.name!r} has {self.n_modes} fixed-interface modes, asked for {m}")
        nc = self.n_interface_dofs
        keep = np.r_[np.arange(nc + m), nc + self.n_modes + np.arange(self.n_residual if residual else 0)]
        return replace(self, K=self.K[np.ix_(keep, keep)], M=self.M[np.ix_(keep, keep)], Psi=self.Psi[:, keep],
                       body_loads=self.body_loads[keep], omega=self.omega[:m],
                       n_residual=self.n_residual if residual else 0)

    # ------------------------------------------------------------------ recovery
    def displacement(self, z: np.ndarray) -> np.ndarray:
        """Nodal displacements (..., n_nodes, 3) [m], link axes, of reduced coordinates z (..., n_red)."""
        z = np.asarray(z, float)
        u = z @ self.Psi.T  # (..., n_dof)
        return u[..., self.part.node_dofs]

    def element_node_stress(self, z: np.ndarray) -> np.ndarray:
        """Unaveraged stresses (k, n_elem, 10, 6) [Pa] for reduced coordinates z (n_red,) or (k, n_red)."""
        z = np.atleast_2d(np.asarray(z, float))
        return self.part.element_node_stress(self.Psi @ z.T)

    def von_mises(self, z: np.ndarray) -> np.ndarray:
        """Unaveraged element-node von Mises stresses (k, n_elem, 10) [Pa] for z (n_red,) or (k, n_red)."""
        return von_mises(self.element_node_stress(z))

    @cached_property
    def stress_basis(self) -> np.ndarray:
        """Element stresses (n_red, 6, n_p, n_elem) [Pa per unit z] of every basis column (:meth:`Part.stress_basis`:
        the n_p = 4 vertices of straight elements, whose mid nodes have the means of their edge's vertices; the
        n_p = 10 nodes of curved ones): the stress of z is ``einsum('r,rcpe->cpe', z, stress_basis)``. Memory
        6 n_p n_red n_elem floats: form it for stress histories, not for one recovery."""
        return self.part.stress_basis(self.Psi)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_part(cls, part, interfaces, n_modes: int | None = 6, residual_loads=None, coupling: str = "rigid",
                  max_frequency: float | None = None, residual_tol: float = 1e-10,
                  clamped=None) -> "Superelement":
        """Reduce ``part`` (a :class:`~structcheck.fe.part.Part`, link frame).

        ``interfaces``: names of surfaces (reference point = the surface centroid) or a mapping name -> point (3,)
        [m]; surfaces must not share nodes. ``n_modes``: fixed-interface modes kept, or with ``max_frequency``
        [Hz] all modes up to that frequency (``n_modes`` then ignored). ``residual_loads``: None -> the 12 body-load
        patterns; otherwise a sequence of 'body', surface names (unit forces on that patch,
        :meth:`Part.patch_force_basis`) and arrays (n_dof, k) of load vectors; () for none. ``coupling``: 'rigid'
        or 'averaged' (module doc). ``residual_tol``: Gram-eigenvalue threshold below which a residual direction
        counts as dependent on the modes or on the others and is dropped. ``clamped``: a
        :class:`~structcheck.fe.linkbasis.ClampedFactor` of the part already factorized (a link's per-link basis):
        used when its free dofs are the ones the held interfaces leave (rigid coupling: a link whose only
        interfaces are its support), the factorization and, for the same ``n_modes``, the modes too (the same
        computation, not repeated)."""
        if coupling not in COUPLINGS:
            raise InputError(f"coupling must be one of {COUPLINGS}, got {coupling!r}")
        names, points = _interfaces(part, interfaces)
        F_body = part.body_load_basis()
        F_res = _residual_loads(part, residual_loads, F_body)
        K, M = part.stiffness, part.mass_matrix
        # The dense products here are thin (n_dof x n_red, n_red ~ 30): OpenBLAS's threads only wait on each other
        # on them, 4-10x slower than one thread when the cores are busy (Psi^T K Psi of a 50k-dof link: 0.18 s
        # against 0.045 s). PARDISO (MKL) keeps its own threads for the factorization and solves.
        with single_thread_blas():
            if coupling == "rigid":
                held = _RigidHeld(part, names, points, clamped)
            else:
                held = _AveragedHeld(part, names, points)
            # one factorization: constraint modes and residual vectors in one multi-right-hand-side solve
            Psi_c, U_res = held.constraint_and_static(F_res)
            Phi, omega = held.modes(n_modes, max_frequency)
            R = _residual_vectors(U_res, Phi, K, M, residual_tol)
            Psi = np.hstack([Psi_c, Phi, R])
            Kr, Mr = _project(K, Psi), _project(M, Psi)
            body_loads = Psi.T @ F_body
        return cls(part=part, interfaces=tuple(names), points=points, coupling=coupling, K=Kr, M=Mr, Psi=Psi,
                   body_loads=body_loads, omega=omega, n_residual=R.shape[1],
                   info={"n_residual_loads": F_res.shape[1], "backend": held.backend})


# ---------------------------------------------------------------------------------------------------- helpers
def _interfaces(part, interfaces):
    if isinstance(interfaces, str):
        interfaces = [interfaces]
    if hasattr(interfaces, "items"):
        items = [(n, np.asarray(p, float).reshape(3)) for n, p in interfaces.items()]
    else:
        items = [(n, part.surface_geometry(n)[1]) for n in interfaces]
    if not items:
        raise InputError(f"part {part.name!r}: a superelement needs at least one interface surface "
                         f"(surfaces: {sorted(part.surfaces)})")
    names = [n for n, _ in items]
    if len(set(names)) != len(names):
        raise InputError(f"part {part.name!r}: interfaces listed twice in {names}")
    seen = {}
    for n in names:
        for node in part.surface_nodes(n):  # raises InputError naming the surfaces if n is unknown
            if node in seen:
                raise InputError(f"part {part.name!r}: interfaces {seen[node]!r} and {n!r} share nodes; an interface "
                                 f"node needs its own flange")
            seen[node] = n
    return names, np.array([p for _, p in items])


def _residual_loads(part, residual_loads, F_body):
    if residual_loads is None:
        return F_body
    cols = []
    for item in residual_loads:
        if isinstance(item, str):
            cols.append(F_body if item == "body" else part.patch_force_basis(item))
        else:
            a = np.asarray(item, float)
            a = a[:, None] if a.ndim == 1 else a
            if a.shape[0] != part.n_dofs:
                raise InputError(f"part {part.name!r}: a residual load has {a.shape[0]} rows, the part has "
                                 f"{part.n_dofs} dofs")
            cols.append(a)
    return np.hstack(cols) if cols else np.zeros((part.n_dofs, 0))


def _rigid_map(points: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(3 n, 6): node displacements u = d + theta x (x - p) for nodes at ``points`` (n, 3)."""
    n = len(points)
    T = np.zeros((n, 3, 6))
    T[:, :, :3] = np.eye(3)
    T[:, :, 3:] = -skew(points - p)  # theta x r = -[r]x theta
    return T.reshape(3 * n, 6)


def _project(A, Psi):
    B = Psi.T @ (A @ Psi)
    return 0.5 * (B + B.T)


class _RigidHeld:
    """Flange dofs eliminated: u_B = T d. Interfaces held <=> the flange nodes clamped; one factorization of K_II."""

    def __init__(self, part, names, points, clamped=None):
        self.part = part
        nd = part.node_dofs
        blocks = [(nd[part.surface_nodes(n)].ravel(), _rigid_map(part.points[part.surface_nodes(n)], p))
                  for n, p in zip(names, points)]
        self.B = np.concatenate([b for b, _ in blocks])
        self.T = sla.block_diag(*[t for _, t in blocks])  # (n_B, 6 n_if)
        mask = np.ones(part.n_dofs, bool)
        mask[self.B] = False
        self.I = np.nonzero(mask)[0]
        K = part.stiffness
        # a factorization of the part clamped on exactly these dofs already made (the per-link basis) serves
        self.clamped = clamped if clamped is not None and np.array_equal(clamped.free, self.I) else None
        self.K_IB = sp.csr_matrix(K)[self.I][:, self.B]
        # K_II is not kept once factorized: the solves and the shift-invert modes use only its factor
        self.fact = factorize(submatrix(K, self.I)) if self.clamped is None else self.clamped.factor
        self.backend = self.fact.backend

    def constraint_and_static(self, F):
        n = self.part.n_dofs
        nc = self.T.shape[1]
        Z = self.fact.solve(np.hstack([-(self.K_IB @ self.T), F[self.I]]))
        Psi_c = np.zeros((n, nc))
        Psi_c[self.I] = Z[:, :nc]
        Psi_c[self.B] = self.T
        U = np.zeros((n, F.shape[1]))
        U[self.I] = Z[:, nc:]
        return Psi_c, U

    def modes(self, n_modes, max_frequency):
        c = self.clamped
        if c is not None and c.modes is not None and max_frequency is None and n_modes == len(c.modes.omega):
            phi, omega = c.modes.phi, c.modes.omega  # the same eigenproblem, solved once
        else:
            M_II = submatrix(self.part.mass_matrix, self.I)
            phi, omega = _modes_upto(M_II, self.fact, n_modes, max_frequency)
        Phi = np.zeros((self.part.n_dofs, phi.shape[1]))
        Phi[self.I] = phi
        return Phi, omega


class _AveragedHeld:
    """Interfaces held <=> C^T u = 0 (Lagrange multipliers). The free part's K is made SPD by springs of stiffness k
    on the 9 dofs of three far-apart vertices of the first interface, A = K + k E E^T, factorized once; a
    constrained solve K u + C lam = f, C^T u = g is then u = A^-1 (f + E mu - C lam) with the spring forces mu and
    the multipliers lam from a small dense system (exact: the springs' forces are cancelled)."""

    def __init__(self, part, names, points):
        self.part = part
        n = part.n_dofs
        self.C = np.hstack([part.wrench_basis(s, p) for s, p in zip(names, points)])  # (n, 6 n_if)
        nodes = part.surface_nodes(names[0])
        nodes = nodes[nodes < part.mesh.nvertices]
        e = part.node_dofs[nodes[far_apart_vertices(part.points[nodes])]].ravel()
        K = sp.csr_matrix(part.stiffness)
        self.k = float(K.diagonal().mean())
        A = K + sp.csr_matrix((np.full(len(e), self.k), (e, e)), shape=(n, n))
        self.E = np.zeros((n, len(e)))
        self.E[e, np.arange(len(e))] = 1.0
        self.fact = factorize(A)
        self.backend = self.fact.backend
        Z = self.fact.solve(np.hstack([self.C, self.E]))
        nc = self.C.shape[1]
        self.ZC, self.ZE = Z[:, :nc], Z[:, nc:]
        S = np.block([[-self.C.T @ self.ZC, self.C.T @ self.ZE],
                      [-self.E.T @ self.ZC, self.E.T @ self.ZE - np.eye(len(e)) / self.k]])
        self.S = sla.lu_factor(S)

    def solve(self, F, g=None):
        """u (n, k) with K u + C lam = F (n, k), C^T u = g (6 n_if, k) (0 if None)."""
        F = np.asarray(F, float)
        one = F.ndim == 1
        F = F[:, None] if one else F
        Zf = self.fact.solve(F)
        rhs1 = -self.C.T @ Zf + (0.0 if g is None else g)
        sol = sla.lu_solve(self.S, np.vstack([rhs1, -self.E.T @ Zf]))
        nc = self.C.shape[1]
        u = Zf - self.ZC @ sol[:nc] + self.ZE @ sol[nc:]
        return u[:, 0] if one else u

    def constraint_and_static(self, F):
        nc = self.C.shape[1]
        g = np.hstack([np.eye(nc), np.zeros((nc, F.shape[1]))])
        U = self.solve(np.hstack([np.zeros((self.part.n_dofs, nc)), F]), g)
        return U[:, :nc], U[:, nc:]

    def modes(self, n_modes, max_frequency):
        # shift-invert about 0 with the constrained compliance as the operator: eigenvectors satisfy C^T phi = 0
        return _modes_upto(self.part.mass_matrix, self, n_modes, max_frequency)


def _modes_upto(M, fact, n_modes, max_frequency):
    """Lowest modes (phi (n, m) mass-normalized, omega (m,) rad/s) of the stiffness whose factorization (or
    constrained solve) ``fact`` is, with the mass M: ``n_modes`` of them, or all below
    ``max_frequency`` [Hz] (batches doubling from 8 until one passes the cut-off)."""
    if max_frequency is None:
        if not n_modes:
            return np.zeros((M.shape[0], 0)), np.zeros(0)
        m = lowest_modes(None, M, int(n_modes), factorization=fact)
        return m.phi, m.omega
    k = 8
    while True:
        m = lowest_modes(None, M, k, factorization=fact)
        if m.frequency_hz[-1] > max_frequency or k >= M.shape[0] - 2:
            keep = m.frequency_hz <= max_frequency
            return m.phi[:, keep], m.omega[keep]
        k *= 2


def _residual_vectors(U, Phi, K, M, tol):
    """Residual vectors (n, r): the static responses U (n, k) M-orthogonalized against the modes Phi (M-orthonormal)
    and among themselves, dependent directions (Gram eigenvalue < tol after unit M-normalization) dropped, and
    K-diagonalized within their span (so that together with Phi they are M-orthonormal and K-diagonal)."""
    if U.shape[1] == 0:
        return U
    norms = np.sqrt(np.einsum("ik,ik->k", U, M @ U))
    R = U[:, norms > 0] / norms[norms > 0]
    for _ in range(2):  # Gram-Schmidt twice: orthogonal to working precision
        R = R - Phi @ (Phi.T @ (M @ R))
    G = R.T @ (M @ R)
    s, V = np.linalg.eigh(0.5 * (G + G.T))
    keep = s > tol
    R = R @ (V[:, keep] / np.sqrt(s[keep]))
    R = R - Phi @ (Phi.T @ (M @ R))
    # K-diagonalize within the span: small generalized eigenproblem (Rayleigh-Ritz)
    Kr, Mr = _project(K, R), _project(M, R)
    w2, W = sla.eigh(Kr, Mr)
    return R @ W
