"""Results folder: summary.json, CSV histories, ParaView collection, envelopes, plots, printed table.

This is the only module that writes files. A run is written into a temporary sibling folder and moved into
place at the end, so a failure never leaves a half-written results folder.

Layout (``out/``)::

    summary.json                    verdict, per-link and per-joint peaks, checks, timings, versions
    joints.csv                      time, q, qd, qdd, tau and six reaction components of every joint
    links.csv                       time, peak von Mises / strain / deformation of every link (fine grid)
    robot.pvd                       ParaView collection: every link a part, every output frame a time step
    vtk/<link>_<frame>.vtu          a link's mesh placed where the robot is, with point fields
    vtk/<link>_envelope.vtu         max over the fine grid (min for the safety factor), in the link frame
    plots/*.png                     joint motion, torques, reactions, stress histories
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError

MPA = 1e-6
VTK_QUADRATIC_TETRA = 24
VTK_TETRA = 10
# Point fields every frame and envelope carry (ParaView names).
FRAME_FIELDS = ("displacement", "von_mises", "equivalent_strain", "safety_factor")


@dataclass
class LinkResult:
    """Everything the results folder says about one link.

    Arrays: ``points`` (n_nodes, 3) in the link frame [m]; ``cells`` (n_elem, 10) node indices in VTK
    quadratic-tetra order (4 for linear tets); ``frame_*`` arrays are over the output frames (n_frames, ...);
    ``envelope`` maps field name -> (n_nodes,) or (n_nodes, 3); ``history`` maps name -> (n_t,) on the fine grid.
    Stress fields on nodes are the maximum over the elements sharing the node of the unaveraged element-node
    values, so the peak of the plotted field is the reported peak.
    """

    name: str
    material: str
    mass_kg: float
    yield_strength_pa: float
    criterion: str
    n_nodes: int
    n_elements: int
    max_von_mises_pa: float
    time_of_max_s: float
    location_of_max_m: tuple[float, float, float]  # world axes at the peak time
    location_of_max_link_m: tuple[float, float, float]  # link frame
    max_equivalent_strain: float
    max_deformation_m: float
    time_of_max_deformation_s: float
    min_safety_factor: float
    passed: bool
    max_von_mises_away_from_support_pa: float = float("nan")
    support_band_m: float = float("nan")
    lowest_frequency_hz: float = float("nan")
    quasi_static_max_von_mises_pa: float = float("nan")
    equilibrium_rel_error: float = float("nan")
    points: np.ndarray | None = None
    cells: np.ndarray | None = None
    frame_fields: dict[str, np.ndarray] = field(default_factory=dict)
    envelope: dict[str, np.ndarray] = field(default_factory=dict)
    history: dict[str, np.ndarray] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        keys = ("material", "mass_kg", "yield_strength_pa", "criterion", "max_von_mises_pa", "time_of_max_s",
                "location_of_max_m", "location_of_max_link_m", "max_equivalent_strain", "max_deformation_m",
                "time_of_max_deformation_s", "min_safety_factor", "passed",
                "max_von_mises_away_from_support_pa", "support_band_m", "lowest_frequency_hz",
                "quasi_static_max_von_mises_pa", "equilibrium_rel_error", "n_nodes", "n_elements")
        out = {k: _plain(getattr(self, k)) for k in keys}
        qs = self.quasi_static_max_von_mises_pa
        # transient peak / quasi-static peak (elastic inertia of the link itself)
        out["dynamic_amplification"] = _plain(self.max_von_mises_pa / qs if qs and np.isfinite(qs) else float("nan"))
        return out


@dataclass
class RunResult:
    """A study run: time grids, joint histories, link results, verdict and the summary dictionary.

    ``t`` (n_t,) is the fine analysis grid [s]; ``frame_times`` (n_frames,) the output frames (a subset of t);
    ``T_world_link_frames`` (n_frames, n_links, 4, 4) places each link at the output frames.
    """

    study_name: str
    t: np.ndarray
    frame_times: np.ndarray
    joint_names: list[str]
    dof_names: list[str]
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    joint_wrenches: np.ndarray  # (n_t, n_joints, 6) parent on child, child joint frame
    link_names: list[str]
    T_world_link_frames: np.ndarray
    links: dict[str, LinkResult]
    summary: dict[str, Any]


def _plain(x):
    """JSON-safe version of numpy scalars/arrays and tuples (NaN -> None)."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [_plain(v) for v in np.asarray(x, dtype=object).tolist()] if isinstance(x, np.ndarray) \
            else [_plain(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return None if not np.isfinite(x) else x
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


