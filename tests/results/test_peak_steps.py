"""The stored steps of a results folder (structcheck.results.steps) on hand-made grids, and the VTKHDF writer's
exact steps and robot-level field data read back by VTK's own reader."""
from __future__ import annotations

import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.results.steps import MAX_WINDOW_SAMPLES, stored_steps
from structcheck.results.vtkhdf import (read_vtkhdf, round_mantissa, vtkhdf_times, write_vtkhdf_collection,
                                       write_vtkhdf_series)


def test_steps_are_the_frames_the_peaks_and_their_windows():
    t = np.linspace(0.0, 1.0, 1001)  # 1 ms samples
    frames = np.array([0, 500, 1000])
    steps = stored_steps(t, frames, {"a": 333, "b": 500, "c": 333})
    np.testing.assert_array_equal(steps.index, [0, 333, 500, 1000])
    np.testing.assert_array_equal(steps.requested, [True, False, True, True])  # b peaks on a frame
    assert steps.peaks == {"a": 1, "b": 2, "c": 1} and not steps.around.any()
    np.testing.assert_array_equal(steps.link_peak("a"), [False, True, False, False])
    np.testing.assert_array_equal(steps.at_peak, [False, True, True, False])
    # a 4.5 ms window: the 4 samples on each side of each peak
    steps = stored_steps(t, frames, {"a": 333, "b": 500}, window_s=0.0045)
    np.testing.assert_array_equal(steps.index, np.r_[0, 329:338, 496:505, 1000])
    np.testing.assert_array_equal(steps.index[steps.around], np.r_[329:333, 334:338, 496:500, 501:505])
    # a window wider than MAX_WINDOW_SAMPLES samples on a side: thinned evenly, its ends kept
    steps = stored_steps(t, frames, {"a": 400}, window_s=0.3505)
    before, after = steps.index[steps.around & (steps.index < 400)], steps.index[steps.around & (steps.index > 400)]
    assert len(before) == MAX_WINDOW_SAMPLES and (before[0], before[-1]) == (50, 399)
    assert len(after) == MAX_WINDOW_SAMPLES - 1 and (after[0], after[-1]) == (401, 750)  # 500, a frame, not "around"


def test_a_negative_peak_window_is_refused():
    from helpers import two_beam_parts, two_beam_robot

    from structcheck.study import Study

    with pytest.raises(InputError, match="peak_window_s"):
        Study(name="x", robot=two_beam_robot(), parts=two_beam_parts(4, 3), motion={}, t_end=1.0, peak_window_s=-0.1)


def test_exact_steps_are_float64_exact_and_the_others_rounded(tmp_path):
    rng = np.random.default_rng(0)
    times, n = np.array([0.0, 0.4, 0.5]), 12
    points = rng.standard_normal((3, n, 3))
    fields = {"von_mises": rng.uniform(1e5, 3e8, (3, n)), "displacement": rng.standard_normal((3, n, 3)) * 1e-5}
    exact = np.array([False, True, False])
    path = write_vtkhdf_series(tmp_path / "l.vtkhdf", times, points, np.arange(10)[None], 24, fields, field_bits=16,
                               exact_steps=exact, index=0)
    for k in range(3):
        grid = read_vtkhdf(path, k)
        for name, v in fields.items():
            got = grid.point_data[name]
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got.reshape(v[k].shape), v[k] if exact[k] else round_mantissa(v[k], 16))
    with pytest.raises(ValueError, match="exact_steps"):
        write_vtkhdf_series(tmp_path / "x.vtkhdf", times, points, np.arange(10)[None], 24, fields, exact_steps=[True])
    # the robot's own field data, one value per step (VTK reads a composite file's, not its blocks')
    robot = write_vtkhdf_collection(tmp_path / "robot.vtkhdf", {"a": "l.vtkhdf"}, times,
                                    {"peak_a": np.array([0, 1, 0], np.int8)})
    np.testing.assert_array_equal(vtkhdf_times(robot), times)
    assert [int(read_vtkhdf(robot, k).field_data["peak_a"][0]) for k in range(3)] == [0, 1, 0]
    with pytest.raises(ValueError, match="Steps"):
        write_vtkhdf_collection(tmp_path / "bad.vtkhdf", {"Steps": "l.vtkhdf"}, times, {"f": np.zeros(3)})
