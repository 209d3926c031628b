"""Which solids of a STEP assembly make which link, in what material, and whether the file's units are right.

Every check names the input and what to do: an unknown solid name lists the names the file holds, a solid claimed
by two links names both, a file whose size does not fit the robot's joint spacing names the unit that fits.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..model.materials import Material, get_material
from .step import UNITS, Solid

#: the assembly's size over the robot's joint spacing must lie within 1/SCALE_RANGE .. SCALE_RANGE (a unit
#: mistake is a factor of 10 to 1000)
SCALE_RANGE = 20.0


def _names_of(value, link: str) -> list[str]:
    names = [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else None
    if not names or not all(isinstance(n, str) and n for n in names):
        raise InputError(f"links[{link!r}] = {value!r}: give the name of a solid in the file, or a list of them")
    return names


def claim_solids(solids: list[Solid], links: Mapping, robot, path) -> tuple[dict, list[str]]:
    """link -> its volume tags, from ``links`` (link -> solid names, each matching every solid with that name or
    under a sub-assembly of that name); and the notes (solids no link claims). InputError for a link the robot
    lacks, a name the file lacks (listing the file's names) or a solid claimed by two links."""
    if not isinstance(links, Mapping) or not links:
        raise InputError("links must map each link name to the names of its solids in the file, e.g. "
                         "{'upper_arm': ['arm_tube', 'elbow_boss']}")
    held = sorted({s.name for s in solids})
    claims, owner = {}, {}
    for link, value in links.items():
        if link not in robot.link_names:
            raise InputError(f"links names {link!r}, which is no link of robot {robot.name!r}; its links are "
                             f"{list(robot.link_names)}")
        tags = []
        for name in _names_of(value, link):
            mine = [s for s in solids if name in s.names]
            if not mine:
                raise InputError(f"{Path(path).name}: no solid named {name!r} (claimed by link {link!r}); the file "
                                 f"holds {held}")
            for s in mine:
                if owner.get(s.tag, link) != link:
                    raise InputError(f"{Path(path).name}: solid {s.name!r} is claimed by links {owner[s.tag]!r} and "
                                     f"{link!r}; give each solid to one link (the file holds {held})")
                owner[s.tag] = link
                if s.tag not in tags:
                    tags.append(s.tag)
        claims[link] = tags
    free = sorted({s.name for s in solids if s.tag not in owner})
    notes = [f"{Path(path).name}: solids no link claims are left out: {free}"] if free else []
    return claims, notes


def check_scale(gmsh, claims: dict, robot, T: dict, s: float, units: str, path) -> None:
    """InputError when the claimed solids' size (bounding-box diagonal, read in ``units``) and the robot's joint
    spacing (the largest distance between two joint origins at the pose ``T``: link -> T_world_link, both in the
    model's units of ``s`` metres) differ
    by more than :data:`SCALE_RANGE`: a file read in the wrong unit. Names the unit that fits."""
    origins = np.array([T[j.child][:3, 3] for j in robot.joints] + [T[robot.base][:3, 3]])
    spacing = s * float(np.max(np.linalg.norm(origins[:, None] - origins[None], axis=2)))
    bb = np.array([gmsh.model.getBoundingBox(3, t) for tags in claims.values() for t in tags])
    size = s * float(np.linalg.norm(bb[:, 3:].max(axis=0) - bb[:, :3].min(axis=0)))
    if spacing <= 0 or 1 / SCALE_RANGE <= size / spacing <= SCALE_RANGE:
        return
    fits = min(UNITS, key=lambda u: abs(np.log(size / spacing * UNITS[u] / UNITS[units])))
    raise InputError(f"{Path(path).name}: read in {units}, the assembly spans {size:.4g} m but the robot's joints "
                     f"span {spacing:.4g} m; the file's numbers look to be in {fits}: pass units={fits!r} "
                     f"(--units {fits})")


def link_materials(robot, links: Mapping, materials) -> dict:
    """link -> Material for every link of ``links``: ``materials`` one material (name or Material) or link ->
    material; InputError naming a link without one."""
    if isinstance(materials, Mapping):
        missing = [n for n in links if n not in materials]
        if missing:
            raise InputError(f"materials gives no material for links {missing}; give one per link, or one material "
                             f"for all")
        return {n: get_material(materials[n]) for n in links}
    if not isinstance(materials, (str, Material)):
        raise InputError(f"materials = {materials!r}: give a material name (e.g. '6061-T6'), a Material, or link -> "
                         f"material")
    return {n: get_material(materials) for n in links}
