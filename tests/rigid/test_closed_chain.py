"""Closed kinematic chains (structcheck.rigid.closedchain) against independent references: Lagrange closed forms of a
parallelogram, hand statics of pin and cylinder forces, the loop-closure formulas of paper 001 (eqs. 1, 5, 7)
and of paper 000 (eqs. 23-24), mimic joints (virtual work in structcheck.rigid.dynamics), d'Alembert's principle
evaluated with finite differences of solved positions only, and the power balance."""
import math

import numpy as np
import pytest

from structcheck.rigid.closedchain import (ClosedChain, CutJoint, closed_chain_dynamics, closed_chain_motion,
                                     link_equilibrium, loop_residuals, power_balance, solve_positions)
from structcheck.rigid.dynamics import inverse_dynamics
from structcheck.errors import InputError
from structcheck.rigid.kinematics import forward_kinematics
from structcheck.model.robot import Joint, Link, Robot, trans

Y = np.array([0.0, -1.0, 0.0])  # planar mechanisms in a vertical x-z plane: +angle lifts x toward +z


def rod(m, length, at=0.5):
    """A slender bar along x: mass m, COM at ``at * length``, transverse inertia m L^2 / 12 [kg m^2]."""
    i = m * length ** 2 / 12
    return dict(mass=m, com=(at * length, 0.0, 0.0), inertia=((i / 50, 0, 0), (0, i, 0), (0, 0, i)))


def rev(name, parent, child, origin=None, home=0.0, axis=Y, mimic=None):
    return Joint(name, "revolute", parent, child, np.eye(4) if origin is None else origin, axis, home=home,
                 mimic=mimic)


def smooth(t, mean, amp, w, phase=0.0):
    """Value, rate and acceleration (n_t, k) of q = mean + amp sin(w t + phase), per column."""
    s = np.sin(np.outer(t, w) + phase)
    c = np.cos(np.outer(t, w) + phase)
    return mean + amp * s, amp * w * c, -amp * w ** 2 * s


# ---------------------------------------------------------------------- a planar parallelogram (x-y plane)
L_CRANK, D_GROUND = 0.6, 0.9


def parallelogram(m1=2.0, c1=0.25, I1=0.03, m2=5.0, m3=1.5, c3=0.4, I3=0.02, hook=0.3):
    """Crank O1-C1 (actuated, j1), coupler C1-C2 (length D), rocker O2-C2 (same length as the crank), pins
    along z; the loop is cut at the rocker-coupler pin. The coupler carries a rotational inertia that must
    not matter (it only translates)."""
    links = [Link("ground"),
             Link("crank", m1, (c1, 0, 0), np.diag([0.01, 0.02, I1])),
             Link("coupler", m2, (D_GROUND / 2, 0.0, 0.0), np.diag([0.2, 0.3, 0.7])),
             Link("rocker", m3, (c3, 0, 0), np.diag([0.03, 0.01, I3]))]
    z = np.array([0.0, 0.0, 1.0])
    joints = [rev("j1", "ground", "crank", axis=z, home=0.5),
              rev("j2", "crank", "coupler", trans(x=L_CRANK), axis=z, home=-0.4),
              rev("j3", "ground", "rocker", trans(x=D_GROUND), axis=z, home=0.6)]
    tree = Robot(links, joints, points={"hook": ("coupler", (hook, 0, 0))}, name="parallelogram")
    cut = CutJoint("pin", "revolute", "rocker", "coupler", trans(x=L_CRANK), trans(x=D_GROUND), axis=z)
    return ClosedChain(tree, [cut], ["j1"])


def test_parallelogram_motion_and_torque_closed_form():
    """Lagrange: the coupler translates on a circle of radius L, so with theta the crank angle
    tau = (I1 + I3 + m1 c1^2 + m3 c3^2 + m2 L^2) theta'' + g (m1 c1 + m3 c3 + m2 L) cos(theta)."""
    m1, c1, I1, m2, m3, c3, I3, g = 2.0, 0.25, 0.03, 5.0, 1.5, 0.4, 0.02, 9.81
    chain = parallelogram(m1, c1, I1, m2, m3, c3, I3)
    t = np.linspace(0.0, 3.0, 601)
    th, thd, thdd = smooth(t, 0.8, 0.6, np.array([2.1]))  # stays clear of the folded pose theta = 0
    motion = closed_chain_motion(chain, th, thd, thdd, t)
    # parallelogram: rocker parallel to the crank, coupler turned back by theta
    expect = np.hstack([th, -th, th])
    np.testing.assert_allclose(motion.q, expect, atol=1e-12)
    np.testing.assert_allclose(motion.qd, np.hstack([thd, -thd, thd]), atol=1e-11)
    np.testing.assert_allclose(motion.qdd, np.hstack([thdd, -thdd, thdd]), atol=1e-10)
    res = loop_residuals(chain, motion.q, motion.qd, motion.qdd)
    assert res.max() < 1e-10
    dyn = closed_chain_dynamics(chain, motion, gravity=(0, -g, 0))
    tau = (I1 + I3 + m1 * c1 ** 2 + m3 * c3 ** 2 + m2 * L_CRANK ** 2) * thdd[:, 0] \
        + g * (m1 * c1 + m3 * c3 + m2 * L_CRANK) * np.cos(th[:, 0])
    np.testing.assert_allclose(dyn.tau[:, 0], tau, rtol=1e-10, atol=1e-10 * np.abs(tau).max())
    # passive joints carry no torque about their axes; the actuator's axis moment is its torque
    assert np.abs(dyn.joint_wrenches[:, 1:, 5]).max() < 1e-10 * np.abs(tau).max()
    np.testing.assert_allclose(dyn.joint_wrenches[:, 0, 5], dyn.tau[:, 0], rtol=1e-12, atol=1e-12)
    # a planar loop of 4 spatial revolutes: 5 rows, rank 2, 3 redundant; the out-of-plane force and the two
    # out-of-plane moments of every loop joint are undetermined, the in-plane loads are not
    assert (dyn.constraint_rank, dyn.redundant) == (2, 3)
    np.testing.assert_array_equal(dyn.undetermined, np.tile([False, False, True, True, True, False], (4, 1)))
    assert power_balance(chain, dyn, (0, -g, 0)) < 1e-10
    assert link_equilibrium(chain, dyn, (0, -g, 0)).max() < 1e-10


