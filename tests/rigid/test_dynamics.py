"""Inverse dynamics against closed forms, conservation of energy and identities between algorithms."""
import math

import numpy as np
import pytest

from structcheck.rigid.dynamics import inverse_dynamics, link_equilibrium, power_balance
from structcheck.errors import InputError
from structcheck.model.robot import Joint, Link, PointMass, Robot, rpy_matrix, trans

from helpers import branched_robot, general_robot


def planar_two_link(l1, l2, m1, m2, lc1, lc2, I1, I2):
    """Two revolute joints about z, links along x: the two-link planar arm's closed-form torques (Craig, Introduction to Robotics, sec. 6.7)."""
    links = [Link("ground"),
             Link("l1", m1, (lc1, 0, 0), np.diag([0.0, 0.0, I1]) + np.diag([0.3, 0.2, 0])),
             Link("l2", m2, (lc2, 0, 0), np.diag([0.0, 0.0, I2]) + np.diag([0.1, 0.4, 0]))]
    joints = [Joint("j1", "revolute", "ground", "l1"), Joint("j2", "revolute", "l1", "l2", trans(x=l1))]
    return Robot(links, joints)


def test_two_link_arm_closed_form(rng):
    l1, l2, m1, m2, lc1, lc2, I1, I2, g = 0.7, 0.5, 3.0, 2.0, 0.3, 0.2, 0.12, 0.05, 9.81
    robot = planar_two_link(l1, l2, m1, m2, lc1, lc2, I1, I2)
    q, qd, qdd = (rng.uniform(-2, 2, (50, 2)) for _ in range(3))
    dyn = inverse_dynamics(robot, q, qd, qdd, gravity=(0, -g, 0))
    q1, q2 = q.T
    d1, d2 = qd.T
    a1, a2 = qdd.T
    c2 = np.cos(q2)
    tau1 = ((I1 + I2 + m1 * lc1 ** 2 + m2 * (l1 ** 2 + lc2 ** 2 + 2 * l1 * lc2 * c2)) * a1
            + (I2 + m2 * (lc2 ** 2 + l1 * lc2 * c2)) * a2 - m2 * l1 * lc2 * np.sin(q2) * (2 * d1 * d2 + d2 ** 2)
            + (m1 * lc1 + m2 * l1) * g * np.cos(q1) + m2 * lc2 * g * np.cos(q1 + q2))
    tau2 = ((I2 + m2 * (lc2 ** 2 + l1 * lc2 * c2)) * a1 + (I2 + m2 * lc2 ** 2) * a2
            + m2 * l1 * lc2 * np.sin(q2) * d1 ** 2 + m2 * lc2 * g * np.cos(q1 + q2))
    np.testing.assert_allclose(dyn.tau[:, 0], tau1, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(dyn.tau[:, 1], tau2, rtol=1e-12, atol=1e-10)


def test_single_pendulum():
    m, lc, I, g = 2.0, 0.4, 0.03, 9.81
    robot = Robot([Link("ground"), Link("bob", m, (lc, 0, 0), np.diag([0, 0, I]))],
                  [Joint("j", "revolute", "ground", "bob")])
    q = np.array([[0.3], [1.2]])
    qd = np.array([[0.5], [-2.0]])
    qdd = np.array([[1.5], [0.7]])
    dyn = inverse_dynamics(robot, q, qd, qdd, gravity=(0, -g, 0))
    np.testing.assert_allclose(dyn.tau[:, 0], (I + m * lc ** 2) * qdd[:, 0] + m * g * lc * np.cos(q[:, 0]), rtol=1e-13)
    # joint reaction force: m (a_c - g), a_c with tangential and centripetal parts, in the link frame
    F = dyn.joint_wrenches[:, 0, :3]
    expected = np.column_stack([-m * lc * qd[:, 0] ** 2 + m * g * np.sin(q[:, 0]),
                                m * lc * qdd[:, 0] + m * g * np.cos(q[:, 0]), np.zeros(2)])
    np.testing.assert_allclose(F, expected, rtol=1e-12, atol=1e-12)


def test_prismatic_vertical_slider():
    m, g = 5.0, 9.81
    robot = Robot([Link("ground"), Link("slider", m, (0.1, 0, 0.2), np.eye(3) * 0.01)],
                  [Joint("z", "prismatic", "ground", "slider", axis=np.array([0, 0, 1.0]), lower=-1, upper=1)])
    qdd = np.array([[0.0], [2.0], [-3.0]])
    dyn = inverse_dynamics(robot, np.zeros((3, 1)), np.ones((3, 1)), qdd)
    np.testing.assert_allclose(dyn.tau[:, 0], m * (qdd[:, 0] + g), rtol=1e-13)


def test_static_hanging_reactions_equal_outboard_weight_and_moment():
    """A horizontal 3-link arm at rest: joint k carries the weight of the links outboard of it and the moment
    of those weights about its origin."""
    ms, lcs, ls = [2.0, 1.5, 1.0], [0.2, 0.15, 0.1], [0.5, 0.4, 0.3]
    links = [Link("ground")] + [Link(f"l{i}", ms[i], (lcs[i], 0, 0), np.eye(3) * 0.01) for i in range(3)]
    joints = [Joint("j0", "revolute", "ground", "l0", axis=np.array([0, 1.0, 0]))]
    joints += [Joint(f"j{i}", "revolute", f"l{i - 1}", f"l{i}", trans(x=ls[i - 1]), np.array([0, 1.0, 0]))
               for i in (1, 2)]
    robot = Robot(links, joints)
    dyn = inverse_dynamics(robot, np.zeros(3), np.zeros(3), np.zeros(3))
    x0 = np.cumsum([0] + ls[:2])  # joint positions along x
    for k in range(3):
        weight = 9.81 * sum(ms[k:])
        moment = 9.81 * sum(ms[i] * (x0[i] + lcs[i] - x0[k]) for i in range(k, 3))
        np.testing.assert_allclose(dyn.joint_wrenches[0, k, :3], [0, 0, weight], rtol=1e-13)
        # the weights' moment about +y is x e_x cross (-W e_z) = +x W e_y; the parent supplies the opposite
        np.testing.assert_allclose(dyn.joint_wrenches[0, k, 3:], [0, -moment, 0], rtol=1e-13, atol=1e-12)
        assert dyn.tau[0, k] == pytest.approx(-moment)


def smooth_trajectory(n_dof, rng, n=400):
    t = np.linspace(0, 2, n)
    A, w, ph = rng.uniform(0.2, 1, n_dof), rng.uniform(0.5, 3, n_dof), rng.uniform(0, 6, n_dof)
    q = A * np.sin(np.outer(t, w) + ph)
    qd = A * w * np.cos(np.outer(t, w) + ph)
    qdd = -A * w ** 2 * np.sin(np.outer(t, w) + ph)
    return t, q, qd, qdd


def test_power_balance_general_robot(rng):
    robot = general_robot(rng)
    t, q, qd, qdd = smooth_trajectory(robot.n_dof, rng)
    F = np.column_stack([np.sin(3 * t), np.cos(2 * t), 5 + t]) * 10
    dyn = inverse_dynamics(robot, q, qd, qdd, gravity=(0.3, -1.0, -9.81), point_forces={"tool": F})
    assert power_balance(robot, q, qd, qdd, dyn, (0.3, -1.0, -9.81), {"tool": F}) < 1e-8
    assert link_equilibrium(robot, dyn, (0.3, -1.0, -9.81), {"tool": F}).max() < 1e-10


def test_rigid_body_of_an_open_robot_is_the_trees_inverse_dynamics(rng):
    """The rigid-body stage takes an open robot (a ClosedChain without cut joints) through the tree's own
    inverse dynamics and checks: the same numbers to the bit, no cuts, an all-False undetermined mask, a tuple
    of warnings."""
    from structcheck.rigid.stage import as_chain, rigid_body

    robot = general_robot(rng)
    t, q, qd, qdd = smooth_trajectory(robot.n_dof, rng, n=60)
    g, forces, payloads = (0.3, -1.0, -9.81), {"tool": np.column_stack([np.sin(3 * t), 5 + t, -t]) * 10}, {"tool": 1.5}
    rb = rigid_body(as_chain(robot), t, q, qd, qdd, g, forces, payloads)
    dyn = robot.inverse_dynamics(q, qd, qdd, g, forces, payloads)
    for name in ("tau", "joint_wrenches", "joint_wrenches_world"):
        assert np.array_equal(getattr(rb.dynamics, name), getattr(dyn, name)), name
    assert np.array_equal(rb.dynamics.kinematics.a_origin, dyn.kinematics.a_origin)
    assert np.array_equal(rb.tau, dyn.tau) and rb.q is q and rb.qd is qd and rb.qdd is qdd
    assert rb.power_balance == power_balance(robot, q, qd, qdd, dyn, g, forces)
    assert rb.equilibrium == float(np.nanmax(link_equilibrium(robot, dyn, g, forces)))
    assert rb.cuts == () and rb.warnings == ()
    assert rb.undetermined.shape == (len(robot.joints), 6) and not rb.undetermined.any()


def test_tau_is_axis_component_and_gravity_matches_jacobian_transpose(rng):
    robot = general_robot(rng)
    q = rng.uniform(-1, 1, (5, robot.n_dof))
    z = np.zeros_like(q)
    dyn = inverse_dynamics(robot, q, z, z)
    for k, j in enumerate(robot.joints):
        if j.movable:
            comp = dyn.joint_wrenches[:, k, :3] if j.type == "prismatic" else dyn.joint_wrenches[:, k, 3:]
            np.testing.assert_allclose(dyn.tau[:, robot.dof_names.index(j.name)], comp @ j.axis, atol=1e-12)
    # static gravity torque = -sum J_com^T m g over links and point masses
    tau = np.zeros_like(q)
    for ln in robot.links[1:]:
        pts = [(ln.mass, ln.com)] + [(pm.mass, pm.position) for pm in ln.point_masses]
        for m, c in pts:
            J = robot.jacobian(q, (ln.name, c))[:, :3]
            tau -= np.einsum("tij,i->tj", J, m * np.array([0, 0, -9.81]))
    np.testing.assert_allclose(dyn.tau, tau, atol=1e-10)


def test_point_force_equals_jacobian_transpose(rng):
    robot = general_robot(rng)
    q = rng.uniform(-1, 1, (4, robot.n_dof))
    z = np.zeros_like(q)
    F = np.array([3.0, -2.0, 7.0])
    d0 = inverse_dynamics(robot, q, z, z)
    d1 = inverse_dynamics(robot, q, z, z, point_forces={"tool": F})
    J = robot.jacobian(q, "tool")[:, :3]
    np.testing.assert_allclose(d1.tau - d0.tau, -np.einsum("tij,i->tj", J, F), atol=1e-12)


def test_mimic_joint_torque_by_virtual_work():
    """A mimic joint: the generalized force equals the sum over the coupled joints of multiplier x torque."""
    links = [Link("g"), Link("a", 1.0, (0.3, 0, 0), np.eye(3) * 0.01), Link("b", 0.5, (0.2, 0, 0), np.eye(3) * 0.01)]
    joints = [Joint("j1", "revolute", "g", "a", axis=np.array([0, 1.0, 0])),
              Joint("j2", "revolute", "a", "b", trans(x=0.5), np.array([0, 1.0, 0]), mimic=("j1", -2.0, 0.1))]
    robot = Robot(links, joints)
    q, qd, qdd = np.array([[0.3]]), np.array([[0.7]]), np.array([[-0.4]])
    dyn = inverse_dynamics(robot, q, qd, qdd)
    t1, t2 = dyn.joint_wrenches[0, 0, 3:] @ [0, 1, 0], dyn.joint_wrenches[0, 1, 3:] @ [0, 1, 0]
    assert dyn.tau[0, 0] == pytest.approx(t1 - 2.0 * t2)
    assert power_balance(robot, q, qd, qdd, dyn) < 1e-12


def test_bad_inputs_name_the_problem():
    robot = planar_two_link(0.7, 0.5, 3, 2, 0.3, 0.2, 0.1, 0.1)
    with pytest.raises(InputError, match="shape"):
        inverse_dynamics(robot, np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3)))
    q = np.zeros((4, 2))
    q[2, 1] = np.nan
    with pytest.raises(InputError, match="joint 'j2' is not finite .* sample 2"):
        inverse_dynamics(robot, q, np.zeros((4, 2)), np.zeros((4, 2)))
    with pytest.raises(InputError, match="unknown point 'claw'"):
        inverse_dynamics(robot, np.zeros(2), np.zeros(2), np.zeros(2), point_forces={"claw": (0, 0, 1)})


