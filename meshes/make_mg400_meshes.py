"""Link meshes of the DOBOT MG400 of paper 002 (Zhang, Li, Zhang 2023), our own simplified geometry.

    python meshes/make_mg400_meshes.py [--out DIR] [--size-factor 1.0]

The paper gives the placement of every part's reference frame (Table 1, at the zero pose) and the joint-module
transforms (Table 5), the part masses (Table 6, CAD solids at 2700 kg/m^3), but not the shapes. Each part here is
built in its link frame (the paper's A_i frame, except L33, whose link frame sits on its joint at the elbow,
43 mm ahead of A33) from the pin positions below: bars between the pins, a boss with a bore at every pin, its
two end faces (normal to the pin axis, link z for the arm parts) tagged with the joint's name. The parts are
sized so that at 2700 kg/m^3 their mass is within 0.6-1.6x of Table 6 (the study then sets each part's density
so that its mass equals Table 6 exactly). Lengths in m.

Pin positions (link frames, at the zero pose all arm frames have z along world +y):

- L1 (turret, z up on the J1 axis): J2 and J31 at (43.5, 0, 105) mm along y, J2a at (4.53, 0, 127.5) mm along y
  (Table 1: A2a at (-0.47, 0, 250.5) mm in A0 whose origin is 5 mm behind the J1 axis: 45 mm from J2).
- L2 (upper arm, x along the arm): J2 at 0, elbow (J2b, J33) at x = 175 mm.
- L2a (rear rod of the levelling parallelogram): J2a at 0, its top pin at x = 175 mm.
- L2b (levelling plate at the elbow, x forward, y down): J2b at 0, P = (-38.97, -22.5) mm (top of L2a),
  Q = (28.93, -34.47) mm (Table 5, RT_2b_33a: start of L33a); both 45 mm from the elbow.
- L31 (J3 drive crank on the J2 axis): J31 at 0, J32 at (0, -43) mm (Table 5, RT_31_32).
- L32 (J3 drive rod): J32 at 0, its top pin at x = 175 mm.
- L33 (forearm, frame at the elbow, x forward): J33 at 0, rear pin (L32) at x = -43 mm, J33b at x = 175 mm.
- L33a (upper rod of the second parallelogram): J33a at 0, far pin at x = 175 mm.
- L33b (end plate, x forward, y down): J33b at 0, R = (28.93, -34.47) mm (end of L33a), J4 at (66, 36) mm with
  its axis along -y (world up) (Table 5, RT_33b_4).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "mg400"
MM = 1e-3

# pins in the link frames [m] (module docstring); the study builds its joints from these
L_ARM = 0.175
J2_ON_L1 = np.array([43.5, 0.0, 105.0]) * MM
J2A_ON_L1 = np.array([4.53, 0.0, 127.5]) * MM
P_ON_L2B = np.array([-38.97, -22.5, 0.0]) * MM
Q_ON_L2B = np.array([28.93, -34.47, 0.0]) * MM
J32_ON_L31 = np.array([0.0, -43.0, 0.0]) * MM
REAR_ON_L33 = np.array([-43.0, 0.0, 0.0]) * MM
R_ON_L33B = np.array([28.93, -34.47, 0.0]) * MM
J4_ON_L33B = np.array([66.0, 36.0, 0.0]) * MM

X, Y, Z = (1, 0, 0), (0, 1, 0), (0, 0, 1)


def _bar(b, p, q, width, thick, zc):
    """A straight bar (box) of ``width`` x ``thick`` [m] from point p to q in the plane z = zc."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    length = float(np.hypot(*(q - p)[:2]))
    box = b.box((0.0, -width / 2, zc - thick / 2), (length, width / 2, zc + thick / 2))
    b.occ.rotate(box, 0, 0, 0, 0, 0, 1, math.atan2(q[1] - p[1], q[0] - p[0]))
    b.occ.translate(box, p[0], p[1], 0.0)
    return box


def _boss(b, p, r, length, zc):
    """A boss (solid cylinder) of radius r along z at pin p, centred at z = zc."""
    return b.cylinder((p[0], p[1], zc), Z, r, length)


