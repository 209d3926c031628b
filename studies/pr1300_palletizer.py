"""Paper 000 (Yu, Juanatas, Zheng 2024, Kane inverse dynamics): the PR1300 palletizer's vertical straight line,
rigid-body to FE.

Mechanism (Table 1, Fig. 1; frames and pins in meshes/make_pr1300_meshes.py): turret L1 (J1, vertical), big arm
L2 (J2 = theta2, from the vertical, forward positive) and forearm L3 (J3 = theta3 at the elbow, 0 with the forearm
square to the big arm), driven through the forearm drive parallelogram: the drive arm (crank) C on the shoulder
axis (J2p = theta2', the forearm's angle below the horizontal), the drive linkage K (J3p = theta3' on the crank)
and the cut pin ``pin_R`` joining K to the forearm's rear extension (the paper's theta4'). Eq. (23):
theta3' = theta2 - theta2', theta4' = theta3 = theta2' - theta2, as l2 = l3' and l2' = l4'. The levelling chain
the paper drops from its Kane model (the "locally closed chains II and III" that keep the wrist level) is
modelled too, because Table 2 lists its members: holding link H1 (turret to the elbow triangle T, parallel to the
big arm, cut pin ``pin_H1``) and holding link H2 (T to the wrist bracket W, parallel to the forearm, cut pin
``pin_H2``). Nine moving parts, twelve revolute joints, three planar loops: F = 3 x 9 - 2 x 12 = 3 (theta1,
theta2, theta2'; the wrist rotation theta4 is held, as in the paper's model).

Motion: the tool point (the wrist pin, origin of Table 1's last frame) on the straight line p1 = (1800, 0, 800)
-> p2 = (1800, 0, 1500) mm, distance along it by the modified trapezoid law (a_max 3200 mm/s^2, v_max
1200 mm/s), joint motion by the closed-form inverse kinematics of the paper's right open chain (turret, big arm,
forearm: the law of cosines of :func:`wrist_ik`) written as ADAMS function expressions of the profile's own
expression (:func:`ik_laws`: exact derivatives, and what export-adams writes); theta2' = theta2 + theta3 drives the
crank. The tests check these laws against the CartesianLine's numerical inverse kinematics (:func:`line_motion`).
Gravity 9.8 m/s^2 (the paper's 9800 mm/s^2).

Masses: the parts are HT200 meshes of Table 2's members (our reading of the table, docs/paper000.md); the Table 3
motors and reducers are point masses (J2 and J2p on the turret, J4 on the wrist bracket) with assumed masses
(:data:`DRIVE_MASSES`): the paper gives their models, not their masses. The peak torques of the big arm (J2) and
the forearm (J2p) are compared with the paper's (about 2900 N m at 0.12 s and 700 N m at 0.36 s) in summary.json
(``paper000``) and ``paper000_torques.csv``/``.png``. Structural model: the arm model (the default): the nine
parts as superelements joined at the tree and cut joints, the passive joints free about their axes
(docs/flex.md).

    python studies/pr1300_palletizer.py [--out DIR] [--n-frames 53]
"""
from __future__ import annotations

import functools
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

import structcheck as sc
from structcheck.model.materials import get_material
from structcheck.model.robot import Joint, Link, PointMass, Robot, rot_z, trans
from structcheck.rigid import closedchain as cc
from structcheck.study import Study, lazy_study

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "meshes"))
import make_pr1300_meshes as meshes  # noqa: E402  (the pin positions and the shipped meshes)
import pr1300_paper as paper  # noqa: E402  (the comparisons with paper 000, from a run's results)

DRIVEN = ("J1", "J2", "J2p")
GRAVITY = (0.0, 0.0, -9.8)  # the paper's 9800 mm/s^2
P1 = np.array([1.800, 0.0, 0.800])  # m, world (the paper's path points in mm)
P2 = np.array([1.800, 0.0, 1.500])
A_MAX, V_MAX = 3.200, 1.200  # m/s^2, m/s (the paper's 3200 mm/s^2 and 1200 mm/s)
PAPER_PEAKS = {"J2": (2900.0, 0.12), "J2p": (700.0, 0.36)}  # N m, s: "about", read from the paper's Fig. 5 text
R_ARM = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # arm frames at angle 0: x up, z = L1 y

