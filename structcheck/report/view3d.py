"""The 3-D view of a report: the robot at the instant of its peak stress (the analysis sample of the peak, a
stored step of the results: :mod:`structcheck.results.steps`), every link's surface coloured by a field the
reader chooses (von Mises at that instant, each link at its own peak, the von Mises envelope, the smallest safety
factor, the deformation envelope), as a plotly ``Mesh3d`` figure that rotates and zooms offline; and static
renders (pyvista, off-screen) as base64 PNG for printing.

The surfaces are the links' boundary triangles through their corner and mid-side nodes (each quadratic face
split in four, so a peak at a mid-side node shows its colour) or, for a robot whose surface would exceed
:data:`MAX_TRIANGLES`, through their corners; placed in world axes [mm] where the robot is at that frame.
The envelopes are stored in each link's frame with the same node numbering: they are drawn on the frame's
placement of the link.
"""
from __future__ import annotations

import base64
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..errors import InputError
from .view import as_mapping

MPA, MM = 1e-6, 1e3
LONGEST_SIDE = 1.8  # the robot's box in plotly's scene units, which the camera below shows whole
MAX_TRIANGLES = 60_000  # the view's surface triangles: about 3 MB of page and a second to draw in software WebGL


@dataclass(frozen=True)
class Field:
    """A colouring: ``label`` (the button and the colour bar), ``values`` link -> per-surface-point values (already
    in the shown unit), ``cmax`` the colour scale's top, ``hover`` the hover template (a text, or link -> text)."""

    label: str
    values: dict
    cmax: float
    hover: str | dict
    cmin: float = 0.0

    def hover_of(self, link: str) -> str:
        """The hover template of ``link``'s surface."""
        return (self.hover[link] if isinstance(self.hover, dict) else self.hover) + "<extra></extra>"


# VTK's tetra faces, outward for a positive volume, as (corner, corner, corner, mid, mid, mid) node positions of
# the 10-node tetra (mid-side nodes 4..9 on edges 01, 12, 02, 03, 13, 23); linear tets use the corners alone
_FACES = np.array([[0, 2, 1, 6, 5, 4], [0, 1, 3, 4, 8, 7], [1, 2, 3, 5, 9, 8], [0, 3, 2, 7, 9, 6]])
# a quadratic face (a, b, c, ab, bc, ca) as four triangles through its mid-side nodes
_SPLIT = np.array([[0, 3, 5], [3, 1, 4], [5, 4, 2], [3, 4, 5]])


