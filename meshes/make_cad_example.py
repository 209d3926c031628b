"""A small arm as a CAD assembly (our own design, for docs/your_own_cad.md and studies/cad_arm.py).

    python meshes/make_cad_example.py [--out DIR]

Three links, each built with PartBuilder in its link frame, placed at the pose POSE in one frame and written as
one STEP file in millimetres (``cad_example/arm.step``), its solids named as a designer names parts:
- base: ``base_plate`` (200 x 200 x 15 mm with four 24 mm bolt bosses) and ``base_post`` (60 x 50 mm, up to the
  shoulder), two solids of one link; the post's side at y = -20 mm carries the shoulder;
- upper: ``upper_arm``, a 30 x 40 mm beam between a 60 mm shoulder hub and a 50 mm elbow hub (both 40 mm wide along
  y), R5 fillets where the beam meets the hubs;
- fore: ``forearm`` (a 50 mm hub beside the elbow hub, a 25 x 30 mm beam, R4 fillets) and ``tool_plate`` at its end.
Joints (both about y): the shoulder 120 mm above the floor, the elbow 300 mm along the upper arm.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "cad_example"
SHOULDER_Z, UPPER, FORE = 0.12, 0.30, 0.25  # [m]
POSE = np.radians([-20.0, 35.0])  # shoulder, elbow [rad]: the pose the assembly is drawn in
Y = (0, 1, 0)


def _inside(lo, hi, tol=1e-6):
    """Predicate: a straight edge along y whose bounding box lies inside lo .. hi (3,) [m] (where a beam's top or
    bottom meets a hub)."""
    lo, hi = np.asarray(lo) - tol, np.asarray(hi) + tol
    return lambda c, bb: bool(np.all(bb[:3] >= lo) and np.all(bb[3:] <= hi) and bb[3] - bb[0] < tol
                              and bb[5] - bb[2] < tol)


def base_plate(b):
    plate = b.box((-0.1, -0.1, 0.0), (0.1, 0.1, 0.015))
    bosses = [b.cylinder((x, y, 0.015), (0, 0, 1), 0.012, 0.01, centered=False)
              for x in (-0.075, 0.075) for y in (-0.075, 0.075)]
    b.fuse(plate, *bosses)


def base_post(b):
    b.box((-0.03, -0.07, 0.015), (0.03, -0.02, SHOULDER_Z + 0.04))


def upper_arm(b):
    hub = b.cylinder((0, 0, 0), Y, 0.03, 0.04)
    beam = b.box((0.0, -0.015, -0.02), (UPPER, 0.015, 0.02))
    elbow = b.cylinder((UPPER, 0, 0), Y, 0.025, 0.04)
    solid = b.fuse(hub, beam, elbow)
    b.fillet(solid, lambda c, bb: _inside((0.01, -0.016, -0.021), (0.031, 0.016, 0.021))(c, bb)
             or _inside((UPPER - 0.026, -0.016, -0.021), (UPPER - 0.01, 0.016, 0.021))(c, bb), 0.005, 0.004)


def forearm(b):
    hub = b.cylinder((0, 0.02, 0), Y, 0.025, 0.03, centered=False)
    beam = b.box((0.0, 0.025, -0.015), (FORE, 0.05, 0.015))  # clear of the elbow face: only the hub touches
    solid = b.fuse(hub, beam)
    b.fillet(solid, _inside((0.01, 0.02, -0.016), (0.026, 0.05, 0.016)), 0.004, 0.003)


def tool_plate(b):
    b.box((FORE, 0.015, -0.025), (FORE + 0.01, 0.055, 0.025))


SOLIDS = {"base_plate": ("base", base_plate), "base_post": ("base", base_post), "upper_arm": ("upper", upper_arm),
          "forearm": ("fore", forearm), "tool_plate": ("fore", tool_plate)}


def robot():
    """The arm: base (world), upper on the shoulder, fore on the elbow, both about y; point ``tool`` at the tool
    plate's face."""
    import structcheck as sc
    from structcheck.model.robot import trans

    return sc.Robot([sc.Link("base"), sc.Link("upper"), sc.Link("fore")],
                    [sc.Joint("shoulder", "revolute", "base", "upper", trans(0, 0, SHOULDER_Z), np.array(Y), -2.0, 2.0),
                     sc.Joint("elbow", "revolute", "upper", "fore", trans(UPPER), np.array(Y), -2.5, 2.5)],
                    points={"tool": ("fore", np.array([FORE + 0.01, 0.035, 0.0]))}, name="cad_arm")


def build_assembly(out: Path = SHIPPED) -> Path:
    """Write ``out/arm.step``; returns its path."""
    import tempfile

    from structcheck.geometry import PartBuilder, write_step_assembly

    rb = robot()
    T = dict(zip(rb.link_names, rb.forward_kinematics(POSE)[0]))
    out = Path(out)
    with tempfile.TemporaryDirectory() as tmp:
        solids = []
        for name, (link, make) in SOLIDS.items():
            with PartBuilder(name) as b:
                make(b)
                b.occ.synchronize()
                b.gmsh.write(str(Path(tmp) / f"{name}.brep"))
            solids.append((name, Path(tmp) / f"{name}.brep", T[link]))
        return write_step_assembly(out / "arm.step", solids, units="mm")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=SHIPPED)
    print(f"wrote {build_assembly(ap.parse_args().out)}")
