"""Mesh reading: gmsh physical groups -> named facets and lines, units, checks with specific errors, exact mass
properties (box and tetrahedron closed forms), geometric selectors, STEP import through gmsh."""
import numpy as np
import pytest

from structcheck.errors import InputError, MeshError
from structcheck.fe.part import Part
from structcheck.geometry import PartBuilder, import_step, on_plane
from structcheck.fe.mesh import (box_selector, check_mesh, cylinder_selector, mass_properties, plane_selector,
                              read_mesh)

# a block 0.1 x 0.06 x 0.04 m with a through bore of radius R along z at (0.05, 0.03)
A, B, H, R = 0.1, 0.06, 0.04, 0.01
N_AROUND = 64  # facets around the bore


def build_block(path, scale=1.0):
    """Write the block as gmsh .msh 4.1 with surfaces 'end' (x = 0), 'top' (z = H), 'bore' and the line 'edge'
    (x = y = 0), all lengths times ``scale`` (1000 writes millimetres)."""
    s = scale
    with PartBuilder("block", mesh_size=0.01 * s, curvature_points=N_AROUND, min_size=4e-4 * s) as b:
        body = b.cut(b.box((0, 0, 0), (A * s, B * s, H * s)),
                     b.cylinder((0.05 * s, 0.03 * s, 0.02 * s), (0, 0, 1), R * s, 0.06 * s))
        b.name_faces("end", on_plane(0, 0.0))
        b.name_faces("top", on_plane(2, H * s))
        b.name_faces("bore", lambda c, bb: abs(bb[0] - (0.05 - R) * s) < 1e-6 * s and bb[5] - bb[2] > 0.03 * s)
        b.name_lines("edge", lambda c, bb: max(abs(bb[0]), abs(bb[3]), abs(bb[1]), abs(bb[4])) < 1e-6 * s)
        b.build(body)
        return b.write(path)


@pytest.fixture(scope="module")
def block_file(tmp_path_factory):
    return build_block(tmp_path_factory.mktemp("block") / "block.msh")


@pytest.fixture(scope="module")
def block(block_file):
    return Part.from_mesh(block_file, material="6061-O")


def test_gmsh_physical_surfaces_map_to_facets_with_the_right_areas(block_file, block):
    assert block_file.read_text().startswith("$MeshFormat\n4.1 0 8")
    assert set(block.surfaces) == {"end", "top", "bore"} and block.edges == ("edge",)
    # planar faces are exact
    assert block.surface_geometry("end")[0] == pytest.approx(B * H, rel=1e-12)
    # curved faces are inscribed polyhedra: a bore with n >= 64 facets around loses at most
    # 1 - sin(pi/n)/(pi/n) = 0.04 % of its area; the top face gains the area the polygonal hole misses
    n = N_AROUND
    bore = block.surface_geometry("bore")[0]
    assert 2 * np.pi * R * H * (1 - 1.2 * (1 - np.sin(np.pi / n) / (np.pi / n))) <= bore <= 2 * np.pi * R * H
    hole_loss = np.pi * R * R * (1 - np.sin(2 * np.pi / n) / (2 * np.pi / n))
    assert block.surface_geometry("top")[0] == pytest.approx(A * B - np.pi * R * R, abs=1.5 * hole_loss)
    # every vertex of the bore lies on the cylinder, every vertex of 'top' on z = H
    v = block.mesh.p[:, block.mesh.facets[:, block.surface_facets("bore")]].reshape(3, -1)
    np.testing.assert_allclose(np.hypot(v[0] - 0.05, v[1] - 0.03), R, rtol=1e-6)
    v = block.mesh.p[:, block.mesh.facets[:, block.surface_facets("top")]]
    np.testing.assert_allclose(v[2], H, atol=1e-12)
    # the physical curve: nodes of the named line lie on x = y = 0 and span its length
    nodes = block.named_nodes("edge")
    np.testing.assert_allclose(block.points[nodes, :2], 0.0, atol=1e-12)
    assert np.ptp(block.points[nodes, 2]) == pytest.approx(H)


def test_geometric_selectors_reproduce_the_physical_groups(block_file, block):
    part = Part.from_mesh(block_file, "6061-O", surfaces={
        "bore_sel": cylinder_selector((0.05, 0.03, 0.0), (0, 0, 1), R * 1.0001, axial_range=(-1e-9, H + 1e-9)),
        "end_sel": plane_selector((0, 0, 0), (1, 0, 0)),
        "corner": box_selector((-1, -1, -1), (0.02, 0.02, 1))})
    assert np.array_equal(np.sort(part.surface_facets("bore_sel")), np.sort(block.surface_facets("bore")))
    assert np.array_equal(np.sort(part.surface_facets("end_sel")), np.sort(block.surface_facets("end")))
    mid = part.mesh.p[:, part.mesh.facets[:, part.surface_facets("corner")]].mean(axis=1)
    assert np.all(mid[0] <= 0.02) and np.all(mid[1] <= 0.02)
    # the axial range restricts the selection along the axis (here to the lower half of the bore)
    half = part.select_facets(cylinder_selector((0.05, 0.03, 0.0), (0, 0, 2.0), R * 1.0001, (0.0, H / 2)))
    zmid = part.mesh.p[2, part.mesh.facets[:, half]].mean(axis=0)
    assert 0 < len(half) < len(block.surface_facets("bore")) and np.all(zmid <= H / 2)
    # an empty selection is an error naming the surface
    with pytest.raises(InputError, match="surface 'nothing' is empty"):
        Part.from_mesh(block_file, "6061-O", surfaces={"nothing": box_selector((5, 5, 5), (6, 6, 6))})
    with pytest.raises(InputError, match="non-zero direction"):
        cylinder_selector((0, 0, 0), (0, 0, 0), 1.0)


