"""VTKHDF time series written with h5py and read back by VTK's own vtkHDFReader: every step, every field, the
points, the cell types; the topology stored once; the robot file gathering link files by external links."""
import platform

import h5py
import numpy as np
import pytest

from structcheck.results.vtkhdf import (read_vtkhdf, round_mantissa, vtkhdf_times, write_vtkhdf_collection,
                                       write_vtkhdf_series)


def series(n_steps=4, n_points=10, seed=0):
    """Random points moving over ``n_steps`` steps, one quadratic tetra, a scalar and a vector field."""
    rng = np.random.default_rng(seed)
    times = np.cumsum(rng.uniform(0.01, 0.1, n_steps))
    points = rng.standard_normal((n_steps, n_points, 3)) + 1.0  # near 1 m: float32 would round them
    fields = {"von_mises": rng.uniform(1e5, 3e8, (n_steps, n_points)),
              "displacement": rng.standard_normal((n_steps, n_points, 3)) * 1e-5}
    return times, points, np.arange(10)[None, :], fields


def test_every_step_reads_back(tmp_path):
    times, points, cells, fields = series()
    before = {k: v.copy() for k, v in fields.items()}
    path = write_vtkhdf_series(tmp_path / "link.vtkhdf", times, points, cells, 24, fields)
    for k, v in fields.items():  # the input is not changed
        np.testing.assert_array_equal(v, before[k])
    np.testing.assert_array_equal(vtkhdf_times(path), times)
    for k in range(len(times)):
        grid = read_vtkhdf(path, k)
        assert grid.n_points == 10 and grid.n_cells == 1
        assert list(grid.celltypes) == [24]  # VTK_QUADRATIC_TETRA
        np.testing.assert_array_equal(grid.cell_connectivity, cells.ravel())
        np.testing.assert_array_equal(grid.points, points[k])  # float64: exact
        for name, v in fields.items():
            got = grid.point_data[name]
            # float32 in the file: equal to the written values rounded to float32 (relative error <= 6e-8)
            assert got.dtype == np.float32
            np.testing.assert_array_equal(got, v[k].astype(np.float32))
            np.testing.assert_allclose(got, v[k], rtol=6e-8, atol=0)


def test_rounding_is_bounded_and_shrinks_the_file(tmp_path):
    """Points on a 2**-26 m grid (error <= 2**-27 m) and fields to 16 mantissa bits (relative error <= 2**-17
    after float32's 2**-24) read back as written, and the file is smaller than without rounding."""
    times, points, cells, fields = series(n_steps=20, n_points=3000)
    cells = np.arange(3000)[:300].reshape(-1, 10)
    plain = write_vtkhdf_series(tmp_path / "plain.vtkhdf", times, points, cells, 24, fields)
    small = write_vtkhdf_series(tmp_path / "small.vtkhdf", times, points, cells, 24, fields,
                                point_quantum=2.0 ** -26, field_bits=16)
    assert small.stat().st_size < 0.75 * plain.stat().st_size
    for k in (0, 19):
        grid = read_vtkhdf(small, k)
        np.testing.assert_allclose(grid.points, points[k], rtol=0, atol=2.0 ** -27)
        for name, v in fields.items():
            np.testing.assert_array_equal(grid.point_data[name], round_mantissa(v[k], 16))
            np.testing.assert_allclose(grid.point_data[name], v[k], rtol=2.0 ** -24 + 2.0 ** -17, atol=0)


def test_round_mantissa():
    v = np.array([1.0, 1 + 2.0 ** -17, 1 + 2.0 ** -16, -3.0 * 2 ** 27, 0.0, np.inf, -np.inf, np.nan, 2.0 - 2.0 ** -20])
    r = round_mantissa(v, 16)
    assert r.dtype == np.float32
    # ties away from zero; the carry into the exponent gives the next power of two; non-finite values kept
    np.testing.assert_array_equal(r[:7], [1.0, 1 + 2.0 ** -16, 1 + 2.0 ** -16, -3.0 * 2 ** 27, 0.0, np.inf, -np.inf])
    assert np.isnan(r[7]) and r[8] == 2.0
    assert (r.view(np.uint32) & np.uint32(0x7F) == 0)[np.isfinite(r)].all()  # the 7 low bits are zero


