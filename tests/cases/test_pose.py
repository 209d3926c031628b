"""Worst static pose (structcheck.cases.pose) against closed forms: a planar two-link arm's largest holding torques
(stretched horizontally), a cantilever link's bending stress at its worst (horizontal) pose, and superposition of
the unit-load solutions against a direct static solve."""
import numpy as np
import pytest

from helpers import L1, L2, H, beam, two_beam_robot
from structcheck.cases import pose
from structcheck.errors import InputError
from structcheck.fe.stress import von_mises
from structcheck.model.robot import Joint, Link, Robot
from structcheck.study import Payload, Study

G = 9.81
# Powell stops when a line search moves less than XTOL [rad]; near a smooth maximum tau ~ tau_max cos(dq) the
# torque's relative error is dq^2 / 2 ~ 1e-16, so the torque holds to round-off and the pose to a few XTOL
POSE_TOL = 10 * pose.XTOL


def _two_link(m1=2.0, m2=1.5):
    r = two_beam_robot()
    return (r.with_link("link1", mass=m1, com=(L1 / 2, 0, 0), inertia=np.eye(3) * 0.01)
             .with_link("link2", mass=m2, com=(L2 / 2, 0, 0), inertia=np.eye(3) * 0.01))


@pytest.mark.parametrize("mp", [0.0, 3.0])
def test_two_link_holding_torques_stretched_horizontally(mp):
    m1, m2 = 2.0, 1.5
    worst = pose.worst_holding_torques(_two_link(m1, m2), points=9, payloads={"tool": mp} if mp else None)
    tau1 = (m1 * L1 / 2 + m2 * L1) * G + m2 * L2 / 2 * G + mp * (L1 + L2) * G
    tau2 = m2 * L2 / 2 * G + mp * L2 * G
    t1, q1 = worst["joint1"]
    t2, q2 = worst["joint2"]
    assert abs(t1) == pytest.approx(tau1, rel=1e-12)
    assert abs(t2) == pytest.approx(tau2, rel=1e-12)
    # stretched along x (limits +-3 rad exclude the other horizontal, pi): both links horizontal
    assert abs(q1["joint1"]) < POSE_TOL and abs(q1["joint2"]) < POSE_TOL
    assert abs(q2["joint1"] + q2["joint2"]) < POSE_TOL  # link 2 horizontal, link 1 anywhere


def test_ranges_hold_a_joint_and_refuse_bad_ones():
    robot = _two_link()
    worst = pose.worst_holding_torques(robot, points=5, ranges={"joint1": 0.5})
    t1, q = worst["joint1"]
    assert q["joint1"] == 0.5 and abs(q["joint2"] + 0.5) < POSE_TOL
    with pytest.raises(InputError, match="leaves its limits"):
        pose.search_ranges(robot, {"joint1": (-4.0, 0.0)})
    with pytest.raises(InputError, match="not driven joints"):
        pose.search_ranges(robot, {"elbow": (0, 1)})
    with pytest.raises(InputError, match="points"):
        pose.pose_grid({"joint1": (0, 1)}, 1)


def _cantilever(n_len=40, n_side=4, mp=2.0):
    part = beam(L1, H, H, n_len, ends=("joint1", "tip"), n_side=n_side)
    robot = Robot([Link("ground"), Link("beam")],
                  [Joint("joint1", "revolute", "ground", "beam", np.eye(4), np.array([0, 1.0, 0]), -3, 3)],
                  points={"tip": ("beam", np.array([L1, 0.0, 0.0]))})
    return Study(name="cantilever", robot=robot, motion={}, parts={"beam": part}, t_end=1.0,
                 payloads=(Payload("tip", mp),)), part


