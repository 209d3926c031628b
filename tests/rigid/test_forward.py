"""Forward dynamics and the forward simulator (structcheck.rigid.forward, .simulate) against independent
references: inverse dynamics (forward then inverse returns the torques), the two-link planar arm's closed-form
mass matrix, conservation of energy of free pendulums (open and closed chains), the pendulum's period (complete
elliptic integral), and the closed forms of a Coulomb brake (stop angle and time, holding against gravity, the
brake's work).

Error budgets: forward then inverse is a linear solve of a well-conditioned mass matrix, exact to round-off
(1e-12 of the torques' scale). A simulation's local error per step is below rtol (relative); over the N steps of a
run the global error is at most ~N rtol. The energy tests run the default rtol = 1e-8 over ~100 steps: bound 1e-6
of the energy swing (measured 1e-9..1e-8; the braked four-bar's energy balance likewise). The closed forms of the
pendulum and the brakes run TIGHT (rtol = 1e-10): bounds 1e-9..1e-8 (a brake's stop is a quadratic in time, which
DOP853 integrates exactly: measured ~1e-15; the brakes' work balances measured ~1e-10).
Events are located on the dense output to round-off in time, so a stop time carries the integration error.
"""
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ellipk

from structcheck.errors import InputError
from structcheck.model.robot import Joint, Link, Robot, rpy_matrix, trans
from structcheck.rigid import ClosedChain, CutJoint
from structcheck.rigid.actuation import Brake, Free, Prescribed, Torque
from structcheck.rigid.closedchain import closed_chain_dynamics, closed_chain_motion
from structcheck.rigid.dynamics import inverse_dynamics, link_inertials
from structcheck.rigid.forward import Rotor, forward_dynamics, mass_matrix
from structcheck.rigid.kinematics import link_kinematics
from structcheck.rigid.simulate import EventKind, JointState, Tolerance, simulate

from helpers import branched_robot, general_robot

ROOT = Path(__file__).resolve().parents[2]
G = 9.81
TIGHT = Tolerance(rtol=1e-10, atol=1e-12)


def energy(robot, q, qd, gravity):
    """Kinetic + gravitational potential energy (n_t,) [J] of a tree at q, qd, from the link kinematics and
    inertials: sum 1/2 m v_c^2 + 1/2 w.I_c w - m g.p_c."""
    kin = link_kinematics(robot, q, qd)
    ine = link_inertials(robot)
    R, p = kin.T_world_link[..., :3, :3], kin.T_world_link[..., :3, 3]
    v_c = kin.v_origin + np.cross(kin.omega, ine.com[None])
    kinetic = 0.5 * np.einsum("l,tli,tli->t", ine.mass, v_c, v_c)
    kinetic += 0.5 * np.einsum("tli,lij,tlj->t", kin.omega, ine.inertia, kin.omega)
    p_c = p + np.einsum("tlij,lj->tli", R, ine.com)
    return kinetic - np.einsum("l,tli,i->t", ine.mass, p_c, np.asarray(gravity, float))


def pendulum(m=2.0, lc=0.5, Ic=0.01, axis=(0.0, 0.0, 1.0)):
    """A bar on a revolute joint at the origin about ``axis``, its centre of mass at x = lc."""
    return Robot([Link("ground"), Link("bar", m, (lc, 0, 0), np.diag([Ic, Ic, Ic]))],
                 [Joint("j", "revolute", "ground", "bar", np.eye(4), np.array(axis))])


