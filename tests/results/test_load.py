"""A results folder read back: ``structcheck.results.load`` and ``pyvista.read`` of robot.vtkhdf.

The tiny cantilever study of :mod:`helpers` (0.4 m steel bar, 20 mm square, 100 N at the tip, quasi-static, no
gravity) written in both VTK layouts. Its tip deflection P L^3 / (3 E I) (Euler-Bernoulli; the shear term adds
(P L / (kappa G A)) / that = 0.2%) is read back from the loaded frame and compared with the closed form, so the
loader is checked against physics as well as against the run's own summary."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import SMALL_H, SMALL_L, write_small_study

from structcheck.cli import main
from structcheck.errors import InputError
from structcheck.model.materials import get_material
from structcheck.results import load


@pytest.fixture(scope="module", params=["hdf", "pvd"])
def folder(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"load_{request.param}")
    out = tmp / "out"
    assert main(["run", str(write_small_study(tmp)), "--out", str(out), "--quiet",
                 "--vtk-format", request.param]) == 0
    return out


def test_load_gives_the_summary_frames_peaks_envelopes_and_histories(folder):
    res = load(folder)
    assert res.link_names == ["beam"]
    np.testing.assert_array_equal(res.times, [0.0, 0.5, 1.0])
    robot = res.frame(0.9)
    assert res.frame_time(0.9) == 1.0 and robot.keys() == ["beam"]
    beam = robot["beam"]
    steel = get_material("structural_steel")
    d_ref = 100.0 * SMALL_L ** 3 / (3 * steel.E * SMALL_H ** 4 / 12)
    tip = np.isclose(beam.points[:, 0], SMALL_L, atol=1e-4)  # the quasi-static frame's points are the deformed ones
    assert -beam.point_data["displacement"][tip, 2].mean() == pytest.approx(d_ref, rel=0.01)
    vm_peak = res.peak("beam").point_data["von_mises"].max()
    assert vm_peak == pytest.approx(res.summary.links["beam"].max_von_mises_pa, rel=1e-12)
    assert res.envelope("beam").point_data["von_mises"].max() == pytest.approx(vm_peak, rel=1e-12)
    assert set(res.joints) >= {"time_s", "q_joint1"} and len(res.links["time_s"]) == len(res.joints["time_s"])


def test_pyvista_reads_robot_vtkhdf_as_a_multiblock_of_links(folder, request):
    """The hdf layout's robot.vtkhdf is a MultiBlock of the links with their fields; the pvd layout writes
    ParaView's collection robot.pvd instead (its frames in vtk/), no robot.vtkhdf."""
    import pyvista as pv

    if request.node.callspec.params["folder"] == "pvd":
        assert (folder / "robot.pvd").is_file() and (folder / "vtk").is_dir()
        assert not (folder / "robot.vtkhdf").exists()
        return
    assert not (folder / "robot.pvd").exists()
    robot = pv.read(folder / "robot.vtkhdf")
    assert isinstance(robot, pv.MultiBlock) and robot.keys() == ["beam"]
    assert set(robot["beam"].point_data) >= {"displacement", "von_mises", "equivalent_strain", "safety_factor"}


def test_load_names_what_is_missing(tmp_path, folder):
    with pytest.raises(InputError, match="not a results folder"):
        load(tmp_path)
    with pytest.raises(InputError, match="no link 'arm'.*beam"):
        load(folder).peak("arm")