def test_topology_stored_once(tmp_path):
    times, points, cells, fields = series(n_steps=7)
    path = write_vtkhdf_series(tmp_path / "link.vtkhdf", times, points, cells, 24, fields)
    with h5py.File(path) as f:
        root = f["VTKHDF"]
        assert root.attrs["Type"] == b"UnstructuredGrid" and tuple(root.attrs["Version"]) == (2, 1)
        assert root["Connectivity"].shape == (10,) and root["Types"].shape == (1,)
        assert root["Points"].shape == (7 * 10, 3) and root["Points"].dtype == np.float64
        assert root["PointData/displacement"].shape == (70, 3)
        steps = root["Steps"]
        assert steps.attrs["NSteps"] == 7
        np.testing.assert_array_equal(steps["CellOffsets"][:], 0)
        np.testing.assert_array_equal(steps["ConnectivityIdOffsets"][:], 0)
        np.testing.assert_array_equal(steps["PointOffsets"][:], np.arange(7) * 10)
        np.testing.assert_array_equal(steps["PointDataOffsets/von_mises"][:], np.arange(7) * 10)


def test_a_step_at_rest_reuses_the_points_before(tmp_path):
    times, points, cells, fields = series(n_steps=6)
    points[2] = points[1]
    points[3] = points[1]
    points[5] = points[4]
    path = write_vtkhdf_series(tmp_path / "link.vtkhdf", times, points, cells, 24, fields)
    with h5py.File(path) as f:
        assert f["VTKHDF/Points"].shape == (3 * 10, 3)
        np.testing.assert_array_equal(f["VTKHDF/Steps/PointOffsets"][:], [0, 10, 10, 10, 20, 20])
    for k in range(6):
        grid = read_vtkhdf(path, k)
        np.testing.assert_array_equal(grid.points, points[k])
        np.testing.assert_array_equal(grid.point_data["von_mises"], fields["von_mises"][k].astype(np.float32))


def test_linear_tetra_and_compressed_large_arrays(tmp_path):
    """Linear tets (type 10), and arrays large enough to be chunked and gzip-compressed read back exactly."""
    rng = np.random.default_rng(1)
    n_points, n_steps = 4000, 3
    points = rng.standard_normal((n_steps, n_points, 3))
    cells = rng.integers(0, n_points, (3000, 4))
    vm = rng.uniform(0, 1e8, (n_steps, n_points))
    path = write_vtkhdf_series(tmp_path / "big.vtkhdf", [0.0, 0.1, 0.2], points, cells, 10, {"von_mises": vm})
    with h5py.File(path) as f:
        assert f["VTKHDF/Points"].compression == "gzip"
    grid = read_vtkhdf(path, 2)
    assert set(grid.celltypes) == {10}
    np.testing.assert_array_equal(grid.cell_connectivity, cells.ravel())
    np.testing.assert_array_equal(grid.points, points[2])
    np.testing.assert_array_equal(grid.point_data["von_mises"], vm[2].astype(np.float32))


