"""Link kinematics, joint torques, joint wrenches and a point Jacobian of the general 7-joint robot (skewed axes,
offsets, full inertia tensors, a prismatic joint, a continuous joint, a fixed tool link, a point mass) against
references built here from forward-kinematics poses only: central finite differences in time of the poses along
a smooth analytic trajectory, and central finite differences in q for the Jacobians. The poses come from a
product of joint transforms written here (scipy rotations), checked against the package's forward kinematics.

Nothing below uses the package's velocity/acceleration recursion, Jacobian or inertia bookkeeping.
4th-order stencils: first derivative error h^4 f^(5) / 30 plus round-off ~ eps |f| / h, second derivative
h^4 f^(6) / 90 plus ~ 5 eps |f| / h^2; with h = 2e-3 s and frequencies <= 3 rad/s both stay below ~1e-9 of the
signal, so a relative tolerance of 1e-7 tests the recursion while leaving the differences room.
"""
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from helpers import general_robot

G = np.array([0.3, -1.0, -9.81])
H_T = 2e-3  # time step of the stencils [s]
H_Q = 1e-4  # joint step of the Jacobian stencils [rad, m]
D1 = np.array([1.0, -8.0, 0.0, 8.0, -1.0]) / 12.0  # 4th-order first derivative at offsets -2..2 (times 1/h)
D2 = np.array([-1.0, 16.0, -30.0, 16.0, -1.0]) / 12.0  # 4th-order second derivative (times 1/h^2)


def trajectory(n_dof, t):
    """q(t) = c0 + c1 t + c2 t^2 + A sin(w t + phi) per joint (fixed seed), with its exact rates."""
    r = np.random.default_rng(7)
    c0, c1, c2 = r.uniform(-0.5, 0.5, n_dof), r.uniform(-0.6, 0.6, n_dof), r.uniform(-0.4, 0.4, n_dof)
    A, w, ph = r.uniform(0.2, 0.8, n_dof), r.uniform(0.5, 3.0, n_dof), r.uniform(0, 6, n_dof)
    arg = np.outer(t, w) + ph
    q = c0 + c1 * t[:, None] + c2 * t[:, None] ** 2 + A * np.sin(arg)
    qd = c1 + 2 * c2 * t[:, None] + A * w * np.cos(arg)
    qdd = 2 * c2 - A * w ** 2 * np.sin(arg)
    return q, qd, qdd


def fk(robot, q):
    """T_world_link (n, n_links, 4, 4): product of joint transforms origin @ M(q) along the tree (no mimics)."""
    q = np.atleast_2d(q)
    n, nl = len(q), len(robot.links)
    idx = {name: k for k, name in enumerate(robot.link_names)}
    col = {name: k for k, name in enumerate(robot.dof_names)}
    T = np.zeros((n, nl, 4, 4))
    T[:, idx[robot.base]] = np.eye(4)
    done, pending = {robot.base}, list(robot.joints)
    while pending:
        j = next(j for j in pending if j.parent in done)
        pending.remove(j)
        M = np.broadcast_to(np.eye(4), (n, 4, 4)).copy()
        axis = np.asarray(j.axis) / np.linalg.norm(j.axis)
        if j.type in ("revolute", "continuous"):
            M[:, :3, :3] = Rotation.from_rotvec(q[:, col[j.name], None] * axis).as_matrix()
        elif j.type == "prismatic":
            M[:, :3, 3] = q[:, col[j.name], None] * axis
        T[:, idx[j.child]] = T[:, idx[j.parent]] @ j.origin @ M
        done.add(j.child)
    return T


def vee(S):
    """Axial vector of the skew part of S (..., 3, 3)."""
    return 0.5 * np.stack([S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0], S[..., 1, 0] - S[..., 0, 1]], -1)


def time_derivatives(robot, t):
    """From poses at t + m h (m = -2..2): R, p (n, nl, 3, 3), (n, nl, 3) and the world angular velocity w,
    angular acceleration alpha, and R_dot, p_dot, p_ddot of every link frame."""
    n_dof = robot.n_dof
    Ts = np.stack([fk(robot, trajectory(n_dof, t + m * H_T)[0]) for m in range(-2, 3)])  # (5, n, nl, 4, 4)
    R, p = Ts[2, ..., :3, :3], Ts[2, ..., :3, 3]
    Rd = np.tensordot(D1, Ts[..., :3, :3], axes=1) / H_T
    Rdd = np.tensordot(D2, Ts[..., :3, :3], axes=1) / H_T ** 2
    Rt = np.swapaxes(R, -1, -2)
    w = vee(Rd @ Rt)  # R_dot R^T = [w]x
    alpha = vee(Rdd @ Rt)  # R_ddot R^T = [alpha]x + [w]x^2, the second term symmetric
    pd = np.tensordot(D1, Ts[..., :3, 3], axes=1) / H_T
    pdd = np.tensordot(D2, Ts[..., :3, 3], axes=1) / H_T ** 2
    return dict(R=R, p=p, w=w, alpha=alpha, Rd=Rd, Rdd=Rdd, pd=pd, pdd=pdd)


