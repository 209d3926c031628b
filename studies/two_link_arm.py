"""Two-link arm: a template study to copy for your own arm.

An aluminium (6061-T6) arm of two rectangular tubes on a shoulder and an elbow, both about the horizontal y axis,
swings up while it holds a 5 kg payload (a mass: its weight and inertia load the arm) and is pushed down by a 50 N
tool force applied over 50 ms. Every mesh is built here with gmsh (structcheck.geometry.PartBuilder), so the
script runs from any folder: `structcheck run two_link_arm.py` or `python two_link_arm.py --wall-mm 2`.
"""
import sys
import tempfile
from pathlib import Path

import numpy as np

import structcheck as sc
from structcheck.cli import main_for_study
from structcheck.geometry import PartBuilder, on_plane
from structcheck.study import Payload, PointForce, Study, lazy_study

UPPER, FORE = 0.40, 0.30  # link lengths [m]: shoulder to elbow, elbow to tool
TUBES = {"upper": (UPPER, "shoulder", "elbow"), "fore": (FORE, "elbow", "tool")}  # length, joint, distal face


def tube(name: str, length: float, joint: str, distal: str, wall_mm: float, folder: Path,
         size_factor: float = 1.0) -> sc.Part:
    """A 40 x 30 mm rectangular tube along the link's x axis from 0 to ``length`` [m], in its link frame (the
    joint at the origin), its elements 8 mm times ``size_factor``. Its end faces are named after what attaches
    there: the recipe for every part is a solid, then ``name_faces(name, predicate)`` for each interface;
    ``on_plane(0, x)`` picks the faces flat at x (a predicate gets each face's centre and bounding box). A
    joint's face is named after the joint, on both links it joins; a point force or payload acts on the face
    named after its point."""
    w = wall_mm / 1000
    with PartBuilder(name, mesh_size=0.008 * size_factor, local_size_factor=size_factor) as b:
        solid = b.cut(b.box((0, -0.02, -0.015), (length, 0.02, 0.015)),
                      b.box((-0.01, -0.02 + w, -0.015 + w), (length + 0.01, 0.02 - w, 0.015 - w)))
        b.name_faces(joint, on_plane(0, 0.0))
        b.name_faces(distal, on_plane(0, length))
        b.build(solid)
        path = b.write(folder / f"{name}.msh")
    return sc.Part.from_mesh(path, material="6061-T6")


def build(wall_mm: float = 3.0, payload_kg: float = 5.0, tool_force_n: float = 50.0) -> Study:
    """The arm with walls of ``wall_mm`` [mm], a ``payload_kg`` [kg] payload and a ``tool_force_n`` [N] push."""
    def at(x):  # a joint's placement in its parent's frame
        T = np.eye(4)
        T[0, 3] = x
        return T

    y = np.array([0.0, 1.0, 0.0])
    robot = sc.Robot([sc.Link("ground"), sc.Link("upper"), sc.Link("fore")],
                     [sc.Joint("shoulder", "revolute", "ground", "upper", at(0.0), y, -3.0, 3.0),
                      sc.Joint("elbow", "revolute", "upper", "fore", at(UPPER), y, -3.0, 3.0)],
                     points={"tool": ("fore", np.array([FORE, 0.0, 0.0]))})
    with tempfile.TemporaryDirectory() as tmp:  # the meshes are read into the Parts; no file is kept
        parts = {link: tube(link, *TUBES[link], wall_mm, Path(tmp)) for link in TUBES}
    return Study(
        name="two_link_arm", robot=robot, parts=parts, t_end=2.0, n_frames=21,
        motion={"shoulder": "STEP(time, 0, 0, 1, -30d)",          # ADAMS STEP laws: offsets from home [rad]
                "elbow": "STEP(time, 0.5, 0, 1.5, 45d)"},
        payloads=(Payload("tool", payload_kg),),
        point_forces=(PointForce("tool", f"STEP(time, 1.5, 0, 1.55, {tool_force_n})", (0, 0, -1)),),
        tool_point="tool", required_safety_factor=1.5,
        parameters={"wall_mm": wall_mm, "payload_kg": payload_kg, "tool_force_n": tool_force_n})


def mesh_part(link: str, size_factor: float, study: Study | None = None) -> sc.Part:
    """For `structcheck converge` (and `--quick`): the part of ``link`` with every element size times
    ``size_factor``, for the ``study``'s wall."""
    wall_mm = (study.parameters if study is not None else {}).get("wall_mm", 3.0)
    with tempfile.TemporaryDirectory() as tmp:
        return tube(link, *TUBES[link], wall_mm, Path(tmp), size_factor)


__getattr__ = lazy_study(build)  # `study`, built on first use: `--help` answers at once

if __name__ == "__main__":
    sys.exit(main_for_study(build))
