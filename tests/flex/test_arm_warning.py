"""The arm model warns when its superelements keep too few modes for the loads' fastest ramp (a ramp of T excites up
to ~1/T Hz; the lowest of the links' highest kept fixed-interface frequencies should reach 2/T).

The two-beam arm with one fixed-interface mode per link: link2 (0.3 m, 20 x 20 mm steel, held at joint2 only,
clamped-free) keeps its first bending mode, 1.8751^2 / (2 pi L^2) sqrt(E I / (rho A)) = 181.2 Hz (measured
181.7 Hz; the criterion's 2/T passes it at T = 11 ms); link1 (0.4 m, held at both ends, clamped-clamped) keeps
its first, 4.7300^2 / (2 pi L^2) sqrt(E I / (rho A)) = 648.6 Hz (measured 643.8 Hz, shear). A 5 ms tool-force
ramp (2/T = 400 Hz) warns, a 20 ms one (100 Hz) does not.
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import H, L2, two_beam_parts, two_beam_robot

from structcheck.checks import arm_basis_warnings
from structcheck.model.materials import get_material
from structcheck.study import PointForce, Study, run


@pytest.fixture(scope="module")
def parts():
    return two_beam_parts(24, 18)


def _run(parts, ramp_s):
    study = Study(name="ramp", robot=two_beam_robot(), parts=parts, t_end=2 * ramp_s, n_frames=3, motion={},
                  n_modes=1, flexibility="arm", tool_point="tool",
                  point_forces=(PointForce("tool", f"STEP(time,0,0,{ramp_s},50)", (0, 0, -1)),))
    return run(study, progress=False, write=False).summary.warnings


def test_short_ramp_warns_and_names_the_link(parts):
    w = [m for m in _run(parts, 0.005) if "fixed-interface modes only up to" in m]
    assert len(w) == 1 and "link 'link2'" in w[0] and "(5 ms)" in w[0] and "~200 Hz" in w[0]
    steel = get_material("structural_steel")
    f_eb = 1.8751 ** 2 / (2 * np.pi * L2 ** 2) * np.sqrt(steel.E * H ** 4 / 12 / (steel.density * H * H))
    cutoff = float(w[0].split("only up to ")[1].split(" Hz")[0])
    assert cutoff == pytest.approx(f_eb, rel=0.01)  # the reported cut-off is link2's first clamped-free mode


def test_slow_enough_ramp_does_not_warn(parts):
    assert not any("fixed-interface modes only up to" in m for m in _run(parts, 0.02))


def test_criterion_sides():
    """2 x (1 / T) against the lowest cut-off, exactly at the boundary; no modes kept always warns; no ramp never."""
    assert arm_basis_warnings({"a": 400.0, "b": 1000.0}, 0.005) == []  # 2 / T = 400 Hz: just enough
    assert len(arm_basis_warnings({"a": 399.0, "b": 1000.0}, 0.005)) == 1
    assert len(arm_basis_warnings({"a": 0.0}, 10.0)) == 1
    assert arm_basis_warnings({"a": 0.0}, float("inf")) == []