# Table 3 (verbatim): motor, rotor moment of inertia [kg m^2], reducer, speed ratio, reducer output torque [N m]
TABLE3 = {"J1": ("1FT7102-5AF7", 63.6e-4, "RV-400C", 209, 3752.0),
          "J2": ("1FT7086-1AF7", 63.6e-4, "RV-450E", 192, 4410.0),
          "J2p": ("1FT7086-1AF7", 63.6e-4, "RV-320E", 189, 3136.0),
          "J4": ("1FT7064-1AF7", 11.9e-4, "RV-80E", 121, 784.0)}
# Table 3 drives as point masses [kg] (assumed: the paper names the models only), position [m] in the link frame
DRIVE_MASSES = {
    "motor_J2": ("L1", 15.0 + 66.0, (0.30, 0.50, 0.70)),  # 1FT7086 motor + RV-450E reducer, outboard of J2
    "motor_J2p": ("L1", 15.0 + 44.0, (0.30, -0.45, 0.70)),  # 1FT7086 + RV-320E, outboard of the crank
    "motor_J4": ("W", 8.0 + 13.0, (0.0, 0.45, 0.36)),  # 1FT7064 + RV-80E under the wrist bracket
}


def _place(p, R=np.eye(3)):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def _rev(name, parent, child, origin, lower=-np.pi, upper=np.pi):
    return Joint(name, "revolute", parent, child, origin, np.array([0.0, 0.0, 1.0]), lower, upper)


def _arm_joints():
    """The right open chain of the paper (Section 3.1.1): J1 turret, J2 big arm, J3 forearm at the elbow;
    joint coordinates are the paper's theta1, theta2, theta3 (Table 1 offsets built into the joint frames)."""
    d = np.radians
    return [_rev("J1", "base", "L1", np.eye(4), *d([-180, 180])),
            _rev("J2", "L1", "L2", _place(meshes.SHOULDER, R_ARM), *d([-45, 80])),
            _rev("J3", "L2", "L3", _place((meshes.L_BIG, 0, 0), rot_z(np.pi / 2)[:3, :3]), *d([-120, 120]))]


def _loop_joints():
    """Crank, linkage and levelling chain (their joint frames hold Table 1's offsets: theta2' is 0 with the crank
    pointing back horizontally, theta3' 0 with the linkage square to the crank)."""
    d = np.radians
    return [_rev("J2p", "L1", "C", _place(meshes.SHOULDER, R_ARM @ rot_z(-np.pi / 2)[:3, :3]), *d([-60, 90])),
            _rev("J3p", "C", "K", _place((meshes.L_CRANK, 0, 0), rot_z(np.pi / 2)[:3, :3])),
            _rev("JH1", "L1", "H1", _place(meshes.H1_ON_L1, R_ARM)),
            _rev("JT", "L2", "T", trans(x=meshes.L_BIG)),
            _rev("JH2", "T", "H2", _place(meshes.H2_PIN_ON_T)),
            _rev("JW", "L3", "W", trans(x=meshes.L_FORE))]


def tree_angles(theta):
    """All tree coordinates (n, 9) [rad] in :func:`mechanism`'s order from (n, 3) theta1, theta2, theta2'
    (exact: the loops are parallelograms)."""
    theta = np.atleast_2d(theta)
    t1, t2, t2p = theta.T
    half = np.full_like(t2, np.pi / 2)
    # J1 J2 J3 | J2p J3p JH1 JT JH2 JW: eq. (23) theta3 = t2p - t2, theta3' = t2 - t2p; H1 parallel to L2;
    # T and W level (angle pi/2 from the vertical); H2 parallel to L3
    return np.column_stack([t1, t2, t2p - t2, t2p, t2 - t2p, t2, half - t2, t2p, -t2p])


def parts(material="HT200"):
    """The HT200 parts (meshes/pr1300), link name -> structcheck.Part."""
    return {n: sc.Part.from_mesh(meshes.SHIPPED / f"{n}.msh", material=material) for n in meshes.PARTS}


PARTS = parts()


def _links(part_map):
    """Links with the parts' mass properties and the drives' point masses."""
    out = [Link("base")]
    for name, part in part_map.items():
        mp = part.mass_properties()
        pms = tuple(PointMass(k, m, pos) for k, (ln, m, pos) in DRIVE_MASSES.items() if ln == name)
        out.append(Link(name, mp.mass, tuple(mp.com), tuple(map(tuple, mp.inertia_com)), point_masses=pms))
    return out