def test_parallelogram_checks_hold_to_round_off_and_rigid_body_agrees():
    """The closed chain's checks (through dynamics.free_body_wrenches and dynamics.power_balance), with a
    point force on the coupler: every link balances and the actuator power equals dE/dt minus the force's power,
    to round-off; a wrong pin force shows. The rigid-body stage gives the same motion, torques and checks."""
    from dataclasses import replace

    from structcheck.rigid.stage import rigid_body

    chain = parallelogram()
    t = np.linspace(0.0, 2.0, 201)
    th, thd, thdd = smooth(t, 0.8, 0.6, np.array([2.1]))
    g, forces = (0.0, -9.81, 0.0), {"hook": np.column_stack([3 * np.sin(2 * t), np.cos(t) - 20, 0.5 * t])}
    motion = closed_chain_motion(chain, th, thd, thdd, t)
    dyn = closed_chain_dynamics(chain, motion, g, forces)
    eq = link_equilibrium(chain, dyn, g, forces)
    assert eq.shape == (len(t), 4) and not eq[:, 0].any()  # the ground carries what is left
    assert eq.max() < 1e-13
    pb = power_balance(chain, dyn, g, forces)
    assert pb < 1e-13
    k = dyn.joint_names.index("pin")
    W = dyn.joint_wrenches_world.copy()
    W[:, k, 0] += 1.0  # 1 N more at the pin, against forces of tens of N
    assert link_equilibrium(chain, replace(dyn, joint_wrenches_world=W), g, forces).max() > 1e-3
    rb = rigid_body(chain, t, th, thd, thdd, g, forces, None)
    for name in ("q", "qd", "qdd"):
        assert np.array_equal(getattr(rb, name), getattr(motion, name)), name
    assert np.array_equal(rb.tau[:, 0], dyn.tau[:, 0]) and not rb.tau[:, 1:].any()  # j2, j3 are passive
    assert np.array_equal(rb.dynamics.joint_wrenches, dyn.joint_wrenches)
    assert rb.power_balance == pb and rb.equilibrium == eq.max()
    assert rb.cuts == chain.cuts and rb.warnings == ()
    np.testing.assert_array_equal(rb.undetermined, dyn.undetermined)


def test_parallelogram_static_pin_forces_hand_statics():
    """Massless parallelogram holding a weight W on the coupler at distance a from the crank pin C1. The
    rocker is a two-force member: its force s e (e along the rocker) from moments about C1,
    s = a W / (D sin theta); crank pin force on the coupler F_c = (0, W) - s e; crank torque L W cos(theta)."""
    a, W = 0.3, 200.0
    chain = parallelogram(m1=0, I1=0, m2=0, m3=0, I3=0, hook=a)
    chain = ClosedChain(chain.tree.with_link("coupler", inertia=np.zeros((3, 3))), chain.cuts, ["j1"])
    th = np.array([0.3, 0.9, 1.4, 2.2])
    zero = np.zeros((4, 1))
    motion = closed_chain_motion(chain, th[:, None], zero, zero)
    dyn = closed_chain_dynamics(chain, motion, gravity=(0, 0, 0), point_forces={"hook": (0.0, -W, 0.0)})
    e = np.column_stack([np.cos(th), np.sin(th)])
    s = a * W / (D_GROUND * np.sin(th))
    Fc = np.column_stack([np.zeros(4), np.full(4, W)]) - s[:, None] * e
    expect = {"j1": Fc, "j2": Fc, "j3": s[:, None] * e, "pin": s[:, None] * e}
    Ww = dyn.joint_wrenches_world
    for k, name in enumerate(dyn.joint_names):
        np.testing.assert_allclose(Ww[:, k, :2], expect[name], rtol=1e-11, atol=1e-9, err_msg=name)
    np.testing.assert_allclose(dyn.tau[:, 0], L_CRANK * W * np.cos(th), rtol=1e-12)
    np.testing.assert_allclose(Ww[:, 0, 5], L_CRANK * W * np.cos(th), rtol=1e-12)
    assert np.abs(Ww[:, 1:, 5]).max() < 1e-10
    assert not dyn.undetermined[:, [0, 1, 5]].any() and dyn.undetermined[:, [2, 3, 4]].all()


def test_spherical_cut_leaves_one_redundant_row():
    """Closing the parallelogram with a ball joint instead of a pin: 3 rows, rank 2, so only the out-of-plane
    force is redundant; the ball joint transmits no moment, and the crank torque is unchanged."""
    pin = parallelogram()
    ball = ClosedChain(pin.tree, [CutJoint("ball", "spherical", "rocker", "coupler", trans(x=L_CRANK),
                                           trans(x=D_GROUND))], ["j1"])
    t = np.linspace(0.0, 1.0, 51)
    q, qd, qdd = smooth(t, 0.8, 0.6, np.array([2.1]))
    g = (0.0, -9.81, 0.0)
    d_pin = closed_chain_dynamics(pin, closed_chain_motion(pin, q, qd, qdd, t), g)
    d_ball = closed_chain_dynamics(ball, closed_chain_motion(ball, q, qd, qdd, t), g)
    np.testing.assert_allclose(d_ball.tau, d_pin.tau, rtol=1e-11)
    assert (d_ball.constraint_rank, d_ball.redundant) == (2, 1)
    assert np.abs(d_ball.joint_wrenches[:, 3, 3:]).max() == 0.0
    assert d_ball.undetermined[:, 2].all() and not d_ball.undetermined[:, [0, 1, 5]].any()
    assert link_equilibrium(ball, d_ball, g).max() < 1e-10


# ---------------------------------------------------------------------- mimic joints vs an explicit loop
def turret_parallelogram(mimic: bool):
    """A yawing turret carrying a vertical parallelogram (MG400 / PR1300 type); links have out-of-plane COM
    offsets so the loop also carries out-of-plane loads. With ``mimic`` the rocker and the coupler follow the
    crank as URDF mimic joints (no cut joint)."""
    Lc, d = 0.175, 0.066
    links = [Link("base"), Link("turret", 4.8, (0.005, 0.0, 0.057), np.diag([0.16, 0.16, 0.2])),
             Link("crank", **{**rod(0.4, Lc), "com": (0.09, 0.01, 0.0)}),
             Link("coupler", 0.43, (0.03, -0.02, 0.01), np.diag([0.0027, 0.0029, 0.0042])),
             Link("rocker", **rod(0.18, Lc))]
    mc = ("shoulder", -1.0, 0.0) if mimic else None
    mr = ("shoulder", 1.0, 0.0) if mimic else None
    joints = [rev("yaw", "base", "turret", trans(z=0.105), axis=np.array([0, 0, 1.0])),
              rev("shoulder", "turret", "crank", trans(x=0.0435, z=0.12), home=1.0),
              rev("elbow", "crank", "coupler", trans(x=Lc), home=-1.0, mimic=mc),
              rev("rear", "turret", "rocker", trans(x=0.0435 - d, z=0.12), home=1.0, mimic=mr)]
    tree = Robot(links, joints, points={"tool": ("coupler", (d + 0.05, 0.0, -0.04))})
    if mimic:
        return tree
    cut = CutJoint("bar", "revolute", "rocker", "coupler", trans(x=Lc), trans(x=-d), axis=Y)
    return ClosedChain(tree, [cut], ["yaw", "shoulder"])