# ---------------------------------------------------------------------------------------------- writing


def prepare_output(out: str | os.PathLike) -> Path:
    """Check that ``out`` can be written (before hours of work) and return it as a Path.

    Raises InputError if the parent folder cannot be created or written, or ``out`` is a file.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"output path {str(out)!r} is a file, not a folder; choose another --out")
    parent = out.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=parent, prefix=".structcheck-probe-", delete=True)
        probe.close()
    except OSError as exc:
        raise InputError(f"cannot write results to {str(out)!r}: {exc.strerror or exc}; "
                         f"choose a writable --out") from None
    return out


def write_results(run: RunResult, out: str | os.PathLike, *, vtk: bool = True, plots: bool = True,
                  progress: bool = False) -> Path:
    """Write the whole results folder for ``run`` into ``out`` atomically; return the folder path."""
    out = prepare_output(out)
    tmp = Path(tempfile.mkdtemp(dir=out.resolve().parent, prefix=f".{out.name}.partial-"))
    try:
        write_summary(run.summary, tmp / "summary.json")
        write_joint_csv(run, tmp / "joints.csv")
        write_link_csv(run, tmp / "links.csv")
        if vtk:
            write_paraview(run, tmp, progress=progress)
        if plots:
            from .plots import write_plots

            write_plots(run, tmp / "plots")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def write_summary(summary: dict, path: Path) -> None:
    path.write_text(json.dumps(_plain(summary), indent=2) + "\n")


def read_summary(folder: str | os.PathLike) -> dict:
    """Read ``summary.json`` from a results folder; InputError naming the folder if it is missing/corrupt."""
    folder = Path(folder)
    path = folder / "summary.json"
    if not folder.is_dir():
        raise InputError(f"results folder {str(folder)!r} does not exist")
    if not path.is_file():
        raise InputError(f"{str(folder)!r} is not a structcheck results folder: no summary.json in it")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{str(path)!r} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or "links" not in data:
        raise InputError(f"{str(path)!r} has no 'links' entry: not a structcheck summary")
    return data


def write_joint_csv(run: RunResult, path: Path) -> None:
    cols = ["time_s"]
    data = [run.t[:, None]]
    for name, arr in (("q", run.q), ("qd", run.qd), ("qdd", run.qdd), ("tau", run.tau)):
        cols += [f"{name}_{j}" for j in run.dof_names]
        data.append(arr)
    comps = ("Fx_N", "Fy_N", "Fz_N", "Mx_Nm", "My_Nm", "Mz_Nm")
    for k, j in enumerate(run.joint_names):
        cols += [f"{j}_{c}" for c in comps]
        data.append(run.joint_wrenches[:, k, :])
    _write_csv(path, cols, np.hstack(data))


def write_link_csv(run: RunResult, path: Path) -> None:
    cols = ["time_s"]
    data = [run.t[:, None]]
    for name, link in run.links.items():
        for key, unit in (("max_von_mises", "pa"), ("max_equivalent_strain", ""), ("max_deformation", "m")):
            if key in link.history:
                cols.append(f"{name}_{key}" + (f"_{unit}" if unit else ""))
                data.append(link.history[key][:, None])
    _write_csv(path, cols, np.hstack(data))


def _write_csv(path: Path, header: list[str], rows: np.ndarray) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        # repr-exact floats: a CSV that rounds would disagree with summary.json in the last digits
        w.writerows([[repr(float(v)) for v in row] for row in rows])


def read_csv(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Read a CSV written here into column name -> array."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], np.array(rows[1:], dtype=float)
    return {h: body[:, i] for i, h in enumerate(header)}


# ------------------------------------------------------------------------------------------------ VTK


def _write_vtu(path: Path, points: np.ndarray, cells: np.ndarray, fields: dict[str, np.ndarray]) -> None:
    """Write an unstructured grid as VTK XML with raw appended binary data (float64, exact).

    Written here rather than through VTK's writer, which pads the ``offset`` attributes with spaces that meshio
    cannot read (meshio issue 1135); ParaView, pyvista and meshio all read this layout."""
    cell_type = VTK_QUADRATIC_TETRA if cells.shape[1] == 10 else VTK_TETRA
    n_pts, n_cells = len(points), len(cells)
    blocks, offset = [], 0

    def add(array: np.ndarray, vtk_type: str, attrs: str) -> str:
        nonlocal offset
        data = np.ascontiguousarray(array).tobytes()
        blocks.extend([np.uint64(len(data)).tobytes(), data])
        tag = f'<DataArray type="{vtk_type}" {attrs} format="appended" offset="{offset}"/>'
        offset += 8 + len(data)
        return tag

    point_tags = [add(np.asarray(v, "<f8"), "Float64",
                      f'Name="{k}" NumberOfComponents="{1 if np.ndim(v) == 1 else np.shape(v)[1]}"')
                  for k, v in fields.items()]
    pts_tag = add(np.asarray(points, "<f8"), "Float64", 'NumberOfComponents="3"')
    conn_tag = add(np.asarray(cells, "<i8").ravel(), "Int64", 'Name="connectivity"')
    off_tag = add(np.arange(1, n_cells + 1, dtype="<i8") * cells.shape[1], "Int64", 'Name="offsets"')
    type_tag = add(np.full(n_cells, cell_type, dtype=np.uint8), "UInt8", 'Name="types"')
    head = "\n".join([
        '<?xml version="1.0"?>',
        '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">',
        "  <UnstructuredGrid>",
        f'    <Piece NumberOfPoints="{n_pts}" NumberOfCells="{n_cells}">',
        "      <PointData>", *[f"        {t}" for t in point_tags], "      </PointData>",
        "      <Points>", f"        {pts_tag}", "      </Points>",
        "      <Cells>", f"        {conn_tag}", f"        {off_tag}", f"        {type_tag}", "      </Cells>",
        "    </Piece>", "  </UnstructuredGrid>", '  <AppendedData encoding="raw">', "   _"])
    with open(path, "wb") as fh:
        fh.write(head.encode())
        for b in blocks:
            fh.write(b)
        fh.write(b"\n  </AppendedData>\n</VTKFile>\n")


def write_paraview(run: RunResult, folder: Path, progress: bool = False) -> None:
    """Write every link at every output frame (world placement) plus one envelope file per link, and the
    ``robot.pvd`` collection that ParaView opens as a multi-part time series."""
    from tqdm.auto import tqdm

    vtk_dir = folder / "vtk"
    vtk_dir.mkdir()
    entries = []
    names = [n for n in run.link_names if n in run.links]
    with tqdm(total=len(names) * len(run.frame_times), desc="write VTK", unit="file",
              disable=not progress) as bar:
        for part, name in enumerate(names):
            link = run.links[name]
            i_link = run.link_names.index(name)
            for k, t in enumerate(run.frame_times):
                T = run.T_world_link_frames[k, i_link]
                R, p = T[:3, :3], T[:3, 3]
                fields = {f: link.frame_fields[f][k] for f in FRAME_FIELDS if f in link.frame_fields}
                # displacement is stored in link axes; world axes for the placed mesh
                if "displacement" in fields:
                    fields["displacement"] = fields["displacement"] @ R.T
                fname = f"vtk/{name}_{k:04d}.vtu"
                _write_vtu(folder / fname, link.points @ R.T + p, link.cells, fields)
                entries.append((float(t), part, name, fname))
                bar.update()
            _write_vtu(folder / f"vtk/{name}_envelope.vtu", link.points, link.cells, link.envelope)
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">', "  <Collection>"]
    for t, part, name, fname in entries:
        lines.append(f'    <DataSet timestep="{t!r}" group="{name}" part="{part}" file="{fname}"/>')
    lines += ["  </Collection>", "</VTKFile>", ""]
    (folder / "robot.pvd").write_text("\n".join(lines))


# ---------------------------------------------------------------------------------------------- table


def format_table(summary: dict) -> str:
    """The table printed at the end of a run (same numbers as summary.json)."""
    head = (f"{'link':<12} {'material':<8} {'mass kg':>8} {'max VM MPa':>11} {'at t s':>7} "
            f"{'strain':>10} {'defl mm':>9} {'SF':>7} {'verdict':>7}")
    lines = [head, "-" * len(head)]
    for name, L in summary["links"].items():
        sf = L["min_safety_factor"]
        lines.append(
            f"{name:<12} {L['material']:<8} {L['mass_kg']:8.3f} {L['max_von_mises_pa'] * MPA:11.4f} "
            f"{L['time_of_max_s']:7.3f} {L['max_equivalent_strain']:10.4e} {L['max_deformation_m'] * 1e3:9.5f} "
            f"{(sf if sf is not None else float('inf')):7.1f} {'pass' if L['passed'] else 'FAIL':>7}")
    lines.append("-" * len(head))
    tp = summary.get("tool_point_deflection_m")
    lines.append(f"max von Mises {summary['max_von_mises_pa'] * MPA:.4f} MPa, max equivalent strain "
                 f"{summary['max_equivalent_strain']:.4e}, max link deformation "
                 f"{summary['max_deformation_m'] * 1e3:.5f} mm"
                 + (f", tool-point deflection {tp * 1e3:.5f} mm" if tp is not None else ""))
    amp = {n: L.get("dynamic_amplification") for n, L in summary["links"].items()}
    if any(v is not None for v in amp.values()):
        lines.append("transient vs quasi-static peak: " + ", ".join(
            f"{n} {100 * (v - 1):+.2f}%" for n, v in amp.items() if v is not None))
    chk = summary.get("checks", {})
    if chk:
        lines.append("checks: " + ", ".join(f"{k} {v:.2e}" for k, v in chk.items() if isinstance(v, float)))
    lines.append(f"required safety factor {summary['required_safety_factor']}: "
                 f"{'PASSED' if summary['passed'] else 'FAILED'}")
    return "\n".join(lines)


def write_screenshot(folder: str | os.PathLike, png: str | os.PathLike, *, time: float | None = None,
                     field: str = "von_mises", window_size=(1200, 900)) -> Path:
    """Render the robot at ``time`` (default: the frame of the overall peak) coloured by ``field`` [MPa for
    stresses] off-screen with pyvista, and save it as ``png``."""
    import pyvista as pv

    folder = Path(folder)
    summary = read_summary(folder)
    if time is None:
        time = summary["links"][summary["max_von_mises_link"]]["time_of_max_s"]
    reader = pv.get_reader(str(folder / "robot.pvd"))
    times = np.asarray(reader.time_values)
    time = float(times[np.argmin(np.abs(times - time))])  # the output frame nearest the requested time
    reader.set_active_time_value(time)
    blocks = reader.read()
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
    plotter.add_text(f"{summary.get('study', folder.name)}  t = {time:.3f} s  max {vmax:.3f}", font_size=10)
    plotter.view_isometric()
    plotter.camera.azimuth = 200
    plotter.enable_parallel_projection()
    plotter.camera.zoom(1.6)
    png = Path(png)
    plotter.screenshot(str(png))
    plotter.close()
    return png


def _leaves(block):
    import pyvista as pv

    if isinstance(block, pv.MultiBlock):
        for b in block:
            if b is not None:
                yield from _leaves(b)
    else:
        yield block
