"""Link meshes: reading (any meshio format, gmsh physical groups first), units, checks, named surfaces,
and exact mass properties of tetrahedral meshes.

Meshes are tetrahedra in the link's body frame [m]; the FE uses quadratic (10-node) elements on them. A
``tetra`` file gives straight-edged elements (the mid-side nodes at the edge midpoints); a ``tetra10`` file keeps
its mid-side nodes (:attr:`TetMesh.midside`), so its elements follow curved boundaries (isoparametric P2).
Named surfaces are sets of boundary facets: from gmsh physical surface groups (mapped here from meshio's cell
data, triangle by triangle) or from geometric selections.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError, MeshError

ACCEPTED = ("tetra", "tetra10")


#: Vertex pairs of the 6 mid-side nodes of a 10-node tet, in the local order of VTK's quadratic tetra, meshio's
#: ``tetra10`` and scikit-fem's ``ElementTetP2`` (checked by ``assembly.p2_edges``).
TET10_EDGES = np.array([[0, 1], [1, 2], [0, 2], [0, 3], [1, 3], [2, 3]])


@dataclass(frozen=True)
class TetMesh:
    """``points`` (n, 3) [m] the vertices, ``tets`` (m, 4) positively oriented (as straight tets),
    ``surfaces`` name -> (k, 3) vertex triangles, ``lines`` name -> (k, 2) vertex pairs (gmsh physical curves),
    ``midside`` (m, 6, 3) [m] the positions of the mid-side nodes of every tet's edges (:data:`TET10_EDGES`
    order) of a ``tetra10`` file, or None (straight edges)."""

    points: np.ndarray
    tets: np.ndarray
    surfaces: dict
    lines: dict = field(default_factory=dict)
    midside: np.ndarray | None = None


@dataclass(frozen=True)
class MassProperties:
    """``mass`` [kg], ``com`` (3,) [m], ``inertia_com`` (3, 3) about the COM [kg m^2], ``volume`` [m^3]."""

    mass: float
    com: np.ndarray
    inertia_com: np.ndarray
    volume: float

    @property
    def inertia_origin(self) -> np.ndarray:
        d = self.com
        return self.inertia_com + self.mass * (d @ d * np.eye(3) - np.outer(d, d))


def tet_volumes(points: np.ndarray, tets: np.ndarray) -> np.ndarray:
    """Signed volumes (m,) [m^3]."""
    v = points[tets]
    return np.einsum("ij,ij->i", v[:, 1] - v[:, 0], np.cross(v[:, 2] - v[:, 0], v[:, 3] - v[:, 0])) / 6.0


def mass_properties(points: np.ndarray, tets: np.ndarray, density: float,
                    midside: np.ndarray | None = None) -> MassProperties:
    """Exact mass, centre of mass and central inertia of a tet mesh of uniform density: ``points`` (n, 3) [m],
    ``tets`` (m, 4), ``density`` [kg/m^3], ``midside`` (m, 6, 3) [m] the mid-side nodes of curved (10-node)
    tets, or None for straight ones.

    Straight tets use the exact second moment of a tetrahedron: int x x^T dV = V/20 (sum_i v_i v_i^T + s s^T),
    s = sum_i v_i. Curved tets use a 7th-order rule on the isoparametric map: x(xi) is quadratic and det J(xi)
    cubic, so volume, first and second moments (degree <= 7) are exact for the curved P2 geometry.
    """
    tets = np.asarray(tets)[:, :4]
    # moments about a point of the mesh, not the origin: second - V c c^T cancels as (distance / size)^2
    ref = points[tets[0, 0]]
    if midside is not None:
        return _curved_mass_properties(np.concatenate([points[tets], midside], axis=1) - ref, ref, density)
    v = points[tets] - ref  # (m, 4, 3)
    vol = np.abs(tet_volumes(points, tets))  # node order is a convention; the measure is |V|
    V = vol.sum()
    s = v.sum(axis=1)
    first = (vol[:, None] * s / 4.0).sum(axis=0)
    second = (vol[:, None, None] / 20.0 * (np.einsum("mki,mkj->mij", v, v) + np.einsum("mi,mj->mij", s, s))).sum(0)
    c = first / V
    com = ref + c
    S = density * (second - V * np.outer(c, c))
    inertia = np.trace(S) * np.eye(3) - S
    return MassProperties(mass=float(density * V), com=com, inertia_com=inertia, volume=float(V))


def _curved_mass_properties(nodes: np.ndarray, ref: np.ndarray, density: float) -> MassProperties:
    """:func:`mass_properties` of curved tets with element nodes ``nodes`` (m, 10, 3) [m] relative to ``ref``."""
    from skfem.quadrature import get_quadrature
    from skfem.refdom import RefTet

    from .assembly import p2_reference

    X, W = get_quadrature(RefTet, 7)
    N, dN = p2_reference(X)  # (10, q), (10, 3, q)
    x = np.einsum("mfd,fq->mqd", nodes, N)
    dV = np.abs(np.linalg.det(np.einsum("mfd,frq->mqdr", nodes, dN))) * W  # (m, q)
    V = dV.sum()
    first = np.einsum("mq,mqd->d", dV, x)
    second = np.einsum("mq,mqi,mqj->ij", dV, x, x)
    c = first / V
    S = density * (second - V * np.outer(c, c))
    inertia = np.trace(S) * np.eye(3) - S
    return MassProperties(mass=float(density * V), com=ref + c, inertia_com=inertia, volume=float(V))


def curved_jacobians(points: np.ndarray, tets: np.ndarray, midside: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Scaled det J (m, q) of the isoparametric map of curved tets at reference points X (3, q): det J over its
    largest magnitude at those points in the same element (+-1 everywhere for a straight tet; of both signs or 0
    somewhere: the map folds). The straight tet on the vertices is no reference: gmsh's high-order optimization
    moves vertices as well as mid-side nodes, so a valid curved element may sit on vertices whose straight tet
    is inverted."""
    from .assembly import p2_reference

    nodes = np.concatenate([points[tets], midside], axis=1)
    dN = p2_reference(X)[1]
    det = np.linalg.det(np.einsum("mfd,frq->mqdr", nodes, dN))
    return det / np.maximum(np.abs(det).max(axis=1, keepdims=True), 1e-300)


