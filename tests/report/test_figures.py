"""structcheck.report.figures and page, called directly: the panels, traces and levels a figure is built from
the columns given, the data as float32; a page written whole."""
import numpy as np

from structcheck.report.figures import grid, joint_motion, joint_torques
from structcheck.report.page import write_page


def test_grid_panels_lines_and_levels():
    t = np.linspace(0, 1, 5)
    fig = grid([{"title": "a", "ylabel": "ya", "lines": {"p": (t, t), "q": (t, 2 * t)},
                 "hlines": {"yield 55 MPa": 55.0, "allowable 37 MPa": 37.0}},
                {"title": "b", "ylabel": "yb", "lines": {"p": (t, 3 * t)}, "log": True}], cols=1)
    names = [tr.name for tr in fig.data]
    assert names == ["p", "q", "yield", "allowable", "p"]
    assert [tr.showlegend for tr in fig.data] == [True, True, True, True, False]  # one legend entry per name
    np.testing.assert_array_equal(fig.data[1].y, (2 * t).astype(np.float32))
    assert list(fig.data[2].y) == [55.0, 55.0] and list(fig.data[2].x) == [0.0, 1.0]  # a level across the time
    assert fig.layout.yaxis.type == "linear" and fig.layout.yaxis2.type == "log"
    assert [a.text for a in fig.layout.annotations] == ["a", "b"]


def test_joint_figures_take_every_coordinate():
    t = np.linspace(0, 2, 7)
    joints = {"time_s": t, "q_j1": t, "qd_j1": 0 * t + 1, "qdd_j1": 0 * t, "q_j2": -t, "qd_j2": -1 + 0 * t,
              "qdd_j2": 0 * t, "tau_j1": 3 * t, "tau_j2": -t}
    motion = joint_motion(joints)
    assert [tr.name for tr in motion.data] == ["j1", "j2"] * 3
    np.testing.assert_array_equal(motion.data[3].y, np.float32(-1) * np.ones(7, np.float32))  # qd of j2
    torques = joint_torques(joints)
    assert [tr.name for tr in torques.data] == ["j1", "j2"]
    np.testing.assert_array_equal(torques.data[0].y, (3 * t).astype(np.float32))


def test_write_page_replaces_the_file_whole(tmp_path):
    path = write_page("<p>one</p>", tmp_path / "sub" / "r.html")
    assert path.read_text() == "<p>one</p>"
    write_page("<p>two</p>", path)
    assert path.read_text() == "<p>two</p>" and [p.name for p in path.parent.iterdir()] == ["r.html"]


def test_plotted_lines_keep_every_extreme_of_a_long_history():
    """A history longer than MAX_POINTS is drawn through each bucket's smallest and largest sample: its maximum and
    minimum (and every bucket's) are on the page, in time order; a shorter one is drawn whole."""
    from structcheck.report.figures import MAX_POINTS, min_max_points

    rng = np.random.default_rng(3)
    t = np.linspace(0.0, 2.0, 50_001)
    y = np.sin(40 * t) + 0.2 * rng.standard_normal(len(t))
    tx, ty = min_max_points(t, y)
    assert len(tx) == MAX_POINTS and np.all(np.diff(tx) > 0)
    assert ty.max() == y.max() and ty.min() == y.min()
    edges = np.linspace(0, len(t), MAX_POINTS // 2 + 1).astype(int)  # consecutive buckets, sizes 25 or 26
    buckets = [np.arange(a, b) for a, b in zip(edges[:-1], edges[1:])]
    assert set(ty) == {y[b].max() for b in buckets} | {y[b].min() for b in buckets}
    short = min_max_points(t[:MAX_POINTS], y[:MAX_POINTS])
    assert np.array_equal(short[1], y[:MAX_POINTS])
