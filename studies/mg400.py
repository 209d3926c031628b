"""Paper 002 (Zhang, Li, Zhang 2023, Simscape Multibody): the DOBOT MG400 palletizing cycle, rigid-body to FE.

Mechanism: the MG400's ten moving parts (Table 1 frames, Table 5 joint transforms) as a spanning tree plus three
cut joints closing its three parallelograms (levelling L1-L2-L2b-L2a, J3 drive L1-L31-L32-L33-L2, levelling
L2b-L33-L33b-L33a): 13 revolute joints, F = 3 x 10 - 2 x 13 = 4 (eq. 1). Driven, as in the paper's Simscape model,
J1, J2, J33 (the forearm on the upper arm at the elbow, Table 2's theta33) and J4; the other six joints are passive.
Inertials: Table 6 (mass, centre of mass, moments of inertia about the centre of mass in the part's frame; the
products of inertia are not published: zero). World frame: on the J1 axis at the height of the paper's base frame
A0 (eq. 5/6 measure from there; A0 itself is 5 mm behind the axis). End point ``tcp``: the origin of A4.

Motion: a palletizing cycle through seven Cartesian waypoints (initial point A, lift points B1/B2, drop points
C1/C2, task points D1/D2: names from the paper, coordinates ours, documented in docs/paper002.md), joint targets
by the paper's IK (eq. 27), planned in joint space three ways (``planner``): ``quintic`` (a quintic per segment,
at rest at every waypoint: MATLAB's quinticpolytraj default), ``bspline`` (a cubic B-spline with the joint
waypoints as control points, end points tripled so that it starts and ends at rest: it does not pass through the
inner waypoints, as the paper says) and ``minimum_jerk`` (the quintic spline through the waypoints with zero end
velocity and acceleration: the C4 spline that minimizes the integral of jerk squared, MATLAB's minjerkpolytraj).
No payload (the paper's J4 carries no fixture); ``payload_kg`` puts a point mass at the end point.

FE: our own 6061-O parts (meshes/make_mg400_meshes.py), each part's density set so that its mass equals Table 6
(the study's FE run then takes the centres of mass and inertias from the meshes, so that the FE loads balance).
Structural model: the arm model (the default): the nine parts as superelements joined at the tree and cut joints,
the six passive joints free about their axes, the tool flange L4 (no mesh) rigid (docs/flex.md).
The paper comparisons (Tables 3, 4, 7, the three planners on the Table 6 model) are in :func:`paper_checks`;
every run puts them in its ``summary.json`` (``fk_table_max_error_mm``, ``ik_table_max_error_deg``,
``path_deviation_max_mm`` per planner, the rest under ``paper002``).

    python studies/mg400.py [--out DIR] [--planner quintic|bspline|minimum_jerk] [--payload-kg 0]
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

import structcheck as sc
from structcheck.model.materials import get_material
from structcheck.model.robot import Joint, Link, Robot, rot_x, rot_z, trans
from structcheck.rigid import closedchain as cc
from structcheck.rigid.closedform import mg400_fk, mg400_ik
from structcheck.rigid.loops import loop_residuals
from structcheck.study import Payload, Study, lazy_study

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "meshes"))
import make_mg400_meshes as meshes  # noqa: E402  (the pin positions and the shipped meshes)

DRIVEN = ("J1", "J2", "J33", "J4")
MOTOR_J3 = ("J1", "J2", "J31", "J4")  # the real MG400's motors: J3 turns the crank L31 on the J2 axis
PLANNERS = ("quintic", "bspline", "minimum_jerk")
R_ARM = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # A2 at the zero pose: x up, z = world y

# Table 6: mass [kg], centroid [cm] and moments of inertia [g cm^2] in the part frames A_i
TABLE6 = {
    "L1": (4.781, (0.462, -0.006, 5.699), (163602, 156446, 200109)),
    "L2": (0.234, (5.963, -0.286, -0.049), (1049.56, 9144.35, 8310.61)),
    "L2a": (0.179, (7.378, -1.967, 0.001), (1009.9, 5914.17, 5415.16)),
    "L2b": (0.099, (-0.511486, -2.702, 0.002), (408.52, 663.483, 634.498)),
    "L31": (0.012, (-0.0, -1.728, -0.003), (43.717, 3.788, 45.756)),
    "L32": (0.025, (8.934, 0.204, -0.453), (3.752, 966.085, 968.624)),
    "L33": (0.101, (8.21, 0.487, 0.011), (68.215, 4436.23, 4433.04)),
    "L33a": (0.122, (8.78, -0.668, -0.001), (541.489, 3825.9, 3563.67)),
    "L33b": (0.431, (5.526, 0.337, 0.003), (2676.58, 2873.23, 4239.39)),
    "L4": (0.004, (0.0, 0.0, 0.0), (3.824, 3.824, 0.223)),
}
A33_IN_L33 = np.array([-0.043, 0.0, 0.0])  # L33's link frame sits on J33 at the elbow, 43 mm ahead of A33

# Tables 3 and 4 (verbatim; theta3 is Table 2's theta33): theta1..4 [deg] -> Px, Py, Pz [mm], Rz [deg]
TABLE3 = np.array([
    [-1.86, 60.70, 7.26, 290.68, 327.62, -10.66, 115.45, -71.19],
    [125.10, 11.76, 48.32, -217.58, -133.65, 190.19, 211.66, -92.48],
    [-150.23, 56.85, -16.85, -14.46, -338.58, -193.69, 175.21, -164.68],
    [129.51, 42.09, 13.21, 258.80, -207.68, 251.84, 178.01, 28.31],
    [97.76, 38.44, -39.66, -187.25, -53.08, 389.66, 332.80, -89.49],
    [123.68, -21.85, 40.03, -239.09, -116.82, 175.27, 299.81, -115.41],
    [153.18, 53.40, -13.34, -20.82, -342.62, 173.24, 183.72, 132.36],
    [-140.92, 50.02, -69.50, -308.56, -317.17, -257.55, 362.82, -89.48],
    [6.93, -14.36, 67.61, 228.63, 169.56, 20.60, 221.32, -124.44],
    [71.18, -8.52, 50.46, 13.39, 68.96, 202.33, 248.11, 84.57]])
# Px, Py, Pz [mm], Rz [deg] -> theta1..4 [deg] (theta4 wrapped into [-180, 180], eq. 26)
TABLE4 = np.array([
    [327.62, -10.66, 115.45, -71.19, -1.86, 60.70, 7.26, -69.32],
    [-133.65, 190.19, 211.65, -92.48, 125.10, 11.76, 48.32, 142.42],
    [-338.58, -193.69, 175.21, -164.68, -150.23, 56.85, -16.85, -14.46],
    [-207.68, 251.84, 178.01, 28.31, 129.51, 42.09, 13.21, -101.20],
    [-53.08, 389.66, 332.80, -89.49, 97.76, 38.44, -39.66, 172.75],
    [-116.82, 175.27, 299.81, -115.41, 123.68, -21.85, 40.03, 120.91],
    [-342.62, 173.24, 183.72, 132.36, 153.18, 53.40, -13.34, -20.82],
    [-317.17, -257.55, 362.82, -89.48, -140.92, 50.02, -69.50, 51.44],
    [169.56, 20.60, 221.37, -124.44, 6.93, -14.36, 67.61, -131.37],
    [68.96, 202.33, 248.11, 84.57, 71.18, -8.51, 50.46, 13.39]])

# the palletizing cycle (names after the paper's Fig. 11; coordinates ours): x, y, z [mm], Rz [deg], time [s]
WAYPOINTS = {
    "A": (300.0, 0.0, 150.0, 0.0, 0.0),  # initial point: the pick station, part gripped
    "B1": (300.0, 0.0, 250.0, 0.0, 0.8),  # lift hand: straight up 100 mm
    "C1": (120.0, 270.0, 250.0, 90.0, 2.0),  # drop hand: above pallet slot 1
    "D1": (120.0, 270.0, 130.0, 90.0, 2.8),  # task point: part placed in slot 1
    "B2": (120.0, 270.0, 250.0, 90.0, 3.6),  # lift hand: back up
    "C2": (-80.0, 280.0, 250.0, 120.0, 4.8),  # drop hand: above pallet slot 2
    "D2": (-80.0, 280.0, 130.0, 120.0, 5.6),  # task point 2
}
T_END = WAYPOINTS["D2"][4]


# ------------------------------------------------------------------------------------------------ mechanism
def _rev(name, parent, child, origin, lower=-np.pi, upper=np.pi):
    return Joint(name, "revolute", parent, child, origin, np.array([0.0, 0.0, 1.0]), lower, upper)


def _place(p, R=np.eye(3)):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def table6_link(name: str) -> Link:
    """Link ``name`` with Table 6's mass [kg], centre of mass [m] and diagonal inertia [kg m^2] in its link frame."""
    m, com, inertia = TABLE6[name]
    c = np.array(com) * 1e-2 + (A33_IN_L33 if name == "L33" else 0.0)
    return Link(name, m, tuple(c), tuple(map(tuple, np.diag(inertia) * 1e-7)))


