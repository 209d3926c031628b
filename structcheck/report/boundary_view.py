"""The report's figure of each link's boundary conditions, loads and mesh: an off-screen pyvista render (as the
static renders of :mod:`.view3d`) of the link in its own frame with two views side by side. Left: the faces it is
held and loaded on coloured by their role (the ``joint_face`` field of ``vtk/<link>_envelope.vtu``) and an arrow
per face along the force on the link there at its peak instant (summary.json ``links.<name>.boundary_conditions``,
link axes), its length proportional to the force. Right: the mesh, element edges drawn.

The PNG is reduced to a palette of :data:`PALETTE` colours (the renders are flat shades: a third of the bytes,
no visible change), so a robot's figures stay a small part of the page.
"""
from __future__ import annotations

import base64
import io
from typing import Mapping

import numpy as np

ROLE_COLOURS = {"support": "#1f5fbf", "interface": "#e07b00", "point": "#2ca02c", "mass": "#9467bd"}
ROLE_LABELS = {"support": "support (held)", "interface": "distal joint face (coupled)", "point": "load patch",
               "mass": "mass mounting"}
FREE_COLOUR = (0.82, 0.82, 0.82)
PALETTE = 64
ARROW_OF_DIAGONAL = (0.08, 0.3)  # arrow lengths: the smallest and the largest force's, times the link's diagonal


def _rgb(hex_colour: str) -> tuple[float, float, float]:
    return tuple(int(hex_colour[k:k + 2], 16) / 255 for k in (1, 3, 5))


def face_colours(joint_face: np.ndarray, roles: list[str]) -> np.ndarray:
    """RGB (n, 3) in [0, 1] of surface nodes marked ``joint_face`` (position in ``roles``, -1 none)."""
    table = np.array([FREE_COLOUR, *(_rgb(ROLE_COLOURS.get(r, "#000000")) for r in roles)])
    return table[np.asarray(joint_face, int) + 1]


def arrows(bcs: list[dict], diagonal: float) -> list[tuple[np.ndarray, np.ndarray, str, str]]:
    """(tail, vector, role, label) of each face's force arrow [m, link frame]: the arrow ends at the face's centre
    and points along the force on the link; lengths between :data:`ARROW_OF_DIAGONAL` of ``diagonal`` as the force
    goes from 0 to the largest; faces without a force get none."""
    forces = [np.asarray(b["force_at_peak_n"], float) for b in bcs]
    top = max((float(np.linalg.norm(f)) for f in forces), default=0.0)
    out = []
    for b, f in zip(bcs, forces):
        size = float(np.linalg.norm(f))
        if size == 0.0 or top == 0.0:
            continue
        lo, hi = ARROW_OF_DIAGONAL
        vec = f / size * diagonal * (lo + (hi - lo) * size / top)
        out.append((np.asarray(b["centre_link_m"], float) - vec, vec, b["role"], f"{b['surface']}: {size:.4g} N"))
    return out


def link_figure(envelope, bcs: list[dict], link: str, time_s: float, size=(1000, 420)) -> str:
    """Base64 PNG of ``link`` (``envelope``: its envelope grid, link frame, with ``joint_face``) with its faces and
    force arrows at ``time_s`` [s] (left) and its mesh (right)."""
    import pyvista as pv
    from vtkmodules.vtkCommonCore import vtkLogger

    surf = envelope.extract_surface(algorithm="dataset_surface")
    marks = surf.point_data["joint_face"] if "joint_face" in surf.point_data else np.full(surf.n_points, -1)
    surf.point_data["colour"] = (255 * face_colours(marks, [b["role"] for b in bcs])).astype(np.uint8)
    diagonal = float(np.linalg.norm(np.ptp(np.asarray(envelope.points), axis=0)))
    cutoff = vtkLogger.GetCurrentVerbosityCutoff()
    vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)  # VTK's warning that it found no X display
    try:
        plotter = pv.Plotter(off_screen=True, window_size=size, shape=(1, 2), border=False)
    finally:
        vtkLogger.SetStderrVerbosity(cutoff)
    try:
        plotter.subplot(0, 0)
        plotter.add_mesh(surf, scalars="colour", rgb=True, show_scalar_bar=False)
        for tail, vec, role, label in arrows(bcs, diagonal):
            colour = ROLE_COLOURS.get(role, "#000000")
            plotter.add_mesh(pv.Arrow(start=tail, direction=vec, scale=float(np.linalg.norm(vec)), tip_length=0.25,
                                      tip_radius=0.08, shaft_radius=0.03), color=colour)
            plotter.add_point_labels(tail[None], [label], font_size=11, point_size=1, shape_opacity=0.6,
                                     always_visible=True)
        present = dict.fromkeys(b["role"] for b in bcs)
        if present:
            plotter.add_legend([[ROLE_LABELS.get(r, r), ROLE_COLOURS.get(r, "#000000")] for r in present],
                               bcolor="white", size=(0.42, 0.06 * len(present)), loc="lower left")
        plotter.add_text(f"{link}: faces and forces at t = {time_s:.4g} s (link frame)", font_size=9)
        _camera(plotter)
        plotter.subplot(0, 1)
        plotter.add_mesh(surf, color="#e8e8e8", show_edges=True, edge_color="#404040", line_width=0.5)
        plotter.add_text(f"{link}: mesh, {envelope.n_cells} elements", font_size=9)
        _camera(plotter)
        image = plotter.screenshot(return_img=True)
    finally:
        plotter.close()
    return encode_png(image)


def _camera(plotter) -> None:
    plotter.view_isometric()
    plotter.enable_parallel_projection()
    plotter.reset_camera()
    plotter.camera.zoom(1.1)


def encode_png(image: np.ndarray, colours: int = PALETTE) -> str:
    """Base64 PNG of an RGB image (h, w, 3) reduced to ``colours`` palette colours, compressed."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.asarray(image, np.uint8)).quantize(colours).save(buf, format="PNG", optimize=True)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def link_figures(res, summary: Mapping) -> list[tuple[str, str]]:
    """(link, base64 PNG) of every link whose envelope the folder has; empty without vtk/ (a run with --no-vtk)."""
    from ..errors import InputError

    out = []
    for link, L in summary.get("links", {}).items():
        try:
            envelope = res.envelope(link)
        except InputError:
            return []
        out.append((link, link_figure(envelope, L.get("boundary_conditions") or [], link, L["time_of_max_s"])))
    return out
