"""Part (P2 tets): load resultants against closed forms (pressure sign, rigid-motion body loads), equilibrium of
support reactions, component (roller) supports against an exact linear solution, the averaged-motion (RBE3)
support against a clamp and Timoshenko, the singular clamped edge next to the stress away from it, inertia relief
against the rigid-body inertia of the mesh, and the interface operators (resultants of many loads at once, rigid
fit of a surface) against exact rigid motions."""
import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.fe.part import Part
from structcheck.spatial import skew
from structcheck.geometry import PartBuilder, on_plane
from structcheck.verify import beam_part, timoshenko_tip_deflection


@pytest.fixture(scope="module")
def ell(tmp_path_factory):
    """An L-shaped bracket (two fused boxes, no symmetry: its inertia has products) with a 'base' (z = 0),
    a 'flange' (x = 0.12) and a 'top' face (z = 0.1)."""
    path = tmp_path_factory.mktemp("ell") / "ell.msh"
    with PartBuilder("ell", mesh_size=0.015) as b:
        body = b.fuse(b.box((0, 0, 0), (0.03, 0.04, 0.1)), b.box((0, 0, 0.07), (0.12, 0.04, 0.1)))
        b.name_faces("base", on_plane(2, 0.0))
        b.name_faces("flange", on_plane(0, 0.12))
        b.name_faces("top", on_plane(2, 0.1))
        b.build(body)
        b.write(path)
    return Part.from_mesh(path, "304")


def test_pressure_pushes_into_the_surface(ell):
    p = 3e5
    A, c, _ = ell.surface_geometry("top")
    assert A == pytest.approx(0.12 * 0.04, rel=1e-12)
    res = ell.resultant(ell.pressure_load("top", p))
    # outward normal of the top face is +z: the resultant is -p A n, applied at the face centroid
    np.testing.assert_allclose(res[:3], [0, 0, -p * A], atol=1e-9 * p * A)
    np.testing.assert_allclose(res[3:], np.cross(c, [0, 0, -p * A]), atol=1e-9 * p * A * 0.1)
    res = ell.resultant(ell.pressure_load("flange", p))  # outward +x
    np.testing.assert_allclose(res[:3], [-p * 0.03 * 0.04, 0, 0], atol=1e-9 * p * A)


def test_body_load_resultants_equal_rigid_body_inertia(ell, rng):
    """int rho (g - a_O - al x x - w x (w x x)) dV = m (g - a_c) and its moment about the origin is
    m c x (g - a_O) - I_O al - w x I_O w, with the exact mass properties of the same mesh."""
    from structcheck.loads import body_coefficients  # moved out of fe

    mp = ell.mass_properties()
    m, c, I_O = mp.mass, mp.com, mp.inertia_origin
    assert abs(mp.inertia_com[0, 2]) > 1e-3 * np.abs(mp.inertia_com).max()  # a product of inertia: asymmetric
    g, a0, w, al = (rng.standard_normal((4, 3)) * [[9.81], [3.0], [2.0], [5.0]])
    res = ell.resultant(ell.body_load_basis() @ body_coefficients(g, a0, w, al)[0])
    a_com = a0 + np.cross(al, c) + np.cross(w, np.cross(w, c))
    np.testing.assert_allclose(res[:3], m * (g - a_com), atol=1e-12 * m * 20)
    moment = np.cross(c, m * (g - a0)) - I_O @ al - np.cross(w, I_O @ w)
    np.testing.assert_allclose(res[3:], moment, atol=1e-12 * m * 20 * 0.1)


