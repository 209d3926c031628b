"""A robot's link parts from a STEP assembly: solids claimed by links, joined, moved into link frames, interfaces
named, meshed.

Two stages, each in its own gmsh model. The plan (:func:`plan_assembly`) reads the file, gives every link its
solids (``links``: link -> names in the file), fuses them into one solid, moves it into the link frame at the pose
``q`` (``T_link_world = T_world_link(q)^-1``) and names the faces of every joint (:mod:`.interfaces`): those where
the parent and the child touch; where they do not, the nearest faces square to or coaxial with the joint axis (a
warning names them); ``ground`` on the base's lowest plane; ``surfaces`` adds or overrides names by predicates in
the link frame. It writes every link's solid into one BREP file. Meshing (:func:`mesh_link`) reads that file once
per link into a :class:`~structcheck.geometry.PartBuilder`, finds the named faces again by their centre and
bounding box, sizes the fillets (:mod:`.sizing`) and meshes. Lengths in metres.
"""
from __future__ import annotations

import tempfile
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import numpy as np

from ..errors import InputError, require_number
from ..fe.geometry import PartBuilder
from . import interfaces as itf
from .claims import claim_solids, check_scale, link_materials
from .sizing import MeshSizing, as_sizing, check_order, size_blends
from .step import import_solids, move, read_shapes, unit_scale

#: faces are told apart by centre and bounding box to this [m] after the BREP round trip
KEY_TOL = 1e-6
#: a revolute joint's faces whose centre lies farther than this fraction of the link's size from the joint axis
#: are noted: the study refuses them (structcheck.loads checks a joint surface against a quarter of the mesh size)
OFF_AXIS = 0.25
#: processes a link's meshing is given before its dying is an error (:func:`mesh_links`)
MESH_ATTEMPTS = 2


class CadWarning(UserWarning):
    """A choice :func:`import_assembly` made for the user to check (a face taken by the nearest-face rule, a
    solid no link claims)."""


class Rule(Enum):
    """Why faces carry a name."""

    CONTACT = "touching the other link"
    NEAREST = "nearest the joint (the links do not touch)"
    LOWEST = "the base's lowest plane"
    GIVEN = "given by surfaces"


@dataclass(frozen=True)
class FaceChoice:
    """The faces of ``link`` named ``surface`` by ``rule``: their gmsh ``faces`` tags in the plan, total ``area``
    [m^2], ``distance`` [m] from the joint origin to the nearest face centre (NaN for surfaces that are no joint's), and
    ``keys`` (centre (3,), bounding box (6,)) in the link frame that find them again; ``centre`` (3,) [m] the
    area-weighted centre of the faces, link frame."""

    link: str
    surface: str
    rule: Rule
    faces: tuple[int, ...]
    area: float
    distance: float
    keys: tuple = field(repr=False, default=())
    centre: np.ndarray = field(repr=False, default_factory=lambda: np.full(3, np.nan))

    def line(self) -> str:
        far = "" if np.isnan(self.distance) else f", centre {self.distance * 1e3:.1f} mm from the joint origin"
        return (f"{self.link:<14} {self.surface:<12} {len(self.faces)} face(s), {self.area * 1e6:,.1f} mm^2"
                f"{far}: {self.rule.value}")


@dataclass
class AssemblyPlan:
    """Stage one: ``brep`` holds every claimed link's solid in its link frame, in units of ``scale`` metres;
    ``solids`` link -> (centre (3,) [m], volume [m^3]) of its volumes there; ``diagonal`` link -> bounding-box
    diagonal [m]; ``choices`` the named faces; ``warnings`` the choices to check."""

    brep: Path
    scale: float
    solids: dict
    diagonal: dict
    choices: list[FaceChoice]
    warnings: list[str]


@dataclass
class ImportedAssembly:
    """The link ``parts``, their ``meshes`` (.msh files), the face ``choices``, the ``warnings``, the fillet faces
    sized per link (``fillets``: link -> [(face, radius, size)]) and the ``surfaces_file`` (ParaView) if written."""

    parts: dict
    meshes: dict
    choices: list[FaceChoice]
    warnings: list[str]
    fillets: dict
    surfaces_file: Path | None = None

    def report(self) -> str:
        """Every choice on one line, then the warnings."""
        lines = ["named surfaces (link frame):"] + ["  " + c.line() for c in self.choices]
        lines += ["fillets sized: " + ", ".join(f"{k} {len(v)}" for k, v in self.fillets.items())]
        lines += [f"warning: {w}" for w in self.warnings]
        if self.surfaces_file is not None:
            lines.append(f"named surfaces for ParaView: {self.surfaces_file}")
        return "\n".join(lines)