def curved_orientation(points: np.ndarray, tets: np.ndarray, midside: np.ndarray) -> np.ndarray:
    """Sign (m,) of det J of curved tets at the reference centroid (the element's orientation)."""
    return np.sign(curved_jacobians(points, tets, midside, np.full((3, 1), 0.25))[:, 0])


def curved_quality(points: np.ndarray, tets: np.ndarray, midside: np.ndarray) -> np.ndarray:
    """Per curved tet (m,): the smallest det J at its 10 nodes and the 7th-order quadrature points over the
    largest, signed by its orientation (1: straight edges; <= 0: the map folds; like gmsh's minimum scaled
    Jacobian, low values mean a badly curved element)."""
    from skfem import ElementTetP2
    from skfem.quadrature import get_quadrature
    from skfem.refdom import RefTet

    scaled = curved_jacobians(points, tets, midside, np.hstack([ElementTetP2().doflocs.T,
                                                                 get_quadrature(RefTet, 7)[0]]))
    return (scaled * curved_orientation(points, tets, midside)[:, None]).min(axis=1)


def check_curved(points: np.ndarray, tets: np.ndarray, midside: np.ndarray, where: str = "mesh") -> None:
    """Raise MeshError for curved tets whose isoparametric map folds (:func:`curved_quality` <= 0), e.g. a
    mid-side node too far from its edge's midpoint for the element's size, or another node order than tetra10's."""
    bad = np.nonzero(curved_quality(points, tets, midside) <= 0.0)[0]
    if len(bad):
        a, b = points[tets[bad][:, TET10_EDGES[:, 0]]], points[tets[bad][:, TET10_EDGES[:, 1]]]
        off = (np.linalg.norm(midside[bad] - 0.5 * (a + b), axis=2) / np.linalg.norm(b - a, axis=2)).max()
        hint = (f"; a mid-side node lies {off:.3g} edge lengths from its edge's midpoint: is the node order "
                f"tetra10's (edges {TET10_EDGES.tolist()})?" if off > 0.5 else "")
        raise MeshError(f"{where}: {len(bad)} curved element(s) with a folded map (det J <= 0 inside), e.g. "
                        f"elements {bad[:8].tolist()}; refine the mesh near curved faces or optimize it "
                        f"(gmsh Mesh.HighOrderOptimize){hint}")