def test_cantilever_worst_pose_is_horizontal_with_beam_theory_stress():
    mp = 2.0
    study, part = _cantilever(mp=mp)
    res = pose.search(study, points=7)
    w = res.stresses["beam"]
    m_beam = part.mass_properties().mass
    # not quite horizontal: tilted by q the root carries the axial stress W sin q / A beside the bending
    # M cos q c / I, whose sum peaks at tan q = (W / A) / (M c / I) (beam theory; the FE peak sits at the clamp's
    # corner, where the concentration scales the two a little differently: 10 % on q)
    W, M_root = (mp + m_beam) * G, (mp * L1 + m_beam * L1 / 2) * G
    q_star = np.arctan((W / H ** 2) / (M_root * (H / 2) / (H ** 4 / 12)))
    assert w.pose["joint1"] == pytest.approx(q_star, rel=0.1)
    # the static response at the horizontal pose: sigma_xx on the extreme fibres at mid-span vs M c / I
    chain, g, pl = pose.static_model(study, None, None)  # the inertials from the mesh, as the study runs
    links = pose.static_links(chain, study.parts, np.zeros(1), g, pl)
    c = pose.static_coefficients(chain, links, np.zeros((1, 1)), g, pl)["beam"][0]
    u = links["beam"].basis.U @ c
    sxx = part.nodal_average(part.element_node_stress(u[:, None])[0][..., 0])
    x = part.points
    mid = np.isclose(x[:, 0], L1 / 2, atol=1e-9) & np.isclose(np.abs(x[:, 2]), H / 2, atol=1e-9)
    M_mid = (mp * L1 / 2 + m_beam / L1 * (L1 / 2) ** 2 / 2) * G  # moment at mid-span: payload + half the beam
    ref = M_mid * (H / 2) / (H ** 4 / 12)
    # mesh budget: P2 tets, 40 x 4 x 4 cells, the verification manual's mid-span bending row holds 2 %
    assert np.max(np.abs(np.abs(sxx[mid]) - ref)) / ref < 0.02
    # the root's peak (with the clamp's corner concentration) is above the beam's root stress
    M_root = (mp * L1 + m_beam * L1 / 2) * G
    assert w.value > M_root * (H / 2) / (H ** 4 / 12)


def test_superposition_equals_direct_solve(rng):
    robot = two_beam_robot()
    parts = {"link1": beam(L1, H, H, 12, ends=("joint1", "joint2")),
             "link2": beam(L2, H, H, 10, ends=("joint2", "tool"))}
    study = Study(name="two", robot=robot, motion={}, parts=parts, t_end=1.0, payloads=(Payload("tool", 3.0),))
    chain, g, pl = pose.static_model(study, None, None)
    links = pose.static_links(chain, parts, np.zeros(2), g, pl)
    q = rng.uniform(-3, 3, (1, 2))
    coeff = pose.static_coefficients(chain, links, q, g, pl)
    _, _, body = next(pose.static_bodies(chain, q, g, pl))
    from structcheck.fe.response import peak_von_mises
    from structcheck.loads import link_loads

    for name, sl in links.items():
        direct = link_loads(chain, body.dynamics, name, parts[name], g, {}, pl)  # unit loads rebuilt at q
        u = parts[name].solve_unit_loads(direct.F @ direct.coeff[0], list(direct.support))
        u_sup = sl.basis.U @ coeff[name][0]
        assert np.max(np.abs(u_sup - u)) <= 1e-9 * np.max(np.abs(u))
        vm = von_mises(parts[name].element_node_stress(u[:, None])[0]).max()
        assert peak_von_mises(sl.basis, coeff[name]) == pytest.approx(vm, rel=1e-9)


def test_peak_pose_finds_the_worst_sample(rng):
    study, part = _cantilever(n_len=10, n_side=2)
    chain, g, pl = pose.static_model(study, None, None)
    links = pose.static_links(chain, study.parts, np.zeros(1), g, pl)
    Q = rng.uniform(-3, 3, (257, 1))
    coeff = pose.static_coefficients(chain, links, Q, g, pl)["beam"]
    peak, i = pose.peak_pose(links["beam"].basis, coeff)
    S = part.element_node_stress(links["beam"].basis.U @ coeff.T)
    each = von_mises(S).reshape(len(Q), -1).max(axis=1)
    assert peak == pytest.approx(each.max(), rel=1e-12) and each[i] == pytest.approx(each.max(), rel=1e-12)
    # ties (the poses twice, reversed first): the first pose reaching the peak, in small chunks of samples too
    from structcheck.fe.response import peak_von_mises

    twice = np.vstack([coeff[::-1], coeff])
    first = int(np.argmax(np.r_[each[::-1], each] >= each.max() * (1 - 1e-12)))
    assert pose.peak_pose(links["beam"].basis, twice)[1] == first < len(Q)
    assert peak_von_mises(links["beam"].basis, twice, chunk_bytes=4e3, where=True)[1] == first


