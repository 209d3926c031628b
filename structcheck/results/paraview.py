"""ParaView files of a results folder: every link at every output frame placed where the robot is, as a VTKHDF
time series per link gathered by ``robot.vtkhdf`` (default) or as one VTK XML file per link and frame gathered by
``robot.pvd`` (for readers older than VTK 9.3 / ParaView 5.12); in both, each link's peak frame and envelope as
exact (float64) VTK XML files."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InputError
from .data import RunResult
from .vtkhdf import _compressor, write_vtkhdf_collection, write_vtkhdf_series

VTK_QUADRATIC_TETRA = 24
VTK_TETRA = 10
# Point fields every frame and envelope carry (ParaView names).
FRAME_FIELDS = ("displacement", "von_mises", "equivalent_strain", "safety_factor")
VTK_FORMATS = ("hdf", "pvd")
# Precision of the VTKHDF series (see results.vtkhdf): points on a 2**-26 m (15 nm) grid, fields with 16 of
# float32's 23 mantissa bits (relative rounding <= 7.6e-6); peak frame and envelope .vtu stay float64 exact.
POINT_QUANTUM_M = 2.0 ** -26
FIELD_BITS = 16
VTU_BLOCK = 1 << 20  # bytes of one compressed block in a .vtu's appended data


def _write_vtu(path: Path, points: np.ndarray, cells: np.ndarray, fields: dict[str, np.ndarray],
               time: float | None = None, field_data: dict[str, float] | None = None) -> None:
    """Write an unstructured grid as VTK XML with raw appended binary data (float64, exact), zlib-compressed
    (``vtkZLibDataCompressor``: the connectivity shrinks to about a third, the float64 fields little); ``time``
    [s], if given, as the ``TimeValue`` field data ParaView shows; ``field_data`` further scalars (name -> value)
    as field data.

    Written here rather than through VTK's writer, which pads the ``offset`` attributes with spaces that meshio
    cannot read (meshio issue 1135); ParaView, pyvista and meshio all read this layout."""
    cell_type = VTK_QUADRATIC_TETRA if cells.shape[1] == 10 else VTK_TETRA
    n_pts, n_cells = len(points), len(cells)
    blocks, offset = [], 0

    def add(array: np.ndarray, vtk_type: str, attrs: str) -> str:
        nonlocal offset
        data = _zlib_blocks(np.ascontiguousarray(array).tobytes())
        blocks.append(data)
        tag = f'<DataArray type="{vtk_type}" {attrs} format="appended" offset="{offset}"/>'
        offset += len(data)
        return tag

    scalars = {**({} if time is None else {"TimeValue": time}), **(field_data or {})}
    field_tags = [add(np.array([v], "<f8"), "Float64", f'Name="{k}" NumberOfTuples="1" NumberOfComponents="1"')
                  for k, v in scalars.items()]
    point_tags = [add(np.asarray(v, "<f8"), "Float64",
                      f'Name="{k}" NumberOfComponents="{1 if np.ndim(v) == 1 else np.shape(v)[1]}"')
                  for k, v in fields.items()]
    pts_tag = add(np.asarray(points, "<f8"), "Float64", 'NumberOfComponents="3"')
    conn_tag = add(np.asarray(cells, "<i8").ravel(), "Int64", 'Name="connectivity"')
    off_tag = add(np.arange(1, n_cells + 1, dtype="<i8") * cells.shape[1], "Int64", 'Name="offsets"')
    type_tag = add(np.full(n_cells, cell_type, dtype=np.uint8), "UInt8", 'Name="types"')
    head = "\n".join([
        '<?xml version="1.0"?>',
        '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64" '
        'compressor="vtkZLibDataCompressor">',
        "  <UnstructuredGrid>",
        *(["    <FieldData>", *[f"      {t}" for t in field_tags], "    </FieldData>"] if field_tags else []),
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


def _deflate(data: bytes) -> bytes:
    z = _compressor()
    return z.compress(data) + z.flush()


def _zlib_blocks(data: bytes) -> bytes:
    """``data`` as one compressed array of VTK XML's appended section: the UInt64 header (number of blocks, block
    size, size of a partial last block or 0 when it is full, compressed size of each block; VTK's layout), then
    the blocks, each a zlib stream of ``VTU_BLOCK`` bytes of data (the VTKHDF chunks' deflate, ISA-L's where
    installed)."""
    packed = [_deflate(data[a:a + VTU_BLOCK]) for a in range(0, len(data), VTU_BLOCK)]
    header = np.array([len(packed), VTU_BLOCK, len(data) % VTU_BLOCK, *map(len, packed)], dtype="<u8").tobytes()
    return header + b"".join(packed)


def link_frames(run: RunResult, name: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Link ``name`` placed where the robot is at every output frame: points (n_frames, n_nodes, 3) [m] and the
    point fields of ``FRAME_FIELDS`` (n_frames, n_nodes[, 3]), all in world axes (displacement is stored in
    link axes and rotated here)."""
    link = run.links[name]
    T = run.T_world_link_frames[:, run.link_names.index(name)]  # (n_frames, 4, 4)
    R, p = T[:, :3, :3], T[:, :3, 3]
    R_T = np.swapaxes(R, 1, 2)
    points = link.points @ R_T + p[:, None, :]
    fields = {f: np.asarray(link.frame_fields[f]) for f in FRAME_FIELDS if f in link.frame_fields}
    if "displacement" in fields:
        fields["displacement"] = fields["displacement"] @ R_T
    return points, fields


