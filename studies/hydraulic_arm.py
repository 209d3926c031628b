"""Paper 001 (Chu Anh My, Vu Minh Hoan 2019): a serial arm driven by two hydraulic cylinders, rigid-body to FE.

Source: Kinematic and dynamic analysis of a serial manipulator with local closed loop mechanisms, Vietnam Journal of
Mechanics 41(2), 141-155. The two cylinders close the local loops ABCD and EFGH.

Mechanism (paper's Fig. 1, Tables 1-3): a column turning about the vertical (theta1), a boom on it (theta2 at
B), an arm on the boom (theta5 at the elbow F). The first cylinder (barrel link 3 on the column at A, theta3;
rod link 4, stroke d4) pushes the boom at C; the second (barrel link 6 on the boom at H, theta6; rod link 7,
stroke d7) pushes the arm at G. As a closed chain: the spanning tree holds all seven joints, the rod eyes C and G
are revolute cut joints; three degrees of freedom, driven as in the paper by theta1, d4 and d7 (the cylinders
are prismatic actuated coordinates). Each planar loop of spatial revolutes has 3 redundant constraint rows: the
pin forces along the pin axes and the out-of-plane moments are marked undetermined.

Motion (paper section 2.2): theta1 = pi/18 t, d4 = 0.1 + 0.005 t, d7 = 0.1 + 0.02 t [rad, m, s], 0 <= t <= 10 s
(its Figs. 7 and 8 show t = 0 and t = 10 s). The lengths are the paper's, recovered from its inverse-kinematics
example (meshes/make_hydraulic_meshes.py, docs/paper001.md); the masses, sections and the rods' lengths are ours.
Structural model: the arm model (the default): boom, arm and rods as superelements, the column and the barrels
(no mesh) rigid, the passive pins free about their axes, the cylinders rigid along their stroke (docs/flex.md).

The cylinder forces and the pin forces at C and G are also computed by the paper's own method (Lagrange's
equations with multipliers for f1..f4, then the multipliers eliminated; studies/paper001_lagrange.py); every run
puts the two methods' agreement in its ``summary.json`` (``paper001``) and writes ``paper001.csv`` (dependent
angles, end point, cylinder forces of both methods, multipliers, loop residuals) and ``paper001.png``.

    python studies/hydraulic_arm.py [--out DIR] [--n-frames 51]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import structcheck as sc
from structcheck.model.materials import get_material
from structcheck.model.robot import Joint, Link, Robot, rot_x, trans
from structcheck.rigid import closedchain as cc
from structcheck.study import Study, lazy_study

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "meshes"))
sys.path.insert(0, str(ROOT / "studies"))
import make_hydraulic_meshes as meshes  # noqa: E402  (the lengths and the shipped meshes)
import paper001_lagrange as lagrange  # noqa: E402  (the paper's method)

GEOMETRY = lagrange.Geometry(l1=meshes.L1, l11=meshes.L11, l2=meshes.L2, l21=meshes.L21, l22=meshes.L22,
                             l3=meshes.L3, l5=meshes.L5, l51=meshes.L51, l6=meshes.L6)
DRIVEN = ("theta1", "d4", "d7")
MOTION = {"theta1": "pi/18*time", "d4": "0.005*time", "d7": "0.02*time"}  # offsets from home
HOME = (0.0, 0.1, 0.1)  # theta1 [rad], d4, d7 [m] at t = 0
T_END = 10.0
STEEL = "structural_steel"  # 7850 kg/m^3, E 200 GPa, yield 250 MPa
CYLINDERS = ("d4", "d7")


def _tube(name, r_out, r_in, length, along_x=True):
    """A steel tube link (barrel, column) of ``length`` [m] from its frame origin along x (or z):
    mass, COM and inertia about the COM in the link frame (closed-form thick-walled tube)."""
    m = 7850.0 * np.pi * (r_out ** 2 - r_in ** 2) * length
    axial = m / 2 * (r_out ** 2 + r_in ** 2)
    trans_ = m / 12 * (3 * (r_out ** 2 + r_in ** 2) + length ** 2)
    I = np.diag([axial, trans_, trans_] if along_x else [trans_, trans_, axial])
    com = (length / 2, 0.0, 0.0) if along_x else (0.0, 0.0, length / 2)
    return Link(name, m, com, tuple(map(tuple, I)))


def default_links() -> dict:
    """All links: those without an FE mesh as steel tubes (oil and end caps neglected): the column (200 x 20 mm
    tube up to B), the barrels (80 x 10 mm and 60 x 7.5 mm tubes: bores 60 and 45 mm for the 40 and 30 mm rods);
    the boom, arm and rods with their meshes' mass properties (as the run takes them)."""
    links = {"column": _tube("column", 0.10, 0.08, meshes.L1, along_x=False),
             "barrel_1": _tube("barrel_1", 0.040, 0.030, meshes.L3),
             "barrel_2": _tube("barrel_2", 0.030, 0.0225, meshes.L6)}
    for name, part in PARTS.items():
        mp = part.mass_properties()
        links[name] = Link(name, mp.mass, tuple(mp.com), tuple(map(tuple, mp.inertia_com)))
    return links


