"""Results folder writer: atomic writes, CSV exactness and ParaView round trips (VTKHDF through VTK's reader,
.pvd/.vtu through pyvista and meshio)."""
import dataclasses
import json

import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.results import LinkResult, RunResult, RunSummary, read_csv, read_summary, write_results
from structcheck.results.summary import link_summary

# one quadratic tetra in VTK node order (corners, then edges 01 12 02 03 13 23)
CORNERS = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float) * 0.1
EDGES = [(0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3)]
POINTS = np.vstack([CORNERS, [(CORNERS[a] + CORNERS[b]) / 2 for a, b in EDGES]])


def tiny_run(n_t=5):
    t = np.linspace(0, 1, n_t)
    frames = np.array([0, 2, 4])
    nf = len(frames)
    vm = np.outer(np.arange(1, nf + 1), np.linspace(1, 2, 10)) * 1e6
    T = np.tile(np.eye(4), (nf, 2, 1, 1))
    T[:, 1, :3, 3] = [[0, 0, k] for k in range(nf)]  # the link rises 1 m per frame
    link = LinkResult(
        name="arm", material="6061-O", mass_kg=1.0, yield_strength_pa=55.2e6, criterion="von_mises",
        n_nodes=10, n_elements=1, max_von_mises_pa=float(vm.max()), time_of_max_s=1.0,
        location_of_max_m=(0, 0, 2.05), location_of_max_link_m=tuple(POINTS[9]), max_equivalent_strain=vm.max() / 69e9,
        max_deformation_m=1e-5, time_of_max_deformation_s=1.0, min_safety_factor=55.2e6 / vm.max(), passed=True,
        points=POINTS, cells=np.arange(10)[None, :],
        frame_fields={"displacement": np.zeros((nf, 10, 3)), "von_mises": vm, "equivalent_strain": vm / 69e9,
                      "safety_factor": 55.2e6 / vm},
        envelope={"von_mises": vm.max(axis=0)},
        history={"max_von_mises": np.linspace(0, vm.max(), n_t)})
    summary = RunSummary(study="tiny", links={"arm": link_summary(link)}, passed=True,
                         max_von_mises_pa=float(vm.max()), max_von_mises_link="arm",
                         max_equivalent_strain=float(vm.max() / 69e9), max_deformation_m=1e-5,
                         required_safety_factor=1.5, tool_point_deflection_m=None)
    q = np.column_stack([t, 2 * t])
    return RunResult(study_name="tiny", t=t, frame_times=t[frames], joint_names=["j1", "j2"], dof_names=["j1", "j2"],
                     q=q, qd=q, qdd=q, tau=q / 3, joint_wrenches=np.random.default_rng(0).standard_normal((n_t, 2, 6)),
                     link_names=["ground", "arm"], T_world_link_frames=T, links={"arm": link}, summary=summary)


def turning_run():
    """tiny_run with the arm turning 90 degrees about z per frame while it rises, and non-zero displacements."""
    run = tiny_run()
    T = run.T_world_link_frames.copy()
    for k in range(len(T)):
        c, s = np.cos(k * np.pi / 2), np.sin(k * np.pi / 2)
        T[k, 1, :3, :3] = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    arm = run.links["arm"]
    u = np.random.default_rng(0).standard_normal((len(T), 10, 3)) * 1e-5  # link axes [m]
    arm = dataclasses.replace(arm, frame_fields={**arm.frame_fields, "displacement": u})
    return dataclasses.replace(run, T_world_link_frames=T, links={"arm": arm})