def test_clamp_reactions_balance_all_applied_loads(ell):
    F, M, p = np.array([40.0, -25.0, 60.0]), np.array([2.0, 5.0, -3.0]), np.array([0.15, 0.02, 0.085])
    g, w, al, a0 = np.array([0, 0, -9.81]), np.array([0.0, 0.0, 3.0]), np.array([1.0, -2.0, 4.0]), np.array([0.5, 0, 0])
    sol = ell.solve_static(["base"], wrenches={"flange": (F, M, p)}, pressures={"top": 1e4}, gravity=g,
                           angular_velocity=w, angular_acceleration=al, acceleration=a0)
    from structcheck.loads import body_coefficients  # moved out of fe

    applied = (ell.resultant(ell.wrench_basis("flange", p) @ np.r_[F, M]) + ell.resultant(ell.pressure_load("top", 1e4))
               + ell.resultant(ell.body_load_basis() @ body_coefficients(g, a0, w, al)[0]))
    # the wrench itself is exact: force F and moment M about p
    wr = ell.resultant(ell.wrench_basis("flange", p) @ np.r_[F, M])
    np.testing.assert_allclose(wr[:3], F, rtol=1e-12)
    np.testing.assert_allclose(wr[3:] - np.cross(p, F), M, rtol=1e-12, atol=1e-12)
    scale = np.abs(applied).max()
    np.testing.assert_allclose(sol.reaction, -applied, atol=1e-9 * scale)


def _rigid_body_inertia(part):
    """6 x 6 inertia of the part's rigid motions (translation, small rotation about the origin) from its exact
    mass properties: [[m I, -m [c]x], [m [c]x, I_O]]."""
    mp = part.mass_properties()
    mc = mp.mass * skew(mp.com)
    return np.block([[mp.mass * np.eye(3), -mc], [mc, mp.inertia_origin]])


