"""The study that benchmarks/bench_sweep.py sweeps: a two-link steel arm (hollow-free square beams) swinging a
payload through a STEP motion, with elastic inertia (10 modes per link), fatigue over a duty and plots: a real
study of a few seconds per variant, not one dominated by a worker's start-up.

Parameters of ``build``: ``payload_kg`` (a point mass at the tool point), ``section_mm`` (the square section of
both beams [mm]) and ``n_len`` (cells along each beam; the mesh size). Geometry: link1 0.40 m along x from joint1
(about y at the origin), link2 0.30 m along x from joint2 (about y, at x = 0.40 m); the beams' end faces are the
interfaces. Motion: joint1 swings 60 deg up over 0.6 s and back, joint2 90 deg, over a 2 s cycle. The per-link
structural model (``flexibility="link"``, stated so that the benchmark keeps measuring the same study whatever
the default: with the arm model a variant takes about 5x as long).

    python benchmarks/sweep_study.py [--out DIR]
"""
from __future__ import annotations

import numpy as np
from skfem import MeshTet

from structcheck.fe.part import Part
from structcheck.model.robot import Joint, Link, Robot
from structcheck.settings import Fatigue
from structcheck.study import Payload, Study

L1, L2 = 0.40, 0.30  # link lengths [m]
MOTION = {"joint1": "STEP(time,0.2,0,0.8,60d) + STEP(time,1.2,0,1.8,-60d)",
          "joint2": "STEP(time,0.2,0,0.8,-90d) + STEP(time,1.2,0,1.8,90d)"}


def beam(length: float, side: float, n_len: int, ends: tuple[str, str]) -> Part:
    """A steel P2 tet beam along x from 0 to ``length`` [m], square section ``side`` [m], ``n_len`` x 4 x 4
    cells, its end faces named ``ends``."""
    across = np.linspace(-side / 2, side / 2, 5)
    mesh = MeshTet.init_tensor(np.linspace(0.0, length, n_len + 1), across, across)
    x = mesh.p[0, mesh.facets].mean(axis=0)
    bnd = mesh.boundary_facets()
    return Part.from_skfem(mesh, "structural_steel", surfaces={ends[0]: bnd[np.isclose(x[bnd], 0.0)],
                                                               ends[1]: bnd[np.isclose(x[bnd], length)]})


def build(payload_kg: float = 2.0, section_mm: float = 20.0, n_len: int = 40) -> Study:
    """The two-link arm with a ``payload_kg`` [kg] point mass at the tool, ``section_mm`` [mm] square beams of
    ``n_len`` cells along each."""
    side = section_mm / 1000.0

    def T(p):
        M = np.eye(4)
        M[:3, 3] = p
        return M

    robot = Robot([Link("ground"), Link("link1"), Link("link2")],
                  [Joint("joint1", "revolute", "ground", "link1", T([0, 0, 0]), np.array([0, 1.0, 0]), -3, 3),
                   Joint("joint2", "revolute", "link1", "link2", T([L1, 0, 0]), np.array([0, 1.0, 0]), -3, 3)],
                  points={"tool": ("link2", np.array([L2, 0.0, 0.0]))})
    parts = {"link1": beam(L1, side, n_len, ("joint1", "joint2")),
             "link2": beam(L2, side, n_len * 3 // 4, ("joint2", "tool"))}
    return Study(name="two_link_arm", robot=robot, motion=MOTION, parts=parts, t_end=2.0, n_frames=21,
                 payloads=(Payload("tool", payload_kg),), n_modes=10, damping_ratio=0.02, tool_point="tool",
                 fatigue=Fatigue(cycles_per_hour=1800.0, design_life_hours=20000.0), flexibility="link",
                 parameters={"payload_kg": payload_kg, "section_mm": section_mm, "n_len": n_len})


study = build()

if __name__ == "__main__":
    import sys

    from structcheck.cli import main_for_study

    sys.exit(main_for_study(build, default=study))
