"""Bad upper-arm walls for the paper-004 study through `structcheck run --set` (exit 2, one line, nothing
written), the wall's allowed range against the geometry, and the key of the cache of regenerated meshes."""
import sys
from pathlib import Path

import numpy as np
import pytest

from structcheck.cli import main
from structcheck.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "studies" / "loading_unloading_6dof.py"
sys.path.insert(0, str(ROOT / "meshes"))
import make_paper004_meshes as meshes  # noqa: E402


@pytest.mark.parametrize("value, expect", [
    ("abc", f"study script '{STUDY}': build() parameter wall_mm = 'abc': give a finite number (mm), not str; "
            f"build()'s default is 8.0"),
    ("NaN", f"study script '{STUDY}': build() parameter wall_mm = nan: give a finite number (mm)"),
    ("50", f"building {STUDY} with wall_mm=50 failed: upper-arm wall_mm must be a number of mm with "
           f"1 <= wall_mm < 40"),
])
def test_bad_wall_exits_2_naming_study_value_and_range(tmp_path, capsys, value, expect):
    """Text or a NaN is refused against build()'s signature (its default is a number of mm); a number outside
    the range by the mesh script's own check."""
    out = tmp_path / "out"
    assert main(["run", str(STUDY), "--set", f"wall_mm={value}", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith(f"structcheck: error: {expect}"), err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("wall", [1, 1.0, 8, 39.9])
def test_wall_inside_the_range_is_accepted(wall):
    assert meshes.check_wall(wall) == float(wall)


@pytest.mark.parametrize("wall", [0.99, 40.0, 55, -5, float("nan"), float("inf"), True, "5", None, [5]])
def test_wall_outside_the_range_is_rejected(wall):
    with pytest.raises(InputError, match=r"1 <= wall_mm < 40 .*110 x 80 mm section.*got"):
        meshes.check_wall(wall)
    with pytest.raises(InputError, match=r"1 <= wall_mm < 40 .*got"):
        meshes.mesh_folder(wall)


def test_wall_bound_is_half_the_upper_arm_section():
    """The upper bound comes from the section upper_arm() builds: at 40 mm the hollow of the 110 x 80 mm beam
    closes and gmsh cannot build it; just below, it builds one solid with both joint faces."""
    from structcheck.geometry import PartBuilder

    assert meshes.WALL_RANGE_MM == (1.0, 40.0)
    with PartBuilder("upper_arm", 0.03) as b:
        meshes.upper_arm(b, {"wall": 39.5})
        b.build(None)
    with pytest.raises(Exception, match="^Degenerate box$") as err:
        with PartBuilder("upper_arm", 0.03) as b:
            meshes.upper_arm(b, {"wall": 40.0})
            b.build(None)
    assert type(err.value) is Exception  # gmsh's own error is a bare Exception; nothing narrower to name


@pytest.fixture
def fake_cache(tmp_path, monkeypatch):
    """mesh_folder with HOME in tmp_path and a build_meshes that only writes empty files; returns the calls."""
    monkeypatch.setenv("HOME", str(tmp_path))
    calls = []

    def fake_build(out, wall_mm, size_factor=1.0, verbose=True):
        calls.append((Path(out), wall_mm))
        Path(out).mkdir(parents=True, exist_ok=True)
        for name in meshes.PARTS:
            (Path(out) / f"{name}.msh").write_text("")
        return out

    monkeypatch.setattr(meshes, "build_meshes", fake_build)
    return calls


def test_mesh_cache_is_reused_and_the_default_wall_uses_the_shipped_meshes(fake_cache, tmp_path):
    assert meshes.mesh_folder(8.0) == meshes.mesh_folder(8) == meshes.SHIPPED
    first = meshes.mesh_folder(5)
    assert meshes.mesh_folder(5.0) == first and len(fake_cache) == 1
    assert first.parent == tmp_path / ".cache" / "structcheck" and first.name.startswith("paper004-wall5mm-")
    assert meshes.mesh_folder(6) != first and len(fake_cache) == 2


def test_mesh_cache_key_follows_geometry_module_and_gmsh_version(fake_cache, tmp_path, monkeypatch):
    import gmsh

    import structcheck.fe.geometry

    first = meshes.mesh_folder(5)
    # an edited structcheck/fe/geometry.py (here: a copy with one more line) makes the cached meshes stale
    edited = tmp_path / "geometry.py"
    edited.write_text(Path(structcheck.fe.geometry.__file__).read_text() + "\n# changed\n")
    monkeypatch.setattr(structcheck.fe.geometry, "__file__", str(edited))
    second = meshes.mesh_folder(5)
    assert second != first and len(fake_cache) == 2 and fake_cache[-1][0].name.startswith(second.name)
    # so does another gmsh
    monkeypatch.setattr(gmsh, "__version__", "0.0.1")
    third = meshes.mesh_folder(5)
    assert third not in (first, second) and len(fake_cache) == 3
    # and restoring both finds the first cache again without rebuilding
    monkeypatch.undo()
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(meshes, "build_meshes", lambda *a, **k: pytest.fail("rebuilt an up-to-date cache"))
    assert meshes.mesh_folder(5) == first


def test_incomplete_or_failed_mesh_builds_never_leave_a_partial_cache(fake_cache, tmp_path, monkeypatch):
    """A cache folder with a part missing is rebuilt whole; a build that fails leaves no folder behind."""
    first = meshes.mesh_folder(5)
    (first / f"{list(meshes.PARTS)[0]}.msh").unlink()
    assert meshes.mesh_folder(5) == first and len(fake_cache) == 2
    assert all((first / f"{n}.msh").is_file() for n in meshes.PARTS)

    def failing_build(out, wall_mm, size_factor=1.0, verbose=True):
        Path(out).mkdir(parents=True, exist_ok=True)
        (Path(out) / f"{list(meshes.PARTS)[0]}.msh").write_text("")
        raise RuntimeError("gmsh failed")

    monkeypatch.setattr(meshes, "build_meshes", failing_build)
    with pytest.raises(RuntimeError, match="^gmsh failed$"):
        meshes.mesh_folder(6)
    assert sorted(p.name for p in first.parent.iterdir()) == [first.name]


def test_mesh_cache_key_follows_the_mesh_order():
    assert meshes.ORDER == 2  # the shipped meshes are curved 10-node tets
    assert meshes.mesh_cache_key() == meshes.mesh_cache_key(meshes.ORDER)
    assert meshes.mesh_cache_key(1) != meshes.mesh_cache_key(2)


def test_shipped_meshes_are_second_order_and_follow_the_fillets():
    """Every shipped part is a tetra10 mesh; on the two parts with the most curved surface (the base's R15 fillet
    ring inside its tube, the wrist roll's bore with R6 fillets) the curved elements' volume is the CAD volume of
    the part as the script builds it now, which the straight-edged elements miss."""
    from structcheck.fe.part import Part
    from structcheck.geometry import PartBuilder

    import re

    for name in meshes.PARTS:
        text = (meshes.SHIPPED / f"{name}.msh").read_text()
        # gmsh 4.1 element block headers: "<entity dim> <entity tag> <element type> <count>"; type 4 is the
        # 4-node tet, 11 the 10-node tet
        blocks = text.split("$Elements\n")[1].split("\n", 1)[1]  # after the section's own count line
        volume_types = set(re.findall(r"^3 \d+ (\d+) \d+$", blocks, flags=re.M))
        assert volume_types == {"11"}, (name, volume_types)
    for name in ("base", "wrist_roll"):
        fn, size = meshes.PARTS[name]
        part = Part.from_mesh(meshes.SHIPPED / f"{name}.msh", "304")
        assert part.geometry_order == 2, name
        with PartBuilder(name, size) as b:
            fn(b, {"wall": meshes.DEFAULT_WALL_MM})
            b.occ.synchronize()
            cad = sum(b.occ.getMass(3, t) for _, t in b.gmsh.model.getEntities(3))
        rho = part.material.density
        assert part.mass_properties().mass / rho == pytest.approx(cad, rel=5e-5), name  # measured 3.8e-6, 1.4e-5
        assert abs(part.with_straight_edges().mass_properties().mass / rho / cad - 1) > 5e-3, name  # 0.9 %, 1.6 %


def _edge_lengths_near(tm, points, within, surface=False):
    """Mean edge length [m] of each tet of ``tm`` (or with ``surface``, of each boundary triangle) whose centroid
    lies within ``within`` [m] of one of ``points`` (n, 3)."""
    cells = tm.tets[:, :4]
    if surface:
        faces = np.sort(cells[:, [[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]].reshape(-1, 3), axis=1)
        faces, count = np.unique(faces, axis=0, return_counts=True)
        cells = faces[count == 1]
    from scipy.spatial import cKDTree

    v = tm.points[cells]
    near = cKDTree(np.asarray(points)).query(v.mean(axis=1))[0] < within
    k = v.shape[1]
    a, b = np.triu_indices(k, 1)
    return np.linalg.norm(v[near][:, a] - v[near][:, b], axis=2).mean(axis=1)


def test_shipped_meshes_follow_the_local_sizing_rules_with_no_badly_curved_element():
    """The shipped meshes are the generator's rules (docs/peaks.md): at each fillet the elements are the part's
    FILLET_ELEMENTS across its quarter circle (fillet_size), inside each of PEAK_BALLS the ball's size; checked on
    the mesh files' elements (gmsh meets a size field to about 30 %) against the rules as the parts record them.
    And every curved element keeps det J within 5:1 over its nodes and quadrature points (curved_quality >= 0.2;
    the generator has gmsh optimize every element below a scaled Jacobian of 0.3): gmsh's default, 0.1, left a
    wrist element whose stress read 115% off its neighbours'."""
    from types import SimpleNamespace

    import meshio

    from structcheck.fe.geometry import fillet_size
    from structcheck.fe.mesh import curved_quality
    from structcheck.geometry import PartBuilder

    assert meshes.PEAK_BALLS.keys() >= {"waist", "gripper", "wrist_roll"}
    for name, (fn, size) in meshes.PARTS.items():
        m = meshio.read(meshes.SHIPPED / f"{name}.msh", file_format="gmsh")  # tetra10: vertices, then mid-sides
        cells = m.cells_dict["tetra10"]
        tm = SimpleNamespace(points=m.points, tets=cells[:, :4])
        assert curved_quality(m.points, tm.tets, m.points[cells[:, 4:]]).min() >= 0.2, name
        with PartBuilder(name, size) as b:
            meshes.with_peak_balls(fn)(b, {"wall": meshes.DEFAULT_WALL_MM, "fillet_elements": None})
            balls = b.refinements
            fillets, rounds, palm = _fillets_and_rounds(name, b.fillet_sizes)
        r = meshes.FILLET[name]
        want = fillet_size(r, meshes.FILLET_ELEMENTS[name])
        assert all(s == pytest.approx(want, rel=1e-12) for _, s, _ in fillets), name
        round_size = fillet_size(meshes.EDGE_ROUND.get(name, 1.0), meshes.EDGE_ROUND_ELEMENTS)
        assert all(s == pytest.approx(round_size, rel=1e-12) for _, s, _ in rounds), name
        assert all(s == pytest.approx(fillet_size(*meshes.PALM_FILLET), rel=1e-12) for _, s, _ in palm), name
        if name not in meshes.PEAK_BALLS:  # on the fillet: its faces lie 0.41 r to r from the edge it rounded
            h = np.median(_edge_lengths_near(tm, np.vstack([p for p, _, _ in fillets]), 0.9 * r, surface=True))
            assert h == pytest.approx(want, rel=0.35), (name, h, want)
        assert len(balls) == len(meshes.PEAK_BALLS.get(name, ()))
        for centre, s, radius in balls:  # the ball's inner half: its size, not the part's
            h = np.median(_edge_lengths_near(tm, [centre], radius / 2))
            assert h == pytest.approx(s, rel=0.35) and h < size / 2, (name, centre, h, s)


def _fillets_and_rounds(name, fillet_sizes):
    """A part's recorded (points, size, radius) split into its fillets of FILLET's radius, its convex edge rounds
    (EDGE_ROUND) and the gripper's palm fillets (PALM_FILLET)."""
    kind = [{meshes.EDGE_ROUND.get(name): 1, meshes.PALM_FILLET[0] if name == "gripper" else None: 2}.get(r, 0)
            for _, _, r in fillet_sizes]
    return tuple([f for f, k in zip(fillet_sizes, kind) if k == want] for want in (0, 1, 2))


@pytest.mark.parametrize("n, size_factor", [(None, 1.0), (4, 1.0), (None, 0.8), (6, 0.571)])
def test_fillet_elements_tie_the_fillet_size_to_its_radius(n, size_factor):
    """Each fillet's faces meshed at its quarter circle pi r / 2 over n (None: the part's FILLET_ELEMENTS, as
    shipped; a number: --fillet-elements), times the size factor; checked on the fillets the parts record before
    meshing; the part's peak balls scale with the size factor too. The gripper claws' edge rounds keep their own
    EDGE_ROUND_ELEMENTS whatever n (their own radius, 4.5 mm, not the fillets' 4 mm), times the size factor; its
    palm fillets (R6) their own two elements unless n is given."""
    from structcheck.geometry import PartBuilder

    for name in ("wrist", "gripper", "base"):
        with PartBuilder(name, meshes.PARTS[name][1] * size_factor, local_size_factor=size_factor) as b:
            meshes.with_peak_balls(meshes.PARTS[name][0])(b, {"wall": meshes.DEFAULT_WALL_MM, "fillet_elements": n})
            fillets, rounds, palm = _fillets_and_rounds(name, b.fillet_sizes)
            sizes = [(s, r) for _, s, r in fillets + palm]
            balls = b.refinements
        assert len(rounds) == (1 if name == "gripper" else 0) and len(palm) == (2 if name == "gripper" else 0)
        for _, s, r in rounds:
            assert r == 0.0045 and s == pytest.approx(np.pi / 2 / 1.75 * r * size_factor, rel=1e-12)
        if n is None and palm:  # the palm's own count unless --fillet-elements
            np.testing.assert_allclose([s for _, s, _ in palm], np.pi / 2 / 2 * 0.006 * size_factor, rtol=1e-12)
            sizes = [(s, r) for _, s, r in fillets]
        assert sizes and all(r in (meshes.FILLET[name], meshes.PALM_FILLET[0]) for _, r in sizes)
        count = meshes.FILLET_ELEMENTS[name] if n is None else n
        np.testing.assert_allclose([s for s, _ in sizes], [np.pi / 2 / count * r * size_factor for _, r in sizes],
                                   rtol=1e-12)
        np.testing.assert_allclose([s for _, s, _ in balls],
                                   [s * size_factor for _, s, _ in meshes.PEAK_BALLS.get(name, ())], rtol=1e-12)


@pytest.mark.parametrize("n", [0, -2, "4", float("nan"), True])
def test_bad_fillet_elements_is_bad_input(tmp_path, n):
    with pytest.raises(InputError, match="fillet_elements must be a positive number"):
        meshes.build_meshes(tmp_path, fillet_elements=n)


def test_a_generated_mesh_is_announced_where_it_is_cached(tmp_path, monkeypatch, capsys):
    """A mesh made for another size goes to the mesh cache ($STRUCTCHECK_CACHE here), said once on stderr with the
    way to clear it; the second request reuses it silently."""
    monkeypatch.setenv("STRUCTCHECK_CACHE", str(tmp_path))
    path = meshes.part_mesh("wrist_roll", 3.0)
    err = capsys.readouterr().err
    assert path.is_file() and path.is_relative_to(tmp_path)
    assert f"written to the mesh cache {path}" in err and "structcheck cache --clear" in err
    assert meshes.part_mesh("wrist_roll", 3.0) == path and capsys.readouterr().err == ""