def test_mimic_parallelogram_equals_explicit_loop():
    t = np.linspace(0.0, 2.0, 201)
    q, qd, qdd = smooth(t, np.array([0.2, 1.0]), np.array([1.0, 0.4]), np.array([1.7, 2.3]), np.array([0.0, 0.5]))
    g = (0.0, 0.0, -9.81)
    payload, force = {"tool": 1.5}, {"tool": np.column_stack([np.sin(t), 3 * np.cos(t), -10 + t])}
    ref = inverse_dynamics(turret_parallelogram(mimic=True), q, qd, qdd, g, force, payload)
    chain = turret_parallelogram(mimic=False)
    motion = closed_chain_motion(chain, q, qd, qdd, t)
    np.testing.assert_allclose(motion.q[:, 2:], np.column_stack([-q[:, 1], q[:, 1]]), atol=1e-12)
    dyn = closed_chain_dynamics(chain, motion, g, force, payload)
    np.testing.assert_allclose(dyn.tau, ref.tau, rtol=1e-10, atol=1e-10 * np.abs(ref.tau).max())
    # the yaw bearing sees the whole parallelogram: all six components determinate, and equal to the mimic
    # model's (the tree above the yaw joint is the same rigid system)
    assert not dyn.undetermined[0].any() and dyn.undetermined[1:].any(axis=0).tolist() == [0, 1, 0, 1, 0, 1]
    np.testing.assert_allclose(dyn.joint_wrenches[:, 0], ref.joint_wrenches[:, 0], rtol=1e-10,
                               atol=1e-10 * np.abs(ref.joint_wrenches[:, 0]).max())
    assert power_balance(chain, dyn, g, force) < 1e-10
    assert link_equilibrium(chain, dyn, g, force).max() < 1e-10


def to_urdf(robot: Robot) -> str:
    """URDF text of a tree whose joint origins are pure translations (as in turret_parallelogram)."""
    def vec(v):
        return " ".join(repr(float(x)) for x in v)

    def num(x):
        return repr(float(x))

    out = [f'<robot name="{robot.name}">']
    for ln in robot.links:
        I = np.asarray(ln.inertia, float)
        out.append(f'<link name="{ln.name}"><inertial><origin xyz="{vec(ln.com)}" rpy="0 0 0"/>'
                   f'<mass value="{num(ln.mass)}"/><inertia ixx="{num(I[0, 0])}" ixy="{num(I[0, 1])}" ixz="{num(I[0, 2])}" '
                   f'iyy="{num(I[1, 1])}" iyz="{num(I[1, 2])}" izz="{num(I[2, 2])}"/></inertial></link>')
    for j in robot.joints:
        assert np.array_equal(j.origin[:3, :3], np.eye(3))
        mimic = "" if j.mimic is None else \
            f'<mimic joint="{j.mimic[0]}" multiplier="{j.mimic[1]!r}" offset="{j.mimic[2]!r}"/>'
        out.append(f'<joint name="{j.name}" type="{j.type}"><parent link="{j.parent}"/><child link="{j.child}"/>'
                   f'<origin xyz="{vec(j.origin[:3, 3])}" rpy="0 0 0"/><axis xyz="{vec(j.axis)}"/>'
                   f'<limit lower="-3" upper="3" effort="100" velocity="5"/>{mimic}</joint>')
    return "\n".join(out + ["</robot>"])


def test_urdf_mimic_parallelogram_flags_the_loop_joints(tmp_path):
    """A URDF parallelogram (mimic joints, no loop): the torques are exact, but the loop's internal forces are not
    modelled. Every wrench component the mimic model leaves unflagged equals the explicit loop's (cut-joint)
    value; the flagged joints' components that the explicit loop does determine differ from the mimic model's
    (so flagging only the axis components would not be enough), and a warning names the loop."""
    path = tmp_path / "turret.urdf"
    path.write_text(to_urdf(turret_parallelogram(mimic=True)))
    urdf = Robot.from_urdf(path).with_points(turret_parallelogram(mimic=True).points)  # URDF has no points
    assert urdf.dof_names == ("yaw", "shoulder") and urdf.joint("rear").mimic == ("shoulder", 1.0, 0.0)
    t = np.linspace(0.0, 2.0, 101)
    q, qd, qdd = smooth(t, np.array([0.2, 1.0]), np.array([1.0, 0.4]), np.array([1.7, 2.3]), np.array([0.0, 0.5]))
    g, payload = (0.0, 0.0, -9.81), {"tool": 1.5}
    mim = urdf.inverse_dynamics(q, qd, qdd, gravity=g, payloads=payload)
    chain = turret_parallelogram(mimic=False)
    ref = closed_chain_dynamics(chain, closed_chain_motion(chain, q, qd, qdd, t), g, None, payload)
    np.testing.assert_allclose(mim.tau, ref.tau, rtol=1e-10, atol=1e-10 * np.abs(ref.tau).max())
    names = list(mim.joint_names)
    assert names == ["yaw", "shoulder", "elbow", "rear"]
    expect = np.zeros((4, 6), bool)
    expect[1:] = True  # shoulder (the source), elbow and rear (the mimics): the loop; yaw is outside it
    np.testing.assert_array_equal(mim.undetermined, expect)
    scale = np.abs(ref.joint_wrenches[:, :4]).max(axis=(0, 1))  # per component
    diff = np.abs(mim.joint_wrenches - ref.joint_wrenches[:, :4]).max(axis=0)  # (4, 6)
    assert np.all(diff[~mim.undetermined] <= 1e-10 * np.broadcast_to(scale, (4, 6))[~mim.undetermined])
    determined_by_loop = ~ref.undetermined[:4] & mim.undetermined  # in-plane forces and axis moments of the loop
    assert determined_by_loop.sum() == 9
    assert np.all(diff[determined_by_loop] > 0.1)  # N or N m: the missing bar force, far above round-off
    # the audit's example: a moment about the passive elbow pin's axis that a pin cannot carry
    k_axis = 4  # My: the pins turn about -y
    assert np.abs(ref.joint_wrenches[:, 2, k_axis]).max() < 1e-10
    assert np.abs(mim.joint_wrenches[:, 2, k_axis]).max() > 0.05
    (w,) = map(str, mim.warnings)
    for needle in ("['elbow', 'rear'] follow 'shoulder'", "['shoulder', 'elbow', 'rear']", "not modelled",
                   "ClosedChain with cut joints"):
        assert needle in w