def test_unknown_surface_names_list_the_available_ones(block):
    with pytest.raises(InputError, match=r"no surface 'flange'.*\['bore', 'end', 'top'\]"):
        block.surface_facets("flange")
    with pytest.raises(InputError, match=r"no surface or line 'rim'.*\['bore', 'end', 'top'\].*\['edge'\]"):
        block.solve_static(fixed=["end"], fixed_components={"rim": "z"})


def test_millimetres_are_converted_and_wrong_units_are_named(tmp_path, block_file):
    mm = build_block(tmp_path / "block_mm.msh", scale=1000.0)
    part = Part.from_mesh(mm, "6061-O", units="mm")
    assert np.ptp(part.points, axis=0) == pytest.approx([A, B, H], rel=1e-12)
    assert part.surface_geometry("end")[0] == pytest.approx(B * H, rel=1e-12)
    assert part.mass_properties().volume == pytest.approx(Part.from_mesh(block_file, "6061-O").mass_properties().volume,
                                                          rel=2e-4)  # two meshes of the same solid
    with pytest.raises(MeshError, match="100 m across, too large.*looks like millimetres: pass units='mm'"):
        read_mesh(mm, units="m")
    with pytest.raises(MeshError, match="0.0001 m across, too small.*looks like metres read as millimetres"):
        read_mesh(block_file, units="mm")
    with pytest.raises(MeshError, match="units must be 'm' or 'mm'"):
        read_mesh(block_file, units="inch")


def test_step_import_through_gmsh(tmp_path):
    import gmsh

    step = tmp_path / "block.step"
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add("cad")
        box = gmsh.model.occ.addBox(0, 0, 0, 100, 60, 40)  # millimetres, as CAD writes them
        hole = gmsh.model.occ.addCylinder(50, 30, -10, 0, 0, 60, 10)
        gmsh.model.occ.cut([(3, box)], [(3, hole)])
        gmsh.model.occ.synchronize()
        gmsh.write(str(step))
    finally:
        gmsh.clear()
    out = import_step(step, "cad_block", {"end": on_plane(0, 0.0)}, mesh_size=0.01, out=tmp_path / "cad.msh",
                      scale=1e-3)
    part = Part.from_mesh(out, "6061-O")
    # the polygonal bore of a 16-facet curvature mesh adds at most 3 % of the bore volume to the solid
    exact = A * B * H - np.pi * R * R * H
    assert part.mass_properties().volume == pytest.approx(exact, rel=0.03 * np.pi * R * R * H / exact)
    assert part.surface_geometry("end")[0] == pytest.approx(B * H, rel=1e-12)
    with pytest.raises(InputError, match="does not exist"):
        import_step(tmp_path / "missing.step", "x", {}, 0.01, tmp_path / "x.msh")


def test_mass_properties_of_a_box_are_exact(rng):
    from skfem import MeshTet

    a, b, c, rho = 0.2, 0.06, 0.05, 2750.0
    mesh = MeshTet.init_tensor(np.linspace(0.1, 0.1 + a, 5), np.linspace(-0.02, -0.02 + b, 3),
                               np.linspace(0, c, 4))
    mp = mass_properties(mesh.p.T, mesh.t.T, rho)
    m = rho * a * b * c
    assert mp.mass == pytest.approx(m, rel=1e-13)
    np.testing.assert_allclose(mp.com, [0.1 + a / 2, -0.02 + b / 2, c / 2], rtol=1e-13)
    I = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    np.testing.assert_allclose(mp.inertia_com, I, atol=1e-13 * np.abs(I).max())
    # parallel axes: about the origin I_O = I_c + m (|d|^2 1 - d d^T)
    d = mp.com
    np.testing.assert_allclose(mp.inertia_origin, I + m * (d @ d * np.eye(3) - np.outer(d, d)), rtol=1e-12)
    # a rotated and moved box: I_c' = Q I_c Q^T, com' = Q com + t; node order flips do not matter
    Q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    t = np.array([0.3, -0.1, 0.7])
    tets = mesh.t.T.copy()
    tets[::2] = tets[::2][:, [1, 0, 2, 3]]
    mq = mass_properties(mesh.p.T @ Q.T + t, tets, rho)
    assert mq.mass == pytest.approx(m, rel=1e-13)
    np.testing.assert_allclose(mq.com, Q @ mp.com + t, atol=1e-14)
    np.testing.assert_allclose(mq.inertia_com, Q @ I @ Q.T, atol=1e-12 * np.abs(I).max())