def import_assembly(path, robot, links: Mapping, *, materials, q=None, units: str = "mm", surfaces=None,
                    mesh_size=None, order: int = 2, out=None) -> dict:
    """The :class:`~structcheck.Part` of every link of ``links`` read from the STEP assembly ``path`` (solids in
    one frame at the joint values ``q``, default the robot's home); see :func:`read_assembly`, whose choices are
    reported as :class:`CadWarning` where they need a look."""
    return read_assembly(path, robot, links, materials=materials, q=q, units=units, surfaces=surfaces,
                         mesh_size=mesh_size, order=order, out=out).parts


def read_assembly(path, robot, links: Mapping, *, materials, q=None, units: str = "mm", surfaces=None,
                  mesh_size=None, order: int = 2, out=None, tol: float = 1e-5, progress=None) -> ImportedAssembly:
    """Read a STEP assembly (AP203, AP214, AP242) into link parts.

    ``robot``: a :class:`~structcheck.Robot`; ``links``: link -> the names of its solids in the file (a part's
    name, or a sub-assembly's for all its solids); ``materials``: one material (name or Material) for every link,
    or link -> material; ``q`` (n_dof,) the pose of the file [rad, m] (default the robot's home); ``units`` of the
    file's numbers ('mm', 'cm', 'm', 'in'); ``surfaces``: link -> {name: predicate(c, bb)} in the link frame [m],
    adding or overriding named surfaces; ``mesh_size``: a size [m], link -> size, or a
    :class:`~structcheck.cad.MeshSizing`; ``order`` 2 (curved 10-node tets) or 1; ``out``: folder for
    ``<link>.msh``, ``surfaces.vtm`` (the named surfaces at the pose, for ParaView) and ``import_report.txt``
    (None: the meshes are kept only in the parts); ``tol`` [m]: faces closer than this touch; ``progress``: called
    as ``progress(k, n, link, seconds)`` after each of the n links is meshed (:func:`mesh_links`: each in a process
    of its own)."""
    from ..fe.part import Part

    order = check_order(order)
    sizing = as_sizing(mesh_size)
    tol = require_number("tol", tol, "m", above=0)
    mats = link_materials(robot, links, materials)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(out) if out is not None else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        plan = plan_assembly(path, robot, links, q=q, units=units, surfaces=surfaces, tol=tol,
                             brep=Path(tmp) / "links.brep")
        meshes, fillets = mesh_links(plan, sizing, order, folder, progress)
        parts = {link: Part.from_mesh(p, material=mats[link]) for link, p in meshes.items()}
    result = ImportedAssembly(parts, meshes if out is not None else {}, plan.choices, plan.warnings, fillets)
    if out is not None:
        from .report import write_surfaces

        result.surfaces_file = write_surfaces(parts, placements(robot, q), Path(out) / "surfaces.vtm")
        (Path(out) / "import_report.txt").write_text(result.report() + "\n")
    return result


def placements(robot, q) -> dict:
    """link -> T_world_link (4, 4) at the dof values ``q`` (None: home)."""
    q = robot.home if q is None else robot.check_q(q, "q (the pose of the CAD file)")[0]
    return dict(zip(robot.link_names, robot.forward_kinematics(q)[0]))


