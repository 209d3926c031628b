"""Paper 001 (Chu Anh My, Vu Minh Hoan 2019): the hydraulic arm study (studies/hydraulic_arm.py). The loops
closed along the paper's motion, the cylinder and pin forces of our cut-joint solver against the paper's own
method (Lagrange multipliers for f1..f4, eliminated; studies/paper001_lagrange.py), a static check by moments
about the pivots, and a shortened end-to-end run."""
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "studies"))
import hydraulic_arm as ha  # noqa: E402
import paper001_lagrange as lagrange  # noqa: E402

from structcheck.model.robot import Link  # noqa: E402
from structcheck.motion import as_law  # noqa: E402
from structcheck.rigid import closedchain as cc  # noqa: E402
from structcheck.study import run  # noqa: E402

G = 9.81
M = ha.meshes


def driven(laws, t):
    """Driven (theta1, d4, d7) positions, rates, accelerations (n, 3) from offset laws on top of ha.HOME."""
    laws = [as_law(laws[n]) for n in ha.DRIVEN]
    q = np.array(ha.HOME) + np.column_stack([law.value(t) for law in laws])
    qd = np.column_stack([law.velocity(t) for law in laws])
    qdd = np.column_stack([law.acceleration(t, side=1) for law in laws])
    return q, qd, qdd


# the paper's motion, and a harsher one with accelerations of every driven coordinate (STEP5 ramps)
MOTIONS = {"paper": ha.MOTION,
           "ramps": {"theta1": "STEP5(time,0,0,2,60d)", "d4": "STEP5(time,0.5,0,2.5,0.05)",
                     "d7": "STEP5(time,0,0,1.5,0.2) + STEP5(time,2,0,3,-0.1)"}}


@pytest.fixture(scope="module")
def chain():
    return ha.mechanism()


@pytest.fixture(scope="module", params=list(MOTIONS))
def along(chain, request):
    t = np.linspace(0.0, ha.T_END if request.param == "paper" else 3.0, 301)
    q, qd, qdd = driven(MOTIONS[request.param], t)
    mo = cc.closed_chain_motion(chain, q, qd, qdd, t)
    dyn = cc.closed_chain_dynamics(chain, mo, (0.0, 0.0, -G))
    return t, mo, dyn


def test_three_dof_and_two_planar_loops(chain):
    """7 moving links, 7 tree joints + 2 cut joints (F = 6 x 7 - 5 x 9 = -3 by Gruebler's spatial count, which
    is blind to the 6 redundant rows of two planar loops: 3 dof); 10 constraint rows of rank 4."""
    assert chain.n_dof == 3 and chain.n_rows == 10
    assert set(chain.actuated) == {"theta1", "d4", "d7"}


def test_loops_close_and_energy_balances(chain, along):
    t, mo, dyn = along
    res = cc.loop_residuals(chain, mo.q, mo.qd, mo.qdd)
    assert max(res.position.max() / chain.size, res.orientation.max()) < 1e-10
    assert max(res.velocity.max(), res.acceleration.max()) < 1e-10
    assert cc.power_balance(chain, dyn) < 1e-8
    assert dyn.constraint_rank == 4 and dyn.redundant == 6
    # the dependent angles of the Newton solution are the paper's closed forms (eqs. 5 and 7)
    names = chain.tree.dof_names
    s = mo.q[:, [names.index(n) for n in lagrange.S_NAMES]]
    np.testing.assert_allclose(s[:, 3:], lagrange.dependent_angles(ha.GEOMETRY, s[:, :3]), atol=1e-12)
    assert np.abs(lagrange.constraints(ha.GEOMETRY, s)).max() < 1e-12


