"""Paper 000 (Yu, Juanatas, Zheng 2024): the PR1300 palletizer study (studies/pr1300_palletizer.py). The closed
chain's loops and power balance along the paper's straight line, eq. (23) (the Fig. 1 relations between the
joint angles), the levelling, the inverse kinematics against the line and a law-of-cosines closed form, the
modified trapezoid against its closed form, the gravity torques against virtual work done by hand, and a
shortened end-to-end run (coarser meshes of the same parts, quasi-static) with the structural check of every
link and the paper comparisons in summary.json."""
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import pr1300_palletizer as pr  # noqa: E402

import structcheck as sc  # noqa: E402
from structcheck.rigid import closedchain as cc  # noqa: E402
from structcheck.rigid.kinematics import link_kinematics  # noqa: E402
from structcheck.rigid.loops import loop_residuals  # noqa: E402
from structcheck.study import run  # noqa: E402

L, M1 = 0.7, 0.5 + 1.0 / np.pi  # path length [m]; mean of the modified trapezoid's acceleration shape on a phase


@pytest.fixture(scope="module")
def line():
    return pr.line_motion()


@pytest.fixture(scope="module")
def rigid(line):
    """The study's motion on 401 samples (breakpoints of the profile included) with the closed-chain dynamics."""
    start, ln, laws = line
    chain = pr.mechanism(start)
    prof = pr.profile()
    t = np.union1d(np.linspace(0.0, ln.t_stop, 401), prof.breakpoints)
    home = np.array([chain.tree.joint(j).home for j in pr.DRIVEN])
    q = home + np.column_stack([laws[j].value(t) for j in pr.DRIVEN])
    qd = np.column_stack([laws[j].velocity(t) for j in pr.DRIVEN])
    qdd = np.column_stack([laws[j].acceleration(t) for j in pr.DRIVEN])
    motion = cc.closed_chain_motion(chain, q, qd, qdd, t)
    return {"chain": chain, "t": t, "q": q, "motion": motion,
            "dyn": cc.closed_chain_dynamics(chain, motion, pr.GRAVITY)}


def _col(chain, q, name):
    return q[:, chain.tree.dof_names.index(name)]


def _phi(chain, q, link):
    """Angle [rad] of a link's x axis in the arm plane, from the vertical toward the front (world +x), turned
    about world +y (theta1 = 0 along the line)."""
    R = chain.tree.forward_kinematics(q)[:, chain.tree.link_names.index(link), :3, :3]
    return np.arctan2(R[:, 0, 0], R[:, 2, 0])


def _wrap(a):
    return np.mod(a + np.pi, 2 * np.pi) - np.pi


def test_mechanism_has_three_dof_and_three_planar_loops(rigid):
    """Nine moving parts, twelve revolute joints (nine in the tree, three cut): F = 3 x 9 - 2 x 12 = 3; each
    planar loop of spatial revolutes has 3 redundant constraint rows (15 rows, rank 6)."""
    chain = rigid["chain"]
    assert len(chain.tree.links) - 1 == 9 and len(chain.joint_names) == 12 and chain.n_dof == 3
    assert chain.n_rows == 15 and rigid["dyn"].redundant == 9


def test_loops_closed_and_power_balanced_along_the_line(rigid):
    chain, mo, dyn = rigid["chain"], rigid["motion"], rigid["dyn"]
    res = loop_residuals(chain, mo.q, mo.qd, mo.qdd)
    assert max(res.position.max(), res.orientation.max() * chain.size) < 1e-10
    assert max(res.velocity.max(), res.angular_velocity.max() * chain.size) < 1e-10
    assert max(res.acceleration.max(), res.angular_acceleration.max() * chain.size) < 1e-10
    assert cc.power_balance(chain, dyn, pr.GRAVITY) < 1e-8
    assert np.nanmax(cc.link_equilibrium(chain, dyn, pr.GRAVITY)) < 1e-10