def read_mesh(path, units: str = "m") -> TetMesh:
    """Read a tetrahedral mesh with meshio; ``units`` 'm' or 'mm' (converted to m). Named surfaces come from
    gmsh physical surface groups (``gmsh:physical`` triangle data named by ``field_data``) or meshio cell sets;
    named lines from gmsh physical curve groups. A ``tetra10`` mesh keeps its mid-side nodes
    (:attr:`TetMesh.midside`; a ``tetra`` block in the same file gets its edge midpoints)."""
    import meshio

    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise MeshError(f"mesh file = {path!r}: give the path of a mesh file (gmsh .msh or any format meshio reads)")
    path = Path(path)
    if units not in ("m", "mm"):
        raise MeshError(f"units must be 'm' or 'mm', got {units!r}")
    if not path.is_file():
        raise MeshError(f"mesh file {str(path)!r} does not exist{' (it is a folder)' if path.is_dir() else ''}; "
                        f"give the path of a mesh file (gmsh .msh or any format meshio reads)")
    try:
        # meshio tries ANSYS first for .msh (and prints its failure): gmsh is what .msh means here
        m = meshio.read(path, file_format="gmsh" if path.suffix.lower() == ".msh" else None)
    except Exception as exc:  # meshio raises many types for unreadable files
        raise MeshError(f"cannot read mesh file {str(path)!r}: {exc}; give a gmsh .msh or a format meshio reads") \
            from None
    kinds = sorted({c.type for c in m.cells})
    vol = [c for c in m.cells if c.type in ACCEPTED]
    if not vol:
        raise MeshError(f"{path}: no tetrahedra in the mesh (cell types found: {kinds}); structcheck accepts "
                        f"{ACCEPTED} (mesh the volume with 3D tetrahedra, e.g. gmsh -3)")
    others = [k for k in kinds if k not in ACCEPTED + ("triangle", "triangle6", "line", "line3", "vertex")]
    if others:
        raise MeshError(f"{path}: unsupported volume cell types {others}; structcheck accepts {ACCEPTED} only")
    tets = np.vstack([c.data[:, :4] for c in vol]).astype(np.int64)
    scale = 1e-3 if units == "mm" else 1.0
    points = np.asarray(m.points[:, :3], float) * scale
    if not np.isfinite(points).all():
        raise MeshError(f"{path}: {int((~np.isfinite(points).any(axis=1)).sum())} nodes have coordinates that are "
                        f"not finite (NaN or inf); export the mesh again")
    midside = None
    if any(c.type == "tetra10" for c in vol):
        midside = np.vstack([points[c.data[:, 4:10]] if c.type == "tetra10" else
                             points[c.data[:, TET10_EDGES]].mean(axis=2) for c in vol])
    surfaces, lines = _named_cells(m)
    # keep only the points the tets use
    used = np.unique(tets)
    remap = -np.ones(len(points), dtype=np.int64)
    remap[used] = np.arange(len(used))
    points = points[used]
    tets = remap[tets]
    for kind, named in (("surface", surfaces), ("line", lines)):
        for n, cells in named.items():
            if np.any(remap[cells] < 0):
                raise MeshError(f"{path}: {kind} {n!r} has cells on points that no tetrahedron uses")
            named[n] = remap[cells]
    check_mesh(points, tets, str(path), units, curved=midside is not None)
    # node order is a convention: make every element right-handed (a curved one by its map at the centroid)
    neg = tet_volumes(points, tets) < 0 if midside is None else curved_orientation(points, tets, midside) < 0
    tets[neg] = tets[neg][:, [0, 2, 1, 3]]
    if midside is not None:
        # swapping vertices 1 and 2 swaps the edges (0,1) <-> (0,2) and (1,3) <-> (2,3)
        midside[neg] = midside[neg][:, [2, 1, 0, 3, 5, 4]]
        check_curved(points, tets, midside, str(path))
    return TetMesh(points, tets, surfaces, lines, midside)


