"""Property-based tests (hypothesis) of the finite-element foundations: interface-traction resultants of the
wrench load basis on random surfaces and wrenches, and mass properties under rigid motions of a tet mesh.

Derandomized (the same examples on every run); meshes are coarse so that the file runs in seconds.
"""
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation
from skfem import MeshTet

from structcheck.fe import Part
from structcheck.fe.geometry import PartBuilder, on_plane
from structcheck.fe.mesh import mass_properties

COMMON = dict(deadline=None, derandomize=True)
FACES = ("x0", "x1", "y0", "y1", "z0", "z1")


def box_part(size, origin, n=(3, 2, 2)):
    """A box [origin, origin + size] of linear tets (skfem's tensor mesh) with its six faces named."""
    lo, hi = np.asarray(origin, float), np.asarray(origin, float) + np.asarray(size, float)
    mesh = MeshTet.init_tensor(*(np.linspace(lo[k], hi[k], n[k] + 1) for k in range(3)))
    part = Part.from_skfem(mesh, "6061-O", name="box")
    tol = 1e-9 * max(size)
    return part.with_surfaces({f"{'xyz'[k]}{e}": part.select_facets(lambda x, k=k, v=(lo, hi)[e][k]:
                                                                  np.abs(x[k] - v) < tol)
                               for k in range(3) for e in (0, 1)})


@pytest.fixture(scope="module")
def cylinder(tmp_path_factory):
    """A gmsh cylinder along z (radius 0.04 m, length 0.15 m, base at z = 0) with 'bottom', 'top' and the curved
    'side' named."""
    path = tmp_path_factory.mktemp("props_fe") / "cylinder.msh"
    with PartBuilder("cylinder", mesh_size=0.03, curvature_points=8) as b:
        b.cylinder((0, 0, 0), (0, 0, 1), 0.04, 0.15, centered=False)
        b.name_faces("bottom", on_plane(2, 0.0))
        b.name_faces("top", on_plane(2, 0.15))
        b.name_faces("side", lambda c, bb: bb[5] - bb[2] > 0.1)
        b.build(None)
        b.write(path)
    return Part.from_mesh(path, "6061-O")


def _resultant_about(part, f, point):
    """Force and moment about ``point`` (6,) of a load vector f (n_dof,): sums over the P2 nodes, by hand."""
    fn = f[part.node_dofs]  # (n_nodes, 3)
    return np.r_[fn.sum(axis=0), np.cross(part.points - point, fn).sum(axis=0)]