def test_fig1_relations_and_levelling(rigid):
    """Eq. (23): theta3' = theta2 - theta2' and theta4' = theta3 = theta2' - theta2, where theta4' is the angle at
    the cut pin between the linkage and the forearm's rear extension (Table 1 offset 90 deg); the linkage and H1
    stay parallel to the big arm, H2 to the forearm, the triangle and the wrist bracket level."""
    chain, q = rigid["chain"], rigid["motion"].q
    t2, t2p, t3, t3p = (_col(chain, q, n) for n in ("J2", "J2p", "J3", "J3p"))
    np.testing.assert_allclose(t3p, t2 - t2p, atol=1e-12)
    np.testing.assert_allclose(t3, t2p - t2, atol=1e-12)
    phi = {n: _phi(chain, q, n) for n in ("L2", "L3", "K", "H1", "H2", "T", "W")}
    np.testing.assert_allclose(_wrap(phi["L3"] - phi["K"] - np.pi / 2), t3, atol=1e-12)  # theta4'
    np.testing.assert_allclose(_wrap(phi["L2"]), t2, atol=1e-12)
    np.testing.assert_allclose(_wrap(phi["L3"]), np.pi / 2 + t2p, atol=1e-12)
    for a, b in (("K", "L2"), ("H1", "L2"), ("H2", "L3")):
        np.testing.assert_allclose(_wrap(phi[a] - phi[b]), 0.0, atol=1e-12)
    for n in ("T", "W"):
        np.testing.assert_allclose(phi[n], np.pi / 2, atol=1e-12)


def test_ik_follows_the_straight_line(rigid):
    """The tool point (wrist pin) by the model's kinematics with the loops closed stays on p1 -> p2, from p1 to
    p2; the driven angles equal the law-of-cosines inverse of the two-link arm, whose forward map returns the
    points (eq. 21 with the forearm)."""
    chain, q, t = rigid["chain"], rigid["motion"].q, rigid["t"]
    T = chain.tree.forward_kinematics(q)[:, chain.tree.link_names.index("L3")]
    tcp = T[:, :3, :3] @ np.array([pr.meshes.L_FORE, 0.0, 0.0]) + T[:, :3, 3]
    d = (pr.P2 - pr.P1) / L
    rel = tcp - pr.P1
    assert np.linalg.norm(rel - np.outer(rel @ d, d), axis=1).max() < 1e-12  # m
    np.testing.assert_allclose(tcp[0], pr.P1, atol=1e-12)
    np.testing.assert_allclose(tcp[-1], pr.P2, atol=1e-12)
    np.testing.assert_allclose(rel @ d, pr.profile().value(t), atol=1e-12)
    np.testing.assert_allclose(rigid["q"], pr.wrist_ik(tcp), atol=1e-11)
    np.testing.assert_allclose(pr.wrist_point(rigid["q"]), tcp, atol=1e-12)


def test_closed_form_laws_follow_the_numerical_inverse_kinematics(line):
    """The study's laws (wrist_ik written as ADAMS expressions of the profile's own expression) against the
    CartesianLine's Newton inverse kinematics on the right chain (polished to 1e-12 m / rad; rates by the task
    Jacobian): the same joint motion to 5e-12 rad, rad/s, rad/s^2 (its tolerance through the Jacobian)."""
    start, ln, laws = line
    ref = ln.joint_laws()
    ref = {"J1": ref["J1"], "J2": ref["J2"], "J2p": pr.SumLaw(ref["J2"], ref["J3"])}
    t = np.union1d(np.linspace(0.0, ln.t_stop, 201), ln.breakpoints)
    for j in pr.DRIVEN:
        assert np.abs(laws[j].value(t) - ref[j].value(t)).max() < 5e-12
        assert np.abs(laws[j].velocity(t) - ref[j].velocity(t)).max() < 5e-12
        for side in (-1, 1):
            assert np.abs(laws[j].acceleration(t, side) - ref[j].acceleration(t, side=side)).max() < 5e-12


