"""Element sizes of an imported part: one size for the part, and a finer one on every fillet the CAD model has.

A fillet of the CAD model is a blend face: a cylinder or a torus turning through less than
:data:`BLEND_MAX_ANGLE` across its small radius (a bore turns through 360 degrees, a half bore 180), or a B-spline
face of constant radius (a fillet along a curved edge; :func:`blend_faces`). Its faces get
the element size ``fillet(link, radius)``, growing to the part's size as a fillet made by
:meth:`~structcheck.geometry.PartBuilder.fillet` does (the same sizing path: :attr:`PartBuilder.fillet_sizes`), so
that a part built by a script and the same part read from CAD are meshed alike.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import InputError, require_number
from ..fe.geometry import fillet_size

#: a cylindrical or toroidal face turning through less than this [rad] is a blend (fillet or round)
BLEND_MAX_ANGLE = np.radians(175.0)
#: a curved face of another kind is a blend when its smaller radius of curvature varies by less than this fraction
BLEND_SPREAD = 0.02
#: a part's element size when none is given: its bounding-box diagonal over this
SIZE_DIVISIONS = 30.0


def default_fillet(link: str, radius: float) -> float:
    """The shared fillet rule, :func:`structcheck.fe.geometry.fillet_size`: the quarter circle of ``radius`` [m]
    over :data:`~structcheck.fe.geometry.FILLET_ELEMENTS` quadratic elements."""
    return fillet_size(radius)


@dataclass(frozen=True)
class MeshSizing:
    """How the imported parts are meshed. ``size``: the largest element edge [m], one for every link or link ->
    size (a link left out, or None: its bounding-box diagonal / :data:`SIZE_DIVISIONS`); ``fillet(link, radius)``
    -> element size [m] on that link's fillet faces of ``radius`` [m] (None: no fillet sizing);
    ``curvature_points``: elements per 2 pi of a curved edge, as in :class:`~structcheck.geometry.PartBuilder`, one
    number or link -> number (a link left out: 16); ``refine``: link -> balls of finer elements ((centre (3,) [m],
    link frame; size [m]; radius [m]), ...), as :meth:`~structcheck.geometry.PartBuilder.refine_near` makes them
    (e.g. around the peaks ``structcheck converge`` found); ``factor`` scales every one of these sizes (a study's
    ``mesh_part(link, size_factor)`` for ``structcheck converge``)."""

    size: float | Mapping | None = None
    fillet: Callable[[str, float], float] | None = default_fillet
    curvature_points: int | Mapping = 16
    refine: Mapping | None = None
    factor: float = 1.0

    def link_curvature_points(self, link: str) -> int:
        """Elements per 2 pi of a curved edge of ``link``."""
        points = self.curvature_points
        return int(points.get(link, 16) if isinstance(points, Mapping) else points)

    def link_balls(self, link: str) -> tuple:
        """The balls (centre (3,) [m], size [m], radius [m]) of finer elements of ``link``, checked."""
        balls = tuple((self.refine or {}).get(link, ()))
        for i, (centre, size, radius) in enumerate(balls):
            for k, x in enumerate(np.ravel(centre)):
                require_number(f"refinement ball {i} of link {link!r}: centre[{k}]", x, "m")
            require_number(f"refinement ball {i} of link {link!r}: size", size, "m", above=0)
            require_number(f"refinement ball {i} of link {link!r}: radius", radius, "m", above=0)
        return balls

    def link_size(self, link: str, diagonal: float) -> float:
        """The element size [m] of ``link``, whose solids' bounding box has the ``diagonal`` [m]."""
        size = self.size.get(link) if isinstance(self.size, Mapping) else self.size
        factor = require_number("mesh size factor", self.factor, "", above=0)
        if size is None:
            return factor * diagonal / SIZE_DIVISIONS
        return factor * require_number(f"mesh size of link {link!r}", size, "m", above=0)