def test_round_trip_through_vtkhdf_reader(tmp_path):
    """The default results: VTK's reader gives every frame of robot.vtkhdf and of the link's own file, with the
    mesh placed where the robot is, quadratic tets, and every field equal to the written one in float32."""
    import meshio
    import pyvista as pv

    from structcheck.results.paraview import FIELD_BITS, POINT_QUANTUM_M
    from structcheck.results.vtkhdf import read_vtkhdf, round_mantissa, vtkhdf_times

    run = turning_run()
    out = write_results(run, tmp_path / "res", plots=False)
    link, T = run.links["arm"], run.T_world_link_frames[:, 1]
    assert sorted(p.name for p in (out / "vtk").iterdir()) == ["arm.vtkhdf", "arm_envelope.vtu", "arm_peak.vtu"]
    for path in (out / "robot.vtkhdf", out / "vtk" / "arm.vtkhdf"):
        np.testing.assert_array_equal(vtkhdf_times(path), run.frame_times)
        for k in range(len(run.frame_times)):
            data = read_vtkhdf(path, k)
            grid = data["arm"] if isinstance(data, pv.MultiBlock) else data
            if isinstance(data, pv.MultiBlock):
                assert data.keys() == ["arm"]  # the links with results, in robot order
            R, p = T[k, :3, :3], T[k, :3, 3]
            assert grid.n_points == 10 and list(grid.celltypes) == [24]  # VTK_QUADRATIC_TETRA
            # float64 points on the quantum grid: within half a quantum (7.5 nm) of where the robot put them
            assert grid.points.dtype == np.float64
            np.testing.assert_allclose(grid.points, POINTS @ R.T + p, rtol=0, atol=POINT_QUANTUM_M / 2 + 1e-15)
            np.testing.assert_array_equal(grid.points / POINT_QUANTUM_M, np.round(grid.points / POINT_QUANTUM_M))
            # float32 fields, each the written value rounded to FIELD_BITS mantissa bits, bit for bit
            for f in ("von_mises", "equivalent_strain", "safety_factor"):
                v = link.frame_fields[f][k]
                assert grid.point_data[f].dtype == np.float32
                np.testing.assert_array_equal(grid.point_data[f], round_mantissa(v, FIELD_BITS))
                # float32 (2**-24) then FIELD_BITS (2**-17): five significant digits
                np.testing.assert_allclose(grid.point_data[f], v, rtol=2.0 ** -24 + 2.0 ** -(FIELD_BITS + 1))
            np.testing.assert_allclose(grid.point_data["displacement"], link.frame_fields["displacement"][k] @ R.T,
                                       rtol=2.0 ** -24 + 2.0 ** -(FIELD_BITS + 1), atol=1e-20)  # world axes
    # the peak frame and the envelope stay float64 VTK XML, exact, readable by meshio
    k = int(np.argmax(link.frame_fields["von_mises"].max(axis=1)))
    peak = meshio.read(out / "vtk" / "arm_peak.vtu")
    assert peak.point_data["von_mises"].max() == link.max_von_mises_pa
    np.testing.assert_array_equal(peak.point_data["von_mises"].ravel(), link.frame_fields["von_mises"][k])
    np.testing.assert_allclose(peak.points, POINTS @ T[k, :3, :3].T + T[k, :3, 3], rtol=0, atol=1e-15)
    assert peak.field_data["TimeValue"][0] == run.frame_times[k]
    env = pv.read(out / "vtk" / "arm_envelope.vtu")
    assert env.point_data["von_mises"].max() == link.max_von_mises_pa


def test_vtkhdf_is_the_default_and_unknown_format_is_an_input_error(tmp_path):
    out = write_results(tiny_run(), tmp_path / "res", plots=False)
    assert (out / "robot.vtkhdf").is_file() and not (out / "robot.pvd").exists()
    with pytest.raises(InputError, match=r"unknown VTK format 'vtu'; choose one of hdf, pvd"):
        write_results(tiny_run(), tmp_path / "bad", plots=False, vtk_format="vtu")
    assert not (tmp_path / "bad").exists()


def test_round_trip_through_paraview_reader(tmp_path):
    import pyvista as pv

    run = tiny_run()
    out = write_results(run, tmp_path / "res", plots=False, vtk_format="pvd")
    reader = pv.get_reader(str(out / "robot.pvd"))
    assert np.allclose(reader.time_values, run.frame_times)
    for k, tv in enumerate(reader.time_values):
        reader.set_active_time_value(tv)
        block = reader.read()
        grid = block[0] if isinstance(block, pv.MultiBlock) else block
        while isinstance(grid, pv.MultiBlock):
            grid = grid[0]
        assert grid.n_points == 10 and grid.celltypes[0] == 24  # VTK_QUADRATIC_TETRA
        # binary raw: float64 exact
        np.testing.assert_array_equal(grid.point_data["von_mises"], run.links["arm"].frame_fields["von_mises"][k])
        np.testing.assert_allclose(grid.points, POINTS + [0, 0, k])  # placed where the robot is
        for f in ("displacement", "equivalent_strain", "safety_factor"):
            assert f in grid.point_data
    env = pv.read(out / "vtk" / "arm_envelope.vtu")
    assert env.point_data["von_mises"].max() == run.links["arm"].max_von_mises_pa


