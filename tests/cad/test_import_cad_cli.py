"""``structcheck import-cad``: meshes, a report, the named surfaces for ParaView and a starter study that runs; bad
input exits 2 with one line and writes nothing."""
from __future__ import annotations

import json

import pytest

from structcheck.cli import main

from .test_import_assembly import ARM, FORE, UPPER, _boxes

URDF = """<robot name="box_arm">
  <link name="ground"/><link name="upper"/><link name="fore"/>
  <joint name="shoulder" type="revolute"><parent link="ground"/><child link="upper"/>
    <origin xyz="0 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="1" velocity="1"/></joint>
</robot>
"""
LINKS = """[links]
ground = ["column", "foot"]
upper = "upper_tube"
fore = ["fore_tube"]

[materials]
default = "6061-T6"
fore = "304"
"""


@pytest.fixture
def inputs(tmp_path):
    (tmp_path / "arm.urdf").write_text(URDF)
    (tmp_path / "links.toml").write_text(LINKS)
    return tmp_path, _boxes(tmp_path, ARM)


def test_import_cad_writes_meshes_and_a_starter_study_that_runs(inputs, capsys):
    folder, step = inputs
    out = folder / "imported"
    assert main(["import-cad", str(step), "--robot", str(folder / "arm.urdf"), "--links", str(folder / "links.toml"),
                 "--out", str(out), "--mesh-size", "0.02"]) == 0
    printed = capsys.readouterr().out
    assert "upper          elbow        1 face(s), 1,200.0 mm^2" in printed  # the 40 x 30 mm end faces touch
    assert "warning" not in printed
    assert {p.name for p in out.iterdir()} >= {"upper.msh", "fore.msh", "study.py", "surfaces.vtm",
                                               "import_report.txt"}
    import pyvista as pv

    blocks = pv.read(out / "surfaces.vtm")
    assert set(blocks.keys()) == {"ground", "upper", "fore", "ground/shoulder", "ground/ground", "upper/shoulder",
                                  "upper/elbow", "fore/elbow"}
    assert blocks["fore/elbow"].area == pytest.approx(0.04 * 0.03, rel=1e-9)
    # no absolute path in the starter: it names the URDF and the STEP file relative to its own folder, so the
    # inputs and the imported folder move together (here: renamed) and it still runs
    text = (out / "study.py").read_text()
    assert str(folder) not in text and str(folder.parent) not in text
    assert "HERE / '../arm.urdf'" in text and "HERE / '../arm.step'" in text
    moved = folder.parent / (folder.name + "_moved")
    folder.rename(moved)
    # it runs to a pass (exit 0): the starter moves both joints 10 deg in 1 s under gravity (g = 9.81), and the
    # horizontal arm is a cantilever from the shoulder whose root moment is M = g (m_upper UPPER / 2 + m_fore (UPPER
    # + FORE / 2)), 18 N m: a bending stress 6 M / (b h^2) = 3.0 MPa on the upper box's 40 x 30 mm section, far
    # below 6061-T6's 276 MPa / 1.5. The upper arm's nodal-averaged peak is held to that beam value within 6%
    # (measured +2.9%: the STEP's deceleration adds the links' inertia, up to 5% of the gravity moment, while the
    # 10 deg turn takes 1.5% off it)
    code = main(["run", str(moved / "imported" / "study.py"), "--out", str(moved / "results"), "--quiet", "--no-vtk"])
    full = json.loads((moved / "results" / "summary.json").read_text())
    assert code == 0 and full["passed"]
    m = {n: full["links"][n]["mass_kg"] for n in ("upper", "fore")}
    root_moment = 9.81 * (m["upper"] * UPPER / 2 + m["fore"] * (UPPER + FORE / 2))
    assert full["links"]["upper"]["max_von_mises_averaged_pa"] == pytest.approx(6 * root_moment / (0.04 * 0.03 ** 2),
                                                                                rel=0.06)
    assert min(L["min_safety_factor"] for L in full["links"].values()) > 50
    # its mesh_part re-imports the assembly at a size factor: --quick (2x coarser) runs on it, and converge would;
    # on the coarser meshes of the same boxes the same loads pass as well
    code = main(["run", str(moved / "imported" / "study.py"), "--out", str(moved / "quick"), "--quiet", "--no-vtk",
                 "--quick", "--no-report"])
    quick = json.loads((moved / "quick" / "summary.json").read_text())
    assert code == 0 and quick["passed"]
    assert quick["quick"] and quick["analysis"]["total_nodes"] < full["analysis"]["total_nodes"]


@pytest.mark.parametrize("change, message", [
    (("links", '[links]\nupper = "upper_tube"\nfore = "upper_tube"\n[materials]\ndefault = "6061-O"\n'),
     "solid 'upper_tube' is claimed by links 'upper' and 'fore'"),
    (("links", '[links]\nupper = "upper_tube"\n'), "[materials] gives no material for links ['upper']"),
    (("robot", "arm.step"), "give a URDF file (.urdf) or a study script (.py)"),
    (("units", "m"), "the file's numbers look to be in mm: pass units='mm' (--units mm)"),
])
def test_bad_input_exits_2_with_one_line_and_no_folder(inputs, capsys, change, message):
    folder, step = inputs
    links = folder / "links.toml"
    argv = ["import-cad", str(step), "--robot", str(folder / "arm.urdf"), "--links", str(links),
            "--out", str(folder / "imported")]
    if change[0] == "links":
        links.write_text(change[1])
    else:
        argv += [f"--{change[0]}", str(folder / change[1]) if change[0] == "robot" else change[1]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err
    assert not (folder / "imported").exists() and not list(folder.glob("imported.*"))
