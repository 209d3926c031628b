"""The brake's static holding torque (structcheck.drives.holding) against closed forms: a planar two-link arm under
gravity holds the most with both links stretched horizontally, tau_1 = g sum m_k x_k (each mass's horizontal
distance from joint 1) and tau_2 = g (m2 L2/2 + mp L2); the brake at the motor holds that through the ratio. Which
of the worst pose and the motion's own poses governs, and the note that says so."""
import numpy as np
import pytest

from helpers import L1, L2, two_beam_robot
from structcheck.drives import load_catalogue
from structcheck.drives.brake import brake_check
from structcheck.drives.holding import holding_torque, worst_poses

G = 9.81
CATALOGUE = """
[reducer."R"]
kind = "cycloidal_rv"
ratio = 100
source = "test entry"

[brake."B"]
side = "motor"
holding_torque_nm = 0.6
source = "test entry"
"""


def _arm(m1, m2):
    r = two_beam_robot()
    return (r.with_link("link1", mass=m1, com=(L1 / 2, 0, 0), inertia=np.eye(3) * 0.01)
             .with_link("link2", mass=m2, com=(L2 / 2, 0, 0), inertia=np.eye(3) * 0.01))


@pytest.mark.parametrize("mp", [0.0, 3.0])
def test_two_link_arm_stretched_horizontally(tmp_path, mp):
    m1, m2 = 2.0, 1.5
    payloads = {"tool": (mp, np.zeros((3, 3)))} if mp else {}  # (mass, inertia about the point) per point
    worst, reason = worst_poses(_arm(m1, m2), ["joint1", "joint2"], (0.0, 0.0, -G), payloads)
    assert reason == ""
    tau1 = G * (m1 * L1 / 2 + m2 * (L1 + L2 / 2) + mp * (L1 + L2))  # sum of m g x, stretched along x
    tau2 = G * (m2 * L2 / 2 + mp * L2)
    # the pose search refines with Powell to xtol 1e-8 rad about a maximum tau_max cos(dq): round-off
    assert abs(worst["joint1"][0]) == pytest.approx(tau1, rel=1e-12)
    assert abs(worst["joint2"][0]) == pytest.approx(tau2, rel=1e-12)
    held = holding_torque(worst["joint1"], motion=0.5 * tau1)  # the motion never stretches the arm out
    assert held.held == pytest.approx(tau1, rel=1e-12) and held.basis.startswith("held: the worst static pose")
    assert f"{tau1:.4g} N m at joint1 = " in held.basis and f"{0.5 * tau1:.4g} N m" in held.basis
    (tmp_path / "b.toml").write_text(CATALOGUE)
    cat = load_catalogue(tmp_path / "b.toml")
    check = brake_check(cat.get("brake", "B"), cat.get("reducer", "R"), held.held, basis=held.basis)
    assert check.value == pytest.approx(tau1 / 100, rel=1e-12)  # at the motor, through i = 100
    assert check.passed is (tau1 / 100 <= 0.6) and "worst static pose" in check.note


def test_which_governs_and_what_is_missing():
    held = holding_torque((-30.0, {"j": 0.0}), motion=45.0)  # a tool force held at rest exceeds gravity's worst
    assert held.held == 45.0 and held.worst == 30.0 and held.basis.startswith("held: the motion's own poses")
    only = holding_torque(None, 12.0, why_not_worst="a loop does not close")
    assert only.held == 12.0 and "worst static pose not searched (a loop does not close)" in only.basis
    none = holding_torque(None, None, "no search", "a closed chain")
    assert none.held is None and "neither known" in none.basis


def test_a_joint_not_actuated_is_left_out():
    worst, reason = worst_poses(_arm(1.0, 1.0), ["joint2", "elbow"], (0.0, 0.0, -G), {})
    assert reason == "" and set(worst) == {"joint2"}
