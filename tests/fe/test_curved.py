"""Curved (isoparametric) P2 tets from second-order gmsh meshes: mid-side nodes on the CAD surface, exact curved
mass properties and load resultants, consistency with the straight path on straight edges, element-node stresses
at the mid-side nodes, and the curved verification cases (Lame, torsion, Peterson) beside the straight-edged
results on the same mesh."""
import numpy as np
import pytest

from structcheck import verify
from structcheck.errors import InputError
from structcheck.fe.geometry import PartBuilder, on_plane
from structcheck.fe.part import Part

RO, RI, L = 0.05, 0.03, 0.1


@pytest.fixture(scope="module")
def tube_file(tmp_path_factory):
    """A thick tube (r 30..50 mm, 100 mm long along z) meshed second order, 8 elements around."""
    with PartBuilder("tube", mesh_size=0.02, order=2) as b:
        body = b.tube((0, 0, L / 2), (0, 0, 1), RO, RI, L)
        b.name_faces("root", on_plane(2, 0.0))
        b.name_faces("tip", on_plane(2, L))
        b.name_faces("bore", lambda c, bb: bb[3] < 1.01 * RI and bb[5] - bb[2] > 0.9 * L)
        b.divide_lines(lambda c, bb: bb[5] - bb[2] < 1e-5, 8)
        b.build(body)
        assert b.surface_deviation < 1e-12  # every boundary node, mid-side nodes too, on its CAD surface
        return b.write(tmp_path_factory.mktemp("tube") / "tube.msh")


@pytest.fixture(scope="module")
def tube(tube_file):
    return Part.from_mesh(tube_file, "6061-O")


def test_tetra10_mesh_gives_curved_elements_with_nodes_on_the_bore(tube, tube_file):
    assert tube.geometry_order == 2 and Part.from_mesh(tube_file, "6061-O", geometry_order=1).geometry_order == 1
    x = tube.points[tube.surface_nodes("bore")]
    np.testing.assert_allclose(np.hypot(x[:, 0], x[:, 1]), RI, rtol=1e-9)  # mid-side nodes too
    straight = tube.with_straight_edges()
    xs = straight.points[straight.surface_nodes("bore")]
    assert np.hypot(xs[:, 0], xs[:, 1]).min() < RI * 0.95  # chord midpoints of 45 degree arcs: cos(22.5 deg)


def test_geometry_order_2_needs_midside_nodes(tmp_path):
    with PartBuilder("box", mesh_size=0.02) as b:
        b.build(b.box((0, 0, 0), (0.05, 0.05, 0.05)))
        path = b.write(tmp_path / "box.msh")
    assert Part.from_mesh(path, "6061-T6").geometry_order == 1
    with pytest.raises(InputError, match="geometry_order=2 needs mid-side nodes"):
        Part.from_mesh(path, "6061-T6", geometry_order=2)


def test_curved_mass_properties_match_the_consistent_mass_and_the_tube(tube):
    mp = tube.mass_properties()
    rho = tube.material.density
    m = rho * np.pi * (RO ** 2 - RI ** 2) * L
    # P2 interpolation of a 45 degree arc: the volume error is ~1e-4, the straight-edged 5 %
    assert mp.mass == pytest.approx(m, rel=3e-4)
    assert abs(tube.with_straight_edges().mass_properties().mass / m - 1) > 0.03
    Izz = m * (RO ** 2 + RI ** 2) / 2
    assert mp.inertia_com[2, 2] == pytest.approx(Izz, rel=1e-3)
    # the 7th-order rule is exact for the curved geometry: M and the body loads integrate the same measure
    one = np.zeros(tube.n_dofs)
    one[tube.node_dofs[:, 0]] = 1.0
    assert one @ tube.mass_matrix @ one == pytest.approx(mp.mass, rel=1e-12)
    res = tube.resultant(tube.body_load_basis() @ np.r_[0, 0, -9.81, np.zeros(9)])
    np.testing.assert_allclose(res[:3], [0, 0, -9.81 * mp.mass], rtol=1e-12)
    np.testing.assert_allclose(res[3:], np.cross(mp.com, [0, 0, -9.81 * mp.mass]), atol=1e-12 * mp.mass)