# ---------------------------------------------------------------------- forward dynamics
@pytest.mark.parametrize("build", [general_robot, branched_robot])
def test_forward_then_inverse_returns_the_torques_open_tree(build, rng):
    """Random seeded trees (skewed axes, a prismatic joint, point masses; a mimic joint and a massless link in
    the branched one), with a payload and point forces."""
    robot = build(rng)
    n_t, n = 40, robot.n_dof
    q, qd = rng.uniform(-2, 2, (n_t, n)), rng.uniform(-2, 2, (n_t, n))
    tau = rng.uniform(-30, 30, (n_t, n))
    forces = {"tool": rng.uniform(-20, 20, (n_t, 3))}
    payload = {"tool": (1.5, np.diag([0.01, 0.02, 0.03]))}
    qdd = forward_dynamics(robot, q, qd, tau, (0.0, -3.0, -9.0), forces, payload)
    back = inverse_dynamics(robot, q, qd, qdd, (0.0, -3.0, -9.0), forces, payload).tau
    np.testing.assert_allclose(back, tau, rtol=0, atol=1e-12 * np.abs(tau).max())
    # one sample as (n,) arrays
    one = forward_dynamics(robot, q[3], qd[3], tau[3], (0.0, -3.0, -9.0), {"tool": forces["tool"][3]}, payload)
    np.testing.assert_allclose(one[0], qdd[3], rtol=1e-12, atol=1e-12 * np.abs(qdd).max())


@pytest.fixture(scope="module")
def mg400():
    sys.path.insert(0, str(ROOT / "studies"))
    import mg400

    return mg400


@pytest.mark.parametrize("motors", ["DRIVEN", "MOTOR_J3"])
def test_forward_then_inverse_returns_the_torques_closed_chain(mg400, motors, rng):
    """The DOBOT MG400 study's mechanism (three parallelograms, 4 dof), actuated at its independent coordinates
    or with J3's motor on the crank (actuated != independent), along a smooth motion with a payload."""
    chain = mg400.mechanism(mg400.start_pose(), actuated=getattr(mg400, motors))
    t = np.linspace(0.0, 1.0, 25)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    q = np.array(mg400.start_pose()) + 0.2 * np.sin(np.outer(t, w))
    qd = 0.2 * w * np.cos(np.outer(t, w))
    tau = rng.uniform(-5, 5, (len(t), 4))
    qdd = forward_dynamics(chain, q, qd, tau, payloads={"tcp": 0.5})
    dyn = closed_chain_dynamics(chain, closed_chain_motion(chain, q, qd, qdd), payloads={"tcp": 0.5})
    np.testing.assert_allclose(dyn.tau, tau, rtol=0, atol=1e-12 * np.abs(tau).max())


def test_two_link_mass_matrix_and_accelerations_closed_form(rng):
    """Two-link planar arm, joints about z, gravity -y (closed form of the planar elbow manipulator: Spong,
    Hutchinson and Vidyasagar, Robot Modeling and Control, in their notation):
    M11 = I1 + I2 + m1 lc1^2 + m2 (l1^2 + lc2^2 + 2 l1 lc2 cos q2), M12 = I2 + m2 (lc2^2 + l1 lc2 cos q2),
    M22 = I2 + m2 lc2^2; h1 = -m2 l1 lc2 sin q2 (2 qd1 qd2 + qd2^2) + (m1 lc1 + m2 l1) g cos q1 + m2 lc2 g cos(q1+q2),
    h2 = m2 l1 lc2 sin q2 qd1^2 + m2 lc2 g cos(q1 + q2). Out-of-plane inertia must not matter."""
    l1, m1, m2, lc1, lc2, I1, I2 = 0.7, 3.0, 2.0, 0.3, 0.2, 0.12, 0.05
    robot = Robot([Link("ground"), Link("l1", m1, (lc1, 0, 0), np.diag([0.3, 0.2, I1])),
                   Link("l2", m2, (lc2, 0, 0), np.diag([0.1, 0.4, I2]))],
                  [Joint("j1", "revolute", "ground", "l1"), Joint("j2", "revolute", "l1", "l2", trans(x=l1))])
    q, qd, tau = rng.uniform(-3, 3, (30, 2)), rng.uniform(-3, 3, (30, 2)), rng.uniform(-20, 20, (30, 2))
    c2, s2 = np.cos(q[:, 1]), np.sin(q[:, 1])
    M = np.empty((30, 2, 2))
    M[:, 0, 0] = I1 + I2 + m1 * lc1 ** 2 + m2 * (l1 ** 2 + lc2 ** 2 + 2 * l1 * lc2 * c2)
    M[:, 0, 1] = M[:, 1, 0] = I2 + m2 * (lc2 ** 2 + l1 * lc2 * c2)
    M[:, 1, 1] = I2 + m2 * lc2 ** 2
    np.testing.assert_allclose(mass_matrix(robot, q), M, rtol=1e-13)
    g12 = m2 * lc2 * G * np.cos(q[:, 0] + q[:, 1])
    h = np.column_stack([-m2 * l1 * lc2 * s2 * (2 * qd[:, 0] * qd[:, 1] + qd[:, 1] ** 2)
                         + (m1 * lc1 + m2 * l1) * G * np.cos(q[:, 0]) + g12,
                         m2 * l1 * lc2 * s2 * qd[:, 0] ** 2 + g12])
    expected = np.linalg.solve(M, (tau - h)[..., None])[..., 0]
    np.testing.assert_allclose(forward_dynamics(robot, q, qd, tau, (0, -G, 0)), expected, rtol=1e-11, atol=1e-11)


