"""Link meshes of paper 004's loading/unloading robot (our own geometry; the paper gives none).

    python meshes/make_paper004_meshes.py [--wall-mm 8] [--out DIR] [--size-factor 1.0]

Each part is built in its modified D-H link frame (Table 1: d1 = 250, a2 = 385, a3 = 392, d6 = 188 mm), joint i's
axis being z_i through the frame origin. Joints are flanged: neighbouring parts touch on flat annular faces
normal to the joint axis, tagged with the joint's name (``joint1`` .. ``joint6``); the base's floor face is
``ground``; the claws' gripping pads are ``claw_left`` and ``claw_right``. Sizing is that of a 20 kg-payload arm
of 0.8 m reach; dimensions in mm are the constants below (see README.md beside the meshes).
"""
from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

from structcheck.errors import InputError

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "paper004"
DEFAULT_WALL_MM = 8.0
A2, A3, D6 = 0.385, 0.392, 0.188

# named points on the gripper (frame 6): the pad centres where the two 98 N forces act, and the tool point
CLAW_Z = 0.115
POINTS = {"claw_left": ("gripper", (0.045, 0.0, CLAW_Z)), "claw_right": ("gripper", (-0.045, 0.0, CLAW_Z)),
          "tcp": ("gripper", (0.0, 0.0, CLAW_Z))}

X, Y, Z = (1, 0, 0), (0, 1, 0), (0, 0, 1)


def base(b, mm):
    """Pedestal (frame 0 = world): tube 240 mm OD x 25 mm wall, 130 mm high, with a 20 mm top plate."""
    shell = b.tube((0, 0, 0), Z, 0.12, 0.095, 0.13, centered=False)
    top = b.cylinder((0, 0, 0.11), Z, 0.12, 0.02, centered=False)
    b.fuse(shell, top)
    b.name_faces("ground", on_plane(2, 0.0))
    b.name_faces("joint1", on_plane(2, 0.13))


def waist(b, mm):
    """Turntable 220 mm dia x 25 mm on the base top (frame-1 z = -0.120), a 140 x 90 mm column up to the
    shoulder housing: a 150 mm dia boss along y1 (the shoulder axis), 60 mm bore, flange face at y1 = 50 mm."""
    table = b.cylinder((0, 0, -0.12), Z, 0.11, 0.025, centered=False)
    column = b.box((-0.07, 0.065, -0.0955), (0.07, 0.155, 0.0))
    boss = b.cylinder((0, 0.05, 0), Y, 0.075, 0.105, centered=False)
    bore = b.cylinder((0, 0.04, 0), Y, 0.03, 0.13, centered=False)
    b.cut(b.fuse(table, column, boss), bore)
    b.name_faces("joint1", on_plane(2, -0.12))
    b.name_faces("joint2", on_plane(1, 0.05, within=0.01))


def upper_arm(b, mm):
    """Big arm (frame 2, x2 along the arm, z2 the shoulder axis): hollow rectangular beam 110 (y) x 80 (z) mm
    with ``wall`` mm walls between a 140 mm shoulder boss (60 mm bore) and a 120 mm elbow boss at x2 = 385 mm
    (50 mm bore), both 100 mm wide along z. Flange faces: joint2 at z2 = -50 mm, joint3 both sides z2 = +-50 mm."""
    t = mm["wall"] / 1000
    beam = b.box((0.0, -0.055, -0.04), (A2, 0.055, 0.04))
    hollow = b.box((0.07, -0.055 + t, -0.04 + t), (A2 - 0.065, 0.055 - t, 0.04 - t))
    shoulder = b.cylinder((0, 0, 0), Z, 0.07, 0.10)
    elbow = b.cylinder((A2, 0, 0), Z, 0.06, 0.10)
    bores = (b.cylinder((0, 0, 0), Z, 0.03, 0.12), b.cylinder((A2, 0, 0), Z, 0.025, 0.12))
    b.cut(b.fuse(b.cut(beam, hollow), shoulder, elbow), *bores)
    b.name_faces("joint2", on_plane(2, -0.05, within=0.01))
    b.name_faces("joint3", lambda c, bb: (on_plane(2, 0.05, within=0.01, center=(A2, 0, 0))(c, bb)
                                          or on_plane(2, -0.05, within=0.01, center=(A2, 0, 0))(c, bb)))


