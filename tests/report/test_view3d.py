"""structcheck.report.view3d, called directly: the surface of a tet grid against a cube's closed-form area, volume
(divergence theorem: outward triangles) and Euler characteristic; the scene's true scale; typed arrays."""
import base64

import numpy as np
import pytest

from helpers import beam
from structcheck.report.view3d import LONGEST_SIDE, surface, true_scale, typed


def cube_grid():
    """The unit cube [0, 1] x [-1/2, 1/2]^2 as 2 x 2 x 2 hexahedra split into P2 tets, a VTK grid, every tet of
    positive volume (the tensor mesh has both orientations: corners 1 and 2 swapped, with their mid-side nodes,
    where the volume is negative)."""
    import pyvista as pv

    part = beam(1.0, 1.0, 1.0, 2, n_side=2)
    c, x = part.cells, part.points
    volume = np.einsum("ij,ij->i", np.cross(x[c[:, 1]] - x[c[:, 0]], x[c[:, 2]] - x[c[:, 0]]), x[c[:, 3]] - x[c[:, 0]])
    cells = np.where(volume[:, None] > 0, c, c[:, [0, 2, 1, 3, 6, 5, 4, 7, 9, 8]])
    return pv.UnstructuredGrid({24: cells}, x)


@pytest.mark.parametrize("split, per_face", [(False, 1), (True, 4)])
def test_cube_surface(split, per_face):
    grid = cube_grid()
    nodes, tri = surface(grid, split=split)
    # 6 faces x 2 x 2 squares x 2 triangles, each quadratic one drawn as 4 through its mid-side nodes
    assert len(tri) == 6 * 4 * 2 * per_face
    p = np.asarray(grid.points)[nodes][tri]  # (m, 3, 3)
    cross = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    assert 0.5 * np.linalg.norm(cross, axis=1).sum() == pytest.approx(6.0, rel=1e-12)  # the cube's area
    # divergence theorem: V = (1/3) sum (c . n) A over outward triangles
    assert np.sum(p.mean(axis=1) * cross) / 6 == pytest.approx(1.0, rel=1e-12)
    # a closed surface of genus 0: V - E + F = 2
    edges = np.unique(np.sort(np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]]), axis=1), axis=0)
    assert len(nodes) - len(edges) + len(tri) == 2
    x = np.asarray(grid.points)[nodes]
    on_face = np.isclose(np.abs(x[:, 1:]).max(axis=1), 0.5) | np.isclose(x[:, 0], 0) | np.isclose(x[:, 0], 1)
    assert on_face.all()  # every surface node on the cube's faces


def test_true_scale_keeps_one_scale():
    pts = [np.array([[0, 0, 0], [1000.0, 0, 0]]), np.array([[0, 200.0, 50.0]])]
    scene = true_scale(pts)
    r = scene["aspectratio"]
    assert r["x"] == pytest.approx(LONGEST_SIDE)
    assert r["y"] / r["x"] == pytest.approx((200 + 40) / (1000 + 40))  # padded 2% of the longest side each end
    assert scene["xaxis"]["range"] == pytest.approx([-20.0, 1020.0])
    assert scene["aspectmode"] == "manual"


def test_typed_is_float32_base64():
    v = np.array([1.0, -2.5, 1e-7, 3.0e5])
    t = typed(v)
    assert t["dtype"] == "f4"
    np.testing.assert_array_equal(np.frombuffer(base64.b64decode(t["bdata"]), np.float32), v.astype(np.float32))
