"""What an arm-model run writes for ParaView: the assembled arm's mode shapes (``modes.vtkhdf`` and ``modes.pvd``)
and the link frames and envelopes (``robot.vtkhdf`` and ``robot.pvd``), read back and checked against closed
forms.

The tiny cantilever study (tests/helpers.py: one steel beam L = 0.4 m, 20 x 20 mm, clamped at joint1, 100 N at
the tip, no gravity) run with ``flexibility="arm"``: the whole arm is one clamped-free beam, so its first mode is
the Euler-Bernoulli clamped-free mode and its static deflection the cantilever's.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import SMALL_H as H, SMALL_L as L, write_small_study

from structcheck.model.materials import get_material
from structcheck.results import read_summary, write_results
from structcheck.script import load_study
from structcheck.study import run

STEEL = get_material("structural_steel")
B1 = 1.8751040687  # first root of 1 + cos b cosh b = 0 (clamped-free beam)


@pytest.fixture(scope="module")
def arm_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("arm_outputs")
    study = dataclasses.replace(load_study(write_small_study(folder)), quasi_static=False, flexibility="arm")
    result = run(study, folder / "res", progress=False, plots=False)
    return result, folder / "res"


def _grid(reader, step):
    import pyvista as pv

    reader.set_active_time_value(step)
    grid = reader.read()
    while isinstance(grid, pv.MultiBlock):
        grid = grid[0]
    return grid


def _mode_steps(folder, vtk_format, names):
    """The mode files of a results folder read back: (the steps' time values, a list over steps of link name ->
    grid), through VTK's VTKHDF reader (modes.vtkhdf) or pyvista's .pvd reader (modes.pvd, whose block k is part
    k: ``names[k]``)."""
    import pyvista as pv

    from structcheck.results.vtkhdf import read_vtkhdf, vtkhdf_times

    if vtk_format == "hdf":
        times = vtkhdf_times(folder / "modes.vtkhdf")
        steps = [read_vtkhdf(folder / "modes.vtkhdf", k) for k in range(len(times))]
        return times, [{name: blocks[name] for name in blocks.keys()} for blocks in steps]
    reader = pv.get_reader(str(folder / "modes.pvd"))
    steps = []
    for tv in reader.time_values:
        reader.set_active_time_value(tv)
        blocks = reader.read()
        assert blocks.n_blocks == len(names)
        grids = {}
        for k, name in enumerate(names):
            g = blocks[k]
            while isinstance(g, pv.MultiBlock):
                g = g[0]
            grids[name] = g
        steps.append(grids)
    return np.asarray(reader.time_values), steps


def _eb_mode(x):
    """Clamped-free Euler-Bernoulli first mode shape at x (m,) [m], normalized to 1 at the tip."""
    sigma = (np.sinh(B1) - np.sin(B1)) / (np.cosh(B1) + np.cos(B1))

    def phi(xi):
        return np.cosh(xi) - np.cos(xi) - sigma * (np.sinh(xi) - np.sin(xi))

    return phi(B1 * x / L) / phi(B1)


@pytest.mark.parametrize("vtk_format", ["hdf", "pvd"])
def test_mode_files_frequencies_and_first_mode_shape(arm_run, tmp_path, vtk_format):
    """modes.vtkhdf (default) and modes.pvd: one mode per step (1..6), each step's frequency_hz the summary's
    arm_modes_hz; mode 1 on the beam's axis follows the Euler-Bernoulli clamped-free shape (measured: within
    4.3e-4 of the tip amplitude; the square section's two bending modes share the shape, so |u| is compared), and
    its mass normalization: a clamped-free beam's mode scaled to 1 at the tip has modal mass m / 4, so the
    mass-normalized tip amplitude is 2 / sqrt(m) (measured -0.03%). Both files hold the run's mode shapes
    exactly (float64)."""
    result, out = arm_run
    summary = read_summary(out)
    hz = np.array(summary.arm_modes_hz)
    if vtk_format == "pvd":
        out = write_results(result, tmp_path / "pvd", plots=False, vtk_format="pvd")
        assert not (out / "modes.vtkhdf").exists()
    else:
        assert not (out / "modes.pvd").exists()
    times, steps = _mode_steps(out, vtk_format, ["beam"])
    np.testing.assert_array_equal(times, np.arange(1, 7))
    if vtk_format == "hdf":  # the link file has the field data, the gathering file the frequency at every node
        from structcheck.results.vtkhdf import read_vtkhdf

        for k, grids in enumerate(steps):
            np.testing.assert_array_equal(grids["beam"].point_data["frequency_hz"], result.arm_modes.frequency_hz[k])
            assert result.arm_modes.frequency_hz[k] == pytest.approx(hz[k], rel=1e-9)
        steps = [{"beam": read_vtkhdf(out / "vtk" / "modes" / "beam.vtkhdf", k)} for k in range(6)]
    for k, grids in enumerate(steps):
        (grid,) = grids.values()
        assert grid.field_data["mode"][0] == k + 1
        assert grid.field_data["frequency_hz"][0] == pytest.approx(hz[k], rel=1e-9)
        assert grid.field_data["time_s"][0] == summary.time_of_arm_modes_s
        np.testing.assert_array_equal(grid.point_data["mode_shape"], result.arm_modes.shapes["beam"][k])
        # max-normalized: the largest nodal |u| over the arm (one link here) is 1
        assert np.linalg.norm(grid.point_data["mode_shape"], axis=1).max() == pytest.approx(1.0, rel=1e-12)
    (grid,) = steps[0].values()
    np.testing.assert_allclose(grid.points, result.links["beam"].points, atol=1e-15)  # at home: link = world
    axis = np.flatnonzero(np.all(np.abs(grid.points[:, 1:]) < 1e-9, axis=1))
    x = grid.points[axis, 0]
    u = np.linalg.norm(grid.point_data["mode_shape"][axis], axis=1)
    tip = u[np.argmax(x)]
    assert len(axis) == 81 and np.abs(u / tip - _eb_mode(x)).max() < 0.005
    mass = STEEL.density * H * H * L
    scale = grid.field_data["scale_to_mass_normalized"][0]
    assert tip * scale == pytest.approx(2 / np.sqrt(mass), rel=0.01)


def test_vtk_frames_and_envelope_of_an_arm_run(arm_run, tmp_path):
    """robot.vtkhdf (default) and robot.pvd of an arm run: every output frame, the beam's displacement field the
    static cantilever's (the 100 N force acts from the start, the run starts at equilibrium): tip deflection
    P L^3 / (3 E I) within 1.5% (measured -0.29%: the stiff 2 x 2 section mesh against +0.2% of shear), and the
    envelope's peak the summary's peak von Mises."""
    import pyvista as pv

    from structcheck.results.vtkhdf import read_vtkhdf, vtkhdf_times

    result, out = arm_run
    link = result.links["beam"]
    d_ref = 100.0 * L ** 3 / (3 * STEEL.E * H ** 4 / 12)
    np.testing.assert_array_equal(vtkhdf_times(out / "robot.vtkhdf"), result.frame_times)
    for k in range(len(result.frame_times)):
        grid = read_vtkhdf(out / "robot.vtkhdf", k)["beam"]
        d = np.linalg.norm(grid.point_data["displacement"], axis=1).max()
        assert d == pytest.approx(d_ref, rel=0.015)
        assert grid.point_data["von_mises"].max() == pytest.approx(link.max_von_mises_pa, rel=1e-5)  # float32
    env = pv.read(out / "vtk" / "beam_envelope.vtu")
    assert env.point_data["von_mises"].max() == link.max_von_mises_pa
    assert env.point_data["displacement_magnitude"].max() == pytest.approx(d_ref, rel=0.015)
    # the peak frame's field is formed by other products than the screened maxima (fe.screening): the last bit may
    # differ (measured 1 ulp on this straight-sided beam)
    assert pv.read(out / "vtk" / "beam_peak.vtu").point_data["von_mises"].max() == pytest.approx(
        link.max_von_mises_pa, rel=1e-15)
    pvd = write_results(result, tmp_path / "pvd", plots=False, vtk_format="pvd")
    reader = pv.get_reader(str(pvd / "robot.pvd"))
    np.testing.assert_allclose(reader.time_values, result.frame_times)
    for tv in reader.time_values:
        grid = _grid(reader, tv)
        assert np.linalg.norm(grid.point_data["displacement"], axis=1).max() == pytest.approx(d_ref, rel=0.015)
    assert (pvd / "modes.pvd").is_file() and len(list((pvd / "vtk" / "modes").glob("beam_mode*.vtu"))) == 6
    assert sorted(p.name for p in (out / "vtk" / "modes").iterdir()) == ["beam.vtkhdf"]


def test_principal_basis_is_an_exact_turn_that_tightens_the_screening_bound(rng):
    """The arm's link histories are stored in the principal directions of their reduced coordinates: V is
    orthogonal, the stresses z S equal (z V)(V^T S) to round-off, the turned coefficients are uncorrelated, and
    fatigue's screening bound sum_j max_t |c_j| |s_j| falls where coefficients cancel (two columns of equal and
    opposite stress moving together, like two constraint modes of one rigid motion)."""
    from structcheck.flex.stage import principal_basis

    t = np.linspace(0, 1, 400)
    common = np.sin(7 * t)
    z = np.column_stack([common, common + 1e-3 * np.cos(3 * t), 0.1 * t, rng.standard_normal(len(t)) * 1e-2])
    S = rng.standard_normal((4, 50))
    S[1] = -S[0] + 1e-3 * rng.standard_normal(50)  # cancels column 0 when both move together
    V = principal_basis(z)
    np.testing.assert_allclose(V.T @ V, np.eye(4), atol=1e-12)
    np.testing.assert_allclose((z @ V) @ (V.T @ S), z @ S, atol=1e-12 * np.abs(z @ S).max())
    G = (z @ V).T @ (z @ V)
    assert np.abs(G - np.diag(np.diag(G))).max() < 1e-10 * np.abs(G).max()

    def bound(c, s):
        return np.abs(c).max(axis=0) @ np.abs(s)

    assert bound(z @ V, V.T @ S).max() < 0.2 * bound(z, S).max()


def test_mode_files_place_every_link_at_the_pose(tmp_path):
    """The two-beam arm held straight with joint1 turned 0.5 rad about y: in modes.vtkhdf and modes.pvd every
    link's points are its mesh turned by R_y(0.5) (link2 also moved to joint2 at (L1, 0, 0) turned), and every
    mode's displacement (world axes) is normal to the turned axis R_y(0.5) (1, 0, 0) on the beams' centreline: the
    six lowest modes bend or twist (the axial modes are far higher). Tolerance 1e-3 of the shape's largest value
    (measured up to 1.2e-4: the tets' diagonal split is not symmetric about the axis); displacements left in link
    axes would give ~0.5."""
    from helpers import L1, two_beam_parts, two_beam_robot

    from structcheck.study import Study

    parts = two_beam_parts(12, 9)
    study = Study(name="turned", robot=two_beam_robot(), parts=parts, t_end=0.1, n_frames=2,
                  motion={"joint1": 0.5}, n_modes=2, flexibility="arm")
    result = run(study, tmp_path / "res", progress=False, plots=False)
    write_results(result, tmp_path / "pvd", plots=False, vtk_format="pvd")
    c, s = np.cos(0.5), np.sin(0.5)
    R = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])  # about y
    axis = R @ [1.0, 0, 0]
    for folder, vtk_format in [(tmp_path / "res", "hdf"), (tmp_path / "pvd", "pvd")]:
        times, steps = _mode_steps(folder, vtk_format, ["link1", "link2"])
        assert len(times) == 6
        for grids in steps:
            assert list(grids) == ["link1", "link2"]  # the links in robot order
            np.testing.assert_allclose(grids["link1"].points, parts["link1"].points @ R.T, atol=1e-12)
            np.testing.assert_allclose(grids["link2"].points, parts["link2"].points @ R.T + L1 * axis, atol=1e-12)
            for name, g in grids.items():
                on_axis = np.all(np.abs(parts[name].points[:, 1:]) < 1e-9, axis=1)  # the beam's centreline
                assert np.abs(g.point_data["mode_shape"][on_axis] @ axis).max() < 1e-3
