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
    part = Part.from_mesh(path, "6061-O")
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
            with pytest.raises(InputError, match=r"'l_section': fillet radius = .*: give a finite number > 0 \(m\)"):
                b.fillet(solid, reentrant, bad)


def _part_with_a_fillet(b):
    out = b.fillet(l_section(b), reentrant, 0.01, size=0.005)
    b.name_faces("root", on_plane(2, 0.0))
    b.name_faces("fillet", lambda c, bb: abs(bb[3] - bb[0] - 0.01) < 1e-6 and abs(bb[5] - bb[2] - 0.01) < 1e-6)
    return out


@pytest.mark.parametrize("order, cell", [(1, "tetra"), (2, "tetra10")])
def test_write_part_meshes_writes_the_order_asked_for(tmp_path, order, cell):
    import meshio

    from structcheck.fe.geometry import write_part_meshes

    write_part_meshes({"l": (_part_with_a_fillet, 0.03)}, tmp_path, order=order, verbose=False)
    cells = meshio.read(tmp_path / "l.msh").cells_dict
    assert cell in cells and not ({"tetra", "tetra10"} - {cell}) & set(cells)
    assert Part.from_mesh(tmp_path / "l.msh", "6061-T6").geometry_order == order
    with pytest.raises(InputError, match="mesh order must be 1 .* or 2 .*got 3"):
        write_part_meshes({"l": (_part_with_a_fillet, 0.03)}, tmp_path, order=3, verbose=False)


def test_fillet_size_refines_the_fillet_and_scales_with_the_size_factor(tmp_path):
    """Element edges on the fillet's face are about the size asked for (times write_part_meshes' size factor),
    far below the part's 30 mm."""
    import meshio

    from structcheck.fe.geometry import write_part_meshes

    def fillet_edge_length(folder):
        """Mean edge length [m] of the surface triangles on the fillet's cylinder (axis along y through
        x = B + r, z = T + r)."""
        m = meshio.read(folder / "l.msh")
        tri = m.cells_dict["triangle"]
        p = m.points
        on = np.abs(np.hypot(p[:, 0] - (B + 0.01), p[:, 2] - (T + 0.01)) - 0.01) < 1e-7
        tri = tri[on[tri].all(axis=1)]
        assert len(tri) > 10
        return np.linalg.norm(p[tri] - p[np.roll(tri, 1, axis=1)], axis=2).mean()

    # curvature_points=4: curvature alone would mesh the fillet's quarter circle with one 11 mm element
    parts = {"l": (_part_with_a_fillet, 0.03)}
    coarse = write_part_meshes(parts, tmp_path / "a", curvature_points=4, verbose=False)
    fine = write_part_meshes(parts, tmp_path / "b", size_factor=0.5, curvature_points=4, verbose=False)

    def unsized(b):
        out = b.fillet(l_section(b), reentrant, 0.01)
        b.name_faces("fillet", lambda c, bb: abs(bb[3] - bb[0] - 0.01) < 1e-6 and abs(bb[5] - bb[2] - 0.01) < 1e-6)
        return out

    plain = write_part_meshes({"l": (unsized, 0.03)}, tmp_path / "c", curvature_points=4, verbose=False)
    assert fillet_edge_length(plain) > 0.008
    assert 0.003 < fillet_edge_length(coarse) < 0.0065  # 5 mm asked; gmsh meets sizes to about +-30 %
    assert fillet_edge_length(fine) == pytest.approx(0.5 * fillet_edge_length(coarse), rel=0.3)


def test_mesh_script_order_option(monkeypatch, tmp_path, capsys):
    from structcheck.fe.geometry import mesh_script

    calls = []

    def build(out, size_factor, **kw):
        calls.append((out, size_factor, kw))

    for argv, order in (([], 2), (["--order", "1"], 1)):
        monkeypatch.setattr("sys.argv", ["make.py", "--out", str(tmp_path), *argv])
        mesh_script("test", build, tmp_path, order=2)  # ships order 2
        assert calls[-1] == (tmp_path, 1.0, {"order": order})
    monkeypatch.setattr("sys.argv", ["make.py"])
    mesh_script("test", build, tmp_path)  # a script without the option: build gets no order
    assert calls[-1] == (tmp_path, 1.0, {})
    monkeypatch.setattr("sys.argv", ["make.py", "--order", "3"])
    with pytest.raises(SystemExit) as exit_:
        mesh_script("test", build, tmp_path, order=2)
    assert exit_.value.code == 2 and "invalid choice: 3" in capsys.readouterr().err
