"""structcheck.report.mode_view, called directly on a modes.vtkhdf written by structcheck.results.modes: two unit
cubes of P2 tets, mode 1 a uniform lift along z and mode 2 a uniform shift along x (both max-normalized: every
node's displacement 1). The figure must draw each link's corner surface lifted by AMPLITUDE times the robot's
largest dimension (in mm), intensity 1 everywhere, and one button per mode."""
import base64
from types import SimpleNamespace

import numpy as np
import pytest

from helpers import beam
from structcheck.report.mode_view import AMPLITUDE, mode_view
from structcheck.results.modes import write_mode_shapes


def decoded(typed):
    return np.frombuffer(base64.b64decode(typed["bdata"]), np.float32)


@pytest.fixture
def folder(tmp_path):
    links, shapes, T = {}, {}, {}
    for k, name in enumerate(("upper", "fore")):
        part = beam(1.0, 1.0, 1.0, 2, n_side=2)
        links[name] = SimpleNamespace(points=part.points, cells=part.cells)
        T[name] = np.eye(4)
        T[name][0, 3] = 1.0 * k  # side by side along x: the robot is 2 m long
        n = len(part.points)
        shapes[name] = np.stack([np.tile([0.0, 0.0, 1.0], (n, 1)), np.tile([1.0, 0.0, 0.0], (n, 1))])
    modes = SimpleNamespace(frequency_hz=np.array([20.0, 55.5]), time_s=0.5, T_world_link=T, shapes=shapes,
                            scale_to_mass_normalized=np.array([0.1, 0.2]))
    write_mode_shapes(SimpleNamespace(arm_modes=modes, link_names=["upper", "fore"], links=links), tmp_path)
    return tmp_path


def test_modes_drawn_lifted_by_the_amplitude(folder):
    fig = mode_view(folder, [20.0, 55.5])
    assert [tr.name for tr in fig.data] == ["upper", "fore"]
    lift = AMPLITUDE * 2.0 * 1e3  # 8% of the robot's 2 m, in mm
    for k, tr in enumerate(fig.data):
        z = np.asarray(tr.z, float)
        assert set(np.round(z, 3)) == {round(-500 + lift, 3), round(lift, 3), round(500 + lift, 3)}
        x = np.asarray(tr.x, float)
        assert x.min() == pytest.approx(1000.0 * k) and x.max() == pytest.approx(1000.0 * (k + 1))
        np.testing.assert_array_equal(np.asarray(tr.intensity), 1.0)
        assert len(tr.i) == 6 * 4 * 2  # the corner triangles of a 2 x 2 x 2 cube's six faces
    buttons = fig.layout.updatemenus[0].buttons
    assert [b.label for b in buttons] == ["mode 1: 20 Hz", "mode 2: 55.5 Hz"]
    # mode 2 shifts x by the same amount and leaves z at rest
    x2, z2 = decoded(buttons[1].args[0]["x"][0]), decoded(buttons[1].args[0]["z"][0])
    assert x2.min() == pytest.approx(lift, rel=1e-6) and z2.min() == pytest.approx(-500.0)


def test_no_figure_without_the_mode_file(tmp_path):
    assert mode_view(tmp_path, [10.0]) is None