def test_mimic_fingers_flag_only_their_own_joints():
    """Two gripper fingers, the second mimicking the first, on the coupler of the explicit parallelogram loop:
    only the two finger joints are flagged by the mimic (their coupling mechanism sits in the hand), in the open
    robot and inside the closed chain (which adds its own redundant-loop flags); the other joints are unchanged
    by the fingers' coupling."""
    base = turret_parallelogram(mimic=False)
    tree = base.tree
    fingers = [Link("f1", 0.1, (0.0, 0.02, 0.03), np.eye(3) * 1e-4), Link("f2", 0.1, (0.0, -0.02, 0.03), np.eye(3) * 1e-4)]
    joints = [Joint("finger1", "prismatic", "coupler", "f1", trans(x=0.1, y=0.01), np.array([0, 1.0, 0]), -1, 1),
              Joint("finger2", "prismatic", "coupler", "f2", trans(x=0.1, y=-0.01), np.array([0, 1.0, 0]), -1, 1,
                    mimic=("finger1", -1.0, 0.0))]
    hand = Robot(tree.links + tuple(fingers), tree.joints + tuple(joints), tree.points)
    mask = inverse_dynamics(hand, np.zeros(5), np.zeros(5), np.zeros(5)).undetermined
    expect = np.zeros((6, 6), bool)
    expect[[4, 5]] = True
    np.testing.assert_array_equal(mask, expect)
    chain = ClosedChain(hand, base.cuts, ["yaw", "shoulder", "finger1"])
    t = np.linspace(0.0, 1.0, 21)
    q, qd, qdd = smooth(t, np.array([0.2, 1.0, 0.0]), np.array([1.0, 0.4, 0.01]), np.array([1.7, 2.3, 3.0]))
    dyn = closed_chain_dynamics(chain, closed_chain_motion(chain, q, qd, qdd, t))
    plain = closed_chain_dynamics(base, closed_chain_motion(base, q[:, :2], qd[:, :2], qdd[:, :2], t))
    np.testing.assert_array_equal(dyn.undetermined[[4, 5]], True)
    np.testing.assert_array_equal(dyn.undetermined[[0, 1, 2, 3, 6]], plain.undetermined)
    assert len(dyn.warnings) == 1 and "['finger2'] follows 'finger1'" in str(dyn.warnings[0])


# ---------------------------------------------------------------------- a boom lifted by a hydraulic cylinder
A_PIN, B_PIN, L0 = np.array([0.25, 0.0, -0.35]), 0.6, 0.4  # cylinder base, boom pin distance, closed length


def boom_cylinder(independent=("d",), actuated=None, m_boom=80.0, c_boom=0.9, m_cyl=0.0):
    """Boom pinned at the origin (angle phi from horizontal, x-z plane); cylinder barrel pinned at A_PIN, rod
    sliding along it (d, length L0 + d to the rod pin), rod pinned to the boom at B_PIN: the loop is cut at
    the rod-boom pin. Cylinder masses ``m_cyl`` each (barrel and rod)."""
    links = [Link("ground"), Link("boom", m_boom, (c_boom, 0, 0), np.diag([0.5, 8.0, 8.0])),
             Link("barrel", **rod(m_cyl, 0.45)), Link("piston", **rod(m_cyl, 0.45, at=-0.5))]
    joints = [rev("phi", "ground", "boom", home=0.3),
              rev("psi", "ground", "barrel", trans(*A_PIN), home=1.2),
              Joint("d", "prismatic", "barrel", "piston", trans(x=L0), np.array([1.0, 0, 0]), 0.0, 0.5, home=0.1)]
    tree = Robot(links, joints)
    cut = CutJoint("rod_pin", "revolute", "boom", "piston", trans(x=B_PIN), np.eye(4), axis=Y)
    return ClosedChain(tree, [cut], list(independent), actuated)


def boom_angle(d):
    """phi from the triangle O-A-C: |C - A| = L0 + d with C = B (cos phi, sin phi) (upper branch)."""
    ax, az = A_PIN[0], A_PIN[2]
    rhs = (B_PIN ** 2 + ax ** 2 + az ** 2 - (L0 + d) ** 2) / (2 * B_PIN)
    return math.atan2(az, ax) + np.arccos(rhs / math.hypot(ax, az))


def test_hydraulic_cylinder_force_hand_statics():
    """Static boom: F (C x u)_y' = m g c cos(phi) about the boom pin, u the cylinder direction."""
    m, c, g = 80.0, 0.9, 9.81
    d = np.array([0.05, 0.15, 0.3])
    phi = boom_angle(d)
    C = B_PIN * np.column_stack([np.cos(phi), np.sin(phi)])
    u = C - A_PIN[[0, 2]]
    u /= np.linalg.norm(u, axis=1)[:, None]
    F = m * g * c * np.cos(phi) / (C[:, 0] * u[:, 1] - C[:, 1] * u[:, 0])
    zero = np.zeros((3, 1))
    for chain, q_ind in ((boom_cylinder(), d[:, None]), (boom_cylinder(["phi"], ["d"]), phi[:, None])):
        motion = closed_chain_motion(chain, q_ind, zero, zero)
        np.testing.assert_allclose(motion.q[:, [0, 2]], np.column_stack([phi, d]), atol=1e-12)
        dyn = closed_chain_dynamics(chain, motion, gravity=(0, 0, -g))
        assert dyn.actuated == ("d",)
        np.testing.assert_allclose(dyn.tau[:, 0], F, rtol=1e-11)
        # the force is axial in the piston: the rod pin pushes back along the cylinder, no shear
        k = dyn.joint_names.index("rod_pin")
        np.testing.assert_allclose(dyn.joint_wrenches[:, k, :3], np.column_stack([-F, 0 * F, 0 * F]), atol=1e-9)


def test_actuator_other_than_the_independent_coordinate():
    """The same motion driven by the boom angle or by the cylinder stroke gives the same cylinder force and a
    power balance F d' = dE/dt (cylinder with mass, so it is no longer a two-force member)."""
    t = np.linspace(0.0, 2.0, 161)
    d, dd, ddd = smooth(t, 0.15, 0.1, np.array([2.5]))
    by_d = boom_cylinder(m_cyl=6.0)
    mo_d = closed_chain_motion(by_d, d, dd, ddd, t)
    by_phi = boom_cylinder(["phi"], ["d"], m_cyl=6.0)
    mo_phi = closed_chain_motion(by_phi, mo_d.q[:, :1], mo_d.qd[:, :1], mo_d.qdd[:, :1], t)
    np.testing.assert_allclose(mo_phi.q, mo_d.q, atol=1e-12)
    np.testing.assert_allclose(mo_phi.qdd, mo_d.qdd, rtol=1e-8, atol=1e-8)
    f_d = closed_chain_dynamics(by_d, mo_d)
    f_phi = closed_chain_dynamics(by_phi, mo_phi)
    np.testing.assert_allclose(f_phi.tau, f_d.tau, rtol=1e-8)
    assert power_balance(by_phi, f_phi) < 1e-9 and power_balance(by_d, f_d) < 1e-10
    assert np.abs(f_phi.joint_wrenches[:, :2, 4]).max() < 1e-8 * np.abs(f_d.tau).max()  # passive pins


