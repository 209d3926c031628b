"""The assembled arm's lowest modes for ParaView (arm model only), one mode per time step: ``modes.vtkhdf``
(default) or ``modes.pvd`` (``vtk_format="pvd"``).

Step k (the ParaView "time" k = 1, 2, ...: mode numbers, since two modes can share a frequency) holds every link
placed where the robot is at the pose where the arm's first frequency is lowest over the motion
(``summary.json``'s ``time_of_arm_modes_s``), with

- point field ``mode_shape`` (n_nodes, 3) float64: the mode's displacement in world axes, max-normalized (the
  largest nodal displacement magnitude over the whole arm is 1, dimensionless; Warp By Vector with a scale factor
  in metres shows the mode at that amplitude);
- field data ``frequency_hz`` (equal to ``summary.json``'s ``arm_modes_hz[k - 1]``), ``mode`` (k),
  ``time_s`` (the pose's time [s]) and ``scale_to_mass_normalized`` [m / sqrt(kg)]: ``mode_shape`` times it is
  the mass-normalized shape.

``modes.vtkhdf`` gathers ``vtk/modes/<link>.vtkhdf``, one VTKHDF series per link whose mesh and points are
stored once (the pose is the same for every mode), with the field data per step. VTK 9.7's reader drops a block's
field data when it reads the gathering file, so there each step also carries the point field ``frequency_hz``
(n_nodes,), the mode's frequency at every node (deflate stores the constant array in a few hundred bytes).
``modes.pvd`` gathers ``vtk/modes/<link>_mode<k>.vtu``, a whole mesh per link and mode.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .data import RunResult
from .vtu import VTK_QUADRATIC_TETRA, VTK_TETRA, write_pvd, write_vtu
from .vtkhdf import write_vtkhdf_collection, write_vtkhdf_series


def write_mode_shapes(run: RunResult, folder: Path, vtk_format: str = "hdf") -> Path:
    """Write ``modes.vtkhdf`` (``vtk_format="hdf"``) or ``modes.pvd`` (``"pvd"``) and the per-link files they
    gather for ``run.arm_modes`` into ``folder``; return the gathering file's path."""
    modes = run.arm_modes
    (folder / "vtk" / "modes").mkdir(parents=True, exist_ok=True)
    names = [n for n in run.link_names if n in modes.shapes and n in run.links]
    n_modes = len(modes.frequency_hz)
    field_data = {"frequency_hz": np.asarray(modes.frequency_hz, float),
                  "mode": np.arange(1, n_modes + 1, dtype=np.int64),
                  "time_s": np.full(n_modes, float(modes.time_s)),
                  "scale_to_mass_normalized": np.asarray(modes.scale_to_mass_normalized, float)}
    entries, blocks = [], {}
    for part, name in enumerate(names):
        link, T = run.links[name], modes.T_world_link[name]
        points = link.points @ T[:3, :3].T + T[:3, 3]
        shapes = np.asarray(modes.shapes[name][:n_modes])
        if vtk_format == "hdf":
            fname = f"vtk/modes/{name}.vtkhdf"
            cell_type = VTK_QUADRATIC_TETRA if link.cells.shape[1] == 10 else VTK_TETRA
            write_vtkhdf_series(folder / fname, np.arange(1.0, n_modes + 1), np.broadcast_to(points, shapes.shape),
                                link.cells, cell_type, {"mode_shape": shapes, "frequency_hz": np.broadcast_to(
                                    field_data["frequency_hz"][:, None], shapes.shape[:2])}, exact_fields=True,
                                field_data=field_data, index=part)
            blocks[name] = fname
            continue
        for k in range(n_modes):
            fname = f"vtk/modes/{name}_mode{k + 1}.vtu"
            write_vtu(folder / fname, points, link.cells, {"mode_shape": shapes[k]},
                       field_data={f: v[k].item() for f, v in field_data.items()})
            entries.append((k + 1, part, name, fname))
    if vtk_format == "hdf":
        return write_vtkhdf_collection(folder / "modes.vtkhdf", blocks)
    return write_pvd(folder / "modes.pvd", sorted(entries))
