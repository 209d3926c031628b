"""Property-based tests (hypothesis) of inverse dynamics on random D-H robots: power balance, per-link
equilibrium, energy rate against the mass matrix and the potential energy, and static gravity torques.

Hypothesis draws the structure (number of joints, revolute/prismatic, standard/modified D-H, which extras) and a
seed; the numbers (D-H parameters, inertials, states) come from ``numpy.random.default_rng(seed)`` so that a
failing example is reported as a short, replayable tuple. Derandomized: the same examples on every run.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structcheck.model import Robot
from structcheck.rigid.dynamics import link_equilibrium, power_balance

COMMON = dict(deadline=None, derandomize=True)
N_SAMPLES = 4


def _inertia(rng, mass):
    """A physically consistent central inertia (3, 3): that of a random cloud of point masses about its mean, plus
    a small sphere-like part so that it is positive definite (triangle inequalities hold)."""
    pts = rng.normal(scale=rng.uniform(0.03, 0.3), size=(6, 3))
    pts -= pts.mean(axis=0)
    S = mass / len(pts) * pts.T @ pts
    return np.trace(S) * np.eye(3) - S + 1e-3 * mass * np.eye(3)


def random_robot(n, types, modified, seed, extras):
    """A random n-joint D-H robot (standard or modified), every link with a random mass, COM and inertia; with
    ``extras`` a point 'tip' on the last link and a payload there. Returns (robot, rng)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n):
        const_angle, const_len = rng.uniform(-np.pi, np.pi), rng.uniform(-0.5, 0.5)
        a, alpha = rng.uniform(-0.6, 0.6), rng.choice([0.0, np.pi / 2, -np.pi / 2, rng.uniform(-np.pi, np.pi)])
        theta, d = (0.0, const_len) if types[k] == "revolute" else (const_angle, 0.0)
        rows.append((alpha, a, d, theta) if modified else (theta, d, a, alpha))
    inertials = []
    for _ in range(n):
        m = rng.uniform(0.2, 8.0)
        inertials.append(dict(mass=m, com=rng.uniform(-0.3, 0.3, 3), inertia=_inertia(rng, m)))
    build = Robot.from_modified_dh if modified else Robot.from_dh
    robot = build(rows, types=types, inertials=inertials)
    if extras:
        robot = robot.with_points({"tip": (robot.link_names[-1], rng.uniform(-0.3, 0.3, 3))})
    return robot, rng


def random_state(robot, rng, n_t=N_SAMPLES):
    """q, qd, qdd (n_t, n_dof): angles in [-pi, pi], slides in [-0.5, 0.5] m, rates in [-2, 2]."""
    prismatic = np.array([robot.joint(n).type == "prismatic" for n in robot.dof_names])
    q = np.where(prismatic, rng.uniform(-0.5, 0.5, (n_t, robot.n_dof)), rng.uniform(-np.pi, np.pi, (n_t, robot.n_dof)))
    return q, rng.uniform(-2, 2, (n_t, robot.n_dof)), rng.uniform(-2, 2, (n_t, robot.n_dof))


@st.composite
def robots(draw):
    n = draw(st.integers(2, 6))
    types = draw(st.lists(st.sampled_from(["revolute", "prismatic"]), min_size=n, max_size=n))
    return n, types, draw(st.booleans()), draw(st.integers(0, 2 ** 32 - 1)), draw(st.booleans())


def _loads(robot, rng, extras):
    """Random gravity (3,), and with ``extras`` a point force (n_t, 3) and a payload (mass, inertia) at 'tip'."""
    g = rng.normal(size=3)
    g *= 9.81 / np.linalg.norm(g)
    if not extras:
        return g, None, None
    m = rng.uniform(0.1, 5.0)
    return g, {"tip": rng.uniform(-50, 50, (N_SAMPLES, 3))}, {"tip": (m, _inertia(rng, m))}


@settings(max_examples=40, **COMMON)
@given(robots())
def test_power_balance_and_link_equilibrium(spec):
    """Work-energy theorem and Newton-Euler per link, on random robots and states: the actuators' power
    sum(tau qd) plus the external forces' power equals dE/dt (``power_balance`` relative error < 1e-9), and every
    link is in equilibrium under its joint wrenches, gravity, point forces and d'Alembert inertia
    (``link_equilibrium`` at round-off). Both follow from Newton-Euler exactly, whatever the robot."""
    n, types, modified, seed, extras = spec
    robot, rng = random_robot(n, types, modified, seed, extras)
    q, qd, qdd = random_state(robot, rng)
    g, forces, payloads = _loads(robot, rng, extras)
    dyn = robot.inverse_dynamics(q, qd, qdd, gravity=g, point_forces=forces, payloads=payloads)
    assert dyn.tau.shape == (N_SAMPLES, n)
    assert power_balance(robot, q, qd, qdd, dyn, gravity=g, point_forces=forces) < 1e-9
    assert np.max(link_equilibrium(robot, dyn, gravity=g, point_forces=forces)) < 1e-10