def turret_boom(cut_at_slide: bool):
    """The boom and cylinder on a yawing turret, driven at the boom pin (the cylinder is passive). Cut either at
    the rod pin (revolute cut, stroke d a tree coordinate) or at the cylinder's slide (prismatic cut between
    barrel and piston, the rod pin a tree joint chi): the same mechanism, two different constraint sets."""
    links = [Link("ground"), Link("turret", 30.0, (0.0, 0.0, 0.2), np.diag([1.0, 1.0, 0.8])),
             Link("boom", 80.0, (0.9, 0.03, 0.0), np.diag([0.5, 8.0, 8.0])),
             Link("barrel", **rod(6.0, 0.45)), Link("piston", **rod(4.0, 0.45, at=-0.5))]
    base = trans(z=0.5)
    joints = [rev("yaw", "ground", "turret", axis=np.array([0, 0, 1.0])),
              rev("phi", "turret", "boom", base, home=0.3),
              rev("psi", "turret", "barrel", base @ trans(*A_PIN), home=1.2)]
    if cut_at_slide:
        joints.append(rev("chi", "boom", "piston", trans(x=B_PIN), home=0.9))
        cut = CutJoint("slide", "prismatic", "barrel", "piston", trans(x=L0), np.eye(4), np.array([1.0, 0, 0]))
    else:
        joints.append(Joint("d", "prismatic", "barrel", "piston", trans(x=L0), np.array([1.0, 0, 0]), home=0.1))
        cut = CutJoint("rod_pin", "revolute", "boom", "piston", trans(x=B_PIN), np.eye(4), axis=Y)
    return ClosedChain(Robot(links, joints), [cut], ["yaw", "phi"])


def test_prismatic_cut_joint_equals_revolute_cut():
    """With the turret yawing while the cylinder slides, the prismatic cut's acceleration term has a Coriolis
    part 2 w x u; both models must give the same piston motion, actuator torques and determinate loads."""
    t = np.linspace(0.0, 2.0, 201)
    q, qd, qdd = smooth(t, np.array([0.0, 0.45]), np.array([1.2, 0.3]), np.array([2.0, 2.5]))
    g = (0.0, 0.0, -9.81)
    out = {}
    for slide in (False, True):
        chain = turret_boom(slide)
        motion = closed_chain_motion(chain, q, qd, qdd, t)
        assert loop_residuals(chain, motion.q, motion.qd, motion.qdd).max() < 1e-10
        dyn = closed_chain_dynamics(chain, motion, g)
        assert power_balance(chain, dyn, g) < 1e-10 and link_equilibrium(chain, dyn, g).max() < 1e-10
        out[slide] = (chain, motion, dyn)
    (c1, _, d1), (_, _, d2) = out[False], out[True]
    k = c1.tree.link_names.index("piston")
    kin1, kin2 = d1.kinematics, d2.kinematics
    np.testing.assert_allclose(kin2.T_world_link[:, k], kin1.T_world_link[:, k], atol=1e-12)
    np.testing.assert_allclose(kin2.a_origin[:, k], kin1.a_origin[:, k], atol=1e-10)
    np.testing.assert_allclose(kin2.alpha[:, k], kin1.alpha[:, k], atol=1e-10)
    np.testing.assert_allclose(d2.tau, d1.tau, rtol=1e-10, atol=1e-10 * np.abs(d1.tau).max())
    # the same two physical joints under different names: the rod pin and the slide (piston axes both)
    for a, b in (("rod_pin", "chi"), ("d", "slide")):
        i, j = d1.joint_names.index(a), d2.joint_names.index(b)
        known = ~(d1.undetermined[i] | d2.undetermined[j])
        assert known.sum() == 3  # in-plane force and the pin-axis moment
        np.testing.assert_allclose(d2.joint_wrenches[:, j, known], d1.joint_wrenches[:, i, known], rtol=1e-9,
                                   atol=1e-9 * np.abs(d1.joint_wrenches[:, i]).max())


# ---------------------------------------------------------------------- paper 001: arm with two cylinders
# Paper 001 (Chu Anh My & Vu Minh Hoan 2019) gives the mechanism, its constraint equations (4)-(7) and the
# inputs, but its dimensions and masses only in figures that the text does not carry: the values below are
# ASSUMED (chosen so that the paper's inputs over 0-10 s keep both loops clear of singular poses).
P1 = dict(l1=0.8, l11=0.2, l22=0.3, l3=0.336, l4=0.3, l2=1.0, l21=0.45, l51=0.25, l5=0.8, l6=0.35, l7=0.35)


def paper001_arm(payload_mass=10.0, m_cyl=(6.0, 3.0, 5.0, 2.0), independent=("theta1", "d4", "d7")):
    """Paper 001 Fig. 1: turret (theta1), boom (theta2, pin B at height l1), cylinder 1 from A (l11 below B)
    to C on the boom (l22 from B): barrel (theta3) + rod (d4); forearm (theta5) at F (l2 from B); cylinder 2
    from K on the boom (l21 before F) to G on the forearm (l51 from F): barrel (theta6) + rod (d7).
    Loops cut at C and G, as the paper does."""
    p = P1
    l23 = p["l2"] - p["l21"]
    links = [Link("ground"), Link("turret", 40.0, (0, 0, 0.4), np.diag([2.0, 2.0, 1.0])),
             Link("boom", **rod(25.0, p["l2"])), Link("barrel1", **rod(m_cyl[0], p["l3"])),
             Link("rod1", **rod(m_cyl[1], p["l4"], at=-0.5)), Link("forearm", **rod(15.0, p["l5"])),
             Link("barrel2", **rod(m_cyl[2], p["l6"])), Link("rod2", **rod(m_cyl[3], p["l7"], at=-0.5))]
    x = np.array([1.0, 0, 0])
    joints = [rev("theta1", "ground", "turret", axis=np.array([0, 0, 1.0])),
              rev("theta2", "turret", "boom", trans(z=p["l1"]), home=0.5),
              rev("theta3", "turret", "barrel1", trans(z=p["l1"] - p["l11"]), home=0.9),
              Joint("d4", "prismatic", "barrel1", "rod1", trans(x=p["l3"]), x, 0.0, 0.3, home=0.1),
              rev("theta5", "boom", "forearm", trans(x=p["l2"]), home=1.8),
              rev("theta6", "boom", "barrel2", trans(x=l23), home=0.55),
              Joint("d7", "prismatic", "barrel2", "rod2", trans(x=p["l6"]), x, 0.0, 0.4, home=0.1)]
    tree = Robot(links, joints, points={"E": ("forearm", (p["l5"], 0, 0))}, name="paper001")
    cuts = [CutJoint("C", "revolute", "boom", "rod1", trans(x=p["l22"]), np.eye(4), Y),
            CutJoint("G", "revolute", "forearm", "rod2", trans(x=p["l51"]), np.eye(4), Y)]
    return ClosedChain(tree, cuts, list(independent), name="paper001"), {"E": payload_mass} if payload_mass else None


def paper001_inputs(t):
    """Paper 001 section 2.2: theta1 = pi/18 t, d4 = 0.1 + 0.005 t, d7 = 0.1 + 0.02 t (rad, m)."""
    t = np.asarray(t, complex if np.iscomplexobj(t) else float)
    return np.column_stack([np.pi / 18 * t, 0.1 + 0.005 * t, 0.1 + 0.02 * t])


