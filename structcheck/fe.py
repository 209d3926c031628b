"""A link as a linear-elastic finite-element body (scikit-fem, quadratic tetrahedra) in its body frame.

Loads are built as unit-load matrices (n_dof, k) so that a load history is ``F @ coeff[t]``:
- body force density rho (A0 + B x): 12 columns (A0 = e_i, then B_ij: b_i = rho x_j); the rigid-motion body
  force rho (g - a_O - alpha x x - omega x (omega x x)) has A0 = g - a_O and B = -[alpha]x - [omega]x[omega]x;
- a wrench (F, M) at a reference point p spread over a named surface as the linear traction
  t(x) = F/A + theta x (x - c), theta = J^-1 (M + (p - c) x F) (DESIGN.md), resultant exact: 6 columns;
- pressure: traction -p n (positive pushes into the surface).
Stiffness uses 2nd-order quadrature (exact on straight-sided P2 tets), mass and loads 4th order.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .errors import InputError, MeshError
from .materials import Material, get_material
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
    """A meshed link: quadratic tets on a linear-tet mesh, a material and named surfaces (boundary facets)."""

    def __init__(self, mesh, material, surfaces: dict | None = None, name: str = "part"):
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
        lookup = {tuple(f): k for k, f in enumerate(np.sort(mesh.facets.T, axis=1).tolist())}
        named = {}
        for n, tri in tm.surfaces.items():
            idx = [lookup.get(tuple(t)) for t in np.sort(tri, axis=1).tolist()]
            missing = sum(i is None for i in idx)
            if missing:
                raise MeshError(f"part {name!r}: {missing} triangles of surface {n!r} are not faces of the tets")
            named[n] = np.unique(np.array(idx, dtype=np.int64))
        part = cls(mesh, material, named, name)
        return part.with_surfaces({**named, **{n: part.select_facets(sel) for n, sel in (surfaces or {}).items()}})

    @classmethod
    def from_skfem(cls, mesh, material, surfaces: dict | None = None, name="part") -> "Part":
        check_mesh(mesh.p.T, mesh.t.T, name)
        return cls(mesh, material, surfaces, name)

    def with_surfaces(self, surfaces: dict) -> "Part":
        """A new Part with these named surfaces (name -> facet indices)."""
        p = Part(self.mesh, self.material, surfaces, self.name)
        return p

    def select_facets(self, selector) -> np.ndarray:
        """Boundary facets whose midpoints satisfy ``selector(x (3, n)) -> bool (n,)``."""
        bnd = self.mesh.boundary_facets()
        mid = self.mesh.p[:, self.mesh.facets[:, bnd]].mean(axis=1)
        return bnd[np.asarray(selector(mid), bool)]

    @property
    def surfaces(self) -> tuple:
        return tuple(self._surfaces)

    def surface_facets(self, name: str) -> np.ndarray:
        if name not in self._surfaces:
            raise InputError(f"part {self.name!r} has no surface {name!r}; its surfaces are {sorted(self._surfaces)}")
        return self._surfaces[name]

    # ------------------------------------------------------------------ discretization
    @cached_property
    def basis(self):
        from skfem import Basis, ElementTetP2, ElementVector

        return Basis(self.mesh, ElementVector(ElementTetP2()), intorder=2)

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
        from skfem import asm
        from skfem.models.elasticity import lame_parameters, linear_elasticity

        return asm(linear_elasticity(*lame_parameters(self.material.E, self.material.nu)), self.basis).tocsr()

    @cached_property
    def mass_matrix(self) -> sp.csr_matrix:
        from skfem import BilinearForm, asm
        from skfem.helpers import dot

        rho = self.material.density

        @BilinearForm
        def mass(u, v, _):
            return rho * dot(u, v)

        return asm(mass, self._make_basis(4)).tocsr()

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

    def free_dofs(self, fixed) -> np.ndarray:
        """Dofs not on the clamped surfaces ``fixed`` (names)."""
        if isinstance(fixed, str):
            fixed = [fixed]
        if not fixed:
            raise InputError(f"part {self.name!r}: no support given; clamp at least one surface "
                             f"(surfaces: {sorted(self._surfaces)}) or use support='inertia_relief'")
        facets = np.concatenate([self.surface_facets(n) for n in fixed])
        return self.basis.complement_dofs(self.basis.get_dofs(facets))

    # ------------------------------------------------------------------ loads
    def body_load_basis(self) -> np.ndarray:
        """(n_dof, 12) load vectors of the body force densities rho e_i and rho x_j e_i (see module doc)."""
        from skfem import LinearForm

        rho = self.material.density
        basis = self._make_basis(4)
        cols = []
        for i in range(3):
            @LinearForm
            def f(v, w, i=i):
                return rho * v[i]
            cols.append(f.assemble(basis))
        for i in range(3):
            for j in range(3):
                @LinearForm
                def f(v, w, i=i, j=j):
                    return rho * w.x[j] * v[i]
                cols.append(f.assemble(basis))
        return np.column_stack(cols)

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
    def solve_unit_loads(self, F: np.ndarray, fixed) -> np.ndarray:
        """Clamped static solutions U (n_dof, k) of load vectors F (n_dof, k), one factorization."""
        from .solvers import factorize

        free = self.free_dofs(fixed)
        U = np.zeros_like(F, dtype=float)
        U[free] = factorize(self.stiffness[free][:, free]).solve(F[free])
        return U

    @cached_property
    def _node_gradient_basis(self):
        """Scalar P2 basis whose 'quadrature points' are the 10 element nodes (strain is linear per element)."""
        from skfem import Basis, ElementTetP2

        e = ElementTetP2()
        X = e.doflocs.T  # (3, 10) reference node coordinates, in the local dof order
        return Basis(self.mesh, e, quadrature=(X, np.ones(X.shape[1])))

    def element_node_stress(self, U: np.ndarray) -> np.ndarray:
        """Unaveraged stresses (k, n_elem, 10, 6) at the element nodes of displacement columns U (n_dof, k)."""
        U = np.asarray(U, float)
        if U.ndim == 1:
            U = U[:, None]
        sb = self._node_gradient_basis
        lam, mu = _lame(self.material)
        # gradients of the scalar basis functions at the nodes: (10 funcs, 3, n_elem, 10 pts)
        G = np.stack([sb.basis[i][0].grad for i in range(10)])
        edofs = self.node_dofs[self.cells]  # (n_elem, 10, 3) vector dofs per element node
        ue = U[edofs]  # (n_elem, 10 funcs, 3 comps, k)
        grad = np.einsum("fdep,efck->kepcd", G, ue)  # du_c/dx_d at element node p
        eps = 0.5 * (grad + np.swapaxes(grad, -1, -2))
        tr = np.trace(eps, axis1=-2, axis2=-1)
        s = 2 * mu * eps
        s[..., 0, 0] += lam * tr
        s[..., 1, 1] += lam * tr
        s[..., 2, 2] += lam * tr
        return np.stack([s[..., 0, 0], s[..., 1, 1], s[..., 2, 2], s[..., 1, 2], s[..., 0, 2], s[..., 0, 1]], -1)

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
                     support: str = "clamp") -> StaticSolution:
        """Static solution under the given loads. ``wrenches``: surface -> (force, moment, point);
        ``pressures``: surface -> p [Pa]; ``patch_forces``: surface -> force (3,); rigid motion of the frame:
        gravity, acceleration a_O, angular_velocity, angular_acceleration (link axes). ``support``: 'clamp'
        (the ``fixed`` surfaces) or 'inertia_relief' (free part, loads balanced by rigid-body inertia)."""
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
        if support == "clamp":
            u = self.solve_unit_loads(f[:, None], list(fixed))[:, 0]
        elif support == "inertia_relief":
            u = self._inertia_relief(f)
        else:
            raise InputError(f"support must be 'clamp' or 'inertia_relief', got {support!r}")
        # what the supports exert: K u = f + r
        reaction = self.resultant(self.stiffness @ u - f) if support == "clamp" else np.zeros(6)
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
