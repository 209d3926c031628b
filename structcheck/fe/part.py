"""A link as a linear-elastic finite-element body (scikit-fem, quadratic tetrahedra) in its body frame.

:class:`Part` holds the mesh, the material and the named surfaces and lines; its methods are the friendly entry
points to the free functions that do the work: :mod:`.assembly` (stiffness, mass, body loads), :mod:`.interface`
(surface geometry, wrench, pressure and patch loads, resultants), :mod:`.supports` (free dofs, clamp, averaged
and component supports, inertia relief) and :mod:`.recovery` (element-node stresses, nodal averages).

Loads are built as unit-load matrices (n_dof, k) so that a load history is ``F @ coeff[t]``:
- body force density rho (A0 + B x): 12 columns (A0 = e_i, then B_ij: b_i = rho x_j); the rigid-motion body
  force rho (g - a_O - alpha x x - omega x (omega x x)) has A0 = g - a_O and B = -[alpha]x - [omega]x[omega]x;
- a wrench (F, M) at a reference point p spread over a named surface as the linear traction
  t(x) = F/A + theta x (x - c), theta = J^-1 (M + (p - c) x F), resultant exact: 6 columns;
- pressure: traction -p n (positive pushes into the surface).
Element geometry (:attr:`Part.geometry_order`): 1, straight-sided P2 tets (the mid-side nodes at the edge
midpoints: a linear-tet mesh, or any mesh with ``geometry_order=1``); 2, curved isoparametric P2 tets whose
mid-side nodes are those of a ``tetra10`` mesh (scikit-fem's ``MeshTet2``), so bores and fillets stay round.
Straight tets: stiffness 2nd-order quadrature (exact), mass and loads 4th order (exact). Curved tets: a Jacobian
per quadrature point; stiffness 5th order, mass and body loads 7th order (exact for the curved geometry), surface
loads on the curved 6-node triangles (:class:`.interface.CurvedFacets`), stresses at all 10 element nodes.

Supports: 'clamp' (every displacement component of the named surfaces held), 'averaged' (the weighted mean
translation and rotation of each named surface held while the surface deforms: ANSYS's deformable remote
displacement, Nastran's RBE3), 'inertia_relief' (free part), and component supports on named surfaces or lines
(``fixed_components``: rollers, symmetry planes).
"""
from __future__ import annotations


