"""Paper 004's headline study with the arm model (slow: two full runs, about 1-2 min each on 2 cores).

The frozen-pose criterion must not matter: halving it (0.05 -> 0.025 rad, 160 -> 300 segments) moves every link's
peak von Mises and deformation by less than 0.1% (measured: at most 0.021% and 0.027%).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from conftest import load_paper004_module

from structcheck.study import run


@pytest.mark.slow
def test_paper004_arm_model_does_not_depend_on_the_frozen_pose_criterion():
    study = load_paper004_module().study
    coarse, fine = (run(replace(study, flexibility="arm", arm_max_joint_change=dq), progress=False,
                        write=False).summary for dq in (0.05, 0.025))
    assert coarse["analysis"]["arm_frozen_segments"] < fine["analysis"]["arm_frozen_segments"]
    for name, a in coarse["links"].items():
        b = fine["links"][name]
        assert b["max_von_mises_pa"] == pytest.approx(a["max_von_mises_pa"], rel=1e-3), name
        assert b["max_deformation_m"] == pytest.approx(a["max_deformation_m"], rel=1e-3), name
    assert np.allclose(coarse["arm_modes_hz"], fine["arm_modes_hz"], rtol=1e-3)
    assert fine["tool_point_deflection_m"] == pytest.approx(coarse["tool_point_deflection_m"], rel=1e-3)
