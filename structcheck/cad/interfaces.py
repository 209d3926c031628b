"""Joint interfaces found on the faces of two links' solids, in a gmsh model holding every link in its own frame.

- :func:`touching_faces`: the faces of the parent and of the child that touch, i.e. lie within ``tol`` of each
  other over an area: OpenCASCADE's distance between two faces, then the area of their common part (a boolean
  intersection with the fuzzy tolerance ``tol``), so faces meeting along an edge do not count. Both faces are
  named whole (a flange face larger than its mate is named to its rim, as a designer names it).
- :func:`nearest_faces`: where the links do not touch (a gap, a bearing left out of the file), the faces of one
  side that are square to the joint axis (planar, normal along it) or coaxial with it (cylindrical about it),
  nearest the joint origin; ties (a fork's two cheeks) all taken.
- :func:`lowest_faces`: the base's flat faces on its lowest plane (z of the base frame), its mounting.
Lengths in metres, in the frame of the link whose faces are examined.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .step import move


@dataclass(frozen=True)
class Contact:
    """Faces (gmsh tags) of the parent and of the child that touch, and the area [m^2] of their common part."""

    parent: tuple[int, ...]
    child: tuple[int, ...]
    area: float


def boundary_faces(gmsh, vols) -> list[int]:
    """The boundary faces (tags) of the volumes ``vols`` (tags)."""
    return [abs(t) for _, t in gmsh.model.getBoundary([(3, v) for v in vols], combined=True, oriented=False)]


def face_area(gmsh, face: int) -> float:
    return float(gmsh.model.occ.getMass(2, face))


def touching_faces(gmsh, parent: list[int], child: list[int], T_parent_child: np.ndarray, tol: float) -> Contact:
    """The faces of ``parent`` and ``child`` (tags; the child's in its own frame, placed in the parent's by
    ``T_parent_child`` (4, 4)) that touch within ``tol`` [m] over an area."""
    occ = gmsh.model.occ
    copies = [t for _, t in occ.copy([(2, f) for f in child])]
    move(occ, [(2, t) for t in copies], T_parent_child)
    occ.synchronize()
    bp = np.array([gmsh.model.getBoundingBox(2, f) for f in parent])
    bc = np.array([gmsh.model.getBoundingBox(2, f) for f in copies])
    near = np.all(bp[:, None, :3] <= bc[None, :, 3:] + tol, axis=2) & np.all(bc[None, :, :3] <= bp[:, None, 3:] + tol,
                                                                             axis=2)
    hit_p, hit_c, area = set(), set(), 0.0
    old = gmsh.option.getNumber("Geometry.ToleranceBoolean")
    gmsh.option.setNumber("Geometry.ToleranceBoolean", tol)
    try:
        for i, j in np.argwhere(near):
            if occ.getDistance(2, parent[i], 2, copies[j])[0] > tol:
                continue
            common = _common_area(occ, parent[i], copies[j])
            if common > (10 * tol) ** 2:  # an area, not an edge or a point
                hit_p.add(parent[i])
                hit_c.add(child[j])
                area += common
    finally:
        gmsh.option.setNumber("Geometry.ToleranceBoolean", old)
        occ.remove([(2, t) for t in copies], recursive=True)
        occ.synchronize()
    return Contact(tuple(sorted(hit_p)), tuple(sorted(hit_c)), area)


def _common_area(occ, a: int, b: int) -> float:
    """Area [m^2] of the common part of faces ``a`` and ``b`` (both kept)."""
    out, _ = occ.intersect(occ.copy([(2, a)]), occ.copy([(2, b)]), removeObject=True, removeTool=True)
    area = sum(occ.getMass(d, t) for d, t in out if d == 2)
    occ.remove(out, recursive=True)
    return float(area)


def gap(gmsh, parent_vols: list[int], child_vols: list[int], T_parent_child: np.ndarray) -> float:
    """The smallest distance [m] between the parent's and the child's solids."""
    occ = gmsh.model.occ
    copies = occ.copy([(3, v) for v in child_vols])
    move(occ, copies, T_parent_child)
    d = min(occ.getDistance(3, v, 3, c)[0] for v in parent_vols for _, c in copies)
    occ.remove(copies, recursive=True)
    occ.synchronize()
    return float(d)


def centre_distance(gmsh, faces, origin) -> np.ndarray:
    """Distances [m] from ``origin`` (3,) to the centres of ``faces`` (tags)."""
    c = np.array([gmsh.model.occ.getCenterOfMass(2, f) for f in faces]).reshape(-1, 3)
    return np.linalg.norm(c - np.asarray(origin, float), axis=1)


def nearest_faces(gmsh, faces: list[int], origin, axis, tol: float) -> tuple[tuple[int, ...], float]:
    """Of ``faces`` (tags), those square to or coaxial with the joint axis (unit ``axis`` (3,) through ``origin``
    (3,) [m]) whose centres are nearest the origin (all within ``10 tol`` + 0.1 % of the nearest's distance: a
    fork's two cheeks); and that distance [m]. Empty and inf when no face qualifies. (A flange's centre lies on
    the axis, at its offset along it; a bore's at its middle.)"""
    origin, axis = np.asarray(origin, float), np.asarray(axis, float)
    candidates = [f for f in faces if _square_or_coaxial(gmsh, f, origin, axis, tol)]
    if not candidates:
        return (), float("inf")
    d = centre_distance(gmsh, candidates, origin)
    keep = d <= d.min() + 10 * tol + 1e-3 * d.min()
    return tuple(sorted(int(f) for f in np.asarray(candidates)[keep])), float(d.min())


def _square_or_coaxial(gmsh, face: int, origin: np.ndarray, axis: np.ndarray, tol: float) -> bool:
    """A planar face normal to ``axis``, or a cylindrical face whose points all lie at one distance from the axis
    line and whose normals are square to it (sampled on a 3 x 3 grid of its parameters)."""
    kind = gmsh.model.getType(2, face)
    if kind not in ("Plane", "Cylinder"):
        return False
    (u0, v0), (u1, v1) = gmsh.model.getParametrizationBounds(2, face)
    uv = np.stack(np.meshgrid(np.linspace(u0, u1, 3), np.linspace(v0, v1, 3)), -1).ravel()
    n = np.reshape(gmsh.model.getNormal(face, uv), (-1, 3))
    along = np.abs(n @ axis)
    if kind == "Plane":
        return bool(along.min() > 1 - 1e-6)
    x = np.reshape(gmsh.model.getValue(2, face, uv), (-1, 3)) - origin
    radial = np.linalg.norm(x - np.outer(x @ axis, axis), axis=1)
    return bool(along.max() < 1e-6 and np.ptp(radial) < tol)


def lowest_faces(gmsh, vols: list[int], tol: float) -> tuple[int, ...]:
    """The planar faces of ``vols`` (tags) flat at the solids' lowest z (within ``tol`` [m])."""
    z0 = min(gmsh.model.getBoundingBox(3, v)[2] for v in vols)
    out = []
    for f in boundary_faces(gmsh, vols):
        bb = gmsh.model.getBoundingBox(2, f)
        if gmsh.model.getType(2, f) == "Plane" and abs(bb[2] - z0) < tol and abs(bb[5] - z0) < tol:
            out.append(f)
    return tuple(sorted(out))
