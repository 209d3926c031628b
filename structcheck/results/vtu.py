"""VTK XML files of the results: an unstructured grid (``.vtu``, float64 exact, zlib-compressed) and a ParaView
collection (``.pvd``). Used by the per-frame series, the peak and envelope files and the mode shapes."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .vtkhdf import _compressor

VTK_QUADRATIC_TETRA = 24
VTK_TETRA = 10
VTU_BLOCK = 1 << 20  # bytes of one compressed block in a .vtu's appended data


def write_vtu(path: Path, points: np.ndarray, cells: np.ndarray, fields: dict[str, np.ndarray],
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


def write_pvd(path: Path, entries: list[tuple[float, int, str, str]]) -> Path:
    """Write a ParaView collection of ``entries`` (time step, part index, group name, file relative to ``path``'s
    folder); return ``path``."""
    lines = ['<?xml version="1.0"?>',
             '<VTKFile type="Collection" version="0.1" byte_order="LittleEndian">', "  <Collection>"]
    for t, part, name, fname in entries:
        lines.append(f'    <DataSet timestep="{t!r}" group="{name}" part="{part}" file="{fname}"/>')
    lines += ["  </Collection>", "</VTKFile>", ""]
    path.write_text("\n".join(lines))
    return path
