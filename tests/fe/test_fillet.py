"""PartBuilder.fillet: the filleted volume of an L-section against its closed form, the curved second-order mesh
of a fillet against the CAD volume, and the errors for a bad radius or an edge that does not exist."""
import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.fe.geometry import PartBuilder, on_plane
from structcheck.fe.part import Part

# L-section along y: a plate A x L x T with a rib B wide, H high on it; the re-entrant edge is the line
# x = B, z = T, running the whole length L between the two end faces
A, T, B, H, L = 0.10, 0.02, 0.03, 0.05, 0.08


def l_section(b):
    return b.fuse(b.box((0, 0, 0), (A, L, T)), b.box((0, 0, T), (B, L, T + H)))


def reentrant(c, bb):
    return abs(c[0] - B) < 1e-6 and abs(c[2] - T) < 1e-6


def volume(b, solid) -> float:
    return sum(b.occ.getMass(*d) for d in solid)


@pytest.mark.parametrize("r", [0.005, 0.01, 0.02])
def test_fillet_of_a_reentrant_edge_adds_the_closed_form_volume(r):
    # the fillet fills the corner between the two faces and a circle of radius r tangent to both: the square
    # r x r less the quarter disc, (1 - pi/4) r^2, over the edge's length L
    with PartBuilder("l_section") as b:
        solid = l_section(b)
        b.occ.synchronize()
        v0 = volume(b, solid)
        out = b.fillet(solid, reentrant, r)
        assert v0 == pytest.approx(A * L * T + B * L * H, rel=1e-12)
        assert volume(b, out) - v0 == pytest.approx((1 - np.pi / 4) * r ** 2 * L, rel=1e-9)


def test_fillet_of_a_convex_edge_removes_the_closed_form_volume():
    r = 0.01
    with PartBuilder("block") as b:
        solid = b.box((0, 0, 0), (A, L, T + H))
        out = b.fillet(solid, lambda c, bb: abs(c[0] - A) < 1e-6 and abs(c[2] - T - H) < 1e-6, r)
        assert volume(b, out) - A * L * (T + H) == pytest.approx(-(1 - np.pi / 4) * r ** 2 * L, rel=1e-9)


def test_second_order_mesh_of_a_fillet_follows_the_curved_face(tmp_path):
    # mid-side nodes on the fillet's cylinder: the curved P2 mesh holds the CAD volume to ~1e-6, while the same
    # mesh with straight edges cuts the fillet's arc with chords
    r = 0.012
    with PartBuilder("l_section", mesh_size=0.02, curvature_points=12, order=2) as b:
        out = b.fillet(l_section(b), reentrant, r)
        v = volume(b, out)
        b.name_faces("fillet", lambda c, bb: abs(bb[3] - bb[0] - r) < 1e-6 and abs(bb[5] - bb[2] - r) < 1e-6)
        b.name_faces("root", on_plane(2, 0.0))
        b.build(out)
        assert b.surface_deviation < 1e-9
        path = b.write(tmp_path / "l.msh")
    part = Part.from_mesh(path, "6061")
    rho = part.material.density
    assert part.geometry_order == 2
    assert part.mass_properties().mass / rho == pytest.approx(v, rel=2e-6)
    x = part.points[part.surface_nodes("fillet")]  # vertices and mid-side nodes: on the circle
    np.testing.assert_allclose(np.hypot(x[:, 0] - (B + r), x[:, 2] - (T + r)), r, rtol=1e-9)
    straight = part.with_straight_edges().mass_properties().mass / rho
    assert abs(straight / v - 1) > 5e-6


def test_fillet_errors_name_the_part():
    with PartBuilder("l_section") as b:
        solid = l_section(b)
        with pytest.raises(InputError, match="part 'l_section': no edge of the solid matches"):
            b.fillet(solid, lambda c, bb: c[2] > 1.0, 0.005)
        # the rib's face is 50 mm high: a 60 mm fillet cannot be tangent to it
        with pytest.raises(InputError, match="part 'l_section': OpenCASCADE could not fillet 1 edge.*radius 60 mm"):
            b.fillet(solid, reentrant, 0.06)
        for bad in (0.0, -0.01, float("nan"), "5"):
            with pytest.raises(InputError, match="fillet radius must be a positive number"):
                b.fillet(solid, reentrant, bad)