def surface(grid, split: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The boundary of a tetrahedral grid (VTK tetra or quadratic tetra cells): the node numbers of its surface
    (n,) and its triangles (m, 3) as positions in them. A face is on the boundary when no other cell shares its
    corners; with ``split`` a quadratic face is drawn as four triangles through its mid-side nodes, else as the
    triangle of its corners."""
    cells = np.asarray(grid.cells_dict.get(24, grid.cells_dict.get(10)))
    quadratic = cells.shape[1] == 10
    faces = cells[:, _FACES if quadratic else _FACES[:, :3]].reshape(-1, 6 if quadratic else 3)
    key = np.sort(faces[:, :3], axis=1)
    _, first, count = np.unique(key, axis=0, return_index=True, return_counts=True)
    outer = faces[first[count == 1]]
    tri = outer[:, _SPLIT].reshape(-1, 3) if quadratic and split else outer[:, :3]
    nodes, local = np.unique(tri, return_inverse=True)
    return nodes, local.reshape(-1, 3)


def robot_surfaces(frame, links, max_triangles: int = MAX_TRIANGLES) -> dict:
    """link -> (surface node numbers, triangles) of the links in ``frame``: quadratic faces split through their
    mid-side nodes (so a peak there shows its colour) while the robot's surface stays within ``max_triangles``,
    else the corner triangles (a quarter of them: the page stays small and quick to draw)."""
    split = {n: surface(frame[n]) for n in links}
    if sum(len(tri) for _, tri in split.values()) <= max_triangles:
        return split
    return {n: surface(frame[n], split=False) for n in links}


def view_fields(res, frame, nodes: dict) -> list[Field]:
    """The fields of the view on the surface nodes ``nodes`` (link -> node numbers) of results ``res``: von Mises
    of each link at its own peak time and at the ``frame`` shown (:func:`peak_frame`), and, where the folder has
    them, the envelopes (von Mises, smallest safety factor, deformation)."""
    s = as_mapping(res.summary)
    at = peak_frame(res, read=False)

    def field(label, hover, get, cap=None):  # cap: the colour scale's top (values above it take its colour)
        values = {n: get(n)[ids] for n, ids in nodes.items()}
        if cap is not None:  # an unstressed node's infinite safety factor: drawn (and hovered) as the cap
            values = {n: np.where(np.isfinite(v), v, cap) for n, v in values.items()}
        top = cap if cap is not None else max(float(v.max()) for v in values.values())
        return Field(label, values, top, hover)

    stress = "%{meta}<br>%{intensity:.4g} MPa"
    fields = [field(f"von Mises at t = {at.time:.4g} s, {at.what} [MPa]", stress,
                    lambda n: frame[n].point_data["von_mises"] * MPA)]
    try:
        peak = {n: res.peak(n) for n in nodes}
        env = {n: res.envelope(n) for n in nodes}
    except InputError:  # a folder without vtk/: the frame's field alone
        return fields
    own = {n: stress + f" (its peak, t = {float(peak[n].field_data['TimeValue'][0]):.4g} s)" for n in nodes}
    fields.insert(0, field("von Mises of each link at its own peak instant [MPa]", own,
                           lambda n: peak[n].point_data["von_mises"] * MPA))
    fields.append(field("von Mises envelope, max over time [MPa]", stress + " (max over time)",
                        lambda n: env[n].point_data["von_mises"] * MPA))
    cap = 4 * s["required_safety_factor"]
    fields.append(field(f"safety factor, min over time [-] (colours capped at {cap:g})",
                        "%{meta}<br>safety factor %{intensity:.3g}", lambda n: env[n].point_data["safety_factor"],
                        cap))
    fields.append(field("deformation envelope, max over time [mm]", "%{meta}<br>%{intensity:.4g} mm",
                        lambda n: env[n].point_data["displacement_magnitude"] * MM))
    if all("fatigue_damage" in env[n].point_data for n in nodes):
        fields.append(damage_field({n: env[n].point_data["fatigue_damage"][ids] for n, ids in nodes.items()}))
    return fields


DAMAGE_DECADES = 8  # the damage field's colours span this many decades below the largest damage


def damage_field(damage: dict) -> Field:
    """The fatigue damage per duty cycle (link -> values on the surface nodes) as log10, its colours over
    :data:`DAMAGE_DECADES` decades below the largest (an undamaged node, 0, at the bottom); the hover gives the
    damage and the life (1 / damage duty cycles)."""
    top = max(float(v.max()) for v in damage.values())
    if top <= 0:  # no node damaged: every life infinite
        return Field("fatigue damage per duty cycle: none (every life infinite)",
                     {n: np.zeros(len(v)) for n, v in damage.items()}, 1.0, "%{meta}<br>no fatigue damage")
    floor = np.log10(top) - DAMAGE_DECADES
    logs = {n: np.log10(np.maximum(v, 10.0 ** floor)) for n, v in damage.items()}
    return Field("fatigue damage per duty cycle [log10]", logs, float(np.log10(top)),
                 "%{meta}<br>damage per duty cycle 10^%{intensity:.3f}", cmin=floor)


class PeakFrame(NamedTuple):
    """The robot where its peak stress is: ``time`` [s] of the stored step shown, ``robot`` (a pyvista MultiBlock
    of the links, world placement; None when not read), ``link`` the link of the peak and ``exact``: the step is
    the peak's own instant (else the stored step nearest it, in a folder of an earlier version)."""

    time: float
    robot: object
    link: str
    exact: bool

    @property
    def what(self) -> str:
        """What the step is, for a label: 'the peak instant of link upper'."""
        return f"the peak instant of link {self.link}" if self.exact else "the output frame nearest the peak"


def peak_frame(res, read: bool = True) -> PeakFrame | None:
    """The robot of results ``res`` at the instant of its peak von Mises (a stored step: the step nearest it in a
    folder without the peak instants), read when ``read``; None without stored steps (a run with --no-vtk)."""
    if len(res.times) == 0:
        return None
    s = as_mapping(res.summary)
    link = s["max_von_mises_link"]
    peak = s["links"][link]["time_of_max_s"]
    time = res.frame_time(peak)
    return PeakFrame(time, res.frame(time) if read else None, link, time == peak)


def robot_view(res, frame):
    """The interactive view of results ``res`` (:class:`structcheck.results.Results`) with the robot ``frame`` at
    its peak (:func:`peak_frame`), with a button per field."""
    import plotly.graph_objects as go

    surfaces = robot_surfaces(frame, [n for n in res.link_names if n in frame.keys()])
    nodes = {n: ids for n, (ids, _) in surfaces.items()}
    fields = view_fields(res, frame, nodes)
    first = fields[0]
    fig = go.Figure()
    placed = [(np.asarray(np.asarray(frame[n].points)[ids] * MM, np.float32), tri.astype(np.int32))
              for n, (ids, tri) in surfaces.items()]
    for n, (p, tri) in zip(surfaces, placed):
        fig.add_trace(go.Mesh3d(x=p[:, 0], y=p[:, 1], z=p[:, 2], i=tri[:, 0], j=tri[:, 1], k=tri[:, 2],
                                intensity=np.asarray(first.values[n], np.float32), coloraxis="coloraxis",
                                name=n, meta=n, hovertemplate=first.hover_of(n),
                                lighting=dict(ambient=0.6, diffuse=0.6, specular=0.05, roughness=0.9)))
    buttons = [dict(label=f.label.split(" [")[0].split(",")[0], method="update",
                    args=[{"intensity": [typed(f.values[n]) for n in surfaces],
                           "hovertemplate": [f.hover_of(n) for n in surfaces]},
                          {"coloraxis.cmax": f.cmax, "coloraxis.cmin": f.cmin, "coloraxis.colorbar.title.text": f.label}])
               for f in fields]
    fig.update_layout(
        height=640, template="plotly_white", margin=dict(l=0, r=0, t=70, b=0),
        coloraxis=dict(colorscale="Turbo", cmin=first.cmin, cmax=first.cmax,
                       colorbar=dict(title=dict(text=first.label, side="right"))),
        scene=dict(**true_scale([p for p, _ in placed]), camera=dict(eye=dict(x=-1.5, y=-1.5, z=1.0))),
        updatemenus=[dict(type="buttons", direction="right", x=0, y=1.0, xanchor="left", yanchor="bottom",
                          buttons=buttons, showactive=True, pad=dict(t=2, b=2))])
    return fig


def true_scale(points: list[np.ndarray]) -> dict:
    """Scene axes [mm] at one scale, the longest side of the robot's box LONGEST_SIDE (plotly's unit cube is 1, seen
    whole from the eye we set): plotly's aspectmode 'data' scales the
    box to a unit geometric mean instead, which puts a long thin arm far outside the view."""
    lo = np.min([p.min(axis=0) for p in points], axis=0)
    hi = np.max([p.max(axis=0) for p in points], axis=0)
    pad = 0.02 * (hi - lo).max()
    lo, hi = lo - pad, hi + pad
    ratio = LONGEST_SIDE * (hi - lo) / (hi - lo).max()
    axes = {f"{a}axis": dict(title=f"{a} [mm]", range=[float(lo[k]), float(hi[k])]) for k, a in enumerate("xyz")}
    return dict(aspectmode="manual", aspectratio=dict(zip("xyz", map(float, ratio))), **axes)


def typed(values: np.ndarray) -> dict:
    """Values for a button's data as plotly's typed array (float32, base64: 5.3 characters a value, fewer than
    JSON numbers of 4 digits), which plotly.js decodes in an update as in a trace."""
    return {"dtype": "f4", "bdata": base64.b64encode(np.asarray(values, np.float32).tobytes()).decode("ascii")}


def static_renders(frame, time: float, study: str, size=(900, 650),
                   what: str = "the output frame nearest the peak") -> list[tuple[str, str]]:
    """Two off-screen renders (pyvista) of the robot ``frame`` (a MultiBlock of the links, world placement) at
    ``time`` [s] (``what`` that instant is, for the captions: :attr:`PeakFrame.what`), coloured by von Mises
    [MPa], from the usual side and the opposite one: (caption, base64 PNG)."""
    import pyvista as pv

    from vtkmodules.vtkCommonCore import vtkLogger

    vmax = max(float(frame[n].point_data["von_mises"].max()) for n in frame.keys()) * MPA
    cutoff = vtkLogger.GetCurrentVerbosityCutoff()
    vtkLogger.SetStderrVerbosity(vtkLogger.VERBOSITY_ERROR)  # VTK's warning that it found no X display, then rendered
    try:
        plotter = pv.Plotter(off_screen=True, window_size=size)
    finally:
        vtkLogger.SetStderrVerbosity(cutoff)
    for n in frame.keys():
        g = frame[n].copy()
        g.point_data["von Mises [MPa]"] = g.point_data["von_mises"] * MPA
        plotter.add_mesh(g.extract_surface(algorithm="dataset_surface"), scalars="von Mises [MPa]", cmap="turbo",
                         clim=(0, vmax), show_scalar_bar=False)
    plotter.add_scalar_bar(title="von Mises [MPa]", n_labels=5)
    plotter.add_text(f"{study}  t = {time:.4g} s  max {vmax:.4g} MPa", font_size=10)
    plotter.enable_parallel_projection()
    out = []
    try:
        for side, azimuth in (("front", 200.0), ("back", 20.0)):
            plotter.view_isometric()
            plotter.camera.azimuth = azimuth
            plotter.reset_camera()
            plotter.camera.zoom(1.25)
            with tempfile.TemporaryDirectory() as tmp:
                png = Path(tmp) / "shot.png"
                plotter.screenshot(str(png))
                out.append((f"von Mises [MPa] at t = {time:.4g} s ({what}), {side} view",
                            base64.b64encode(png.read_bytes()).decode("ascii")))
    finally:
        plotter.close()
    return out