def test_frames_read_back_exactly_with_meshio(tmp_path):
    """meshio (not only VTK) reads every frame: same points, quadratic tets and fields, bit for bit."""
    import meshio

    run = tiny_run()
    out = write_results(run, tmp_path / "res", plots=False, vtk_format="pvd")
    link = run.links["arm"]
    for k in range(len(run.frame_times)):
        m = meshio.read(out / "vtk" / f"arm_{k:04d}.vtu")
        assert [c.type for c in m.cells] == ["tetra10"]
        np.testing.assert_array_equal(m.cells[0].data, link.cells)
        np.testing.assert_array_equal(m.points, POINTS + [0, 0, k])
        for f in ("von_mises", "equivalent_strain", "safety_factor"):
            np.testing.assert_array_equal(m.point_data[f].ravel(), link.frame_fields[f][k])
        np.testing.assert_array_equal(m.point_data["displacement"], link.frame_fields["displacement"][k])


def test_summary_and_csv_exact(tmp_path):
    run = tiny_run()
    out = write_results(run, tmp_path / "res", vtk=False, plots=False)
    s = read_summary(out)
    assert s.links["arm"].max_von_mises_pa == run.links["arm"].max_von_mises_pa
    joints = read_csv(out / "joints.csv")
    np.testing.assert_array_equal(joints["j2_Mz_Nm"], run.joint_wrenches[:, 1, 5])
    links = read_csv(out / "links.csv")
    np.testing.assert_array_equal(links["arm_max_von_mises_pa"], run.links["arm"].history["max_von_mises"])


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    import structcheck.results.files as results

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(results, "write_link_csv", boom)
    with pytest.raises(RuntimeError, match="^disk full$"):
        write_results(tiny_run(), tmp_path / "res", vtk=False, plots=False)
    assert list(tmp_path.iterdir()) == []


def test_existing_results_replaced_only_on_success(tmp_path, monkeypatch):
    out = write_results(tiny_run(), tmp_path / "res", vtk=False, plots=False)
    before = (out / "summary.json").read_text()
    import structcheck.results.files as results

    monkeypatch.setattr(results, "write_joint_csv", lambda *a: (_ for _ in ()).throw(RuntimeError("x")))
    with pytest.raises(RuntimeError, match="^x$"):
        write_results(tiny_run(), out, vtk=False, plots=False)
    assert (out / "summary.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_unwritable_output_is_an_input_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(InputError, match=r"output path '.*file' is a file, not a folder; choose another --out"):
        write_results(tiny_run(), f, vtk=False, plots=False)
    with pytest.raises(InputError, match=r"cannot write results to '.*file/sub': .*; choose a writable --out"):
        write_results(tiny_run(), f / "sub", vtk=False, plots=False)


def test_plots_written(tmp_path, monkeypatch):
    """Four plots, each showing the run's data: the drawn lines are its histories, the axes span them, and
    the image is not an empty frame (it differs from the same axes with nothing drawn)."""
    import matplotlib
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    figures = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig: (figures.append(fig), close(fig)))
    run = tiny_run()
    out = write_results(run, tmp_path / "res", vtk=False)
    names = sorted(p.name for p in (out / "plots").iterdir())
    assert names == ["joint_motion.png", "joint_reactions.png", "joint_torques.png", "stress_history.png"]
    # the figures as drawn: joint_motion, joint_torques, joint_reactions, stress_history
    motion, torques, reactions, stress = figures
    for ax, data in ((motion.axes[0], np.degrees(run.q)), (torques.axes[0], run.tau),
                     (reactions.axes[0], np.linalg.norm(run.joint_wrenches[:, :, :3], axis=2)),
                     (stress.axes[0], run.links["arm"].history["max_von_mises"][:, None] * 1e-6)):
        lines = ax.get_lines()
        assert len(lines) == data.shape[1]
        for k, line in enumerate(lines):
            np.testing.assert_array_equal(line.get_xdata(), run.t)
            np.testing.assert_array_equal(line.get_ydata(), data[:, k])
        lo, hi = ax.get_ylim()
        positive = data[data > 0]  # the stress axis is logarithmic
        assert lo <= (positive.min() if ax.get_yscale() == "log" else data.min()) and hi >= data.max()
        assert ax.get_xlim()[0] <= run.t[0] and ax.get_xlim()[1] >= run.t[-1]
    # the PNGs: far from blank, and different from the same figure with the lines removed
    for fig, name in ((torques, "joint_torques.png"), (reactions, "joint_reactions.png")):
        img = mpimg.imread(out / "plots" / name)[..., :3]
        assert img.std() > 0.05
        for line in fig.axes[0].get_lines():
            line.remove()
        fig.savefig(tmp_path / "empty.png", dpi=110)
        empty = mpimg.imread(tmp_path / "empty.png")[..., :3]
        assert empty.shape == img.shape
        assert (np.abs(img - empty).max(axis=2) > 0.1).mean() > 0.005  # the curves cover >0.5 % of the image