def test_interface_resultants_are_exact_on_curved_surfaces(tube):
    F, M, p = np.array([30.0, -50.0, 120.0]), np.array([4.0, -7.0, 2.0]), np.array([0.1, 0.02, 0.3])
    for surface in ("bore", "tip"):
        res = tube.resultant(tube.wrench_basis(surface, p) @ np.r_[F, M])
        np.testing.assert_allclose(res[:3], F, atol=1e-10 * 150)
        np.testing.assert_allclose(res[3:] - np.cross(p, res[:3]), M, atol=1e-10 * 150 * 0.05)
    # pressure on the whole closed boundary has no resultant (the curved surface is closed)
    closed = tube.with_surfaces({"all": tube.mesh.boundary_facets()})
    assert np.abs(closed.resultant(closed.pressure_load("all", 1e5))[:3]).max() < 1e-10 * 1e5 * 0.01
    A = tube.surface_geometry("bore")[0]
    assert A == pytest.approx(2 * np.pi * RI * L, rel=3e-4)


def test_curved_facets_agree_with_skfem_isoparametric_facet_basis(tube):
    from skfem import ElementTetP2, ElementVector, FacetBasis, LinearForm

    fb = FacetBasis(tube.mesh, ElementVector(ElementTetP2()), facets=tube.surface_facets("tip"), intorder=4)

    @LinearForm
    def pressure(v, w):
        return -1e5 * (w.n[0] * v[0] + w.n[1] * v[1] + w.n[2] * v[2])

    ref = pressure.assemble(fb)
    np.testing.assert_allclose(tube.pressure_load("tip", 1e5), ref, atol=1e-12 * np.abs(ref).max())


def _isoparametric_everywhere(monkeypatch):
    """Make curved parts evaluate every element with the isoparametric kernels (no straight-element shortcut)."""
    from structcheck.fe import assembly, recovery

    def none_straight(nodes):
        return np.zeros(len(nodes), bool)

    monkeypatch.setattr(assembly, "straight_elements", none_straight)
    monkeypatch.setattr(recovery, "straight_elements", none_straight)


def test_straight_elements_of_a_curved_mesh_take_the_straight_rules_exactly(tube, tube_file, monkeypatch):
    """The tube's elements away from its round faces have straight edges: they take the straight-tet rules (4
    quadrature points, vertex stresses), which agree with the isoparametric kernels on them to round-off."""
    from structcheck.fe.assembly import straight_elements

    fast = tube
    straight = straight_elements(fast._element_maps.nodes)
    assert straight.any() and not straight.all()  # both kinds present
    u = np.random.default_rng(1).standard_normal(fast.n_dofs) * 1e-6
    _isoparametric_everywhere(monkeypatch)
    slow = Part.from_mesh(tube_file, "6061-O")
    for a, b in ((fast.stiffness, slow.stiffness), (fast.mass_matrix, slow.mass_matrix)):
        assert abs(a - b).max() <= 1e-13 * abs(b).max()
    s_f, s_s = fast.element_node_stress(u), slow.element_node_stress(u)
    np.testing.assert_allclose(s_f, s_s, atol=1e-12 * np.abs(s_s).max())


def test_curved_path_on_straight_edges_equals_the_straight_path(tube, monkeypatch):
    """Mid-side nodes at the edge midpoints: the isoparametric kernels reproduce the straight ones."""
    from skfem import MeshTet

    from structcheck.fe.part import _curved_mesh

    _isoparametric_everywhere(monkeypatch)

    straight = tube.with_straight_edges()
    mid = straight.points[straight.cells[:, 4:]]
    curved = Part(_curved_mesh(MeshTet(straight.mesh.p, straight.mesh.t), mid), straight.material)
    assert curved.geometry_order == 2
    for a, b in ((curved.stiffness, straight.stiffness), (curved.mass_matrix, straight.mass_matrix)):
        assert abs(a - b).max() <= 1e-11 * abs(b).max()
    np.testing.assert_allclose(curved.body_load_basis(), straight.body_load_basis(), atol=1e-13)
    u = np.random.default_rng(0).standard_normal(straight.n_dofs) * 1e-6
    s_c, s_s = curved.element_node_stress(u), straight.element_node_stress(u)
    np.testing.assert_allclose(s_c, s_s, atol=1e-9 * np.abs(s_s).max())