def point_motion(d, link, xyz):
    """World position, velocity and acceleration (n, 3) of a point fixed in a link, from the differenced poses."""
    x = np.asarray(xyz, float)
    return (d["p"][:, link] + d["R"][:, link] @ x, d["pd"][:, link] + d["Rd"][:, link] @ x,
            d["pdd"][:, link] + d["Rdd"][:, link] @ x)


def q_jacobians(robot, q, link, xyz):
    """d(point)/dq (n, 3, n_dof) and the angular Jacobian vee(dR/dq R^T) (n, 3, n_dof), world axes, by central
    4th-order differences of the poses in each joint coordinate."""
    n, n_dof = q.shape
    steps = np.array([-2, -1, 1, 2])
    Q = q[:, None, None, :] + H_Q * steps[None, None, :, None] * np.eye(n_dof)[None, :, None, :]  # (n, k, m, dof)
    T = fk(robot, Q.reshape(-1, n_dof))[:, link].reshape(n, n_dof, 4, 4, 4)
    c = D1[[0, 1, 3, 4]] / H_Q
    dT = np.einsum("m,nkmij->nkij", c, T)  # (n, dof, 4, 4)
    R0 = fk(robot, q)[:, link, :3, :3]
    Jv = dT[..., :3, :3] @ np.asarray(xyz, float) + dT[..., :3, 3]  # (n, dof, 3)
    Jw = vee(dT[..., :3, :3] @ np.swapaxes(R0, -1, -2)[:, None])
    return np.swapaxes(Jv, 1, 2), np.swapaxes(Jw, 1, 2)


def bodies(robot):
    """Every rigid body as (link index, mass, COM in link axes, inertia about the COM in link axes): each link
    and, separately, each of its point masses (a particle)."""
    out = []
    for i, ln in enumerate(robot.links):
        if ln.mass > 0:
            out.append((i, ln.mass, np.asarray(ln.com, float), np.asarray(ln.inertia, float)))
        for pm in ln.point_masses:
            out.append((i, pm.mass, np.asarray(pm.position, float), np.zeros((3, 3))))
    return out


@pytest.fixture(scope="module")
def case():
    robot = general_robot(np.random.default_rng(0))
    assert [j.type for j in robot.joints] == ["revolute", "revolute", "prismatic", "revolute", "continuous",
                                              "revolute", "fixed"]
    t = np.linspace(0.0, 2.0, 9)
    q, qd, qdd = trajectory(robot.n_dof, t)
    return robot, t, q, qd, qdd, time_derivatives(robot, t)


def rel_err(x, ref):
    return np.abs(x - ref).max() / np.abs(ref).max()


def test_own_poses_equal_package_forward_kinematics(case):
    robot, t, q, *_ = case
    np.testing.assert_allclose(robot.forward_kinematics(q), fk(robot, q), rtol=0, atol=1e-14)


def test_link_velocities_and_accelerations_against_differenced_poses(case):
    """omega, alpha, origin velocity and acceleration of every link, in link axes."""
    robot, t, q, qd, qdd, d = case
    kin = robot.kinematics(q, qd, qdd)
    Rt = np.swapaxes(d["R"], -1, -2)
    ref = {"omega": Rt @ d["w"][..., None], "alpha": Rt @ d["alpha"][..., None],
           "v_origin": Rt @ d["pd"][..., None], "a_origin": Rt @ d["pdd"][..., None]}
    for name, r in ref.items():
        r = r[..., 0][:, 1:]  # the base is at rest
        got = getattr(kin, name)[:, 1:]
        assert np.abs(r).max() > 0.5, name  # a motion, not zeros compared with zeros
        assert rel_err(got, r) < 1e-7, (name, rel_err(got, r))
    # and each link on its own (a slow link next to a fast one must not hide), relative to its own motion
    # (at least 1 % of the fastest link's: link 1's origin stays on the base's first axis)
    for name, r in ref.items():
        r = r[..., 0]
        floor = 0.01 * np.abs(r).max()
        for link in range(1, len(robot.links)):
            err = np.abs(getattr(kin, name)[:, link] - r[:, link]).max()
            assert err < 1e-7 * max(np.abs(r[:, link]).max(), floor), (name, link)


