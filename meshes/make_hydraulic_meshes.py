"""Link meshes of the hydraulic arm of paper 001 (Chu Anh My, Vu Minh Hoan 2019), our own steel geometry.

    python meshes/make_hydraulic_meshes.py [--out DIR] [--size-factor 1.0]

The paper names the lengths l1, l10, l11, l2, l21, l22, l23, l3, l4, l5, l51, l6, l7 (its Fig. 1, Tables 1-3 and
the centres of mass after eq. (12)); its text does not list their values, but its inverse-kinematics example
determines all but l4, l7 and the split of l11/l22 (below; docs/paper001.md). The shapes and sections are ours. Every pin sits on its link's centre line, as in the paper's constraint equations (4) and (6).
Each part is built in its link frame: x along the link, z along the pin axes (horizontal, normal to the arm's
plane), y = z x x. Lengths in m.

- boom (link 2): pin B (joint ``theta2``) at x = 0, pin C (the first cylinder's rod eye, ``pin_C``) at
  x = l22, pin H (the second cylinder's barrel, ``theta6``) at x = l23 = l2 - l21, elbow F (``theta5``) at
  x = l2;
- arm (link 5): elbow F (``theta5``) at x = 0, pin G (the second cylinder's rod eye, ``pin_G``) at x = l51,
  end point E at x = l5;
- rod_1 (link 4), rod_2 (link 7): piston rods, frame at the rod eye (C or G, tagged ``pin_C`` / ``pin_G``),
  the rod along -x to its piston end at x = -l4 (-l7), whose end face (tagged ``d4`` / ``d7``: the prismatic
  joint, where the cylinder's oil pressure and guidance act) is the rod's support.

Pins are bosses along z with a bore; both boss end faces carry the joint's name.
"""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "hydraulic"

# lengths [m] (paper 001's names). Recovered from the paper's inverse-kinematics example (the closed-form end-point
# path after its eq. 9, which is the forward kinematics of its section 2.2 inputs written out): its terms
# sqrt(9600^2 - (t (t + 200))^2) and sqrt(1600^2 - ((t + 25)^2 - 2000)^2) are cos(theta2) and sin(theta5) by
# eqs. (5), (7) with l3 = l6 = 0.4, l11^2 + l22^2 = 0.25, 2 l11 l22 = 0.24, l21^2 + l51^2 = 0.8, 2 l21 l51 = 0.64;
# its z_E polynomial t^4/12800000 + t^3/51200 + 377 t^2/512000 - 23 t/2560 + 7/10 gives l5 = 1.2, l2 = 0.6,
# l1 = 0.7 (docs/paper001.md). Which of l11, l22 is 0.3 the path cannot tell (ours: l11); l21 = 0.4 <= l2.
L1 = 0.70    # column: ground to the boom pivot B
L11 = 0.30   # column: the first cylinder's pivot A below B
L10 = L1 - L11
L2 = 0.60    # boom: B to the elbow F
L22 = 0.40   # boom: B to the rod eye C
L21 = 0.40   # boom: the second cylinder's pivot H behind F
L23 = L2 - L21
L3 = 0.40    # first cylinder's barrel: A to its mouth (the rod eye C is l3 + d4 from A)
L4 = 0.40    # first cylinder's rod: eye C to the piston end (ours)
L5 = 1.20    # arm: F to the end point E
L51 = 0.80   # arm: F to the rod eye G
L6 = 0.40    # second cylinder's barrel: H to its mouth
L7 = 0.40    # second cylinder's rod (ours)

Z = (0.0, 0.0, 1.0)


def _pinned_bar(b, pins, names, height, width, r_boss, r_bore, x0=None, x1=None):
    """A solid bar along x (``height`` along y, ``width`` along z, from x0 to x1, default the first and last
    pins) with a boss of radius ``r_boss`` (5 mm proud of the bar on each side) and a bore at every pin x in
    ``pins``; both boss faces of a pin tagged with its name (``None``: untagged)."""
    from structcheck.geometry import on_plane

    x0 = min(pins) if x0 is None else x0
    x1 = max(pins) if x1 is None else x1
    length = width + 0.010
    bar = b.box((x0, -height / 2, -width / 2), (x1, height / 2, width / 2))
    bosses = [b.cylinder((x, 0.0, 0.0), Z, r_boss, length) for x in pins]
    bores = [b.cylinder((x, 0.0, 0.0), Z, r_bore, 2 * length) for x in pins]
    b.cut(b.fuse(bar, *bosses), *bores)
    for x, name in zip(pins, names):
        if name:
            b.name_faces(name, lambda c, bb, x=x: any(on_plane(2, z, within=r_boss, center=(x, 0.0, z))(c, bb)
                                                      for z in (-length / 2, length / 2)))


def boom(b):
    """Boom: 120 x 60 mm solid steel bar from B to F; 70 mm radius bosses 70 long, 25 mm bores."""
    _pinned_bar(b, [0.0, L22, L23, L2], ["theta2", "pin_C", "theta6", "theta5"], 0.12, 0.06, 0.070, 0.025)


def arm(b):
    """Arm: 80 x 40 mm solid steel bar from F to E (end plate at E); 55 mm radius bosses, 20 mm bores."""
    _pinned_bar(b, [0.0, L51], ["theta5", "pin_G"], 0.08, 0.04, 0.055, 0.020, x1=L5)


def _rod(b, eye, stroke_end, r_rod, r_eye, r_bore, eye_width):
    """A piston rod of radius ``r_rod`` from its eye (a boss along z at the origin, tagged ``eye``) along -x to
    x = -length, the end face tagged ``stroke_end`` (the prismatic joint)."""
    from structcheck.geometry import on_plane

    length = L4 if stroke_end == "d4" else L7
    shaft = b.cylinder((-length, 0.0, 0.0), (1.0, 0.0, 0.0), r_rod, length, centered=False)
    boss = b.cylinder((0.0, 0.0, 0.0), Z, r_eye, eye_width)
    bore = b.cylinder((0.0, 0.0, 0.0), Z, r_bore, 2 * eye_width)
    b.cut(b.fuse(shaft, boss), bore)
    b.name_faces(eye, lambda c, bb: any(on_plane(2, z, within=r_eye)(c, bb) for z in (-eye_width / 2, eye_width / 2)))
    b.name_faces(stroke_end, on_plane(0, -length))


def rod_1(b):
    """First cylinder's rod: 40 mm diameter; eye 80 mm diameter, 50 wide, 25 mm bore (the boom's pin C)."""
    _rod(b, "pin_C", "d4", 0.020, 0.040, 0.0125, 0.050)


def rod_2(b):
    """Second cylinder's rod: 30 mm diameter; eye 60 mm diameter, 40 wide, 20 mm bore (the arm's pin G)."""
    _rod(b, "pin_G", "d7", 0.015, 0.030, 0.010, 0.040)


# part builder and mesh size [m]: a few thousand quadratic-tetrahedron nodes per part
PARTS = {"boom": (boom, 0.035), "arm": (arm, 0.028), "rod_1": (rod_1, 0.016), "rod_2": (rod_2, 0.013)}
CURVATURE_POINTS = 10


def build_meshes(out: Path = SHIPPED, size_factor: float = 1.0, verbose: bool = True) -> Path:
    """Write ``<part>.msh`` for every part into ``out``; return ``out``."""
    from structcheck.geometry import write_part_meshes

    return write_part_meshes(PARTS, out, size_factor, curvature_points=CURVATURE_POINTS, verbose=verbose)


if __name__ == "__main__":
    from structcheck.geometry import mesh_script

    mesh_script(__doc__.splitlines()[0], build_meshes, SHIPPED)