def paper_end_point(t):
    """The paper's closed-form end-point path for its section 2.2 inputs (the trajectory of its inverse-kinematics
    example, after eq. 9) [m]: z_E = t^4/12800000 + t^3/51200 + 377 t^2/512000 - 23 t/2560 + 7/10 + S1 S2/12800000
    with S1 = sqrt(9600^2 - (t (t + 200))^2) (9600 cos theta2) and S2 = sqrt(1600^2 - ((t + 25)^2 - 2000)^2)
    (1600 sin theta5); the radial distance r = (S1 ((t + 25)^2 - 1200) - t (t + 200) S2) / 12800000, turned by
    theta1 = pi t / 18 (x_E = r cos theta1, y_E = r sin theta1)."""
    S1 = np.sqrt(9600.0 ** 2 - (t * (t + 200)) ** 2)
    S2 = np.sqrt(1600.0 ** 2 - ((t + 25) ** 2 - 2000) ** 2)
    z = t ** 4 / 12800000 + t ** 3 / 51200 + 377 * t ** 2 / 512000 - 23 * t / 2560 + 0.7 + S1 * S2 / 12800000
    r = (S1 * ((t + 25) ** 2 - 1200) - t * (t + 200) * S2) / 12800000
    return np.column_stack([r * np.cos(np.pi * t / 18), r * np.sin(np.pi * t / 18), z])


def test_end_point_follows_the_papers_path(chain):
    """Our closed chain (Newton on the cut joints, then the tree's kinematics) along the paper's inputs puts the
    end point E on the paper's published path, and within its Fig. 2-3 axes (x -0.4..0.1, y -0.3..0.1,
    z 1.2..2 m)."""
    t = np.linspace(0.0, ha.T_END, 101)
    q, qd, qdd = driven(ha.MOTION, t)
    mo = cc.closed_chain_motion(chain, q, qd, qdd, t)
    T = chain.tree.forward_kinematics(mo.q)[:, chain.tree.link_names.index("arm")]
    E = T[:, :3, 3] + M.L5 * T[:, :3, 0]
    np.testing.assert_allclose(E, paper_end_point(t), atol=1e-12)
    assert E[:, 0].min() > -0.45 and E[:, 0].max() < 0.1 and E[:, 1].min() > -0.3 and E[:, 1].max() < 0.1
    assert E[:, 2].min() > 1.2 and E[:, 2].max() < 2.0


def test_papers_inverse_kinematics_recovers_its_inputs():
    """The paper's inverse kinematics (eqs. 8, 9) with our recovered lengths, applied to its published path,
    returns its inputs (its Figs. 5, 6): theta1 = pi t/18 (eq. 8's arcsin, up to 90 deg), d4 = 0.1 + 0.005 t,
    d7 = 0.1 + 0.02 t. Eq. (9)'s p = l5 sqrt(1 - C^2) >= 0 is the branch 0 < theta5 < 180 deg; of its two roots
    sin(theta2) we keep the one with cos(theta2) = (m - n sin(theta2)) / p > 0."""
    g = ha.GEOMETRY
    t = np.linspace(0.05, ha.T_END, 200)
    x, y, z = paper_end_point(t).T
    A = y / x
    th1 = np.arcsin(np.sqrt(A ** 2 / (1 + A ** 2)))
    B = np.sin(th1)
    C = ((y / B) ** 2 + (z - g.l1) ** 2 - g.l2 ** 2 - g.l5 ** 2) / (2 * g.l2 * g.l5)  # cos(theta5)
    m, n, p = z - g.l1, g.l5 * C + g.l2, g.l5 * np.sqrt(1 - C ** 2)
    root = np.sqrt(m ** 2 * n ** 2 - (n ** 2 + p ** 2) * (m ** 2 - p ** 2))
    s2 = np.stack([(m * n + root) / (n ** 2 + p ** 2), (m * n - root) / (n ** 2 + p ** 2)])
    s2 = np.where((m - n * s2[0]) / p > 0, s2[0], s2[1])
    d4 = np.sqrt(2 * g.l11 * g.l22 * s2 + g.l11 ** 2 + g.l22 ** 2) - g.l3
    d7 = np.sqrt(2 * g.l51 * g.l21 * C + g.l51 ** 2 + g.l21 ** 2) - g.l6
    np.testing.assert_allclose(d4, 0.1 + 0.005 * t, atol=1e-12)
    np.testing.assert_allclose(d7, 0.1 + 0.02 * t, atol=1e-12)
    below = np.pi * t / 18 < np.pi / 2 - 0.05  # arcsin returns theta1 only up to 90 deg (t = 9 s)
    np.testing.assert_allclose(th1[below], np.pi * t[below] / 18, atol=1e-10)