def passive_angles(q):
    """All ten tree coordinates (n, 10) in :func:`mechanism`'s order from the driven (n, 4) = theta1, theta2,
    theta33, theta4 [rad]: the parallelograms keep L2a parallel to L2, L31/L33a parallel to L33, L32 parallel to
    L2, L2b and L33b level. Used only as Newton's start; the loops are closed by the chain's own solver."""
    q = np.atleast_2d(q)
    t1, t2, t33, t4 = q.T
    fa = t2 + t33
    return np.column_stack([t1, t2, t2, -t2, fa, -t33, t33, -fa, fa, t4])


def mechanism(home=(0.0, 0.0, 0.0, 0.0), actuated=DRIVEN, payload_kg: float = 0.0) -> cc.ClosedChain:
    """The MG400 as a closed chain with Table 6 inertials, assembled at the driven pose ``home`` [rad]
    (theta1, theta2, theta33, theta4). ``actuated``: where the motors are (default: the paper's J1, J2, J33, J4;
    :data:`MOTOR_J3` puts J3 on the crank L31 as in the real robot). Joint limits: J1 +-160 deg, J2 -25..85 deg,
    J31 (the forearm's absolute angle theta2 + theta33) -25..105 deg (the paper's coupled range), J4 +-180 deg."""
    d = np.radians
    joints = [
        _rev("J1", "base", "L1", trans(z=0.123), *d([-160, 160])),
        _rev("J2", "L1", "L2", _place(meshes.J2_ON_L1, R_ARM), *d([-25, 85])),
        _rev("J2a", "L1", "L2a", _place(meshes.J2A_ON_L1, R_ARM)),
        _rev("J2b", "L2", "L2b", _place((meshes.L_ARM, 0, 0), rot_z(np.pi / 2)[:3, :3])),
        _rev("J31", "L1", "L31", _place(meshes.J2_ON_L1, R_ARM), *d([-25, 105])),
        _rev("J32", "L31", "L32", _place(meshes.J32_ON_L31)),
        _rev("J33", "L2", "L33", _place((meshes.L_ARM, 0, 0), rot_z(np.pi / 2)[:3, :3]), *d([-90, 90])),
        _rev("J33b", "L33", "L33b", _place((meshes.L_ARM, 0, 0))),
        _rev("J33a", "L2b", "L33a", _place(meshes.Q_ON_L2B)),
        _rev("J4", "L33b", "L4", _place(meshes.J4_ON_L33B, rot_x(np.pi / 2)[:3, :3]), *d([-180, 180])),
    ]
    full = passive_angles(np.asarray(home, float))[0]
    joints = [replace(j, home=float(h)) for j, h in zip(joints, full)]
    links = [Link("base")] + [table6_link(n) for n in TABLE6]
    tree = Robot(links, joints, points={"tcp": ("L4", (0.0, 0.0, 0.0))}, name="mg400")
    ry = rot_z(-np.pi / 2)[:3, :3]  # a rod's frame (x along it) seen from the level plates' / forearm's frame
    y = np.array([0.0, 0.0, 1.0])
    cuts = [cc.CutJoint("pin_2a_2b", "revolute", "L2a", "L2b", trans(x=meshes.L_ARM), _place(meshes.P_ON_L2B, ry), y),
            cc.CutJoint("pin_32_33", "revolute", "L32", "L33", trans(x=meshes.L_ARM),
                        _place(meshes.REAR_ON_L33, ry), y),
            cc.CutJoint("pin_33a_33b", "revolute", "L33a", "L33b", trans(x=meshes.L_ARM), _place(meshes.R_ON_L33B), y)]
    return cc.ClosedChain(tree, cuts, independent=DRIVEN, actuated=actuated)


