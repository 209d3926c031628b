"""Identification of inertial parameters: the regressor against inverse dynamics, base parameters (QR with
pivoting) against the full parameter set, per-body least squares on exact and noisy wrenches, excitation design."""
import numpy as np
import pytest

from structcheck.model.robot import Joint, Link, Robot
from structcheck.rigid import identify as ident
from structcheck.rigid.dynamics import inverse_dynamics, link_inertials

from helpers import branched_robot, general_robot

GRAVITY = (0.4, -1.1, -9.81)  # not along an axis of any frame


@pytest.mark.parametrize("build", [general_robot, branched_robot])
def test_regressor_times_parameters_is_inverse_dynamics(build, rng):
    robot = build(rng)  # prismatic, fixed, mimic joints, point masses, full inertia tensors
    q, qd, qdd = ident.random_samples(robot, 40, rng)
    Y = ident.regressor(robot, q, qd, qdd, GRAVITY)
    tau = inverse_dynamics(robot, q, qd, qdd, GRAVITY).tau
    assert Y.shape == (40, robot.n_dof, 10 * (len(robot.links) - 1))
    assert len(ident.parameter_names(robot)) == Y.shape[-1]
    # two independent algorithms in double precision: round-off only
    np.testing.assert_allclose(Y @ ident.standard_parameters(robot), tau, rtol=0, atol=1e-12 * np.abs(tau).max())


def test_regressor_column_is_inverse_dynamics_of_a_unit_parameter(rng):
    """Column by column: a robot whose only inertia is one link with m = 1 (and a first moment or an inertia
    entry added) has torques Y[:, m] (+ the entry's column): inverse dynamics is linear in the parameters."""
    robot = general_robot(rng)
    q, qd, qdd = ident.random_samples(robot, 10, rng)
    Y = ident.regressor(robot, q, qd, qdd, GRAVITY)
    names = ident.parameter_names(robot)
    zero = robot
    for ln in robot.links:
        zero = zero.with_link(ln.name, mass=0.0, inertia=np.zeros((3, 3)), point_masses=())
    for link, extra in (("l1", None), ("l3", "mx"), ("l4", "Iyz")):
        com, inertia = np.zeros(3), np.zeros((3, 3))
        if extra == "mx":
            com[0] = 1.0  # m c = (1, 0, 0); inertia about the origin stays 0 => about the COM -m(|c|^2 - c c^T)
            inertia = -(np.eye(3) - np.outer(com, com))
        elif extra == "Iyz":
            inertia[1, 2] = inertia[2, 1] = 1.0
        tau = inverse_dynamics(zero.with_link(link, mass=1.0, com=tuple(com), inertia=inertia), q, qd, qdd,
                               GRAVITY).tau
        expect = Y[..., names.index(f"{link}.m")] + (Y[..., names.index(f"{link}.{extra}")] if extra else 0)
        np.testing.assert_allclose(tau, expect, rtol=0, atol=1e-12 * max(1.0, np.abs(expect).max()))


def test_base_parameters_reproduce_every_torque(rng):
    robot = general_robot(rng)
    base = ident.base_parameters(robot, GRAVITY, n_samples=100, seed=1)
    # a clear rank gap in the pivoted R: kept |R_kk| >= 1e-5 |R_00|, dropped ones at round-off
    assert base.diagonal[base.rank - 1] > 1e-5 * base.diagonal[0] > 1e5 * base.diagonal[base.rank]
    assert base.rank < len(base.names) and len(base.describe()) == base.rank
    q, qd, qdd = ident.random_samples(robot, 30, np.random.default_rng(7))  # samples the QR never saw
    Y = ident.regressor(robot, q, qd, qdd, GRAVITY)
    pi = ident.standard_parameters(robot)
    tau = Y @ pi
    np.testing.assert_allclose(base.columns(Y) @ base.from_standard(pi), tau, rtol=0, atol=1e-11 * np.abs(tau).max())
    # any other parameters with the same base parameters give the same torques (the null space is invisible)
    other = pi.copy()
    other[base.dependent] += rng.standard_normal(len(base.dependent))
    other[base.independent] -= base.K @ (other[base.dependent] - pi[base.dependent])
    np.testing.assert_allclose(Y @ other, tau, rtol=0, atol=1e-10 * np.abs(tau).max())


