"""`structcheck info` with the arm model: the assembled arm's lowest frequencies at home and its first frequency
over the motion (min, max, and the time and pose of the lowest).

The two-beam arm (steel, 0.4 m + 0.3 m, 20 x 20 mm, joints about y) swings joint2 from 90 deg (an L) to 0
(straight) over 1 s and rests there until 1.5 s. Straight, it is a 0.7 m clamped-free beam: its first two
frequencies (bending about y and z of the square section) are Euler-Bernoulli's
1.8751^2 / (2 pi L^2) sqrt(E I / (rho A)) = 33.28 Hz. Bent into the L, the arm is stiffer (its mass is nearer the
root), so the lowest first frequency over the motion is the straight pose's.
"""
from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

from structcheck.model.materials import get_material

SCRIPT = textwrap.dedent('''
    from helpers import two_beam_parts, two_beam_robot
    from structcheck.study import Study

    study = Study(name="swing", robot=two_beam_robot(), parts=two_beam_parts(24, 18), t_end=1.5, n_frames=4,
                  motion={"joint2": "STEP(time,0,90d,1,0)"}, n_modes=4, flexibility="arm")
''')


def _f_straight():
    from helpers import H, L1, L2

    steel = get_material("structural_steel")
    return 1.8751040687 ** 2 / (2 * np.pi * (L1 + L2) ** 2) * np.sqrt(steel.E * H ** 4 / 12 / (steel.density * H * H))


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("info") / "swing.py"
    path.write_text(SCRIPT)
    return path


def test_arm_info_over_the_motion(script):
    """Home (straight): f1 = f2 = Euler-Bernoulli within 1% (measured +0.36%: the mesh and two rigid flanges).
    Over the motion the lowest first frequency is the straight pose's (the rest after t = 1 s, equal to home's)
    and the highest the L's at the start (measured 41.1 Hz)."""
    from structcheck.info import arm_info
    from structcheck.script import load_study

    info = arm_info(load_study(script))
    f_eb = _f_straight()
    assert info.home_hz[:2] == pytest.approx([f_eb, f_eb], rel=0.01)
    a = info.along
    assert len(a.t) > 5 and np.all(np.diff(a.t) >= 0)  # one-step segments may share a reference sample
    # the same pose assembled alone and in a stack: the dense eigen solve of the mixed-unit system resolves omega^2
    # to about eps * omega_max^2 (measured 1.6e-9 relative on one machine, below 1e-12 on another)
    assert a.frequency_hz.min() == pytest.approx(info.home_hz[0], rel=1e-7)
    assert a.t[a.i_min] >= 1.0 and np.degrees(a.q[a.i_min, 1]) == pytest.approx(0.0, abs=1e-9)
    assert a.t[a.i_max] < 0.2 and np.degrees(a.q[a.i_max, 1]) > 80
    assert a.frequency_hz.max() > 1.15 * a.frequency_hz.min()
    assert info.pose_text(a.q[a.i_min]) == "joint1 0.0 deg, joint2 0.0 deg"


def test_info_prints_the_arm_over_the_motion(script, capsys):
    from structcheck.cli import main

    assert main(["info", str(script)]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("arm model over the motion"))
    lo, hi = map(float, re.search(r"first frequency ([\d.]+) to ([\d.]+) Hz", line).groups())
    t_low = float(re.search(r"lowest at t = ([\d.]+) s", line).group(1))
    assert lo == pytest.approx(_f_straight(), rel=0.01) and hi > 1.15 * lo and 1.0 <= t_low <= 1.5
    assert "joint2 0.0 deg" in line
