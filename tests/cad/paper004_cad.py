"""The paper-004 parts as a CAD assembly: each part built by the mesh generator (meshes/make_paper004_meshes.py)
with PartBuilder, placed at a pose in one frame and written as one STEP file in millimetres, its solids named after
the links; with the faces the generator names by hand (joint flanges, ground, claw pads) and its mesh sizes, for
comparison with what structcheck.cad finds and meshes."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "meshes"))
import make_paper004_meshes as generator  # noqa: E402

# a pose away from home (offsets within Table 1's ranges) [rad]
POSE_OFFSET = np.radians([30.0, -20.0, 25.0, 40.0, -30.0, 60.0])


@dataclass(frozen=True)
class HandNamed:
    """A surface the generator names: its faces' (centre (3,) [m], area [m^2]) in the link frame."""

    faces: tuple
    area: float


@dataclass
class Paper004Cad:
    """``step`` the assembly file; ``q`` its pose; ``named`` link -> surface -> HandNamed; ``predicates`` link ->
    surface -> the generator's predicate; ``size`` link -> element size [m]; ``fillet`` link -> {radius: size}."""

    step: Path
    q: np.ndarray
    named: dict
    predicates: dict
    size: dict
    fillet: dict


def build_parts(folder: Path, links=None, mm=None):
    """Each part (or those of ``links``) built by the generator into ``folder/<link>.brep``; returns (named,
    predicates, size, fillet) as in :class:`Paper004Cad`."""
    from structcheck.geometry import PartBuilder

    mm = mm or {"wall": generator.DEFAULT_WALL_MM, "fillet_elements": None}
    named, predicates, size, fillet = {}, {}, {}, {}
    for link in links or generator.PARTS:
        fn, s = generator.PARTS[link]
        with PartBuilder(link, s, order=generator.ORDER) as b:
            fn(b, mm)
            b.occ.removeAllDuplicates()  # as PartBuilder.build does before naming and meshing
            b.occ.synchronize()
            vols = b.gmsh.model.getEntities(3)
            faces = [t for _, t in b.gmsh.model.getBoundary(vols, combined=True, oriented=False)]
            named[link] = {}
            for name, pred in b.named.items():
                hits = [f for f in faces if pred(np.array(b.occ.getCenterOfMass(2, f)),
                                                  np.array(b.gmsh.model.getBoundingBox(2, f)))]
                named[link][name] = HandNamed(tuple((np.array(b.occ.getCenterOfMass(2, f)), b.occ.getMass(2, f))
                                                    for f in hits), sum(b.occ.getMass(2, f) for f in hits))
            predicates[link] = dict(b.named)
            size[link] = b.mesh_size
            fillet[link] = {round(r, 9): fs / b.local_size_factor for _, fs, r in b.fillet_sizes}
            b.gmsh.write(str(folder / f"{link}.brep"))
    return named, predicates, size, fillet


def robot():
    """The headline study's robot with its named points, and the study script (its DH table, home, materials)."""
    import structcheck as sc
    from conftest import load_paper004_module

    mod = load_paper004_module()
    r = sc.Robot.from_modified_dh(mod.DH, home=mod.HOME, limits=mod.HOME[:, None] + mod.RANGE, link_names=mod.LINKS,
                                  joint_names=mod.JOINTS, name="paper004")
    return r.with_points(generator.POINTS), mod


def write_assembly(folder: Path, q=None, links=None, moved=None) -> Paper004Cad:
    """The assembly at ``q`` (default home + POSE_OFFSET) in ``folder/paper004.step``; ``moved``: link -> extra
    placement (4, 4) in its link frame (e.g. a gap)."""
    from structcheck.cad import write_step_assembly

    rb, _ = robot()
    q = rb.home + POSE_OFFSET if q is None else q
    named, predicates, size, fillet = build_parts(folder, links)
    T = dict(zip(rb.link_names, rb.forward_kinematics(q)[0]))
    solids = [(link, folder / f"{link}.brep", T[link] @ (moved or {}).get(link, np.eye(4))) for link in named]
    step = write_step_assembly(folder / "paper004.step", solids, units="mm")
    return Paper004Cad(step, q, named, predicates, size, fillet)


def generator_sizing(cad: Paper004Cad):
    """The generator's sizing for the imported parts: each part's element size, on each fillet the size the
    generator gave the fillet of that radius (the nearest radius it made, within 1 %), its curvature sizing and its
    balls of finer elements at the peaks (the generator's rules, generator.CURVATURE_POINTS and PEAK_BALLS). A
    module's class, not a closure: the import meshes each link in a process of its own, where it must be read."""
    from structcheck.cad import MeshSizing

    return MeshSizing(cad.size, GeneratorFillet(cad.fillet), curvature_points=generator.CURVATURE_POINTS,
                      refine=generator.PEAK_BALLS)


@dataclass
class GeneratorFillet:
    """``fillet(link, r)``: the element size the generator gave its fillet of the radius nearest ``r`` [m] on
    ``link`` (``made``: link -> {radius: size} [m])."""

    made: dict

    def __call__(self, link, r):
        made, size = min(self.made[link].items(), key=lambda kv: abs(kv[0] - r))
        assert abs(made - r) <= 0.01 * made, (link, r, made)
        return size


def tool_surfaces(cad: Paper004Cad) -> dict:
    """The named surfaces that are no joint's (the claws' pads) with the generator's predicates."""
    return {link: {n: p for n, p in preds.items() if not n.startswith("joint") and n != "ground"}
            for link, preds in cad.predicates.items() if any(not n.startswith("joint") and n != "ground"
                                                              for n in preds)}