def test_modified_trapezoid_reaches_a_max_v_max_in_the_closed_form_time(rigid):
    """Each acceleration phase (sine quarter-wave rise, constant, fall) of length Ta gains a_max Ta (1/2 + 1/pi):
    Ta = v_max / (a_max (1/2 + 1/pi)) = 0.458 s, duration L / v_max + Ta = 1.0416 s; the tool point's speed and
    acceleration along the line (model kinematics) reach exactly v_max and a_max."""
    Ta = pr.V_MAX / (pr.A_MAX * M1)
    prof = pr.profile()
    assert prof.t1 == pytest.approx(L / pr.V_MAX + Ta, rel=1e-14)
    assert prof.breakpoints == pytest.approx((0.0, Ta, prof.t1 - Ta, prof.t1), rel=1e-14)
    chain, mo, t = rigid["chain"], rigid["motion"], rigid["t"]
    kin = link_kinematics(chain.tree, mo.q, mo.qd, mo.qdd)
    i = chain.tree.link_names.index("L3")
    R, w, al, ao = kin.T_world_link[:, i, :3, :3], kin.omega[:, i], kin.alpha[:, i], kin.a_origin[:, i]
    r = np.broadcast_to([pr.meshes.L_FORE, 0.0, 0.0], w.shape)
    v = np.einsum("nij,nj->ni", R, kin.v_origin[:, i] + np.cross(w, r))
    a = np.einsum("nij,nj->ni", R, ao + np.cross(al, r) + np.cross(w, np.cross(w, r)))
    d = (pr.P2 - pr.P1) / L
    assert np.abs(v @ d).max() == pytest.approx(pr.V_MAX, rel=1e-12)
    plateau = (t >= Ta / 4) & (t <= 3 * Ta / 4)
    assert plateau.sum() > 10
    np.testing.assert_allclose(a[plateau] @ d, pr.A_MAX, rtol=1e-10)
    assert np.abs(a @ d).max() == pytest.approx(pr.A_MAX, rel=1e-10)
    np.testing.assert_allclose(np.linalg.norm(np.cross(v, d), axis=1), 0.0, atol=1e-10)


def _virtual_work_torques(chain, q):
    """Gravity torques of J2 and J2p (n, 2) [N m] by hand: tau = dV/dtheta with V = g sum m h, the heights h of
    every centre of mass (parts and drive masses) written in theta2 and theta2' from the parallelogram geometry:
    a member at angle phi from the vertical puts its local point (x, y) at height x cos phi - y sin phi."""
    g = -pr.GRAVITY[2]
    t2, t2p = _col(chain, q, "J2"), _col(chain, q, "J2p")
    p3, pc = np.pi / 2 + t2p, t2p - np.pi / 2  # forearm and crank angles from the vertical
    l2, l3, r = pr.meshes.L_BIG, pr.meshes.L_FORE, pr.meshes.L_CRANK

    def masses(name):  # (m, x, y) of the link and its drive masses
        ln = chain.tree.link(name)
        return [(ln.mass, ln.com[0], ln.com[1])] + [(pm.mass, pm.position[0], pm.position[1])
                                                    for pm in ln.point_masses]

    def turning(name, phi):  # d/dphi of (x cos phi - y sin phi), times m
        return sum(-m * (x * np.sin(phi) + y * np.cos(phi)) for m, x, y in masses(name))

    def total(name):
        return sum(m for m, _, _ in masses(name))

    # theta2: L2, K, H1 turn with the big arm; L3, T, H2, W ride on the elbow, raised by l2 cos theta2
    tau2 = sum(turning(n, t2) for n in ("L2", "K", "H1")) - sum(total(n) for n in ("L3", "T", "H2", "W")) \
        * l2 * np.sin(t2)
    # theta2': L3, H2 turn with the forearm, C with the crank; K rides on the crank tip, W on the wrist
    tau2p = turning("L3", p3) + turning("H2", p3) + turning("C", pc) - total("K") * r * np.sin(pc) \
        - total("W") * l3 * np.sin(p3)
    return g * np.column_stack([tau2, tau2p])