@pytest.mark.parametrize("vtk_format", ["hdf", "pvd"])
def test_screenshot_renders_off_screen(tmp_path, vtk_format):
    """The README's screenshot command works without a display, from either kind of results folder: a PNG of
    the requested size with the coloured part in it (not a blank window)."""
    import matplotlib.image as mpimg

    from structcheck.results import write_screenshot

    out = write_results(tiny_run(), tmp_path / "res", plots=False, vtk_format=vtk_format)
    png = write_screenshot(out, tmp_path / "shot.png", time=1.0, window_size=(400, 300))
    img = mpimg.imread(png)
    assert img.shape[:2] == (300, 400)
    rgb = img[..., :3]
    coloured = (rgb.max(axis=2) - rgb.min(axis=2)) > 0.2  # saturated pixels: the colour-mapped part and bar
    assert coloured.mean() > 0.01


def test_csv_fields_are_the_values_reprs(tmp_path):
    """Every CSV field is repr(float(v)): the shortest text that reads back as the same double, for tiny, huge,
    signed-zero and non-finite values too."""
    import csv

    from structcheck.results.tables import _write_csv

    rng = np.random.default_rng(0)
    rows = np.r_[rng.standard_normal((50, 10)) * 10.0 ** rng.integers(-300, 300, (50, 10)),
                 [[0.0, -0.0, np.nan, np.inf, -np.inf, 1e-320, 5e-324, 1e16, 123456789012345678.0, 0.1]]]
    _write_csv(tmp_path / "t.csv", [f"c{k}" for k in range(10)], rows)
    with open(tmp_path / "t.csv", newline="") as fh:
        text = list(csv.reader(fh))
    assert text[0] == [f"c{k}" for k in range(10)]
    assert text[1:] == [[repr(float(v)) for v in row] for row in rows]


def test_plots_fixed_margins_keep_every_label_inside_the_figure(tmp_path, monkeypatch):
    """The plots' fixed margins (not tight_layout) leave room for every tick label, axis label, legend and
    title: each text drawn lies within the figure."""
    from structcheck.results import plots

    checked = []
    margins = plots._margins

    def check(fig):
        margins(fig)
        renderer = fig.canvas.get_renderer()
        fig.draw(renderer)
        W, H = fig.bbox.width, fig.bbox.height
        # every axes with what it draws (tick labels in view, axis labels, offset text, legend), and the title
        boxes = [ax.get_tightbbox(renderer) for ax in fig.axes]
        boxes += [fig._suptitle.get_window_extent(renderer)] if fig._suptitle is not None else []
        for box in boxes:
            assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= W and box.y1 <= H, (box, W, H)
        checked.append(len(boxes))

    monkeypatch.setattr(plots, "_margins", check)
    run = tiny_run()
    paths = plots.write_plots(run, tmp_path / "plots")
    assert len(checked) == len(paths) >= 4 and min(checked) >= 1