def test_reflected_rotor_inertia_adds_J_i_squared_to_the_diagonal(rng, mg400):
    robot = general_robot(rng)
    q = rng.uniform(-2, 2, (5, robot.n_dof))
    rotors = {"j0": Rotor(2e-4, 100.0), "j3": Rotor(1e-4, 50.0)}
    dM = mass_matrix(robot, q, rotors=rotors) - mass_matrix(robot, q)
    expected = np.zeros((robot.n_dof, robot.n_dof))
    expected[0, 0], expected[3, 3] = 2e-4 * 100 ** 2, 1e-4 * 50 ** 2
    np.testing.assert_allclose(dM, np.broadcast_to(expected, dM.shape), atol=1e-12)
    # a single joint: qdd = tau / (I_O + J i^2)
    bar = pendulum()
    qdd = forward_dynamics(bar, [0.3], [1.0], [2.0], (0, 0, -G), rotors={"j": Rotor(1e-3, 20.0)})
    np.testing.assert_allclose(qdd, [[2.0 / (0.01 + 2.0 * 0.25 + 0.4)]], rtol=1e-14)
    # a closed chain actuated at its independent coordinates: the same diagonal
    chain = mg400.mechanism(mg400.start_pose())
    qc = np.array(mg400.start_pose())[None]
    dM = mass_matrix(chain, qc, rotors={"J2": Rotor(1e-4, 100.0)}) - mass_matrix(chain, qc)
    np.testing.assert_allclose(dM[0], np.diag([0, 1.0, 0, 0]), atol=1e-12)


def test_massless_coordinate_is_named():
    robot = Robot([Link("ground"), Link("a", 1.0, (0.3, 0, 0), np.eye(3) * 0.01), Link("b")],
                  [Joint("j1", "revolute", "ground", "a"), Joint("j2", "revolute", "a", "b", trans(x=0.5))])
    with pytest.raises(InputError, match=r"\['j2'\] move no mass"):
        forward_dynamics(robot, [0.0, 0.0], [0.0, 0.0], [0.0, 0.0])


# ---------------------------------------------------------------------- free motion
def test_pendulum_period_small_and_large_amplitude():
    """A compound pendulum (I_O = I_c + m lc^2) hanging along +x, released from theta0 at rest: period
    4 sqrt(I_O / (m g lc)) K(sin^2(theta0 / 2)) (K the complete elliptic integral of the first kind, parameter
    m = k^2); for theta0 = 1e-3 that is the small-oscillation period 2 pi sqrt(I_O / (m g lc)) within
    theta0^2 / 16 = 6e-8."""
    m, lc, Ic = 2.0, 0.5, 0.01
    I_O = Ic + m * lc ** 2
    bar = pendulum(m, lc, Ic)
    small = 2 * np.pi * np.sqrt(I_O / (m * G * lc))
    exact = 4 * np.sqrt(I_O / (m * G * lc)) * ellipk(np.sin(0.5) ** 2)
    # phase error budget [rad]: the integrator's 1e-8, plus the small-oscillation formula's 2 pi theta0^2 / 16
    for theta0, period, phase in [(1e-3, small, 1e-8 + 2 * np.pi * 1e-6 / 16), (1.0, exact, 1e-8)]:
        sim = simulate(bar, {}, [theta0], [0.0], t_end=period, gravity=(G, 0, 0), dt=period / 2, tolerance=TIGHT)
        np.testing.assert_allclose(sim.t, [0.0, period / 2, period])
        np.testing.assert_allclose(sim.q[:, 0], [theta0, -theta0, theta0], rtol=phase ** 2 + 1e-9)
        assert np.abs(sim.qd[[1, 2], 0]).max() < phase * theta0 * np.sqrt(m * G * lc / I_O)


