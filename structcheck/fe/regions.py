"""Regions: named volumes of a part with their own material (a weld's heat-affected zone, an insert of another
grade), for the stress check and fatigue (docs/materials.md).

A :class:`Region` selects elements either by index (e.g. a gmsh physical volume's elements) or as every element
with a node within ``within`` [m] of a named surface or line of the part (a weld toe, a weld face). Each element
carries one material: the part's, or that of the last region that selects it. A node belongs to several elements;
its material is the *weakest* (lowest strength) of the elements sharing it, so a node on the boundary of a heat-
affected zone is judged against the zone's reduced strength (conservative: the element stresses there are
averaged across the boundary anyway).

Regions change the strength and the S-N curve only: stiffness and mass use the part's material, so a region's
material must have the part's E, nu and density (a heat-affected zone does; a different alloy's insert is
refused, see docs/materials.md). Units SI.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError, require_number
from ..model.materials import Material, get_material

#: EN 1999-1-1:2007 Table 3.2b (extruded profiles, MIG welds): the HAZ 0.2 % proof and tensile strengths
#: f_o,haz, f_u,haz [MPa] of 6xxx T6 tempers with where each was checked: 6082-T6 (t <= 5 mm; f_o 250, f_u 290:
#: rho_o,haz 0.50, rho_u,haz 0.64) and 6061-T6 (f_o 240, f_u 260: rho_o,haz 0.48, rho_u,haz 0.67). The absolute
#: values are used (not rho x the library's strength: the library's 6061-T6 is the handbook's typical 276 MPa, and
#: 0.48 x 276 would overstate the standard's 115 MPa). Other alloys: pass rho_o and rho_u from the standard's table.
HAZ_STRENGTHS = {
    "6082-T6": (125.0, 185.0, "from EN 1999-1-1:2007 Table 3.2b, EN AW-6082 T6 extrusion t <= 5 mm (not verified "
                              "against the text): the public transcription found stops before the 6082 rows"),
    "6061-T6": (115.0, 175.0, "checked: EN 1999-1-1 Table 3.2b as transcribed at https://dnaop.com/html/60238_7.html "
                              "(EN AW-6061 T6, EP/ET/ER/B/DT, t <= 20 mm: f_o 240, f_u 260, f_o,haz 115, f_u,haz 175, "
                              "rho_o,haz 0.48, rho_u,haz 0.67)")}


def haz_material(base, rho_o: float | None = None, rho_u: float | None = None) -> Material:
    """The heat-affected-zone material of ``base`` (a name or Material), EN 1999-1-1 sec. 6.1.6.2: yield and
    tensile strength f_o,haz, f_u,haz of :data:`HAZ_STRENGTHS`, or ``rho_o`` x yield and ``rho_u`` x tensile
    strength when given; same E, nu and density; no S-N data of its own (give the Region a detail category or
    SNCurve for fatigue: a weld's fatigue strength is its detail's, not the softened parent metal's)."""
    base = get_material(base, "haz_material")
    if rho_o is None or rho_u is None:
        if base.name not in HAZ_STRENGTHS:
            raise InputError(f"haz_material: no HAZ strengths for {base.name!r} (known: {sorted(HAZ_STRENGTHS)}); "
                             f"give rho_o and rho_u from EN 1999-1-1 Table 3.2")
        f_o, f_u, checked = HAZ_STRENGTHS[base.name]
        f_o, f_u = f_o * 1e6, f_u * 1e6
        how = f"f_o,haz = {f_o / 1e6:g} MPa, f_u,haz = {f_u / 1e6:g} MPa (Table 3.2b)"
    else:
        for what, v in (("rho_o", rho_o), ("rho_u", rho_u)):
            require_number(f"haz_material {base.name!r}: {what}", v, "HAZ softening factor", above=0,
                           below=1.0001)
        f_o = base.strength * rho_o
        f_u = None if base.tensile_strength is None else base.tensile_strength * rho_u
        how = f"rho_o,haz = {rho_o:g}, rho_u,haz = {rho_u:g} (Table 3.2)"
        checked = f"the caller's factors rho_o,haz = {rho_o:g}, rho_u,haz = {rho_u:g}"
    kept = tuple((k, v) for k, v in base.sources if k in ("density_kg_m3", "E_GPa", "nu"))
    return replace(base, name=f"{base.name} HAZ", strength=f_o, tensile_strength=f_u, elongation=None,
                   fatigue_strength=None, fatigue_cycles=None, fatigue_source="",
                   sources=(*kept, ("yield_MPa", checked), ("tensile_MPa", checked)),
                   source=f"{base.name} softened by welding, EN 1999-1-1 sec. 6.1.6.2: {how}")


@dataclass(frozen=True)
class Region:
    """A named volume of a part with its own ``material`` (a name or Material) and, optionally, its own
    ``fatigue`` curve (an SNCurve, detail category or material; default: the material's S-N curve). Elements:
    ``elements`` (indices into the part's elements) or those with a node within ``within`` [m] of the part's
    surface or line ``near``."""

    name: str
    material: object
    near: str | None = None
    within: float | None = None
    elements: tuple | None = None
    fatigue: object = None

    def __post_init__(self):
        object.__setattr__(self, "material", get_material(self.material, f"region {self.name!r}"))
        if (self.near is None) == (self.elements is None):
            raise InputError(f"region {self.name!r}: give either near= (a surface or line name) with within= [m], "
                             f"or elements= (element indices)")
        if self.near is not None:
            require_number(f"region {self.name!r}: within", self.within, "m", at_least=0)
        else:
            object.__setattr__(self, "elements", tuple(int(e) for e in np.ravel(self.elements)))

    def element_mask(self, part) -> np.ndarray:
        """(n_elem,) True for the region's elements of ``part``."""
        n = len(part.cells)
        mask = np.zeros(n, bool)
        if self.near is None:
            e = np.asarray(self.elements, np.int64)
            if e.size == 0 or e.min() < 0 or e.max() >= n:
                raise InputError(f"region {self.name!r}: element indices must be in 0..{n - 1} (part {part.name!r})")
            mask[e] = True
            return mask
        from scipy.spatial import cKDTree

        d = cKDTree(part.points[part.named_nodes(self.near)]).query(part.points)[0]
        mask[:] = (d[part.cells] <= self.within).any(axis=1)
        if not mask.any():
            raise InputError(f"region {self.name!r}: no element within {self.within:g} m of {self.near!r}")
        return mask


def volume_elements(path, name: str) -> tuple:
    """Element indices of the gmsh physical volume ``name`` of mesh file ``path``, in the element order a Part
    read from that file has (its tetrahedron blocks in file order, :func:`structcheck.fe.mesh.read_mesh`): give
    them to ``Region(elements=...)``."""
    import meshio

    from .mesh import ACCEPTED

    try:
        m = meshio.read(path, file_format="gmsh")
    except Exception as exc:  # meshio raises many types for unreadable files
        raise InputError(f"cannot read gmsh mesh {str(path)!r}: {exc}") from None
    tags = {int(tag): n for n, (tag, dim) in (m.field_data or {}).items() if int(dim) == 3}
    phys = m.cell_data.get("gmsh:physical")
    if name not in tags.values() or phys is None:
        raise InputError(f"mesh {str(path)!r} has no physical volume {name!r}; its volumes are {sorted(tags.values())}")
    tag = next(t for t, n in tags.items() if n == name)
    blocks = [phys[k] == tag for k, c in enumerate(m.cells) if c.type in ACCEPTED]
    return tuple(np.flatnonzero(np.concatenate(blocks)).tolist())


def with_regions(part, regions) -> object:
    """``part`` carrying ``regions`` (a Region or a sequence; a later one wins where they overlap); checked
    against the part when it is read (an unread part stays unread)."""
    from .part import UnreadPart

    regions = (regions,) if isinstance(regions, Region) else tuple(regions)
    if isinstance(part, UnreadPart):
        return UnreadPart(lambda: with_regions(part._read(), regions), part.path)
    base = part.material
    for r in regions:
        if not isinstance(r, Region):
            raise InputError(f"part {part.name!r}: regions must be structcheck Region objects, got {r!r}")
        m = r.material
        if (m.E, m.nu, m.density) != (base.E, base.nu, base.density) or m.criterion != base.criterion:
            raise InputError(f"part {part.name!r}, region {r.name!r}: material {m.name!r} has other elastic constants, "
                             f"density or failure criterion than the part's {base.name!r}; regions change strength "
                             f"and S-N curve only (use haz_material, or a Material with the part's E, nu, density)")
        if r.name in part.surfaces:
            raise InputError(f"part {part.name!r}: region {r.name!r} has the name of a surface: name it apart")
        r.element_mask(part)  # said now: an unknown surface, an empty selection
    out = copy.copy(part)
    out.regions = regions
    return out


def region_materials(part) -> tuple[list[Material], np.ndarray]:
    """The part's materials (index 0 the part's own, then one per region) and every element's index (n_elem,)."""
    regions = getattr(part, "regions", ())
    elem = np.zeros(len(part.cells), np.int64)
    for k, r in enumerate(regions, start=1):
        elem[r.element_mask(part)] = k
    return [part.material, *(r.material for r in regions)], elem


def node_materials(part) -> tuple[list[Material], np.ndarray]:
    """The part's materials and every node's index (n_nodes,): the weakest (lowest strength) material among the
    elements sharing the node."""
    mats, elem = region_materials(part)
    order = np.argsort([m.strength for m in mats], kind="stable")  # rank 0 = weakest
    rank = np.empty(len(mats), np.int64)
    rank[order] = np.arange(len(mats))
    node_rank = np.full(len(part.points), len(mats), np.int64)
    np.minimum.at(node_rank, part.cells.ravel(), np.repeat(rank[elem], part.cells.shape[1]))
    return mats, order[np.minimum(node_rank, len(mats) - 1)]


def region_nodes(part, name: str) -> np.ndarray:
    """Node indices of region ``name``'s elements (every node of them, boundary nodes included: fatigue takes
    the region's curve there, as a weld detail's curve holds up to the zone's edge)."""
    names = [r.name for r in getattr(part, "regions", ())]
    _, elem = region_materials(part)
    return np.unique(part.cells[elem == names.index(name) + 1])


def safety_factor(part, von_mises, max_principal=None) -> np.ndarray:
    """Per-node safety factor (..., n_nodes) of stresses (..., n_nodes) [Pa], each node against its own material
    (:func:`node_materials`); the part's material alone when it has no regions."""
    if not getattr(part, "regions", ()):
        return part.material.safety_factor(von_mises, max_principal)
    mats, node = node_materials(part)
    vm = np.asarray(von_mises, float)
    out = np.empty(vm.shape)
    for k, m in enumerate(mats):  # a few materials, not elements
        on = node == k
        mp = None if max_principal is None else np.asarray(max_principal, float)[..., on]
        out[..., on] = m.safety_factor(vm[..., on], mp)
    return out