def test_limits_name_joint_and_time():
    robot = Robot.from_modified_dh([(0, 0, 0.25), (math.pi / 2, 0, 0)], home=[0, 0],
                                   limits=np.radians([(-160, 160), (-90, 90)]))
    t = np.linspace(0, 1, 11)
    q = np.column_stack([np.zeros(11), np.radians(100) * t])
    with pytest.raises(InputError, match=r"joint .joint2. reaches 100 deg at time 1 s, beyond its upper limit 90 deg"):
        robot.check_limits(q, t)


# ---------------------------------------------------------------------------------------------------------------
# The first implementation (RNEA in link axes with einsum/np.cross on time-first arrays), kept here only as a
# reference for the component-major, joint-axis-frame implementation in the package (bookkeeping: blocks, frames,
# orderings). It is not independent physics: tests/test_rigid_finite_differences.py checks the kinematics,
# torques and wrenches against finite differences of forward-kinematics poses.


def _reference_rnea(robot, q, qd, qdd, gravity, point_forces=None, payloads=None):
    """(T_world_link, omega, alpha, v_origin, a_origin, joint wrenches, world joint wrenches, tau)."""
    from structcheck.rigid.dynamics import link_inertials

    def rot(axis, a):
        x, y, z = axis
        K = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0.0]])
        return np.eye(3) + np.sin(a)[:, None, None] * K + (1 - np.cos(a))[:, None, None] * (K @ K)

    qj, qdj, qddj = robot.joint_values(q), robot.joint_rates(qd), robot.joint_rates(qdd)
    n_t, nl, nj = qj.shape[0], len(robot.links), len(robot.joints)
    idx = {n: k for k, n in enumerate(robot.link_names)}
    jidx = {j.name: k for k, j in enumerate(robot.joints)}
    jt = []
    for i, j in enumerate(robot.joints):
        R0, p0 = j.origin[:3, :3], j.origin[:3, 3]
        if j.type in ("revolute", "continuous"):
            jt.append((R0 @ rot(j.axis, qj[:, i]), np.broadcast_to(p0, (n_t, 3))))
        elif j.type == "prismatic":
            jt.append((np.broadcast_to(R0, (n_t, 3, 3)), p0 + np.outer(qj[:, i], R0 @ j.axis)))
        else:
            jt.append((np.broadcast_to(R0, (n_t, 3, 3)), np.broadcast_to(p0, (n_t, 3))))
    Rw, pw = np.zeros((n_t, nl, 3, 3)), np.zeros((n_t, nl, 3))
    w, al, v, a = (np.zeros((n_t, nl, 3)) for _ in range(4))
    Rw[:, idx[robot.base]] = np.eye(3)
    for j in robot.ordered_joints:
        k, p, c, s = jidx[j.name], idx[j.parent], idx[j.child], j.axis
        R, r = jt[k]
        Rw[:, c] = Rw[:, p] @ R
        pw[:, c] = pw[:, p] + np.einsum("tij,tj->ti", Rw[:, p], r)
        w_in = np.einsum("tji,tj->ti", R, w[:, p])
        al_in = np.einsum("tji,tj->ti", R, al[:, p])
        v_in = np.einsum("tji,tj->ti", R, v[:, p] + np.cross(w[:, p], r))
        a_in = np.einsum("tji,tj->ti", R, a[:, p] + np.cross(al[:, p], r) + np.cross(w[:, p], np.cross(w[:, p], r)))
        qs, qdds = qdj[:, k, None] * s, qddj[:, k, None] * s
        w[:, c], al[:, c], v[:, c], a[:, c] = w_in, al_in, v_in, a_in
        if j.type in ("revolute", "continuous"):
            w[:, c] = w_in + qs
            al[:, c] = al_in + qdds + np.cross(w_in, qs)
        elif j.type == "prismatic":
            v[:, c] = v_in + qs
            a[:, c] = a_in + 2 * np.cross(w_in, qs) + qdds
    inert = link_inertials(robot, payloads)
    c = inert.com[None]
    g = np.einsum("tlji,j->tli", Rw, np.asarray(gravity, float))
    F = inert.mass[None, :, None] * (a + np.cross(al, c) + np.cross(w, np.cross(w, c)) - g)
    N = (np.einsum("lij,tlj->tli", inert.inertia, al) + np.cross(w, np.einsum("lij,tlj->tli", inert.inertia, w))
         + np.cross(c, F))
    for pname, f in (point_forces or {}).items():
        lname, xyz = robot.points[pname]
        fl = np.einsum("tji,tj->ti", Rw[:, idx[lname]], np.broadcast_to(np.asarray(f, float), (n_t, 3)))
        F[:, idx[lname]] -= fl
        N[:, idx[lname]] -= np.cross(xyz, fl)
    W = np.zeros((n_t, nj, 6))
    for j in reversed(robot.ordered_joints):
        k, p, ch = jidx[j.name], idx[j.parent], idx[j.child]
        W[:, k, :3], W[:, k, 3:] = F[:, ch], N[:, ch]
        R, r = jt[k]
        Rf = np.einsum("tij,tj->ti", R, F[:, ch])
        F[:, p] += Rf
        N[:, p] += np.einsum("tij,tj->ti", R, N[:, ch]) + np.cross(r, Rf)
    tau = np.zeros((n_t, robot.n_dof))
    for k, j in enumerate(robot.joints):
        if j.movable:
            src, mult = (j.name, 1.0) if j.mimic is None else j.mimic[:2]
            comp = W[:, k, :3] if j.type == "prismatic" else W[:, k, 3:]
            tau[:, robot.dof_names.index(src)] += mult * (comp @ j.axis)
    Rc = Rw[:, [idx[j.child] for j in robot.joints]]
    Ww = np.concatenate([np.einsum("tkij,tkj->tki", Rc, W[..., :3]), np.einsum("tkij,tkj->tki", Rc, W[..., 3:])], 2)
    T = np.zeros((n_t, nl, 4, 4))
    T[..., :3, :3], T[..., :3, 3], T[..., 3, 3] = Rw, pw, 1.0
    return T, w, al, v, a, W, Ww, tau