def triple_pendulum():
    """Three bars on skewed revolute axes (a spatial chain), full inertia tensors."""
    links, joints = [Link("ground")], []
    for i, (L, m) in enumerate([(0.5, 2.0), (0.4, 1.5), (0.3, 1.0)]):
        links.append(Link(f"b{i}", m, (L / 2, 0.02, 0.0), np.diag([0.002, m * L ** 2 / 12, m * L ** 2 / 12])))
        T = trans(x=0.0 if i == 0 else [0.5, 0.4][i - 1])
        T[:3, :3] = rpy_matrix(0.3 * i, -0.2, 0.1 * i)
        joints.append(Joint(f"j{i}", "revolute", links[i].name, f"b{i}", T, np.array([0.1, 0.2, 1.0])))
    return Robot(links, joints, points={"tip": ("b2", (0.3, 0.0, 0.0))})


def test_free_triple_pendulum_conserves_energy():
    """No brakes, no damping: kinetic + potential energy (from the link kinematics, not from the mass matrix)
    stays constant over 2 s of chaotic motion to the integrator's tolerance (default rtol 1e-8, ~100 steps: bound
    1e-6 of the energy swing; measured 1.5e-9)."""
    robot = triple_pendulum()
    g = (0.0, -G, 0.0)
    sim = simulate(robot, {}, [0.5, -1.0, 2.0], [1.0, 0.0, -2.0], t_end=2.0, gravity=g)
    E = energy(robot, sim.q, sim.qd, g)
    swing = np.ptp(energy(robot, sim.q, np.zeros_like(sim.qd), g))  # the potential energy's range
    assert swing > 5.0 and len(sim.t) > 50
    assert np.abs(E - E[0]).max() < 1e-6 * swing
    assert all(s == JointState.FREE.value for s in sim.state.ravel()) and sim.events == ()


def four_bar():
    """A crank-rocker four-bar in the vertical x-y plane (gravity -y): ground pivots at (0, 0) and (0.7, 0),
    crank 0.3, coupler 0.8, rocker 0.6 m (Grashof: 0.3 + 0.8 < 0.6 + 0.7), cut at the coupler-rocker pin,
    the crank angle independent. Assembled at crank angle 1 rad."""
    a, b, c, d, th = 0.3, 0.8, 0.6, 0.7, 1.0
    B = a * np.array([np.cos(th), np.sin(th)])
    D = np.array([d, 0.0])
    e = np.linalg.norm(D - B)
    along = (b ** 2 - c ** 2 + e ** 2) / (2 * e)
    C = B + along * (D - B) / e + np.sqrt(b ** 2 - along ** 2) * np.array([-(D - B)[1], (D - B)[0]]) / e
    cpl, rck = np.arctan2(*(C - B)[::-1]), np.arctan2(*(C - D)[::-1])
    def bar(name, m, L):
        return Link(name, m, (L / 2, 0, 0), np.diag([1e-3, m * L ** 2 / 12, m * L ** 2 / 12]))

    tree = Robot([Link("ground"), bar("crank", 1.0, a), bar("coupler", 2.0, b), bar("rocker", 1.5, c)],
                 [Joint("crank", "revolute", "ground", "crank", home=th),
                  Joint("coupler", "revolute", "crank", "coupler", trans(x=a), home=cpl - th),
                  Joint("rocker", "revolute", "ground", "rocker", trans(x=d), home=rck)], name="four_bar")
    return ClosedChain(tree, [CutJoint("pin", "revolute", "rocker", "coupler", trans(x=c), trans(x=b))], ["crank"])


