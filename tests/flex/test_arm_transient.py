"""Transient of the assembled reduced arm along a motion (structcheck.flex.transient).

The arm is a slender steel beam (0.8 m, 20 x 10 mm) cut into two links joined by a revolute joint about y, clamped
at its root. References: the static solution of the model assembled at the exact pose of each sample (slow motion,
where elastic inertia is negligible), exact integration against sampling (second-order convergence of
piecewise-linear load interpolation) and the frozen-pose criterion against its own refinement.
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import beam

from structcheck.errors import InputError
from structcheck.flex import assemble_arm, reduce_links
from structcheck.flex.transient import arm_transient, frozen_segments
from structcheck.loads import body_coefficients
from structcheck.model.robot import Joint, Link, Robot, trans
from structcheck.rigid.kinematics import link_kinematics

L, W, H = 0.8, 0.02, 0.01
G = np.array([0.0, 0.0, -9.81])


def two_links(n_len=40):
    links = [Link("ground"), Link("s0"), Link("s1")]
    y = np.array([0.0, 1.0, 0.0])
    joints = [Joint("j0", "revolute", "ground", "s0", trans(0.0), y),
              Joint("j1", "revolute", "s0", "s1", trans(L / 2), y)]
    parts = {"s0": beam(L / 2, W, H, n_len // 2, n_side=2, ends=("j0", "j1")),
             "s1": beam(L / 2, W, H, n_len // 2, n_side=2, ends=("j1", "tip"))}
    return Robot(links, joints), parts


@pytest.fixture(scope="module")
def arm():
    robot, parts = two_links()
    return robot, parts, reduce_links(robot, parts, 4)


def body_loads(robot, parts, t, q, qd, qdd):
    """link -> (F, coeff): the rigid motion's body loads with gravity, link axes."""
    kin = link_kinematics(robot, q, qd, qdd)
    out = {}
    for name, part in parts.items():
        i = robot.link_names.index(name)
        g = np.einsum("tji,j->ti", kin.T_world_link[:, i, :3, :3], G)
        out[name] = (part.body_load_basis(), body_coefficients(g, kin.a_origin[:, i], kin.omega[:, i],
                                                                kin.alpha[:, i]))
    return out


def swing(t, T, amp):
    """Joint j1 from 0 to amp over [0, T] (cubic STEP): q, qd, qdd (n_t, 2)."""
    s = np.clip(t / T, 0, 1)
    q = np.zeros((len(t), 2))
    qd, qdd = np.zeros_like(q), np.zeros_like(q)
    q[:, 1] = amp * s * s * (3 - 2 * s)
    qd[:, 1] = amp * 6 * s * (1 - s) / T
    qdd[:, 1] = amp * (6 - 12 * s) / T ** 2
    return q, qd, qdd


def test_frozen_segments():
    q = np.linspace(0, 1, 101)[:, None] * [1.0, -0.5]
    s = frozen_segments(q, 0.1)
    assert s[0] == 0 and s[-1] == 100
    # within each segment no joint moves more than 0.1 from the segment's start, and one more sample would
    for a, b in zip(s[:-1], s[1:]):
        assert np.abs(q[a:b + 1] - q[a]).max() <= 0.1 + 1e-12
    for a, b in zip(s[:-2], s[1:-1]):
        assert np.abs(q[b + 1] - q[a]).max() > 0.1
    assert list(frozen_segments(np.zeros((5, 2)), 0.1)) == [0, 4]
    with pytest.raises(InputError, match="max_joint_change"):
        frozen_segments(q, 0.0)


def test_constant_load_stays_in_static_equilibrium(arm):
    """From the static equilibrium of the first sample, a constant load gives no motion: x(t) = K^-1 f."""
    robot, parts, ses = arm
    t = np.linspace(0, 1.0, 50)
    q = np.tile([0.0, 0.7], (len(t), 1))
    res = arm_transient(robot, ses, t, q, body_loads(robot, parts, t, q, 0 * q, 0 * q))
    model = assemble_arm(robot, ses, q[0])
    x = model.solve_static(G)
    assert len(res.segments) == 2
    assert np.abs(res.x - x).max() < 1e-9 * np.abs(x).max()
    z = model.link_coordinates(x)
    for n in ses:
        assert np.abs(res.z[n] - z[n]).max() < 1e-9 * np.abs(z[n]).max()