def _mass_matrix(robot, q):
    """M(q) (n_t, n, n) from inverse dynamics with no gravity, no velocity and unit accelerations."""
    n_t, n = q.shape
    qq = np.repeat(q, n, axis=0)
    acc = np.tile(np.eye(n), (n_t, 1))
    tau = robot.inverse_dynamics(qq, np.zeros_like(qq), acc, gravity=(0.0, 0.0, 0.0)).tau
    return tau.reshape(n_t, n, n).transpose(0, 2, 1)  # column j: the torques for qdd = e_j


def _potential(robot, q, g):
    """Gravitational potential energy V(q) = -sum_i m_i g . p_com_i(q) (n_t,) [J], from forward kinematics."""
    T = robot.forward_kinematics(q)  # (n_t, n_links, 4, 4)
    V = np.zeros(len(q))
    for i, link in enumerate(robot.links):
        if link.mass > 0:
            p = T[:, i, :3, :3] @ np.asarray(link.com, float) + T[:, i, :3, 3]
            V -= link.mass * p @ g
    return V


@settings(max_examples=25, **COMMON)
@given(robots())
def test_energy_rate_from_mass_matrix_and_potential(spec):
    """An independent energy check: with M(q) built column by column from inverse dynamics at rest without
    gravity and V(q) from forward kinematics, E = 1/2 qd^T M qd + V along q(s) = q + qd s + qdd s^2 / 2 has
    dE/ds = sum tau qd at s = 0 (4th-order finite difference in s). This checks the velocity-product
    (Coriolis/centripetal) and gravity terms of tau against the inertia alone; M must also be symmetric and
    positive definite."""
    n, types, modified, seed, _ = spec
    robot, rng = random_robot(n, types, modified, seed, extras=False)
    q, qd, qdd = random_state(robot, rng)
    g, _, _ = _loads(robot, rng, False)
    tau = robot.inverse_dynamics(q, qd, qdd, gravity=g).tau
    M = _mass_matrix(robot, q)
    np.testing.assert_allclose(M, M.transpose(0, 2, 1), rtol=0, atol=1e-12 * np.abs(M).max())
    assert np.all(np.linalg.eigvalsh(M) > 0)

    def energy(s):
        qs, qds = q + qd * s + qdd * s * s / 2, qd + qdd * s
        return 0.5 * np.einsum("ti,tij,tj->t", qds, _mass_matrix(robot, qs), qds) + _potential(robot, qs, g)

    h = 1e-3
    dE = (energy(-2 * h) - 8 * energy(-h) + 8 * energy(h) - energy(2 * h)) / (12 * h)
    power = np.sum(tau * qd, axis=1)
    scale = np.sum(np.abs(tau * qd), axis=1) + 1e-3 * np.abs(energy(0.0)).max()
    # truncation h^4 E^(5) / 30 and round-off eps |E| / h: 1e-13 to 1e-11 of the power on these robots
    np.testing.assert_array_less(np.abs(dE - power), 1e-8 * scale)


@settings(max_examples=40, **COMMON)
@given(robots())
def test_torques_at_rest_are_the_gradient_of_the_potential(spec):
    """At rest (qd = qdd = 0) inverse dynamics gives the static gravity torques, which are the gradient of the
    potential energy dV/dq (virtual work; V from forward kinematics and the link COMs, differentiated by 4th-order
    central differences in each joint): an algorithm-independent check of the gravity path of the recursion."""
    n, types, modified, seed, _ = spec
    robot, rng = random_robot(n, types, modified, seed, extras=False)
    q, _, _ = random_state(robot, rng)
    g, _, _ = _loads(robot, rng, False)
    zero = np.zeros_like(q)
    tau = robot.inverse_dynamics(q, zero, zero, gravity=g).tau
    h = 1e-4
    grad = np.empty_like(q)
    for j in range(robot.n_dof):
        e = np.zeros(robot.n_dof)
        e[j] = h
        grad[:, j] = (_potential(robot, q - 2 * e, g) - 8 * _potential(robot, q - e, g)
                      + 8 * _potential(robot, q + e, g) - _potential(robot, q + 2 * e, g)) / (12 * h)
    weight = 9.81 * sum(link.mass for link in robot.links)
    np.testing.assert_allclose(tau, grad, rtol=0, atol=1e-8 * weight)
    # and the gravity-free, motion-free robot needs no torque at all
    np.testing.assert_allclose(robot.inverse_dynamics(q, zero, zero, gravity=(0, 0, 0)).tau, 0.0, atol=1e-14)


@pytest.mark.parametrize("modified", [False, True])
def test_helpers_build_the_robots_they_describe(modified):
    """The random-robot helper gives n links of the drawn types with the drawn masses (guards the tests above
    against testing an empty robot)."""
    robot, _ = random_robot(4, ["revolute", "prismatic", "revolute", "prismatic"], modified, 7, True)
    assert robot.n_dof == 4
    assert [robot.joint(n).type for n in robot.dof_names] == ["revolute", "prismatic", "revolute", "prismatic"]
    assert all(link.mass > 0 for link in robot.links[1:])
    assert "tip" in robot.points
