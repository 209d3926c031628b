"""The template study, studies/two_link_arm.py, copied alone into an empty folder and run from there: it needs no
sibling module and no shipped mesh (its parts are built with gmsh), passes, and its loads are the statics of its
own drawing.

At t = 2 s both STEP motions are over (shoulder -30 deg, elbow +45 deg: the forearm 15 deg below horizontal) and
the 50 N tool force is on, so the elbow holds, about its axis, the weights of the forearm (a 40 x 30 mm tube with
3 mm walls, 6061-T6: m = rho (40 x 30 - 34 x 24) mm^2 L) and of the 5 kg payload, and the tool force:
|tau| = cos 15 deg (g (m L/2 + 5 kg L) + 50 N L), L = 0.3 m."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from structcheck.results import load

TEMPLATE = Path(__file__).resolve().parents[2] / "studies" / "two_link_arm.py"


@pytest.mark.xdist_group("template")  # with tests/study/test_quick.py: one worker runs the template
def test_the_template_runs_from_any_folder_and_its_elbow_holds_its_statics(template_run):
    res = load(template_run / "results" / "arm")
    assert res.summary.passed is True
    L = 0.3
    m = 2700.0 * (0.040 * 0.030 - 0.034 * 0.024) * L
    assert res.summary.links["fore"].mass_kg == pytest.approx(m, rel=1e-9)
    tau = np.cos(np.radians(15.0)) * (9.81 * (m * L / 2 + 5.0 * L) + 50.0 * L)
    assert res.joints["time_s"][-1] == 2.0
    assert abs(res.joints["tau_elbow"][-1]) == pytest.approx(tau, rel=1e-9)


# `converge` builds and runs the study at each level itself, reading nothing of the template's run: its tests take
# their own copy of the script (as template_run makes it) and go to whichever worker is free, not after the run
@pytest.fixture
def my_arm(tmp_path) -> Path:
    """studies/two_link_arm.py copied alone into an empty folder as my_arm.py (as :func:`conftest.template_run`)."""
    shutil.copy(TEMPLATE, tmp_path / "my_arm.py")
    return tmp_path


def test_converge_runs_on_the_template(my_arm, capsys):
    """`structcheck converge` on the copied template (one link, the three default levels: about 15 s): its
    mesh_part re-meshes the tube finer at each level (more nodes each time) and the table is printed.

    The verdict is exit 0, and why: the forearm's peak sits on the clamped edge of its elbow face, a singular point
    whose stress grows without bound as the mesh refines (measured 11.9, 12.3, 13.0 MPa), so it is judged on the
    peak away from the support band, which stays within the 3% tolerance (measured scatter 2.3%); and its safety
    factor, about 20, is far from the required 1.5, so no verdict can flip within that error."""
    import os

    from structcheck.cli import main

    cwd = os.getcwd()
    os.chdir(my_arm)
    try:
        code = main(["converge", "my_arm.py", "--link", "fore", "--quiet", "--json", "converge.json"])
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "meshes: the study's mesh_part(link, size_factor)" in out
    assert "every peak converged; no verdict within its error of the required safety factor" in out
    import json

    fore = json.loads((my_arm / "converge.json").read_text())["links"]["fore"]
    nodes = [lv["n_nodes"] for lv in fore["levels"]]
    assert nodes[0] < nodes[1] < nodes[2], nodes
    peak = fore["peak"]  # levels from the finest mesh (smallest size factor h) to the coarsest
    assert peak["h"] == sorted(peak["h"]) and peak["values_pa"] == sorted(peak["values_pa"], reverse=True)
    assert fore["judged"] == "away_from_support" and fore["away_from_support"]["scatter"] < 0.03
    assert fore["passes"] and not fore["may_flip"] and fore["safety_factor_band"][0] > 10 * 1.5


def test_converge_on_a_study_without_mesh_part_names_what_to_add_in_one_line(tmp_path, capsys):
    from structcheck.cli import main

    text = TEMPLATE.read_text()
    start, end = text.index("def mesh_part("), text.index("__getattr__ = lazy_study")
    (tmp_path / "no_hook.py").write_text(text[:start] + text[end:])
    assert main(["converge", str(tmp_path / "no_hook.py"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "add to the study script `def mesh_part(link, size_factor, study=None)`" in err
    assert "the size factors [1.0, 0.8, 0.6667] are not 1, 0.5, 0.25" in err  # its tubes are straight-sided
