"""structcheck.flex.topology, called directly: rigid-body transport and released motions against their closed
forms, a rigid body's mass matrix against its kinetic energy, and the expressions of a hand-built two-link arm
(which coordinates move which flange, in parent-before-child order)."""
from types import SimpleNamespace

import numpy as np
import pytest

from helpers import L1, two_beam_robot
from structcheck.errors import InputError
from structcheck.flex.topology import (Topology, expression_matrix, joint_release, release_matrix,
                                       rigid_mass_matrix, transport, tree_joints)


def test_transport_is_the_rigid_body_motion(rng):
    a, b = rng.standard_normal(3), rng.standard_normal(3)
    d, theta = rng.standard_normal(3) * 1e-3, rng.standard_normal(3) * 1e-3
    M = expression_matrix(transport([(np.arange(6), np.eye(6))], a, b), 6)
    np.testing.assert_allclose(M @ np.r_[d, theta], np.r_[d + np.cross(theta, b - a), theta], rtol=1e-14,
                               atol=1e-18)


def test_released_motions(rng):
    a = rng.standard_normal(3)
    a /= np.linalg.norm(a)
    np.testing.assert_array_equal(release_matrix("rotation", a)[:, 0], np.r_[0, 0, 0, a])
    np.testing.assert_array_equal(release_matrix("translation", a)[:, 0], np.r_[a, 0, 0, 0])
    G = release_matrix("rotation+tilt", a)
    assert np.all(G[:3] == 0)
    np.testing.assert_allclose(G[3:].T @ G[3:], np.eye(3), atol=1e-14)  # the axis and two normals, orthonormal
    np.testing.assert_allclose(G[3:, 0], a, atol=1e-15)
    np.testing.assert_array_equal(release_matrix("spherical", a), np.r_[np.zeros((3, 3)), np.eye(3)])


def test_joint_release_choices():
    assert joint_release("j", "revolute", False, {}) is None  # actuated: rigid
    assert joint_release("j", "revolute", True, {}) == ("rotation", 0.0)  # passive: free about its axis
    assert joint_release("j", "prismatic", True, {}) == ("translation", 0.0)
    assert joint_release("j", "fixed", True, {}) is None
    assert joint_release("j", "revolute", False, {"j": 5e4}) == ("rotation", 5e4)
    kind, k = joint_release("j", "revolute", False, {"j": (5e4, 2e5)})
    assert kind == "rotation+tilt" and list(k) == [5e4, 2e5, 2e5]
    with pytest.raises(InputError, match=r"joint_stiffness\['j'\]"):
        joint_release("j", "revolute", False, {"j": -1.0})


def test_rigid_mass_matrix_gives_the_kinetic_energy(rng):
    """T = m |d + theta x c|^2 / 2 + theta . I_c theta / 2 for the velocity (d, theta) of the frame origin."""
    m, c = 2.5, rng.standard_normal(3) * 0.1
    R = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    I_c = R @ np.diag([0.02, 0.03, 0.04]) @ R.T
    M = rigid_mass_matrix(m, c, I_c)
    for _ in range(5):
        d, w = rng.standard_normal(3), rng.standard_normal(3)
        v_c = d + np.cross(w, c)
        assert 0.5 * np.r_[d, w] @ M @ np.r_[d, w] == pytest.approx(0.5 * m * v_c @ v_c + 0.5 * w @ I_c @ w,
                                                                      rel=1e-13)


def _two_beam_pose():
    """The two-beam arm at q = 0: both links along x, link2's frame at x = L1; each beam a stand-in superelement
    with its flanges' points (link frame) named after the joints."""
    tree = two_beam_robot()
    T2 = np.eye(4)
    T2[0, 3] = L1
    T_wl = {"ground": np.eye(4), "link1": np.eye(4), "link2": T2}
    elastic = {"link1": SimpleNamespace(interfaces=["joint1", "joint2"], points=np.array([[0, 0, 0], [L1, 0, 0.]])),
               "link2": SimpleNamespace(interfaces=["joint2", "tool"], points=np.array([[0, 0, 0], [0.3, 0, 0.]]))}
    return tree, T_wl, elastic


def test_two_beam_arm_rigid_joints():
    """ground (clamped) -joint1-> link1 -joint2-> link2, both joints actuated (rigid): link1's proximal flange is
    clamped (no coordinates), joint2 makes one 6-DOF node, numbered first (0..5), which both of its sides share."""
    tree, T_wl, elastic = _two_beam_pose()
    top = Topology()
    tree_joints(top, tree, elastic, T_wl, passive=set(), joint_stiffness={})
    assert top.rigid == {"ground": []}
    assert top.node_side[("link1", "joint1")] == []  # clamped
    assert top.labels == [f"node joint2[{i}]" for i in range(6)] and top.springs == []
    for side in ("link1", "link2"):
        np.testing.assert_array_equal(expression_matrix(top.node_side[(side, "joint2")], 6), np.eye(6))


def test_two_beam_arm_passive_elbow_adds_a_free_rotation_about_its_axis():
    tree, T_wl, elastic = _two_beam_pose()
    top = Topology()
    tree_joints(top, tree, elastic, T_wl, passive={"joint2"}, joint_stiffness={})
    assert top.labels[6:] == ["joint joint2 relative rotation[0]"]
    assert [(int(i), float(k)) for i, k in top.springs] == [(6, 0.0)]
    child = expression_matrix(top.node_side[("link2", "joint2")], 7)
    np.testing.assert_array_equal(child[:, :6], np.eye(6))
    np.testing.assert_array_equal(child[:, 6], [0, 0, 0, 0, 1, 0])  # about world y, the joint's axis
    np.testing.assert_array_equal(expression_matrix(top.node_side[("link1", "joint2")], 7)[:, 6], 0)


def test_rigid_first_link_carries_the_clamp():
    """link1 without a Part (rigid) on a clamped joint: its origin does not move, so link2's flange is clamped."""
    tree, T_wl, elastic = _two_beam_pose()
    del elastic["link1"]
    top = Topology()
    tree_joints(top, tree, elastic, T_wl, passive=set(), joint_stiffness={"joint2": 1e4})
    assert top.rigid["link1"] == []
    child = expression_matrix(top.node_side[("link2", "joint2")], len(top.labels))
    assert top.labels == ["joint joint2 relative rotation[0]"]  # only the compliant joint's rotation
    np.testing.assert_array_equal(child[:, 0], [0, 0, 0, 0, 1, 0])
    assert [(int(i), float(k)) for i, k in top.springs] == [(0, 1e4)]