@pytest.mark.parametrize("shuffle", [False, True])
def test_matches_reference_implementation(rng, monkeypatch, shuffle):
    """Every output of inverse_dynamics equals the first (link-axes, einsum) implementation to round-off, on a
    branched robot with revolute, continuous, prismatic, fixed and mimic joints, massless links, point forces
    (also on the base and on a fixed child), payloads, and blocks of uneven length."""
    import structcheck.rigid.kinematics as kinematics

    monkeypatch.setattr(kinematics, "BLOCK", 37)  # 200 samples in 6 blocks
    robot = branched_robot(rng, shuffle)
    n = 200
    q, qd, qdd = (rng.uniform(-2, 2, (n, robot.n_dof)) for _ in range(3))
    gravity = (0.3, -1.0, -9.81)
    forces = {"tool": rng.standard_normal((n, 3)) * 10, "side": (1.0, 2.0, 3.0), "on_base": (1.0, 1.0, 1.0),
              "fixed": rng.standard_normal((n, 3))}
    payloads = {"tool": (2.0, np.diag([0.01, 0.02, 0.03])), "side": 1.5}
    dyn = inverse_dynamics(robot, q, qd, qdd, gravity, forces, payloads)
    ref = _reference_rnea(robot, q, qd, qdd, gravity, forces, payloads)
    kin = dyn.kinematics
    got = (kin.T_world_link, kin.omega, kin.alpha, kin.v_origin, kin.a_origin, dyn.joint_wrenches,
           dyn.joint_wrenches_world, dyn.tau)
    for name, x, y in zip(("T", "omega", "alpha", "v", "a", "W", "W_world", "tau"), got, ref):
        assert x.shape == y.shape, name
        # both sum the same terms in different orders: agreement to a few ulps of the largest value
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-13 * np.abs(y).max(), err_msg=name)