import contextvars
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from ..errors import InputError, MeshError
from ..model.materials import Material, get_material
from . import assembly, interface, recovery, supports
from .entities import find_columns
from .mesh import MassProperties, TetMesh, check_curved, check_mesh, mass_properties, read_mesh
from .stress import von_mises


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
    """A meshed link: quadratic tets, straight-sided on a ``skfem.MeshTet`` or curved on a ``skfem.MeshTet2``
    (:attr:`geometry_order` 1 or 2), a material, named surfaces (boundary facets) and named lines (mesh edges,
    for component supports such as LE10's z = 0 line)."""

    def __init__(self, mesh, material, surfaces: dict | None = None, name: str = "part", edges: dict | None = None):
        from skfem import MeshTet, MeshTet2

        if not isinstance(mesh, MeshTet):
            raise TypeError("Part needs a skfem.MeshTet or MeshTet2; use Part.from_mesh(path) to read a file")
        self.mesh = mesh
        #: element geometry: 1 straight-sided P2 tets, 2 curved (isoparametric) P2 tets
        self.geometry_order = 2 if isinstance(mesh, MeshTet2) else 1
        self.material: Material = get_material(material, f"part {name!r}")
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
    def from_mesh(cls, path, material=None, units: str = "m", surfaces: dict | None = None,
                  geometry_order: int | None = None) -> "Part":
        """Read a mesh file (gmsh .msh with physical surface groups, or any meshio format) of a part in
        ``material`` (a name of ``MATERIALS`` or a Material; required: InputError listing the names without it).

        ``surfaces`` adds geometric selections: name -> callable(x (3, n) facet midpoints) -> bool mask.
        ``geometry_order``: None (curved elements if the file has mid-side nodes, ``tetra10``), 1 (straight
        edges: mid-side nodes of the file ignored) or 2 (curved; the file must have mid-side nodes). Within
        :func:`deferred_mesh_reading` the file is read on first use instead (an :class:`UnreadPart`)."""
        if not isinstance(path, str) and not hasattr(path, "__fspath__"):  # read_mesh's message for a non-path
            read_mesh(path, units)
        material = get_material(material, f"part {Path(path).stem!r}")  # before a deferred read: said at once
        if _DEFERRED.get():
            return UnreadPart(lambda: cls.from_mesh(path, material, units, surfaces, geometry_order), Path(path))
        tm = read_mesh(path, units)
        return cls.from_tetmesh(tm, material, surfaces, name=Path(path).stem, geometry_order=geometry_order)

    @classmethod
    def from_tetmesh(cls, tm: TetMesh, material, surfaces=None, name="part",
                     geometry_order: int | None = None) -> "Part":
        """A Part of a read mesh: its physical surfaces and lines become named surfaces and lines, and
        ``surfaces`` adds geometric selections (name -> callable(x (3, n) facet midpoints) -> bool mask);
        ``geometry_order`` as in :meth:`from_mesh`."""
        from skfem import MeshTet

        if geometry_order not in (None, 1, 2):
            raise InputError(f"part {name!r}: geometry_order must be None, 1 or 2, got {geometry_order!r}")
        if geometry_order == 2 and tm.midside is None:
            raise InputError(f"part {name!r}: geometry_order=2 needs mid-side nodes (a tetra10 mesh, e.g. gmsh "
                             f"with PartBuilder(order=2)); this mesh has linear tets")
        mesh = MeshTet(np.ascontiguousarray(tm.points.T), np.ascontiguousarray(tm.tets.T))
        if tm.midside is not None and geometry_order != 1:
            mesh = _curved_mesh(mesh, tm.midside)
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
        """A Part of a checked skfem.MeshTet or MeshTet2 (nodes [m], link frame); ``surfaces``: name -> facet
        indices."""
        part = cls(mesh, material, surfaces, name)
        check_mesh(mesh.p.T, mesh.t.T, name, curved=part.geometry_order == 2)
        if part.geometry_order == 2:
            check_curved(part.points, mesh.t.T, part.points[part.cells[:, 4:]], name)
        return part

    def with_straight_edges(self) -> "Part":
        """The same Part with straight-sided elements on the same vertices (mid-side nodes at the edge midpoints):
        itself if it is straight already."""
        if self.geometry_order == 1:
            return self
        from skfem import MeshTet

        mesh = MeshTet(np.ascontiguousarray(self.mesh.p[:, :self.mesh.nvertices]), self.mesh.t)
        return Part(mesh, self.material, self._surfaces, self.name, edges=self._edges)

    def with_surfaces(self, surfaces: dict) -> "Part":
        """A new Part with these named surfaces (name -> facet indices); named lines are kept."""
        return Part(self.mesh, self.material, surfaces, self.name, edges=self._edges)

    def with_edges(self, edges: dict) -> "Part":
        """A new Part with these named lines (name -> mesh edge indices, e.g. from :meth:`select_edges`)."""
        return Part(self.mesh, self.material, self._surfaces, self.name, edges=edges)

    def select_edges(self, selector) -> np.ndarray:
        """Boundary edges whose midpoints satisfy ``selector(x (3, n)) -> bool (n,)``."""
        return _select(self.mesh.p, self.mesh.edges, self.mesh.boundary_edges(), selector)

    def select_facets(self, selector) -> np.ndarray:
        """Boundary facets whose midpoints satisfy ``selector(x (3, n)) -> bool (n,)``."""
        return _select(self.mesh.p, self.mesh.facets, self.mesh.boundary_facets(), selector)

    @property
    def surfaces(self) -> tuple:
        """Names of the named surfaces."""
        return tuple(self._surfaces)

    @property
    def edges(self) -> tuple:
        """Names of the named lines."""
        return tuple(self._edges)

    def named_nodes(self, name: str) -> np.ndarray:
        """P2 nodes of a named surface or line."""
        if name in self._edges:
            e = self._edges[name]
            return np.unique(np.r_[self.mesh.edges[:, e].ravel(), self.mesh.nvertices + e])
        if name in self._surfaces:
            return self.surface_nodes(name)
        raise InputError(f"part {self.name!r} has no surface or line {name!r}; its surfaces are "
                         f"{sorted(self._surfaces)}, its lines {sorted(self._edges)}")

    def surface_facets(self, name: str) -> np.ndarray:
        """Mesh facet indices of a named surface."""
        if name not in self._surfaces:
            raise InputError(f"part {self.name!r} has no surface {name!r}; its surfaces are {sorted(self._surfaces)}")
        return self._surfaces[name]

    # ------------------------------------------------------------------ discretization
    @cached_property
    def basis(self):
        """skfem basis of the P2 vector field, for its dof numbering and dof queries. It has one quadrature
        point, which keeps it cheap: K, M and the body loads are integrated exactly per element by the
        vectorized kernels of :mod:`.assembly`, not with this basis."""
        from skfem import Basis, ElementTetP2, ElementVector

        one_point = (np.full((3, 1), 0.25), np.array([1.0 / 6.0]))
        return Basis(self.mesh, ElementVector(ElementTetP2()), quadrature=one_point)

    @property
    def n_dofs(self) -> int:
        """Number of displacement dofs (3 per P2 node)."""
        return self.basis.N

    @cached_property
    def node_dofs(self) -> np.ndarray:
        """(n_nodes, 3) dof indices of every P2 node: vertices first, then edge midpoints."""
        return np.vstack([self.basis.nodal_dofs.T, self.basis.edge_dofs.T])

    @cached_property
    def points(self) -> np.ndarray:
        """(n_nodes, 3) P2 node positions [m] (vertices, then the mid-side node of every edge: its midpoint on
        straight-sided elements), link frame."""
        if self.geometry_order == 2:
            return np.ascontiguousarray(self.mesh.doflocs.T)
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
    def _element_maps(self):
        """:class:`.assembly.ElementMaps` of straight tets, :class:`.assembly.CurvedElements` of curved ones."""
        if self.geometry_order == 2:
            return assembly.CurvedElements(self.points[self.cells])
        return assembly.element_maps(self.mesh.p, self.mesh.t)

    @cached_property
    def _node_maps(self) -> recovery.NodeMaps:
        """Curved parts: which elements are straight and the inverse Jacobians at the stress points
        (:func:`.recovery.node_maps`), formed once for every stress recovery."""
        return recovery.node_maps(self._element_maps.nodes)

    @cached_property
    def _node_pattern(self) -> assembly.NodePattern:
        return assembly.node_pattern(self.cells, len(self.points))

    @cached_property
    def stiffness(self) -> sp.csr_matrix:
        """Stiffness matrix (n_dof, n_dof) [N/m] (:func:`.assembly.stiffness_matrix`)."""
        return assembly.stiffness_matrix(self._element_maps, self._node_pattern, self.node_dofs, self.material)

    def release_matrices(self) -> None:
        """Drop the assembled K and M and their sparsity pattern (assembled again when next asked for): a run
        releases them once its links are reduced (on paper 004's meshes they hold about 0.6 GB)."""
        for name in ("stiffness", "mass_matrix", "_node_pattern"):
            self.__dict__.pop(name, None)

    @cached_property
    def mass_matrix(self) -> sp.csr_matrix:
        """Consistent mass matrix (n_dof, n_dof) [kg] (:func:`.assembly.mass_matrix`)."""
        return assembly.mass_matrix(self._element_maps, self._node_pattern, self.node_dofs, self.material.density)

    # ------------------------------------------------------------------ geometry helpers
    def mass_properties(self) -> MassProperties:
        """Exact mass, centre of mass and inertia of the mesh with the material's density (link frame): of the
        curved elements' geometry too (:func:`.mesh.mass_properties`)."""
        if self.geometry_order == 2:
            nv = self.mesh.nvertices
            return mass_properties(self.points[:nv], self.mesh.t.T, self.material.density,
                                   midside=self.points[self.cells[:, 4:]])
        return mass_properties(self.mesh.p.T, self.mesh.t.T, self.material.density)

    def surface_nodes(self, name: str) -> np.ndarray:
        """P2 nodes (sorted) of a named surface."""
        dofs = self.basis.get_dofs(self.surface_facets(name)).all()
        return np.unique(self._dof_node[dofs])

    def distance_to_surfaces(self, names) -> np.ndarray:
        """Distance (n_nodes,) [m] of every node to the nearest node of the named surfaces."""
        from scipy.spatial import cKDTree

        nodes = np.unique(np.concatenate([self.surface_nodes(n) for n in names]))
        return cKDTree(self.points[nodes]).query(self.points)[0]

    def free_dofs(self, fixed, components: dict | None = None) -> np.ndarray:
        """Dofs (sorted) not held by the clamped surfaces ``fixed`` and the component supports ``components``
        (name -> letters of 'xyz'): :func:`.supports.free_dofs`."""
        return supports.free_dofs(self, fixed, components)

    # ------------------------------------------------------------------ loads
    def body_load_basis(self) -> np.ndarray:
        """(n_dof, 12) load vectors of the body force densities rho e_i and rho x_j e_i (see module doc):
        :func:`.assembly.body_load_basis`."""
        return self._body_load_basis.copy()

    @cached_property
    def _body_load_basis(self) -> np.ndarray:
        # formed once: the per-link loads and the superelement's residual vectors both take it (7th-order quadrature
        # on curved parts, a second on a 100k-dof link)
        x0 = self.mesh.p[:, self.mesh.t[0]].T  # (n_elem, 3)
        return assembly.body_load_basis(self._element_maps, x0, self.cells, self.node_dofs, self.material.density)

    def surface_geometry(self, name: str):
        """Area A [m^2], centroid c (3,) [m] and polar tensor J (3, 3) [m^4] of a surface."""
        return interface.surface_geometry(self, name)

    def wrench_basis(self, surface: str, point) -> np.ndarray:
        """(n_dof, 6) load vectors of unit Fx, Fy, Fz, Mx, My, Mz at ``point`` (3,) [m], spread over ``surface``
        as the linear traction field whose resultant is exactly that wrench."""
        return interface.wrench_basis(self, surface, point)

    def pressure_load(self, surface: str, p: float) -> np.ndarray:
        """(n_dof,) load vector of pressure p [Pa] on ``surface`` (positive pushes into the surface)."""
        return interface.pressure_load(self, surface, p)

    def patch_force_basis(self, surface: str) -> np.ndarray:
        """(n_dof, 3) unit forces on a named patch (zero moment about its centroid)."""
        return interface.patch_force_basis(self, surface)

    def resultant(self, f: np.ndarray) -> np.ndarray:
        """Force and moment about the origin, (6,) of a load vector f (n_dof,) or (6, k) of f (n_dof, k)."""
        return interface.resultant(self, f)

    # ------------------------------------------------------------------ solving
    def solve_unit_loads(self, F: np.ndarray, fixed, support: str = "clamp",
                         fixed_components: dict | None = None) -> np.ndarray:
        """Static solutions U (n_dof, k) of load vectors F (n_dof, k) (or (n_dof,)), one factorization, under
        the 'clamp' or 'averaged' support of the ``fixed`` surfaces: :func:`.supports.solve_unit_loads`."""
        return supports.solve_unit_loads(self, F, fixed, support, fixed_components)

    def averaged_motion(self, surface: str) -> np.ndarray:
        """Operator C (n_dof, 6) with C^T u = the mean translation and rotation of ``surface``:
        :func:`.supports.averaged_motion`."""
        return supports.averaged_motion(self, surface)

    def vertex_stress(self, U: np.ndarray) -> np.ndarray:
        """Unaveraged stresses (k, 6, 4, n_elem) [xx, yy, zz, yz, xz, xy] at the 4 vertices of every element for
        displacement columns U (n_dof, k) (or (n_dof,)) [Pa]. The strain of a straight-sided P2 tet is linear,
        so these give its stress everywhere: an edge's mid node has the mean of its two vertices' values. On
        curved elements they are exact at the vertices only (see :meth:`node_stress`)."""
        if self.geometry_order == 2:
            return self.node_stress(U)[:, :, :4]
        return recovery.vertex_stress(U, self.cells, self.node_dofs, self._element_maps.inv, self.material)

    def node_stress(self, U: np.ndarray) -> np.ndarray:
        """Unaveraged stresses (k, 6, 10, n_elem) at the 10 nodes of every element (vertices, then mid-side nodes)
        for displacement columns U (n_dof, k) (or (n_dof,)) [Pa]: straight elements from their vertex values
        (linear strain), curved ones from the isoparametric map's Jacobian at each node
        (:func:`.recovery.curved_node_stress`)."""
        if self.geometry_order == 2:
            return recovery.curved_node_stress(U, self.cells, self.node_dofs, self._node_maps, self.material)
        return recovery.element_node_values(self.vertex_stress(U)).transpose(0, 3, 2, 1)

    def element_node_stress(self, U: np.ndarray) -> np.ndarray:
        """Unaveraged stresses (k, n_elem, 10, 6) at the element nodes of displacement columns U (n_dof, k):
        straight elements: the vertex values of :meth:`vertex_stress`, and at each edge's mid node the mean of its
        two vertices' (exact: the strain is linear in the element); curved elements: the strain at each of the
        10 nodes (vertices and mid-side nodes) from the isoparametric map (:meth:`node_stress`)."""
        if self.geometry_order == 2:
            return self.node_stress(U).transpose(0, 3, 2, 1)
        return recovery.element_node_values(self.vertex_stress(U))

    def stress_basis(self, U: np.ndarray) -> np.ndarray:
        """Unaveraged stresses (k, 6, n_p, n_elem) [Pa] at the element points that give every element-node value
        exactly, for displacement columns U (n_dof, k) [m]: straight elements the n_p = 4 vertices of
        :meth:`vertex_stress` (an edge's mid node has the mean of its vertices': the strain is linear), curved ones
        all n_p = 10 nodes of :meth:`node_stress` (the strain is not linear: each node has its own value). The
        layout of ``LinkBasis.S``; the curved one holds 2.5x the floats."""
        if self.geometry_order == 2:
            return self.node_stress(U)
        return self.vertex_stress(U)

    def nodal_average(self, values: np.ndarray) -> np.ndarray:
        """Average over the elements sharing each node of element-node values (n_elem, 10, ...)."""
        return recovery.nodal_average(values, self.cells, len(self.points))

    def solve_static(self, fixed=(), wrenches=None, pressures=None, gravity=None, angular_velocity=None,
                     angular_acceleration=None, acceleration=None, patch_forces=None,
                     support: str = "clamp", fixed_components: dict | None = None) -> StaticSolution:
        """Static solution under the given loads. ``wrenches``: surface -> (force, moment, point);
        ``pressures``: surface -> p [Pa]; ``patch_forces``: surface -> force (3,); rigid motion of the frame:
        gravity, acceleration a_O [m/s^2], angular_velocity [rad/s], angular_acceleration [rad/s^2] (link axes).

        ``support``: 'clamp' (the ``fixed`` surfaces held), 'averaged' (the weighted mean translation and
        rotation of each ``fixed`` surface held, the surface free to deform: no singular clamped edge; the
        reaction is the linear traction field of :meth:`wrench_basis`) or 'inertia_relief' (free part, loads
        balanced by rigid-body inertia). ``fixed_components``: surface or line name -> held components, e.g.
        ``{"symmetry": "y", "rim": "xy"}`` (rollers), with 'clamp' or 'averaged'."""
        f = np.zeros(self.n_dofs)
        motion = (gravity, acceleration, angular_velocity, angular_acceleration)
        if any(x is not None for x in motion):
            from ..loads import body_coefficients  # the 12 coefficients of body_load_basis for one motion state

            f += self.body_load_basis() @ body_coefficients(*(np.zeros(3) if x is None else x for x in motion))[0]
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
            u = supports.inertia_relief(self, f)
        else:
            raise InputError(f"support must be 'clamp', 'averaged' or 'inertia_relief', got {support!r}")
        # what the supports exert: K u = f + r
        reaction = self.resultant(self.stiffness @ u - f) if support != "inertia_relief" else np.zeros(6)
        S = self.element_node_stress(u)[0]
        disp = u[self.node_dofs]
        return StaticSolution(points=self.points, displacement=disp, von_mises=self.nodal_average(von_mises(S)),
                              max_von_mises=float(von_mises(S).max()), element_node_stress=S,
                              reaction=reaction, part=self)