def end_point(chain, q_full):
    """End point (n, 3) [m, world] and attitude Rz (n,) [rad] of the model's L4 frame at tree coordinates q."""
    T = chain.tree.forward_kinematics(q_full)[:, chain.tree.link_names.index("L4")]
    return T[:, :3, 3], np.arctan2(T[:, 1, 0], T[:, 0, 0])


def model_fk(chain, q):
    """Forward kinematics by the model: the loops closed by the chain's Newton solver for each driven pose
    q (n, 4) [rad], then the tree's kinematics. Returns (p (n, 3) [m], Rz (n,) [rad], q_full (n, 10))."""
    q = np.atleast_2d(q)
    q_full = np.vstack([cc.solve_positions(chain, qi[None], q_guess=passive_angles(qi)[0]) for qi in q])
    return (*end_point(chain, q_full), q_full)


def _wrap(a):
    return np.mod(a + np.pi, 2 * np.pi) - np.pi


def model_ik(chain, position, rz, tol=1e-13, max_iter=30):
    """Inverse kinematics by the model: Newton on :func:`model_fk` (central-difference Jacobian) from the seed
    theta1 = atan2(Py, Px), theta2 = 30 deg, theta33 = 0, theta4 = Rz - theta1 (the paper's branch, cos theta33
    >= 0); theta4 wrapped into [-180, 180) deg as eq. (26). ``position`` (n, 3) [m], ``rz`` (n,) [rad]."""
    out = []
    for p, r in zip(np.atleast_2d(position), np.atleast_1d(rz)):
        t1 = np.arctan2(p[1], p[0])
        q = np.array([t1, np.radians(30.0), 0.0, r - t1])
        h = 1e-6
        for _ in range(max_iter):
            qs = np.vstack([q] + [q + s * h * e for e in np.eye(4) for s in (1, -1)])
            pp, rr, _ = model_fk(chain, qs)
            res = np.r_[pp[0] - p, _wrap(rr[0] - r)]
            J = np.column_stack([(np.r_[pp[1 + 2 * k], rr[1 + 2 * k]] - np.r_[pp[2 + 2 * k], rr[2 + 2 * k]]) / (2 * h)
                                 for k in range(4)])
            dq = np.linalg.solve(J, -res)
            q = q + dq
            if np.abs(dq).max() < tol:
                break
        q[3] = _wrap(q[3])
        out.append(q)
    return np.array(out)


