"""Link meshes of paper 004's loading/unloading robot (our own geometry; the paper gives none).

    python meshes/make_paper004_meshes.py [--wall-mm 8] [--out DIR] [--size-factor 1.0] [--order 2]
                                          [--fillet-elements N]

Each part is built in its modified D-H link frame (Table 1: d1 = 250, a2 = 385, a3 = 392, d6 = 188 mm), joint i's
axis being z_i through the frame origin. Joints are flanged: neighbouring parts touch on flat annular faces
normal to the joint axis, tagged with the joint's name (``joint1`` .. ``joint6``); the base's floor face is
``ground``; the claws' gripping pads are ``claw_left`` and ``claw_right``. Sizing is that of a 20 kg-payload arm
of 0.8 m reach; dimensions in mm are the constants below (see README.md beside the meshes). Every re-entrant
corner on the load path is filleted (radii in ``FILLET``), its fillet meshed finer (``FILLET_ELEMENTS`` elements
across its quarter circle), and balls of finer elements sit where the peaks are (``PEAK_BALLS``); the meshes are
second order (curved 10-node tets) unless ``--order 1``.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from structcheck.errors import InputError
from structcheck.fe import geometry

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "paper004"
DEFAULT_WALL_MM = 8.0
A2, A3, D6 = 0.385, 0.392, 0.188

# named points on the gripper (frame 6): the pad centres where the two 98 N forces act, and the tool point
CLAW_Z = 0.115
POINTS = {"claw_left": ("gripper", (0.045, 0.0, CLAW_Z)), "claw_right": ("gripper", (-0.045, 0.0, CLAW_Z)),
          "tcp": ("gripper", (0.0, 0.0, CLAW_Z))}

X, Y, Z = (1, 0, 0), (0, 1, 0), (0, 0, 1)


def box_edges(lo, hi, tol=1e-6):
    """Predicate: an edge whose bounding box lies inside the box ``lo`` .. ``hi`` (3,) [m], widened by ``tol``."""
    lo, hi = np.asarray(lo, float) - tol, np.asarray(hi, float) + tol
    return lambda c, bb: bool(np.all(bb[:3] >= lo) and np.all(bb[3:] <= hi))


def circle_edge(radius, z, tol=1e-6):
    """Predicate: a full circle of ``radius`` [m] about the z axis in the plane at height ``z`` [m]."""
    return lambda c, bb: (abs(bb[3] - radius) < tol and abs(bb[0] + radius) < tol and abs(bb[2] - z) < tol
                          and abs(bb[5] - z) < tol)


def base(b, mm):
    """Pedestal (frame 0 = world): tube 240 mm OD x 25 mm wall, 130 mm high, with a 20 mm top plate; the tube's
    inside meets the plate in an R15 fillet."""
    shell = b.tube((0, 0, 0), Z, 0.12, 0.095, 0.13, centered=False)
    top = b.cylinder((0, 0, 0.11), Z, 0.12, 0.02, centered=False)
    solid = b.fuse(shell, top)
    b.fillet(solid, circle_edge(0.095, 0.11), FILLET["base"], fillet_size(b, FILLET["base"], mm))
    b.name_faces("ground", on_plane(2, 0.0))
    b.name_faces("joint1", on_plane(2, 0.13))


def waist(b, mm):
    """Turntable 240 mm dia x 25 mm on the base top (frame-1 z = -0.120), a 140 x 90 mm column up to the
    shoulder housing: a 150 mm dia boss along y1 (the shoulder axis), 60 mm bore, flange face at y1 = 50 mm.
    The column stands on the turntable's top face (z1 = -95 mm) and meets it in an R10 fillet; the turntable has
    the base's 240 mm diameter, so their joint-1 faces coincide."""
    table = b.cylinder((0, 0, -0.12), Z, 0.12, 0.025, centered=False)
    column = b.box((-0.07, 0.065, -0.095), (0.07, 0.155, 0.0))
    boss = b.cylinder((0, 0.05, 0), Y, 0.075, 0.105, centered=False)
    bore = b.cylinder((0, 0.04, 0), Y, 0.03, 0.13, centered=False)
    solid = b.cut(b.fuse(table, column, boss), bore)
    r = FILLET["waist"]
    # the column's foot inside the turntable's rim, then (a second fillet: OCC cannot round both at the corners
    # where they meet) the rim's arc under the column's overhang
    rim_y = np.sqrt(0.12 ** 2 - 0.07 ** 2)  # where the column's sides cross the turntable's rim
    solid = b.fillet(solid, box_edges((-0.07, 0.065, -0.095), (0.07, rim_y, -0.095)), r, fillet_size(b, r, mm))
    b.fillet(solid, lambda c, bb: box_edges((-0.07, 0.09, -0.095), (0.07, 0.12, -0.095))(c, bb) and bb[4] < 0.1201,
             r, fillet_size(b, r, mm))
    b.name_faces("joint1", on_plane(2, -0.12))
    b.name_faces("joint2", on_plane(1, 0.05, within=0.01))