def plan_assembly(path, robot, links: Mapping, *, q=None, units: str = "mm", surfaces=None, tol: float = 1e-5,
                  brep: Path) -> AssemblyPlan:
    """Stage one of :func:`read_assembly` (no meshing): the solids claimed, joined and placed, the faces named.
    The gmsh model keeps the file's units (``s`` metres each); what it returns is in metres."""
    s = unit_scale(units)
    T = {link: _in_units(Tl, s) for link, Tl in placements(robot, q).items()}
    surfaces = dict(surfaces or {})
    for link in surfaces:
        robot.link(link)
    with PartBuilder("assembly") as b:
        gmsh = b.gmsh
        solids = import_solids(gmsh, path, units)
        claims, notes = claim_solids(solids, links, robot, path)
        check_scale(gmsh, claims, robot, T, s, units, path)
        vols = {link: _place(b, link, tags, T[link], solids) for link, tags in claims.items()}
        gmsh.model.occ.synchronize()
        faces = {link: itf.boundary_faces(gmsh, v) for link, v in vols.items()}
        named = _Namer(gmsh, s)
        choices = _given(named, faces, surfaces)
        given = {(c.link, c.surface) for c in choices}
        for j in robot.joints:
            choices += _joint(named, j, vols, faces, T, tol / s, given, notes)
        base = robot.base
        if base in vols and (base, "ground") not in given:
            ground = itf.lowest_faces(gmsh, vols[base], tol / s)
            if ground:
                choices.append(named(base, "ground", Rule.LOWEST, ground, float("nan")))
            else:
                notes.append(f"the base {base!r} has no flat face at its lowest point: name its mounting 'ground' "
                             f"with surfaces={{{base!r}: {{'ground': predicate}}}}")
        solids_at = {link: [(s * np.array(gmsh.model.occ.getCenterOfMass(3, v)), s ** 3 * gmsh.model.occ.getMass(3, v))
                            for v in vs] for link, vs in vols.items()}
        diagonal = {link: s * _diagonal(gmsh, vs) for link, vs in vols.items()}
        gmsh.write(str(brep))
    for note in notes:
        warnings.warn(note, CadWarning, stacklevel=3)
    return AssemblyPlan(brep, s, solids_at, diagonal, choices, notes)


def _in_units(T: np.ndarray, s: float) -> np.ndarray:
    """A placement (4, 4) [m] with its translation in units of ``s`` metres."""
    T = np.array(T, float)
    T[:3, 3] /= s
    return T


def _place(b: PartBuilder, link: str, tags: list[int], T_world_link: np.ndarray, solids) -> list[int]:
    """Move ``link``'s volumes (tags) into its frame and fuse them; InputError when they stay apart."""
    occ = b.occ
    move(occ, [(3, t) for t in tags], np.linalg.inv(T_world_link))
    if len(tags) == 1:
        return list(tags)
    names = sorted({s.name for s in solids if s.tag in tags})
    out = [t for d, t in b.fuse([(3, t) for t in tags]) if d == 3]
    occ.synchronize()
    if len(out) > 1:
        raise InputError(f"link {link!r}: its solids {names} do not all touch (they make {len(out)} separate "
                         f"pieces); a link's solids must touch or overlap to be joined into one part")
    return out


def _diagonal(gmsh, vols) -> float:
    bb = np.array([gmsh.model.getBoundingBox(3, v) for v in vols])
    return float(np.linalg.norm(bb[:, 3:].max(axis=0) - bb[:, :3].min(axis=0)))


class _Namer:
    """Makes a :class:`FaceChoice` of faces of the plan's model, whose lengths are ``s`` metres."""

    def __init__(self, gmsh, s: float):
        self.gmsh, self.s = gmsh, s

    def centre_box(self, face: int) -> tuple[np.ndarray, np.ndarray]:
        """A face's centre (3,) and bounding box (6,) [m]."""
        g = self.gmsh.model
        return self.s * np.array(g.occ.getCenterOfMass(2, face)), self.s * np.array(g.getBoundingBox(2, face))

    def __call__(self, link, surface, rule, faces, distance) -> FaceChoice:
        areas = self.s ** 2 * np.array([itf.face_area(self.gmsh, f) for f in faces])
        keys = tuple(self.centre_box(f) for f in faces)
        centre = areas @ np.array([c for c, _ in keys]) / areas.sum()
        return FaceChoice(link, surface, rule, tuple(faces), float(areas.sum()), float(distance) * self.s, keys,
                          centre)


def _given(named: _Namer, faces: dict, surfaces: dict) -> list[FaceChoice]:
    """The faces named by the user's predicates (link -> {name: predicate(c (3,), bb (6,))}, link frame)."""
    out = []
    for link, predicates in surfaces.items():
        if link not in faces:
            raise InputError(f"surfaces names link {link!r}, which has no solids; the links with solids are "
                             f"{sorted(faces)}")
        for name, pred in predicates.items():
            hits = [f for f in faces[link] if pred(*named.centre_box(f))]
            if not hits:
                raise InputError(f"surfaces[{link!r}][{name!r}]: no face of the link matches the predicate "
                                 f"(it gets each face's centre and bounding box in the link frame, metres)")
            out.append(named(link, name, Rule.GIVEN, hits, float("nan")))
    return out