# ------------------------------------------------------------------------------------------------ planners
def joint_waypoints():
    """Waypoint times (n,) [s] and driven joint values (n, 4) [rad] by the paper's IK (eq. 27), theta4 unwrapped
    along the cycle."""
    w = np.array(list(WAYPOINTS.values()))
    q = mg400_ik(w[:, :3] * 1e-3, np.radians(w[:, 3]))
    q[:, 3] = np.unwrap(q[:, 3])
    return w[:, 4], q


class ControlPolygonBSpline:
    """Cubic B-spline on [t0, t1] [s] with the values ``control`` (n,) as control points, the first and last
    tripled (clamped, uniform knots), so that it starts and ends at rest at them; held at its end values outside.
    It does not pass through the inner control points (MATLAB's bsplinepolytraj, paper 002). A motion law."""

    def __init__(self, t0, t1, control):
        from scipy.interpolate import BSpline as _B

        c = np.r_[[control[0]] * 2, control, [control[-1]] * 2]
        n_inner = len(c) - 4
        knots = np.r_[[t0] * 3, np.linspace(t0, t1, n_inner + 2), [t1] * 3]
        self._spl = _B(knots, c, 3)
        self.t0, self.t1 = float(t0), float(t1)
        self.breakpoints = tuple(float(k) for k in np.unique(knots))
        self.ramps = (float(np.diff(self.breakpoints).min()),)

    def _eval(self, t, nu):
        t = np.asarray(t, float)
        v = self._spl(np.clip(t, self.t0, self.t1), nu)
        return v if nu == 0 else np.where((t >= self.t0) & (t <= self.t1), v, 0.0)

    def value(self, t):
        return self._eval(t, 0)

    def velocity(self, t):
        return self._eval(t, 1)

    def acceleration(self, t, side=1):  # continuous (C2 spline, at rest at both ends)
        return self._eval(t, 2)