def upper_arm(b, mm):
    """Big arm (frame 2, x2 along the arm, z2 the shoulder axis): hollow rectangular beam 110 (y) x 80 (z) mm
    with ``wall`` mm walls between a 140 mm shoulder boss (60 mm bore) and a 120 mm elbow boss at x2 = 385 mm
    (50 mm bore), both 100 mm wide along z; the beam meets each boss in an R8 fillet. Flange faces: joint2 at
    z2 = -50 mm, joint3 both sides z2 = +-50 mm."""
    t = mm["wall"] / 1000
    beam = b.box((0.0, -0.055, -0.04), (A2, 0.055, 0.04))
    hollow = b.box((0.08, -0.055 + t, -0.04 + t), (A2 - 0.065, 0.055 - t, 0.04 - t))
    shoulder = b.cylinder((0, 0, 0), Z, 0.07, 0.10)
    elbow = b.cylinder((A2, 0, 0), Z, 0.06, 0.10)
    bores = (b.cylinder((0, 0, 0), Z, 0.03, 0.12), b.cylinder((A2, 0, 0), Z, 0.025, 0.12))
    solid = b.cut(b.fuse(b.cut(beam, hollow), shoulder, elbow), *bores)
    r = FILLET["upper_arm"]
    near_shoulder = box_edges((0.04, -0.055, -0.04), (0.07, 0.055, 0.04))
    near_elbow = box_edges((A2 - 0.06, -0.055, -0.04), (A2 - 0.02, 0.055, 0.04))
    b.fillet(solid, lambda c, bb: near_shoulder(c, bb) or near_elbow(c, bb), r, fillet_size(b, r, mm))
    b.name_faces("joint2", on_plane(2, -0.05, within=0.01))
    b.name_faces("joint3", lambda c, bb: (on_plane(2, 0.05, within=0.01, center=(A2, 0, 0))(c, bb)
                                          or on_plane(2, -0.05, within=0.01, center=(A2, 0, 0))(c, bb)))


def forearm(b, mm):
    """Small arm (frame 3): a fork at the elbow (two 120 mm dia cheeks, 20 mm thick, inner faces at z3 = +-50 mm)
    carried by plates into a hollow 90 (y) x 140 (z) mm beam with 6 mm walls, and a fork at the wrist (two
    90 mm cheeks, inner faces at z3 = +-40 mm) at x3 = 392 mm; the beam's ends meet the fork plates' inner faces
    in R8 fillets."""
    beam = b.box((0.08, -0.045, -0.07), (0.33, 0.045, 0.07))
    hollow = b.box((0.095, -0.039, -0.064), (0.315, 0.039, 0.064))
    parts = [b.cut(beam, hollow)]
    for s in (1, -1):
        lo, hi = sorted((s * 0.05, s * 0.07))
        parts.append(b.cylinder((0, 0, (lo + hi) / 2), Z, 0.06, hi - lo))
        plo, phi = sorted((s * 0.055, s * 0.07))
        parts.append(b.box((0.0, -0.045, plo), (0.10, 0.045, phi)))
        lo, hi = sorted((s * 0.04, s * 0.06))
        parts.append(b.cylinder((A3, 0, (lo + hi) / 2), Z, 0.045, hi - lo))
        plo, phi = sorted((s * 0.045, s * 0.07))
        parts.append(b.box((0.31, -0.04, plo), (A3, 0.04, phi)))
    bores = (b.cylinder((0, 0, 0), Z, 0.025, 0.2), b.cylinder((A3, 0, 0), Z, 0.015, 0.2))
    solid = b.cut(b.fuse(*parts), *bores)
    r = FILLET["forearm"]
    elbow_end = lambda c, bb: abs(bb[0] - 0.08) < 1e-6 and abs(bb[3] - 0.08) < 1e-6 and abs(abs(c[2]) - 0.055) < 1e-6
    solid = b.fillet(solid, elbow_end, r, fillet_size(b, r, mm))
    wrist_end = lambda c, bb: abs(bb[0] - 0.33) < 1e-6 and abs(bb[3] - 0.33) < 1e-6 and abs(abs(c[2]) - 0.045) < 1e-6
    b.fillet(solid, wrist_end, r, fillet_size(b, r, mm))
    b.name_faces("joint3", lambda c, bb: any(on_plane(2, s * 0.05, within=0.01)(c, bb) for s in (1, -1)))
    b.name_faces("joint4", lambda c, bb: any(on_plane(2, s * 0.04, within=0.01, center=(A3, 0, 0))(c, bb)
                                             for s in (1, -1)))


