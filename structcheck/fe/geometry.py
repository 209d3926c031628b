"""Parametric link geometry with gmsh's OpenCASCADE kernel, meshed with tagged joint interfaces.

A :class:`PartBuilder` adds solids (boxes, cylinders, tubes), fuses and cuts them, names boundary faces by a
geometric predicate (face centre and bounding box), meshes the volume with linear tetrahedra (the FE raises
them to 10-node quadratic elements) and writes a gmsh .msh with a physical volume and one physical surface
per name (and one physical curve per named line); :meth:`PartBuilder.fillet` rounds edges. With ``order=2`` the
mesh is second order (``tetra10``): the mid-side nodes of boundary edges are placed on the CAD curves and surfaces
(``Mesh.SecondOrderLinear = 0``), so the FE's curved elements follow bores and fillets;
:attr:`PartBuilder.surface_deviation` records how far the boundary nodes lie from their CAD surfaces. Lengths in
metres, in the part's link frame. Meshing is deterministic (one thread, fixed seed).
"""
from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import InputError, require_number
from .high_order import curve_elements


#: quadratic elements across a fillet's quarter circle (:func:`fillet_size`, the default of imported CAD parts):
#: the count under which the paper-004 peaks that lie on a fillet (base, wrist) change by less than 3% over three
#: further refinements (docs/peaks.md)
FILLET_ELEMENTS = 5


def fillet_size(radius: float, elements: float = FILLET_ELEMENTS) -> float:
    """Element size [m] on a fillet of ``radius`` [m]: its quarter circle pi r / 2 over ``elements``; pass it to
    :meth:`PartBuilder.fillet` (the sizing rule of the paper-004 generator, for any part meshed like its parts)."""
    require_number("fillet radius", radius, "m", above=0)
    require_number("elements across a fillet's quarter circle", elements, above=0)
    return float(np.pi * radius / 2 / elements)


@dataclass
class Coarsening:
    """The element-size ``factor`` of a :func:`coarser_meshes` block and how many parts were built in it."""

    factor: float
    parts_built: int = 0


_COARSENING = contextvars.ContextVar("structcheck_coarsening", default=None)


@contextmanager
def coarser_meshes(factor: float):
    """Within the block every :class:`PartBuilder` meshes with all its element sizes times ``factor`` (> 1:
    coarser); yields a :class:`Coarsening` counting the parts built. ``structcheck run --quick`` builds a study
    this way. A script that caches its meshes should key them on :func:`mesh_size_scale`."""
    token = _COARSENING.set(Coarsening(require_number("mesh size factor", factor, above=0)))
    try:
        yield _COARSENING.get()
    finally:
        _COARSENING.reset(token)


@dataclass
class PeakRefinement:
    """A :func:`refined_around` block: the part ``name``, the ball (``point`` (3,) [m, link frame], ``size`` [m],
    ``radius`` [m]) and how many parts of that name were built in it."""

    name: str
    point: tuple
    size: float
    radius: float
    parts_built: int = 0


_PEAK = contextvars.ContextVar("structcheck_peak_refinement", default=None)


@contextmanager
def refined_around(name: str, point, size: float, radius: float):
    """Within the block a :class:`PartBuilder` named ``name`` meshes at ``size`` [m] within ``radius`` [m] of
    ``point`` (3,) [m, its frame], growing to its own sizes over another ``radius`` (a gmsh Ball size field):
    ``structcheck converge --refine peak`` re-builds a study this way around each link's peak. Yields the
    :class:`PeakRefinement`, counting the parts built."""
    point = tuple(require_number(f"refinement point[{i}]", x, "m") for i, x in enumerate(np.ravel(point)))
    token = _PEAK.set(PeakRefinement(name, point, require_number("refinement size", size, "m", above=0),
                                     require_number("refinement radius", radius, "m", above=0)))
    try:
        yield _PEAK.get()
    finally:
        _PEAK.reset(token)


def mesh_size_scale() -> float:
    """The element-size factor in force (1 outside :func:`coarser_meshes`)."""
    c = _COARSENING.get()
    return 1.0 if c is None else c.factor