def test_rigid_body_modes_carry_the_exact_rigid_body_inertia(ell):
    """R^T M R of the six rigid motions with the consistent mass matrix is the closed-form rigid-body inertia:
    P2 represents linear fields exactly and straight tets have exact mass properties."""
    from structcheck.fe.supports import rigid_body_modes

    R = rigid_body_modes(ell.points, ell.node_dofs)
    ref = _rigid_body_inertia(ell)
    np.testing.assert_allclose(R.T @ (ell.mass_matrix @ R), ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    # the rotation columns are theta x x: rotating about z moves the point (1, 0, 0) along +y
    u = R[ell.node_dofs, 5]  # (n_nodes, 3)
    np.testing.assert_allclose(u, np.cross([0.0, 0.0, 1.0], ell.points), atol=1e-15)


def test_inertia_relief_balances_the_load_by_a_rigid_acceleration(ell):
    """A free part under an unbalanced wrench: the elastic forces K u equal the load minus the d'Alembert forces
    of the rigid acceleration a = I_rb^-1 (F, M) (rigid-body inertia from the mass properties), and u has no
    rigid part (M-orthogonal to the rigid motions)."""
    from structcheck.fe.supports import rigid_body_modes

    F, M, p = np.array([40.0, -25.0, 60.0]), np.array([2.0, 5.0, -3.0]), np.array([0.15, 0.02, 0.085])
    f = ell.wrench_basis("flange", p) @ np.r_[F, M]
    sol = ell.solve_static(wrenches={"flange": (F, M, p)}, support="inertia_relief")
    u = np.zeros(ell.n_dofs)
    u[ell.node_dofs] = sol.displacement
    R = rigid_body_modes(ell.points, ell.node_dofs)
    a = np.linalg.solve(_rigid_body_inertia(ell), ell.resultant(f))  # rigid acceleration (a_O, alpha)
    inertia = ell.mass_matrix @ (R @ a)
    np.testing.assert_allclose(ell.stiffness @ u, f - inertia, rtol=0, atol=1e-11 * np.abs(f).max())
    assert np.abs(R.T @ (ell.mass_matrix @ u)).max() < 1e-12 * np.abs(u).max() * ell.mass_properties().mass
    np.testing.assert_array_equal(sol.reaction, 0.0)
    with pytest.raises(InputError, match="inertia_relief' is a free part"):
        ell.solve_static(wrenches={"flange": (F, M, p)}, support="inertia_relief", fixed_components={"base": "z"})


def test_resultants_of_many_loads_equal_one_by_one(ell, rng):
    """Part.resultant of (n_dof, k) (the study's load_resultants) equals the resultant of each column."""
    from structcheck.fe.response import load_resultants

    F = np.hstack([ell.wrench_basis("flange", [0.15, 0.02, 0.085]), ell.body_load_basis()]) @ rng.standard_normal((18, 5))
    one_by_one = np.column_stack([ell.resultant(F[:, j]) for j in range(F.shape[1])])
    np.testing.assert_allclose(ell.resultant(F), one_by_one, rtol=0, atol=1e-13 * np.abs(one_by_one).max())
    np.testing.assert_array_equal(load_resultants(ell, F), ell.resultant(F))


def test_rigid_fit_operator_recovers_a_rigid_motion(ell, rng):
    """P u = (d, theta) exactly for u = d + theta x (x - point) on the surface's nodes, whatever u elsewhere."""
    from structcheck.fe.response import rigid_fit_operator

    point = np.array([0.12, 0.02, 0.085])
    P = rigid_fit_operator(ell, "flange", point)
    d, theta = rng.standard_normal(3) * 1e-4, rng.standard_normal(3) * 1e-3
    u = rng.standard_normal(ell.n_dofs)  # anything off the surface
    nodes = ell.surface_nodes("flange")
    u[ell.node_dofs[nodes]] = d + np.cross(theta, ell.points[nodes] - point)
    np.testing.assert_allclose(P @ u, np.r_[d, theta], rtol=1e-10)


def test_roller_supports_reproduce_uniaxial_tension_exactly():
    """A block held by rollers on three orthogonal faces (symmetry planes), pulled by a traction on the fourth:
    uniform stress, displacement u = (s x / E, -nu s y / E, -nu s z / E), which P2 elements represent exactly."""
    part = beam_part(0.1, 0.04, 0.03, 5, 2, "6061-O")
    lo = {"y0": lambda x: np.isclose(x[1], -0.02), "z0": lambda x: np.isclose(x[2], -0.015)}
    part = part.with_surfaces({**{n: part.surface_facets(n) for n in part.surfaces},
                               **{n: part.select_facets(f) for n, f in lo.items()}})
    s = 2e6
    sol = part.solve_static(pressures={"tip": -s}, fixed_components={"root": "x", "y0": "y", "z0": "z"})
    E, nu = part.material.E, part.material.nu
    x = part.points - [0.0, -0.02, -0.015]
    exact = np.column_stack([s * x[:, 0] / E, -nu * s * x[:, 1] / E, -nu * s * x[:, 2] / E])
    np.testing.assert_allclose(sol.displacement, exact, atol=1e-9 * np.abs(exact).max())
    np.testing.assert_allclose(sol.element_node_stress[..., 0], s, rtol=1e-8)
    np.testing.assert_allclose(sol.element_node_stress[..., 1:], 0.0, atol=1e-8 * s)
    # the rollers hold the block back against the pull: -s A along x, nothing across
    np.testing.assert_allclose(sol.reaction[:3], [-s * 0.04 * 0.03, 0, 0], rtol=1e-9, atol=1e-9 * s * 0.04 * 0.03)
    with pytest.raises(InputError, match=r"fixed_components\['root'\] must be letters of 'xyz'"):
        part.solve_static(pressures={"tip": -s}, fixed_components={"root": "xw"})


def test_named_line_supports_come_from_edge_selection():
    part = beam_part(0.1, 0.02, 0.02, 10, 2, "6061-O")
    edges = part.select_edges(lambda x: np.isclose(x[1], -0.01) & np.isclose(x[2], -0.01))
    assert len(edges) == 10  # one mesh edge per element along the beam's bottom corner line
    lined = part.with_edges({"corner": edges})
    nodes = lined.named_nodes("corner")
    assert len(nodes) == 21  # 11 vertices and 10 edge midpoints
    np.testing.assert_allclose(lined.points[nodes, 1:], -0.01)
    assert lined.with_surfaces({"root": part.surface_facets("root")}).edges == ("corner",)
    free = lined.free_dofs([], {"corner": "yz"})
    assert lined.n_dofs - len(free) == 2 * 21


@pytest.fixture(scope="module")
def stocky_beam():
    """L/h = 10: where a fully clamped 3D end and a Timoshenko clamp differ by about 1 %."""
    return beam_part(0.2, 0.02, 0.02, 20, 4, "structural_steel")


def test_averaged_support_vs_clamp(stocky_beam):
    part, P, L, h = stocky_beam, 100.0, 0.2, 0.02
    E, nu = part.material.E, part.material.nu
    I = h ** 4 / 12
    f = part.patch_force_basis("tip")[:, 2] * P
    clamp = part.solve_static(["root"], patch_forces={"tip": (0, 0, P)})
    avg = part.solve_static(["root"], patch_forces={"tip": (0, 0, P)}, support="averaged")
    # same reactions: both balance the load (force P, moment about the origin P L)
    expected = -part.resultant(f)
    np.testing.assert_allclose(clamp.reaction, expected, atol=1e-9 * P)
    np.testing.assert_allclose(avg.reaction, expected, atol=1e-9 * P)
    # the averaged support holds the mean translation and rotation of the root face, and nothing else
    u = np.zeros(part.n_dofs)
    u[part.node_dofs] = avg.displacement
    assert np.abs(part.averaged_motion("root").T @ u).max() < 1e-12 * np.abs(u).max()
    # ... the root face itself moves (warps), where the clamp holds it exactly
    root = part.surface_nodes("root")
    assert np.abs(avg.displacement[root]).max() > 1e-3 * np.abs(avg.displacement).max()
    assert np.abs(clamp.displacement[root]).max() == 0.0
    # the averaged root is the Timoshenko beam's clamp (section mean translation and rotation zero): it matches
    # the closed form closely, while the fully clamped 3D end is about 1 % stiffer at L/h = 10
    ref = timoshenko_tip_deflection(P, L, E, nu, h, h)
    assert f @ u / P == pytest.approx(ref, rel=2e-3)
    uc = np.zeros(part.n_dofs)
    uc[part.node_dofs] = clamp.displacement
    assert f @ uc / P < 0.995 * ref
    # softer local stress: no singular clamped edge; the root stress is the beam's P L (h/2) / I (the uniform
    # shear P/A adds 3 (h / 6L)^2 / 2 ~ 0.04 % to von Mises at the fibre)
    root_stress = P * L * h / 2 / I
    assert clamp.max_von_mises > 1.1 * root_stress
    assert avg.max_von_mises == pytest.approx(root_stress, rel=0.015)


def test_averaged_support_needs_its_surfaces(stocky_beam):
    with pytest.raises(InputError, match="support='averaged' needs the surfaces"):
        stocky_beam.solve_static([], patch_forces={"tip": (0, 0, 1.0)}, support="averaged")
    with pytest.raises(InputError, match="support must be 'clamp', 'averaged' or 'inertia_relief'"):
        stocky_beam.solve_static(["root"], support="pinned")
    with pytest.raises(InputError, match="no support given"):
        stocky_beam.solve_static([], patch_forces={"tip": (0, 0, 1.0)})


def test_clamped_edge_is_singular_but_the_stress_away_from_it_converges():
    """The clamp's peak grows with refinement (a singular edge); beyond a band of 2 h the maximum matches
    beam theory P (L - x) (h/2) / I at the nearest node outside the band."""
    L, h, P = 0.4, 0.02, 100.0
    I = h ** 4 / 12
    at_support, away = [], []
    for n_len, n_sec in ((20, 2), (40, 4)):
        part = beam_part(L, h, h, n_len, n_sec, "structural_steel")
        sol = part.solve_static(["root"], patch_forces={"tip": (0, 0, P)})
        band = 2 * h
        x_near = part.points[part.distance_to_surfaces(["root"]) > band, 0].min()
        away.append(sol.max_von_mises_outside(band, ["root"]) / (P * (L - x_near) * h / 2 / I))
        at_support.append(sol.max_von_mises / (P * L * h / 2 / I))
    assert away[0] == pytest.approx(1.0, abs=0.01) and away[1] == pytest.approx(1.0, abs=0.01)
    assert at_support[1] > at_support[0] * 1.02 > 1.1