def test_pose_peaks_exact_per_pose(rng, monkeypatch):
    from structcheck.cases import posemap

    monkeypatch.setattr(posemap, "FIRST_CANDIDATES", 8)  # force the widening
    study, part = _cantilever(n_len=10, n_side=2)
    chain, g, pl = pose.static_model(study, None, None)
    links = pose.static_links(chain, study.parts, np.zeros(1), g, pl)
    Q = rng.uniform(-3, 3, (40, 1))
    coeff = pose.static_coefficients(chain, links, Q, g, pl)["beam"]
    S = part.element_node_stress(links["beam"].basis.U @ coeff.T)
    each = von_mises(S).reshape(len(Q), -1).max(axis=1)
    assert np.allclose(posemap.pose_peaks(links["beam"].basis, coeff), each, rtol=1e-12)


def test_slice_map_of_two_link_torque_is_closed_form(tmp_path):
    from structcheck.cases import posemap

    m1, m2 = 2.0, 1.5
    robot = _two_link(m1, m2)
    r = pose.search_ranges(robot)
    g = np.array([0, 0, -G])
    m = posemap.slice_map(robot, r, {"joint1": 0.0, "joint2": 0.0}, ("joint1", "joint2"), "joint1", g, {}, points=7)
    X, Y = np.meshgrid(m.x, m.y)
    ref = (m1 * L1 / 2 + m2 * L1) * G * np.cos(X) + m2 * L2 / 2 * G * np.cos(X + Y)
    assert np.allclose(np.abs(m.torque), np.abs(ref), rtol=1e-12, atol=1e-12)
    assert posemap.plot_map(m, tmp_path / "map.png", {"worst": (0.0, 0.0)}).stat().st_size > 1000


def test_held_point_force_adds_its_moment(tmp_path):
    from helpers import SMALL_H, SMALL_L, write_small_study
    from structcheck.script import build_study

    study = build_study(write_small_study(tmp_path), {"gravity_z": -9.81})  # 100 N down at the tip
    res = pose.search(study, points=5, stresses=False, forces=True)
    assert np.allclose(res.forces["tip"], [0, 0, -100.0], rtol=1e-12)
    m = 7850.0 * SMALL_L * SMALL_H ** 2  # structural_steel
    assert abs(res.torques["joint1"].value) == pytest.approx(100.0 * SMALL_L + m * G * SMALL_L / 2, rel=1e-12)
    assert pose.search(study, points=5, stresses=False).forces == {}


def test_closed_chain_parallelogram_holding_torque():
    """A planar parallelogram (crank and rocker of length L, coupler translating; the loop cut at the rocker-coupler
    pin) searched through the chain's own machinery: the crank's static torque is g (m1 c1 + m3 c3 + m2 L) cos
    theta, largest at the range's end nearest the level crank (the level pose itself folds the loop: excluded)."""
    from structcheck.model.robot import trans
    from structcheck.rigid.closedchain import ClosedChain, CutJoint

    L, D, m1, c1, m2, m3, c3 = 0.6, 0.9, 2.0, 0.25, 5.0, 1.5, 0.4
    z = np.array([0.0, 0.0, 1.0])
    links = [Link("ground"), Link("crank", m1, (c1, 0, 0), np.diag([0.01, 0.02, 0.03])),
             Link("coupler", m2, (D / 2, 0, 0), np.diag([0.2, 0.3, 0.7])),
             Link("rocker", m3, (c3, 0, 0), np.diag([0.03, 0.01, 0.02]))]
    joints = [Joint("j1", "revolute", "ground", "crank", np.eye(4), z, home=0.5),
              Joint("j2", "revolute", "crank", "coupler", trans(x=L), z, home=-0.5),
              Joint("j3", "revolute", "ground", "rocker", trans(x=D), z, home=0.5)]
    chain = ClosedChain(Robot(links, joints), [CutJoint("pin", "revolute", "rocker", "coupler", trans(x=L),
                                                        trans(x=D), axis=z)], ["j1"])
    worst = pose.worst_holding_torques(chain, points=9, ranges={"j1": (0.3, 2.0)}, gravity=(0, -G, 0))
    tau, q = worst["j1"]
    assert abs(tau) == pytest.approx(G * (m1 * c1 + m3 * c3 + m2 * L) * np.cos(0.3), rel=1e-10)
    assert q == {"j1": pytest.approx(0.3, abs=1e-12)}
