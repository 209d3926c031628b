"""The arm's lowest modes in 3-D (arm model): every link's surface (its corner triangles: a mode shape is smooth,
and each mode adds the surface's coordinates to the page again) at the pose where the first frequency is lowest,
displaced along the chosen mode and coloured by the mode's displacement magnitude, a button per mode.
Read from the results folder's ``modes.vtkhdf`` (:mod:`structcheck.results.modes`)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .view3d import MM, surface, typed, true_scale

AMPLITUDE = 0.08  # the largest modal displacement drawn, as a fraction of the robot's largest dimension


def mode_view(folder: Path, frequencies_hz: list[float]):
    """The mode-shape figure of the results folder ``folder`` (``frequencies_hz``: summary.json's
    ``arm_modes_hz``); None without ``modes.vtkhdf`` (the per-link model, --no-vtk, or the pvd layout)."""
    path = folder / "modes.vtkhdf"
    if not path.is_file() or not frequencies_hz:
        return None
    import plotly.graph_objects as go

    from ..results.vtkhdf import read_vtkhdf

    modes = [read_vtkhdf(path, k) for k in range(len(frequencies_hz))]
    links = list(modes[0].keys())
    surfaces = {n: surface(modes[0][n], split=False) for n in links}  # corner triangles: mode shapes are smooth
    rest = {n: np.asarray(modes[0][n].points)[ids] for n, (ids, _) in surfaces.items()}
    size = np.ptp(np.vstack(list(rest.values())), axis=0).max()
    shapes = [{n: np.asarray(m[n].point_data["mode_shape"])[surfaces[n][0]] for n in links} for m in modes]
    placed = [{n: (rest[n] + AMPLITUDE * size * s[n]) * MM for n in links} for s in shapes]
    fig = go.Figure()
    for n, (_, tri) in surfaces.items():
        p, tri = placed[0][n].astype(np.float32), tri.astype(np.int32)
        fig.add_trace(go.Mesh3d(x=p[:, 0], y=p[:, 1], z=p[:, 2], i=tri[:, 0], j=tri[:, 1], k=tri[:, 2],
                                intensity=np.linalg.norm(shapes[0][n], axis=1).astype(np.float32),
                                coloraxis="coloraxis", name=n,
                                meta=n, hovertemplate="%{meta}<br>relative displacement %{intensity:.3g}"
                                                      "<extra></extra>"))
    buttons = [dict(label=f"mode {k + 1}: {f:.4g} Hz", method="update",
                    args=[{"x": [typed(placed[k][n][:, 0]) for n in links],
                           "y": [typed(placed[k][n][:, 1]) for n in links],
                           "z": [typed(placed[k][n][:, 2]) for n in links],
                           "intensity": [typed(np.linalg.norm(shapes[k][n], axis=1)) for n in links]}, {}])
               for k, f in enumerate(frequencies_hz)]
    fig.update_layout(height=560, template="plotly_white", margin=dict(l=0, r=0, t=70, b=0),
                      coloraxis=dict(colorscale="Viridis", cmin=0, cmax=1, colorbar=dict(
                          title=dict(text="displacement / its largest [-]", side="right"))),
                      scene=dict(**true_scale([p for pl in placed for p in pl.values()]),  # every mode in view
                                 camera=dict(eye=dict(x=-1.5, y=-1.5, z=1.0))),
                      updatemenus=[dict(type="buttons", direction="right", x=0, y=1.0, xanchor="left",
                                        yanchor="bottom", buttons=buttons, pad=dict(t=2, b=2))])
    return fig
