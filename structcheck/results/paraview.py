"""ParaView files of a results folder: every link at every output frame as VTK XML unstructured grids placed where
the robot is, one envelope per link, and the ``robot.pvd`` collection that ties them into a time series."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .data import RunResult

VTK_QUADRATIC_TETRA = 24
VTK_TETRA = 10
# Point fields every frame and envelope carry (ParaView names).
FRAME_FIELDS = ("displacement", "von_mises", "equivalent_strain", "safety_factor")


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