def planner_laws(planner: str, home) -> dict:
    """Driven joint name -> law of the offset from ``home`` (4,) [rad] for ``planner`` (one of PLANNERS)."""
    if planner not in PLANNERS:
        raise sc.InputError(f"planner must be one of {PLANNERS}, got {planner!r}")
    times, q = joint_waypoints()
    dq = q - np.asarray(home)[None, :]
    laws = {}
    for k, name in enumerate(DRIVEN):
        if planner == "quintic":  # ADAMS STEP5 = quintic at rest at both ends, one per segment
            laws[name] = " + ".join(f"STEP5(time,{float(t0)!r},0,{float(t1)!r},{float(b - a)!r})" for t0, t1, a, b in
                                    zip(times[:-1], times[1:], dq[:-1, k], dq[1:, k]))
        elif planner == "minimum_jerk":  # quintic spline, C4, zero end velocity and acceleration
            laws[name] = sc.motion.BSpline(tuple(times), tuple(dq[:, k]), degree=5)
        else:
            laws[name] = ControlPolygonBSpline(times[0], times[-1], dq[:, k])
    return laws


def start_pose():
    """Driven pose (4,) [rad] at waypoint A."""
    return joint_waypoints()[1][0]


# ------------------------------------------------------------------------------------------------ paper checks
def rigid_run(chain, planner: str, n_t: int = 1121, gravity=(0.0, 0.0, -9.81), payloads=None):
    """The planner's motion on ``chain`` (assembled at waypoint A) over [0, T_END] on n_t samples: dict with t,
    driven q/qd/qdd (n_t, 4), the closed-chain motion and dynamics."""
    home = np.array([chain.tree.joint(j).home for j in DRIVEN])
    laws = planner_laws(planner, home)
    t = np.linspace(0.0, T_END, n_t)
    laws = {k: sc.motion.as_law(v) for k, v in laws.items()}
    q = home + np.column_stack([laws[j].value(t) for j in DRIVEN])
    qd = np.column_stack([laws[j].velocity(t) for j in DRIVEN])
    qdd = np.column_stack([np.where(t < t[-1], laws[j].acceleration(t, side=1), laws[j].acceleration(t, side=-1))
                           for j in DRIVEN])
    motion = cc.closed_chain_motion(chain, q, qd, qdd, t)
    chain.tree.check_limits(motion.q, t)
    dyn = cc.closed_chain_dynamics(chain, motion, gravity, None, payloads)
    return {"t": t, "q": q, "qd": qd, "qdd": qdd, "motion": motion, "dyn": dyn, "laws": laws}


def jerk(laws, t_end=T_END, dt=5e-4):
    """Jerk (n, 4) [rad/s^3] of the driven laws by differences of their (continuous) accelerations on a uniform
    grid of step dt [s], at the midpoints."""
    t = np.arange(0.0, t_end + dt / 2, dt)
    a = np.column_stack([laws[j].acceleration(t) for j in DRIVEN])
    return np.diff(a, axis=0) / dt, dt