def test_exact_integration_against_the_matrix_exponential(arm):
    """A tip force ramped over 10 ms and held, 2% modal damping, frozen pose: the samples of the exact
    piecewise-linear integration (modal, in the superelements' reduced coordinates) equal the exact solution of the
    same assembled first-order system y' = A y + b(t), y = (x, x'), M x'' + C x' + K x = f(t),
    C = M X diag(2 zeta omega) X^T M, stepped by the matrix exponential of the system augmented with the load's
    value and slope on each step (b linear between samples: exact, no modes, no step-size control), started as the
    arm model starts: in static equilibrium, moving with the loads' initial rate (x = K^-1 f, x' = K^-1 f')."""
    from scipy.linalg import eigh, expm

    robot, parts, ses = arm
    q0 = [0.0, 0.3]
    t = np.r_[np.linspace(0, 0.01, 11), np.linspace(0.012, 0.08, 35)]
    ramp = np.clip(t / 0.01, 0, 1)
    F = parts["s1"].patch_force_basis("tip")
    f_max = np.array([0.0, 20.0, -30.0])  # N
    res = arm_transient(robot, ses, t, np.tile(q0, (len(t), 1)), {"s1": (F, ramp[:, None] * f_max)}, damping=0.02)
    model = assemble_arm(robot, ses, q0)
    w2, X = eigh(model.K, model.M)
    MX = model.M @ X
    C = MX @ np.diag(2 * 0.02 * np.sqrt(w2)) @ MX.T
    f1 = model.maps["s1"].T @ (ses["s1"].Psi.T @ F) @ f_max  # (n,)
    Minv = np.linalg.inv(model.M)
    n = len(model.K)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [-Minv @ model.K, -Minv @ C]])
    b = np.r_[np.zeros(n), Minv @ f1]  # y' = A y + b ramp(s)
    y = np.r_[np.zeros(n), np.linalg.solve(model.K, f1 / 0.01)]
    x_ref = [y[:n]]
    for k in range(len(t) - 1):  # z = (y, ramp at the step's start, its slope): z' = G z exactly on the step
        h = t[k + 1] - t[k]
        G = np.zeros((2 * n + 2, 2 * n + 2))
        G[:2 * n, :2 * n], G[:2 * n, 2 * n] = A, b
        G[2 * n, 2 * n + 1] = 1.0  # the ramp's value grows at its slope; the slope is constant on the step
        z = expm(G * h) @ np.r_[y, ramp[k], (ramp[k + 1] - ramp[k]) / h]
        y = z[:2 * n]
        x_ref.append(y[:n])
    x_ref = np.array(x_ref)
    assert np.abs(res.x - x_ref).max() < 1e-7 * np.abs(x_ref).max()  # measured 2.6e-8 (Radau at rtol 1e-10: 8e-8)


def _static_at_exact_pose(robot, ses, q, loads, k):
    """Reduced coordinates of s1 from the static solution of the model assembled at the exact pose q[k] under the
    loads of sample k (the quasi-static reference)."""
    model = assemble_arm(robot, ses, q[k])
    f = sum(model.maps[n].T @ (ses[n].Psi.T @ F) @ c[k] for n, (F, c) in loads.items())
    return model.link_coordinates(np.linalg.solve(model.K, f))["s1"]


def test_slow_motion_follows_the_pose(arm):
    """Joint j1 swings 90 deg in 20 s (cubic STEP) under gravity: elastic inertia is negligible
    ((omega T)^-2 ~ 1e-7 for the 13 Hz fundamental), so the transient must follow the static solution at the exact
    pose of every sample. The frozen-pose error falls as the criterion is refined (about first order)."""
    robot, parts, ses = arm
    t = np.linspace(0, 20.0, 1001)
    q, qd, qdd = swing(t, 20.0, np.pi / 2)
    loads = body_loads(robot, parts, t, q, qd, qdd)
    ks = np.arange(0, len(t), 50)
    ref = np.array([_static_at_exact_pose(robot, ses, q, loads, k) for k in ks])[:, :6]  # the tip-side node
    errors = []
    for dq in (0.1, 0.05, 0.025):
        res = arm_transient(robot, ses, t, q, loads, max_joint_change=dq)
        errors.append(np.abs(res.z["s1"][ks, :6] - ref).max() / np.abs(ref).max())
    # measured 1.7%, 0.76%, 0.23% of the peak deflection
    assert errors[2] < 0.006 and errors[2] < errors[1] < errors[0], errors