def _curved_mesh(mesh, midside: np.ndarray):
    """skfem.MeshTet2 of a MeshTet and the mid-side nodes (n_elem, 6, 3) [m] of its tets' edges (local P2 order)."""
    from skfem import MeshTet2

    xe = np.zeros((mesh.nedges, 3))
    xe[mesh.t2e.T.ravel()] = np.asarray(midside, float).reshape(-1, 3)  # shared edges: the same node
    return MeshTet2(np.ascontiguousarray(np.hstack([mesh.p, xe.T])), mesh.t)


def _select(p: np.ndarray, table: np.ndarray, candidates: np.ndarray, selector) -> np.ndarray:
    """The ``candidates`` (indices of columns of ``table`` (k, n) of vertex indices into ``p`` (3, n_vertices))
    whose midpoints x (3, n) satisfy ``selector(x) -> bool (n,)``."""
    mid = p[:, table[:, candidates]].mean(axis=1)
    return candidates[np.asarray(selector(mid), bool)]


def _find_rows(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index in ``table`` (n, k) of each row of ``rows`` (m, k) as vertex sets (order within a row ignored),
    -1 where a row is not in the table (the table's rows distinct)."""
    return find_columns(np.asarray(table).T, np.asarray(rows).T)


_DEFERRED = contextvars.ContextVar("structcheck_deferred_mesh_reading", default=False)


@contextmanager
def deferred_mesh_reading():
    """Within the block :meth:`Part.from_mesh` reads no file: it returns an :class:`UnreadPart`, read on first use.
    A quick look builds a study this way and replaces its parts before any is used (:mod:`structcheck.quick`), so
    the full-size meshes are never read."""
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


class UnreadPart:
    """A :meth:`Part.from_mesh` not yet read (:func:`deferred_mesh_reading`): the first attribute asked for reads
    the mesh file ``path`` into the Part it stands for, which answers that and every later one."""

    def __init__(self, read, path: Path):
        self._read, self.path, self._part = read, path, None

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_read", "_part", "path"):
            raise AttributeError(name)
        if self._part is None:
            token = _DEFERRED.set(False)
            try:
                self._part = self._read()
            finally:
                _DEFERRED.reset(token)
        return getattr(self._part, name)

    def __repr__(self) -> str:
        return f"UnreadPart({str(self.path)!r})"
