"""Paper 003 (Cheng et al. 2021, Appl. Sci. 11, 10988): identification of the KR500-type robot's inertial parameters.

Robot: six homogeneous steel cylinders end to end (Table 2: lengths, radii; 7801 kg/m^3), B1 on a rail (a prismatic
joint along the world x axis, e_1^(0)) and six revolute joints: O1, O4, O6 about the cylinder axes, O2, O3, O5
across them. Motion (sect. 3.1): from rest, the rail accelerates at 2 m/s^2 and joints 1 and 2 at 30 deg/s^2, the
others locked, 2 s in 100 steps. See docs/paper003.md for the assumptions (initial posture, joint senses).

1. Per body, as the paper: each body's mass and principal inertias by least squares from its joint reaction
   wrenches and its motion, exact data, data rounded to 7 significant digits (the paper's ADAMS tables) and data
   with 1% Gaussian noise (Table 4's absolute errors).
2. Whole robot, standard method: base parameters (QR with column pivoting) identified from joint torques on a
   Fourier excitation optimized for the condition number, validated on a second trajectory.
3. The joint reaction forces at 1.5 s (the paper's sect. 3.2 Lagrange multipliers).
4. The six steel cylinders as FE parts (meshes/kr500, each part's density set so that its mass is Table 2's)
   along the paper's motion: a Study like the others, whose summary.json also holds the identification
   (``identification``, ``bodies``, ``reactions_at_1_5_s``) and whose folder holds table4.csv,
   base_parameters.csv and identification.png. Structural model: the arm model (the default), the rail carriage
   (no mesh) rigid.

    python studies/kr500_identification.py [--out DIR] [--n-frames 41]
    structcheck run studies/kr500_identification.py
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from structcheck.fe.part import Part
from structcheck.model.materials import get_material
from structcheck.model.robot import Joint, Link, Robot
from structcheck.rigid import identify as ident
from structcheck.rigid.dynamics import power_balance
from structcheck.study import Study, lazy_study

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "meshes"))
import make_kr500_meshes as meshes  # noqa: E402  (the shipped cylinder meshes)

# ------------------------------------------------------------------------------------------------ robot (Table 2)
BODIES = ("B1", "B2", "B3", "B4", "B5", "B6")
LENGTH = (1.045, 1.245, 1.21, 0.315, 0.29, 0.3)  # m
RADIUS = (0.5, 0.3, 0.2, 0.2, 0.2, 0.3)  # m
DENSITY = 7801.0  # kg/m^3: Table 2's masses / (pi r^2 L)
GRAVITY = (0.0, 0.0, -9.80665)  # sect. 3: 9.80665 along -e_3^(0)
# Table 2 as printed (4 decimals): m [kg], J11 (axial), J22 = J33 [kg m^2]
TABLE2 = {"B1": (6402.6012, 800.3251, 982.8126), "B2": (2746.0726, 123.5733, 416.4934),
          "B3": (1186.1661, 23.7233, 156.5838), "B4": (308.7953, 6.1759, 5.6413),
          "B5": (284.2877, 5.6858, 4.8353), "B6": (661.7042, 29.7767, 19.8511)}
# Table 4: absolute errors m(e1), m(e2), m(e3) [kg], J11, J22, J33 [kg m^2] (None: not identified)
TABLE4 = {"B6": (-0.0001, 0.0001, 0, 0.0002, 0, 0.0003), "B5": (-0.0002, -0.0002, 0, -0.0002, -0.0005, 0),
          "B4": (0.0005, 0.0002, 0.0002, 0.0002, -0.0001, 0.0006),
          "B3": (-0.0002, 0, -0.0001, -0.0027, -0.0017, -0.0116),
          "B2": (-0.0006, -0.0003, -0.0003, 0.0424, -0.0251, 0.0175),
          "B1": (-0.0012, None, -0.0070, 0.0001, -0.0006, -0.0006)}
# sect. 3.2, eqs. (113)-(118): lambda_i3, the e_3^(0) multiplier of joint O_i [N] (sign as printed)
PAPER_LAMBDA3 = {"joint1": -1.136554e5, "joint2": -5.086735e4, "joint3": 2.393758e4, "joint4": -1.230526e4,
                 "joint5": -9.277012e3, "joint6": -6.489101e3}


def cylinder(length: float, radius: float, density: float = DENSITY):
    """Mass [kg], axial and transverse central moments of inertia [kg m^2] of a homogeneous cylinder."""
    m = density * np.pi * radius ** 2 * length
    return m, m * radius ** 2 / 2, m * (3 * radius ** 2 + length ** 2) / 12


def kr500_robot() -> Robot:
    """Ground -rail (prismatic, world x)-> massless carriage -joint1..6-> B1..B6. Each body's frame has its origin
    on its inner joint and x along the cylinder axis (the paper's e_1^(i)); y is the transverse joint axis of O2,
    O3, O5 (e_2^(i)). At q = 0: B1 and B2 vertical, B3-B6 horizontal along +x; joint 2 turns about -y (world)."""
    links = [Link("ground"), Link("carriage")]
    for name, L, r in zip(BODIES, LENGTH, RADIUS):
        m, ja, jt = cylinder(L, r)
        links.append(Link(name, m, (L / 2, 0.0, 0.0), np.diag([ja, jt, jt]), material="steel_7801"))

    def T(R=np.eye(3), p=(0.0, 0.0, 0.0)):
        M = np.eye(4)
        M[:3, :3], M[:3, 3] = R, p
        return M

    up = np.array([[0, 0, 1], [0, -1, 0], [1, 0, 0.0]])  # B1 axes in the carriage's: x = z0, y = -y0, z = x0
    fore = np.array([[0, 0, -1], [0, 1, 0], [1, 0, 0.0]])  # B3 axes in B2's: x3 = z2 (world x), y3 = y2
    x, y = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])
    deg = np.pi / 180
    joints = [Joint("rail", "prismatic", "ground", "carriage", T(), x, -1.0, 6.0),
              Joint("joint1", "revolute", "carriage", "B1", T(up), x, -185 * deg, 185 * deg),
              Joint("joint2", "revolute", "B1", "B2", T(p=(LENGTH[0], 0, 0)), y, -90 * deg, 90 * deg),
              Joint("joint3", "revolute", "B2", "B3", T(fore, (LENGTH[1], 0, 0)), y, -90 * deg, 90 * deg),
              Joint("joint4", "revolute", "B3", "B4", T(p=(LENGTH[2], 0, 0)), x, -350 * deg, 350 * deg),
              Joint("joint5", "revolute", "B4", "B5", T(p=(LENGTH[3], 0, 0)), y, -120 * deg, 120 * deg),
              Joint("joint6", "revolute", "B5", "B6", T(p=(LENGTH[4], 0, 0)), x, -350 * deg, 350 * deg)]
    return Robot(links, joints, points={"tool": ("B6", (LENGTH[5], 0.0, 0.0))}, name="kr500_paper003")


robot = kr500_robot()

# ------------------------------------------------------------------------------------------------ motion (sect. 3.1)
T_END, N_STEPS = 2.0, 100
RAIL_ACC, JOINT_ACC = 2.0, np.radians(30.0)  # m/s^2; 30 deg/s^2 (the paper's "9.5493 rad/s^2" is 30/pi)
PAPER_TIMES = (0.3, 0.6, 0.9, 1.2, 1.5)  # s, the five samples of the paper's identification
t = np.linspace(0.0, T_END, N_STEPS + 1)
qdd = np.zeros((len(t), robot.n_dof))
qdd[:, :3] = (RAIL_ACC, JOINT_ACC, JOINT_ACC)  # rail, joint1, joint2; joints 3-6 locked
qd, q = qdd * t[:, None], 0.5 * qdd * t[:, None] ** 2
dyn = robot.inverse_dynamics(q, qd, qdd, gravity=GRAVITY)
power_rel = power_balance(robot, q, qd, qdd, dyn, gravity=GRAVITY)

# ------------------------------------------------------------------------------------------------ 1. per body
TRUE = {n: cylinder(L, r) for n, L, r in zip(BODIES, LENGTH, RADIUS)}  # exact m, J11, J22 (= J33)
paper_samples = [int(round(x / (T_END / N_STEPS))) for x in PAPER_TIMES]
NOISE, NOISE_SEED = 0.01, 3


def errors(found: dict) -> dict:
    """Per body: identified minus exact, [m(e1), m(e2), m(e3), J11, J22, J33] (NaN: not identifiable)."""
    out = {}
    for n in BODIES:
        m, ja, jt = TRUE[n]
        out[n] = np.r_[found[n].mass_by_axis - m, found[n].inertia - (ja, jt, jt)]
    return out


def relative(err: dict) -> float:
    """Largest |error| / exact value over the identifiable parameters."""
    return max(float(np.nanmax(np.abs(e) / np.r_[[TRUE[n][0]] * 3, TRUE[n][1], TRUE[n][2], TRUE[n][2]]))
               for n, e in err.items())


exact = ident.identify_bodies(robot, dyn.kinematics, dyn.joint_wrenches, GRAVITY, links=BODIES,
                              samples=paper_samples)
kin7 = type(dyn.kinematics)(*(ident.round_significant(x, 7) for x in (
    dyn.kinematics.T_world_link, dyn.kinematics.omega, dyn.kinematics.alpha, dyn.kinematics.v_origin,
    dyn.kinematics.a_origin)))
seven = ident.identify_bodies(robot, kin7, ident.round_significant(dyn.joint_wrenches, 7), GRAVITY, links=BODIES,
                              samples=paper_samples)
noisy_wrenches = ident.add_noise(dyn.joint_wrenches, NOISE, np.random.default_rng(NOISE_SEED))
noisy = ident.identify_bodies(robot, dyn.kinematics, noisy_wrenches, GRAVITY, links=BODIES)
err_exact, err_seven, err_noisy = errors(exact), errors(seven), errors(noisy)

# ------------------------------------------------------------------------------------------------ 2. base parameters
base = ident.base_parameters(robot, GRAVITY, n_samples=200, seed=0)
EXC_Q0 = np.r_[0.0, np.zeros(6)]
EXC_RANGE = np.r_[0.5, np.radians([90, 30, 30, 90, 60, 90])]  # |q - q0| [m, rad]
EXC_QD_MAX = np.r_[0.5, np.radians([45, 30, 30, 60, 60, 60])]  # |qd| [m/s, rad/s]
excitation = ident.optimize_excitation(robot, base, EXC_Q0, EXC_RANGE, EXC_QD_MAX, period=10.0, n_harmonics=3,
                                       n_samples=60, gravity=GRAVITY, seed=0, maxiter=40)
t_exc = np.linspace(0.0, 10.0, 201)
q_e, qd_e, qdd_e = excitation.trajectory(t_exc)
tau_e = robot.inverse_dynamics(q_e, qd_e, qdd_e, GRAVITY).tau
beta = ident.identify_base(base.columns(ident.regressor(robot, q_e, qd_e, qdd_e, GRAVITY)), tau_e)
validation = ident.random_trajectory(robot, EXC_Q0, EXC_RANGE, EXC_QD_MAX, period=7.0, n_harmonics=4, seed=1)
t_val = np.linspace(0.0, 7.0, 141)
q_v, qd_v, qdd_v = validation(t_val)
tau_v = robot.inverse_dynamics(q_v, qd_v, qdd_v, GRAVITY).tau
tau_pred = base.columns(ident.regressor(robot, q_v, qd_v, qdd_v, GRAVITY)) @ beta
beta_true = base.from_standard(ident.standard_parameters(robot))
validation_rel = float(np.abs(tau_pred - tau_v).max() / np.abs(tau_v).max())
beta_rel = float(np.abs(beta - beta_true).max() / np.abs(beta_true).max())

# ------------------------------------------------------------------------------------------------ 3. sect. 3.2
k15 = int(round(1.5 / (T_END / N_STEPS)))
reactions = {name: {"force_world_n": dyn.joint_wrenches_world[k15, k, :3],
                    "moment_world_nm": dyn.joint_wrenches_world[k15, k, 3:],
                    "paper_lambda3": PAPER_LAMBDA3.get(name)}
             for k, name in enumerate(dyn.joint_names)}

COLUMNS = ("m_e1_kg", "m_e2_kg", "m_e3_kg", "J11_kgm2", "J22_kgm2", "J33_kgm2")


def _max_abs(err: dict) -> float:
    return float(max(np.nanmax(np.abs(e)) for e in err.values()))


summary = {
    "study": "kr500_identification",
    "paper": "Cheng et al. 2021, Appl. Sci. 11, 10988 (paper 003)",
    "motion": {"t_end_s": T_END, "n_steps": N_STEPS, "rail_acceleration_m_s2": RAIL_ACC,
               "joint_acceleration_deg_s2": 30.0, "gravity_m_s2": GRAVITY},
    "bodies": {n: {"length_m": L, "radius_m": r, "mass_kg": TRUE[n][0], "J11_kgm2": TRUE[n][1],
                   "J22_kgm2": TRUE[n][2], "J33_kgm2": TRUE[n][2], "paper_table2": TABLE2[n]}
               for n, L, r in zip(BODIES, LENGTH, RADIUS)},
    "identification": {
        "max_abs_error_noise_free": _max_abs(err_exact),
        "max_rel_error_noise_free": relative(err_exact),
        "max_abs_error_7_digits": _max_abs(err_seven),
        "max_abs_error_noisy": _max_abs(err_noisy),
        "max_rel_error_noisy": relative(err_noisy),
        "paper_max_abs_error": 0.0424,
        "noise": {"relative_std": NOISE, "of": "each joint-wrench channel's RMS", "seed": NOISE_SEED,
                  "samples": len(t)},
        "paper_samples_s": PAPER_TIMES,
        "not_identifiable": [f"{n}.{c}" for n in BODIES for c, e in zip(COLUMNS, err_exact[n]) if np.isnan(e)],
        "errors": {case: {n: dict(zip(COLUMNS, e)) for n, e in err.items()}
                   for case, err in (("noise_free", err_exact), ("7_digits", err_seven), ("noisy", err_noisy))},
        "noisy_std": {n: dict(zip(COLUMNS, np.r_[noisy[n].mass_by_axis_std, noisy[n].inertia_std])) for n in BODIES},
        "base_parameters_count": base.rank,
        "standard_parameters_count": len(base.names),
        "base_parameters_qr_tolerance": base.tolerance,
        "base_parameters_qr_gap": [float(base.diagonal[base.rank - 1] / base.diagonal[0]),
                                   float(base.diagonal[base.rank] / base.diagonal[0])],
        "base_parameters_condition_number": excitation.cond,
        "excitation_start_condition_number": excitation.cond0,
        "validation_torque_rel_error": validation_rel,
        "base_parameters_rel_error": beta_rel,
    },
    "reactions_at_1_5_s": reactions,
    "checks": {"power_balance_rel_error": power_rel},
}


def write_tables(folder) -> None:
    """Write table4.csv (absolute errors, ours and the paper's), base_parameters.csv and identification.png into
    ``folder`` (the study's write_extra: the run writes the folder atomically)."""
    import csv

    folder = Path(folder)
    with open(folder / "table4.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["body", "case"] + list(COLUMNS))
        for n in reversed(BODIES):  # the paper's order, B6 to B1
            w.writerow([n, "paper_table4"] + ["" if v is None else v for v in TABLE4[n]])
            for case, err in (("noise_free", err_exact), ("7_digits", err_seven), ("noisy_1pct", err_noisy)):
                w.writerow([n, case] + ["" if np.isnan(v) else repr(float(v)) for v in err[n]])
    with open(folder / "base_parameters.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["base_parameter", "true", "identified"])
        for text, b_true, b in zip(base.describe(), beta_true, beta):
            w.writerow([text, repr(float(b_true)), repr(float(b))])
    _plot(folder / "identification.png")


def paper_summary(result=None) -> dict:
    """What a run adds to its summary.json: the identification results and the paper's data (``summary`` but the
    keys the run writes itself; this module's own power balance, on its 101 samples, as
    ``identification.power_balance_rel_error``)."""
    extra = {k: v for k, v in summary.items() if k not in ("study", "checks")}
    extra["identification"] = {**extra["identification"],
                               "power_balance_rel_error": summary["checks"]["power_balance_rel_error"]}
    return extra


def _plot(path) -> None:
    """Table 4 side by side (|absolute error| per parameter, log scale) and the validation torques."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(2, 1, figsize=(10, 8))
    labels = [f"{n} {c.rsplit('_', 1)[0]}" for n in reversed(BODIES) for c in COLUMNS]
    x = np.arange(len(labels))
    for k, (name, err) in enumerate((("paper Table 4", {n: np.array([np.nan if v is None else v for v in TABLE4[n]],
                                                                     float) for n in BODIES}),
                                     ("7 significant digits", err_seven), ("1% noise", err_noisy),
                                     ("exact data", err_exact))):
        vals = np.abs(np.concatenate([err[n] for n in reversed(BODIES)]))
        ax.bar(x + (k - 1.5) * 0.2, np.where(vals > 0, vals, np.nan), 0.2, label=name)
    ax.set_yscale("log")
    ax.set_xticks(x, labels, rotation=90, fontsize=7)
    ax.set_ylabel("|identified - exact| [kg, kg m²]")
    ax.legend(fontsize=8)
    for i, name in enumerate(robot.dof_names):
        bx.plot(t_val, tau_v[:, i], label=name)
        bx.plot(t_val, tau_pred[:, i], "k:", lw=1)
    bx.set_xlabel("time [s]")
    bx.set_ylabel("validation torque [N m, N]")
    bx.set_title(f"base parameters ({base.rank}) predict a second trajectory: max rel. error {validation_rel:.1e}",
                 fontsize=9)
    bx.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------------------ 4. the FE study
MOTION = {"rail": "time**2", "joint1": "15d*time*time", "joint2": "15d*time*time"}  # sect. 3.1, from rest


def parts() -> dict:
    """The cylinders B1..B6 (meshes/kr500) in steel, each with the density that gives it its Table 2 mass."""
    steel = get_material("steel_7801")
    out = {}
    for name in BODIES:
        path = meshes.SHIPPED / f"{name}.msh"
        volume = Part.from_mesh(path, material=steel).mass_properties().mass / steel.density
        out[name] = Part.from_mesh(path, material=replace(steel, name=f"steel_7801 ({name}, Table 2 mass)",
                                                          density=TRUE[name][0] / volume))
    return out


PARTS = parts()


def build(n_frames: int = 41) -> Study:
    """Sect. 3.1's motion (rail 2 m/s^2, joints 1 and 2 at 30 deg/s^2 from rest, 2 s) on the six steel
    cylinders, ``n_frames`` output frames."""
    return Study(name="kr500_identification", robot=robot, motion=MOTION, parts=PARTS, t_end=T_END,
                 n_frames=n_frames, gravity=GRAVITY, damping_ratio=0.02, n_modes=6, tool_point=None,
                 description="Paper 003 KR500 cylinder robot: rail 2 m/s^2, joints 1-2 30 deg/s^2 for 2 s; "
                             "inertial-parameter identification",
                 parameters={"n_frames": n_frames}, summary_extra=paper_summary,
                 write_extra=lambda result, folder: write_tables(folder))


__getattr__ = lazy_study(build)  # `study`, built on first use: `--help` answers at once

if __name__ == "__main__":  # --out DIR, --n-frames; exit 0 pass, 1 fail, 2 bad input
    from structcheck.cli import main_for_study

    sys.exit(main_for_study(build))