def as_sizing(mesh_size) -> MeshSizing:
    """A :class:`MeshSizing` from ``mesh_size``: None, a size [m], link -> size, or a MeshSizing."""
    if isinstance(mesh_size, MeshSizing):
        return mesh_size
    if mesh_size is None or isinstance(mesh_size, Mapping):
        return MeshSizing(mesh_size)
    return MeshSizing(require_number("mesh_size", mesh_size, "m; or link -> size, or None", above=0))


def blend_faces(gmsh, faces) -> list[tuple[int, float]]:
    """(face tag, radius [m]) of the blend faces among ``faces`` (tags): cylinders turning through less than
    :data:`BLEND_MAX_ANGLE` about their axis, tori through less than it about their tube circle, and curved faces
    of other kinds (B-spline fillets along curved edges, spherical corners) whose smaller radius of curvature is
    the same within :data:`BLEND_SPREAD` over a 3 x 3 grid of their parameters (a rolling ball's)."""
    out = []
    for f in faces:
        kind = gmsh.model.getType(2, f)
        if kind in ("Plane", "Cone"):
            continue
        (u0, v0), (u1, v1) = gmsh.model.getParametrizationBounds(2, f)
        uv = np.stack(np.meshgrid(np.linspace(u0, u1, 3), np.linspace(v0, v1, 3)), -1).ravel()
        k1, k2 = (np.abs(k) for k in gmsh.model.getPrincipalCurvatures(f, uv)[:2])
        r = 1.0 / np.maximum(np.maximum(k1, k2), 1e-12)
        if kind in ("Cylinder", "Torus"):
            turn = (u1 - u0) if kind == "Cylinder" else (v1 - v0)  # OpenCASCADE: u about the axis, v the tube
            blend = turn < BLEND_MAX_ANGLE
        else:
            blend = np.ptp(r) <= BLEND_SPREAD * r.mean()
        if blend:
            out.append((int(f), float(np.median(r))))
    return out


def size_blends(builder, link: str, sizing: MeshSizing, faces) -> list[tuple[int, float, float]]:
    """Give the ``builder``'s blend faces among ``faces`` (tags) the fillet size of ``sizing``: one entry of
    :attr:`PartBuilder.fillet_sizes` per radius, its points sampled over those faces (every face point within a
    quarter radius of one). Returns (face, radius, size) [m] per blend face."""
    if sizing.fillet is None:
        return []
    gmsh = builder.gmsh
    by_radius: dict[float, list[int]] = {}
    for f, r in blend_faces(gmsh, faces):
        by_radius.setdefault(round(r, 9), []).append(f)
    chosen = []
    for r, fs in by_radius.items():
        size = require_number(f"fillet size of link {link!r} at radius {r * 1e3:g} mm", sizing.fillet(link, r), "m",
                              above=0)
        points = np.vstack([_face_points(gmsh, f, r / 4) for f in fs])
        builder.fillet_sizes.append((points, size * builder.local_size_factor, r))
        chosen += [(f, r, size) for f in fs]
    return chosen


def _face_points(gmsh, face: int, spacing: float) -> np.ndarray:
    """Points (n, 3) [m] on a face, on a grid of its parameters about ``spacing`` apart."""
    (u0, v0), (u1, v1) = gmsh.model.getParametrizationBounds(2, face)
    t = np.linspace(0, 1, 33)
    counts = []
    for line in (np.stack([u0 + t * (u1 - u0), np.full_like(t, v0)], -1),
                 np.stack([np.full_like(t, u0), v0 + t * (v1 - v0)], -1)):  # lengths along u and along v
        x = np.reshape(gmsh.model.getValue(2, face, line.ravel()), (-1, 3))
        counts.append(2 + int(np.linalg.norm(np.diff(x, axis=0), axis=1).sum() / spacing))
    nu, nv = counts
    uv = np.stack(np.meshgrid(np.linspace(u0, u1, nu), np.linspace(v0, v1, nv)), -1).ravel()
    return np.reshape(gmsh.model.getValue(2, face, uv), (-1, 3))


def check_order(order) -> int:
    if order not in (1, 2):
        raise InputError(f"order = {order!r}: give 1 (linear tets) or 2 (curved 10-node tets)")
    return int(order)
