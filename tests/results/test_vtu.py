"""structcheck.results.vtu, called directly: a .vtu written and read back by meshio (an independent reader),
float64 exact; the .pvd collection's entries."""
import xml.etree.ElementTree as ET

import meshio
import numpy as np

from structcheck.results.vtu import VTU_BLOCK, write_pvd, write_vtu


def test_quadratic_tets_round_trip_through_meshio(tmp_path, rng):
    points = rng.standard_normal((40, 3))
    cells = np.array([rng.permutation(40)[:10] for _ in range(7)])
    fields = {"von_mises": rng.uniform(0, 1e8, 40), "displacement": rng.standard_normal((40, 3)) * 1e-4}
    write_vtu(tmp_path / "a.vtu", points, cells, fields, time=1.25, field_data={"peak_pa": 3.5e7})
    m = meshio.read(tmp_path / "a.vtu")
    np.testing.assert_array_equal(m.points, points)  # float64 written raw: bit for bit
    assert [c.type for c in m.cells] == ["tetra10"]
    np.testing.assert_array_equal(m.cells[0].data, cells)
    for name, value in fields.items():
        np.testing.assert_array_equal(np.reshape(m.point_data[name], np.shape(value)), value)  # meshio: (n, 1)
    assert float(np.ravel(m.field_data["TimeValue"])[0]) == 1.25
    assert float(np.ravel(m.field_data["peak_pa"])[0]) == 3.5e7


def test_linear_tets_and_an_array_longer_than_one_compressed_block(tmp_path, rng):
    n = VTU_BLOCK // 8 + 1000  # the field's float64 bytes span two zlib blocks
    points = rng.standard_normal((n, 3))
    cells = np.arange(4 * 5).reshape(5, 4)
    field = rng.standard_normal(n)
    write_vtu(tmp_path / "b.vtu", points, cells, {"f": field})
    m = meshio.read(tmp_path / "b.vtu")
    assert [c.type for c in m.cells] == ["tetra"]
    np.testing.assert_array_equal(np.ravel(m.point_data["f"]), field)
    np.testing.assert_array_equal(m.points, points)


def test_pvd_lists_each_entry(tmp_path):
    path = write_pvd(tmp_path / "s.pvd", [(0.0, 0, "upper", "vtk/upper_0.vtu"), (0.5, 1, "fore", "vtk/fore_1.vtu")])
    sets = ET.parse(path).getroot().find("Collection").findall("DataSet")
    assert [(float(d.get("timestep")), int(d.get("part")), d.get("group"), d.get("file")) for d in sets] == \
        [(0.0, 0, "upper", "vtk/upper_0.vtu"), (0.5, 1, "fore", "vtk/fore_1.vtu")]