def mechanism(home=(0.0, 0.0, 0.0), part_map=None) -> cc.ClosedChain:
    """The PR1300 as a closed chain assembled at the driven pose ``home`` = (theta1, theta2, theta2') [rad], link
    inertials from ``part_map`` (default the shipped HT200 parts) plus the drives' point masses."""
    joints = _arm_joints() + _loop_joints()
    full = tree_angles(np.asarray(home, float))[0]
    joints = [replace(j, home=float(h)) for j, h in zip(joints, full)]
    points = {"tcp": ("L3", (meshes.L_FORE, 0.0, 0.0))}
    tree = Robot(_links(PARTS if part_map is None else part_map), joints, points=points, name="pr1300")
    cuts = [cc.CutJoint("pin_R", "revolute", "K", "L3", trans(x=meshes.L_BIG), trans(x=-meshes.L_CRANK)),
            cc.CutJoint("pin_H1", "revolute", "H1", "T", trans(x=meshes.L_BIG), _place(meshes.H1_PIN_ON_T)),
            cc.CutJoint("pin_H2", "revolute", "H2", "W", trans(x=meshes.L_FORE), _place(meshes.H2_PIN_ON_W))]
    return cc.ClosedChain(tree, cuts, independent=DRIVEN)


def right_chain(home=(0.0, 0.0, 0.0)) -> Robot:
    """The paper's right open chain (turret, big arm, forearm; tool point ``tcp`` at the wrist pin) with home
    (theta1, theta2, theta3) [rad]: the robot the Cartesian line's inverse kinematics runs on."""
    joints = [replace(j, home=float(h)) for j, h in zip(_arm_joints(), home)]
    links = [Link("base"), Link("L1"), Link("L2"), Link("L3")]
    return Robot(links, joints, points={"tcp": ("L3", (meshes.L_FORE, 0.0, 0.0))}, name="pr1300_right_chain")


def wrist_point(theta):
    """The wrist pin (n, 3) [m, world] from (n, 3) theta1, theta2, theta2' [rad] (eq. 21 with the forearm):
    shoulder + l2 (sin theta2, cos theta2) + l3 (cos theta2', -sin theta2') in the arm plane, turned by theta1."""
    t1, t2, t2p = np.atleast_2d(theta).T
    S = meshes.SHOULDER
    r = S[0] + meshes.L_BIG * np.sin(t2) + meshes.L_FORE * np.cos(t2p)
    z = S[2] + meshes.L_BIG * np.cos(t2) - meshes.L_FORE * np.sin(t2p)
    return np.column_stack([r * np.cos(t1), r * np.sin(t1), z])


def wrist_ik(p):
    """Closed-form inverse of :func:`wrist_point` (n, 3) [m] -> (n, 3) [rad], the elbow-up branch (a planar
    two-link arm from the shoulder: law of cosines)."""
    p = np.atleast_2d(p)
    t1 = np.arctan2(p[:, 1], p[:, 0])
    x = np.hypot(p[:, 0], p[:, 1]) - meshes.SHOULDER[0]
    z = p[:, 2] - meshes.SHOULDER[2]
    r = np.hypot(x, z)
    l2, l3 = meshes.L_BIG, meshes.L_FORE
    a_big = np.arctan2(z, x) + np.arccos((l2 * l2 + r * r - l3 * l3) / (2 * l2 * r))  # from the horizontal
    ex, ez = x - l2 * np.cos(a_big), z - l2 * np.sin(a_big)
    return np.column_stack([t1, np.pi / 2 - a_big, -np.arctan2(ez, ex)])


class SumLaw:
    """The sum of motion laws (theta2' = theta2 + theta3 for the crank): value, velocity, acceleration(t, side),
    breakpoints and ramps of its terms."""

    def __init__(self, *laws):
        self.laws = laws
        self.breakpoints = tuple(sorted({b for law in laws for b in getattr(law, "breakpoints", ())}))
        self.ramps = tuple(r for law in laws for r in getattr(law, "ramps", ()))

    def value(self, t):
        return sum(law.value(t) for law in self.laws)

    def velocity(self, t):
        return sum(law.velocity(t) for law in self.laws)

    def acceleration(self, t, side=1):
        return sum(law.acceleration(t, side=side) for law in self.laws)