def mechanism(links: dict | None = None) -> cc.ClosedChain:
    """The arm as a closed chain (tree: column, boom, arm, barrels, rods; cut joints ``pin_C`` boom-rod_1 and
    ``pin_G`` arm-rod_2), assembled at t = 0. ``links``: link name -> Link (default :func:`default_links`).
    Link frames: x along the link, z along the pin axes (see studies/paper001_lagrange.py)."""
    links = default_links() if links is None else links
    z = np.array([0.0, 0.0, 1.0])
    x = np.array([1.0, 0.0, 0.0])
    plane = rot_x(np.pi / 2)  # a joint frame in the arm's plane: z_joint = -y_column, x_joint = radial
    home = dict(zip(DRIVEN, HOME))
    dep = lagrange.dependent_angles(GEOMETRY, np.array([HOME]))[0]
    home.update(zip(("theta2", "theta3", "theta5", "theta6"), dep))
    joints = [
        Joint("theta1", "revolute", "base", "column", np.eye(4), z),
        Joint("theta2", "revolute", "column", "boom", trans(z=meshes.L1) @ plane, z),
        Joint("theta5", "revolute", "boom", "arm", trans(x=meshes.L2), z),
        Joint("theta3", "revolute", "column", "barrel_1", trans(z=meshes.L10) @ plane, z),
        Joint("d4", "prismatic", "barrel_1", "rod_1", trans(x=meshes.L3), x, 0.0, meshes.L4 - 0.05),
        Joint("theta6", "revolute", "boom", "barrel_2", trans(x=meshes.L23), z),
        Joint("d7", "prismatic", "barrel_2", "rod_2", trans(x=meshes.L6), x, 0.0, meshes.L7 - 0.05),
    ]
    joints = [Joint(j.name, j.type, j.parent, j.child, j.origin, j.axis, j.lower, j.upper, home[j.name])
              for j in joints]
    order = ("column", "boom", "arm", "barrel_1", "rod_1", "barrel_2", "rod_2")
    tree = Robot([Link("base")] + [links[n] for n in order], joints,
                 points={"E": ("arm", (meshes.L5, 0.0, 0.0))}, name="hydraulic_arm")
    cuts = [cc.CutJoint("pin_C", "revolute", "boom", "rod_1", trans(x=meshes.L22), np.eye(4), z),
            cc.CutJoint("pin_G", "revolute", "arm", "rod_2", trans(x=meshes.L51), np.eye(4), z)]
    return cc.ClosedChain(tree, cuts, independent=DRIVEN, actuated=DRIVEN)


def inertials_of(tree: Robot) -> dict:
    """The tree's link inertials as the paper's method takes them: name -> (mass, com (3,), inertia (3, 3))."""
    return {ln.name: (ln.mass, np.asarray(ln.com, float), np.asarray(ln.inertia, float))
            for ln in tree.links if ln.name != "base"}


def parts() -> dict:
    """The steel FE parts (meshes/hydraulic): boom, arm and the two piston rods."""
    steel = get_material(STEEL)
    return {name: sc.Part.from_mesh(meshes.SHIPPED / f"{name}.msh", material=steel) for name in meshes.PARTS}


PARTS = parts()


# ------------------------------------------------------------------------------------------------ paper's method
def _columns(names, arr, which):
    return arr[:, [list(names).index(n) for n in which]]