def test_free_four_bar_conserves_energy():
    """A closed chain swinging freely (the crank swings through more than half a turn): the tree's energy at the
    coordinates and rates solved from the simulated crank motion is constant (default rtol, ~40 steps: bound 1e-6
    of the energy swing; measured 8e-9)."""
    chain = four_bar()
    g = (0.0, -G, 0.0)
    sim = simulate(chain, {}, [1.0], [3.0], t_end=1.0, gravity=g)
    motion = closed_chain_motion(chain, sim.q, sim.qd, sim.qdd)
    np.testing.assert_allclose(motion.q, sim.q_tree, atol=1e-12)
    E = energy(chain.tree, motion.q, motion.qd, g)
    swing = np.ptp(energy(chain.tree, motion.q, np.zeros_like(motion.qd), g))
    assert swing > 1.0 and np.ptp(sim.q) > np.pi
    assert np.abs(E - E[0]).max() < 1e-6 * swing


# ---------------------------------------------------------------------- brakes
@pytest.mark.parametrize("delay", [0.0, 0.2])
def test_braked_pendulum_in_a_horizontal_plane_stops_as_closed_form(delay):
    """Gravity along the joint axis does no work: after the brake engages, I w0^2 / (2 T_b) more angle and
    I w0 / T_b more time to stand still; then the brake holds with no torque and the arm is at rest."""
    m, lc, Ic, w0, Tb = 2.0, 0.5, 0.01, 3.0, 1.7
    I_O = Ic + m * lc ** 2
    sim = simulate(pendulum(m, lc, Ic), {"j": Brake(Tb, engage_at=delay)}, [0.2], [w0], t_end=5.0,
                   gravity=(0, 0, -G), dt=0.01, tolerance=TIGHT)
    assert [(e.kind, e.joint) for e in sim.events] == [(EventKind.ENGAGED, "j"), (EventKind.HELD, "j"),
                                                       (EventKind.REST, None)]
    np.testing.assert_allclose(sim.event_times(EventKind.ENGAGED), [delay])
    np.testing.assert_allclose(sim.rest_time, delay + I_O * w0 / Tb, rtol=1e-9)
    np.testing.assert_allclose(sim.q[-1, 0], 0.2 + w0 * delay + I_O * w0 ** 2 / (2 * Tb), rtol=1e-9)
    slipping = sim.state[:, 0] == JointState.SLIPPING.value
    np.testing.assert_allclose(sim.tau[slipping, 0], -Tb)
    np.testing.assert_allclose(sim.qdd[slipping, 0], -Tb / I_O, rtol=1e-12)
    assert sim.state[-1, 0] == JointState.HELD.value and abs(sim.tau[-1, 0]) < 1e-12


def slipped(sim, k):
    """The distance joint k slipped [rad, m] from its brake's engagement on: its motion is monotonic between its
    own events (engaged, held, slips) and the end."""
    times = sorted({e.t for e in sim.events if e.joint == sim.coordinates[k]} | {sim.t[-1]})
    return np.abs(np.diff(np.interp(times, sim.t, sim.q[:, k]))).sum()


def test_brake_holds_against_gravity_when_stronger():
    """A bar held horizontal (gravity torque m g lc about the pin) by a brake of 1.2 m g lc: held at once, with
    holding torque m g lc."""
    m, lc, Ic = 2.0, 0.5, 0.01
    bar = pendulum(m, lc, Ic, axis=(0.0, -1.0, 0.0))  # +q lifts x towards +z
    held = simulate(bar, {"j": Brake(1.2 * m * G * lc)}, [0.0], [0.0], t_end=1.0, tolerance=TIGHT)
    assert [e.kind for e in held.events] == [EventKind.ENGAGED, EventKind.HELD, EventKind.REST]
    assert held.rest_time == 0.0 and held.q[-1, 0] == 0.0
    np.testing.assert_allclose(held.tau[-1], [m * G * lc], rtol=1e-13)