def _named_cells(m) -> tuple[dict, dict]:
    """The named surfaces (name -> triangles (k, 3), vertex indices) and lines (name -> segments (k, 2)) of a
    meshio mesh ``m``: gmsh physical groups (``gmsh:physical`` cell data named by ``field_data``), and triangle
    cell sets of other formats."""
    names = {1: {}, 2: {}}
    for name, (tag, dim) in (m.field_data or {}).items():
        if int(dim) in names:
            names[int(dim)][int(tag)] = name
    surfaces: dict[str, list] = {}
    lines: dict[str, list] = {}
    phys = m.cell_data.get("gmsh:physical")
    for k, c in enumerate(m.cells):
        kind = {"triangle": 2, "triangle6": 2, "line": 1, "line3": 1}.get(c.type)
        if kind is None or phys is None:
            continue
        dest, width = (surfaces, 3) if kind == 2 else (lines, 2)
        for tag in np.unique(phys[k]):
            if int(tag) in names[kind]:
                dest.setdefault(names[kind][int(tag)], []).append(c.data[phys[k] == tag, :width])
    for name, sets in (m.cell_sets or {}).items():
        if name in surfaces or name.startswith("gmsh:"):
            continue
        for k, idx in enumerate(sets):
            if idx is not None and len(idx) and m.cells[k].type in ("triangle", "triangle6"):
                surfaces.setdefault(name, []).append(m.cells[k].data[np.asarray(idx), :3])
    surfaces = {n: np.vstack(v).astype(np.int64) for n, v in surfaces.items()}
    lines = {n: np.vstack(v).astype(np.int64) for n, v in lines.items()}
    return surfaces, lines


def folded_elements(points: np.ndarray, tets: np.ndarray) -> np.ndarray:
    """Indices of tets that fold over a neighbour: the two tets sharing a face have their opposite vertices on
    the same side of it (an inverted element; independent of the node-order convention)."""
    m = len(tets)
    faces = np.concatenate([tets[:, [1, 2, 3]], tets[:, [0, 2, 3]], tets[:, [0, 1, 3]], tets[:, [0, 1, 2]]])
    opp = np.concatenate([tets[:, 0], tets[:, 1], tets[:, 2], tets[:, 3]])
    owner = np.tile(np.arange(m), 4)
    key = np.sort(faces, axis=1)
    _, inv, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    order = np.argsort(inv, kind="stable")
    shared = counts[inv[order]] == 2
    idx = order[shared].reshape(-1, 2)
    a, b = idx[:, 0], idx[:, 1]
    f = points[key[a]]
    n = np.cross(f[:, 1] - f[:, 0], f[:, 2] - f[:, 0])
    sa = np.einsum("ij,ij->i", points[opp[a]] - f[:, 0], n)
    sb = np.einsum("ij,ij->i", points[opp[b]] - f[:, 0], n)
    folded = sa * sb > 0
    return np.unique(np.concatenate([owner[a[folded]], owner[b[folded]]]))