def test_gravity_torques_by_virtual_work(rigid):
    """At rest in the line's poses the actuator torques of the closed chain (Newton-Euler on the tree plus the
    cut-joint multipliers) equal the derivative of the potential energy taken by hand; the big arm's is the
    larger, as in the paper."""
    chain, q = rigid["chain"], rigid["q"][::40]
    motion = cc.closed_chain_motion(chain, q, np.zeros_like(q), np.zeros_like(q), None)
    tau = cc.closed_chain_dynamics(chain, motion, pr.GRAVITY).tau
    ref = _virtual_work_torques(chain, motion.q)
    np.testing.assert_allclose(tau[:, 1:], ref, rtol=1e-12, atol=1e-9 * np.abs(ref).max())
    np.testing.assert_allclose(tau[:, 0], 0.0, atol=1e-9)  # gravity along the J1 axis
    assert (np.abs(ref[:, 0]) > np.abs(ref[:, 1])).all()


def test_parts_are_ht200_with_every_joint_surface():
    """Every link (loop members included) is an HT200 part judged by the maximum principal stress, carries the
    surfaces of all its joints (tree and cut) and of its drive masses, and stays a few thousand nodes."""
    chain = pr.mechanism()
    ends = [(j.name, j.parent, j.child) for j in chain.tree.joints] + [(c.name, c.parent, c.child)
                                                                       for c in chain.cuts]
    for name, part in pr.PARTS.items():
        assert part.material.name == "HT200" and part.material.criterion == "max_principal"
        want = {j for j, a, b in ends if name in (a, b)} | {k for k, v in pr.DRIVE_MASSES.items() if v[0] == name}
        assert want <= set(part.surfaces), (name, want - set(part.surfaces))
        assert len(part.points) < 15000


def test_study_end_to_end_shortened(tmp_path):
    """The study's own Study on coarser meshes of the same parts (mesh size x 2.5), quasi-static, 5 frames: every
    link is checked, the closed chain's checks hold, and summary.json has the driven joints' max_torque_nm and
    the paper comparison (write_extra's CSV beside it)."""
    out = pr.meshes.build_meshes(tmp_path / "meshes", size_factor=2.5, verbose=False)
    parts = {n: sc.Part.from_mesh(out / f"{n}.msh", material="HT200") for n in pr.meshes.PARTS}
    study = replace(pr.build(n_frames=5), parts=parts, quasi_static=True)
    run(study, tmp_path / "out", progress=False, vtk=False, plots=False)
    s = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert set(s["links"]) == set(pr.meshes.PARTS) and s["passed"]
    for link in s["links"].values():
        assert link["criterion"] == "max_principal" and link["min_safety_factor"] > 1.5
    c = s["checks"]
    assert c["loop_closure_residual"] < 1e-10 and c["power_balance_rel_error"] < 1e-8
    assert c["equilibrium_rel_error"] < 1e-8
    for j in pr.DRIVEN:
        assert s["joints"][j]["max_torque_nm"] == pytest.approx(s["joints"][j]["max_abs_torque"], rel=1e-15)
        assert "time_of_max_torque_s" in s["joints"][j]
    for j in ("pin_R", "pin_H1", "pin_H2"):
        assert s["joints"][j]["max_reaction_force_n"] > 0
    p = s["paper000"]
    assert p["path_deviation_max_mm"] < 1e-6 and p["fig1_relations_max_error_rad"] < 1e-10
    for label, j in (("big_arm", "J2"), ("forearm", "J2p")):
        assert p[label]["paper_max_torque_nm"] == pr.PAPER_PEAKS[j][0]
        assert p[label]["gravity_part_at_peak_nm"] + p[label]["motion_part_at_peak_nm"] == pytest.approx(
            p[label]["signed_torque_at_peak_nm"], rel=1e-12)
        assert set(p[label]["variants"]) == {"table2_literal_mm", "without_levelling_members"}
        motor, J, reducer, ratio, rated = pr.TABLE3[j]
        assert p[label]["table3"]["rotor_inertia_at_joint_kg_m2"] == pytest.approx(J * ratio ** 2, rel=1e-15)
    rows = np.loadtxt(tmp_path / "out" / "paper000_torques.csv", delimiter=",", skiprows=1)
    assert rows.shape[1] == 5 and np.abs(rows[:, 3]).max() == pytest.approx(s["joints"]["J2"]["max_torque_nm"])