def profile(v_max=V_MAX, a_max=A_MAX):
    """Distance along the line [m] over time: the modified trapezoid from rest at t = 0 to rest at |p2 - p1|."""
    return sc.motion.ModifiedTrapezoidal(0.0, float(np.linalg.norm(P2 - P1)), v_max, a_max)


def ik_laws(prof, start) -> dict:
    """Driven joint name -> offset [rad] from the ``start`` pose (theta1, theta2, theta2') along the line p1 -> p2
    with distance ``prof`` (a profile with ``adams_text``): :func:`wrist_ik` written as ADAMS function expressions
    of TIME (MotionLaws whose VARIABLEs are the profile's expression S, the tool point PX, PY, PZ, its place in
    the arm plane X, Z from the shoulder, the reach R, the big arm's angle ABIG from the horizontal, the forearm
    EX, EZ), so value, velocity and acceleration are exact (the chain rule on the expression)."""
    S, (l2, l3) = [float(x) for x in meshes.SHOULDER], (float(meshes.L_BIG), float(meshes.L_FORE))
    d = [float(x) for x in (P2 - P1) / np.linalg.norm(P2 - P1)]
    p1, start = [float(x) for x in P1], [float(x) for x in start]
    variables = {"S": prof.adams_text(),
                 **{f"P{c}": f"{p1[k]!r} + {d[k]!r}*VARVAL(S)" for k, c in enumerate("XYZ")},
                 "X": f"SQRT(VARVAL(PX)**2 + VARVAL(PY)**2) - {S[0]!r}", "Z": f"VARVAL(PZ) - {S[2]!r}",
                 "R": "SQRT(VARVAL(X)**2 + VARVAL(Z)**2)",
                 "ABIG": f"ATAN2(VARVAL(Z), VARVAL(X)) + ACOS(({l2 * l2 - l3 * l3!r} + VARVAL(R)**2)"
                         f"/({2 * l2!r}*VARVAL(R)))",
                 "EX": f"VARVAL(X) - {l2!r}*COS(VARVAL(ABIG))", "EZ": f"VARVAL(Z) - {l2!r}*SIN(VARVAL(ABIG))"}
    texts = {"J1": f"ATAN2(VARVAL(PY), VARVAL(PX)) - {start[0]!r}", "J2": f"PI/2 - VARVAL(ABIG) - {start[1]!r}",
             "J2p": f"-ATAN2(VARVAL(EZ), VARVAL(EX)) - {start[2]!r}"}
    return {j: sc.motion.MotionLaw(text, variables=variables) for j, text in texts.items()}


def line_motion(v_max=V_MAX, a_max=A_MAX):
    """(start pose (3,) theta1, theta2, theta2' [rad], the CartesianLine on the right chain, driven joint name ->
    law of the offset from the start pose: the study's :func:`ik_laws`). The line's own joint laws (numerical
    inverse kinematics, ``line.joint_laws()``; theta2' = J2 + J3 by :class:`SumLaw`) are the tests' reference."""
    start = wrist_ik(P1)[0]
    home3 = (start[0], start[1], start[2] - start[1])
    line = sc.motion.CartesianLine(right_chain(home3), "tcp", P1, P2, profile(v_max, a_max), seed=home3)
    return start, line, ik_laws(line.profile, start)


def build(n_frames: int = 53, v_max_mm_s: float = V_MAX * 1e3, a_max_mm_s2: float = A_MAX * 1e3) -> Study:
    """The paper's straight line with the modified trapezoid law (``v_max_mm_s``, ``a_max_mm_s2``) and
    ``n_frames`` output frames over its duration (1.04 s at the paper's 1200 mm/s and 3200 mm/s^2)."""
    prof, start = profile(v_max_mm_s * 1e-3, a_max_mm_s2 * 1e-3), wrist_ik(P1)[0]
    return Study(
        name="pr1300_palletizer", robot=mechanism(start), motion=ik_laws(prof, start), parts=PARTS, t_end=prof.t1,
        n_frames=n_frames, gravity=GRAVITY, damping_ratio=0.02, n_modes=6, required_safety_factor=1.5,
        tool_point="tcp",
        description="Paper 000 PR1300 palletizer, straight line p1 -> p2 with the modified trapezoid law",
        parameters={"n_frames": n_frames, "v_max_mm_s": v_max_mm_s, "a_max_mm_s2": a_max_mm_s2},
        summary_extra=paper_summary, write_extra=write_paper_files, drives=table3_drives())