def wrist(b, mm):
    """Wrist knuckle (frame 4): a 90 mm dia hub along z4 (80 mm long, 30 mm bore) between the forearm's cheeks,
    and a 64 mm dia spigot along +y4 (joint 5's axis) to its flange face at y4 = 70 mm; an R5 fillet between them
    (the spigot is 64, not 70 mm, so that the fillet stays clear of the hub's joint-4 faces)."""
    hub = b.cylinder((0, 0, 0), Z, 0.045, 0.08)
    spigot = b.cylinder((0, 0, 0), Y, 0.032, 0.07, centered=False)
    bore = b.cylinder((0, 0, 0), Z, 0.015, 0.1)
    solid = b.cut(b.fuse(hub, spigot), bore)
    r = FILLET["wrist"]
    b.fillet(solid, box_edges((-0.032, 0.02, -0.032), (0.032, 0.045, 0.032), tol=1e-3), r, fillet_size(b, r, mm))
    b.name_faces("joint4", lambda c, bb: any(on_plane(2, s * 0.04, within=0.01)(c, bb) for s in (1, -1)))
    b.name_faces("joint5", on_plane(1, 0.07))


def wrist_roll(b, mm):
    """Wrist roll (frame 5, z5 along joint 5 = joint 6 axis): an 80 mm dia tube (12 mm wall) with closed ends
    from z5 = 70 mm to the tool flange at z5 = 188 mm; R6 fillets at the closed ends' inner corners."""
    body = b.cylinder((0, 0, 0.07), Z, 0.04, D6 - 0.07, centered=False)
    inner = b.cylinder((0, 0, 0.085), Z, 0.028, D6 - 0.07 - 0.03, centered=False)
    solid = b.cut(body, inner)
    r = FILLET["wrist_roll"]
    inner_corners = (circle_edge(0.028, 0.085), circle_edge(0.028, D6 - 0.015))
    b.fillet(solid, lambda c, bb: any(p(c, bb) for p in inner_corners), r, fillet_size(b, r, mm))
    b.name_faces("joint5", on_plane(2, 0.07))
    b.name_faces("joint6", on_plane(2, D6))