# docs/paper000.md's and docs/papers.md's peaks (regression guards: the study's own output, from
# `python studies/pr1300_palletizer.py --out results/pr1300_palletizer`, commit 1d7a7f4's tables): big arm 3851 N m
# at 0.110 s, forearm 977 N m at 0.351 s; Table 2 read literally in mm 1570 / 429 N m.
GOLDEN_PEAKS_NM = {"J2": 3851.0, "J2p": 977.0}
GOLDEN_LITERAL_MM_NM = {"J2": 1570.0, "J2p": 429.0}


def _peaks(chain, rigid):
    """(peak |torque| [N m], its time [s]) of J2 and J2p for ``chain`` (the study's mechanism, or the same with other
    inertials) along the fixture's motion."""
    tau = np.abs(cc.closed_chain_dynamics(chain, rigid["motion"], pr.GRAVITY).tau)
    return {j: (tau[:, pr.DRIVEN.index(j)].max(), rigid["t"][np.argmax(tau[:, pr.DRIVEN.index(j)])])
            for j in ("J2", "J2p")}


def test_regression_guard_and_paper000_peak_torques(rigid):
    """REGRESSION GUARD: the docs' peak torques (GOLDEN_PEAKS_NM) to 0.1% (their four printed digits; this grid of
    401 samples plus the profile's breakpoints holds the peaks' times, which are breakpoints). BESIDE IT, paper
    000's own Fig. 5 peaks (about 2900 N m at 0.12 s, about 700 N m at 0.36 s; pr.PAPER_PEAKS):
    - the times within 0.015 s: the paper exports its joint data every 0.01 s (sect. 4.2) and rounds its reading to
      0.01 s, so its peak times are uncertain by one step plus half a step; the peak times follow from the motion
      (the modified trapezoid's constant acceleration, Ta/4 to 3Ta/4), which the paper gives in full, not from the
      unpublished masses;
    - the magnitudes between our two readings of Table 2 (docs/paper000.md): every term of the inverse dynamics is
      linear in the inertial parameters, which the paper does not publish; Table 2 read literally in mm (solid
      25 mm and 18 mm bars) is the lightest reading, our hollow cast-iron boxes the heaviest, and the paper's
      SolidWorks parts must lie between them (a number outside would mean our mechanism, not our masses, differs);
      the paper's "about" is a reading of its figure, which the bracket, 2x wide, does not depend on."""
    ours = _peaks(rigid["chain"], rigid)
    start = pr.wrist_ik(pr.P1)[0]
    literal = _peaks(pr.literal_table2_chain(start), rigid)
    for j in ("J2", "J2p"):
        assert ours[j][0] == pytest.approx(GOLDEN_PEAKS_NM[j], rel=1e-3), (j, ours[j])
        assert literal[j][0] == pytest.approx(GOLDEN_LITERAL_MM_NM[j], rel=1e-3), (j, literal[j])
        paper_torque, paper_time = pr.PAPER_PEAKS[j]
        assert abs(ours[j][1] - paper_time) <= 0.015, (j, ours[j][1], paper_time)
        assert literal[j][0] < paper_torque < ours[j][0], (j, literal[j][0], paper_torque, ours[j][0])