def planner_report(chain, planner, n_t=1121, motor_chain=None):
    """Everything paper 002 compares for one planner, on the Table 6 model: path deviation, waypoint errors,
    peaks of q, qd, qdd, torque and jerk per joint, and the rigid-body checks."""
    r = rigid_run(chain, planner, n_t)
    mo, dyn, t = r["motion"], r["dyn"], r["t"]
    p_exec, rz_exec = end_point(chain, mo.q)  # the model's end point
    p_plan, rz_plan = mg400_fk(r["q"])  # eq. (6) of the planned joint trajectory
    dev = np.linalg.norm(p_exec - p_plan, axis=1) * 1e3
    w = np.array(list(WAYPOINTS.values()))
    at = np.searchsorted(t, w[:, 4])
    wp_err = np.linalg.norm(p_exec[at] - w[:, :3] * 1e-3, axis=1) * 1e3
    res = loop_residuals(chain, mo.q, mo.qd, mo.qdd)
    jk, dt = jerk(r["laws"])
    deg = np.degrees
    out = {
        "path_deviation_max_mm": float(dev.max()), "path_deviation_mean_mm": float(dev.mean()),
        "path_deviation_min_mm": float(dev.min()),
        "rz_deviation_max_deg": float(np.abs(deg(_wrap(rz_exec - rz_plan))).max()),
        "waypoint_error_mm": {k: float(e) for k, e in zip(WAYPOINTS, wp_err)},
        "path_length_mm": float(np.linalg.norm(np.diff(p_exec, axis=0), axis=1).sum() * 1e3),
        "peak_abs_q_deg": dict(zip(DRIVEN, deg(np.abs(r["q"]).max(axis=0)))),
        "peak_abs_qd_deg_s": dict(zip(DRIVEN, deg(np.abs(r["qd"]).max(axis=0)))),
        "peak_abs_qdd_deg_s2": dict(zip(DRIVEN, deg(np.abs(r["qdd"]).max(axis=0)))),
        "peak_abs_torque_nm": dict(zip(DRIVEN, np.abs(dyn.tau).max(axis=0))),
        "peak_abs_jerk_deg_s3": dict(zip(DRIVEN, deg(np.abs(jk).max(axis=0)))),
        "jerk_squared_integral_rad2_s5": dict(zip(DRIVEN, (jk ** 2).sum(axis=0) * dt)),
        "checks": {
            "loop_closure_residual": float(max(res.position.max() / chain.size, res.orientation.max())),
            "loop_velocity_residual_m_s": float(max(res.velocity.max(), res.angular_velocity.max() * chain.size)),
            "loop_acceleration_residual_m_s2": float(max(res.acceleration.max(),
                                                         res.angular_acceleration.max() * chain.size)),
            "power_balance_rel_error": float(cc.power_balance(chain, dyn)),
            "link_equilibrium_rel_error": float(np.nanmax(cc.link_equilibrium(chain, dyn))),
            "constraint_rank": int(dyn.constraint_rank), "redundant_constraint_rows": int(dyn.redundant)},
        "n_samples": int(len(t)),
    }
    if motor_chain is not None:  # the same motion with J3's motor on the crank L31 (the real robot)
        md = cc.closed_chain_dynamics(motor_chain, mo, (0.0, 0.0, -9.81))
        out["peak_abs_motor_torque_nm"] = dict(zip(MOTOR_J3, np.abs(md.tau).max(axis=0)))
    return out