def _bore(b, p, r):
    return b.cylinder((p[0], p[1], 0.0), Z, r, 0.2)


def _faces(b, name, p, z_faces, r):
    """Tag the boss end faces at z in ``z_faces`` around pin p with ``name``."""
    b.name_faces(name, lambda c, bb: any(on_plane(2, z, within=r, center=(p[0], p[1], z))(c, bb) for z in z_faces))


def rod(b, pins, names, width, thick, r, bore, zc=0.0):
    """A rod through ``pins`` (consecutive pins joined by bars), a boss of radius r (2 mm proud of the bar on each
    side) at every pin with a bore, both boss faces of pin k tagged ``names[k]``."""
    length = thick + 0.004
    solids = [_bar(b, p, q, width, thick, zc) for p, q in zip(pins[:-1], pins[1:])]
    solids += [_boss(b, p, r, length, zc) for p in pins]
    b.cut(b.fuse(*solids), *[_bore(b, p, bore) for p in pins])
    for p, name in zip(pins, names):
        if name:
            _faces(b, name, p, (zc - length / 2, zc + length / 2), r)
    return length


def link_L1(b):
    """Turret (frame on the J1 axis, z up): a 150 mm disc 25 mm thick, a 100 x 80 x 125 mm housing, bosses along
    y for J2/J31 (36 mm dia, J2 face at y = +44 mm, J31 face at y = -44 mm) and J2a (30 mm dia, face at
    y = +44 mm). J1 is the disc's underside."""
    disc = b.cylinder((0, 0, 0), Z, 0.075, 0.025, centered=False)
    house = b.box((-0.030, -0.040, 0.025), (0.070, 0.040, 0.150))
    boss2 = b.cylinder(J2_ON_L1, Y, 0.018, 0.088)
    boss2a = b.cylinder(J2A_ON_L1, Y, 0.015, 0.088)
    bores = [b.cylinder(J2_ON_L1, Y, 0.006, 0.2), b.cylinder(J2A_ON_L1, Y, 0.005, 0.2)]
    b.cut(b.fuse(disc, house, boss2, boss2a), *bores)
    b.name_faces("J1", on_plane(2, 0.0))
    b.name_faces("J2", on_plane(1, 0.044, within=0.02, center=J2_ON_L1))
    b.name_faces("J31", on_plane(1, -0.044, within=0.02, center=J2_ON_L1))
    b.name_faces("J2a", on_plane(1, 0.044, within=0.017, center=J2A_ON_L1))


def link_L2(b):
    """Upper arm: 24 x 14 mm bar, 28 mm bosses; the elbow boss carries J33 on its -z face, J2b on its +z face."""
    O, E = np.zeros(3), np.array([L_ARM, 0, 0])
    length = rod(b, [O, E], ["J2", None], 0.024, 0.014, 0.014, 0.005)
    _faces(b, "J33", E, (-length / 2,), 0.014)
    _faces(b, "J2b", E, (length / 2,), 0.014)


def link_L2a(b):
    """Rear rod of the levelling parallelogram: 26 x 12 mm bar, 26 mm bosses, beside L2 (z = +28 mm)."""
    rod(b, [np.zeros(3), np.array([L_ARM, 0, 0])], ["J2a", "pin_2a_2b"], 0.026, 0.012, 0.013, 0.004, zc=0.028)


def link_L2b(b):
    """Levelling plate: a triangle of 18 x 10 mm bars joining the elbow, P and Q; 20 mm bosses (z = +16 mm)."""
    O = np.zeros(3)
    zc, thick, r = 0.016, 0.010, 0.010
    length = thick + 0.004
    solids = [_bar(b, p, q, 0.018, thick, zc) for p, q in ((O, P_ON_L2B), (O, Q_ON_L2B), (P_ON_L2B, Q_ON_L2B))]
    solids += [_boss(b, p, r, length, zc) for p in (O, P_ON_L2B, Q_ON_L2B)]
    b.cut(b.fuse(*solids), *[_bore(b, p, 0.004) for p in (O, P_ON_L2B, Q_ON_L2B)])
    for p, name in ((O, "J2b"), (P_ON_L2B, "pin_2a_2b"), (Q_ON_L2B, "J33a")):
        _faces(b, name, p, (zc - length / 2, zc + length / 2), r)