def forearm(b, mm):
    """Small arm (frame 3): a fork at the elbow (two 120 mm dia cheeks, 20 mm thick, inner faces at z3 = +-50 mm)
    carried by plates into a hollow 90 (y) x 140 (z) mm beam with 6 mm walls, and a fork at the wrist (two
    90 mm cheeks, inner faces at z3 = +-40 mm) at x3 = 392 mm."""
    beam = b.box((0.07, -0.045, -0.07), (0.33, 0.045, 0.07))
    hollow = b.box((0.085, -0.039, -0.064), (0.315, 0.039, 0.064))
    parts = [b.cut(beam, hollow)]
    for s in (1, -1):
        lo, hi = sorted((s * 0.05, s * 0.07))
        parts.append(b.cylinder((0, 0, (lo + hi) / 2), Z, 0.06, hi - lo))
        plo, phi = sorted((s * 0.055, s * 0.07))
        parts.append(b.box((0.0, -0.045, plo), (0.09, 0.045, phi)))
        lo, hi = sorted((s * 0.04, s * 0.06))
        parts.append(b.cylinder((A3, 0, (lo + hi) / 2), Z, 0.045, hi - lo))
        plo, phi = sorted((s * 0.045, s * 0.07))
        parts.append(b.box((0.31, -0.04, plo), (A3, 0.04, phi)))
    bores = (b.cylinder((0, 0, 0), Z, 0.025, 0.2), b.cylinder((A3, 0, 0), Z, 0.015, 0.2))
    b.cut(b.fuse(*parts), *bores)
    b.name_faces("joint3", lambda c, bb: any(on_plane(2, s * 0.05, within=0.01)(c, bb) for s in (1, -1)))
    b.name_faces("joint4", lambda c, bb: any(on_plane(2, s * 0.04, within=0.01, center=(A3, 0, 0))(c, bb)
                                             for s in (1, -1)))


def wrist(b, mm):
    """Wrist knuckle (frame 4): a 90 mm dia hub along z4 (80 mm long, 30 mm bore) between the forearm's cheeks,
    and a 70 mm dia spigot along +y4 (joint 5's axis) to its flange face at y4 = 70 mm."""
    hub = b.cylinder((0, 0, 0), Z, 0.045, 0.08)
    spigot = b.cylinder((0, 0, 0), Y, 0.035, 0.07, centered=False)
    bore = b.cylinder((0, 0, 0), Z, 0.015, 0.1)
    b.cut(b.fuse(hub, spigot), bore)
    b.name_faces("joint4", lambda c, bb: any(on_plane(2, s * 0.04, within=0.01)(c, bb) for s in (1, -1)))
    b.name_faces("joint5", on_plane(1, 0.07))


def wrist_roll(b, mm):
    """Wrist roll (frame 5, z5 along joint 5 = joint 6 axis): an 80 mm dia tube (12 mm wall) with closed ends
    from z5 = 70 mm to the tool flange at z5 = 188 mm."""
    body = b.cylinder((0, 0, 0.07), Z, 0.04, D6 - 0.07, centered=False)
    inner = b.cylinder((0, 0, 0.085), Z, 0.028, D6 - 0.07 - 0.03, centered=False)
    b.cut(body, inner)
    b.name_faces("joint5", on_plane(2, 0.07))
    b.name_faces("joint6", on_plane(2, D6))


def gripper(b, mm):
    """Gripper (frame 6 at the tool flange, z6 outward): 80 mm flange disc 15 mm thick, a 140 x 40 x 20 mm palm
    and two 15 x 30 x 100 mm claws at x6 = +-(50..65) mm with 30 x 30 mm gripping pads (faces at x6 = +-45 mm,
    centred at z6 = 115 mm)."""
    flange = b.cylinder((0, 0, 0), Z, 0.04, 0.015, centered=False)
    palm = b.box((-0.07, -0.02, 0.015), (0.07, 0.02, 0.035))
    parts = [flange, palm]
    for s in (1, -1):
        lo, hi = sorted((s * 0.05, s * 0.065))
        parts.append(b.box((lo, -0.015, 0.035), (hi, 0.015, 0.135)))
        lo, hi = sorted((s * 0.045, s * 0.05))
        parts.append(b.box((lo, -0.015, CLAW_Z - 0.015), (hi, 0.015, CLAW_Z + 0.015)))
    b.fuse(*parts)
    b.name_faces("joint6", on_plane(2, 0.0))
    b.name_faces("claw_left", on_plane(0, 0.045))
    b.name_faces("claw_right", on_plane(0, -0.045))


# mesh size [m] per part: at least as fine as the paper's 17,109-node ANSYS mesh in total, and about two
# quadratic elements through the thin walls
PARTS = {"base": (base, 0.028), "waist": (waist, 0.024), "upper_arm": (upper_arm, 0.016),
         "forearm": (forearm, 0.016), "wrist": (wrist, 0.012), "wrist_roll": (wrist_roll, 0.012),
         "gripper": (gripper, 0.009)}