def _joint(named: _Namer, joint, vols, faces, T, tol, given, notes) -> list[FaceChoice]:
    """The faces named after ``joint`` on its parent and child (those with solids, not already given); ``T``
    link -> T_world_link and ``tol`` in the model's units."""
    gmsh, s = named.gmsh, named.s
    p, c = joint.parent, joint.child
    sides = [side for side in (p, c) if side in vols and (side, joint.name) not in given]
    if not sides:
        return []
    frame = {side: np.linalg.inv(T[side]) @ T[c] for side in (p, c)}  # the joint frame (= child's) in each side's
    at = {side: (frame[side][:3, 3], frame[side][:3, :3] @ joint.axis) for side in (p, c)}
    if p in vols and c in vols:
        touch = itf.touching_faces(gmsh, faces[p], faces[c], frame[p], tol)
        if touch.parent and touch.child:
            found = {p: touch.parent, c: touch.child}
            out = [named(side, joint.name, Rule.CONTACT, found[side],
                         itf.centre_distance(gmsh, found[side], at[side][0]).min()) for side in sides]
            return _check_on_axis(out, joint, {side: (s * at[side][0], at[side][1]) for side in sides},
                                  {side: s * _diagonal(gmsh, vols[side]) for side in sides}, notes)
        why = (f"links {p!r} and {c!r} do not touch (their solids are "
               f"{itf.gap(gmsh, vols[p], vols[c], frame[p]) * s * 1e3:.2f} mm apart)")
    else:
        why = f"link {p if p not in vols else c!r} has no solids"
    out = []
    for side in sides:
        chosen, d = itf.nearest_faces(gmsh, faces[side], *at[side], tol)
        if not chosen:
            raise InputError(f"joint {joint.name!r}: {why}, and link {side!r} has no face square to or coaxial with "
                             f"the joint axis; name its interface with surfaces={{{side!r}: {{{joint.name!r}: "
                             f"predicate}}}}")
        out.append(named(side, joint.name, Rule.NEAREST, chosen, d))
    notes.append(f"joint {joint.name!r}: {why}; named by the nearest-face rule: " + "; ".join(
        f"{ch.link} {len(ch.faces)} face(s) of {ch.area * 1e6:,.0f} mm^2, centre {ch.distance * 1e3:.1f} mm from "
        f"the joint origin" for ch in out) + "; check them in surfaces.vtm or name them with surfaces=")
    return out


def _check_on_axis(choices: list[FaceChoice], joint, axes: dict, diagonal: dict, notes) -> list[FaceChoice]:
    """Note a revolute joint's faces whose centre lies off its axis by more than :data:`OFF_AXIS` of the link's
    size (``axes``: link -> (point (3,), direction (3,)) [m] in its frame; ``diagonal`` link -> size [m]): faces
    that touch but are no flange, e.g. a beam's side flush with its hub's face. Returns ``choices``."""
    if joint.type not in ("revolute", "continuous"):
        return choices
    for ch in choices:
        x0, a = axes[ch.link]
        off = float(np.linalg.norm(np.cross(ch.centre - x0, a / np.linalg.norm(a))))
        if off > OFF_AXIS * diagonal[ch.link]:
            notes.append(f"joint {joint.name!r}: the faces of {ch.link!r} that touch its other link have their "
                         f"centre {off * 1e3:.1f} mm off the joint axis (a face flush with the flange's plane?); a "
                         f"study refuses such a joint surface: check surfaces.vtm and name the flange with "
                         f"surfaces={{{ch.link!r}: {{{joint.name!r}: predicate}}}}")
    return choices