def paper001_dependent(t):
    """theta2, theta3, theta5, theta6 from the paper's eqs. (5) and (7) (works on complex t)."""
    p = P1
    _, d4, d7 = paper001_inputs(t).T
    L1, L2 = p["l3"] + d4, p["l6"] + d7
    th3 = np.arcsin((L1 ** 2 + p["l11"] ** 2 - p["l22"] ** 2) / (2 * L1 * p["l11"]))
    th2 = np.arcsin((L1 ** 2 - p["l11"] ** 2 - p["l22"] ** 2) / (2 * p["l11"] * p["l22"]))
    th5 = np.arccos((L2 ** 2 - p["l51"] ** 2 - p["l21"] ** 2) / (2 * p["l51"] * p["l21"]))
    th6 = np.arccos((L2 ** 2 - p["l51"] ** 2 + p["l21"] ** 2) / (2 * p["l21"] * L2))
    return np.column_stack([th2, th3, th5, th6])


def test_paper001_kinematics_against_its_closed_forms():
    t = np.linspace(0.0, 10.0, 501)
    chain, _ = paper001_arm()
    u = paper001_inputs(t)
    motion = closed_chain_motion(chain, u, np.tile([np.pi / 18, 0.005, 0.02], (len(t), 1)), np.zeros_like(u), t)
    cols = [chain.coordinate_names.index(n) for n in ("theta2", "theta3", "theta5", "theta6")]
    np.testing.assert_allclose(motion.q[:, cols], paper001_dependent(t), atol=1e-12)
    # rates: complex-step derivative of eqs. (5), (7); accelerations: central differences of those rates
    h = 1e-20
    rate = lambda tt: paper001_dependent(tt + 1j * h).imag / h  # noqa: E731
    np.testing.assert_allclose(motion.qd[:, cols], rate(t), rtol=1e-12, atol=1e-13)
    ht = 1e-4
    np.testing.assert_allclose(motion.qdd[:, cols], (rate(t + ht) - rate(t - ht)) / (2 * ht), rtol=1e-6, atol=1e-8)
    # end effector E from the paper's eq. (1)
    th1, th2, th5 = u[:, 0], motion.q[:, cols[0]], motion.q[:, cols[2]]
    reach = P1["l5"] * np.cos(th2 + th5) + P1["l2"] * np.cos(th2)
    E = np.column_stack([np.cos(th1) * reach, np.sin(th1) * reach,
                         P1["l5"] * np.sin(th2 + th5) + P1["l2"] * np.sin(th2) + P1["l1"]])
    T = forward_kinematics(chain.tree, motion.q)[:, chain.tree.link_names.index("forearm")]
    np.testing.assert_allclose(T[:, :3, :3] @ [P1["l5"], 0, 0] + T[:, :3, 3], E, atol=1e-12)
    assert loop_residuals(chain, motion.q, motion.qd, motion.qdd).max() < 1e-10


def test_paper001_static_cylinder_forces_hand_statics():
    """Massless cylinders are two-force members. Forearm + payload about F: F7 (G - F) x u7 = sum m g (x - x_F);
    boom + forearm + payload about B: F4 (C - B) x u4 = sum m g (x - x_B) (x horizontal in the arm plane)."""
    g, mp = 9.81, 10.0
    chain, payload = paper001_arm(mp, m_cyl=(0, 0, 0, 0))
    t = np.array([0.0, 3.0, 7.0, 10.0])
    u = paper001_inputs(t)
    motion = closed_chain_motion(chain, u, np.zeros_like(u), np.zeros_like(u))
    dyn = closed_chain_dynamics(chain, motion, (0, 0, -g), payloads=payload)
    p = P1
    th2, th3, th5, th6 = paper001_dependent(t).T
    _, d4, d7 = u.T
    cross = lambda a, b: a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]  # noqa: E731  (x, z) plane, moment about -y
    dirn = lambda a: np.column_stack([np.cos(a), np.sin(a)])  # noqa: E731
    B = np.array([0.0, p["l1"]])
    F = B + p["l2"] * dirn(th2)
    u5 = dirn(th2 + th5)
    x_fore, x_pay = F[:, 0] + p["l5"] / 2 * u5[:, 0], F[:, 0] + p["l5"] * u5[:, 0]
    G = F + p["l51"] * u5
    F7 = g * (15.0 * (x_fore - F[:, 0]) + mp * (x_pay - F[:, 0])) / cross(G - F, dirn(th2 + th6))
    x_boom = p["l2"] / 2 * np.cos(th2)
    C = B + p["l22"] * dirn(th2)
    F4 = g * (25.0 * x_boom + 15.0 * x_fore + mp * x_pay) / cross(C - B, dirn(th3))
    np.testing.assert_allclose(dyn.tau[:, 1], F4, rtol=1e-10)
    np.testing.assert_allclose(dyn.tau[:, 2], F7, rtol=1e-10)
    assert np.abs(dyn.tau[:, 0]).max() < 1e-9  # gravity has no moment about the vertical turret axis
    # (A two-force check of the cylinder lengths: eqs. (5), (7) were derived from |C - A| = l3 + d4.)
    np.testing.assert_allclose(np.linalg.norm(C - [0, p["l1"] - p["l11"]], axis=1), p["l3"] + d4, rtol=1e-12)


# ---------------------------------------------------------------------- d'Alembert with finite differences
def _vee(A):
    return 0.5 * np.stack([A[..., 2, 1] - A[..., 1, 2], A[..., 0, 2] - A[..., 2, 0], A[..., 1, 0] - A[..., 0, 1]],
                          axis=-1)


def virtual_work_forces(chain, law, t, gravity, payloads=None, h=2e-3, dq=1e-5):
    """Actuator forces (n_t, n_dof) from d'Alembert's principle on the constrained system, with nothing but
    solved positions: link accelerations from 5-point differences in time, partial velocities from central
    differences in the independent coordinates. (actuated = independent.)"""
    tree = chain.tree
    masses = [ln.mass for ln in tree.links]
    coms = [np.asarray(ln.com, float) for ln in tree.links]
    inertias = [np.asarray(ln.inertia, float) for ln in tree.links]
    for pname, m in (payloads or {}).items():  # a point payload: a point mass on its link
        lname, xyz = tree.points[pname]
        i = tree.link_names.index(lname)
        mt = masses[i] + m
        c = (masses[i] * coms[i] + m * xyz) / mt
        dc, dp = coms[i] - c, xyz - c
        inertias[i] = (inertias[i] + masses[i] * (dc @ dc * np.eye(3) - np.outer(dc, dc))
                       + m * (dp @ dp * np.eye(3) - np.outer(dp, dp)))
        masses[i], coms[i] = mt, c
    mass, com, inertia = np.array(masses), np.array(coms), np.array(inertias)

    def pose(q_ind):
        T = forward_kinematics(tree, solve_positions(chain, q_ind))
        R = T[..., :3, :3]
        return R, T[..., :3, 3] + np.einsum("tlij,lj->tli", R, com)

    n, k = len(t), np.arange(-4, 5)
    R, c = pose(law((t[:, None] + h * k).ravel()))
    R, c = R.reshape(n, 9, *R.shape[1:]), c.reshape(n, 9, *c.shape[1:])
    d1 = lambda f, i: (f[:, i - 2] - 8 * f[:, i - 1] + 8 * f[:, i + 1] - f[:, i + 2]) / (12 * h)  # noqa: E731
    a_c = (-c[:, 2] + 16 * c[:, 3] - 30 * c[:, 4] + 16 * c[:, 5] - c[:, 6]) / (12 * h ** 2)
    w = np.stack([_vee(d1(R, i) @ np.swapaxes(R[:, i], -1, -2)) for i in range(2, 7)], axis=1)
    omega = w[:, 2]
    alpha = (w[:, 0] - 8 * w[:, 1] + 8 * w[:, 3] - w[:, 4]) / (12 * h)
    R0 = R[:, 4]
    Iw = np.einsum("tlij,ljk,tlmk->tlim", R0, inertia, R0)
    moment = np.einsum("tlij,tlj->tli", Iw, alpha) + np.cross(omega, np.einsum("tlij,tlj->tli", Iw, omega))
    force = mass[None, :, None] * (a_c - np.asarray(gravity, float))
    tau = np.zeros((n, chain.n_dof))
    for i in range(chain.n_dof):
        e = np.zeros(chain.n_dof)
        e[i] = dq
        Rp, cp = pose(law(t) + e)
        Rm, cm = pose(law(t) - e)
        dc = (cp - cm) / (2 * dq)
        dth = _vee(Rp @ np.swapaxes(Rm, -1, -2)) / (2 * dq)
        tau[:, i] = np.sum(force * dc, axis=(1, 2)) + np.sum(moment * dth, axis=(1, 2))
    return tau