def test_base_parameters_from_one_trajectory_predict_another(rng):
    robot = general_robot(rng)
    base = ident.base_parameters(robot, GRAVITY)
    q0, q_range, qd_max = np.zeros(robot.n_dof), 1.5, 2.0
    fit = ident.random_trajectory(robot, q0, q_range, qd_max, period=5.0, n_harmonics=4, seed=2)
    check = ident.random_trajectory(robot, q0, q_range, qd_max, period=3.0, n_harmonics=3, seed=3)
    t1, t2 = np.linspace(0, 5, 200), np.linspace(0, 3, 90)
    beta = ident.identify_base(base.columns(ident.regressor(robot, *fit(t1), GRAVITY)),
                               inverse_dynamics(robot, *fit(t1), GRAVITY).tau)
    tau2 = inverse_dynamics(robot, *check(t2), GRAVITY).tau
    pred = base.columns(ident.regressor(robot, *check(t2), GRAVITY)) @ beta
    assert np.abs(pred - tau2).max() <= 1e-8 * np.abs(tau2).max()
    beta_true = base.from_standard(ident.standard_parameters(robot))
    np.testing.assert_allclose(beta, beta_true, rtol=0, atol=1e-8 * np.abs(beta_true).max())


def test_fourier_trajectory_derivatives_and_bounds():
    traj = ident.FourierTrajectory(np.array([0.3]), np.array([[0.5, -0.2]]), np.array([[0.1, 0.4]]), period=2.0)
    t = np.linspace(0, 2, 401)
    q, qd, qdd = traj(t)
    h = 1e-6
    np.testing.assert_allclose(qd, (traj(t + h)[0] - traj(t - h)[0]) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(qdd, (traj(t + h)[1] - traj(t - h)[1]) / (2 * h), atol=1e-7)
    np.testing.assert_allclose(traj(t + 2.0)[0], q, atol=1e-12)  # periodic
    robot = Robot([Link("g"), Link("a", 1.0, (0.2, 0, 0), np.eye(3) * 0.01)],
                  [Joint("j", "revolute", "g", "a", np.eye(4), np.array([0, 1.0, 0]))])
    r = ident.random_trajectory(robot, 0.1, 0.5, 0.8, period=4.0, n_harmonics=3, seed=0)
    q, qd, _ = r(np.linspace(0, 4, 3001))
    assert np.abs(q - 0.1).max() <= 0.5 and np.abs(qd).max() <= 0.8


def test_optimized_excitation_is_better_conditioned_and_within_bounds(rng):
    robot = general_robot(rng)
    base = ident.base_parameters(robot, GRAVITY)
    q_range, qd_max = np.full(robot.n_dof, 1.0), np.full(robot.n_dof, 1.5)
    exc = ident.optimize_excitation(robot, base, np.zeros(robot.n_dof), q_range, qd_max, period=4.0,
                                    n_harmonics=2, n_samples=30, gravity=GRAVITY, seed=0, maxiter=5)
    assert exc.cond < exc.cond0
    q, qd, _ = exc.trajectory(exc.t)
    assert np.all(np.abs(q) <= q_range * (1 + 1e-6)) and np.all(np.abs(qd) <= qd_max * (1 + 1e-6))


# ------------------------------------------------------------------------------------------ per-body identification
def _moving_robot(rng):
    """The general robot with its parameters, samples of a random motion, its dynamics and the principal axes and
    moments of every link (the 'known geometry' of the per-body method)."""
    robot = general_robot(rng)
    q, qd, qdd = ident.random_samples(robot, 60, rng)
    dyn = inverse_dynamics(robot, q, qd, qdd, GRAVITY)
    inert = link_inertials(robot)
    axes, moments = {}, {}
    for i, name in enumerate(robot.link_names[1:], 1):
        moments[name], axes[name] = np.linalg.eigh(inert.inertia[i])
    com = {n: inert.com[i] for i, n in enumerate(robot.link_names)}
    return robot, dyn, inert, com, axes, moments


def test_body_identification_recovers_mass_and_principal_inertia_exactly(rng):
    robot, dyn, inert, com, axes, moments = _moving_robot(rng)
    found = ident.identify_bodies(robot, dyn.kinematics, dyn.joint_wrenches, GRAVITY, com=com, principal_axes=axes)
    assert set(found) == set(robot.link_names[1:])
    for i, name in enumerate(robot.link_names[1:], 1):
        b = found[name]
        np.testing.assert_allclose(b.mass_by_axis, inert.mass[i], rtol=1e-9)
        np.testing.assert_allclose(b.mass, inert.mass[i], rtol=1e-9)
        np.testing.assert_allclose(b.inertia, moments[name], rtol=1e-8)
        assert b.n_samples == 60


def test_body_identification_with_noise_is_within_its_standard_errors(rng):
    robot, dyn, inert, com, axes, moments = _moving_robot(rng)
    noisy = ident.add_noise(dyn.joint_wrenches, 0.01, np.random.default_rng(5))
    found = ident.identify_bodies(robot, dyn.kinematics, noisy, GRAVITY, com=com, principal_axes=axes)
    for i, name in enumerate(robot.link_names[1:], 1):
        b = found[name]
        assert np.all(np.abs(b.mass_by_axis - inert.mass[i]) <= 4.5 * b.mass_by_axis_std)
        assert np.all(np.abs(b.inertia - moments[name]) <= 4.5 * b.inertia_std)
        assert np.all(b.inertia_std > 0)


def test_unexcited_parameters_are_nan_and_rotation_about_one_axis_gives_one_moment():
    """A cylinder turning about its own axis only: the axial moment is identified, the transverse ones are not
    (their columns are zero), nor is the mass along the axis that neither moves nor feels gravity."""
    robot = Robot([Link("g"), Link("c", 5.0, (0, 0, 0.3), np.diag([0.4, 0.4, 0.1]))],
                  [Joint("j", "revolute", "g", "c", np.eye(4), np.array([0, 0, 1.0]))])
    t = np.linspace(0, 1, 20)
    q, qd, qdd = (0.5 * t ** 2)[:, None], t[:, None], np.ones((20, 1))
    dyn = inverse_dynamics(robot, q, qd, qdd, (0, 0, -9.81))
    b = ident.identify_bodies(robot, dyn.kinematics, dyn.joint_wrenches, (0, 0, -9.81))["c"]
    assert np.isnan(b.inertia[:2]).all() and b.inertia[2] == pytest.approx(0.1, rel=1e-12)
    assert np.isnan(b.mass_by_axis[:2]).all() and b.mass_by_axis[2] == pytest.approx(5.0, rel=1e-12)


def test_body_wrenches_balance_each_link(rng):
    robot = general_robot(rng)
    q, qd, qdd = ident.random_samples(robot, 5, rng)
    dyn = inverse_dynamics(robot, q, qd, qdd, GRAVITY)
    W = ident.body_wrenches(robot, dyn.kinematics, dyn.joint_wrenches)
    from structcheck.rigid.dynamics import free_body_wrenches

    F, N = free_body_wrenches(robot, dyn, GRAVITY)
    scale = np.abs(W).max()
    np.testing.assert_allclose(W[:, 1:, :3] + F[:, 1:], 0, atol=1e-12 * scale)
    np.testing.assert_allclose(W[:, 1:, 3:] + N[:, 1:], 0, atol=1e-12 * scale)


def test_measurement_models():
    x = np.array([[123456789.0, -0.000123456789, 0.0], [1.5, 2.5, 0.0]])
    np.testing.assert_array_equal(ident.round_significant(x, 3)[0], [123000000.0, -0.000123, 0.0])
    big = np.c_[np.full(20000, 100.0), np.zeros(20000)]
    noisy = ident.add_noise(big, 0.01, np.random.default_rng(0))
    assert np.std(noisy[:, 0]) == pytest.approx(1.0, rel=0.03) and not noisy[:, 1].any()
    assert not np.shares_memory(noisy, big)

