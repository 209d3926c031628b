"""``modes.pvd``: the assembled arm's lowest modes for ParaView (arm model only), one mode per time step.

Step k (the ParaView "time" k = 1, 2, ...: mode numbers, since two modes can share a frequency) holds every link
placed where the robot is at the pose where the arm's first frequency is lowest over the motion
(``summary.json``'s ``time_of_arm_modes_s``), as ``vtk/modes/<link>_mode<k>.vtu`` (float64) with

- point field ``mode_shape`` (n_nodes, 3): the mode's displacement in world axes, max-normalized (the largest
  nodal displacement magnitude over the whole arm is 1, dimensionless; Warp By Vector with a scale factor in metres
  shows the mode at that amplitude);
- field data ``frequency_hz`` (equal to ``summary.json``'s ``arm_modes_hz[k - 1]``), ``mode`` (k),
  ``time_s`` (the pose's time [s]) and ``scale_to_mass_normalized`` [m / sqrt(kg)]: ``mode_shape`` times it is
  the mass-normalized shape.
"""
from __future__ import annotations

from pathlib import Path

from .data import RunResult
from .paraview import _write_vtu


def write_mode_shapes(run: RunResult, folder: Path) -> Path:
    """Write ``modes.pvd`` and its ``vtk/modes/*.vtu`` files for ``run.arm_modes`` into ``folder``; return the
    .pvd path."""
    modes = run.arm_modes
    (folder / "vtk" / "modes").mkdir(parents=True, exist_ok=True)
    names = [n for n in run.link_names if n in modes.shapes and n in run.links]
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">', "  <Collection>"]
    for k, f in enumerate(modes.frequency_hz):
        for part, name in enumerate(names):
            link, T = run.links[name], modes.T_world_link[name]
            points = link.points @ T[:3, :3].T + T[:3, 3]
            fname = f"vtk/modes/{name}_mode{k + 1}.vtu"
            _write_vtu(folder / fname, points, link.cells, {"mode_shape": modes.shapes[name][k]},
                       field_data={"frequency_hz": float(f), "mode": k + 1, "time_s": modes.time_s,
                                   "scale_to_mass_normalized": float(modes.scale_to_mass_normalized[k])})
            lines.append(f'    <DataSet timestep="{k + 1}" group="{name}" part="{part}" file="{fname}"/>')
    lines += ["  </Collection>", "</VTKFile>", ""]
    path = folder / "modes.pvd"
    path.write_text("\n".join(lines))
    return path
