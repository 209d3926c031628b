"""An off-screen picture of a results folder: the robot at one output frame coloured by a field (pyvista)."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .schema import read_summary


def write_screenshot(folder: str | os.PathLike, png: str | os.PathLike, *, time: float | None = None,
                     field: str = "von_mises", window_size=(1200, 900)) -> Path:
    """Render the robot at the stored step nearest ``time`` [s] (default: the instant of the overall peak, a stored
    step) coloured by ``field`` [MPa for stresses] off-screen with pyvista, and save it as ``png``. Reads the
    folder's ``robot.vtkhdf`` or, if it has none, its ``robot.pvd``."""
    import pyvista as pv

    folder = Path(folder)
    summary = read_summary(folder)
    if time is None:
        time = summary.links[summary.max_von_mises_link].time_of_max_s
    time, blocks = _frame(folder, time)
    plotter = pv.Plotter(off_screen=True, window_size=window_size)
    scale = 1e-6 if field == "von_mises" else 1.0
    grids = [b for b in _leaves(blocks)]
    vmax = max(float(np.max(g.point_data[field])) for g in grids) * scale
    for g in grids:
        g = g.copy()
        g.point_data["shown"] = g.point_data[field] * scale
        plotter.add_mesh(g.extract_surface(algorithm="dataset_surface"), scalars="shown", cmap="turbo",
                         clim=(0, vmax), show_scalar_bar=False)
    plotter.add_scalar_bar(title=f"{field} [MPa]" if field == "von_mises" else field, n_labels=5)
    plotter.add_text(f"{summary.study or folder.name}  t = {time:.3f} s  max {vmax:.3f}", font_size=10)
    plotter.view_isometric()
    plotter.camera.azimuth = 200
    plotter.enable_parallel_projection()
    plotter.camera.zoom(1.6)
    png = Path(png)
    plotter.screenshot(str(png))
    plotter.close()
    return png


def _frame(folder: Path, time: float):
    """The stored step nearest ``time`` [s] and the robot at it (pyvista blocks), from ``robot.vtkhdf`` or,
    in a folder written with ``vtk_format="pvd"``, ``robot.pvd``."""
    from .load import load

    res = load(folder)
    return res.frame_time(time), res.frame(time)


def _leaves(block):
    import pyvista as pv

    if isinstance(block, pv.MultiBlock):
        for b in block:
            if b is not None:
                yield from _leaves(b)
    else:
        yield block
