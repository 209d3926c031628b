"""VTKHDF time series (VTK 9.3+, ParaView 5.12+): one file per link with its topology written once and its
points and point fields per output frame, and a small ``robot.vtkhdf`` that gathers the links (a temporal
composite file: read by VTK 9.7 here; the spec added composite types in VTKHDF 2.1 and temporal composites
later, so readers older than that open the link files instead).

Layout of a link file (VTKHDF 2.x ``UnstructuredGrid`` with temporal data, one part read by every step)::

    /VTKHDF                      attrs Version (2, 1), Type "UnstructuredGrid"
      NumberOfPoints, NumberOfCells, NumberOfConnectivityIds   (1,) int64: one part, which every step reads
      Points                     (n_stored * n_points, 3) float64 [m], world axes, step after step; a step
                                 placed exactly as the one before is not stored again (n_stored <= n_steps)
      Connectivity               (n_cells * nodes_per_cell,) int64, written once
      Offsets                    (n_cells + 1,) int64, written once
      Types                      (n_cells,) uint8, written once (24: quadratic tetra)
      PointData/<name>           (n_steps * n_points[, 3]) float32 (float64 if asked), step after step
      FieldData/<name>           (n_steps,) one value per step, if any (e.g. a mode's frequency)
      Steps                      attr NSteps
        Values                   (n_steps,) float64 time [s]
        PartOffsets              (n_steps,) int64 = 0 (every step is part 0; a part per step would make VTK
                                 read ``Offsets`` from k, past its end, since it holds n_cells + 1 per part)
        NumberOfParts            (n_steps,) int64 = 1
        PointOffsets             (n_steps,) int64: where step k's points start (repeats for a link at rest)
        CellOffsets, ConnectivityIdOffsets   (n_steps, 1) int64 = 0: every step reuses the one topology
        PointDataOffsets/<name>  (n_steps,) int64 = k * n_points
        FieldDataOffsets/<name>  (n_steps,) int64 = k

Precision (what makes the files small): deflate gains little on float data (about 0.7-0.8 of its size) since
the low mantissa bits are noise, so the writer can round them away first and let shuffle + deflate drop the
zeroed bytes; the file stays plain float64 / float32 that any VTK reads.

- ``point_quantum`` [m]: points rounded to multiples of it, kept float64. The results use 2**-26 m (15 nm;
  error <= 7.5 nm, 8x finer than float32, whose spacing at 1 m is 1.2e-7 m, i.e. error <= 60 nm near 1 m),
  about 0.37 of float64's size after deflate instead of 0.76.
- ``field_bits``: fields are float32 (24 significant bits, relative rounding <= 2**-24 = 6e-8), then rounded
  to this many of float32's 23 mantissa bits. The results keep 16 (relative error <= 2**-17 = 7.6e-6 more,
  five significant digits), about 0.55-0.65 of float32's size after deflate instead of 0.73-0.81.

``None`` for either writes plain float64 points / float32 fields. ``exact_steps`` marks steps whose fields are
kept float64 exact (the results: every link's peak instant, so that the series shows the peak reported): the
fields are then float64, the other steps' values rounded as above (the zeroed low bytes deflate to almost
nothing, so the file grows by little more than those steps). The exact float64 values of each link's peak and
envelope are also in the ``.vtu`` files written beside the series.

``robot.vtkhdf`` is a ``MultiBlockDataSet`` whose blocks are HDF5 external links to the link files' ``/VTKHDF``
groups (as VTK's own writer does with ``UseExternalComposite``), so nothing is stored twice. (Earlier
versions wrote a ``PartitionedDataSetCollection``, which pyvista cannot wrap; :func:`read_vtkhdf` reads both.)
"""
from __future__ import annotations

import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

VERSION = (2, 1)
# gzip (deflate) is the one HDF5 compression filter every VTK build reads; zlib's level 1 takes nearly all that
# levels 4-9 take from this data and writes fastest. The chunks are deflated here (_deflated_chunk) and stored
# as they are: any zlib-format stream inflates, whatever level the filter's metadata names.
COMPRESSION = dict(compression="gzip", compression_opts=1, shuffle=True)
# ISA-L's deflate (python-isal) at its level 3 stores the headline study's frames in the same size as zlib's
# level 1 (130.8 against 130.7 MB) in a third of the time (1.1 against 3.5 s CPU); zlib's level 1 where isal is
# not installed
ISAL_LEVEL = 3
CHUNK_BYTES = 1 << 20  # static arrays
STEPS_PER_CHUNK = 8  # per-step arrays: 8 steps a chunk; deflate finds the slowly changing high bytes of
# one step again in the next (shuffle puts them side by side): 0.89 of the size with one step a chunk, while
# reading a step inflates 8 (~0.1 s a step for the headline robot)