def _check_wrench(part, surfaces, point, F, M):
    """The load vector of wrench (F, M) at ``point`` on the union of ``surfaces`` has exactly that resultant."""
    name = "+".join(surfaces)
    part = part.with_surfaces({**{s: part.surface_facets(s) for s in part.surfaces},
                               name: np.unique(np.concatenate([part.surface_facets(s) for s in surfaces]))})
    f = part.wrench_basis(name, point) @ np.r_[F, M]
    size = np.ptp(part.points, axis=0).max()
    scale = np.linalg.norm(F) + np.linalg.norm(M) / size
    got = _resultant_about(part, f, point)
    np.testing.assert_allclose(got[:3], F, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(got[3:], M, rtol=0, atol=1e-10 * scale * size)
    # Part.resultant (moment about the origin) agrees: M_O = M + p x F
    np.testing.assert_allclose(part.resultant(f), np.r_[F, M + np.cross(point, F)], rtol=0,
                               atol=1e-10 * scale * max(size, np.linalg.norm(point)))
    # the load sits on the surface: no force on nodes away from it (their shape functions vanish on the surface
    # up to round-off at the facet quadrature points)
    off = np.setdiff1d(np.arange(len(part.points)), part.surface_nodes(name))
    np.testing.assert_allclose(f[part.node_dofs[off]], 0.0, rtol=0, atol=1e-12 * scale)


vectors = st.tuples(*[st.floats(-1e3, 1e3)] * 3).map(np.array)


@settings(max_examples=25, **COMMON)
@given(size=st.tuples(*[st.floats(0.01, 0.5)] * 3), origin=st.tuples(*[st.floats(-0.5, 0.5)] * 3),
       surfaces=st.lists(st.sampled_from(FACES), min_size=1, max_size=3, unique=True),
       point=st.tuples(*[st.floats(-1, 1)] * 3).map(np.array), F=vectors, M=vectors)
def test_wrench_basis_resultant_on_random_boxes(size, origin, surfaces, point, F, M):
    """Interface tractions carry exactly the joint wrench: on a box of random size and position, a random
    surface (one face, or the union of two or three faces, i.e. not planar) loaded by a random wrench (F, M) at
    a random reference point gives nodal forces whose resultant is F and whose moment about the point is M, to
    1e-10 relative. The linear traction F/A + theta x (x - c) has that resultant by construction, P2 shape
    functions reproduce it exactly and the quadrature integrates it exactly, so only round-off remains."""
    _check_wrench(box_part(size, origin), surfaces, point, F, M)


@settings(max_examples=15, **COMMON)
@given(surfaces=st.lists(st.sampled_from(["bottom", "top", "side"]), min_size=1, max_size=2, unique=True),
       point=st.tuples(*[st.floats(-0.3, 0.3)] * 3).map(np.array), F=vectors, M=vectors)
def test_wrench_basis_resultant_on_a_cylinder(cylinder, surfaces, point, F, M):
    """The same on a gmsh cylinder: its flat ends, its faceted curved side, and unions of them."""
    _check_wrench(cylinder, surfaces, point, F, M)


@st.composite
def rigid_motions(draw, reach):
    """(R (3, 3) proper rotation, t (3,) [m]): a uniformly random rotation and a translation of up to ``reach``
    in each coordinate."""
    R = Rotation.random(random_state=draw(st.integers(0, 2 ** 32 - 1))).as_matrix()
    return R, np.array(draw(st.tuples(*[st.floats(-reach, reach)] * 3)))


def lopsided_box(size, n, jitter):
    """(points (n, 3), tets (m, 4)): a box of ``size`` and ``n`` cells a side, with every vertex displaced at
    random by up to 15 % of a cell (a lopsided, unsymmetric solid whose COM and inertia axes are generic; every
    tet stays positively oriented)."""
    mesh = MeshTet.init_tensor(*(np.linspace(0, size[k], n[k] + 1) for k in range(3)))
    h = min(size[k] / n[k] for k in range(3))
    return mesh.p.T + np.random.default_rng(jitter).uniform(-0.15, 0.15, mesh.p.T.shape) * h, mesh.t.T


def _check_rigid_motion(points, tets, motion, density):
    R, t = motion
    before = mass_properties(points, tets, density)
    after = mass_properties(points @ R.T + t, tets, density)
    L = np.ptp(points, axis=0).max()
    assert after.mass == pytest.approx(before.mass, rel=1e-12)
    assert after.volume == pytest.approx(before.volume, rel=1e-12)
    np.testing.assert_allclose(after.com, R @ before.com + t, rtol=0, atol=1e-12 * (L + np.linalg.norm(t)))
    I = before.inertia_com
    np.testing.assert_allclose(after.inertia_com, R @ I @ R.T, rtol=0, atol=1e-12 * np.abs(I).max())
    # physically consistent: symmetric, positive definite, triangle inequalities of the principal moments
    np.testing.assert_allclose(I, I.T, rtol=0, atol=1e-14 * np.abs(I).max())
    e = np.linalg.eigvalsh(I)
    assert e[0] > 0 and e[0] + e[1] >= e[2] * (1 - 1e-12)


SIZES = st.tuples(*[st.floats(0.02, 0.5)] * 3)
CELLS = st.tuples(*[st.integers(1, 3)] * 3)


@settings(max_examples=60, **COMMON)
@given(size=SIZES, n=CELLS, jitter=st.integers(0, 2 ** 32 - 1), motion=rigid_motions(reach=0.5),
       density=st.floats(500, 20000))
def test_mass_properties_invariant_under_rigid_motion(size, n, jitter, motion, density):
    """Mass, centre of mass and central inertia of a tet mesh follow a rigid motion x -> R x + t: the mass is
    unchanged, the COM moves with the motion (R c + t) and the inertia about the COM rotates as R I R^T (to
    1e-12 relative), for a random rotation and a translation up to 0.5 m (about the part's own size: a link mesh
    in its link frame). The mesh is a lopsided box of random size and resolution."""
    _check_rigid_motion(*lopsided_box(size, n, jitter), motion, density)


@settings(max_examples=30, **COMMON)
@example(size=(0.1, 0.1, 0.1), n=(1, 1, 1), jitter=None, motion=(np.eye(3), np.array([0.0, 0.0, 10.0])),
         density=1000.0)
@given(size=SIZES, n=CELLS, jitter=st.integers(0, 2 ** 32 - 1), motion=rigid_motions(reach=20.0),
       density=st.floats(500, 20000))
def test_mass_properties_invariant_under_rigid_motion_far_from_origin(size, n, jitter, motion, density):
    """The same invariance for translations up to 20 m: a link mesh exported in assembly (world) coordinates,
    or a small part (a 2 cm bracket) a metre from its frame origin, must get the same central inertia as when
    it sits at the origin -- a rigid motion changes no physical property."""
    if jitter is None:  # the plain (unjittered) box of the explicit example
        mesh = MeshTet.init_tensor(*(np.linspace(0, size[k], n[k] + 1) for k in range(3)))
        points, tets = mesh.p.T, mesh.t.T
    else:
        points, tets = lopsided_box(size, n, jitter)
    _check_rigid_motion(points, tets, motion, density)