def test_linear_mesh_part_is_unchanged_by_the_tetra10_reader(tube_file):
    """The straight path of a tetra10 file is the linear-tet path on its vertices, bit for bit."""
    from skfem import MeshTet

    a = Part.from_mesh(tube_file, "6061-O", geometry_order=1)
    b = Part(MeshTet(a.mesh.p, a.mesh.t), a.material)
    assert (a.stiffness != b.stiffness).nnz == 0 and (a.mass_matrix != b.mass_matrix).nnz == 0
    assert np.array_equal(a.body_load_basis(), b.body_load_basis())


def test_rigid_rotation_has_no_stress_at_any_element_node(tube):
    """A small rigid rotation u = w x x is strain-free exactly for isoparametric elements (at the mid-side nodes
    too)."""
    w = np.array([1e-3, -2e-3, 3e-3])
    u = np.zeros(tube.n_dofs)
    u[tube.node_dofs] = np.cross(w, tube.points)
    assert np.abs(tube.element_node_stress(u)).max() < 1e-9 * tube.material.E * 1e-3
    # a uniform strain e_xx too: the stress at all 10 nodes of every element is the same
    u[:] = 0
    u[tube.node_dofs[:, 0]] = 1e-4 * tube.points[:, 0]
    s = tube.element_node_stress(u)[0]
    np.testing.assert_allclose(s, np.broadcast_to(s[0, 0], s.shape), atol=1e-9 * np.abs(s).max())


@pytest.fixture(scope="module")
def curved_rows():
    return verify.run_cases(["thick_cylinder", "tube_torsion", "plate_hole"], quick=True)


def test_curved_verification_cases_pass_and_straight_edges_are_worse(curved_rows):
    assert all(r["pass"] for r in curved_rows), [r for r in curved_rows if not r["pass"]]
    tol = {r["quantity"].split(",")[0]: r["tolerance"] for r in curved_rows if r["error"] is not None}
    assert tol == {"bore radial displacement [m] vs Lame (plane strain)": 0.005,
                   "bore von Mises [Pa]": 0.015, "twist [rad] vs T L / (G J)": 0.005, "K_tg": 0.02}
    ref = {r["case"]: r["reference"] for r in curved_rows if r["case"] == "plate_hole"}
    assert ref["plate_hole"] == 3.03


@pytest.mark.slow
def test_plate_hole_converges():
    rows = verify.run_cases(["plate_hole"])
    assert all(r["pass"] for r in rows)


def test_the_curved_element_optimization_runs_again_below_its_target():
    """gmsh's curved-element optimization is run again while an element stays below the target and a pass gains
    (its result varies from run to run: the imported wrist ended at minimum scaled Jacobian 0.068 once in six), at most
    HIGH_ORDER_PASSES times, with gmsh's abort-on-error off meanwhile (its optimizer throws from an OpenMP region,
    which aborts the process) and back after. In a process of its own (structcheck.isolated): the target is a
    module constant. A reachable target takes one pass; 0.99, out of reach, more, while they gain (measured 0.901,
    0.902, 0.927)."""
    from structcheck import isolated
    from structcheck.fe.high_order import HIGH_ORDER_PASSES

    import high_order_passes  # tests/fe is on sys.path (pytest), and so on the child's

    passes, worst, abort = isolated.call(high_order_passes.tube_passes, 0.3)
    assert len(passes) == 1 and passes[0] >= 0.3 and worst == passes[0] and abort == 2
    passes, worst, abort = isolated.call(high_order_passes.tube_passes, 0.99)
    assert 2 <= len(passes) <= HIGH_ORDER_PASSES and worst == passes[-1] and 0.5 < worst < 0.99 and abort == 2
    assert all(b > a for a, b in zip(passes[:-2], passes[1:-1]))  # it went on only while a pass gained
    assert len(passes) == HIGH_ORDER_PASSES or passes[-1] <= passes[-2]  # ... and stopped at the first that did not