def compare_methods(chain: cc.ClosedChain, t, q, qd, qdd, tau, cut_wrenches) -> tuple[dict, dict]:
    """The paper's method (studies/paper001_lagrange.py) against our cut-joint solver along a run: ``q``, ``qd``,
    ``qdd``, ``tau`` (n, n_coords) in ``chain.tree.dof_names`` order, ``cut_wrenches`` (n, 2, 6) of ``pin_C`` and
    ``pin_G`` (rod frames). Returns the histories (dict of arrays) and the largest differences."""
    names = chain.tree.dof_names
    L = lagrange.lagrange_dynamics(GEOMETRY, inertials_of(chain.tree), _columns(names, q, DRIVEN),
                                   _columns(names, qd, DRIVEN), _columns(names, qdd, DRIVEN))
    s_ours = _columns(names, q, lagrange.S_NAMES)
    F_ours = _columns(names, tau, CYLINDERS)
    F_paper = L["tau"][:, 1:]
    # pin forces, rod-eye frames (x along the cylinder, z along the pin): lam1, lam2 along (e_r, z) at C;
    # lam3, lam4 along the boom's (x, y) at G
    s = L["s"]
    pins = np.empty((len(t), 4))
    for k, ang in enumerate(("theta3", "theta6")):
        a = s[:, lagrange.IQ[ang]]
        f = cut_wrenches[:, k, :2]
        pins[:, 2 * k] = np.cos(a) * f[:, 0] - np.sin(a) * f[:, 1]
        pins[:, 2 * k + 1] = np.sin(a) * f[:, 0] + np.cos(a) * f[:, 1]
    scale = np.abs(F_paper).max(axis=0)
    hist = {"t": t, "s": s, "sd": L["sd"], "F_paper": F_paper, "F_ours": F_ours, "lam": L["lam"], "pins_ours": pins,
            "tau1_paper": L["tau"][:, 0], "f": lagrange.constraints(GEOMETRY, s_ours)}
    err = {
        "cylinder_force_max_rel_difference": float((np.abs(F_ours - F_paper).max(axis=0) / scale).max()),
        "pin_force_max_rel_difference": float(np.abs(pins - L["lam"]).max() / np.abs(L["lam"]).max()),
        "dependent_angles_max_difference_rad": float(np.abs(s_ours - s).max()),
        "constraint_residual_max_m": float(np.abs(hist["f"]).max()),
    }
    return hist, err


def end_point(s, sd):
    """End point E (n, 3) [m] and its velocity (n, 3) [m/s], world, by the paper's eq. (1) from s, s' (n, 7)."""
    g = GEOMETRY
    t1, t2, t5 = (s[:, lagrange.IQ[k]] for k in ("theta1", "theta2", "theta5"))
    w1, w2, w5 = (sd[:, lagrange.IQ[k]] for k in ("theta1", "theta2", "theta5"))
    r = g.l2 * np.cos(t2) + g.l5 * np.cos(t2 + t5)
    rd = -g.l2 * np.sin(t2) * w2 - g.l5 * np.sin(t2 + t5) * (w2 + w5)
    p = np.stack([r * np.cos(t1), r * np.sin(t1), g.l1 + g.l2 * np.sin(t2) + g.l5 * np.sin(t2 + t5)], axis=1)
    v = np.stack([rd * np.cos(t1) - r * np.sin(t1) * w1, rd * np.sin(t1) + r * np.cos(t1) * w1,
                  g.l2 * np.cos(t2) * w2 + g.l5 * np.cos(t2 + t5) * (w2 + w5)], axis=1)
    return p, v


def _run_histories(result, chain):
    """compare_methods on a run's samples, plus the end point by eq. (1) and by the tree's kinematics."""
    cut = [result.joint_names.index(n) for n in chain.cut_names]
    hist, err = compare_methods(chain, result.t, result.q, result.qd, result.qdd, result.tau,
                                result.joint_wrenches[:, cut])
    hist["E"], hist["E_velocity"] = end_point(hist["s"], hist["sd"])
    T = chain.tree.forward_kinematics(result.q)[:, chain.tree.link_names.index("arm")]
    E_tree = T[:, :3, 3] + T[:, :3, 0] * meshes.L5
    err["end_point_max_difference_m"] = float(np.abs(E_tree - hist["E"]).max())
    return hist, err


def paper_summary(result, chain) -> dict:
    """What a run adds to summary.json: both cylinders' peak forces under ``joints``, and under ``paper001`` the
    two methods' agreement, the dependent angles and end point at t = 0 and t = T, the peak pin forces."""
    hist, err = _run_histories(result, chain)
    t, F = hist["t"], hist["F_ours"]
    joints = {n: {"max_force_n": float(np.abs(F[:, k]).max()), "max_force_time_s": float(t[np.abs(F[:, k]).argmax()]),
                  "min_signed_force_n": float(F[:, k].min()), "max_signed_force_n": float(F[:, k].max())}
              for k, n in enumerate(CYLINDERS)}
    deg = np.degrees
    ends = {f"t_{t[i]:g}_s": {"theta2_deg": float(deg(hist["s"][i, 3])), "theta3_deg": float(deg(hist["s"][i, 4])),
                              "theta5_deg": float(deg(hist["s"][i, 5])), "theta6_deg": float(deg(hist["s"][i, 6])),
                              "end_point_m": hist["E"][i].tolist(), "F4_n": float(F[i, 0]), "F7_n": float(F[i, 1])}
            for i in (0, len(t) - 1)}
    return {"joints": joints,
            "checks": {"paper_method_cylinder_force_rel_difference": err["cylinder_force_max_rel_difference"]},
            "paper001": {"paper": "Chu Anh My, Vu Minh Hoan 2019, Kinematic and dynamic analysis of a serial "
                                  "manipulator with local closed loop mechanisms, Vietnam J. Mech. 41(2) 141-155",
                         "methods_agreement": err, "poses": ends,
                         "geometry_m": {k: float(getattr(GEOMETRY, k)) for k in
                                        ("l1", "l10", "l11", "l2", "l21", "l22", "l23", "l3", "l5", "l51", "l6")},
                         "masses_kg": {n: float(v[0]) for n, v in inertials_of(chain.tree).items()}}}