def test_mass_properties_of_the_unit_tetrahedron():
    """Monomial integrals over the unit simplex: int x^a y^b z^c dV = a! b! c! / (a + b + c + 3)!."""
    p = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    mp = mass_properties(p, np.array([[0, 1, 2, 3]]), 1.0)
    assert mp.volume == pytest.approx(1 / 6, rel=1e-14)
    np.testing.assert_allclose(mp.com, 0.25, rtol=1e-14)
    xx, xy = 2 / 120, 1 / 120  # int x^2 dV, int x y dV
    I_O = np.full((3, 3), -xy)
    np.fill_diagonal(I_O, 2 * xx)
    np.testing.assert_allclose(mp.inertia_origin, I_O, rtol=1e-13)


def test_inverted_and_degenerate_elements_are_errors(tmp_path):
    import meshio

    base = np.array([[0.0, 0, 0], [0.1, 0, 0], [0, 0.1, 0]])
    # two tets on the same face with both apexes on the same side: one folds over the other
    pts = np.vstack([base, [[0.02, 0.02, 0.1], [0.03, 0.03, 0.05]]])
    with pytest.raises(MeshError, match=r"2 inverted element\(s\).*fix their node order or re-mesh"):
        check_mesh(pts, np.array([[0, 1, 2, 3], [0, 2, 1, 4]]))
    # the correct pair (apexes on both sides) passes
    check_mesh(np.vstack([base, [[0.02, 0.02, 0.1], [0.03, 0.03, -0.05]]]), np.array([[0, 1, 2, 3], [0, 2, 1, 4]]))
    # a flat element (its apex in the base plane) read from a file
    flat = np.vstack([base, [[0.02, 0.02, 0.1], [0.03, 0.03, 0.0]]])
    path = tmp_path / "flat.vtu"
    meshio.Mesh(flat, [("tetra", np.array([[0, 1, 2, 3], [0, 1, 2, 4]]))]).write(path)
    with pytest.raises(MeshError, match=r"flat.vtu: 1 degenerate element\(s\) \(zero volume\), e.g. elements \[1\]"):
        read_mesh(path)


def test_unsupported_cells_are_named(tmp_path):
    import meshio

    cube = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]]) * 0.1
    hexa = tmp_path / "hexa.vtu"
    meshio.Mesh(cube, [("hexahedron", np.arange(8)[None])]).write(hexa)
    with pytest.raises(MeshError, match=r"no tetrahedra in the mesh \(cell types found: \['hexahedron'\]\)"):
        read_mesh(hexa)
    mixed = tmp_path / "mixed.vtu"
    meshio.Mesh(cube, [("hexahedron", np.arange(8)[None]), ("tetra", np.array([[0, 1, 3, 4]]))]).write(mixed)
    with pytest.raises(MeshError, match=r"unsupported volume cell types \['hexahedron'\]"):
        read_mesh(mixed)
    with pytest.raises(MeshError, match="does not exist"):
        read_mesh(tmp_path / "nothing.msh")


def test_curved_elements_on_vertices_moved_by_gmsh_are_read():
    """gmsh's high-order optimization (Mesh.HighOrderOptimize) moves vertices as well as mid-side nodes, so a valid
    curved mesh can sit on vertices whose straight tets fold. tests/data/gmsh_moved_vertices.msh: the 100 curved
    elements around 7 such tets of a gmsh 4.15 wrist mesh (R5 fillet, 6 elements per quarter circle at size factor
    0.571), refused as "inverted" when the straight tets were checked. Read now, each element oriented by its map;
    pushing one mid-side node across its element still folds the map and is refused."""
    from pathlib import Path

    import meshio

    from structcheck.fe.mesh import TET10_EDGES, check_curved, curved_quality, folded_elements

    path = Path(__file__).resolve().parents[1] / "data" / "gmsh_moved_vertices.msh"
    raw = meshio.read(path, file_format="gmsh").cells_dict["tetra10"]
    assert len(folded_elements(meshio.read(path, file_format="gmsh").points, raw[:, :4])) == 7
    tm = read_mesh(path)
    q = curved_quality(tm.points, tm.tets, tm.midside)
    assert len(q) == 100 and q.min() > 0.15  # measured 0.178: valid, if not well shaped
    folded = tm.midside.copy()
    a, b = TET10_EDGES[0]
    far = tm.points[tm.tets[0, 3]]  # vertex 3, opposite edge (0, 1)
    folded[0, 0] = 2 * far - 0.5 * (tm.points[tm.tets[0, a]] + tm.points[tm.tets[0, b]])
    with pytest.raises(MeshError, match="1 curved element\\(s\\) with a folded map"):
        check_curved(tm.points, tm.tets, folded, "moved")