def test_paper_method_agrees_with_cut_joints(chain, along):
    """Cylinder forces F4, F7 and the rod-eye pin forces (the multipliers lambda1..4) by the two methods."""
    t, mo, dyn = along
    cut = [dyn.joint_names.index(n) for n in chain.cut_names]
    tau = np.zeros_like(mo.q)
    tau[:, [chain.tree.dof_names.index(n) for n in chain.actuated]] = dyn.tau
    hist, err = ha.compare_methods(chain, t, mo.q, mo.qd, mo.qdd, tau, dyn.joint_wrenches[:, cut])
    assert err["cylinder_force_max_rel_difference"] < 1e-8
    assert err["pin_force_max_rel_difference"] < 1e-8
    assert err["dependent_angles_max_difference_rad"] < 1e-10
    # the slewing torque too
    k1 = chain.actuated.index("theta1")
    assert np.abs(hist["tau1_paper"] - dyn.tau[:, k1]).max() < 1e-8 * np.abs(dyn.tau[:, k1]).max()


def _cross(a, b):
    return a[0] * b[1] - a[1] * b[0]


def _u(a):
    return np.array([np.cos(a), np.sin(a)])


def test_static_cylinder_forces_by_moments():
    """At rest under gravity, with point-like masses on the link centre lines: the boom group's moments about B
    and the first cylinder's about A give the pin force P at C (a 2 x 2 system), F4 from the rod's equilibrium
    along its axis; the arm's moments about F and the second cylinder's about H give F7 (planar, x radial,
    y up)."""
    m = {"column": 100.0, "boom": 60.0, "arm": 20.0, "barrel_1": 7.0, "rod_1": 5.0, "barrel_2": 4.0, "rod_2": 3.0}
    cx = {"column": 0.0, "boom": 0.5, "arm": 0.4, "barrel_1": 0.2, "rod_1": -0.2, "barrel_2": 0.2, "rod_2": -0.2}
    I = 0.01 * np.eye(3)
    links = {n: Link(n, m[n], (cx[n], 0.0, 0.6 if n == "column" else 0.0), tuple(map(tuple, I))) for n in m}
    ch = ha.mechanism(links)
    q = np.array([[0.3, 0.13, 0.22]])  # theta1 [rad], d4, d7 [m]
    mo = cc.closed_chain_motion(ch, q, np.zeros((1, 3)), np.zeros((1, 3)), np.zeros(1))
    dyn = cc.closed_chain_dynamics(ch, mo, (0.0, 0.0, -G))
    a = dict(zip(ch.tree.dof_names, mo.q[0]))
    t2, t3, t5, t6 = a["theta2"], a["theta3"], a["theta5"], a["theta6"]
    A, B = np.array([0.0, M.L10]), np.array([0.0, M.L1])
    C, H, F = B + M.L22 * _u(t2), B + M.L23 * _u(t2), B + M.L2 * _u(t2)
    Gp = F + M.L51 * _u(t2 + t5)
    assert np.linalg.norm(A + (M.L3 + a["d4"]) * _u(t3) - C) < 1e-12  # the loops are closed
    assert np.linalg.norm(H + (M.L6 + a["d7"]) * _u(t2 + t6) - Gp) < 1e-12
    com = {"boom": B + 0.5 * _u(t2), "arm": F + 0.4 * _u(t2 + t5), "barrel_1": A + 0.2 * _u(t3),
           "rod_1": C - 0.2 * _u(t3), "barrel_2": H + 0.2 * _u(t2 + t6), "rod_2": Gp - 0.2 * _u(t2 + t6)}
    w = {n: np.array([0.0, -m[n] * G]) for n in com}

    def moment(names, about):
        return sum(_cross(com[n] - about, w[n]) for n in names)

    def pin_force(eye, cyl_pivot, cyl, link_pivot, group):
        """P (force of the link on the rod at the eye): cylinder about its pivot, link group about its pivot."""
        K = np.array([[-(eye - cyl_pivot)[1], (eye - cyl_pivot)[0]],  # (eye - pivot) x P
                      [(eye - link_pivot)[1], -(eye - link_pivot)[0]]])  # (eye - pivot) x (-P)
        return np.linalg.solve(K, -np.array([moment(cyl, cyl_pivot), moment(group, link_pivot)]))

    P = pin_force(C, A, ("barrel_1", "rod_1"), B, ("boom", "arm", "barrel_2", "rod_2"))
    Q = pin_force(Gp, H, ("barrel_2", "rod_2"), F, ("arm",))
    F4 = -(P + w["rod_1"]) @ _u(t3)
    F7 = -(Q + w["rod_2"]) @ _u(t2 + t6)
    tau = dict(zip(ch.actuated, dyn.tau[0]))
    assert tau["d4"] == pytest.approx(F4, rel=1e-12)
    assert tau["d7"] == pytest.approx(F7, rel=1e-12)
    # both push: cylinder 1 holds the boom up; the folded-back arm's weight acts to fold it further (its centre
    # is behind F), which shortens cylinder 2
    assert F4 > 100.0 and F7 > 10.0
    # the pin force at C by the cut joint (rod frame: x along the cylinder): the same P
    k = dyn.joint_names.index("pin_C")
    f = dyn.joint_wrenches[0, k]
    P_cut = f[0] * _u(t3) + f[1] * _u(t3 + np.pi / 2)
    np.testing.assert_allclose(P_cut, P, rtol=1e-12, atol=1e-9)


