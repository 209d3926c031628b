"""Bad upper-arm walls for the paper-004 study through `structcheck run --set` (exit 2, one line, nothing
written), the wall's allowed range against the geometry, and the key of the cache of regenerated meshes."""
import sys
from pathlib import Path

import pytest

from structcheck.cli import main
from structcheck.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "studies" / "loading_unloading_6dof.py"
sys.path.insert(0, str(ROOT / "meshes"))
import make_paper004_meshes as meshes  # noqa: E402


@pytest.mark.parametrize("value, shown", [("abc", "wall_mm='abc'"), ("50", "wall_mm=50"), ("NaN", "wall_mm=nan")])
def test_bad_wall_exits_2_naming_study_value_and_range(tmp_path, capsys, value, shown):
    out = tmp_path / "out"
    assert main(["run", str(STUDY), "--set", f"wall_mm={value}", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith(f"structcheck: error: building {STUDY} with {shown} failed:"), err
    assert "1 <= wall_mm < 40" in err
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