def test_point_jacobian_against_differenced_poses(case):
    robot, t, q, *_ = case
    link, xyz = robot.points["tool"]
    li = robot.link_names.index(link)
    Jv, Jw = q_jacobians(robot, q, li, xyz)
    J = robot.jacobian(q, "tool")
    assert rel_err(J[:, :3], Jv) < 1e-8 and rel_err(J[:, 3:], Jw) < 1e-8
    # the prismatic joint moves the point without turning it
    k = robot.dof_names.index("j2")
    assert np.abs(Jw[:, :, k]).max() < 1e-9 and np.abs(Jv[:, :, k]).max() > 0.5


def test_torques_and_wrenches_against_jacobian_and_newton_euler_formulation(case):
    """tau = sum_b [Jv_b^T m_b (a_b - g) + Jw_b^T (I_b alpha_b + w_b x I_b w_b)] - Jv_tool^T F over the bodies b,
    with accelerations from the differenced poses and Jacobians from poses differenced in q. The joint wrenches
    (world axes, about each joint origin) are the Newton-Euler sums over the links beyond the joint, from the same
    differenced accelerations: F_k = sum_b m_b (a_b - g) - F_ext, M_k = sum_b [I_b alpha_b + w_b x I_b w_b +
    (c_b - o_k) x m_b (a_b - g)] - (x_tool - o_k) x F_ext."""
    robot, t, q, qd, qdd, d = case
    F = np.column_stack([30 * np.sin(3 * t), 20 * np.cos(2 * t), 50 + 10 * t])
    dyn = robot.inverse_dynamics(q, qd, qdd, gravity=G, point_forces={"tool": F})
    n = len(t)
    tau = np.zeros((n, robot.n_dof))
    per_link = {}  # link -> [(force (n, 3), moment about the world origin (n, 3))]
    for li, m, c, I in bodies(robot):
        x, _, a = point_motion(d, li, c)
        R = d["R"][:, li]
        I_w = R @ I @ np.swapaxes(R, -1, -2)
        w, al = d["w"][:, li], d["alpha"][:, li]
        f = m * (a - G)
        mom = np.einsum("nij,nj->ni", I_w, al) + np.cross(w, np.einsum("nij,nj->ni", I_w, w))
        Jv, Jw = q_jacobians(robot, q, li, c)
        tau += np.einsum("nik,ni->nk", Jv, f) + np.einsum("nik,ni->nk", Jw, mom)
        per_link.setdefault(li, []).append((f, mom + np.cross(x, f)))
    tl, txyz = robot.points["tool"]
    ti = robot.link_names.index(tl)
    x_tool = point_motion(d, ti, txyz)[0]
    tau -= np.einsum("nik,ni->nk", q_jacobians(robot, q, ti, txyz)[0], F)
    per_link.setdefault(ti, []).append((-F, -np.cross(x_tool, F)))
    assert rel_err(dyn.tau, tau) < 1e-7, rel_err(dyn.tau, tau)
    # joint wrenches: everything beyond joint k, moved to its origin o_k (the child frame's origin)
    children = {}
    for j in robot.joints:
        children.setdefault(j.parent, []).append(j.child)

    def subtree(link):
        return [link] + [x for ch in children.get(link, []) for x in subtree(ch)]

    for k, j in enumerate(robot.joints):
        ci = robot.link_names.index(j.child)
        o = d["p"][:, ci]
        terms = [ft for name in subtree(j.child) for ft in per_link.get(robot.link_names.index(name), [])]
        f = sum(ft[0] for ft in terms)
        mom = sum(ft[1] for ft in terms) - np.cross(o, f)
        ref = np.concatenate([f, mom], axis=1)
        assert rel_err(dyn.joint_wrenches_world[:, k], ref) < 1e-7, (j.name, rel_err(dyn.joint_wrenches_world[:, k],
                                                                                     ref))


def test_references_detect_a_wrong_trajectory(case):
    """The references are not identities of the recursion: fed the right q with rates of another trajectory,
    the package's results leave them far behind (unlike the power balance and link equilibrium checks)."""
    robot, t, q, qd, qdd, d = case
    kin = robot.kinematics(q, 1.01 * qd, qdd)
    Rt = np.swapaxes(d["R"], -1, -2)
    assert rel_err(kin.omega[:, 1:], (Rt @ d["w"][..., None])[..., 0][:, 1:]) > 1e-3
    kin = robot.kinematics(q, qd, qdd + 0.01)
    assert rel_err(kin.a_origin[:, 1:], (Rt @ d["pdd"][..., None])[..., 0][:, 1:]) > 1e-4