def paper_checks(n_t: int = 1121) -> dict:
    """The comparisons with paper 002 on the Table 6 model (what :func:`paper_summary` puts in summary.json): Tables 3 and 4 by the
    model's own FK and IK, and for each planner :func:`planner_report` (Table 7's path error and the rest)."""
    chain = mechanism(start_pose())
    motor_chain = mechanism(start_pose(), actuated=MOTOR_J3)
    q3 = np.radians(TABLE3[:, :4])
    p, rz, _ = model_fk(chain, q3)
    fk_err = np.abs(p * 1e3 - TABLE3[:, 4:7]).max()
    fk_rz = np.abs(np.degrees(_wrap(rz - np.radians(TABLE3[:, 7])))).max()
    q4 = model_ik(chain, TABLE4[:, :3] * 1e-3, np.radians(TABLE4[:, 3]))
    ik_err = np.abs(np.degrees(q4) - TABLE4[:, 4:]).max()
    planners = {pl: planner_report(chain, pl, n_t, motor_chain) for pl in PLANNERS}
    return {
        "paper": "Zhang, Li, Zhang 2023, Modeling and simulation of industrial robot arms using Simscape Multibody",
        "fk_table_max_error_mm": float(fk_err), "fk_table_max_error_rz_deg": float(fk_rz),
        "ik_table_max_error_deg": float(ik_err),
        "ik_table_joints_deg": np.degrees(q4).round(4).tolist(),
        "path_deviation_max_mm": {pl: planners[pl]["path_deviation_max_mm"] for pl in PLANNERS},
        "checks": {"loop_closure_residual": max(planners[pl]["checks"]["loop_closure_residual"] for pl in PLANNERS),
                   "power_balance_rel_error": max(planners[pl]["checks"]["power_balance_rel_error"]
                                                  for pl in PLANNERS)},
        "planners": planners,
        "waypoints": {k: {"xyz_mm": v[:3], "rz_deg": v[3], "t_s": v[4]} for k, v in WAYPOINTS.items()},
        "joint_waypoints_deg": np.degrees(joint_waypoints()[1]).round(6).tolist(),
        "table6_total_moving_mass_kg": float(sum(v[0] for v in TABLE6.values())),
    }


# ------------------------------------------------------------------------------------------------ the FE study
def parts():
    """The 6061-O parts (meshes/mg400), each with the density that gives it its Table 6 mass."""
    base = get_material("6061-O")
    out = {}
    for name in meshes.PARTS:
        path = meshes.SHIPPED / f"{name}.msh"
        volume = sc.Part.from_mesh(path, material=base).mass_properties().mass / base.density
        mat = replace(base, name=f"6061-O ({name}, Table 6 mass)", density=TABLE6[name][0] / volume)
        out[name] = sc.Part.from_mesh(path, material=mat)
    return out


PARTS = parts()


def build(planner: str = "quintic", payload_kg: float = 0.0, n_frames: int = 57) -> Study:
    """The MG400 palletizing cycle planned by ``planner`` (quintic, bspline, minimum_jerk), with a point mass of
    ``payload_kg`` [kg] at the end point (0: the paper's bare flange), ``n_frames`` output frames over 5.6 s."""
    chain = mechanism(start_pose())
    payloads = (Payload("tcp", payload_kg),) if payload_kg != 0 else ()  # a negative mass: Payload refuses it
    return Study(
        name=f"mg400_{planner}", robot=chain, motion=planner_laws(planner, start_pose()), parts=PARTS,
        t_end=T_END, n_frames=n_frames, payloads=payloads, damping_ratio=0.02, n_modes=6,
        required_safety_factor=1.5,
        description=f"Paper 002 DOBOT MG400, palletizing cycle A-B1-C1-D1-B2-C2-D2, {planner} joint trajectory",
        parameters={"planner": planner, "payload_kg": payload_kg, "n_frames": n_frames},
        summary_extra=paper_summary)


def paper_summary(result=None, n_t: int = 1121) -> dict:
    """The keys :func:`paper_checks` adds to a run's summary.json (the run's own ``checks`` hold its planner's loop
    closure and power balance; the three planners' are under ``paper002.planners``)."""
    d = paper_checks(n_t)
    d.pop("checks")
    top = ("fk_table_max_error_mm", "ik_table_max_error_deg", "path_deviation_max_mm")
    return {**{k: d.pop(k) for k in top}, "paper002": d}


__getattr__ = lazy_study(build)  # `study`, built on first use: `--help` answers at once

if __name__ == "__main__":  # --out DIR, --planner, --payload-kg; exit 0 pass, 1 fail, 2 bad input
    from structcheck.cli import main_for_study

    sys.exit(main_for_study(build))