def write_paper_files(result, folder, chain) -> None:
    """paper001.csv (the paper's Figs. 2-6 quantities and both methods' forces along the run) and paper001.png."""
    hist, _ = _run_histories(result, chain)
    cols = {"t_s": hist["t"]}
    cols.update({f"{n}_{'rad' if n.startswith('theta') else 'm'}": hist["s"][:, k]
                 for k, n in enumerate(lagrange.S_NAMES)})
    cols.update({f"{a}_E_m": hist["E"][:, k] for k, a in enumerate("xyz")})
    cols.update({f"{a}d_E_m_s": hist["E_velocity"][:, k] for k, a in enumerate("xyz")})
    cols.update({"F4_n": hist["F_ours"][:, 0], "F7_n": hist["F_ours"][:, 1], "F4_lagrange_n": hist["F_paper"][:, 0],
                 "F7_lagrange_n": hist["F_paper"][:, 1]})
    cols.update({f"lambda{k + 1}_n": hist["lam"][:, k] for k in range(4)})
    cols.update({f"f{k + 1}_m": hist["f"][:, k] for k in range(4)})
    header = ",".join(cols)
    np.savetxt(Path(folder) / "paper001.csv", np.column_stack(list(cols.values())), delimiter=",", header=header,
               comments="", fmt="%.10g")
    _plot(hist, Path(folder) / "paper001.png")


def _plot(hist, path):
    """Four panels: the end point's path, the driven and dependent coordinates, the cylinder forces (both
    methods), the pin forces."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t, s = hist["t"], hist["s"]
    fig = plt.figure(figsize=(11, 8))
    ax = fig.add_subplot(2, 2, 1, projection="3d")
    ax.plot(*hist["E"].T)
    ax.set(xlabel="x [m]", ylabel="y [m]", zlabel="z [m]", title="end point E (paper Fig. 2/3)")
    ax = fig.add_subplot(2, 2, 2)
    for k, n in enumerate(lagrange.S_NAMES):
        ax.plot(t, s[:, k] * (10 if n.startswith("d") else 1), label=n + (" [dm]" if n.startswith("d") else " [rad]"))
    ax.set(xlabel="t [s]", title="coordinates (paper Figs. 5, 6)")
    ax.legend(fontsize=7)
    ax = fig.add_subplot(2, 2, 3)
    for k, n in enumerate(("F4", "F7")):
        ax.plot(t, hist["F_ours"][:, k] / 1e3, label=f"{n} cut joints")
        ax.plot(t, hist["F_paper"][:, k] / 1e3, "--", label=f"{n} Lagrange (paper)")
    ax.set(xlabel="t [s]", ylabel="kN", title="cylinder forces")
    ax.legend(fontsize=7)
    ax = fig.add_subplot(2, 2, 4)
    ax.plot(t, np.hypot(*hist["lam"][:, :2].T) / 1e3, label="|pin C|")
    ax.plot(t, np.hypot(*hist["lam"][:, 2:].T) / 1e3, label="|pin G|")
    ax.set(xlabel="t [s]", ylabel="kN", title="rod-eye pin forces")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------------------------------ the FE study
def build(n_frames: int = 51, damping_ratio: float = 0.02) -> Study:
    """Paper 001's motion over 10 s with ``n_frames`` output frames and modal ``damping_ratio``."""
    chain = mechanism()  # the parts' mass properties: those the run takes from the meshes
    return Study(
        name="hydraulic_arm", robot=chain, motion=MOTION, parts=PARTS, t_end=T_END, n_frames=n_frames,
        damping_ratio=damping_ratio, n_modes=6, required_safety_factor=1.5,
        initial_state="moving",  # the paper's laws run at constant speeds from t = 0: a motion already under way
        description="Paper 001 hydraulic arm: theta1 = pi/18 t, d4 = 0.1 + 0.005 t, d7 = 0.1 + 0.02 t",
        parameters={"n_frames": n_frames, "damping_ratio": damping_ratio},
        summary_extra=lambda result: paper_summary(result, chain),
        write_extra=lambda result, folder: write_paper_files(result, folder, chain))


__getattr__ = lazy_study(build)  # `study`, built on first use: `--help` answers at once

if __name__ == "__main__":  # --out DIR, --n-frames, --damping-ratio; exit 0 pass, 1 fail, 2 bad input
    from structcheck.cli import main_for_study

    sys.exit(main_for_study(build))
