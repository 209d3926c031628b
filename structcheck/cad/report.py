"""The named surfaces of imported parts as a ParaView file, placed as in the CAD assembly."""
from __future__ import annotations

from pathlib import Path

import numpy as np


def write_surfaces(parts: dict, T: dict, path: Path) -> Path:
    """Write ``path`` (.vtm): one block per link (its boundary, grey in ParaView) and one per named surface,
    named ``<link>/<surface>``, in world axes, each link placed by ``T`` (link -> T_world_link (4, 4)) [m]; cell
    data ``surface`` numbers the surfaces of a link from 1 (0: unnamed boundary). Returns the path."""
    import pyvista as pv

    blocks = pv.MultiBlock()
    for link, part in parts.items():
        R, p = T[link][:3, :3], T[link][:3, 3]
        points = part.mesh.p.T @ R.T + p
        boundary = part.mesh.boundary_facets()
        label = np.zeros(part.mesh.facets.shape[1], dtype=np.int32)
        for k, name in enumerate(part.surfaces, 1):
            label[part.surface_facets(name)] = k
        blocks[link] = _triangles(points, part.mesh.facets[:, boundary].T, {"surface": label[boundary]})
        for k, name in enumerate(part.surfaces, 1):
            f = part.surface_facets(name)
            blocks[f"{link}/{name}"] = _triangles(points, part.mesh.facets[:, f].T, {"surface": label[f]})
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    blocks.save(str(path))
    return path


def _triangles(points: np.ndarray, tri: np.ndarray, cell_data: dict):
    """A pyvista PolyData of the triangles ``tri`` (k, 3) over ``points`` (n, 3), only the points they use."""
    import pyvista as pv

    used, local = np.unique(tri, return_inverse=True)
    faces = np.hstack([np.full((len(tri), 1), 3), local.reshape(-1, 3)]).ravel()
    mesh = pv.PolyData(points[used], faces)
    for name, values in cell_data.items():
        mesh.cell_data[name] = values
    return mesh