def test_paper001_dynamics_virtual_work_and_power():
    """Paper 001's inputs through the assumed arm with massive cylinders and a 10 kg payload at E."""
    g = (0.0, 0.0, -9.81)
    chain, payload = paper001_arm()
    t = np.linspace(0.0, 10.0, 201)
    u = paper001_inputs(t)
    ud = np.tile([np.pi / 18, 0.005, 0.02], (len(t), 1))
    motion = closed_chain_motion(chain, u, ud, np.zeros_like(u), t)
    dyn = closed_chain_dynamics(chain, motion, g, payloads=payload)
    ts = t[::40]
    ref = virtual_work_forces(chain, paper001_inputs, ts, g, payload)
    scale = np.abs(ref).max(axis=0)  # per actuator: the turret torque is small next to the cylinder forces
    np.testing.assert_allclose(dyn.tau[::40] / scale, ref / scale, atol=2e-6)
    assert power_balance(chain, dyn, g) < 1e-10
    assert link_equilibrium(chain, dyn, g).max() < 1e-10
    assert (dyn.constraint_rank, dyn.redundant) == (4, 6)
    k = {n: i for i, n in enumerate(dyn.joint_names)}
    assert not dyn.undetermined[k["theta1"]].any()
    # the cylinders are actuated along their axes: the prismatic joints' axial force is the actuator force
    np.testing.assert_allclose(dyn.joint_wrenches[:, k["d4"], 0], dyn.tau[:, 1], rtol=1e-12)
    np.testing.assert_allclose(dyn.joint_wrenches[:, k["d7"], 0], dyn.tau[:, 2], rtol=1e-12)


# ---------------------------------------------------------------------- paper 000: PR1300-type palletizer
R_DRIVE, L_BIG, L_FORE = 0.35, 1.22, 1.30
SHOULDER = np.array([0.2, 0.0, 0.6])
HOLD1, HOLD2 = np.array([-0.2, 0.0, 0.05]), np.array([0.0, 0.0, 0.25])


def pr1300_like():
    """Paper 000's PR1300 type (dimensions from its Table 2: big arm 1220 mm, forearm 1300 mm, drive linkage
    1220 mm, holding links 1220 and 1300 mm; the 350 mm drive-arm length, the pin offsets and all masses are
    ASSUMED). Three parallelograms: the forearm drive (drive arm coaxial with the big arm, theta2', linkage
    parallel to the big arm to the forearm's rear lever), the levelling plate at the elbow (holding link 1
    parallel to the big arm) and the wrist (holding link 2 parallel to the forearm)."""
    links = [Link("base"), Link("turret", 120.0, (0.0, 0.0, 0.3), np.diag([6.0, 6.0, 4.0])),
             Link("bigarm", **rod(40.0, L_BIG)), Link("drivearm", **rod(15.0, R_DRIVE)),
             Link("forearm", **{**rod(45.0, L_FORE), "com": (0.45, 0.0, 0.02)}),
             Link("linkage", **rod(12.0, L_BIG)), Link("plate", 8.0, (0.0, 0.0, 0.1), np.diag([0.1, 0.1, 0.1])),
             Link("hold1", **rod(6.0, L_BIG)), Link("wrist", 10.0, (0.1, 0.0, -0.15), np.diag([0.2, 0.3, 0.2])),
             Link("hold2", **rod(6.0, L_FORE))]
    joints = [rev("theta1", "base", "turret", axis=np.array([0, 0, 1.0])),
              rev("theta2", "turret", "bigarm", trans(*SHOULDER), home=1.2),
              rev("theta2p", "turret", "drivearm", trans(*SHOULDER), home=3.04),
              rev("theta3", "bigarm", "forearm", trans(x=L_BIG), home=-1.3),
              rev("theta3p", "drivearm", "linkage", trans(x=R_DRIVE), home=-1.84),
              rev("plate", "bigarm", "plate", trans(x=L_BIG), home=-1.2),
              rev("hold1", "turret", "hold1", trans(*(SHOULDER + HOLD1)), home=1.2),
              rev("wrist", "forearm", "wrist", trans(x=L_FORE), home=0.1),
              rev("hold2", "plate", "hold2", trans(*HOLD2), home=-0.1)]
    tree = Robot(links, joints, points={"tool": ("wrist", (0.25, 0.0, -0.3))}, name="pr1300_like")
    cuts = [CutJoint("rear_pin", "revolute", "linkage", "forearm", trans(x=L_BIG), trans(x=-R_DRIVE), Y),
            CutJoint("plate_pin", "revolute", "hold1", "plate", trans(x=L_BIG), trans(*HOLD1), Y),
            CutJoint("wrist_pin", "revolute", "hold2", "wrist", trans(x=L_FORE), trans(*HOLD2), Y)]
    return ClosedChain(tree, cuts, ["theta1", "theta2", "theta2p"], name="pr1300_like")


PR1300_LAW = dict(mean=np.array([0.0, 1.2, 3.04]), amp=np.array([0.3, 0.3, 0.4]), w=np.array([1.1, 0.9, 1.3]),
                  phase=np.array([0.0, 0.2, 0.0]))  # theta1, theta2, theta2' [rad]


def pr1300_law(t):
    return smooth(t, **PR1300_LAW)[0]