def check_mesh(points: np.ndarray, tets: np.ndarray, where: str = "mesh", units: str = "m",
               curved: bool = False) -> None:
    """Raise MeshError for inverted or degenerate tets, or a size that does not fit the units. For the vertices
    of ``curved`` (10-node) tets only the size: their validity is their map's (:func:`check_curved`), the
    straight tets on their vertices may fold where gmsh's high-order optimization moved a vertex."""
    size = float(np.ptp(points, axis=0).max())
    if size > 50.0:
        hint = " (it looks like millimetres: pass units='mm')" if units == "m" else ""
        raise MeshError(f"{where}: the part is {size:.4g} m across, too large for a robot link{hint}")
    if size < 1e-3:
        hint = " (it looks like metres read as millimetres: pass units='m')" if units == "mm" else ""
        raise MeshError(f"{where}: the part is {size:.4g} m across, too small for a robot link{hint}")
    if curved:
        return
    vol = tet_volumes(points, tets)
    v = points[tets]
    edges = np.stack([v[:, a] - v[:, b] for a, b in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))], 1)
    lmax = np.linalg.norm(edges, axis=2).max(axis=1)
    quality = 6 * np.sqrt(2) * vol / np.maximum(lmax, 1e-300) ** 3  # 1 for a regular tet
    bad = folded_elements(points, tets)
    if len(bad):
        raise MeshError(f"{where}: {len(bad)} inverted element(s) (folded over a neighbour that shares a face), "
                        f"e.g. elements {bad[:8].tolist()}; fix their node order or re-mesh")
    flat = np.nonzero(np.abs(quality) <= 1e-8)[0]
    if len(flat):
        raise MeshError(f"{where}: {len(flat)} degenerate element(s) (zero volume), e.g. elements "
                        f"{flat[:8].tolist()}; re-mesh")


# ---------------------------------------------------------------------- geometric selections
# A selector maps points x (3, n) [m] (facet or edge midpoints, link frame) to a bool mask (n,); use it with
# Part.select_facets / Part.select_edges or Part.from_mesh(surfaces={name: selector}).

def cylinder_selector(axis_point, axis_dir, radius: float, axial_range=None):
    """Points within ``radius`` [m] of the axis through ``axis_point`` (3,) along ``axis_dir`` (3,), and, if
    ``axial_range`` = (lo, hi) is given, with axial coordinate s = (x - axis_point) . axis_dir / |axis_dir| in
    [lo, hi] [m]. E.g. the bore of a joint: the boundary facets within radius r of the joint axis."""
    p = np.asarray(axis_point, float)
    a = np.asarray(axis_dir, float)
    if p.shape != (3,) or a.shape != (3,) or not np.linalg.norm(a) > 0:
        raise InputError(f"cylinder_selector needs a point (3,) and a non-zero direction (3,), got {axis_point!r}, "
                         f"{axis_dir!r}")
    if not radius > 0:
        raise InputError(f"cylinder_selector radius must be > 0, got {radius!r}")
    a = a / np.linalg.norm(a)
    lo, hi = (-np.inf, np.inf) if axial_range is None else (float(axial_range[0]), float(axial_range[1]))

    def select(x):
        d = np.asarray(x, float) - p[:, None]
        s = a @ d
        r = np.linalg.norm(d - np.outer(a, s), axis=0)
        return (r <= radius) & (s >= lo) & (s <= hi)

    return select


def plane_selector(point, normal, tol: float = 1e-6):
    """Points within ``tol`` [m] of the plane through ``point`` (3,) with normal ``normal`` (3,)."""
    p = np.asarray(point, float)
    n = np.asarray(normal, float)
    if p.shape != (3,) or n.shape != (3,) or not np.linalg.norm(n) > 0:
        raise InputError(f"plane_selector needs a point (3,) and a non-zero normal (3,), got {point!r}, {normal!r}")
    n = n / np.linalg.norm(n)

    def select(x):
        return np.abs(n @ (np.asarray(x, float) - p[:, None])) <= tol

    return select


def box_selector(lo, hi):
    """Points inside the axis-aligned box lo <= x <= hi (each (3,), [m]; use +-inf for an open side)."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    if lo.shape != (3,) or hi.shape != (3,) or np.any(lo > hi):
        raise InputError(f"box_selector needs lo (3,) <= hi (3,), got {lo!r}, {hi!r}")

    def select(x):
        x = np.asarray(x, float)
        return np.all((x >= lo[:, None]) & (x <= hi[:, None]), axis=0)

    return select