def test_collection_gathers_link_files_from_any_working_folder(tmp_path, monkeypatch):
    times, points, cells, fields = series()
    (tmp_path / "vtk").mkdir()
    write_vtkhdf_series(tmp_path / "vtk" / "a.vtkhdf", times, points, cells, 24, fields, index=0)
    fields_b = {k: 2 * v for k, v in fields.items()}
    write_vtkhdf_series(tmp_path / "vtk" / "b.vtkhdf", times, points + 1, cells, 24, fields_b, index=1)
    robot = write_vtkhdf_collection(tmp_path / "robot.vtkhdf", {"upper": "vtk/a.vtkhdf", "lower": "vtk/b.vtkhdf"})
    monkeypatch.chdir(tmp_path / "vtk")  # external links resolve against robot.vtkhdf's folder, not the cwd
    np.testing.assert_array_equal(vtkhdf_times(robot), times)
    for k in range(len(times)):
        blocks = read_vtkhdf(robot, k)
        assert blocks.keys() == ["upper", "lower"]
        for name, pts, f in (("upper", points, fields), ("lower", points + 1, fields_b)):
            np.testing.assert_array_equal(blocks[name].points, pts[k])
            np.testing.assert_array_equal(blocks[name].point_data["von_mises"], f["von_mises"][k].astype(np.float32))
    assert robot.stat().st_size < 10_000  # links only, no data


def test_bad_input_names_the_problem(tmp_path):
    times, points, cells, fields = series()
    with pytest.raises(ValueError, match=r"points.shape = \(4, 10, 3\), but fields\['von_mises'\].shape = \(4, 9\)"):
        write_vtkhdf_series(tmp_path / "x.vtkhdf", times, points, cells, 24, {"von_mises": fields["von_mises"][:, :9]})
    with pytest.raises(ValueError, match=r"times.shape = \(3,\)"):
        write_vtkhdf_series(tmp_path / "x.vtkhdf", times[:3], points, cells, 24, fields)
    with pytest.raises(ValueError, match=r"block names \['a/b'\] cannot name HDF5 groups"):
        write_vtkhdf_collection(tmp_path / "robot.vtkhdf", {"a/b": "a.vtkhdf"})


@pytest.mark.parametrize("dtype, shape, rows", [(np.float32, (30000, 3), 4096), (np.float64, (7777, 3), 1000),
                                                (np.int64, (50000,), 10240)])
@pytest.mark.parametrize("deflate", ["zlib", "default"])
def test_chunks_compressed_in_threads_are_what_hdf5_stores(tmp_path, dtype, shape, rows, deflate, monkeypatch):
    """The chunks deflated in threads hold what HDF5's shuffle + gzip pipeline stores (the edge chunk included)
    and read back as the data: with zlib at the filter's level, byte for byte HDF5's own chunks; with the
    default deflater (ISA-L's where python-isal is installed) another zlib stream of the same bytes."""
    import zlib

    from structcheck.results import vtkhdf
    from structcheck.results.vtkhdf import COMPRESSION, _dataset

    if deflate == "zlib":
        monkeypatch.setattr(vtkhdf, "_compressor", lambda: zlib.compressobj(COMPRESSION["compression_opts"]))
    rng = np.random.default_rng(3)
    data = (rng.standard_normal(shape) * 1e3).astype(dtype)
    with h5py.File(tmp_path / "a.h5", "w") as f:
        _dataset(f, "ours", data, True, rows)
        f.create_dataset("hdf5", data=data, chunks=(rows, *shape[1:]), **COMPRESSION)
        ours, ref = f["ours"], f["hdf5"]
        assert ours.chunks == ref.chunks and ours.compression == "gzip" and ours.shuffle
        for start in range(0, shape[0], rows):
            offset = (start, *([0] * (len(shape) - 1)))
            mine, theirs = ours.id.read_direct_chunk(offset)[1], ref.id.read_direct_chunk(offset)[1]
            assert zlib.decompress(mine) == zlib.decompress(theirs)
            if deflate == "zlib":
                assert mine == theirs
        np.testing.assert_array_equal(ours[()], data)


def test_isal_deflates_where_installed():
    """ISA-L's deflate is the default where python-isal is installed (a dependency where it has wheels)."""
    from conftest import importable, require

    require(importable("isal.isal_zlib"), "ISA-L (python-isal)", "pip install isal (a dependency where it has wheels)",
            installable=platform.machine() in ("x86_64", "AMD64", "aarch64", "arm64"))
    from isal import isal_zlib

    from structcheck.results.vtkhdf import _compressor

    assert isinstance(_compressor(), type(isal_zlib.compressobj(1)))