def mesh_links(plan: AssemblyPlan, sizing: MeshSizing, order: int, folder: Path, progress=None) -> tuple[dict, dict]:
    """Mesh every link of ``plan`` into ``folder/<link>.msh``: (link -> .msh path, link -> sized fillet faces), in
    the plan's order; ``progress(k, n, link, seconds)`` after each.

    Each link is meshed in a fresh Python process of its own (:mod:`structcheck.isolated`), one per core at a time:
    gmsh's curved-element optimization has aborted the whole interpreter on an imported part (see there). A link
    whose process dies is meshed once more in a fresh one (not once the import is stopping: an error elsewhere, or
    Ctrl-C); dying twice is an InputError naming the link. A sizing that cannot go to another process (a fillet
    rule defined in the running script's ``__main__``, or a lambda) meshes here, one link after another."""
    import concurrent.futures as cf
    import threading
    import time

    from .. import isolated
    from ..pool import thread_budget

    links, start, lock, stopping = list(plan.solids), time.perf_counter(), threading.Lock(), threading.Event()
    done: dict[str, tuple] = {}

    def finished(link, result):
        with lock:
            done[link] = result
            if progress is not None:
                progress(len(done), len(links), link, time.perf_counter() - start)

    def alone(link):
        for attempt in range(MESH_ATTEMPTS):
            try:
                return finished(link, isolated.call(mesh_link, plan, link, sizing, order, folder / f"{link}.msh"))
            except isolated.Crash as crash:
                if stopping.is_set():
                    raise
                if attempt + 1 == MESH_ATTEMPTS:
                    raise InputError(f"link {link!r}: gmsh died meshing it ({crash}, {MESH_ATTEMPTS} times, each in "
                                     f"a fresh process); mesh it with another size (mesh_size) or order=1") from None

    try:
        with cf.ThreadPoolExecutor(max(1, min(thread_budget(), len(links)))) as pool:
            futures = [pool.submit(alone, link) for link in links]
            try:
                for f in cf.as_completed(futures):
                    f.result()
            except BaseException:
                stopping.set()
                pool.shutdown(cancel_futures=True)
                raise
    except isolated.Unreadable:
        for link in links:
            if link not in done:
                finished(link, mesh_link(plan, link, sizing, order, folder / f"{link}.msh"))
    return ({link: done[link][0] for link in links}, {link: done[link][1] for link in links})


def mesh_link(plan: AssemblyPlan, link: str, sizing: MeshSizing, order: int, path: Path) -> tuple[Path, list]:
    """Mesh ``link`` of the ``plan`` into ``path`` (.msh) with its named surfaces; returns the path and its sized
    fillet faces (face, radius, size)."""
    size = sizing.link_size(link, plan.diagonal[link])
    surfaces = {ch.surface for ch in plan.choices if ch.link == link}
    # the mesh's physical volume is named after the part: not after one of its surfaces (a base link 'ground')
    part_name = link if link not in surfaces else f"{link}_solid"
    with PartBuilder(part_name, size, curvature_points=sizing.link_curvature_points(link), order=order,
                     local_size_factor=sizing.factor) as b:  # the fillets' and balls' sizes scale with the part's
        vols = [t for d, t in read_shapes(b.gmsh, plan.brep, plan.scale) if d == 3]
        mine = [v for v in vols if _is_solid_of(b, v, plan.solids[link])]
        b.occ.remove([(3, v) for v in vols if v not in mine], recursive=True)
        b.occ.synchronize()
        named: dict[str, list] = {}
        for ch in plan.choices:
            if ch.link == link:
                named.setdefault(ch.surface, []).extend(ch.keys)
        for name, keys in named.items():
            b.name_faces(name, _keyed(keys))
        fillets = size_blends(b, link, sizing, itf.boundary_faces(b.gmsh, mine))
        for centre, ball_size, radius in sizing.link_balls(link):
            b.refine_near(centre, ball_size, radius)
        b.build(mine)
        return b.write(path), fillets


def _is_solid_of(b: PartBuilder, vol: int, solids) -> bool:
    c, m = np.array(b.occ.getCenterOfMass(3, vol)), b.occ.getMass(3, vol)
    return any(np.allclose(c, c0, atol=KEY_TOL) and abs(m - m0) <= 1e-6 * m0 for c0, m0 in solids)


def _keyed(keys):
    """Predicate: a face whose centre and bounding box are those of one of ``keys`` (within :data:`KEY_TOL`)."""
    def pred(c, bb):
        return any(np.allclose(c, c0, atol=KEY_TOL) and np.allclose(bb, bb0, atol=10 * KEY_TOL) for c0, bb0 in keys)
    return pred
