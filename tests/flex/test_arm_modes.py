"""structcheck.flex.modes, called directly on a one-link arm: a steel cantilever (L = 0.4 m, 20 mm square) clamped
at its joint. Its modes against Euler-Bernoulli, the shapes' normalization against their definition and the part's
own mass matrix, and the pose invariance of a link turning about its joint (first_mode_along_motion).

Error budget of the frequencies: Euler-Bernoulli leaves out shear and rotary inertia, which lower mode n by about
(1/2) (r/L)^2 (beta_n L)^2 (1 + E / (kappa G)) (Timoshenko), r^2 = h^2/12: 0.15% for the first bending mode at
L/h = 20, 0.9% for the second; the P2 mesh (20 x 2 x 2) and the Craig-Bampton basis (the link's fixed-interface
modes are the clamped cantilever's own) add less. Held to 1% and 2%."""
import numpy as np
import pytest

from helpers import beam
from structcheck.flex import reduce_links
from structcheck.flex.modes import arm_mode_shapes, first_mode_along_motion
from structcheck.model.materials import get_material
from structcheck.model.robot import Joint, Link, Robot

L, H = 0.4, 0.02
BETA = (1.8751041, 4.6940911)  # beta_n L of a clamped-free beam


@pytest.fixture(scope="module")
def arm():
    robot = Robot([Link("ground"), Link("link1")],
                  [Joint("joint1", "revolute", "ground", "link1", np.eye(4), np.array([0, 1.0, 0]), -3, 3)])
    part = beam(L, H, H, 20, ends=("joint1", "tip"), n_side=2)
    return robot, part, reduce_links(robot, {"link1": part}, 8)


def euler_bernoulli_hz(n):
    steel = get_material("structural_steel")
    return BETA[n] ** 2 / (2 * np.pi * L ** 2) * np.sqrt(steel.E * H ** 4 / 12 / (steel.density * H * H))


def test_cantilever_frequencies(arm):
    robot, _, ses = arm
    m = arm_mode_shapes(robot, ses, [0.0], n=4)
    f = m.frequency_hz
    # two bending planes of a square section: a pair, split only by the tets' diagonal pattern
    assert f[1] == pytest.approx(f[0], rel=1e-3)
    assert f[0] == pytest.approx(euler_bernoulli_hz(0), rel=1e-2)
    assert f[2] == pytest.approx(euler_bernoulli_hz(1), rel=2e-2)


def test_shapes_are_max_normalized_and_give_back_the_mass_normalized_modes(arm):
    robot, part, ses = arm
    m = arm_mode_shapes(robot, ses, [0.0], n=4)
    u = m.shapes["link1"]  # (4, n_nodes, 3), world axes = link axes at q = 0
    M = part.mass_matrix
    for k in range(4):
        mag = np.linalg.norm(u[k], axis=1)
        assert mag.max() == pytest.approx(1.0, rel=1e-12)
        at = u[k, mag.argmax()]
        assert at[np.abs(at).argmax()] > 0  # signed: the largest component of that node positive
        x = np.zeros(part.n_dofs)
        x[part.node_dofs] = u[k] * m.scale_to_mass_normalized[k]
        assert x @ (M @ x) == pytest.approx(1.0, rel=1e-8)  # X^T M X = I on the link's full mass matrix
    # the first bending mode's largest motion is at the free end, across the beam
    tip = np.isclose(part.points[:, 0], L)
    assert np.linalg.norm(u[0][tip], axis=1).max() == pytest.approx(1.0, rel=1e-9)
    assert np.abs(u[0][tip][:, 0]).max() < 0.1  # along the beam it barely moves


def test_turning_about_the_joint_changes_no_frequency_and_turns_the_shapes(arm):
    robot, _, ses = arm
    a, b = arm_mode_shapes(robot, ses, [0.0], n=3), arm_mode_shapes(robot, ses, [0.7], n=3)
    np.testing.assert_allclose(b.frequency_hz, a.frequency_hz, rtol=1e-9)
    R = b.T_world_link["link1"][:3, :3]
    c, s = np.cos(0.7), np.sin(0.7)
    np.testing.assert_allclose(R, [[c, 0, s], [0, 1, 0], [-s, 0, c]], atol=1e-15)  # about y
    # mode 3 (second bending) is not degenerate: its shape is the same shape turned, up to sign
    ua, ub = a.shapes["link1"][2], b.shapes["link1"][2]
    turned = ua @ R.T
    sign = np.sign(np.sum(turned * ub))
    np.testing.assert_allclose(ub, sign * turned, atol=1e-8)


def test_first_mode_along_a_motion_is_pose_invariant(arm):
    robot, _, ses = arm
    t = np.linspace(0.0, 1.0, 21)
    q = (t * 1.0)[:, None]  # 0 -> 1 rad about the joint axis
    first = first_mode_along_motion(robot, ses, t, q, max_joint_change=0.3)
    assert 3 <= len(first.t) <= 5  # 1 rad in segments of at most 0.3 rad
    assert np.all(np.diff(first.t) > 0) and 0 <= first.t[0] and first.t[-1] <= 1.0
    f0 = arm_mode_shapes(robot, ses, [0.0], n=1).frequency_hz[0]
    np.testing.assert_allclose(first.frequency_hz, f0, rtol=1e-9)
    assert first.frequency_hz[first.i_min] == first.frequency_hz.min()
