"""The paper-004 study reads its parts from another folder (``build(mesh_dir=...)``, ``--mesh-dir``): the refined
study of benchmarks/run.py uses it. A folder that lacks a part is a one-line input error (exit 2), naming the
missing files and the command that makes them."""
import shutil
import sys
from pathlib import Path

from structcheck.cli import main
from structcheck.script import load_study

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "studies" / "loading_unloading_6dof.py"
sys.path.insert(0, str(ROOT / "meshes"))
import make_paper004_meshes as meshes  # noqa: E402


def test_mesh_dir_reads_the_parts_from_that_folder(tmp_path):
    # twice the mesh size, on straight-sided 4-node tets (no curved-element optimization: 6 s instead of 50 s)
    folder = meshes.build_meshes(tmp_path / "coarse", size_factor=2.0, verbose=False, order=1)
    coarse, default = load_study(STUDY, mesh_dir=str(folder)), load_study(STUDY)
    for name, part in default.parts.items():
        assert 0 < len(coarse.parts[name].points) < len(part.points), name  # every part read from there
    assert coarse.parameters["mesh_dir"] == str(folder) and "mesh_dir" not in default.parameters


def test_mesh_dir_missing_parts_exits_2_naming_them(tmp_path, capsys):
    folder = tmp_path / "meshes"
    folder.mkdir()
    shutil.copy(ROOT / "meshes" / "paper004" / "base.msh", folder)
    out = tmp_path / "out"
    assert main(["run", str(STUDY), "--set", f"mesh_dir={folder}", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert "lacks ['waist.msh', 'upper_arm.msh'" in err and "make_paper004_meshes.py --out" in err
    assert not out.exists()