# the upper arm's outer section (y, z) [mm] as built by upper_arm(): its walls meet in the middle at half the
# smaller dimension, so the wall must stay below that
UPPER_ARM_SECTION_MM = (110.0, 80.0)
WALL_RANGE_MM = (1.0, min(UPPER_ARM_SECTION_MM) / 2)  # [min, max)


def check_wall(wall_mm) -> float:
    """``wall_mm`` [mm] as a float, or InputError stating the allowed range."""
    lo, hi = WALL_RANGE_MM
    is_number = isinstance(wall_mm, (int, float, np.integer, np.floating)) and not isinstance(wall_mm, bool)
    w = float(wall_mm) if is_number else float("nan")
    if not (np.isfinite(w) and lo <= w < hi):
        raise InputError(f"upper-arm wall_mm must be a number of mm with {lo:g} <= wall_mm < {hi:g} (half the "
                         f"arm's {UPPER_ARM_SECTION_MM[0]:g} x {UPPER_ARM_SECTION_MM[1]:g} mm section), "
                         f"got {wall_mm!r}")
    return w


def build_meshes(out: Path, wall_mm: float = DEFAULT_WALL_MM, size_factor: float = 1.0, verbose=True) -> Path:
    """Write ``<part>.msh`` for every part into ``out``; return ``out``."""
    from structcheck.geometry import PartBuilder

    wall_mm = check_wall(wall_mm)
    if not (isinstance(size_factor, (int, float)) and np.isfinite(size_factor) and size_factor > 0):
        raise InputError(f"size_factor must be a positive number (1.0: the shipped mesh sizes), got {size_factor!r}")
    out.mkdir(parents=True, exist_ok=True)
    for name, (fn, size) in PARTS.items():
        with PartBuilder(name, size * size_factor) as b:
            fn(b, {"wall": wall_mm})
            b.build(None)
            b.write(out / f"{name}.msh")
        if verbose:
            import meshio

            m = meshio.read(out / f"{name}.msh")
            tets = m.cells_dict["tetra"]
            edges = np.unique(np.sort(tets[:, [0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3]].reshape(-1, 2), axis=1), axis=0)
            print(f"{name:<11} vertices {len(np.unique(tets)):6d}  tets {len(tets):6d}  "
                  f"P2 nodes {len(np.unique(tets)) + len(edges):7d}")
    return out


def mesh_cache_key() -> str:
    """Hash of everything a generated mesh depends on: this script (the part shapes and sizes),
    structcheck/fe/geometry.py (PartBuilder: how parts are built, named and meshed) and gmsh's version."""
    import gmsh

    import structcheck.fe.geometry

    h = hashlib.sha1()
    for path in (Path(__file__), Path(structcheck.fe.geometry.__file__)):
        h.update(path.read_bytes())
    h.update(str(gmsh.__version__).encode())
    return h.hexdigest()[:10]


def mesh_folder(wall_mm: float = DEFAULT_WALL_MM) -> Path:
    """The shipped meshes for the default wall; for another wall, meshes generated once into a cache folder
    (``~/.cache/structcheck/paper004-wall<mm>mm-<key>``, key: :func:`mesh_cache_key`) and reused."""
    wall_mm = check_wall(wall_mm)
    if wall_mm == DEFAULT_WALL_MM:
        return SHIPPED
    folder = Path.home() / ".cache" / "structcheck" / f"paper004-wall{wall_mm:g}mm-{mesh_cache_key()}"
    if not all((folder / f"{n}.msh").is_file() for n in PARTS):
        import shutil
        import tempfile

        folder.parent.mkdir(parents=True, exist_ok=True)
        # build in a private folder, then move it in whole: an interrupted or concurrent build never leaves
        # (or returns) a folder with some parts missing
        tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
        try:
            build_meshes(tmp, wall_mm, verbose=False)
            if folder.exists():  # incomplete leftover, or another process finished first
                if all((folder / f"{n}.msh").is_file() for n in PARTS):
                    return folder
                shutil.rmtree(folder)
            tmp.replace(folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return folder


# `on_plane` is used by the part functions above
from structcheck.geometry import on_plane  # noqa: E402

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wall-mm", type=float, default=DEFAULT_WALL_MM, help="upper-arm wall thickness [mm]")
    ap.add_argument("--out", type=Path, default=SHIPPED)
    ap.add_argument("--size-factor", type=float, default=1.0, help="scale every part's mesh size")
    a = ap.parse_args()
    try:
        build_meshes(a.out, a.wall_mm, a.size_factor)
    except (InputError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