def gripper(b, mm):
    """Gripper (frame 6 at the tool flange, z6 outward): 80 mm flange disc 15 mm thick, a 140 x 40 x 20 mm palm
    and two 15 x 30 x 100 mm claws at x6 = +-(50..65) mm with 30 x 30 mm gripping pads (faces at x6 = +-45 mm,
    centred at z6 = 115 mm); the claws' vertical edges rounded R4.5, R4 fillets at the claw roots, R6 where the palm
    meets the flange."""
    flange = b.cylinder((0, 0, 0), Z, 0.04, 0.015, centered=False)
    palm = b.box((-0.07, -0.02, 0.015), (0.07, 0.02, 0.035))
    parts = [flange, palm]
    for s in (1, -1):
        lo, hi = sorted((s * 0.05, s * 0.065))
        parts.append(b.box((lo, -0.015, 0.035), (hi, 0.015, 0.135)))
        lo, hi = sorted((s * 0.045, s * 0.05))
        parts.append(b.box((lo, -0.015, CLAW_Z - 0.015), (hi, 0.015, CLAW_Z + 0.015)))
    solid = b.fuse(*parts)
    # the claws' four vertical edges rounded first (a machined claw's edge breaks), so that the root fillet below
    # runs around a tangent-continuous loop: a sharp convex edge meeting the fillet was a corner of the geometry,
    # whose stress no refinement converged (docs/peaks.md). The inner edges end under the pads.
    rr = EDGE_ROUND["gripper"]
    claw_edge = lambda c, bb: (abs(bb[2] - 0.035) < 1e-6 and bb[5] > 0.09 and bb[3] - bb[0] < 1e-6
                               and bb[4] - bb[1] < 1e-6 and abs(abs(c[1]) - 0.015) < 1e-6
                               and any(abs(abs(c[0]) - x) < 1e-6 for x in CLAW_EDGES_X))
    solid = b.fillet(solid, claw_edge, rr, geometry.fillet_size(rr, EDGE_ROUND_ELEMENTS))
    r = FILLET["gripper"]
    claw_root = lambda c, bb: (abs(bb[2] - 0.035) < 1e-6 and abs(bb[5] - 0.035) < 1e-6
                               and 0.05 - 1e-6 <= abs(c[0]) <= 0.065 + 1e-6)
    solid = b.fillet(solid, claw_root, r, fillet_size(b, r, mm))
    # the palm's sides on the flange, then (as for the waist's column) the flange's rim under the palm's overhang
    r, n = PALM_FILLET
    size = geometry.fillet_size(r, n) if mm.get("fillet_elements") is None else fillet_size(b, r, mm)
    solid = b.fillet(solid, lambda c, bb: box_edges((-0.04, -0.02, 0.015), (0.04, 0.02, 0.015))(c, bb)
                     and bb[4] - bb[1] < 1e-6, r, size)
    b.fillet(solid, lambda c, bb: box_edges((-0.04, -0.02, 0.015), (0.04, 0.02, 0.015))(c, bb)
             and bb[4] - bb[1] > 1e-6, r, size)
    b.name_faces("joint6", on_plane(2, 0.0))
    b.name_faces("claw_left", on_plane(0, 0.045))
    b.name_faces("claw_right", on_plane(0, -0.045))


# fillet radius [m] per part at its re-entrant corners on the load path (see README.md beside the meshes)
FILLET = {"base": 0.015, "waist": 0.010, "upper_arm": 0.008, "forearm": 0.008, "wrist": 0.005, "wrist_roll": 0.006,
          "gripper": 0.004}

# convex edges rounded, radius [m] per part: the gripper claws' vertical edges (at |x6| = CLAW_EDGES_X [m], |y6| =
# 15 mm), where they meet the claw-root fillet. Its own radius, not the fillets' 4 mm: an imported CAD part's blends
# are sized by radius alone (structcheck.cad.sizing). Meshed coarse, EDGE_ROUND_ELEMENTS quadratic elements across
# the round's quarter circle (its stress is the claw's bending stress, below the root's; not 1: a single element
# across a quarter circle read 8-20x its neighbours' stress), finer in the balls at their feet (PEAK_BALLS); not
# changed by --fillet-elements, which sizes the fillets of re-entrant corners. Coarse because every element of the
# gripper costs about 50 kB of the headline's peak memory (its arm-model stress basis is the run's largest): R3.5
# rounds at 1.5 elements and four elements on every R4 fillet converged too, at 51,630 nodes and 3.40 GB
EDGE_ROUND = {"gripper": 0.0045}
EDGE_ROUND_ELEMENTS = 1.75
# the gripper's palm-to-flange fillets: radius [m] (not the claw roots' 4 mm, so that an imported part sizes them
# apart) and quadratic elements across their quarter circle (no peak there)
PALM_FILLET = (0.006, 2)
CLAW_EDGES_X = (0.05, 0.065)

