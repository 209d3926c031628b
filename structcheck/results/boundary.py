"""Where a link is held and loaded: its joint faces and load patches, for the report's figure of the boundary
conditions and loads (``links.<name>.boundary_conditions`` in summary.json, and the ``joint_face`` point field of
``vtk/<link>_envelope.vtu`` that marks their nodes).

Every face is a named surface of the link's mesh (:mod:`structcheck.loads`): the support (the proximal joint's
face, or ``ground`` for the base), each distal joint's face (the child's reaction wrench, spread over it as the
RBE3-like linear traction), and the patches of point forces, payloads and non-structural masses. The force on
each is in the link frame [N], at the link's peak instant and its largest over the motion; for the support, the
force the parent (or the ground) exerts on the link (``LinkLoads.proximal_wrench``); for the others, the applied
force (the sum of that surface's force columns).
"""
from __future__ import annotations

import numpy as np

from ..loads import FORCE_COMPONENTS

ROLES = {"support": "support (held: clamped in the per-link model, coupled to its joint in the arm model)",
         "interface": "joint face (the child link's reaction, coupled as a linear traction)",
         "point": "load patch (a force or payload at a named point)",
         "mass": "mass mounting (a non-structural mass's weight and inertia force)"}


def face_forces(loads) -> dict[str, tuple[str, np.ndarray]]:
    """Surface -> (role, force history (n_t, 3) [N, link axes]) of the link's loads (``LinkLoads``): the support
    first, then every surface a load column acts on, in column order; the forces of columns on one surface
    summed."""
    out = {s: ("support", loads.proximal_wrench[:, :3]) for s in loads.support}
    for k, c in enumerate(loads.columns):
        if c.kind == "body" or c.component not in FORCE_COMPONENTS:
            continue
        role, force = out.get(c.source, (c.kind, np.zeros((len(loads.coeff), 3))))
        force = force.copy()
        force[:, FORCE_COMPONENTS.index(c.component)] += loads.coeff[:, k]
        out[c.source] = (role, force)
    return out


def boundary_conditions(part, loads, i_peak: int) -> tuple[list[dict], np.ndarray]:
    """The faces of link ``part`` under ``loads`` as summary.json entries (surface, role, centre of its nodes in
    the link frame [m], its force at the sample ``i_peak`` and the largest force magnitude over the motion [N])
    and the point field ``joint_face`` (n_nodes,): each node's face as its position in that list (-1: none; a node
    on two faces takes the later)."""
    faces = [(s, role, F) for s, (role, F) in face_forces(loads).items() if s in part.surfaces]
    mark = np.full(len(part.points), -1.0)
    entries = []
    for k, (surface, role, F) in enumerate(faces):
        nodes = part.surface_nodes(surface)
        mark[nodes] = k
        entries.append({"surface": surface, "role": role,
                        "centre_link_m": tuple(map(float, part.points[nodes].mean(axis=0))),
                        "force_at_peak_n": tuple(map(float, F[i_peak])),
                        "max_force_n": float(np.linalg.norm(F, axis=1).max()) if len(F) else 0.0})
    return entries, mark