def test_study_end_to_end_shortened(tmp_path):
    """The study's own Study with two of its four FE links, quasi-static, 5 frames: summary.json holds both
    cylinders' peak forces and the two methods' agreement; paper001.csv and paper001.png are written."""
    full = ha.build(n_frames=5)
    study = replace(full, parts={n: full.parts[n] for n in ("rod_1", "arm")}, quasi_static=True, flexibility="link")
    run(study, tmp_path, progress=False, vtk=False, plots=False)
    s = json.loads((tmp_path / "summary.json").read_text())
    assert set(s["links"]) == {"rod_1", "arm"} and s["passed"]
    assert s["checks"]["loop_closure_residual"] < 1e-10 and s["checks"]["power_balance_rel_error"] < 1e-8
    for cyl in ("d4", "d7"):
        assert s["joints"][cyl]["max_force_n"] == pytest.approx(s["joints"][cyl]["max_abs_torque"], rel=1e-12)
    agree = s["paper001"]["methods_agreement"]
    assert agree["cylinder_force_max_rel_difference"] < 1e-8 and agree["pin_force_max_rel_difference"] < 1e-8
    assert agree["end_point_max_difference_m"] < 1e-12
    assert s["checks"]["paper_method_cylinder_force_rel_difference"] < 1e-8
    csv = np.genfromtxt(tmp_path / "paper001.csv", delimiter=",", names=True)
    assert csv["t_s"][-1] == pytest.approx(ha.T_END)
    np.testing.assert_allclose(csv["F4_n"], csv["F4_lagrange_n"], rtol=1e-8)
    np.testing.assert_allclose(csv["d7_m"], 0.1 + 0.02 * csv["t_s"], atol=1e-12)  # the paper's input
    for a in "xyz":  # the end point's velocity (eq. 1 differentiated) against differences of its path
        v = np.gradient(csv[f"{a}_E_m"], csv["t_s"])  # second order in the 50 ms step: ~1e-4 m/s
        np.testing.assert_allclose(v[1:-1], csv[f"{a}d_E_m_s"][1:-1], atol=1e-3)
    assert (tmp_path / "paper001.png").stat().st_size > 10_000
