"""Link meshes of the PR1300 palletizer of paper 000 (Yu, Juanatas, Zheng 2024), our own simplified geometry.

    python meshes/make_pr1300_meshes.py [--out DIR] [--size-factor 1.0] [--wall-mm 12]

The paper gives the kinematic structure (Table 1, Fig. 1), the members' lengths and cross-sections (Table 2, all
HT200 grey cast iron) and the motors and reducers (Table 3), but no drawings, no masses and no shoulder position.
Each part here is built in its link frame from the pin positions below: the arm members are straight bars
between their pins with a boss (and bore) at every pin, z along the pin axes (world y at theta1 = 0), x along
the member from its proximal pin; the boss end faces are tagged with the joint's name. Members sit side by side
along z (the pin axes), each in its own plane, so that neighbours touch on their joint faces:

    z [mm]      -220..-140  crank C        -130..130  big arm L2 / linkage K (K offset from L2 by the crank)
                 130..330   forearm L3      330..390  triangle T, bracket W       390..450  holding links H1, H2

Table 2 (length x cross-section, mm) read as: lengths are pin-to-pin distances (the parallelograms need
l2 = l3' and l2' = l4', and the holding links' 1220 and 1300 mm equal the big arm's and the forearm's);
big arm 25 x 25 and forearm 18 x 18 read in cm (a 250 x 250 and a 180 x 180 mm box, hollow, ``wall`` mm walls:
read in mm, a 25 mm square cast-iron bar would weigh 5.5 kg, less than a fifteenth of the drive linkage, and
would break under the paper's own 2900 N m); the other members solid bars of the listed sections. See
docs/paper000.md. Lengths in m.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from structcheck.errors import InputError

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "pr1300"
DEFAULT_WALL_MM = 12.0

# Table 2 lengths (pin to pin) and our shoulder placement [m]
L_BIG, L_FORE, L_CRANK = 1.220, 1.300, 0.590  # l2 = l3' (linkage) = H1; l3 = H2; l2' = l4' (forearm rear)
SHOULDER = np.array([0.300, 0.0, 0.700])  # on the turret (l1 forward of the J1 axis, d0 above the floor)
O1 = 0.300  # H1's turret pin and the triangle's H1 pin: this far behind the shoulder / elbow (horizontal)
O2 = 0.300  # H2's pins on the triangle and the bracket: this far above the elbow / wrist (vertical)
H1_ON_L1 = SHOULDER + np.array([-O1, 0.0, 0.0])
H1_PIN_ON_T = np.array([-O1, 0.0, 0.0])  # level frames: x forward, y down, z along the pins
H2_PIN_ON_T = np.array([0.0, -O2, 0.0])
H2_PIN_ON_W = np.array([0.0, -O2, 0.0])
FLANGE_ON_W = np.array([0.0, 0.350, 0.360])  # centre of the J4 motor flange face under the wrist (bracket frame)

Z = (0, 0, 1)


def _zc(z0, z1):
    return 0.5 * (z0 + z1), z1 - z0


def _bar(b, length, width, z0, z1, x0=0.0):
    """Solid bar along x from x0 to x0 + length, ``width`` in y, from z0 to z1."""
    return b.box((x0, -width / 2, z0), (x0 + length, width / 2, z1))


def _boss(b, p, r, z0, z1):
    return b.cylinder((p[0], p[1], z0), Z, r, z1 - z0, centered=False)


def _bore(b, p, r):
    return b.cylinder((p[0], p[1], -1.0), Z, r, 2.0, centered=False)


def _face(b, name, p, z, r):
    """Tag the flat face at z within r of pin p."""
    b.name_faces(name, on_plane(2, z, within=r, center=(p[0], p[1], z)))


def _hollow(b, x0, x1, width, z0, z1, wall, r_boss):
    """A hollow box beam from x0 to x1 (outer width x (z1 - z0)), closed where the pin bosses of radius r_boss
    sit at both ends."""
    outer = b.box((x0, -width / 2, z0), (x1, width / 2, z1))
    inner = b.box((x0 + r_boss, -width / 2 + wall, z0 + wall), (x1 - r_boss, width / 2 - wall, z1 - wall))
    return b.cut(outer, inner)


def link_L1(b, mm):
    """Turret (frame on the J1 axis at the floor, z up): a 800 mm disc 80 mm thick, two cheeks up to the shoulder
    (240 x 70 mm at y -300..-230 on the crank side, 480 x 80 mm at y 140..220 on the big-arm side) with 300 mm
    shoulder bosses (y -330..-220 and 130..390, 160 mm bores for the reducers), and a 160 mm boss for H1's pin
    300 mm behind the shoulder (y 140..390). Faces: J1 the
    underside, J2p (crank) at y = -220, J2 (big arm) at y = 130, JH1 at y = 390; the motors of J2 and J2p mount
    on the outer boss faces (motor_J2 at y = 390, motor_J2p at y = -330)."""
    S, P = SHOULDER, H1_ON_L1
    Y = (0, 1, 0)
    disc = b.cylinder((0, 0, 0), Z, 0.40, 0.08, centered=False)
    cheek_a = b.box((0.18, -0.30, 0.05), (0.42, -0.23, S[2]))
    cheek_b = b.box((-0.06, 0.14, 0.05), (0.42, 0.22, S[2]))
    boss_a = b.cylinder((S[0], -0.33, S[2]), Y, 0.15, 0.11, centered=False)
    boss_b = b.cylinder((S[0], 0.13, S[2]), Y, 0.15, 0.26, centered=False)
    boss_h = b.cylinder((P[0], 0.14, P[2]), Y, 0.08, 0.25, centered=False)
    bores = [b.cylinder((S[0], -1.0, S[2]), Y, 0.08, 2.0, centered=False),
             b.cylinder((P[0], -1.0, P[2]), Y, 0.025, 2.0, centered=False)]
    b.cut(b.fuse(disc, cheek_a, cheek_b, boss_a, boss_b, boss_h), *bores)
    b.name_faces("J1", on_plane(2, 0.0))
    b.name_faces("J2p", on_plane(1, -0.22, within=0.15, center=S))
    b.name_faces("J2", on_plane(1, 0.13, within=0.15, center=S))
    b.name_faces("JH1", on_plane(1, 0.39, within=0.08, center=P))
    b.name_faces("motor_J2", on_plane(1, 0.39, within=0.15, center=S))
    b.name_faces("motor_J2p", on_plane(1, -0.33, within=0.15, center=S))


def link_L2(b, mm):
    """Big arm (x from the shoulder to the elbow, 1220 mm): a 250 x 250 mm hollow box with ``wall`` walls,
    250 mm bosses (z +-130) with 160 mm bores (the reducers' seats). Faces: J2 both shoulder boss faces; J3
    (forearm) at the elbow's z = +130 face, JT (triangle) at its z = -130 face."""
    E = (L_BIG, 0.0)
    beam = _hollow(b, 0.0, L_BIG, 0.25, -0.125, 0.125, mm["wall"] * 1e-3, 0.125)
    bosses = [_boss(b, p, 0.125, -0.13, 0.13) for p in ((0, 0), E)]
    b.cut(b.fuse(beam, *bosses), _bore(b, (0, 0), 0.08), _bore(b, E, 0.08))
    _face(b, "J2", (0, 0), -0.13, 0.125)
    _face(b, "J2", (0, 0), 0.13, 0.125)
    _face(b, "J3", E, 0.13, 0.125)
    _face(b, "JT", E, -0.13, 0.125)


def link_L3(b, mm):
    """Forearm (x from the elbow to the wrist, 1300 mm; its rear extension to the linkage pin 590 mm behind):
    a 180 x 180 mm hollow box (z 140..320) with ``wall`` walls, 180 mm bosses (z 130..330) with 120 mm bores.
    Faces: J3 at the elbow's z = 130 face, pin_R (drive linkage) at the rear boss's z = 130 face, JW (bracket)
    at the wrist's z = 330 face."""
    R, W = (-L_CRANK, 0.0), (L_FORE, 0.0)
    beam = _hollow(b, -L_CRANK, L_FORE, 0.18, 0.14, 0.32, mm["wall"] * 1e-3, 0.09)
    bosses = [_boss(b, p, 0.09, 0.13, 0.33) for p in (R, (0, 0), W)]
    b.cut(b.fuse(beam, *bosses), *[_bore(b, p, 0.06) for p in (R, (0, 0), W)])
    _face(b, "J3", (0, 0), 0.13, 0.09)
    _face(b, "pin_R", R, 0.13, 0.09)
    _face(b, "JW", W, 0.33, 0.09)


def link_C(b, mm):
    """Forearm drive arm (crank, 590 mm between pins): a solid 130 x 70 mm bar (z -215..-145), 130 mm bosses
    (z -220..-140). Faces: J2p both shoulder boss faces, J3p at the tip boss's z = -140 face."""
    T = (L_CRANK, 0.0)
    bar = _bar(b, L_CRANK, 0.13, -0.215, -0.145)
    bosses = [_boss(b, p, 0.065, -0.22, -0.14) for p in ((0, 0), T)]
    b.cut(b.fuse(bar, *bosses), _bore(b, (0, 0), 0.045), _bore(b, T, 0.03))
    _face(b, "J2p", (0, 0), -0.22, 0.065)
    _face(b, "J2p", (0, 0), -0.14, 0.065)
    _face(b, "J3p", T, -0.14, 0.065)


def link_K(b, mm):
    """Forearm drive linkage (1220 mm between pins, parallel to the big arm): a solid 186 x 51 mm bar (z +-25.5),
    186 mm bosses reaching the crank (z -140..25) and the forearm's rear pin (z -25..130). Faces: J3p at
    z = -140, pin_R at z = 130."""
    T = (L_BIG, 0.0)
    bar = _bar(b, L_BIG, 0.186, -0.0255, 0.0255)
    bosses = [_boss(b, (0, 0), 0.093, -0.14, 0.025), _boss(b, T, 0.093, -0.025, 0.13)]
    b.cut(b.fuse(bar, *bosses), _bore(b, (0, 0), 0.03), _bore(b, T, 0.04))
    _face(b, "J3p", (0, 0), -0.14, 0.093)
    _face(b, "pin_R", T, 0.13, 0.093)


def _holding(b, length, proximal, distal):
    """Holding link: a solid 60 x 40 mm bar (z 400..440), 80 mm bosses (z 390..450) with 40 mm bores; the
    proximal joint on both faces at 0, the distal one on the z = 390 face at ``length``."""
    T = (length, 0.0)
    bar = _bar(b, length, 0.06, 0.40, 0.44)
    bosses = [_boss(b, p, 0.04, 0.39, 0.45) for p in ((0, 0), T)]
    b.cut(b.fuse(bar, *bosses), _bore(b, (0, 0), 0.02), _bore(b, T, 0.02))
    _face(b, proximal, (0, 0), 0.39, 0.04)
    _face(b, proximal, (0, 0), 0.45, 0.04)
    _face(b, distal, T, 0.39, 0.04)


def link_H1(b, mm):
    """Horizontal holding link 1 (1220 mm, parallel to the big arm), turret to triangle."""
    _holding(b, L_BIG, "JH1", "pin_H1")


def link_H2(b, mm):
    """Horizontal holding link 2 (1300 mm, parallel to the forearm), triangle to bracket."""
    _holding(b, L_FORE, "JH2", "pin_H2")


def link_T(b, mm):
    """Levelling triangle at the elbow (level frame: x forward, y down): 80 x 40 mm bars (z 340..380) joining
    the elbow pin, the H1 pin 300 mm behind and the H2 pin 300 mm above; 100 mm bosses (z 330..390). Faces: JT
    at the elbow boss's z = 330 face, pin_H1 and JH2 at their bosses' z = 390 faces."""
    O, P1, P2 = np.zeros(2), H1_PIN_ON_T[:2], H2_PIN_ON_T[:2]
    solids = []
    for p, q in ((O, P1), (O, P2), (P1, P2)):
        bar = _bar(b, float(np.hypot(*(q - p))), 0.08, 0.34, 0.38)
        b.occ.rotate(bar, 0, 0, 0, 0, 0, 1, float(np.arctan2(q[1] - p[1], q[0] - p[0])))
        b.occ.translate(bar, p[0], p[1], 0.0)
        solids.append(bar)
    solids += [_boss(b, p, 0.05, 0.33, 0.39) for p in (O, P1, P2)]
    b.cut(b.fuse(*solids), _bore(b, O, 0.03), _bore(b, P1, 0.02), _bore(b, P2, 0.02))
    _face(b, "JT", O, 0.33, 0.05)
    _face(b, "pin_H1", P1, 0.39, 0.05)
    _face(b, "JH2", P2, 0.39, 0.05)


def link_W(b, mm):
    """Wrist bracket (level frame: x forward, y down): a 160 x 40 mm plate (z 340..380) from the H2 pin 300 mm
    above the wrist down to the J4 motor flange 350 mm below it, a 200 x 120 mm flange block (z 300..420) at the
    bottom; 100 mm bosses (z 330..390). Faces: JW at the wrist boss's z = 330 face, pin_H2 at the upper boss's
    z = 390 face, motor_J4 the flange block's underside (y = 350)."""
    W, P2 = np.zeros(2), H2_PIN_ON_W[:2]
    plate = b.box((-0.08, P2[1], 0.34), (0.08, FLANGE_ON_W[1] - 0.06, 0.38))
    block = b.box((-0.10, FLANGE_ON_W[1] - 0.06, 0.30), (0.10, FLANGE_ON_W[1], 0.42))
    bosses = [_boss(b, p, 0.05, 0.33, 0.39) for p in (W, P2)]
    b.cut(b.fuse(plate, block, *bosses), _bore(b, W, 0.03), _bore(b, P2, 0.02))
    _face(b, "JW", W, 0.33, 0.05)
    _face(b, "pin_H2", P2, 0.39, 0.05)
    b.name_faces("motor_J4", on_plane(1, FLANGE_ON_W[1], within=0.12, center=FLANGE_ON_W))


# part builder and mesh size [m]: a few thousand quadratic-tetrahedron nodes per part
PARTS = {"L1": (link_L1, 0.07), "L2": (link_L2, 0.05), "L3": (link_L3, 0.045), "C": (link_C, 0.035),
         "K": (link_K, 0.05), "H1": (link_H1, 0.03), "T": (link_T, 0.03), "H2": (link_H2, 0.03),
         "W": (link_W, 0.035)}
CURVATURE_POINTS = 10  # elements around a boss


def build_meshes(out: Path = SHIPPED, size_factor: float = 1.0, wall_mm: float = DEFAULT_WALL_MM,
                 verbose: bool = True) -> Path:
    """Write ``<part>.msh`` for every part into ``out``; return ``out``. ``wall_mm``: wall of the big arm and
    forearm boxes [mm]."""
    from structcheck.geometry import write_part_meshes

    if not (isinstance(wall_mm, (int, float)) and 3.0 <= wall_mm <= 60.0):
        raise InputError(f"wall_mm must be between 3 and 60 mm (the forearm box is 180 mm wide), got {wall_mm!r}")
    return write_part_meshes(PARTS, out, size_factor, args=({"wall": float(wall_mm)},),
                             curvature_points=CURVATURE_POINTS, verbose=verbose)


from structcheck.geometry import on_plane  # noqa: E402  (used by the part functions above)

if __name__ == "__main__":
    from structcheck.geometry import mesh_script

    mesh_script(__doc__.splitlines()[0], build_meshes, SHIPPED,
                (("--wall-mm", dict(type=float, default=DEFAULT_WALL_MM, help="big arm and forearm box wall [mm]")),))
