"""ParaView files of a results folder: every link at every stored step (the output frames and every link's peak
instant: :mod:`.steps`) placed where the robot is, as a VTKHDF time series per link gathered by ``robot.vtkhdf``
(default) or as one VTK XML file per link and step gathered by ``robot.pvd`` (for readers older than VTK 9.3 /
ParaView 5.12); each step's field data says what it is (:func:`robot_flags`: ``output_frame``, ``peak_<link>``,
``around_peak``); in both, each link's peak sample and envelope as exact (float64) VTK XML files."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError
from .data import RunResult
from .vtkhdf import write_vtkhdf_collection, write_vtkhdf_series
from .vtu import VTK_QUADRATIC_TETRA, VTK_TETRA, write_pvd, write_vtu

# Point fields every frame and envelope carry (ParaView names).
FRAME_FIELDS = ("displacement", "von_mises", "equivalent_strain", "safety_factor")
VTK_FORMATS = ("hdf", "pvd")
# Precision of the VTKHDF series (see results.vtkhdf): points on a 2**-26 m (15 nm) grid, fields with 16 of
# float32's 23 mantissa bits (relative rounding <= 7.6e-6), but float64 exact at the links' peak instants; peak
# and envelope .vtu stay float64 exact.
POINT_QUANTUM_M = 2.0 ** -26
FIELD_BITS = 16


def link_frames(run: RunResult, name: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Link ``name`` placed where the robot is at every stored step: points (n_steps, n_nodes, 3) [m] and the
    point fields of ``FRAME_FIELDS`` (n_steps, n_nodes[, 3]), all in world axes (displacement is stored in
    link axes and rotated here)."""
    link = run.links[name]
    return _in_world(link.points, link.frame_fields, run.T_world_link_frames[:, run.link_names.index(name)])


def peak_frame(run: RunResult, name: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Link ``name`` at its peak sample: points (n_nodes, 3) [m] and point fields, world axes (a link result
    without one takes the stored step nearest its peak time)."""
    link = run.links[name]
    if link.T_world_peak is None or not link.peak_fields:
        points, fields = link_frames(run, name)
        k = int(np.argmin(np.abs(np.asarray(run.frame_times) - link.time_of_max_s)))
    else:
        points, fields = _in_world(link.points, {f: np.asarray(v)[None] for f, v in link.peak_fields.items()},
                                   link.T_world_peak[None])
        k = 0
    return points[k], {f: v[k] for f, v in fields.items()}


def robot_flags(run: RunResult, names: list[str]) -> dict[str, np.ndarray]:
    """What each stored step is, as field data (n_steps,) int8, 1 or 0: ``output_frame`` (one of the study's
    ``n_frames`` frames), ``around_peak`` (a sample of a peak's window, ``Study.peak_window_s``) and, per link,
    ``peak_<link>`` (that link's peak instant); none without ``run.steps``. ``robot.vtkhdf`` holds them as the
    robot's field data (VTK 9.7 reads a composite file's own field data, not its blocks'), ``robot.pvd`` in every
    link's file of the step."""
    if run.steps is None:
        return {}
    steps = run.steps
    return {"output_frame": steps.requested.astype(np.int8), "around_peak": steps.around.astype(np.int8),
            **{f"peak_{n}": steps.link_peak(n).astype(np.int8) for n in names}}


def _in_world(points: np.ndarray, link_fields: dict, T: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``points`` (n_nodes, 3) [m, link frame] and the ``FRAME_FIELDS`` of ``link_fields`` (n, n_nodes[, 3];
    displacement in link axes) placed by ``T`` (n, 4, 4): points (n, n_nodes, 3) and fields in world axes."""
    R_T, p = np.swapaxes(T[:, :3, :3], 1, 2), T[:, :3, 3]
    fields = {f: np.asarray(link_fields[f]) for f in FRAME_FIELDS if f in link_fields}
    if "displacement" in fields:
        fields["displacement"] = fields["displacement"] @ R_T
    return points @ R_T + p[:, None, :], fields


def write_paraview(run: RunResult, folder: Path, progress: bool = False, vtk_format: str = "hdf") -> None:
    """Write every link at every stored step (``run.frame_times``, world placement) into ``folder``.

    ``vtk_format="hdf"`` (default): ``vtk/<link>.vtkhdf``, a VTKHDF time series per link (topology once, then per
    step float64 points on a 15 nm grid and fields to 5 significant digits, ``POINT_QUANTUM_M`` and
    ``FIELD_BITS``, exact at the links' peak instants; VTK 9.3+ / ParaView 5.12+), and ``robot.vtkhdf``
    gathering them (a temporal composite: newer readers, tested with VTK 9.7). ``vtk_format="pvd"``:
    ``vtk/<link>_<step>.vtu`` per link and step (float64) and the ``robot.pvd`` collection. Each step's field
    data flags what it is (``run.steps``). Both: ``vtk/<link>_peak.vtu``, the link at its peak sample
    (world placement, ``TimeValue`` field data), and ``vtk/<link>_envelope.vtu``, max over the fine grid (min
    for the safety factor) in the link frame, both float64 exact. The .vtu files are zlib-compressed. With the
    arm model, ``modes.vtkhdf`` or ``modes.pvd`` (:mod:`.modes`).
    """
    from tqdm.auto import tqdm

    if vtk_format not in VTK_FORMATS:
        raise InputError(f"unknown VTK format {vtk_format!r}; choose one of {', '.join(VTK_FORMATS)}")
    vtk_dir = folder / "vtk"
    vtk_dir.mkdir()
    entries, blocks = [], {}
    names = [n for n in run.link_names if n in run.links]
    flags = robot_flags(run, names)
    per_link = len(run.frame_times) if vtk_format == "pvd" else 1
    with tqdm(total=len(names) * per_link, desc="write VTK", unit="file", disable=not progress) as bar:
        for part, name in enumerate(names):
            link = run.links[name]
            cell_type = VTK_QUADRATIC_TETRA if link.cells.shape[1] == 10 else VTK_TETRA
            points, fields = link_frames(run, name)
            if vtk_format == "hdf":
                fname = f"vtk/{name}.vtkhdf"
                write_vtkhdf_series(folder / fname, run.frame_times, points, link.cells, cell_type, fields,
                                    point_quantum=POINT_QUANTUM_M, field_bits=FIELD_BITS, index=part,
                                    exact_steps=None if run.steps is None else run.steps.at_peak)
                blocks[name] = fname
                bar.update()
            else:
                for k, t in enumerate(run.frame_times):
                    fname = f"vtk/{name}_{k:04d}.vtu"
                    write_vtu(folder / fname, points[k], link.cells, {f: v[k] for f, v in fields.items()},
                              field_data={f: float(v[k]) for f, v in flags.items()})
                    entries.append((float(t), part, name, fname))
                    bar.update()
            peak_points, peak_fields = peak_frame(run, name)
            write_vtu(folder / f"vtk/{name}_peak.vtu", peak_points, link.cells, peak_fields,
                      time=float(link.time_of_max_s))
            write_vtu(folder / f"vtk/{name}_envelope.vtu", link.points, link.cells, link.envelope)
    if run.arm_modes is not None:
        from .modes import write_mode_shapes

        write_mode_shapes(run, folder, vtk_format)
    if vtk_format == "hdf":
        write_vtkhdf_collection(folder / "robot.vtkhdf", blocks, run.frame_times, flags)
    else:
        write_pvd(folder / "robot.pvd", entries)