# The local sizing rules (all scaled by --size-factor, so that a finer level refines the same rule), chosen where
# benchmarks/bench_convergence.py found each link's peak (docs/peaks.md). Quadratic elements across each part's
# fillet quarter circles (structcheck.fe.geometry.fillet_size): five where the peak lies on the fillet itself and
# fewer did not converge it (base, forearm, wrist), four on the gripper (its peak on the claw-root fillet, mid-face,
# since its claws' edges are rounded), three elsewhere (a ball below refines the waist's peak; the upper arm's
# changes by about 2% over four levels whatever the count, 2 to 5).
FILLET_ELEMENTS = {"base": 5, "waist": 3, "upper_arm": 3, "forearm": 5, "wrist": 5, "wrist_roll": 3, "gripper": 4}

# Balls of finer elements, part -> ((centre (3,) [m], size [m], radius [m]), ...): where a fillet ends on a sharp
# convex edge (the waist's column corners), where the gripper's edge rounds meet the claw-root fillet (three elements
# across the round's quarter circle: coarse curved elements there read far above their neighbours) and the wrist
# roll's end by its clamped joint-5 flange (its per-link peak there turned out to be the clamped edge's support
# singularity; its peak away from the support is converged)
PEAK_BALLS = {
    "waist": tuple(((sx * 0.07, 0.065, -0.086), 0.0015, 0.006) for sx in (1, -1)),
    "gripper": tuple(((sx * (x + dx), sy * (0.015 - 0.3 * EDGE_ROUND["gripper"]), 0.038),
                      geometry.fillet_size(EDGE_ROUND["gripper"], 3), 0.003)
                     for x, dx in zip(CLAW_EDGES_X, (0.3 * EDGE_ROUND["gripper"], -0.3 * EDGE_ROUND["gripper"]))
                     for sx in (1, -1) for sy in (1, -1)),
    "wrist_roll": (((0.0, 0.0, 0.07), 0.0064, 0.045),),
}


# Curvature sizing (gmsh, elements per full circle of a curved face): PartBuilder's 16, limited by the part's
# smallest size (a quarter of its size); in a part with a ball finer than that, which lowers the limit, at most the
# fillet rule's 4 n (and the edge rounds' 4 x EDGE_ROUND_ELEMENTS), else 16 per circle would refine every curved face
# of the part beyond its fillets' and rounds' rules
CURVATURE_POINTS = {name: int(min(16, 4 * min(n, EDGE_ROUND_ELEMENTS if name in EDGE_ROUND else n)))
                    if name in PEAK_BALLS else 16 for name, n in FILLET_ELEMENTS.items()}


def fillet_size(b, radius: float, mm: dict) -> float:
    """Element size [m] on a fillet of ``radius`` [m] of the part ``b`` builds: its quarter circle over
    ``mm["fillet_elements"]``, or when that is None the part's FILLET_ELEMENTS
    (:func:`structcheck.fe.geometry.fillet_size`)."""
    n = mm.get("fillet_elements")
    return geometry.fillet_size(radius, FILLET_ELEMENTS[b.name] if n is None else n)


def with_peak_balls(fn):
    """The part function ``fn(b, mm)`` followed by the part's PEAK_BALLS (sizes scaled with the part's)."""
    def build(b, mm):
        fn(b, mm)
        for centre, size, radius in PEAK_BALLS.get(b.name, ()):
            b.refine_near(centre, size, radius)
    return build


# the shipped meshes are second order: 10-node tets with their mid-side nodes on the CAD surfaces (fillets, bores)
ORDER = 2

# mesh size [m] per part: at least as fine as the paper's 17,109-node ANSYS mesh in total, and about two
# quadratic elements through the thin walls (the gripper's 15 mm claws: their roots and edges have their own rules)
PARTS = {"base": (base, 0.028), "waist": (waist, 0.024), "upper_arm": (upper_arm, 0.016),
         "forearm": (forearm, 0.016), "wrist": (wrist, 0.012), "wrist_roll": (wrist_roll, 0.012),
         "gripper": (gripper, 0.011)}


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