class PartBuilder:
    """Context manager around one gmsh model. ``with PartBuilder("upper_arm") as b: ...; b.write(path)``."""

    def __init__(self, name: str, mesh_size: float = 0.01, curvature_points: int = 16, min_size: float | None = None,
                 order: int = 1, local_size_factor: float = 1.0):
        """``mesh_size`` [m] the largest element edge, ``min_size`` the smallest (default mesh_size / 4);
        ``curvature_points`` elements per 2 pi of a curved edge, as far as ``min_size`` allows (a straight-sided
        cylinder meshed with n facets around loses the volume fraction 1 - sin(2 pi/n) / (2 pi/n));
        ``order`` 1 (linear tets) or 2 (10-node tets with curved boundaries); ``local_size_factor`` scales the
        local sizes given to :meth:`refine_near` and :meth:`fillet` (a mesh script refining the whole part)."""
        if order not in (1, 2):
            raise InputError(f"part {name!r}: mesh order must be 1 or 2, got {order!r}")
        self.order = int(order)
        coarsening = _COARSENING.get()  # a quick look coarsens every part a study builds (:func:`coarser_meshes`)
        scale = 1.0 if coarsening is None else coarsening.factor
        if coarsening is not None:
            coarsening.parts_built += 1
        self.local_size_factor = require_number(f"part {name!r}: local_size_factor", local_size_factor,
                                                above=0) * scale
        #: after :meth:`build` with ``order=2``: the smallest minimum scaled Jacobian of the curved elements (gmsh's
        #: minSJ: 1 for straight edges, <= 0 folded)
        self.min_scaled_jacobian = float("nan")
        #: after :meth:`build` with ``order=2``: that smallest value after each pass of gmsh's curved-element
        #: optimization (:func:`~structcheck.fe.high_order.curve_elements`)
        self.high_order_passes: list[float] = []
        #: after :meth:`build`: max distance [m] of a boundary mesh node (vertex or mid-side node) to the CAD
        #: surface it belongs to
        self.surface_deviation = float("nan")
        self.name = name
        self.mesh_size = require_number(f"part {name!r}: mesh_size", mesh_size, "m", above=0) * scale
        self.min_size = self.mesh_size / 4 if min_size is None else require_number(
            f"part {name!r}: min_size", min_size, "m", above=0) * scale
        self.curvature_points = int(curvature_points)
        self.named: dict[str, Callable] = {}
        self.named_lines: dict[str, Callable] = {}
        self.refinements: list[tuple] = []
        self.divisions: list[tuple] = []
        #: (points along the filleted edges (n, 3), element size, radius) per sized fillet
        self.fillet_sizes: list[tuple] = []
        peak = _PEAK.get()
        if peak is not None and peak.name == name:  # a converge level refined around this part's peak
            peak.parts_built += 1
            self.refinements.append((np.asarray(peak.point, float), peak.size, peak.radius))

    def __enter__(self):
        import gmsh

        self.gmsh = gmsh
        if not gmsh.isInitialized():
            gmsh.initialize(interruptible=False)
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.option.setNumber("General.NumThreads", 1)
        gmsh.option.setNumber("Mesh.RandomFactor", 1e-9)
        gmsh.clear()
        gmsh.model.add(self.name)
        self.occ = gmsh.model.occ
        return self

    def __exit__(self, *exc):
        self.gmsh.clear()
        return False

    # ---------------------------------------------------------------- solids (return (3, tag) dimtags)
    def box(self, lo, hi):
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        return [(3, self.occ.addBox(*lo, *(hi - lo)))]

    def cylinder(self, center, axis, radius, length, centered=True):
        """Solid cylinder along unit ``axis``; ``centered``: ``center`` is the middle, else the base."""
        a = np.asarray(axis, float) / np.linalg.norm(axis)
        c = np.asarray(center, float) - (a * length / 2 if centered else 0)
        return [(3, self.occ.addCylinder(*c, *(a * length), radius))]

    def tube(self, center, axis, r_out, r_in, length, centered=True):
        return self.cut(self.cylinder(center, axis, r_out, length, centered),
                        self.cylinder(center, axis, r_in, length * 1.01 + 1e-3, centered) if centered else
                        self.cylinder(np.asarray(center) - np.asarray(axis) * 1e-3, axis, r_in, length + 2e-3, False))

    def fuse(self, *parts):
        objs = [d for p in parts for d in p]
        if len(objs) == 1:
            return objs
        out, _ = self.occ.fuse(objs[:1], objs[1:])
        return out

    def cut(self, a, *tools):
        out, _ = self.occ.cut(a, [d for t in tools for d in t])
        return out

    def fillet(self, solid, predicate: Callable[[np.ndarray, np.ndarray], bool], radius: float,
               size: float | None = None):
        """Round the edges of ``solid`` (dimtags) whose centre ``c`` (3,) and bounding box ``bb`` (6,) [m] satisfy
        ``predicate`` with a fillet of ``radius`` [m]: a re-entrant edge gains material, a convex one loses it.
        ``size`` [m]: element size on the fillet faces (growing to the global size over ``3 * radius``), so that
        the fillet's stress concentration is resolved. Returns the new solid's dimtags (the old one is removed).
        InputError, naming the part, when no edge matches or OpenCASCADE cannot make the fillet (e.g. a radius
        larger than a face next to the edge)."""
        occ = self.occ
        require_number(f"part {self.name!r}: fillet radius", radius, "m", above=0)
        occ.synchronize()
        vols = [t for d, t in solid if d == 3]
        faces = self.gmsh.model.getBoundary([(3, t) for t in vols], combined=False, oriented=False)
        curves = sorted({abs(t) for _, t in self.gmsh.model.getBoundary(faces, combined=False, oriented=False)})
        hits = self._matching(1, curves, predicate)
        if not hits:
            raise InputError(f"part {self.name!r}: no edge of the solid matches the fillet predicate "
                             f"(radius {radius * 1e3:g} mm); check the edge's centre and bounding box")
        if size is not None:
            require_number(f"part {self.name!r}: fillet element size", size, "m; or None", above=0)
        edge_points = self._edge_points(hits, radius / 4) if size is not None else None
        try:
            out = occ.fillet(vols, hits, [float(radius)], removeVolume=True)
        except Exception as exc:  # gmsh raises a bare Exception carrying OpenCASCADE's message
            raise InputError(f"part {self.name!r}: OpenCASCADE could not fillet {len(hits)} edge(s) with radius "
                             f"{radius * 1e3:g} mm ({exc}); use a smaller radius or select fewer edges") from None
        out = [d for d in out if d[0] == 3]
        if not out:
            raise InputError(f"part {self.name!r}: the fillet of {len(hits)} edge(s) with radius {radius * 1e3:g} mm "
                             f"left no solid; use a smaller radius")
        if size is not None:
            self.fillet_sizes.append((edge_points, float(size) * self.local_size_factor, float(radius)))
        return out

    def _matching(self, dim: int, tags, predicate) -> list[int]:
        """The entities of dimension ``dim`` among ``tags`` whose centre of mass c (3,) and bounding box bb (6,) [m]
        satisfy ``predicate(c, bb)``."""
        return [t for t in tags if predicate(np.array(self.occ.getCenterOfMass(dim, t)),
                                             np.array(self.gmsh.model.getBoundingBox(dim, t)))]

    def _edge_points(self, curves, spacing: float) -> np.ndarray:
        """Points (n, 3) [m] along the ``curves`` (tags), at most about ``spacing`` apart, ends included."""
        pts = []
        for t in curves:
            lo, hi = (b[0] for b in self.gmsh.model.getParametrizationBounds(1, t))
            probe = np.reshape(self.gmsh.model.getValue(1, t, np.linspace(lo, hi, 33)), (-1, 3))
            n = 2 + int(np.linalg.norm(np.diff(probe, axis=0), axis=1).sum() / spacing)
            pts.append(np.reshape(self.gmsh.model.getValue(1, t, np.linspace(lo, hi, n)), (-1, 3)))
        return np.vstack(pts)

    def _fillet_faces(self, points: np.ndarray, radius: float, faces) -> list[int]:
        """The boundary faces (tags out of ``faces``) a fillet of ``radius`` [m] made on the edges sampled by
        ``points`` (n, 3): those whose points (a 5 x 5 grid over their parameter range) all lie within 1.5 radius of
        the old edges (a fillet's face lies within one radius of its edge; a face it joins reaches farther, and a
        plane's parameter range is its bounding rectangle, so a large face never passes)."""
        hits = []
        for f in faces:
            (u0, v0), (u1, v1) = self.gmsh.model.getParametrizationBounds(2, f)
            uv = np.stack(np.meshgrid(np.linspace(u0, u1, 5), np.linspace(v0, v1, 5)), -1).ravel()
            x = np.reshape(self.gmsh.model.getValue(2, f, uv), (-1, 3))
            d = np.linalg.norm(x[:, None, :] - points[None, :, :], axis=2).min(axis=1)
            if d.max() <= 1.5 * radius:
                hits.append(f)
        return hits

    # ---------------------------------------------------------------- naming and meshing
    def name_faces(self, name: str, predicate: Callable[[np.ndarray, np.ndarray], bool]) -> None:
        """Name the boundary faces whose centre ``c`` (3,) and bounding box ``bb`` (6,) satisfy the predicate."""
        self.named[name] = predicate

    def name_lines(self, name: str, predicate: Callable[[np.ndarray, np.ndarray], bool]) -> None:
        """Name the curves whose centre ``c`` (3,) and bounding box ``bb`` (6,) satisfy the predicate (e.g. a line
        that carries a support; the mesh has nodes on it only if it is an edge of the geometry)."""
        self.named_lines[name] = predicate

    def divide_lines(self, predicate: Callable[[np.ndarray, np.ndarray], bool], n: int) -> None:
        """Mesh every curve whose centre ``c`` (3,) and bounding box ``bb`` (6,) satisfy the predicate with exactly
        ``n`` elements (e.g. n elements around a bore, whatever the sizes)."""
        if int(n) < 1:
            raise InputError(f"part {self.name!r}: a line needs at least 1 element, got {n!r}")
        self.divisions.append((predicate, int(n)))

    def refine_near(self, point, size: float, radius: float) -> None:
        """Element size ``size`` [m] within ``radius`` [m] of ``point`` (3,), growing to the global size over
        another ``radius``."""
        self.refinements.append((np.asarray(point, float), float(size) * self.local_size_factor, float(radius)))

    def build(self, volume):
        """Mesh the model. The solid may be several volumes glued on shared faces (e.g. split by a plane so that
        a line of nodes exists there); separate solids are an error. Every volume of the model is meshed:
        ``volume`` (the solid's dimtags, or None) only documents the call."""
        occ, gmsh = self.occ, self.gmsh
        occ.removeAllDuplicates()
        occ.synchronize()
        vols = gmsh.model.getEntities(3)
        if not vols:
            raise InputError(f"part {self.name!r}: the geometry has no solid")
        self._check_one_solid(vols)
        gmsh.model.addPhysicalGroup(3, [v for _, v in vols], name=self.name)
        faces = gmsh.model.getBoundary(vols, combined=True, oriented=False)
        self._add_groups(2, [t for _, t in faces], self.named, "face", "surface")
        self._add_groups(1, [t for _, t in gmsh.model.getEntities(1)], self.named_lines, "curve", "line")
        self._set_sizes([t for _, t in faces])
        for pred, n in self.divisions:
            hits = self._matching(1, [t for _, t in gmsh.model.getEntities(1)], pred)
            if not hits:
                raise InputError(f"part {self.name!r}: no curve matches a divide_lines predicate")
            for t in hits:
                gmsh.model.mesh.setTransfiniteCurve(t, n + 1)
        gmsh.model.mesh.generate(3)
        if self.order == 2:
            self.high_order_passes = curve_elements(gmsh)
            self.min_scaled_jacobian = self.high_order_passes[-1]
            if not self.min_scaled_jacobian > 0:
                raise InputError(f"part {self.name!r}: gmsh left curved elements folded (minimum scaled Jacobian "
                                 f"{self.min_scaled_jacobian:.3g}); change the mesh size or the fillet sizes")
        self.surface_deviation = self._surface_deviation([t for _, t in faces])

    def _surface_deviation(self, faces) -> float:
        """Max distance [m] of the mesh nodes classified on the CAD ``faces`` (tags) to those faces."""
        worst = 0.0
        for tag in faces:
            _, x, _ = self.gmsh.model.mesh.getNodes(2, tag, includeBoundary=True)
            if len(x):
                y = np.asarray(self.gmsh.model.getClosestPoint(2, tag, x)[0])
                worst = max(worst, float(np.abs(np.reshape(y - np.asarray(x), (-1, 3))).max()))
        return worst

    def _check_one_solid(self, vols) -> None:
        """Raise unless the volumes (dim, tag) form one solid: union-find over the faces they share."""
        root = {v: v for _, v in vols}

        def find(v):
            while root[v] != v:
                v = root[v]
            return v

        owner = {}
        for _, v in vols:
            for _, f in self.gmsh.model.getBoundary([(3, v)], oriented=False):
                if abs(f) in owner:
                    root[find(v)] = find(owner[abs(f)])
                owner[abs(f)] = v
        n_solids = len({find(v) for _, v in vols})
        if n_solids != 1:
            raise InputError(f"part {self.name!r}: the geometry is {n_solids} separate solids, expected one; "
                             f"make the pieces overlap")

    def _add_groups(self, dim: int, tags, named: dict, entity: str, group: str) -> None:
        """A physical group of dimension ``dim`` per name -> predicate(c, bb) in ``named``, of the entities
        ``tags`` whose centre of mass c (3,) and bounding box bb (6,) satisfy it."""
        info = [(t, np.array(self.occ.getCenterOfMass(dim, t)), np.array(self.gmsh.model.getBoundingBox(dim, t)))
                for t in tags]
        for name, pred in named.items():
            hits = [tag for tag, c, bb in info if pred(c, bb)]
            if not hits:
                raise InputError(f"part {self.name!r}: no {entity} matches {group} {name!r}")
            self.gmsh.model.addPhysicalGroup(dim, hits, name=name)

    def _set_sizes(self, faces) -> None:
        """Element sizes: the global size, balls of finer size around the refinement points, the sized fillets'
        faces (of the boundary ``faces``, tags), curvature."""
        gmsh = self.gmsh
        size_min = min([self.min_size] + [s for _, s, _ in self.refinements + self.fillet_sizes])
        fields = []
        for p, s, r in self.refinements:
            ball = gmsh.model.mesh.field.add("Ball")
            for key, value in (("XCenter", p[0]), ("YCenter", p[1]), ("ZCenter", p[2]), ("Radius", r),
                               ("Thickness", r), ("VIn", s), ("VOut", self.mesh_size)):
                gmsh.model.mesh.field.setNumber(ball, key, value)
            fields.append(ball)
        for points, s, r in self.fillet_sizes:
            dist = gmsh.model.mesh.field.add("Distance")
            gmsh.model.mesh.field.setNumbers(dist, "SurfacesList", self._fillet_faces(points, r, faces))
            gmsh.model.mesh.field.setNumber(dist, "Sampling", 40)
            thr = gmsh.model.mesh.field.add("Threshold")
            for key, value in (("InField", dist), ("SizeMin", s), ("SizeMax", self.mesh_size), ("DistMin", 0.0),
                               ("DistMax", 2 * r)):
                gmsh.model.mesh.field.setNumber(thr, key, value)
            fields.append(thr)
        if fields:
            fmin = gmsh.model.mesh.field.add("Min")
            gmsh.model.mesh.field.setNumbers(fmin, "FieldsList", fields)
            gmsh.model.mesh.field.setAsBackgroundMesh(fmin)
        gmsh.option.setNumber("Mesh.MeshSizeMax", self.mesh_size)
        gmsh.option.setNumber("Mesh.MeshSizeMin", size_min)
        gmsh.option.setNumber("Mesh.MeshSizeFromCurvature", self.curvature_points)
        gmsh.option.setNumber("Mesh.Algorithm3D", 1)
        gmsh.option.setNumber("Mesh.Optimize", 1)

    def write(self, path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.gmsh.option.setNumber("Mesh.MshFileVersion", 4.1)
        self.gmsh.option.setNumber("Mesh.Binary", 0)
        self.gmsh.write(str(path))
        return path


def on_plane(axis: int, value: float, within: float | None = None, center=(0.0, 0.0, 0.0), tol=1e-6):
    """Predicate: a planar face at coordinate ``axis`` = value (flat in that direction), optionally with its
    centre within ``within`` of ``center`` in the other two coordinates."""
    def pred(c, bb):
        flat = abs(bb[axis] - value) < tol and abs(bb[axis + 3] - value) < tol
        if not flat:
            return False
        if within is None:
            return True
        others = [k for k in range(3) if k != axis]
        return float(np.hypot(*(c[k] - center[k] for k in others))) <= within
    return pred


def import_step(path, name: str, surfaces: dict, mesh_size: float, out, scale: float = 1.0) -> Path:
    """Mesh a STEP CAD part through gmsh with named surfaces (name -> predicate(c, bb) as in
    :meth:`PartBuilder.name_faces`); ``scale`` converts the CAD units to metres (0.001 for mm)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"STEP file {str(path)!r} does not exist")
    with PartBuilder(name, mesh_size) as b:
        shapes = b.occ.importShapes(str(path))
        vols = [d for d in shapes if d[0] == 3]
        if not vols:
            raise InputError(f"{path}: no solid in the STEP file")
        if scale != 1.0:
            b.occ.dilate(vols, 0, 0, 0, scale, scale, scale)
        for n, pred in surfaces.items():
            b.name_faces(n, pred)
        b.build(vols)
        return b.write(out)


def write_part_meshes(parts: dict, out, size_factor: float = 1.0, *, args: tuple = (),
                      curvature_points: int | dict = 16, order: int = 1, verbose: bool = True) -> Path:
    """The body of a mesh generator script: every part of ``parts`` (name -> (function adding its solids and
    names to a :class:`PartBuilder`, called as ``fn(builder, *args)``; mesh size [m])) meshed at its size times
    ``size_factor`` (its local sizes too) into ``out/<name>.msh``, with its node counts printed when ``verbose``.
    ``order`` 1 writes linear tets (the FE raises them to straight-edged P2), 2 ``tetra10`` with curved boundaries;
    ``curvature_points``: one number for every part or part name -> number. Returns ``out``."""
    require_number("size_factor", size_factor, "1.0: the shipped mesh sizes", above=0)
    if order not in (1, 2):
        raise InputError(f"mesh order must be 1 (linear tets) or 2 (curved 10-node tets), got {order!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    width = max(map(len, parts), default=0)
    for name, (fn, size) in parts.items():
        points = curvature_points[name] if isinstance(curvature_points, dict) else curvature_points
        with PartBuilder(name, size * size_factor, curvature_points=points, order=order,
                         local_size_factor=size_factor) as b:
            fn(b, *args)
            b.build(None)
            b.write(out / f"{name}.msh")
        if verbose:
            print(f"{name:<{width}} " + _node_counts(out / f"{name}.msh"))
    return out


def _node_counts(path: Path) -> str:
    """'vertices, tets, P2 nodes' of a linear or 10-node tet mesh file, for the mesh scripts' printout."""
    import meshio

    cells = meshio.read(path).cells_dict
    if "tetra10" in cells:
        tets = cells["tetra10"]
        n_p2 = len(np.unique(tets))
    else:
        tets = cells["tetra"]
        edges = np.unique(np.sort(tets[:, [0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3]].reshape(-1, 2), axis=1), axis=0)
        n_p2 = len(np.unique(tets)) + len(edges)
    return f"vertices {len(np.unique(tets[:, :4])):6d}  tets {len(tets):6d}  P2 nodes {n_p2:7d}"


def mesh_script(description: str, build: Callable, shipped: Path, options: tuple = (),
                order: int | None = None) -> None:
    """The command line of a mesh generator script: ``--out`` (default ``shipped``), ``--size-factor`` and the
    extra ``options`` ((flag, argparse keywords), ...), passed to ``build(out, size_factor, *extras)``; with
    ``order`` (the order the script ships, 1 or 2) also ``--order``, passed as ``build(..., order=...)``. Bad input
    exits with status 2 and one line."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", type=Path, default=shipped)
    ap.add_argument("--size-factor", type=float, default=1.0, help="scale every part's mesh size")
    if order is not None:
        ap.add_argument("--order", type=int, choices=(1, 2), default=order,
                        help=f"1: linear tets, 2: curved 10-node tets (default {order}, as shipped)")
    for flag, kwargs in options:
        ap.add_argument(flag, **kwargs)
    a = vars(ap.parse_args())
    kw = {"order": a.pop("order")} if order is not None else {}
    try:
        build(a.pop("out"), a.pop("size_factor"), *a.values(), **kw)
    except (InputError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