def peak_frame(run: RunResult, name: str) -> int:
    """Index of the output frame nearest link ``name``'s peak von Mises time (peak times are output frames)."""
    return int(np.argmin(np.abs(np.asarray(run.frame_times) - run.links[name].time_of_max_s)))


def write_paraview(run: RunResult, folder: Path, progress: bool = False, vtk_format: str = "hdf") -> None:
    """Write every link at every output frame (world placement) into ``folder``.

    ``vtk_format="hdf"`` (default): ``vtk/<link>.vtkhdf``, a VTKHDF time series per link (topology once, then per
    frame float64 points on a 15 nm grid and float32 fields to 5 significant digits, ``POINT_QUANTUM_M`` and
    ``FIELD_BITS``; VTK 9.3+ / ParaView 5.12+), and ``robot.vtkhdf`` gathering them (a temporal composite:
    newer readers, tested with VTK 9.7). ``vtk_format="pvd"``: ``vtk/<link>_<frame>.vtu`` per link and frame
    (float64) and the ``robot.pvd`` collection. Both: ``vtk/<link>_peak.vtu``, the link at its peak frame
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
    per_link = len(run.frame_times) if vtk_format == "pvd" else 1
    with tqdm(total=len(names) * per_link, desc="write VTK", unit="file", disable=not progress) as bar:
        for part, name in enumerate(names):
            link = run.links[name]
            cell_type = VTK_QUADRATIC_TETRA if link.cells.shape[1] == 10 else VTK_TETRA
            points, fields = link_frames(run, name)
            if vtk_format == "hdf":
                fname = f"vtk/{name}.vtkhdf"
                write_vtkhdf_series(folder / fname, run.frame_times, points, link.cells, cell_type, fields,
                                    point_quantum=POINT_QUANTUM_M, field_bits=FIELD_BITS, index=part)
                blocks[name] = fname
                bar.update()
            else:
                for k, t in enumerate(run.frame_times):
                    fname = f"vtk/{name}_{k:04d}.vtu"
                    _write_vtu(folder / fname, points[k], link.cells, {f: v[k] for f, v in fields.items()})
                    entries.append((float(t), part, name, fname))
                    bar.update()
            k = peak_frame(run, name)
            _write_vtu(folder / f"vtk/{name}_peak.vtu", points[k], link.cells, {f: v[k] for f, v in fields.items()},
                       time=float(run.frame_times[k]))
            _write_vtu(folder / f"vtk/{name}_envelope.vtu", link.points, link.cells, link.envelope)
    if run.arm_modes is not None:
        from .modes import write_mode_shapes

        write_mode_shapes(run, folder, vtk_format)
    if vtk_format == "hdf":
        write_vtkhdf_collection(folder / "robot.vtkhdf", blocks)
    else:
        _write_pvd(folder / "robot.pvd", entries)


def _write_pvd(path: Path, entries: list[tuple[float, int, str, str]]) -> Path:
    """Write a ParaView collection of ``entries`` (time step, part index, group name, file relative to ``path``'s
    folder); return ``path``."""
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">', "  <Collection>"]
    for t, part, name, fname in entries:
        lines.append(f'    <DataSet timestep="{t!r}" group="{name}" part="{part}" file="{fname}"/>')
    lines += ["  </Collection>", "</VTKFile>", ""]
    path.write_text("\n".join(lines))
    return path