def build_meshes(out: Path, wall_mm: float = DEFAULT_WALL_MM, size_factor: float = 1.0, verbose=True,
                 order: int = ORDER, fillet_elements: float | None = None, parts=None) -> Path:
    """Write ``<part>.msh`` for every part (or those named in ``parts``) into ``out`` (``order`` 2: curved 10-node
    tets, as shipped; 1: linear tets) with the shipped local sizing rules (FILLET_ELEMENTS, PEAK_BALLS), all
    sizes times ``size_factor``; ``fillet_elements``: elements across every fillet's quarter circle instead of
    the part's own count (None: shipped); return ``out``."""
    from structcheck.geometry import write_part_meshes

    if fillet_elements is not None and (isinstance(fillet_elements, bool) or not (
            isinstance(fillet_elements, (int, float)) and np.isfinite(fillet_elements) and fillet_elements > 0)):
        raise InputError(f"fillet_elements must be a positive number of elements per quarter circle or None (the "
                         f"parts' own counts), got {fillet_elements!r}")
    mm = {"wall": check_wall(wall_mm), "fillet_elements": fillet_elements}
    chosen = {n: (with_peak_balls(fn), size) for n, (fn, size) in PARTS.items() if parts is None or n in parts}
    return write_part_meshes(chosen, out, size_factor, args=(mm,), order=order, verbose=verbose,
                             curvature_points=CURVATURE_POINTS)


def part_mesh(name: str, size_factor: float, wall_mm: float = DEFAULT_WALL_MM,
              fillet_elements: float | None = None) -> Path:
    """The .msh of part ``name`` meshed at ``size_factor`` (every size scaled; see :func:`build_meshes`), made
    once into ``~/.cache/structcheck/paper004-<options>-<key>`` and reused."""
    import tempfile

    tag = f"wall{check_wall(wall_mm):g}mm-sf{size_factor:.4g}" + (
        f"-fillet{fillet_elements:g}" if fillet_elements is not None else "")
    folder = cache_dir() / f"paper004-{tag}-{mesh_cache_key()}"
    path = folder / f"{name}.msh"
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as tmp:  # written whole, then moved in
            build_meshes(Path(tmp), wall_mm, size_factor, verbose=False, fillet_elements=fillet_elements,
                         parts=[name])
            (Path(tmp) / f"{name}.msh").replace(path)
        announce(path, f"the {name} mesh at size factor {size_factor:.4g}")
    return path


def mesh_cache_key(order: int = ORDER) -> str:
    """Hash of everything a generated mesh depends on: this script (the part shapes, fillets and sizes),
    structcheck/fe/geometry.py (PartBuilder: how parts are built, filleted, named and meshed), gmsh's version
    (with its OpenCASCADE) and the mesh ``order``."""
    import gmsh

    import structcheck.fe.geometry

    h = hashlib.sha1()
    for path in (Path(__file__), Path(structcheck.fe.geometry.__file__)):
        h.update(path.read_bytes())
    h.update(str(gmsh.__version__).encode())
    h.update(f"order={int(order)}".encode())
    return h.hexdigest()[:10]


def mesh_folder(wall_mm: float = DEFAULT_WALL_MM) -> Path:
    """The shipped meshes for the default wall; for another wall, meshes generated once into a cache folder
    (``~/.cache/structcheck/paper004-wall<mm>mm-<key>``, key: :func:`mesh_cache_key`) and reused."""
    wall_mm = check_wall(wall_mm)
    if wall_mm == DEFAULT_WALL_MM:
        return SHIPPED
    folder = cache_dir() / f"paper004-wall{wall_mm:g}mm-{mesh_cache_key()}"
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
            announce(folder, f"meshes for a {wall_mm:g} mm wall")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return folder


# `on_plane` is used by the part functions above
from structcheck.cache import announce, cache_dir  # noqa: E402
from structcheck.geometry import on_plane  # noqa: E402

if __name__ == "__main__":
    from structcheck.geometry import mesh_script

    mesh_script(__doc__.splitlines()[0],
                lambda out, size_factor, wall_mm, fillet_elements, order: build_meshes(
                    out, wall_mm, size_factor, order=order, fillet_elements=fillet_elements),
                SHIPPED, (("--wall-mm", dict(type=float, default=DEFAULT_WALL_MM, help="upper-arm wall thickness [mm]")),
                          ("--fillet-elements", dict(type=float, default=None, help=(
                              "elements across every fillet's quarter circle (default: each part's own count, "
                              "FILLET_ELEMENTS, as shipped)")))),
                order=ORDER)
