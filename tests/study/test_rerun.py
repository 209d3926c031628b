"""`structcheck rerun RESULTS` (issue 30 item 3): a results folder run again from the inputs its summary.json
records gives the same summary.json, number for number (a run is deterministic: test_reproducible.py); a folder
copied whole with its script elsewhere reruns there (no absolute path is stored); a changed script, a changed mesh
file or a folder without a script is refused with exit 2 and one line, before anything is written."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import N_LEN, N_SIDE, SMALL_H as H, SMALL_L as L, write_small_study

from structcheck.cli import main

SET = ["--set", "side_mm=25", "--set", 'arm.joint_stiffness={"joint1": 20000}', "--set", "study.n_frames=4"]


def _numbers(folder) -> dict:
    """summary.json without its wall-clock timings."""
    s = json.loads((folder / "summary.json").read_text())
    s.pop("timings_s")
    s["analysis"].pop("arm_timings_s", None)
    return s


def _write_beam_mesh(path, scale=1.0) -> None:
    """The tiny study's beam as a gmsh file (its faces at x = 0 and x = L named joint1 and tip), its coordinates
    times ``scale``."""
    import meshio
    from skfem import MeshTet

    m = MeshTet.init_tensor(np.linspace(0, L, N_LEN + 1), *[np.linspace(-H / 2, H / 2, N_SIDE + 1)] * 2)
    bnd = m.boundary_facets()
    x = m.p[0, m.facets].mean(axis=0)
    ends = [m.facets[:, bnd[np.isclose(x[bnd], at)]].T for at in (0.0, L)]
    tag = [np.zeros(m.t.shape[1], int), np.r_[np.ones(len(ends[0]), int), np.full(len(ends[1]), 2)]]
    meshio.Mesh(m.p.T * scale, [("tetra", m.t.T), ("triangle", np.vstack(ends))],
                cell_data={"gmsh:physical": tag, "gmsh:geometrical": tag},
                field_data={"joint1": np.array([1, 2]), "tip": np.array([2, 2])}).write(path, file_format="gmsh22")


def _refused(capsys, argv, out) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("structcheck: error:") and "\n" not in err and "Traceback" not in err, err
    assert not out.exists()
    return err


@pytest.fixture
def project(tmp_path):
    """A project folder with the study script and a results folder of it run with --set values."""
    (tmp_path / "project").mkdir()
    script = write_small_study(tmp_path / "project")
    out = tmp_path / "project" / "results" / "first"
    assert main(["run", str(script), "--out", str(out), "--quiet", "--no-report", *SET]) == 0
    return script, out


def test_rerun_gives_the_same_numbers_exactly(project, capsys):
    script, out = project
    assert main(["rerun", str(out), "--quiet", "--no-report"]) == 0
    again = out.parent / "first-rerun"
    assert _numbers(again) == _numbers(out)
    s = _numbers(again)
    assert s["inputs"]["settings"]["arm.joint_stiffness"]["source"] == "--set" and s["analysis"]["n_output_frames"] == 4


def test_a_project_copied_elsewhere_reruns_there(project, tmp_path):
    script, out = project
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(script.parent, moved)
    script.unlink()  # the original is gone: the copy must not need it
    target = tmp_path / "again"
    assert main(["rerun", str(moved / "results" / "first"), "--out", str(target), "--quiet", "--no-vtk",
                 "--no-report"]) == 0
    a, b = _numbers(out), _numbers(target)
    assert {k: v for k, v in a.items() if k != "inputs"} == {k: v for k, v in b.items() if k != "inputs"}


def test_a_changed_script_is_refused(project, capsys):
    script, out = project
    script.write_text(script.read_text().replace("tip_force_n=100.0", "tip_force_n=120.0"))
    err = _refused(capsys, ["rerun", str(out), "--quiet"], out.parent / "first-rerun")
    assert f"study script {str(script)!r} changed since {str(out)!r} was run" in err


def test_a_changed_mesh_file_is_refused(tmp_path, capsys):
    script = write_small_study(tmp_path)
    mesh = tmp_path / "beam.msh"
    _write_beam_mesh(mesh)
    out = tmp_path / "run"
    assert main(["run", str(script), "--out", str(out), "--quiet", "--no-vtk", "--no-report",
                 "--set", f"mesh_file={mesh}"]) == 0
    assert main(["rerun", str(out), "--out", str(tmp_path / "same"), "--quiet", "--no-vtk", "--no-report"]) == 0
    _write_beam_mesh(mesh, scale=1.001)
    err = _refused(capsys, ["rerun", str(out), "--out", str(tmp_path / "new"), "--quiet"], tmp_path / "new")
    assert "link 'beam' has another mesh now than when" in err and "a mesh file or its generator changed" in err


def test_without_a_script_or_into_itself_is_refused(project, tmp_path, capsys):
    script, out = project
    err = _refused(capsys, ["rerun", str(out), "--out", str(out)], tmp_path / "nothing")
    assert "is the results folder being rerun" in err
    s = json.loads((out / "summary.json").read_text())
    s["inputs"]["script"] = None  # as structcheck.run(study, out) from Python writes it
    (out / "summary.json").write_text(json.dumps(s))
    err = _refused(capsys, ["rerun", str(out), "--out", str(tmp_path / "x")], tmp_path / "x")
    assert "records no study script" in err
    err = _refused(capsys, ["rerun", str(tmp_path / "missing")], tmp_path / "missing-rerun")
    assert "does not exist" in err


def test_a_script_run_as_its_own_command_records_its_options_and_reruns(tmp_path):
    """`python STUDY.py --side-mm 25 --set part.field=...` (main_for_study): the script's own option counts as
    given on the command line, as --set side_mm=25 would; structcheck rerun repeats it."""
    import os
    import subprocess
    import sys

    script = write_small_study(tmp_path)
    script.write_text(script.read_text() + "\n\nif __name__ == '__main__':\n    import sys\n"
                      "    from structcheck.cli import main_for_study\n    sys.exit(main_for_study(build))\n")
    out = tmp_path / "own"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parents[2]),
                                                                     os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, str(script), "--side-mm", "25", "--set", 'arm.joint_stiffness={"joint1": 2e4}',
                    "--out", str(out), "--quiet", "--no-vtk", "--no-report"], check=True, env=env, timeout=300)
    inputs = _numbers(out)["inputs"]
    assert inputs["build_parameters"]["side_mm"] == {"value": 25.0, "source": "--set"}
    assert inputs["build_parameters"]["tip_force_n"] == {"value": 100.0, "source": "default"}
    assert inputs["settings"]["arm.joint_stiffness"] == {"value": {"joint1": 2e4}, "source": "--set"}
    assert inputs["script"]["set"] == {"side_mm": 25.0, "arm.joint_stiffness": {"joint1": 2e4}}
    assert main(["rerun", str(out), "--quiet", "--no-vtk", "--no-report"]) == 0
    assert _numbers(tmp_path / "own-rerun") == _numbers(out)
