"""Parametric link geometry with gmsh's OpenCASCADE kernel, meshed with tagged joint interfaces.

A :class:`PartBuilder` adds solids (boxes, cylinders, tubes), fuses and cuts them, names boundary faces by a
geometric predicate (face centre and bounding box), meshes the volume with linear tetrahedra (the FE raises
them to 10-node quadratic elements) and writes a gmsh .msh with a physical volume and one physical surface
per name (and one physical curve per named line). With ``order=2`` the mesh is second order (``tetra10``):
the mid-side nodes of boundary edges are placed on the CAD curves and surfaces (``Mesh.SecondOrderLinear = 0``),
so the FE's curved elements follow bores and fillets; :attr:`PartBuilder.surface_deviation` records how far the
boundary nodes lie from their CAD surfaces. Lengths in metres, in the part's link frame. Meshing is
deterministic (one thread, fixed seed).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import InputError


class PartBuilder:
    """Context manager around one gmsh model. ``with PartBuilder("upper_arm") as b: ...; b.write(path)``."""

    def __init__(self, name: str, mesh_size: float = 0.01, curvature_points: int = 16, min_size: float | None = None,
                 order: int = 1):
        """``mesh_size`` [m] the largest element edge, ``min_size`` the smallest (default mesh_size / 4);
        ``curvature_points`` elements per 2 pi of a curved edge, as far as ``min_size`` allows (a straight-sided
        cylinder meshed with n facets around loses the volume fraction 1 - sin(2 pi/n) / (2 pi/n));
        ``order`` 1 (linear tets) or 2 (10-node tets with curved boundaries)."""
        if order not in (1, 2):
            raise InputError(f"part {name!r}: mesh order must be 1 or 2, got {order!r}")
        self.order = int(order)
        #: after :meth:`build`: max distance [m] of a boundary mesh node (vertex or mid-side node) to the CAD
        #: surface it belongs to
        self.surface_deviation = float("nan")
        self.name = name
        self.mesh_size = mesh_size
        self.min_size = mesh_size / 4 if min_size is None else float(min_size)
        self.curvature_points = int(curvature_points)
        self.named: dict[str, Callable] = {}
        self.named_lines: dict[str, Callable] = {}
        self.refinements: list[tuple] = []
        self.divisions: list[tuple] = []

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

    def fillet(self, solid, predicate: Callable[[np.ndarray, np.ndarray], bool], radius: float):
        """Round the edges of ``solid`` (dimtags) whose centre ``c`` (3,) and bounding box ``bb`` (6,) [m] satisfy
        ``predicate`` with a fillet of ``radius`` [m]: a re-entrant edge gains material, a convex one loses it.
        Returns the new solid's dimtags (the old one is removed). InputError, naming the part, when no edge
        matches or OpenCASCADE cannot make the fillet (e.g. a radius larger than a face next to the edge)."""
        occ = self.occ
        if not (isinstance(radius, (int, float, np.integer, np.floating)) and np.isfinite(radius) and radius > 0):
            raise InputError(f"part {self.name!r}: fillet radius must be a positive number of metres, got {radius!r}")
        occ.synchronize()
        vols = [t for d, t in solid if d == 3]
        faces = self.gmsh.model.getBoundary([(3, t) for t in vols], combined=False, oriented=False)
        curves = sorted({abs(t) for _, t in self.gmsh.model.getBoundary(faces, combined=False, oriented=False)})
        hits = [t for t in curves if predicate(np.array(occ.getCenterOfMass(1, t)),
                                               np.array(self.gmsh.model.getBoundingBox(1, t)))]
        if not hits:
            raise InputError(f"part {self.name!r}: no edge of the solid matches the fillet predicate "
                             f"(radius {radius * 1e3:g} mm); check the edge's centre and bounding box")
        try:
            out = occ.fillet(vols, hits, [float(radius)], removeVolume=True)
        except Exception as exc:  # gmsh raises a bare Exception carrying OpenCASCADE's message
            raise InputError(f"part {self.name!r}: OpenCASCADE could not fillet {len(hits)} edge(s) with radius "
                             f"{radius * 1e3:g} mm ({exc}); use a smaller radius or select fewer edges") from None
        out = [d for d in out if d[0] == 3]
        if not out:
            raise InputError(f"part {self.name!r}: the fillet of {len(hits)} edge(s) with radius {radius * 1e3:g} mm "
                             f"left no solid; use a smaller radius")
        return out

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
        self.refinements.append((np.asarray(point, float), float(size), float(radius)))

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
        self._set_sizes()
        for pred, n in self.divisions:
            hits = [t for _, t in gmsh.model.getEntities(1) if pred(np.array(occ.getCenterOfMass(1, t)),
                                                                    np.array(gmsh.model.getBoundingBox(1, t)))]
            if not hits:
                raise InputError(f"part {self.name!r}: no curve matches a divide_lines predicate")
            for t in hits:
                gmsh.model.mesh.setTransfiniteCurve(t, n + 1)
        gmsh.model.mesh.generate(3)
        if self.order == 2:
            gmsh.option.setNumber("Mesh.SecondOrderLinear", 0)  # mid-side nodes on the CAD geometry
            # moving boundary mid-side nodes onto a curved face can fold thin elements: gmsh then moves interior
            # nodes (elastic analogy and optimization) until every element's Jacobian is positive
            gmsh.option.setNumber("Mesh.HighOrderOptimize", 2)
            gmsh.model.mesh.setOrder(2)
            gmsh.model.mesh.optimize("HighOrder")
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

    def _set_sizes(self) -> None:
        """Element sizes: the global size, balls of finer size around the refinement points, curvature."""
        gmsh = self.gmsh
        size_min = min([self.min_size] + [s for _, s, _ in self.refinements])
        if self.refinements:
            fields = []
            for p, s, r in self.refinements:
                ball = gmsh.model.mesh.field.add("Ball")
                for key, value in (("XCenter", p[0]), ("YCenter", p[1]), ("ZCenter", p[2]), ("Radius", r),
                                   ("Thickness", r), ("VIn", s), ("VOut", self.mesh_size)):
                    gmsh.model.mesh.field.setNumber(ball, key, value)
                fields.append(ball)
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


def write_part_meshes(parts: dict, out, size_factor: float = 1.0, *, args: tuple = (), curvature_points: int = 16,
                      verbose: bool = True) -> Path:
    """The body of a mesh generator script: every part of ``parts`` (name -> (function adding its solids and
    names to a :class:`PartBuilder`, called as ``fn(builder, *args)``; mesh size [m])) meshed at its size times
    ``size_factor`` into ``out/<name>.msh``, with its node counts printed when ``verbose``. Returns ``out``."""
    if not (isinstance(size_factor, (int, float)) and np.isfinite(size_factor) and size_factor > 0):
        raise InputError(f"size_factor must be a positive number (1.0: the shipped mesh sizes), got {size_factor!r}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    width = max(map(len, parts), default=0)
    for name, (fn, size) in parts.items():
        with PartBuilder(name, size * size_factor, curvature_points=curvature_points) as b:
            fn(b, *args)
            b.build(None)
            b.write(out / f"{name}.msh")
        if verbose:
            import meshio

            tets = meshio.read(out / f"{name}.msh").cells_dict["tetra"]
            edges = np.unique(np.sort(tets[:, [0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3]].reshape(-1, 2), axis=1), axis=0)
            print(f"{name:<{width}} vertices {len(np.unique(tets)):6d}  tets {len(tets):6d}  "
                  f"P2 nodes {len(np.unique(tets)) + len(edges):7d}")
    return out


def mesh_script(description: str, build: Callable, shipped: Path, options: tuple = ()) -> None:
    """The command line of a mesh generator script: ``--out`` (default ``shipped``), ``--size-factor`` and the
    extra ``options`` ((flag, argparse keywords), ...), passed to ``build(out, size_factor, *extras)``; bad input
    exits with status 2 and one line."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", type=Path, default=shipped)
    ap.add_argument("--size-factor", type=float, default=1.0, help="scale every part's mesh size")
    for flag, kwargs in options:
        ap.add_argument(flag, **kwargs)
    a = vars(ap.parse_args())
    try:
        build(a.pop("out"), a.pop("size_factor"), *a.values())
    except (InputError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