def test_fast_motion_does_not_depend_on_the_criterion(arm):
    """Joint j1 swings 90 deg in 1 s (peak 4.7 rad/s^2) then stops: the peak tip deflection converges as the
    frozen-pose criterion is refined, to within 0.1% between 0.025 and 0.0125 rad."""
    robot, parts, ses = arm
    t = np.linspace(0, 2.0, 501)
    q, qd, qdd = swing(t, 1.0, np.pi / 2)
    loads = body_loads(robot, parts, t, q, qd, qdd)
    tip = np.flatnonzero(np.all(np.isclose(parts["s1"].points, [L / 2, 0, 0]), axis=1))[0]
    peaks = []
    for dq in (0.05, 0.025, 0.0125):
        res = arm_transient(robot, ses, t, q, loads, max_joint_change=dq)
        peaks.append(np.linalg.norm(ses["s1"].displacement(res.z["s1"])[:, tip], axis=1).max())
    change = np.abs(np.diff(peaks)) / peaks[-1]
    assert change[-1] < 1e-3, (peaks, change)  # measured 0.007%, 0.028%


def test_stress_recovery_equals_direct_superposition(arm):
    """link_response (the per-link reducer on the superelement basis) against the direct recovery of every
    sample: von Mises history (max over element nodes), its peak and time, |u| history and envelope."""
    from structcheck.fe.stress import von_mises
    from structcheck.flex.recovery import link_frame_fields, link_response, point_displacement

    robot, parts, ses = arm
    t = np.linspace(0, 1.5, 151)
    q, qd, qdd = swing(t, 1.0, np.pi / 2)
    res = arm_transient(robot, ses, t, q, body_loads(robot, parts, t, q, qd, qdd))
    for name, se in ses.items():
        z = res.z[name]
        r = link_response(se, z)
        vm = von_mises(se.element_node_stress(z)).reshape(len(t), -1).max(axis=1)
        assert np.allclose(r.vm_history, vm, rtol=1e-10)
        assert r.i_time_max == np.argmax(vm) and r.max_von_mises == pytest.approx(vm.max(), rel=1e-10)
        u = np.linalg.norm(se.displacement(z), axis=2)  # (n_t, n_nodes)
        assert np.allclose(r.deformation_history, u.max(axis=1), rtol=1e-10)
        assert np.allclose(r.deformation_envelope, u.max(axis=0), rtol=1e-10, atol=1e-16)
        fields = link_frame_fields(se, z[[0, r.i_time_max]])
        assert np.allclose(fields["displacement"], se.displacement(z[[0, r.i_time_max]]), rtol=1e-10, atol=1e-16)
        assert fields["von_mises"][1].max() == pytest.approx(r.max_von_mises, rel=1e-10)
    # a point on a surface: the rigid fit of the tip face equals the tip face's centre node (a flat face in
    # bending and stretching: its nodes move as a plane, up to the section's warping)
    tip = np.flatnonzero(np.all(np.isclose(parts["s1"].points, [L / 2, 0, 0]), axis=1))[0]
    u_fit = point_displacement(ses["s1"], res.z["s1"], (L / 2, 0, 0), surface="tip")
    u_node = point_displacement(ses["s1"], res.z["s1"], (L / 2, 0, 0))
    assert np.allclose(u_node, ses["s1"].displacement(res.z["s1"])[:, tip])
    assert np.abs(u_fit - u_node).max() < 0.01 * np.abs(u_node).max()


def test_joint_reactions_are_the_rigid_body_statics(arm):
    """Static arm under gravity at a bent pose: the interface wrenches recovered from the superelements' equilibrium
    equal rigid-body statics, minus the resultant of the loads on the links beyond the joint (about the joint,
    link axes): the arm model carries its loads through the joints exactly as the rigid-body stage does."""
    from structcheck.flex.recovery import interface_wrench
    from structcheck.rigid.kinematics import forward_kinematics

    robot, parts, ses = arm
    q = np.array([[0.4, -1.1]] * 3)
    t = np.array([0.0, 0.5, 1.0])
    loads = body_loads(robot, parts, t, q, 0 * q, 0 * q)
    res = arm_transient(robot, ses, t, q, loads)
    T = forward_kinematics(robot, q[0])[0]
    R = {n: T[robot.link_names.index(n)] for n in parts}
    res_s1 = parts["s1"].resultant(loads["s1"][0] @ loads["s1"][1][0])  # about s1's origin (joint j1), s1 axes
    res_s0 = parts["s0"].resultant(loads["s0"][0] @ loads["s0"][1][0])  # about s0's origin (joint j0), s0 axes
    # s1's resultant carried to s0's axes and origin
    Rs = R["s0"][:3, :3].T @ R["s1"][:3, :3]
    p = R["s0"][:3, :3].T @ (R["s1"][:3, 3] - R["s0"][:3, 3])
    f1, m1 = Rs @ res_s1[:3], Rs @ res_s1[3:]
    total0 = np.r_[res_s0[:3] + f1, res_s0[3:] + m1 + np.cross(p, f1)]
    w1 = interface_wrench(ses["s1"], "j1", res.z["s1"], *loads["s1"])
    w0 = interface_wrench(ses["s0"], "j0", res.z["s0"], *loads["s0"])
    scale = np.abs(res_s1).max()
    assert np.abs(w1 + res_s1).max() < 1e-6 * scale
    assert np.abs(w0 + total0).max() < 1e-6 * np.abs(total0).max()


