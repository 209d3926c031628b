"""The tool chain on its own: which links it walks, how the tool link's patch compliances are shared, the
chained deflection of rigidly rotating interfaces, and the arm's lowest mode of a lumped mass on one compliance."""
import numpy as np
import pytest
from helpers import L1, L2, two_beam_robot

from structcheck.checks.toolchain import (ChainLink, arm_lowest_mode, tool_chain, tool_link_compliance,
                                          tool_point_deflection)
from structcheck.loads import LinkLoads, LoadColumn
from structcheck.model.robot import Joint, Link, Robot, trans


def three_links():
    """ground -j1-> a -j2-> b -j3-> c, plus a side branch b -j4-> d; the tool on b."""
    links = [Link(n) for n in ("ground", "a", "b", "c", "d")]
    y = np.array([0, 1.0, 0])
    joints = [Joint("j1", "revolute", "ground", "a", trans(), y, -3, 3),
              Joint("j2", "revolute", "a", "b", trans(1.0), y, -3, 3),
              Joint("j3", "revolute", "b", "c", trans(1.0), y, -3, 3),
              Joint("j4", "revolute", "b", "d", trans(y=1.0), y, -3, 3)]
    return Robot(links, joints, points={"tool": ("b", np.array([0.5, 0, 0]))})


def test_tool_chain_walks_from_the_base_to_the_tool_link():
    robot = three_links()
    assert tool_chain(robot, "tool", {"ground", "a", "b", "c", "d"}) == [("ground", "j1"), ("a", "j2"), ("b", None)]
    # links without a part are rigid: they drop out; links beyond the tool or on a side branch never enter
    assert tool_chain(robot, "tool", {"a", "c", "d"}) == [("a", "j2")]
    assert tool_chain(two_beam_robot(), "tool", {"link1", "link2"}) == [("link1", "joint2"), ("link2", None)]


def test_tool_link_compliance_shares_the_unit_loads_of_the_patches():
    """Two patches at the tool: each unit component is split equally; components absent are zero; no patch
    column at all gives None."""
    rng = np.random.default_rng(0)
    n_dof = 9
    P, U = rng.standard_normal((6, n_dof)), rng.standard_normal((n_dof, 5))
    columns = (LoadColumn("body", "body", "ax"), LoadColumn("left", "point", "Fx"), LoadColumn("left", "point", "Fz"),
               LoadColumn("right", "point", "Fx"), LoadColumn("joint9", "interface", "Fx"))
    loads = LinkLoads(F=np.zeros((n_dof, 5)), coeff=np.zeros((1, 5)), columns=columns, support=("j",),
                      proximal_wrench=np.zeros((1, 6)))
    C = tool_link_compliance(P, U, loads, ["left", "right"])
    expected = np.zeros((6, 6))
    expected[:, 0] = (P @ U[:, 1] + P @ U[:, 3]) / 2
    expected[:, 2] = P @ U[:, 2] / 2
    np.testing.assert_array_equal(C, expected)
    assert tool_link_compliance(P, U, loads, ["elsewhere"]) is None


def test_deflection_of_chained_rigid_rotations():
    """A straight arm along x (links at rest, identity placements): link 0 turns its distal interface (at x = L1)
    by theta about y and shifts it by d; the tool, L2 further, moves by d + theta x (L2, 0, 0) plus its own
    displacement u on the tool link."""
    theta, d, u = 1e-3, np.array([0, 0, -2e-4]), np.array([1e-5, 0, -3e-5])
    T_world_link = np.tile(np.eye(4), (1, 2, 1, 1))
    T_world_link[0, 1, :3, 3] = [L1, 0, 0]
    chain = [ChainLink(index=0, ref_point=np.array([L1, 0, 0]), motion=np.r_[d, 0, theta, 0][None]),
             ChainLink(index=1, ref_point=np.array([L2, 0, 0]), motion=np.r_[u, 0, 0, 0][None])]
    got = tool_point_deflection(chain, T_world_link, np.array([[L1 + L2, 0, 0]]))
    # theta about +y takes +x to -z: theta x (L2, 0, 0) = (0, 0, -theta L2)
    np.testing.assert_allclose(got[0], d + np.array([0, 0, -theta * L2]) + u, rtol=0, atol=1e-18)


def test_arm_mode_of_a_mass_on_a_translational_compliance():
    """One compliant interface (c per N in every direction, no rotation) carrying a mass m on the next link:
    the Rayleigh quotient of the static deflection is exact, f = sqrt(1 / (c m)) / (2 pi); a mass on the link
    whose distal interface is compliant (inboard of it) does not move and does not count."""
    c, m = 1e-6, 20.0
    C = np.zeros((6, 6))
    C[:3, :3] = c * np.eye(3)
    T_world_link = np.tile(np.eye(4), (3, 1, 1))
    chain = [ChainLink(index=1, ref_point=np.zeros(3), motion=np.zeros((1, 6)), compliance=C),
             ChainLink(index=2, ref_point=np.zeros(3), motion=np.zeros((1, 6)))]  # the tool link, rigid
    masses = [(m, np.array([1.0, 0, 0]), 2)]
    expected = np.sqrt(1 / (c * m)) / (2 * np.pi)
    assert arm_lowest_mode(chain, T_world_link, masses) == pytest.approx(expected, rel=1e-12)
    assert arm_lowest_mode(chain, T_world_link, masses + [(5.0, np.zeros(3), 1)]) == pytest.approx(expected,
                                                                                                    rel=1e-12)
    # nothing compliant carries a mass: no estimate
    assert np.isnan(arm_lowest_mode(chain, T_world_link, [(m, np.zeros(3), 1)]))