def link_L31(b):
    """J3 drive crank, 43 mm between pins: 10 x 6 mm bar, 14 mm bosses (z = -44 mm)."""
    rod(b, [np.zeros(3), J32_ON_L31], ["J31", "J32"], 0.010, 0.006, 0.007, 0.004, zc=-0.044)


def link_L32(b):
    """J3 drive rod: 8 x 6 mm bar, 12 mm bosses (z = -34 mm)."""
    rod(b, [np.zeros(3), np.array([L_ARM, 0, 0])], ["J32", "pin_32_33"], 0.008, 0.006, 0.006, 0.003, zc=-0.034)


def link_L33(b):
    """Forearm from the rear pin (-43 mm) to the end (175 mm): 14 x 10 mm bar, 18 mm bosses (z = -18 mm)."""
    rod(b, [REAR_ON_L33, np.zeros(3), np.array([L_ARM, 0, 0])], ["pin_32_33", "J33", "J33b"], 0.014, 0.010,
        0.009, 0.004, zc=-0.018)


def link_L33a(b):
    """Upper rod of the second parallelogram: 18 x 12 mm bar, 20 mm bosses (z = +28 mm)."""
    rod(b, [np.zeros(3), np.array([L_ARM, 0, 0])], ["J33a", "pin_33a_33b"], 0.018, 0.012, 0.010, 0.004,
        zc=0.028)


def link_L33b(b):
    """End plate: a 92 x 60 x 20 mm block around the J33b and R pins (24 mm long, 20 mm dia bosses), and the J4
    housing, a 36 mm dia cylinder along y down to its flange face at y = 36 mm (the face L4 turns on)."""
    plate = b.box((-0.012, -0.040, -0.010), (0.080, 0.020, 0.010))
    bosses = [_boss(b, p, 0.010, 0.024, 0.0) for p in (np.zeros(3), R_ON_L33B)]
    house = b.cylinder((J4_ON_L33B[0], 0.010, 0.0), Y, 0.018, J4_ON_L33B[1] - 0.010, centered=False)
    b.cut(b.fuse(plate, *bosses, house), *[_bore(b, p, 0.004) for p in (np.zeros(3), R_ON_L33B)])
    _faces(b, "J33b", np.zeros(3), (-0.012, 0.012), 0.010)
    _faces(b, "pin_33a_33b", R_ON_L33B, (-0.012, 0.012), 0.010)
    b.name_faces("J4", on_plane(1, J4_ON_L33B[1], within=0.005, center=J4_ON_L33B))


# part builder and mesh size [m]: a few thousand quadratic-tetrahedron nodes per part
PARTS = {"L1": (link_L1, 0.022), "L2": (link_L2, 0.009), "L2a": (link_L2a, 0.009), "L2b": (link_L2b, 0.007),
         "L31": (link_L31, 0.005), "L32": (link_L32, 0.006), "L33": (link_L33, 0.007), "L33a": (link_L33a, 0.009),
         "L33b": (link_L33b, 0.012)}
CURVATURE_POINTS = 10  # elements around a boss


def build_meshes(out: Path = SHIPPED, size_factor: float = 1.0, verbose: bool = True) -> Path:
    """Write ``<part>.msh`` for every part into ``out``; return ``out``."""
    from structcheck.geometry import write_part_meshes

    return write_part_meshes(PARTS, out, size_factor, curvature_points=CURVATURE_POINTS, verbose=verbose)


from structcheck.geometry import on_plane  # noqa: E402  (used by the part functions above)

if __name__ == "__main__":
    from structcheck.geometry import mesh_script

    mesh_script(__doc__.splitlines()[0], build_meshes, SHIPPED)
