"""structcheck.report.compare_page.change_rows, called directly: the comparison's numbers in the order a reviewer
reads them (largest relative change first; a value that becomes or stops being infinite before any finite
change), each shown in its display unit."""
from types import SimpleNamespace

from structcheck.report.compare_page import change_rows


def delta(link, label, a, b, change, regressed=False, scale=1e-6):
    return SimpleNamespace(link=link, label=label, unit="MPa", baseline=a, candidate=b, scale=scale,
                           change_pct=change, regressed=regressed)


def test_rows_largest_change_first_and_shown_in_their_unit():
    cmp = SimpleNamespace(deltas=[
        delta("upper", "peak von Mises", 10e6, 10.5e6, 5.0),
        delta("fore", "peak von Mises", 8e6, 6e6, -25.0),
        delta("fore", "min fatigue life", None, 1e7, None, regressed=True, scale=1.0),  # infinite -> finite
        delta("base", "peak von Mises", 3e6, 3e6, 0.0),
        delta("wrist", "min fatigue life", None, None, None, scale=1.0),  # infinite both: unchanged
    ])
    rows = change_rows(cmp)
    assert [(r.link, r.label) for r in rows[:3]] == [("fore", "min fatigue life"), ("fore", "peak von Mises"),
                                                     ("upper", "peak von Mises")]
    assert [r.order for r in rows] == [float("inf"), 25.0, 5.0, 0.0, 0.0]
    assert (rows[0].baseline, rows[0].candidate, rows[0].regressed) == ("inf", "1e+07", True)
    assert (rows[1].baseline, rows[1].candidate) == ("8", "6")  # MPa, 6 significant digits
    assert (rows[2].baseline, rows[2].candidate) == ("10", "10.5")
