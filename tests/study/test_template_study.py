"""The template study, studies/two_link_arm.py, copied alone into an empty folder and run from there: it needs no
sibling module and no shipped mesh (its parts are built with gmsh), passes, and its loads are the statics of its
own drawing.

At t = 2 s both STEP motions are over (shoulder -30 deg, elbow +45 deg: the forearm 15 deg below horizontal) and
the 50 N tool force is on, so the elbow holds, about its axis, the weights of the forearm (a 40 x 30 mm tube with
3 mm walls, 6061-T6: m = rho (40 x 30 - 34 x 24) mm^2 L) and of the 5 kg payload, and the tool force:
|tau| = cos 15 deg (g (m L/2 + 5 kg L) + 50 N L), L = 0.3 m."""
from __future__ import annotations

import numpy as np
import pytest

from structcheck.results import load

pytestmark = pytest.mark.xdist_group("template")  # with tests/study/test_quick.py: one worker runs the template


def test_the_template_runs_from_any_folder_and_its_elbow_holds_its_statics(template_run):
    res = load(template_run / "results" / "arm")
    assert res.summary.passed is True
    L = 0.3
    m = 2700.0 * (0.040 * 0.030 - 0.034 * 0.024) * L
    assert res.summary.links["fore"].mass_kg == pytest.approx(m, rel=1e-9)
    tau = np.cos(np.radians(15.0)) * (9.81 * (m * L / 2 + 5.0 * L) + 50.0 * L)
    assert res.joints["time_s"][-1] == 2.0
    assert abs(res.joints["tau_elbow"][-1]) == pytest.approx(tau, rel=1e-9)