@pytest.mark.parametrize("ratio", [0.8, 0.3])
def test_brake_slips_against_gravity_when_weaker(ratio):
    """The same bar, brake T_b = ratio m g lc: it slips at once with qdd = (T_b - m g lc) / I_O, swings (turning
    back at standstills where the brake cannot hold it), comes to rest where the gravity torque |m g lc cos q| is
    within T_b, and the energy it lost is the brake's work, T_b times the angle slipped."""
    m, lc, Ic = 2.0, 0.5, 0.01
    I_O, mgl = Ic + m * lc ** 2, m * G * lc
    Tb = ratio * mgl
    sim = simulate(pendulum(m, lc, Ic, axis=(0.0, -1.0, 0.0)), {"j": Brake(Tb)}, [0.0], [0.0], t_end=20.0,
                   tolerance=TIGHT)
    kinds = [e.kind for e in sim.events]
    assert kinds[:2] == [EventKind.ENGAGED, EventKind.SLIPS] and kinds[-2:] == [EventKind.HELD, EventKind.REST]
    assert (EventKind.SLIPS in kinds[2:]) == (ratio < 0.5)  # the weak brake lets the bar swing back
    np.testing.assert_allclose(sim.qdd[0], [(Tb - mgl) / I_O], rtol=1e-12)
    q_end = sim.q[-1, 0]
    assert abs(mgl * np.cos(q_end)) <= Tb and sim.qd[-1, 0] == 0.0
    lost = mgl * (np.sin(0.0) - np.sin(q_end))  # potential energy m g lc sin q; at rest at both ends
    np.testing.assert_allclose(lost, Tb * slipped(sim, 0), rtol=1e-9)


def test_coupled_brakes_dissipate_the_energy_they_slip_through(rng):
    """Stop category 0 of a random 6-dof tree (skewed axes, a prismatic joint braked by a force) under gravity:
    drives off, brakes after 50 ms. Free joints do no work and held ones do not move, so the energy lost from the
    start to rest is sum_k T_b,k x (distance joint k slipped)."""
    robot = general_robot(rng)
    Tb = [60.0, 40.0, 300.0, 20.0, 10.0, 5.0]
    drives = {k: Brake(T, engage_at=0.05) for k, T in zip(robot.dof_names, Tb)}
    qd0 = np.array([1.5, -1.0, 0.5, 2.0, -2.0, 3.0])
    sim = simulate(robot, drives, np.zeros(6), qd0, t_end=3.0, tolerance=TIGHT)
    assert sim.rest_time is not None and len(sim.event_times(EventKind.HELD)) >= 6
    E = energy(robot, sim.q[[0, -1]], sim.qd[[0, -1]], (0, 0, -9.81))
    work = sum(T * slipped(sim, k) for k, T in enumerate(Tb))
    np.testing.assert_allclose(E[0] - E[1], work, rtol=1e-8)


