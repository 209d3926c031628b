"""STEP assemblies through gmsh's OpenCASCADE: the solids of a file with their names, and a named assembly written.

A CAD assembly names its parts as STEP products; OpenCASCADE reads them into a label tree that gmsh gives every
solid as a path, ``Shapes/<assembly>/<instance>/<part>`` (``Geometry.OCCImportLabels``). A solid's names are the
path's components (its part, and every sub-assembly above it), numbers (instance indices) left out; its own name is
the last one.

Units: the numbers of the file are read as they stand (``Geometry.OCCTargetUnit`` empty: a file's declared unit is
often wrong; gmsh declares millimetres whatever its numbers are); the factor of ``units`` scales them to metres.
The assembly is worked on in the file's units (gmsh drops the labels of a file it scales while reading) and its
links are scaled as they are read again (``Geometry.OCCScaling``) for meshing. Shapes are moved only by rotations
and translations (:func:`move`): OpenCASCADE's general transforms (gmsh's ``dilate``, ``affineTransform``) turn
planes and cylinders into B-spline surfaces, whose areas are approximate and which no longer read as flanges, bores
or fillets.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import InputError

#: metres per unit of the coordinates of a file
UNITS = {"mm": 1e-3, "cm": 1e-2, "m": 1.0, "in": 0.0254}


@dataclass(frozen=True)
class Solid:
    """A solid of the file: its gmsh volume ``tag`` and its ``names`` (part first, then the sub-assemblies above
    it, outermost last)."""

    tag: int
    names: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.names[0]


def unit_scale(units: str) -> float:
    """Metres per unit of ``units`` (a key of :data:`UNITS`); InputError listing them."""
    if units not in UNITS:
        raise InputError(f"units = {units!r}: give one of {sorted(UNITS)} (the length unit of the file's numbers)")
    return UNITS[units]


def import_solids(gmsh, path: Path, units: str) -> list[Solid]:
    """Read the STEP file ``path`` into the current gmsh model in its own units; its solids in file order.
    InputError when OpenCASCADE cannot read it or it holds no solid."""
    unit_scale(units)
    path = Path(path)
    if not path.is_file():
        raise InputError(f"STEP assembly {str(path)!r} does not exist; give the path of a .step/.stp file")
    gmsh.option.setNumber("Geometry.OCCImportLabels", 1)
    gmsh.option.setString("Geometry.OCCTargetUnit", "")
    try:
        shapes = read_shapes(gmsh, path)
    except Exception as exc:  # gmsh raises a bare Exception carrying OpenCASCADE's message
        raise InputError(f"{path}: OpenCASCADE could not read it as STEP ({exc}); export the assembly as STEP "
                         f"AP203, AP214 or AP242") from None
    vols = [t for d, t in shapes if d == 3]
    if not vols:
        kinds = sorted({("points", "curves", "surfaces")[d] for d, _ in shapes if d < 3})
        held = f"only {', '.join(kinds)}" if kinds else "nothing"
        raise InputError(f"{path}: the file holds no solid ({held}); export the parts as solids (not surfaces, "
                         f"sketches or a mesh)")
    return [Solid(t, _label_names(gmsh.model.getEntityName(3, t), k)) for k, t in enumerate(vols, 1)]


def read_shapes(gmsh, path: Path, scale: float = 1.0) -> list[tuple[int, int]]:
    """The shapes (dimtags) of a STEP or BREP file read into the current gmsh model, lengths times ``scale``."""
    gmsh.option.setNumber("Geometry.OCCScaling", scale)
    try:
        shapes = gmsh.model.occ.importShapes(str(path))
    finally:
        gmsh.option.setNumber("Geometry.OCCScaling", 1.0)
    gmsh.model.occ.synchronize()
    return shapes


def move(occ, dimtags, T: np.ndarray) -> None:
    """Place the shapes ``dimtags`` by the rigid transform ``T`` (4, 4), x -> R x + p: a rotation about the origin,
    then a translation (both keep planes, cylinders and tori what they are)."""
    from scipy.spatial.transform import Rotation

    rotvec = Rotation.from_matrix(np.asarray(T, float)[:3, :3]).as_rotvec()
    angle = float(np.linalg.norm(rotvec))
    if angle > 0:
        occ.rotate(dimtags, 0, 0, 0, *(rotvec / angle), angle)
    occ.translate(dimtags, *np.asarray(T, float)[:3, 3])


def _label_names(label: str, k: int) -> tuple[str, ...]:
    """A solid's names from its gmsh label path (innermost first), or ``solid<k>`` for an unnamed solid."""
    parts = [p for p in label.split("/")[1:] if p and not p.isdigit()]
    return tuple(reversed(parts)) or (f"solid{k}",)


def write_step_assembly(path, solids: Sequence[tuple[str, Path, np.ndarray]], units: str = "mm") -> Path:
    """Write a STEP assembly of named solids, as a CAD system exports one: ``solids`` holds (name, BREP file (e.g.
    a :class:`~structcheck.geometry.PartBuilder` model written as ``.brep``, lengths in metres), placement T (4, 4)
    of the file's frame in the assembly frame [m]); every solid of a BREP file gets its name. The coordinates are
    written in ``units``. Returns the path."""
    import gmsh

    from ..fe.geometry import PartBuilder

    scale = unit_scale(units)
    path = Path(path)
    names = []
    with PartBuilder("assembly") as b:
        for name, brep, T in solids:
            vols = [d for d in read_shapes(b.gmsh, brep, 1 / scale) if d[0] == 3]
            T = np.array(T, float)
            T[:3, 3] /= scale
            move(b.occ, vols, T)
            names += [name] * len(vols)
        b.occ.synchronize()
        path.parent.mkdir(parents=True, exist_ok=True)
        gmsh.write(str(path))
    _name_products(path, names)
    return path


def _name_products(path: Path, names: list[str]) -> None:
    """Give the products of a STEP file written by OpenCASCADE the ``names`` of its solids: with several solids
    the assembly comes first, then one product per solid in order, named '<assembly>.<k>'; a single solid is the
    file's one product."""
    text = path.read_text()
    product = re.compile(r"PRODUCT\('([^']*)',\s*'([^']*)'")
    root = product.search(text).group(1)
    clean = [n.replace("'", "") for n in names]

    def rename(m):
        k = m.group(1)[len(root) + 1:] if m.group(1).startswith(root + ".") else ""
        if len(clean) == 1 and m.group(1) == root:
            return f"PRODUCT('{clean[0]}','{clean[0]}'"
        return f"PRODUCT('{clean[int(k) - 1]}','{clean[int(k) - 1]}'" if k.isdigit() else m.group(0)

    path.write_text(product.sub(rename, text))