def test_stacked_poses_assemble_as_one_pose_each(arm):
    """The open arm with an attached mass on a free interface: stacked and one-pose assemblies agree exactly."""
    from structcheck.flex import AttachedMass

    robot, parts, _ = arm
    tip = (AttachedMass("s1", "tip", 0.5, inertia=tuple(map(tuple, 1e-4 * np.eye(3)))),)
    ses = reduce_links(robot, parts, 4, tip)
    q = np.column_stack([np.zeros(4), np.linspace(-1.0, 1.0, 4)])
    stack = assemble_arm(robot, ses, q, attached=tip)
    for k in range(len(q)):
        one, at = assemble_arm(robot, ses, q[k], attached=tip), stack.at(k)
        for a, b in [(one.K, at.K), (one.M, at.M), (one.gravity_loads, at.gravity_loads)]:
            np.testing.assert_array_equal(a, b)


def rolling_arm():
    """Three beam links: s0 pitching at the clamped root (about y), s1 rolling about its own axis (x) at s0's
    tip, s2 pitching (about y) at s1's tip: s1 has a node its parent owns and a node it owns, with a rolling
    joint between, as paper 004's wrist between joints 4 and 5."""
    s = L / 2
    links = [Link("ground"), Link("s0"), Link("s1"), Link("s2")]
    x, y = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    joints = [Joint("j0", "revolute", "ground", "s0", trans(0.0), y),
              Joint("j1", "revolute", "s0", "s1", trans(s), x),
              Joint("j2", "revolute", "s1", "s2", trans(s / 2), y)]
    parts = {"s0": beam(s, W, H, 20, n_side=2, ends=("j0", "j1")),
             "s1": beam(s / 2, W, H, 10, n_side=2, ends=("j1", "j2")),
             "s2": beam(s, W, H, 20, n_side=2, ends=("j2", "tip"))}
    robot = Robot(links, joints)
    return robot, reduce_links(robot, parts, 4)


def test_a_pose_change_carries_every_links_strain():
    """At a frozen-segment boundary the dynamic state is carried to the next pose with every link's strain
    energy (z^T K z / 2, link axes) kept: a link's rigid-body motion carries no strain, and a tree can always
    rearrange those. The deflection under gravity and a random state, carried across a 0.05 rad roll of j1, keep
    each link's strain energy to 1e-5 and their sum to 1e-10 (the solve with K, of condition 1e10 in its m, rad and
    modal coordinates, moves 1e-6 of the sum between links: measured 1.1e-6 of s2's); a pose that does not change
    carries the state unchanged (1e-10). The
    earlier rule (each node's vectors turned with the link that owns it) gave s1 10 times its strain energy here:
    s1's node at j1 is s0's, so the deflection the two nodes share was turned by two rotations; on paper 004's
    emergency stop the wrist gained 750 times its strain energy at one boundary."""
    from structcheck.flex import assemble_arm
    from structcheck.flex.transient import carried_state

    robot, ses = rolling_arm()
    qa = np.array([0.0, 0.3, 0.4])
    A, B = assemble_arm(robot, ses, qa), assemble_arm(robot, ses, qa + [0.0, 0.05, 0.0])
    rng = np.random.default_rng(7)
    for x in (A.solve_static(G), rng.standard_normal(len(A.K)) * np.abs(A.solve_static(G)).max()):
        xb, _ = carried_state((x, np.zeros_like(x)), A, B)
        energy = {n: ((A.maps[n] @ x) @ se.K @ (A.maps[n] @ x), (B.maps[n] @ xb) @ se.K @ (B.maps[n] @ xb))
                  for n, se in ses.items()}
        for n, (before, after) in energy.items():
            assert after == pytest.approx(before, rel=1e-5), n
        assert sum(e[1] for e in energy.values()) == pytest.approx(sum(e[0] for e in energy.values()), rel=1e-10)
        same, _ = carried_state((x, np.zeros_like(x)), A, A)
        assert np.allclose(same, x, rtol=0, atol=1e-10 * np.abs(x).max())