def _dataset(group, name: str, data: np.ndarray, compress: bool, rows_per_chunk: int | None = None) -> None:
    """Store ``data`` as ``group[name]``; compressed in chunks of ``rows_per_chunk`` rows (whole time steps, so
    reading a step inflates one chunk per array) or of ~1 MB; small arrays (< 64 kB) contiguous."""
    data = np.ascontiguousarray(data)
    if not compress or data.nbytes < 64 * 1024:
        group.create_dataset(name, data=data)
        return
    row = data.itemsize * int(np.prod(data.shape[1:], dtype=int))
    rows = min(len(data), rows_per_chunk or max(1, CHUNK_BYTES // row))
    dset = group.create_dataset(name, shape=data.shape, dtype=data.dtype, chunks=(rows, *data.shape[1:]),
                                **COMPRESSION)
    starts = range(0, len(data), rows)
    with ThreadPoolExecutor(_compress_threads()) as pool:  # zlib releases the GIL; HDF5 calls stay serial
        for start, chunk in zip(starts, pool.map(lambda a: _deflated_chunk(data, a, rows), starts)):
            dset.id.write_direct_chunk((start, *([0] * (data.ndim - 1))), chunk)


def _deflated_chunk(data: np.ndarray, start: int, rows: int) -> bytes:
    """Rows ``start:start + rows`` of ``data`` as HDF5's shuffle + deflate filters store the chunk: the last
    chunk padded with zeros to the full chunk shape (HDF5 keeps edge chunks whole), its bytes regrouped by
    significance (byte ``b`` of every value together), then deflated into a zlib-format stream
    (:func:`_compressor`), which HDF5's deflate filter inflates in any reader."""
    block = data[start:start + rows]
    if len(block) < rows:
        block = np.concatenate([block, np.zeros((rows - len(block), *data.shape[1:]), dtype=data.dtype)])
    shuffled = np.ascontiguousarray(block.reshape(-1).view(np.uint8).reshape(-1, data.itemsize).T)
    z = _compressor()
    return z.compress(shuffled) + z.flush()


def _compressor():
    """A zlib-format deflate stream: ISA-L's at ``ISAL_LEVEL`` if python-isal is installed, else zlib's at
    ``COMPRESSION``'s level. A compressobj, not a one-shot compress: zlib's lets go of the GIL only in the former
    (CPython 3.11), so the chunks deflate in parallel threads."""
    try:
        from isal import isal_zlib
    except ImportError:
        return zlib.compressobj(COMPRESSION["compression_opts"])
    return isal_zlib.compressobj(ISAL_LEVEL)


def _compress_threads() -> int:
    """Threads compressing chunks: one per core this process may use (:func:`structcheck.pool.thread_budget`),
    at most 4."""
    from ..pool import thread_budget

    return max(1, min(4, thread_budget()))


def round_mantissa(values: np.ndarray, bits: int) -> np.ndarray:
    """``values`` as float32 rounded to nearest (ties away from zero) with ``bits`` of float32's 23 mantissa
    bits kept, the rest zero: relative change <= 2**-(bits + 1). Non-finite values are kept as they are."""
    v = np.asarray(values, dtype=np.float32)
    if bits >= 23:
        return v.copy()
    drop = 23 - bits
    raw = v.view(np.uint32)
    rounded = ((raw + np.uint32(1 << (drop - 1))) & np.uint32((0xFFFFFFFF >> drop) << drop)).view(np.float32)
    return np.where(np.isfinite(v), rounded, v)


def write_vtkhdf_series(path: str | os.PathLike, times: np.ndarray, points: np.ndarray, cells: np.ndarray,
                        cell_type: int, fields: dict[str, np.ndarray], *, point_quantum: float | None = None,
                        field_bits: int | None = None, exact_fields: bool = False,
                        field_data: dict[str, np.ndarray] | None = None, compress: bool = True,
                        index: int | None = None, exact_steps: np.ndarray | None = None) -> Path:
    """Write an unstructured grid with fixed topology whose points and point fields change over time.

    ``times`` (n_steps,) [s]; ``points`` (n_steps, n_points, 3) [m], stored float64; ``cells`` (n_cells,
    nodes_per_cell) point indices in VTK node order, all of VTK type ``cell_type``; ``fields`` maps a name to
    (n_steps, n_points) or (n_steps, n_points, n_components), stored float32 (float64 with ``exact_fields``).
    ``point_quantum`` [m] and ``field_bits`` round points and fields before compression (see the module notes;
    None: no rounding), except at the steps ``exact_steps`` ((n_steps,) bool; any True: fields stored float64, those
    steps' exact). ``field_data`` maps a name to (n_steps,) values, one per step (VTK's field data of
    that step). ``index`` is the block index when the file is a block of a ``MultiBlockDataSet``
    (see :func:`write_vtkhdf_collection`). Returns the path.
    """
    import h5py

    times = np.asarray(times, dtype=np.float64)
    points = np.asarray(points, dtype=np.float64)
    cells = np.asarray(cells, dtype=np.int64)
    n_steps, n_points = points.shape[:2]
    if points.shape != (n_steps, n_points, 3) or times.shape != (n_steps,):
        raise ValueError(f"points.shape = {points.shape} and times.shape = {times.shape}, but they must be "
                         f"(n_steps, n_points, 3) and (n_steps,)")
    for name, v in fields.items():
        if np.shape(v)[:2] != (n_steps, n_points):
            raise ValueError(f"points.shape = {points.shape}, but fields[{name!r}].shape = {np.shape(v)}")
    field_data = {name: np.asarray(v) for name, v in (field_data or {}).items()}
    for name, v in field_data.items():
        if v.shape != (n_steps,):
            raise ValueError(f"times.shape = {times.shape}, but field_data[{name!r}].shape = {v.shape}")
    if exact_fields and field_bits is not None:
        raise ValueError("exact_fields keeps float64 fields as they are: give field_bits=None")
    if exact_steps is not None and np.shape(exact_steps) != (n_steps,):
        raise ValueError(f"times.shape = {times.shape}, but exact_steps.shape = {np.shape(exact_steps)}")
    n_cells, per_cell = cells.shape
    steps = np.arange(n_steps, dtype=np.int64)
    path = Path(path)
    with h5py.File(path, "w") as f:
        root = f.create_group("VTKHDF", track_order=True)
        root.attrs["Version"] = np.array(VERSION, dtype=np.int64)
        root.attrs.create("Type", np.bytes_("UnstructuredGrid"))  # fixed-length ASCII, as VTK writes it
        if index is not None:
            root.attrs["Index"] = np.int64(index)
        root["NumberOfPoints"] = np.full(1, n_points, dtype=np.int64)
        root["NumberOfCells"] = np.full(1, n_cells, dtype=np.int64)
        root["NumberOfConnectivityIds"] = np.full(1, n_cells * per_cell, dtype=np.int64)
        if point_quantum is not None:
            points = np.round(points / point_quantum) * point_quantum  # exact for a power-of-two quantum
        # a step placed as the one before reuses its points (the format allows repeated offsets)
        new = np.ones(n_steps, dtype=bool)
        new[1:] = np.any(points[1:] != points[:-1], axis=(1, 2))
        _dataset(root, "Points", points[new].reshape(-1, 3), compress, n_points * STEPS_PER_CHUNK)
        _dataset(root, "Connectivity", cells.ravel(), compress)
        _dataset(root, "Offsets", np.arange(n_cells + 1, dtype=np.int64) * per_cell, compress)
        _dataset(root, "Types", np.full(n_cells, cell_type, dtype=np.uint8), compress)
        pd = root.create_group("PointData", track_order=True)
        for name, v in fields.items():
            v = _stored(v, exact_fields, field_bits, exact_steps)
            _dataset(pd, name, v.reshape(n_steps * n_points, *v.shape[2:]), compress, n_points * STEPS_PER_CHUNK)
        s = root.create_group("Steps")
        s.attrs["NSteps"] = np.int64(n_steps)
        s["Values"] = times
        s["PartOffsets"] = np.zeros(n_steps, dtype=np.int64)
        s["NumberOfParts"] = np.ones(n_steps, dtype=np.int64)
        s["PointOffsets"] = (np.cumsum(new) - 1) * n_points
        s["CellOffsets"] = np.zeros((n_steps, 1), dtype=np.int64)
        s["ConnectivityIdOffsets"] = np.zeros((n_steps, 1), dtype=np.int64)
        pdo = s.create_group("PointDataOffsets")
        for name in fields:
            pdo[name] = steps * n_points
        if field_data:
            fd, fdo = root.create_group("FieldData", track_order=True), s.create_group("FieldDataOffsets")
            for name, v in field_data.items():
                fd[name] = v
                fdo[name] = steps
    return path


def _stored(values: np.ndarray, exact_fields: bool, field_bits: int | None,
            exact_steps: np.ndarray | None) -> np.ndarray:
    """A field (n_steps, ...) as :func:`write_vtkhdf_series` stores it: float64 as it is (``exact_fields``), else
    float32 rounded to ``field_bits`` (None: float32), but with any ``exact_steps`` (n_steps,) bool float64 with
    those steps as they are."""
    if exact_fields:
        return np.asarray(values, dtype=np.float64)
    rounded = np.asarray(values, dtype=np.float32) if field_bits is None else round_mantissa(values, field_bits)
    if exact_steps is None or not np.any(exact_steps):
        return rounded
    exact = np.asarray(exact_steps, dtype=bool)
    out = rounded.astype(np.float64)
    out[exact] = np.asarray(values, dtype=np.float64)[exact]
    return out


def write_vtkhdf_collection(path: str | os.PathLike, blocks: dict[str, str], times: np.ndarray | None = None,
                            field_data: dict[str, np.ndarray] | None = None) -> Path:
    """Write a ``MultiBlockDataSet`` VTKHDF file that gathers existing VTKHDF files (``pyvista.read`` gives a
    ``MultiBlock`` keyed by block name; ParaView and VTK's ``vtkHDFReader`` read its time steps).

    ``blocks`` maps a block name to the path of a VTKHDF file, relative to ``path``'s folder; block i must have
    been written with ``index=i`` (the index lives in the linked file). Each block is an HDF5 external link to
    that file's ``/VTKHDF`` group; the ``Assembly`` names them in order. ``field_data`` maps a name to (n_steps,)
    values of the whole collection at the blocks' time steps ``times`` (n_steps,) [s] (VTK 9.7's reader gives the
    multiblock these, and no block's own field data). Returns the path.
    """
    import h5py

    reserved = ("", ".", "Assembly", *(("FieldData", "Steps") if field_data else ()))
    bad = [n for n in blocks if "/" in n or n in reserved]
    if bad:
        raise ValueError(f"block names {bad} cannot name HDF5 groups beside {reserved[2:]}; use other names "
                         f"without '/'")
    field_data = {name: np.asarray(v) for name, v in (field_data or {}).items()}
    if field_data and any(np.shape(v) != np.shape(times) for v in field_data.values()):
        raise ValueError(f"times.shape = {np.shape(times)}, but the field data's shapes are "
                         f"{ {n: v.shape for n, v in field_data.items()} }")
    path = Path(path)
    with h5py.File(path, "w") as f:
        root = f.create_group("VTKHDF", track_order=True)
        root.attrs["Version"] = np.array(VERSION, dtype=np.int64)
        root.attrs.create("Type", np.bytes_("MultiBlockDataSet"))
        assembly = root.create_group("Assembly", track_order=True)
        for name, target in blocks.items():
            root[name] = h5py.ExternalLink(Path(target).as_posix(), "/VTKHDF")
            assembly[name] = h5py.SoftLink(f"/VTKHDF/{name}")
        if field_data:
            fd, steps = root.create_group("FieldData", track_order=True), root.create_group("Steps")
            steps.attrs["NSteps"] = np.int64(len(times))
            steps["Values"] = np.asarray(times, dtype=np.float64)
            offsets = steps.create_group("FieldDataOffsets")
            for name, v in field_data.items():
                fd[name], offsets[name] = v, np.arange(len(times), dtype=np.int64)
    return path


def vtkhdf_times(path: str | os.PathLike) -> np.ndarray:
    """The time values [s] of a temporal VTKHDF file, (n_steps,), as VTK's ``vtkHDFReader`` reports them."""
    from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline
    from vtkmodules.vtkIOHDF import vtkHDFReader

    reader = vtkHDFReader()
    reader.SetFileName(str(path))
    reader.UpdateInformation()
    info = reader.GetOutputInformation(0)
    key = vtkStreamingDemandDrivenPipeline.TIME_STEPS()
    return np.array([info.Get(key, k) for k in range(info.Length(key))], dtype=np.float64)


def read_vtkhdf(path: str | os.PathLike, step: int):
    """Read time step ``step`` (0-based) of a VTKHDF file with VTK's ``vtkHDFReader``, wrapped by pyvista: an
    ``UnstructuredGrid`` for a link file, a ``MultiBlock`` of them keyed by block (link) name for
    ``robot.vtkhdf``."""
    import pyvista as pv
    from vtkmodules.vtkIOHDF import vtkHDFReader

    reader = vtkHDFReader()
    reader.SetFileName(str(path))
    reader.UpdateInformation()
    if not 0 <= step < reader.GetNumberOfSteps():
        raise IndexError(f"{path}: step {step}, but it has steps 0 to {reader.GetNumberOfSteps() - 1}")
    reader.SetStep(step)
    reader.Update()
    out = reader.GetOutputDataObject(0)
    if out.IsA("vtkPartitionedDataSetCollection"):  # files of earlier versions
        blocks = pv.MultiBlock()
        for i in range(out.GetNumberOfPartitionedDataSets()):
            grid = out.GetPartition(i, 0).NewInstance()
            grid.DeepCopy(out.GetPartition(i, 0))
            blocks[out.GetMetaData(i).Get(out.NAME())] = pv.wrap(grid)
        return blocks
    copy = out.NewInstance()
    copy.DeepCopy(out)
    return pv.wrap(copy)