def table3_drives() -> dict[str, sc.Drive]:
    """Table 3's drives of the driven joints (J4, the wrist, is held by the study): reducer and motor from the
    shipped catalogue, whose entries hold only what the paper prints (ratio, output torque read as the rated
    torque, motor power, speed and rotor inertia). The paper gives no stiffness, so the joints stay rigid in the arm
    model (``stiffness=None``), and no peak limits, life, speed limits or efficiency: those checks are listed as not
    checked, naming the missing datasheet values (docs/paper000.md)."""
    return {j: sc.Drive(reducer=reducer, motor=motor, stiffness=None)
            for j, (motor, _, reducer, _, _) in TABLE3.items() if j in DRIVEN}


@functools.lru_cache(maxsize=1)
def paper_setup() -> paper.PaperSetup:
    """What the paper comparisons need from this study (:mod:`pr1300_paper`): the chain with the shipped parts'
    inertials, assembled at p1, and the Table 2 literal-reading variant."""
    start = wrist_ik(P1)[0]
    return paper.PaperSetup(chain=mechanism(start), tool_link="L3", tool_xyz=(meshes.L_FORE, 0.0, 0.0), p1=P1,
                            p2=P2, peaks=PAPER_PEAKS, driven=DRIVEN, drive_masses=DRIVE_MASSES, gravity=GRAVITY,
                            drives=TABLE3,
                            variants={"table2_literal_mm": literal_table2_chain(start),
                                      "without_levelling_members": massless_chain(start, ("H1", "T", "H2"))})


def bar_link(name, length, side, x0, zc, point_masses=()):
    """A solid square HT200 bar [m] along x from x0, centred at z = zc in the link frame: mass [kg], centre of
    mass and inertia about it (a prism: m (a^2 + b^2) / 12 about each axis)."""
    m = get_material("HT200").density * side * side * length
    ix = m * (2 * side * side) / 12
    iyz = m * (length * length + side * side) / 12
    return Link(name, m, (x0 + length / 2, 0.0, zc), ((ix, 0, 0), (0, iyz, 0), (0, 0, iyz)), point_masses)


def massless_chain(home, links) -> cc.ClosedChain:
    """The mechanism with ``links`` massless (e.g. the levelling members H1, T, H2, which the paper's Kane model
    leaves out; the bracket W then rides on the wrist as the paper's bracket fixed to the forearm)."""
    chain = mechanism(home)
    tree = chain.tree
    for name in links:
        tree = tree.with_link(name, mass=0.0, inertia=((0.0,) * 3,) * 3, point_masses=())
    return chain.with_tree(tree)


def literal_table2_chain(home) -> cc.ClosedChain:
    """The mechanism with Table 2 read literally in mm for the big arm (a solid 25 x 25 mm bar, 1220 mm) and the
    forearm (18 x 18 mm, 1300 mm from the elbow to the wrist, no rear extension); all else as ours."""
    chain = mechanism(home)
    tree = chain.tree
    for link in (bar_link("L2", meshes.L_BIG, 0.025, 0.0, 0.0), bar_link("L3", meshes.L_FORE, 0.018, 0.0, 0.23)):
        tree = tree.with_link(link.name, mass=link.mass, com=link.com, inertia=link.inertia)
    return chain.with_tree(tree)


def paper_summary(result) -> dict:
    """summary_extra hook: ``joints.<J>.max_torque_nm`` and ``paper000`` (see :func:`pr1300_paper.paper_summary`)."""
    return paper.paper_summary(result, paper_setup())


def write_paper_files(result, folder) -> None:
    """write_extra hook: ``paper000_torques.csv`` and ``.png`` (see :func:`pr1300_paper.write_paper_files`)."""
    paper.write_paper_files(result, folder, paper_setup())


__getattr__ = lazy_study(build)  # `study`, built on first use: `--help` answers at once

if __name__ == "__main__":  # --out DIR, --n-frames, --v-max-mm-s, --a-max-mm-s2; exit 0 pass, 1 fail, 2 bad input
    from structcheck.cli import main_for_study

    sys.exit(main_for_study(build))
