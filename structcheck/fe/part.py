"""A link as a linear-elastic finite-element body (scikit-fem, quadratic tetrahedra) in its body frame.

Loads are built as unit-load matrices (n_dof, k) so that a load history is ``F @ coeff[t]``:
- body force density rho (A0 + B x): 12 columns (A0 = e_i, then B_ij: b_i = rho x_j); the rigid-motion body
  force rho (g - a_O - alpha x x - omega x (omega x x)) has A0 = g - a_O and B = -[alpha]x - [omega]x[omega]x;
- a wrench (F, M) at a reference point p spread over a named surface as the linear traction
  t(x) = F/A + theta x (x - c), theta = J^-1 (M + (p - c) x F) (DESIGN.md), resultant exact: 6 columns;
- pressure: traction -p n (positive pushes into the surface).
Stiffness uses 2nd-order quadrature (exact on straight-sided P2 tets), mass and loads 4th order.

Supports: 'clamp' (every displacement component of the named surfaces held), 'averaged' (the weighted mean
translation and rotation of each named surface held while the surface deforms: ANSYS's deformable remote
displacement, Nastran's RBE3), 'inertia_relief' (free part), and component supports on named surfaces or lines
(``fixed_components``: rollers, symmetry planes).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..errors import InputError, MeshError
from ..model.materials import Material, get_material
from .mesh import MassProperties, TetMesh, check_mesh, mass_properties, read_mesh
from .stress import von_mises


def body_coefficients(gravity, acceleration, angular_velocity, angular_acceleration) -> np.ndarray:
    """Coefficients (n_t, 12) of :meth:`Part.body_load_basis` for the rigid-motion body force.

    Inputs (n_t, 3) or (3,) in link axes: gravity g, frame-origin acceleration a_O, angular velocity omega,
    angular acceleration alpha."""
    g, a, w, al = (np.atleast_2d(np.asarray(x, float)) for x in (gravity, acceleration, angular_velocity,
                                                                  angular_acceleration))
    n = max(len(g), len(a), len(w), len(al))
    g, a, w, al = (np.broadcast_to(x, (n, 3)) for x in (g, a, w, al))
    A0 = g - a

    def skew(v):
        z = np.zeros(len(v))
        return np.stack([np.stack([z, -v[:, 2], v[:, 1]], -1), np.stack([v[:, 2], z, -v[:, 0]], -1),
                         np.stack([-v[:, 1], v[:, 0], z], -1)], -2)

    W = skew(w)
    B = -skew(al) - W @ W
    return np.hstack([A0, B.reshape(n, 9)])


@dataclass
class StaticSolution:
    """Static result: ``points`` (n, 3), ``displacement`` (n, 3) [m], ``von_mises`` (n,) nodal average for plots
    [Pa], ``max_von_mises`` from unaveraged element-node stresses, ``element_node_stress`` (n_elem, 10, 6),
    ``reaction`` (6,) force and moment about the origin that the supports exert."""

    points: np.ndarray
    displacement: np.ndarray
    von_mises: np.ndarray
    max_von_mises: float
    element_node_stress: np.ndarray
    reaction: np.ndarray
    part: "Part"

    def max_von_mises_outside(self, band: float, supports) -> float:
        """Max unaveraged von Mises over element nodes farther than ``band`` [m] from the supports."""
        d = self.part.distance_to_surfaces(list(supports))
        vm = von_mises(self.element_node_stress)
        far = d[self.part.cells] > band
        return float(vm[far].max()) if far.any() else float("nan")


class Part:
    """A meshed link: quadratic tets on a linear-tet mesh, a material, named surfaces (boundary facets) and named
    lines (mesh edges, for component supports such as LE10's z = 0 line)."""

    def __init__(self, mesh, material, surfaces: dict | None = None, name: str = "part", edges: dict | None = None):
        from skfem import MeshTet

        if not isinstance(mesh, MeshTet):
            raise TypeError("Part needs a skfem.MeshTet; use Part.from_mesh(path) to read a file")
        self.mesh = mesh
        self.material: Material = get_material(material)
        self.name = name
        self._surfaces = {}
        bnd = set(mesh.boundary_facets().tolist())
        for n, f in (surfaces or {}).items():
            f = np.asarray(f, dtype=np.int64)
            if len(f) == 0:
                raise InputError(f"part {name!r}: surface {n!r} is empty")
            if not set(f.tolist()) <= bnd:
                raise InputError(f"part {name!r}: surface {n!r} has facets that are not on the boundary")
            self._surfaces[n] = f
        # named lines (mesh edge indices), e.g. a gmsh physical curve that carries a component support
        self._edges = {}
        for n, e in (edges or {}).items():
            e = np.asarray(e, dtype=np.int64)
            if len(e) == 0:
                raise InputError(f"part {name!r}: line {n!r} is empty")
            if e.min() < 0 or e.max() >= mesh.edges.shape[1]:
                raise InputError(f"part {name!r}: line {n!r} has edge indices outside 0..{mesh.edges.shape[1] - 1}")
            if n in self._surfaces:
                raise InputError(f"part {name!r}: {n!r} names both a surface and a line")
            self._edges[n] = e

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_mesh(cls, path, material="6061", units: str = "m", surfaces: dict | None = None) -> "Part":
        """Read a mesh file (gmsh .msh with physical surface groups, or any meshio format).

        ``surfaces`` adds geometric selections: name -> callable(x (3, n) facet midpoints) -> bool mask."""
        tm = read_mesh(path, units)
        return cls.from_tetmesh(tm, material, surfaces, name=Path(path).stem)

    @classmethod
    def from_tetmesh(cls, tm: TetMesh, material, surfaces=None, name="part") -> "Part":
        from skfem import MeshTet

        mesh = MeshTet(np.ascontiguousarray(tm.points.T), np.ascontiguousarray(tm.tets.T))
        named, lines = {}, {}
        for kind, table, groups, out in (("triangles", mesh.facets, tm.surfaces, named),
                                         ("segments", mesh.edges, tm.lines, lines)):
            for n, cells in groups.items():
                idx = _find_rows(table.T, cells)
                if np.any(idx < 0):
                    where = "faces" if kind == "triangles" else "edges"
                    raise MeshError(f"part {name!r}: {int(np.sum(idx < 0))} {kind} of {n!r} are not {where} of "
                                    f"the tets")
                out[n] = np.unique(idx)
        part = cls(mesh, material, named, name, edges=lines)
        return part.with_surfaces({**named, **{n: part.select_facets(sel) for n, sel in (surfaces or {}).items()}})

    @classmethod
    def from_skfem(cls, mesh, material, surfaces: dict | None = None, name="part") -> "Part":
        check_mesh(mesh.p.T, mesh.t.T, name)
        return cls(mesh, material, surfaces, name)

    def with_surfaces(self, surfaces: dict) -> "Part":
        """A new Part with these named surfaces (name -> facet indices); named lines are kept."""
        p = Part(self.mesh, self.material, surfaces, self.name, edges=self._edges)
        return p

    def with_edges(self, edges: dict) -> "Part":
        """A new Part with these named lines (name -> mesh edge indices, e.g. from :meth:`select_edges`)."""
        return Part(self.mesh, self.material, self._surfaces, self.name, edges=edges)

    def select_edges(self, selector) -> np.ndarray:
        """Boundary edges whose midpoints satisfy ``selector(x (3, n)) -> bool (n,)``."""
        bnd = self.mesh.boundary_edges()
        mid = self.mesh.p[:, self.mesh.edges[:, bnd]].mean(axis=1)
        return bnd[np.asarray(selector(mid), bool)]

    def select_facets(self, selector) -> np.ndarray:
        """Boundary facets whose midpoints satisfy ``selector(x (3, n)) -> bool (n,)``."""
        bnd = self.mesh.boundary_facets()
        mid = self.mesh.p[:, self.mesh.facets[:, bnd]].mean(axis=1)
        return bnd[np.asarray(selector(mid), bool)]

    @property
    def surfaces(self) -> tuple:
        return tuple(self._surfaces)

    @property
    def edges(self) -> tuple:
        """Names of the named lines."""
        return tuple(self._edges)

    def _named_nodes(self, name: str) -> np.ndarray:
        """P2 nodes of a named surface or line."""
        if name in self._edges:
            e = self._edges[name]
            return np.unique(np.r_[self.mesh.edges[:, e].ravel(), self.mesh.nvertices + e])
        if name in self._surfaces:
            return self.surface_nodes(name)
        raise InputError(f"part {self.name!r} has no surface or line {name!r}; its surfaces are "
                         f"{sorted(self._surfaces)}, its lines {sorted(self._edges)}")

    def surface_facets(self, name: str) -> np.ndarray:
        if name not in self._surfaces:
            raise InputError(f"part {self.name!r} has no surface {name!r}; its surfaces are {sorted(self._surfaces)}")
        return self._surfaces[name]

    # ------------------------------------------------------------------ discretization
    @cached_property
    def basis(self):
        """skfem basis of the P2 vector field, for its dof numbering and dof queries. It has one quadrature
        point, which keeps it cheap: K, M and the body loads are integrated exactly per element by Part's own
        vectorized formulas (:meth:`_element_maps`), not with this basis."""
        from skfem import Basis, ElementTetP2, ElementVector

        one_point = (np.full((3, 1), 0.25), np.array([1.0 / 6.0]))
        return Basis(self.mesh, ElementVector(ElementTetP2()), quadrature=one_point)

    def _make_basis(self, order):
        from skfem import Basis, ElementTetP2, ElementVector

        return Basis(self.mesh, ElementVector(ElementTetP2()), intorder=order)

    @property
    def n_dofs(self) -> int:
        return self.basis.N

    @cached_property
    def node_dofs(self) -> np.ndarray:
        """(n_nodes, 3) dof indices of every P2 node: vertices first, then edge midpoints."""
        return np.vstack([self.basis.nodal_dofs.T, self.basis.edge_dofs.T])

    @cached_property
    def points(self) -> np.ndarray:
        """(n_nodes, 3) P2 node positions [m] (vertices, then edge midpoints), link frame."""
        p = self.mesh.p.T
        return np.vstack([p, p[self.mesh.edges.T].mean(axis=1)])

    @cached_property
    def cells(self) -> np.ndarray:
        """(n_elem, 10) node indices per element in VTK quadratic-tetra order (= skfem's P2 local order)."""
        return np.hstack([self.mesh.t.T, self.mesh.nvertices + self.mesh.t2e.T])

    @cached_property
    def _dof_node(self) -> np.ndarray:
        out = np.empty(self.n_dofs, dtype=np.int64)
        out[self.node_dofs.ravel()] = np.repeat(np.arange(len(self.node_dofs)), 3)
        return out

    @cached_property
    def stiffness(self) -> sp.csr_matrix:
        """Stiffness matrix (n_dof, n_dof) [N/m] of the isotropic linear-elastic P2 tets.

        2nd-order quadrature (4 points) is exact on straight-sided P2 tets. For a chunk of elements at once,
        with G_d (e, q, f) the physical gradients d N_f / d x_d at the quadrature points scaled by
        sqrt(w_q |det J|) and P_ij = G_i^T G_j (e, 10, 10), the 3 x 3 node blocks are
        K_ij = lam P_ij + mu P_ij^T + mu delta_ij (P_00 + P_11 + P_22), summed into the node-pair pattern."""
        from skfem.quadrature import get_quadrature
        from skfem.refdom import RefTet

        lam, mu = _lame(self.material)
        X, W = get_quadrature(RefTet, 2)
        dN = _p2_reference(X)[1]  # (10 functions, 3 reference directions, n_qp)
        det, _, invJ = self._element_maps
        indptr, indices, pos = self._node_pattern
        nb = len(indices)
        data = np.zeros((nb, 3, 3))
        for a, b in _chunks(len(det), 32768):
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
        n = 3 * (len(indptr) - 1)
        K = sp.bsr_matrix((data, indices, indptr), shape=(n, n)).tocsr()
        K.eliminate_zeros()
        return self._node_major_to_dofs(K)

    @cached_property
    def mass_matrix(self) -> sp.csr_matrix:
        """Consistent mass matrix (n_dof, n_dof) [kg]: per element rho |det J| times the reference P2 mass
        matrix (exact with 4th-order quadrature; 4 points would make it singular), the same for each
        displacement component, i.e. the scalar P2 mass matrix expanded to the 3 components."""
        from skfem.quadrature import get_quadrature
        from skfem.refdom import RefTet

        X, W = get_quadrature(RefTet, 4)
        N = _p2_reference(X)[0]  # (10, n_qp)
        M_ref = (N * W) @ N.T
        det = self._element_maps[0]
        indptr, indices, pos = self._node_pattern
        vals = np.bincount(pos.ravel(), weights=(det[:, None, None] * M_ref).ravel(), minlength=len(indices))
        n = len(indptr) - 1
        Ms = sp.csr_matrix((self.material.density * vals, indices, indptr), shape=(n, n))
        return self._node_major_to_dofs(sp.kron(Ms, sp.identity(3), format="csr"))

    @cached_property
    def _element_maps(self):
        """Affine maps x = x0 + J xi of the straight-sided tets: |det J| (n_elem,), J (n_elem, 3, 3) with
        columns x_k - x_0, and J^-1 (n_elem, 3, 3) [m^3, m, 1/m]."""
        p, t = self.mesh.p, self.mesh.t
        x0 = p[:, t[0]]
        J = np.stack([p[:, t[k]] - x0 for k in (1, 2, 3)], axis=-1).transpose(1, 0, 2)
        return np.abs(np.linalg.det(J)), J, np.linalg.inv(J)

    @cached_property
    def _node_pattern(self):
        """Node-level sparsity of the P2 matrices: CSR ``indptr`` (n_nodes + 1,), sorted ``indices`` of the
        node pairs that share an element, and ``pos`` (n_elem, 10, 10), the index of each element node pair."""
        c = self.cells.astype(np.int64)
        n = len(self.points)
        keys = (c[:, :, None] * n + c[:, None, :]).ravel()
        uniq, inv = np.unique(keys, return_inverse=True)
        indptr = np.r_[0, np.cumsum(np.bincount(uniq // n, minlength=n))]
        return indptr, uniq % n, inv.reshape(len(c), 10, 10)

    def _node_major_to_dofs(self, A: sp.csr_matrix) -> sp.csr_matrix:
        """A matrix over node-major dofs (3 n + c) renumbered to :attr:`node_dofs` (skfem already numbers them
        so; kept general)."""
        nd = self.node_dofs.ravel()
        if np.array_equal(nd, np.arange(len(nd))):
            return A
        order = np.argsort(nd)  # dof d is node-major index order[d]
        return A[order][:, order].tocsr()

    # ------------------------------------------------------------------ geometry helpers
    def mass_properties(self) -> MassProperties:
        return mass_properties(self.mesh.p.T, self.mesh.t.T, self.material.density)

    def surface_nodes(self, name: str) -> np.ndarray:
        dofs = self.basis.get_dofs(self.surface_facets(name)).all()
        return np.unique(self._dof_node[dofs])

    def distance_to_surfaces(self, names) -> np.ndarray:
        """Distance (n_nodes,) [m] of every node to the nearest node of the named surfaces."""
        from scipy.spatial import cKDTree

        nodes = np.unique(np.concatenate([self.surface_nodes(n) for n in names]))
        return cKDTree(self.points[nodes]).query(self.points)[0]

    def free_dofs(self, fixed, components: dict | None = None) -> np.ndarray:
        """Dofs (sorted) not held by displacement supports: every component on the clamped surfaces ``fixed``
        (names), and the components ``components[name]`` (letters of 'xyz', link axes) on the nodes of surface or
        line ``name``."""
        if isinstance(fixed, str):
            fixed = [fixed]
        components = dict(components or {})
        if not fixed and not components:
            raise InputError(f"part {self.name!r}: no support given; clamp at least one surface "
                             f"(surfaces: {sorted(self._surfaces)}) or use support='inertia_relief'")
        held = [self.node_dofs[self.surface_nodes(n)].ravel() for n in fixed]
        for name, comps in components.items():
            if not (isinstance(comps, str) and comps and set(comps) <= set("xyz") and len(set(comps)) == len(comps)):
                raise InputError(f"part {self.name!r}: fixed_components[{name!r}] must be letters of 'xyz' "
                                 f"(e.g. 'z' or 'xy'), got {comps!r}")
            cols = ["xyz".index(c) for c in comps]
            held.append(self.node_dofs[self._named_nodes(name)][:, cols].ravel())
        mask = np.ones(self.n_dofs, bool)
        mask[np.concatenate(held)] = False
        return np.nonzero(mask)[0]

    # ------------------------------------------------------------------ loads
    def body_load_basis(self) -> np.ndarray:
        """(n_dof, 12) load vectors of the body force densities rho e_i and rho x_j e_i (see module doc).

        Exact per element from the reference moments of the P2 functions: int_e N_f = |det J| m0_f and
        int_e x_j N_f = |det J| (x0_j m0_f + sum_r J_jr m1_fr), m0 = int N, m1 = int N xi (4th-order rule)."""
        from skfem.quadrature import get_quadrature
        from skfem.refdom import RefTet

        X, W = get_quadrature(RefTet, 4)
        N = _p2_reference(X)[0]  # (10, n_qp)
        m0, m1 = N @ W, (N * W) @ X.T  # (10,), (10, 3)
        det, J, _ = self._element_maps
        x0 = self.mesh.p[:, self.mesh.t[0]].T  # (n_elem, 3)
        s0 = det[:, None] * m0
        sx = det[:, None, None] * (x0[:, None, :] * m0[None, :, None] + np.einsum("ejr,fr->efj", J, m1))
        n, c = len(self.points), self.cells.ravel()
        v0 = np.bincount(c, weights=s0.ravel(), minlength=n)
        vx = [np.bincount(c, weights=sx[..., j].ravel(), minlength=n) for j in range(3)]
        rho = self.material.density
        out = np.zeros((self.n_dofs, 12))
        for i in range(3):
            out[self.node_dofs[:, i], i] = rho * v0
            for j in range(3):
                out[self.node_dofs[:, i], 3 + 3 * i + j] = rho * vx[j]
        return out

    def _facet_basis(self, name):
        from skfem import ElementTetP2, ElementVector, FacetBasis

        return FacetBasis(self.mesh, ElementVector(ElementTetP2()), facets=self.surface_facets(name), intorder=4)

    def surface_geometry(self, name: str):
        """Area A [m^2], centroid c (3,) and polar tensor J (3, 3) of a surface (same quadrature as loads)."""
        fb = self._facet_basis(name)
        dx = fb.dx  # (n_facets, n_qp) weights
        x = np.asarray(fb.global_coordinates())  # (3, n_facets, n_qp)
        A = dx.sum()
        c = np.einsum("iqp,qp->i", x, dx) / A
        r = x - c[:, None, None]
        rr = np.einsum("iqp,jqp,qp->ij", r, r, dx)
        J = np.trace(rr) * np.eye(3) - rr
        return float(A), c, J

    def wrench_basis(self, surface: str, point) -> np.ndarray:
        """(n_dof, 6) load vectors of unit Fx, Fy, Fz, Mx, My, Mz at ``point`` (3,) [m], spread over ``surface``
        as the linear traction field whose resultant is exactly that wrench."""
        from skfem import LinearForm

        fb = self._facet_basis(surface)
        A, c, J = self.surface_geometry(surface)
        p = np.asarray(point, float)
        size = np.sqrt(A)
        if np.linalg.cond(J / size ** 4) > 1e10:
            raise InputError(f"part {self.name!r}: surface {surface!r} is too thin (a line) to carry a moment; "
                             f"give it some width")
        Jinv = np.linalg.inv(J)
        cols = []
        for k in range(6):
            F = np.eye(3)[k] if k < 3 else np.zeros(3)
            M = np.eye(3)[k - 3] if k >= 3 else np.zeros(3)
            theta = Jinv @ (M + np.cross(p - c, F))

            @LinearForm
            def f(v, w, F=F, theta=theta):
                r = w.x - c[:, None, None]
                t = np.stack([theta[1] * r[2] - theta[2] * r[1], theta[2] * r[0] - theta[0] * r[2],
                              theta[0] * r[1] - theta[1] * r[0]]) + (F / A)[:, None, None]
                return t[0] * v[0] + t[1] * v[1] + t[2] * v[2]
            cols.append(f.assemble(fb))
        return np.column_stack(cols)

    def pressure_load(self, surface: str, p: float) -> np.ndarray:
        """(n_dof,) load vector of pressure p [Pa] on ``surface`` (positive pushes into the surface)."""
        from skfem import LinearForm

        @LinearForm
        def f(v, w):
            return -p * (w.n[0] * v[0] + w.n[1] * v[1] + w.n[2] * v[2])

        return f.assemble(self._facet_basis(surface))

    def patch_force_basis(self, surface: str) -> np.ndarray:
        """(n_dof, 3) unit forces on a named patch (zero moment about its centroid)."""
        return self.wrench_basis(surface, self.surface_geometry(surface)[1])[:, :3]

    def resultant(self, f: np.ndarray) -> np.ndarray:
        """Force and moment about the origin (6, ...) of load vectors f (n_dof, ...)."""
        fn = f[self.node_dofs]  # (n_nodes, 3) or (n_nodes, 3, k)
        if fn.ndim == 2:
            return np.concatenate([fn.sum(axis=0), np.cross(self.points, fn).sum(axis=0)])
        F = fn.sum(axis=0)
        M = np.cross(self.points[None], np.moveaxis(fn, 2, 0)).sum(axis=1).T
        return np.concatenate([F, M])

    # ------------------------------------------------------------------ solving
    def solve_unit_loads(self, F: np.ndarray, fixed, support: str = "clamp",
                         fixed_components: dict | None = None) -> np.ndarray:
        """Static solutions U (n_dof, k) of load vectors F (n_dof, k) (or (n_dof,)), one factorization.

        ``support`` 'clamp': the ``fixed`` surfaces are held; 'averaged': the weighted mean translation and
        rotation of each ``fixed`` surface are held and the surface deforms freely (see :meth:`averaged_motion`);
        ``fixed_components`` (name -> 'x', 'xy', ...) holds displacement components on surfaces or lines."""
        from .solvers import factorize

        if support not in ("clamp", "averaged"):
            raise InputError(f"support must be 'clamp' or 'averaged' here, got {support!r}")
        fixed = [fixed] if isinstance(fixed, str) else list(fixed)
        F = np.asarray(F, float)
        if support == "clamp":
            free = self.free_dofs(fixed, fixed_components)
            U = np.zeros_like(F)
            U[free] = factorize(self.stiffness[free][:, free]).solve(F[free])
            return U
        if not fixed:
            raise InputError(f"part {self.name!r}: support='averaged' needs the surfaces whose mean motion is "
                             f"held (surfaces: {sorted(self._surfaces)})")
        free = self.free_dofs([], fixed_components) if fixed_components else np.arange(self.n_dofs)
        cols = F.reshape(len(F), -1)
        U = np.zeros_like(cols)
        U[free] = self._solve_averaged(cols[free], fixed, free)
        return U.reshape(F.shape)

    def averaged_motion(self, surface: str) -> np.ndarray:
        """Operator C (n_dof, 6) with C^T u = (d, theta): the area-weighted mean translation d of ``surface`` at
        its centroid and its least-squares small rotation theta = J^-1 int (x - c) x u dA (link axes).

        Its columns are the load vectors of unit forces and moments at the centroid spread by
        :meth:`wrench_basis`, so holding C^T u = 0 (the 'averaged' support) makes the support reaction exactly
        that linear traction field: an RBE3 / ANSYS deformable remote displacement."""
        return self.wrench_basis(surface, self.surface_geometry(surface)[1])

    def _solve_averaged(self, F: np.ndarray, surfaces: list, free: np.ndarray) -> np.ndarray:
        """Solve K u + C lam = F, C^T u = 0 on the ``free`` dofs (C: averaged_motion of each surface) with one
        SPD factorization: springs of stiffness k on the 9 dofs of three far-apart vertices of the first surface
        remove the rigid motions (A = K + k E E^T), and their forces mu = k E^T u are solved for exactly with
        the multipliers lam in a small dense system."""
        from .solvers import factorize

        nf = len(free)
        pos = -np.ones(self.n_dofs, dtype=np.int64)
        pos[free] = np.arange(nf)
        C = np.hstack([self.averaged_motion(n) for n in surfaces])[free]
        K = self.stiffness[free][:, free]
        nodes = self.surface_nodes(surfaces[0])
        nodes = nodes[nodes < self.mesh.nvertices]
        x = self.points[nodes]
        i1 = int(np.argmax(np.linalg.norm(x - x[0], axis=1)))
        d = (x[i1] - x[0]) / np.linalg.norm(x[i1] - x[0])
        off = x - x[0]
        i2 = int(np.argmax(np.linalg.norm(off - np.outer(off @ d, d), axis=1)))
        e = pos[self.node_dofs[nodes[[0, i1, i2]]].ravel()]
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

    def vertex_stress(self, U: np.ndarray) -> np.ndarray:
        """Unaveraged stresses (k, 6, 4, n_elem) [xx, yy, zz, yz, xz, xy] at the 4 vertices of every element for
        displacement columns U (n_dof, k) (or (n_dof,)) [Pa]. The strain of a straight-sided P2 tet is linear,
        so these give its stress everywhere: an edge's mid node has the mean of its two vertices' values."""
        U = np.asarray(U, float)
        if U.ndim == 1:
            U = U[:, None]
        k = U.shape[1]
        lam, mu = _lame(self.material)
        invJ = self._element_maps[2]  # (e, r, d): d xi_r / d x_d
        dN = _p2_reference(_p2_vertices())[1]  # (10 f, 3 r, 4 p)
        Gq = dN.transpose(2, 1, 0).reshape(12, 10)  # rows (vertex p, reference direction r)
        Un = np.ascontiguousarray(U[self.node_dofs].reshape(-1, 3 * k))  # (n_nodes, (c, k))
        cells_T = self.cells.T
        n_e = cells_T.shape[1]
        out = np.empty((k, 6, 4, n_e))
        for a, b in _chunks(n_e, max(256, int(1.5e5 // k))):  # ~40 MB per work array
            ue = Un[cells_T[:, a:b]]  # (10 f, e, (c, k))
            H = (Gq @ ue.reshape(10, -1)).reshape(4, 3, b - a, 3, k)  # d u_c / d xi_r at vertex p
            iJ = invJ[a:b, :, :, None, None]
            g = [H[:, 0] * iJ[:, 0, d] + H[:, 1] * iJ[:, 1, d] + H[:, 2] * iJ[:, 2, d] for d in range(3)]
            # g[d][p, e, c, k] = d u_c / d x_d
            exx, eyy, ezz = g[0][:, :, 0], g[1][:, :, 1], g[2][:, :, 2]
            ltr = lam * (exx + eyy + ezz)
            comps = (2 * mu * exx + ltr, 2 * mu * eyy + ltr, 2 * mu * ezz + ltr, mu * (g[2][:, :, 1] + g[1][:, :, 2]),
                     mu * (g[2][:, :, 0] + g[0][:, :, 2]), mu * (g[1][:, :, 0] + g[0][:, :, 1]))
            for j, s in enumerate(comps):  # s (p, e, k)
                out[:, j, :, a:b] = s.transpose(2, 0, 1)
        return out

    def element_node_stress(self, U: np.ndarray) -> np.ndarray:
        """Unaveraged stresses (k, n_elem, 10, 6) at the element nodes of displacement columns U (n_dof, k):
        the vertex values of :meth:`vertex_stress`, and at each edge's mid node the mean of its two vertices'
        (exact: the strain is linear in the element)."""
        v = self.vertex_stress(U).transpose(0, 3, 2, 1)  # (k, n_elem, 4, 6)
        i, j = _p2_edges().T
        return np.concatenate([v, 0.5 * (v[:, :, i] + v[:, :, j])], axis=2)

    def nodal_average(self, values: np.ndarray) -> np.ndarray:
        """Average over the elements sharing each node of element-node values (n_elem, 10, ...)."""
        n = len(self.points)
        flat = self.cells.ravel()
        vals = values.reshape((-1,) + values.shape[2:])
        out = np.zeros((n,) + values.shape[2:])
        np.add.at(out, flat, vals)
        cnt = np.bincount(flat, minlength=n).reshape((n,) + (1,) * (values.ndim - 2))
        return out / cnt

    def solve_static(self, fixed=(), wrenches=None, pressures=None, gravity=None, angular_velocity=None,
                     angular_acceleration=None, acceleration=None, patch_forces=None,
                     support: str = "clamp", fixed_components: dict | None = None) -> StaticSolution:
        """Static solution under the given loads. ``wrenches``: surface -> (force, moment, point);
        ``pressures``: surface -> p [Pa]; ``patch_forces``: surface -> force (3,); rigid motion of the frame:
        gravity, acceleration a_O, angular_velocity, angular_acceleration (link axes).

        ``support``: 'clamp' (the ``fixed`` surfaces held), 'averaged' (the weighted mean translation and
        rotation of each ``fixed`` surface held, the surface free to deform: no singular clamped edge; the
        reaction is the linear traction field of :meth:`wrench_basis`) or 'inertia_relief' (free part, loads
        balanced by rigid-body inertia). ``fixed_components``: surface or line name -> held components, e.g.
        ``{"symmetry": "y", "rim": "xy"}`` (rollers), with 'clamp' or 'averaged'."""
        f = np.zeros(self.n_dofs)
        if any(x is not None for x in (gravity, angular_velocity, angular_acceleration, acceleration)):
            z = np.zeros(3)
            coeff = body_coefficients(gravity if gravity is not None else z, acceleration if acceleration is not None
                                      else z, angular_velocity if angular_velocity is not None else z,
                                      angular_acceleration if angular_acceleration is not None else z)[0]
            f += self.body_load_basis() @ coeff
        for name, (F, M, p) in (wrenches or {}).items():
            f += self.wrench_basis(name, p) @ np.r_[np.asarray(F, float), np.asarray(M, float)]
        for name, p in (pressures or {}).items():
            f += self.pressure_load(name, p)
        for name, F in (patch_forces or {}).items():
            f += self.patch_force_basis(name) @ np.asarray(F, float)
        if support in ("clamp", "averaged"):
            u = self.solve_unit_loads(f[:, None], [fixed] if isinstance(fixed, str) else list(fixed), support,
                                      fixed_components)[:, 0]
        elif support == "inertia_relief":
            if fixed_components:
                raise InputError("support='inertia_relief' is a free part: it takes no fixed_components")
            u = self._inertia_relief(f)
        else:
            raise InputError(f"support must be 'clamp', 'averaged' or 'inertia_relief', got {support!r}")
        # what the supports exert: K u = f + r
        reaction = self.resultant(self.stiffness @ u - f) if support != "inertia_relief" else np.zeros(6)
        S = self.element_node_stress(u)[0]
        disp = u[self.node_dofs]
        return StaticSolution(points=self.points, displacement=disp, von_mises=self.nodal_average(von_mises(S)),
                              max_von_mises=float(von_mises(S).max()), element_node_stress=S,
                              reaction=reaction, part=self)

    def _inertia_relief(self, f: np.ndarray) -> np.ndarray:
        """Free-free static solution: the rigid-body inertia of the part balances the resultant of f; the six
        rigid modes are removed (M-orthogonal) and pinned by Lagrange multipliers."""
        x = self.points
        R = np.zeros((self.n_dofs, 6))
        nd = self.node_dofs
        for k in range(3):
            R[nd[:, k], k] = 1.0
        for k, (a, b) in enumerate(((1, 2), (2, 0), (0, 1))):  # rotations about x, y, z
            R[nd[:, a], 3 + k] = -x[:, b]
            R[nd[:, b], 3 + k] = x[:, a]
        M = self.mass_matrix
        MR = M @ R
        # remove the rigid-body part of the load: f_bal = f - M R (R^T M R)^-1 R^T f
        f_bal = f - MR @ np.linalg.solve(R.T @ MR, R.T @ f)
        A = sp.bmat([[self.stiffness, sp.csr_matrix(MR)], [sp.csr_matrix(MR.T), None]]).tocsc()
        import scipy.sparse.linalg as spla

        sol = spla.spsolve(A, np.r_[f_bal, np.zeros(6)])
        return sol[: self.n_dofs]


def _lame(mat: Material):
    lam = mat.E * mat.nu / ((1 + mat.nu) * (1 - 2 * mat.nu))
    mu = mat.E / (2 * (1 + mat.nu))
    return lam, mu


def _p2_reference(X: np.ndarray):
    """Values (10, n) and reference gradients (10, 3, n) of skfem's P2 tet functions (its local order) at
    reference points X (3, n)."""
    from skfem import ElementTetP2

    e = ElementTetP2()
    vals, grads = zip(*(e.lbasis(X, i) for i in range(10)))
    return np.array(vals), np.array(grads)


@lru_cache(maxsize=None)
def _p2_vertices() -> np.ndarray:
    """Reference coordinates (3, 4) of the tet vertices (local nodes 0-3)."""
    from skfem import ElementTetP2

    return np.ascontiguousarray(ElementTetP2().doflocs[:4].T)


@lru_cache(maxsize=None)
def _p2_edges() -> np.ndarray:
    """(6, 2) vertex pairs of local mid nodes 4-9 of the P2 tet, from skfem's node positions."""
    from skfem import ElementTetP2

    x = ElementTetP2().doflocs
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    return np.array([next(pr for pr in pairs if np.allclose(x[pr[0]] + x[pr[1]], 2 * x[m])) for m in range(4, 10)])


def _find_rows(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index in ``table`` (n, k) of each row of ``rows`` (m, k) as vertex sets (order within a row ignored),
    -1 where a row is not in the table."""
    table, rows = np.sort(np.asarray(table), axis=1), np.sort(np.asarray(rows), axis=1)
    _, inv = np.unique(np.vstack([table, rows]), axis=0, return_inverse=True)
    inv = inv.ravel()
    pos = np.full(inv.max() + 1, -1, dtype=np.int64)
    pos[inv[:len(table)]] = np.arange(len(table))
    return pos[inv[len(table):]]


def _chunks(n: int, size: int):
    """(start, stop) of consecutive ranges of at most ``size`` covering range(n)."""
    size = max(1, int(size))
    return [(a, min(n, a + size)) for a in range(0, n, size)]
