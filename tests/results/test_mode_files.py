"""structcheck.results.modes, called directly: the arm's mode shapes written as .pvd/.vtu (read back by meshio)
and as VTKHDF (read back by pyvista, VTK's own reader): every link placed by its T_world_link, one step per mode,
the shapes and the field data as given."""
from types import SimpleNamespace

import meshio
import numpy as np

from structcheck.results.modes import write_mode_shapes


def fake_run(rng, n_modes=3):
    """Two links of P2 tets (random points, 10-node cells) with their mode shapes, a third link without modes."""
    links, shapes, T = {}, {}, {}
    for k, name in enumerate(("upper", "fore", "rigid")):
        pts = rng.standard_normal((30, 3))
        links[name] = SimpleNamespace(points=pts, cells=np.array([rng.permutation(30)[:10] for _ in range(4)]))
        if name != "rigid":
            c, s = np.cos(0.3 * (k + 1)), np.sin(0.3 * (k + 1))
            T[name] = np.array([[c, -s, 0, 0.1 * k], [s, c, 0, 0.2], [0, 0, 1, 0.3], [0, 0, 0, 1]])
            shapes[name] = rng.standard_normal((n_modes, 30, 3))
    modes = SimpleNamespace(frequency_hz=np.array([12.5, 12.5, 40.0])[:n_modes], time_s=1.75, T_world_link=T,
                            shapes=shapes, scale_to_mass_normalized=np.array([0.1, 0.2, 0.3])[:n_modes])
    return SimpleNamespace(arm_modes=modes, link_names=["base", "upper", "fore", "rigid"], links=links)


def test_pvd_files_hold_each_mode_on_the_placed_links(tmp_path, rng):
    run = fake_run(rng)
    path = write_mode_shapes(run, tmp_path, vtk_format="pvd")
    assert path == tmp_path / "modes.pvd"
    for name in ("upper", "fore"):
        T = run.arm_modes.T_world_link[name]
        for k in range(3):
            m = meshio.read(tmp_path / "vtk" / "modes" / f"{name}_mode{k + 1}.vtu")
            np.testing.assert_allclose(m.points, run.links[name].points @ T[:3, :3].T + T[:3, 3], rtol=1e-15,
                                       atol=1e-15)
            np.testing.assert_array_equal(m.point_data["mode_shape"], run.arm_modes.shapes[name][k])
            data = {f: float(np.ravel(v)[0]) for f, v in m.field_data.items()}
            assert data == {"frequency_hz": [12.5, 12.5, 40.0][k], "mode": k + 1, "time_s": 1.75,
                            "scale_to_mass_normalized": [0.1, 0.2, 0.3][k]}
    assert not list((tmp_path / "vtk" / "modes").glob("rigid*"))  # a link without a superelement has no shapes
    text = path.read_text()
    assert text.count("<DataSet") == 6 and 'file="vtk/modes/fore_mode3.vtu"' in text


def test_vtkhdf_series_read_back_by_vtk(tmp_path, rng):
    """read_vtkhdf wraps VTK's own vtkHDFReader (tests/results/test_vtkhdf.py)."""
    from structcheck.results.vtkhdf import read_vtkhdf, vtkhdf_times

    run = fake_run(rng)
    path = write_mode_shapes(run, tmp_path)
    assert path == tmp_path / "modes.vtkhdf"
    fore = tmp_path / "vtk" / "modes" / "fore.vtkhdf"
    np.testing.assert_array_equal(vtkhdf_times(fore), [1.0, 2.0, 3.0])  # the steps are the mode numbers
    T = run.arm_modes.T_world_link["fore"]
    for k in range(3):
        grid = read_vtkhdf(fore, k)
        np.testing.assert_allclose(grid.points, run.links["fore"].points @ T[:3, :3].T + T[:3, 3], atol=1e-12)
        np.testing.assert_array_equal(grid.point_data["mode_shape"], run.arm_modes.shapes["fore"][k])  # exact
        np.testing.assert_array_equal(grid.point_data["frequency_hz"], [12.5, 12.5, 40.0][k])
    assert not (tmp_path / "vtk" / "modes" / "rigid.vtkhdf").exists()
