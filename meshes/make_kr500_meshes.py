"""Meshes of the six steel cylinders B1..B6 of paper 003's KR500-type robot (Cheng et al. 2021, Table 2).

    python meshes/make_kr500_meshes.py [--out DIR] [--size-factor 1.0]

Each body is a homogeneous solid cylinder (Table 2: length L, radius r) in its link frame of
studies/kr500_identification.py: x along the cylinder axis from its inner joint (x = 0) to its outer end
(x = L). Tagged surfaces: the inner end face, named after the body's own joint (``joint1`` for B1 ...), the
support in the FE model, and the outer end face, named after the next joint (``joint2`` on B1 ... ``joint6`` on
B5; ``tool`` on B6). Lengths in m. The meshes are coarse (a few hundred to a few thousand quadratic-tetrahedron
nodes): a polygon of n facets around loses the volume fraction 1 - sin(2 pi/n)/(2 pi/n) (1.1% at n = 24); the
study sets each part's density so that its mass is Table 2's.
"""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "kr500"

BODIES = ("B1", "B2", "B3", "B4", "B5", "B6")
LENGTH = (1.045, 1.245, 1.21, 0.315, 0.29, 0.3)  # m (Table 2)
RADIUS = (0.5, 0.3, 0.2, 0.2, 0.2, 0.3)  # m (Table 2)
CURVATURE_POINTS = 24


def cylinder_part(b, k: int) -> None:
    """Body k (0-based): the solid cylinder and its two tagged end faces."""
    from structcheck.geometry import on_plane

    L, r = LENGTH[k], RADIUS[k]
    b.cylinder((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), r, L, centered=False)
    b.name_faces(f"joint{k + 1}", on_plane(0, 0.0))
    b.name_faces(f"joint{k + 2}" if k < 5 else "tool", on_plane(0, L))


def build_meshes(out: Path = SHIPPED, size_factor: float = 1.0, verbose: bool = True) -> Path:
    """Write ``B1.msh`` .. ``B6.msh`` into ``out``; return ``out``. Element size: the radius (times
    ``size_factor``), about 24 elements around."""
    from structcheck.geometry import write_part_meshes

    parts = {name: (lambda b, k=k: cylinder_part(b, k), min(RADIUS[k], LENGTH[k])) for k, name in enumerate(BODIES)}
    return write_part_meshes(parts, out, size_factor, curvature_points=CURVATURE_POINTS, verbose=verbose)


if __name__ == "__main__":
    from structcheck.geometry import mesh_script

    mesh_script(__doc__.splitlines()[0], build_meshes, SHIPPED)