def test_pr1300_two_parallelogram_drives_and_levelling():
    """Paper 000 eq. (23): theta3' = theta2 - theta2', theta3 = theta2' - theta2 (+ the rear lever's pi here);
    the levelling loops keep the plate and the wrist at fixed orientation (paper 000: 'the end effector is
    always level'); actuator torques against d'Alembert with finite differences; power balance."""
    chain = pr1300_like()
    t = np.linspace(0.0, 3.0, 301)
    q, qd, qdd = smooth(t, **PR1300_LAW)
    motion = closed_chain_motion(chain, q, qd, qdd, t)
    col = {n: i for i, n in enumerate(chain.coordinate_names)}
    th2, th2p = q[:, 1], q[:, 2]
    Q = motion.q
    np.testing.assert_allclose(Q[:, col["theta3p"]], th2 - th2p, atol=1e-12)
    np.testing.assert_allclose(Q[:, col["theta3"]], th2p - th2 - np.pi, atol=1e-12)
    np.testing.assert_allclose(Q[:, col["plate"]], -th2, atol=1e-12)
    np.testing.assert_allclose(Q[:, col["hold1"]], th2, atol=1e-12)
    np.testing.assert_allclose(Q[:, col["wrist"]], -(th2p - np.pi), atol=1e-12)
    np.testing.assert_allclose(Q[:, col["hold2"]], th2p - np.pi, atol=1e-12)
    # eq. (24) at the rate level
    np.testing.assert_allclose(motion.qd[:, col["theta3p"]], qd[:, 1] - qd[:, 2], atol=1e-11)
    np.testing.assert_allclose(motion.qdd[:, col["theta3"]], qdd[:, 2] - qdd[:, 1], atol=1e-10)
    assert loop_residuals(chain, Q, motion.qd, motion.qdd).max() < 1e-10
    g = (0.0, 0.0, -9.81)
    payload = {"tool": 20.0}
    dyn = closed_chain_dynamics(chain, motion, g, payloads=payload)
    ts = t[::75]
    ref = virtual_work_forces(chain, pr1300_law, ts, g, payload)
    np.testing.assert_allclose(dyn.tau[::75], ref, atol=2e-6 * np.abs(ref).max(), rtol=0)
    assert power_balance(chain, dyn, g) < 1e-10
    assert link_equilibrium(chain, dyn, g).max() < 1e-10
    # 3 planar loops: 15 rows, rank 6. The turret bearing is determinate; every other joint belongs to a loop
    # and has its out-of-plane force (y) and in-plane moments (x, z) undetermined, in-plane loads determinate
    assert (dyn.constraint_rank, dyn.redundant) == (6, 9)
    assert not dyn.undetermined[0].any()
    np.testing.assert_array_equal(dyn.undetermined[1:], np.tile([False, True, False, True, False, True], (11, 1)))
    passive = [i for i, n in enumerate(dyn.joint_names) if n not in chain.actuated]
    assert np.abs(dyn.joint_wrenches[:, passive, 4]).max() < 1e-9 * np.abs(dyn.tau).max()


# ---------------------------------------------------------------------- bad input
def test_loop_that_does_not_close_names_loop_residual_and_time():
    links = [Link("ground"), Link("crank", 1.0, (0.2, 0, 0)), Link("coupler", 1.0), Link("rocker", 1.0)]
    z = np.array([0, 0, 1.0])
    joints = [rev("j1", "ground", "crank", axis=z), rev("j2", "crank", "coupler", trans(x=0.5), axis=z),
              rev("j3", "ground", "rocker", trans(x=3.0), axis=z)]
    cut = CutJoint("far_pin", "revolute", "rocker", "coupler", trans(x=0.5), trans(x=1.0), axis=z)
    chain = ClosedChain(Robot(links, joints), [cut], ["j1"])
    with pytest.raises(InputError, match=r"loop 'far_pin'.*does not close at the start \(t = 0.5 s\): "
                                         r"residual [0-9.]+ m"):
        solve_positions(chain, [[0.3], [0.4]], t=[0.5, 0.6])


def test_motion_beyond_reach_names_the_time():
    """A non-Grashof four-bar (ground 1.0, crank 0.6, coupler 0.5, rocker 0.5): the crank cannot turn past
    the angle where crank tip and rocker pivot are 1.0 apart (law of cosines: cos = (0.36 + 1 - 1)/1.2)."""
    links = [Link("ground"), Link("crank", 1.0, (0.2, 0, 0)), Link("coupler", 1.0), Link("rocker", 1.0)]
    z = np.array([0, 0, 1.0])
    joints = [rev("j1", "ground", "crank", axis=z, home=0.3),
              rev("j2", "crank", "coupler", trans(x=0.6), axis=z, home=0.4),
              rev("j3", "ground", "rocker", trans(x=1.0), axis=z, home=1.66)]
    cut = CutJoint("pin", "revolute", "rocker", "coupler", trans(x=0.5), trans(x=0.5), axis=z)
    chain = ClosedChain(Robot(links, joints), [cut], ["j1"])
    t = np.linspace(0.0, 1.0, 101)
    limit = math.acos(0.36 / 1.2)
    with pytest.raises(InputError, match=r"loop 'pin'.*cannot be closed at t = ([0-9.]+) s: residual") as err:
        solve_positions(chain, (0.3 + 1.5 * t)[:, None], t)
    when = float(str(err.value).split("t = ")[1].split(" s")[0])
    assert (limit - 0.3) / 1.5 - 0.02 < when <= (limit - 0.3) / 1.5 + 0.02


def test_bad_names_and_counts():
    chain = parallelogram()
    tree, cut = chain.tree, chain.cuts[0]
    with pytest.raises(InputError, match=r"cut joint 'pin' names unknown link 'rockr'.*'rocker'"):
        ClosedChain(tree, [CutJoint("pin", "revolute", "rockr", "coupler")], ["j1"])
    with pytest.raises(InputError, match=r"independent coordinate 'j9' is not a movable tree coordinate.*'j1'"):
        ClosedChain(tree, [cut], ["j9"])
    with pytest.raises(InputError, match=r"cut joint name 'j2' is already used"):
        ClosedChain(tree, [CutJoint("j2", "revolute", "rocker", "coupler")], ["j1"])
    with pytest.raises(InputError, match=r"unsupported type 'universal'"):
        ClosedChain(tree, [CutJoint("u", "universal", "rocker", "coupler")], ["j1"])
    with pytest.raises(InputError, match=r"2 actuated coordinates .* for 1 independent"):
        ClosedChain(tree, [cut], ["j1"], actuated=["j1", "j3"])
    with pytest.raises(InputError, match=r"mimic joint follows its source"):
        ClosedChain(turret_parallelogram(mimic=True), [cut], ["elbow"])
    two = ClosedChain(tree, [cut], ["j1", "j3"])
    with pytest.raises(InputError, match=r"has 1 degree\(s\) of freedom .* but 2 independent coordinates "
                                         r"\['j1', 'j3'\] were given; give 1"):
        solve_positions(two, [[0.5, 0.5]])
    with pytest.raises(InputError, match=r"q_ind must have shape \(n_samples, 1\) for the independent "
                                         r"coordinates \['j1'\], got \(4, 2\)"):
        solve_positions(chain, np.zeros((4, 2)))
    arm, _ = paper001_arm(independent=("theta1", "d4", "theta2"))
    with pytest.raises(InputError, match=r"do not determine the dependent ones"):
        solve_positions(arm, [[0.0, 0.1, 0.5]])