def test_kinematics_at_rest_and_without_accelerations_match_reference(rng):
    from structcheck.rigid.kinematics import forward_kinematics, link_kinematics

    robot = branched_robot(rng)
    q, qd = rng.uniform(-2, 2, (30, robot.n_dof)), rng.uniform(-2, 2, (30, robot.n_dof))
    z = np.zeros_like(q)
    T_ref, *_ = _reference_rnea(robot, q, z, z, (0, 0, -9.81))
    np.testing.assert_allclose(forward_kinematics(robot, q), T_ref, rtol=0, atol=1e-14)
    rest = link_kinematics(robot, q)
    assert not rest.omega.any() and not rest.alpha.any() and not rest.v_origin.any() and not rest.a_origin.any()
    kin = link_kinematics(robot, q, qd)  # qdd None: zero joint accelerations, velocity-product terms remain
    ref = _reference_rnea(robot, q, qd, z, (0, 0, -9.81))
    for x, y in zip((kin.T_world_link, kin.omega, kin.alpha, kin.v_origin, kin.a_origin), ref):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-13 * np.abs(y).max())


def test_paper004_robot_matches_reference_over_several_blocks(rng, monkeypatch):
    """The benchmark's robot (paper 004's modified D-H table, every axis +z) over several blocks of samples."""
    import structcheck.rigid.kinematics as kinematics

    monkeypatch.setattr(kinematics, "BLOCK", 1000)
    rows = [(0, 0, 0.250), (math.pi / 2, 0, 0), (0, 0.385, 0), (0, 0.392, 0), (-math.pi / 2, 0, 0), (0, 0, 0.188)]
    inert = [dict(mass=m, com=rng.uniform(-0.1, 0.1, 3), inertia=np.diag(rng.uniform(0.01, 0.1, 3)))
             for m in (8.0, 6.0, 4.0, 2.0, 1.0, 0.5)]
    robot = Robot.from_modified_dh(rows, inertials=inert).with_points({"claw": ("link6", (0, 0.05, 0.1))})
    n = 2501
    q, qd, qdd = (rng.uniform(-2, 2, (n, 6)) for _ in range(3))
    F = rng.standard_normal((n, 3)) * 98
    dyn = inverse_dynamics(robot, q, qd, qdd, point_forces={"claw": F})
    ref = _reference_rnea(robot, q, qd, qdd, (0, 0, -9.81), {"claw": F})
    for x, y in zip((dyn.kinematics.T_world_link, dyn.joint_wrenches, dyn.joint_wrenches_world, dyn.tau),
                    (ref[0], ref[5], ref[6], ref[7])):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-13 * np.abs(y).max())