def test_all_joints_prescribed_gives_the_inverse_dynamics_torques(rng):
    """With every joint on a law the simulator's torques are the inverse dynamics of the law's motion; then a
    category-1-like stop: the law decelerates to rest at t = 1 s and the brakes hold from then on."""
    robot = triple_pendulum()
    laws = {f"j{k}": Prescribed(f"STEP(time,0,0,1,{a}d)", offset=o) for k, (a, o) in
            enumerate([(40, 0.1), (-30, 0.2), (60, -0.3)])}
    sim = simulate(robot, laws, [0, 0, 0], [0, 0, 0], t_end=1.0, gravity=(0, -G, 0), dt=0.05)
    ref = inverse_dynamics(robot, sim.q, sim.qd, sim.qdd, (0, -G, 0)).tau
    np.testing.assert_allclose(sim.tau, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(sim.q[-1], np.radians([40, -30, 60]) + [0.1, 0.2, -0.3], rtol=1e-14)
    stop = {k: Brake(50.0, engage_at=1.0, before=d) for k, d in laws.items()}
    sim2 = simulate(robot, stop, [0, 0, 0], [0, 0, 0], t_end=2.0, gravity=(0, -G, 0), dt=0.05)
    assert sim2.rest_time == 1.0 and len(sim2.event_times(EventKind.HELD)) == 3
    np.testing.assert_allclose(sim2.tau[-1], ref[-1], rtol=1e-9, atol=1e-9)  # at rest: the gravity torques


def test_torque_drive_free_joint_and_force_pulse(rng):
    """A torque history on the first joint of the triple pendulum, the others free (one named, one not), and a
    half-sine force pulse at the tip from 0.1 to 0.15 s (a function of time, its ends as breakpoints): the
    accelerations at every output sample are those of forward_dynamics with the same torques and forces."""
    robot = triple_pendulum()

    def pulse(t):
        on = (t > 0.1) & (t < 0.15)
        return np.outer(np.where(on, np.sin(np.pi * (t - 0.1) / 0.05), 0.0), [0.0, 0.0, 80.0])

    sim = simulate(robot, {"j0": Torque("5*SIN(3*time)"), "j1": Free()}, [0, 0.3, 0], [0, 0, 0], t_end=0.3,
                   gravity=(0, -G, 0), point_forces={"tip": pulse}, breakpoints=(0.1, 0.15))
    assert {0.1, 0.15} <= set(sim.t)
    tau = np.column_stack([5 * np.sin(3 * sim.t), np.zeros((len(sim.t), 2))])
    np.testing.assert_allclose(sim.tau, tau, atol=1e-14)
    expected = forward_dynamics(robot, sim.q, sim.qd, tau, (0, -G, 0), {"tip": pulse(sim.t)})
    np.testing.assert_allclose(sim.qdd, expected, rtol=1e-12, atol=1e-12)


def test_braked_four_bar_stops_and_holds_with_the_static_torque():
    """A closed chain braked at its crank from speed under gravity, the brake weaker than the largest gravity
    torque: the crank stops, cannot be held, swings back and comes to rest. The energy lost is the brake's work,
    and the holding torque at rest is the closed chain's inverse dynamics at rest (its gravity torque)."""
    chain = four_bar()
    Tb, g = 3.0, (0.0, -G, 0.0)
    sim = simulate(chain, {"crank": Brake(Tb)}, [1.0], [3.0], t_end=2.5, gravity=g)
    assert [e.kind for e in sim.events] == [EventKind.ENGAGED, EventKind.SLIPS, EventKind.HELD, EventKind.REST]
    assert sim.state[-1, 0] == JointState.HELD.value and slipped(sim, 0) > 3.0
    motion = closed_chain_motion(chain, sim.q, sim.qd, sim.qdd)  # the loops followed along the samples
    np.testing.assert_allclose(motion.q, sim.q_tree, atol=1e-12)
    E = energy(chain.tree, motion.q[[0, -1]], motion.qd[[0, -1]], g)
    np.testing.assert_allclose(E[0] - E[1], Tb * slipped(sim, 0), rtol=1e-6)  # default rtol, ~50 steps
    rest = closed_chain_motion(chain, sim.q[-1:], [[0.0]], [[0.0]], q_guess=sim.q_tree[-1])
    static = closed_chain_dynamics(chain, rest, g).tau
    np.testing.assert_allclose(sim.tau[-1], static[0], rtol=1e-10)
    assert abs(static[0, 0]) <= Tb


def test_bad_input_names_what_to_fix():
    bar = pendulum()
    with pytest.raises(InputError, match="not driven coordinates"):
        simulate(bar, {"elbow": Free()}, [0.0], [0.0], t_end=1.0)
    with pytest.raises(InputError, match="static torque"):
        Brake(10.0, static=5.0)
    with pytest.raises(InputError, match="t_end"):
        simulate(bar, {}, [0.0], [0.0], t_end=0.0)
    with pytest.raises(InputError, match="integration method"):
        Tolerance(method="Euler")
    chain = four_bar()
    hydraulic = ClosedChain(chain.tree, chain.cuts, ["crank"], actuated=["rocker"])
    with pytest.raises(InputError, match="actuated ones"):
        simulate(hydraulic, {}, [1.0], [0.0], t_end=1.0)
