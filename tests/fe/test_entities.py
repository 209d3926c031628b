"""skfem's edges and facets found by integer keys (structcheck.fe.entities) are skfem's own arrays, element for
element, on every kind of mesh skfem builds them for; finding faces in a table agrees with a plain dictionary."""
import numpy as np
import pytest
import skfem
from skfem.mesh.mesh import Mesh

from structcheck.fe import entities
from structcheck.fe.mesh import read_mesh

from conftest import ROOT

SKFEM = Mesh.__dict__["build_entities"].__func__.original  # skfem's own search, kept by install()


def shuffled_tets(seed=0):
    """A refined, distorted cube of tets with its vertices renumbered at random (so that entity order is not the
    generation order)."""
    m = skfem.MeshTet.init_tensor(*(np.linspace(0, 1, 6),) * 3)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(m.nvertices)
    return skfem.MeshTet(m.p[:, np.argsort(perm)] + 0.01 * rng.standard_normal(m.p.shape), perm[m.t])


def shipped(name):
    tm = read_mesh(ROOT / "meshes" / "paper004" / f"{name}.msh")
    return skfem.MeshTet(np.ascontiguousarray(tm.points.T), np.ascontiguousarray(tm.tets.T))


MESHES = {
    "tets": shuffled_tets,
    "curved tets": lambda: skfem.MeshTet2.init_ball(1),
    "hexes": lambda: skfem.MeshHex.init_tensor(*(np.linspace(0, 1, 4),) * 3),
    "triangles": lambda: skfem.MeshTri.init_circle(3),
    "quads": lambda: skfem.MeshQuad.init_tensor(np.linspace(0, 1, 5), np.linspace(0, 2, 4)),
    "shipped wrist": lambda: shipped("wrist"),
}


@pytest.mark.parametrize("kind", MESHES)
def test_edges_and_facets_are_skfems_own(kind):
    mesh = MESHES[kind]()
    refdom = mesh.elem.refdom
    tables = [(mesh.t, refdom.facets), (mesh.t, refdom.edges)]
    if mesh.dim() == 3:
        tables.append((SKFEM(mesh.t, refdom.facets)[0], mesh.bndelem.refdom.facets))  # facets' edges (f2e)
    for t, indices in tables:
        if indices is None:
            continue
        ours, theirs = entities.build_entities(t, indices), SKFEM(t, indices)
        for a, b in zip(ours, theirs):
            assert a.dtype == b.dtype and np.array_equal(a, b), kind
    if kind == "hexes":  # skfem asks for its hexes' facets unsorted: its own search answers
        return
    # the installed search is ours: a mesh's own properties give the same arrays as skfem's search
    fresh = MESHES[kind]()
    assert np.array_equal(fresh.facets, SKFEM(fresh.t, refdom.facets)[0])
    assert np.array_equal(fresh.t2f, SKFEM(fresh.t, refdom.facets)[1])


def test_keys_beyond_int64_fall_back_to_skfems_search():
    t = np.array([[0, 1], [3_000_000, 2], [3_000_001, 3], [3_000_002, 4]])  # facet keys base^3 > 2^63
    assert entities.build_entities(t, [[0, 1, 2]]) is None
    assert entities.row_keys(np.array([[0], [3_000_000], [1]])) is None
    ours = Mesh.build_entities(t, [[0, 1, 2], [1, 2, 3]])  # the installed search: skfem's answer
    for a, b in zip(ours, SKFEM(t, [[0, 1, 2], [1, 2, 3]])):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("big", [False, True])
def test_find_columns_agrees_with_a_dictionary(big):
    mesh = shuffled_tets(1)
    table = mesh.facets + (3_000_000 if big else 0)  # big: keys beyond int64, numpy's own search
    rng = np.random.default_rng(2)
    pick = rng.choice(table.shape[1], 40, replace=False)
    cols = np.hstack([table[:, pick], [[1], [2], [3]]])  # 40 faces, then one that is not in the table
    cols = np.take_along_axis(cols, np.argsort(rng.random(cols.shape), axis=0), axis=0)  # vertex order shuffled
    where = {tuple(sorted(c)): i for i, c in enumerate(table.T)}
    expected = [where.get(tuple(sorted(c)), -1) for c in cols.T]
    assert entities.find_columns(table, cols).tolist() == expected
    assert entities.find_columns(table, cols[:, :0]).shape == (0,)
