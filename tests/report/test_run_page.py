"""structcheck.report.run_page, called directly on a results folder written by hand (summary.json and two small
CSV tables, no study run): every number the page shows sits at its summary.json key with the value written there
and the documented rounding (4 significant digits of MPa for stresses, 3 for safety factors), the governing check's
utilisation is required / smallest safety factor, and a study's text shows as text."""
from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

from structcheck.errors import InputError
from structcheck.report.run_page import input_context, run_context, write_report

STUDY = "arm <script>alert(1)</script> & co"
WARNING = "link 'upper': <b>thin</b> wall"


def summary(passed=True):
    """Two links (safety factors 22.28 and 32.4 against 1.5) and one joint, in summary.json's SI units."""
    link = {"material": "6061-T6", "yield_strength_pa": 275e6, "passed": True}
    return {"study": STUDY, "description": "hand-made", "passed": passed,
            "failures": [] if passed else ["link 'upper': safety factor 1.2 < 1.5"],
            "required_safety_factor": 1.5, "deflection_limit_m": None, "tool_point": None,
            "tool_point_deflection_m": None, "max_von_mises_pa": 12345678.0, "max_von_mises_link": "upper",
            "analysis": {}, "versions": {"structcheck": "test"}, "timings_s": {"fe": 1.5},
            "checks": {"power_balance_rel_error": 2.5e-9, "equilibrium_rel_error": 1e-12,
                       "rigid_body_equilibrium_rel_error": 3e-13},
            "warnings": [WARNING],
            "links": {"upper": {**link, "max_von_mises_pa": 12345678.0, "min_safety_factor": 22.28,
                                "max_deformation_m": 1.23456e-4},
                      "fore": {**link, "max_von_mises_pa": 8.5e6, "min_safety_factor": 32.4,
                               "max_deformation_m": 2.5e-5}},
            "joints": {"j1": {"max_abs_torque": 120.5, "time_of_max_torque_s": 0.25, "max_reaction_force_n": 300.0,
                              "time_of_max_force_s": 1.0, "max_reaction_moment_nm": 40.0,
                              "time_of_max_moment_s": 0.5}}}


def write_folder(folder, s):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "summary.json").write_text(json.dumps(s))
    (folder / "links.csv").write_text("time_s,upper_max_von_mises_pa,fore_max_von_mises_pa\n"
                                      "0,1e6,2e6\n0.5,12345678.0,8.5e6\n1,3e6,1e6\n")
    reactions = [f"j1_F{a}_N" for a in "xyz"] + [f"j1_M{a}_Nm" for a in "xyz"]
    (folder / "joints.csv").write_text(",".join(["time_s", "q_j1", "qd_j1", "qdd_j1", "tau_j1", *reactions]) + "\n"
                                       "0,0,0,0,0,0,0,0,0,0,0\n0.5,1,1,0,120.5,300,0,0,40,0,0\n"
                                       "1,2,1,0,3,1,1,1,1,1,1\n")
    return folder


class Page(HTMLParser):
    """The page's numbers (``span.num``: data-key, data-value, shown text), its text outside scripts and the
    attributes of its elements with an id (and of the verdict banner, as ``verdict``)."""

    def __init__(self, html):
        super().__init__()
        self.numbers, self.text, self._num, self._script = [], [], None, False
        self.attrs_of = {}
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.attrs_of[a["id"]] = a
        if tag == "script":
            self._script = True
        if tag == "span" and "data-key" in a:
            self._num = [json.loads(a["data-key"]), a["data-value"], ""]
        if "data-verdict" in a:
            self.attrs_of["verdict"] = a

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = False
        if tag == "span" and self._num is not None:
            self.numbers.append(tuple(self._num))
            self._num = None

    def handle_data(self, data):
        if self._num is not None:
            self._num[2] += data
        elif not self._script:
            self.text.append(data)


def at(s, key):
    """The value at ``key`` in the hand-made summary; None where it has none (summary.json writes null)."""
    for k in key:
        if k not in s:
            return None
        s = s[k]
    return s


@pytest.fixture
def folder(tmp_path):
    return write_folder(tmp_path / "run", summary())


def test_every_number_is_the_summarys_value_at_its_key(folder):
    s = summary()
    page = Page(write_report(folder, renders=False).read_text())
    assert len(page.numbers) > 10
    for key, value, _ in page.numbers:  # the value beside each shown number is the one written at its key
        expected = at(s, key)
        assert value == ("null" if expected is None else repr(float(expected))), key
    shown = {tuple(k): text for k, _, text in page.numbers}
    # 12345678 Pa = 12.345678 MPa to 4 significant digits; 22.28 to 3; 120.5 N m to 4; 0.25 s
    assert shown[("links", "upper", "max_von_mises_pa")] == "12.35"
    assert shown[("links", "fore", "max_von_mises_pa")] == "8.5"
    assert shown[("links", "upper", "min_safety_factor")] == "22.3"
    assert shown[("joints", "j1", "max_abs_torque")] == "120.5"
    assert shown[("joints", "j1", "time_of_max_torque_s")] == "0.25"
    assert shown[("required_safety_factor",)] == "1.5"


def test_the_governing_check_is_the_smallest_safety_factor(folder):
    c = run_context(folder, renders=False)
    g = c["verdict"].governing
    assert (g.what, g.link) == ("stress safety factor", "upper")
    assert g.utilisation == pytest.approx(1.5 / 22.28, rel=1e-12)
    assert [ch.link for ch in c["checks"]] == ["upper", "fore"]  # most utilised first: 1.5/22.28 > 1.5/32.4
    page = Page(write_report(folder, renders=False).read_text())
    text = " ".join(" ".join(page.text).split())
    assert "(utilisation 7%)" in text and "6.7%" in text  # 100 * 1.5 / 22.28 = 6.73
    assert page.attrs_of["verdict"]["data-verdict"] == "pass"


def test_a_failing_run_shows_its_failures(tmp_path):
    f = write_folder(tmp_path / "bad", summary(passed=False))
    page = Page(write_report(f, renders=False).read_text())
    assert page.attrs_of["verdict"]["data-verdict"] == "fail"
    assert "link 'upper': safety factor 1.2 < 1.5" in "".join(page.text)


def test_study_text_shows_as_text(folder):
    html = write_report(folder, renders=False).read_text()
    page = Page(html)
    text = "".join(page.text)
    assert STUDY in text and WARNING in text  # the characters as written, shown
    assert "<script>alert(1)" not in html and "<b>thin" not in html  # never markup


def test_figures_and_empty_sections_from_the_tables_there(folder):
    c = run_context(folder, renders=False)
    # links.csv and joints.csv give stress, motion, torques and reactions; no tool point, arm frequencies or
    # fatigue table, so none of their figures; no mode file, no 3-D view without robot.vtkhdf
    assert len(c["figures"]) == 4 and all(f'id="plot-{k}"' in str(f) for k, f in enumerate(c["figures"]))
    assert (c["view"], c["peak"], c["renders"], c["mode_view"], c["has_mode_file"]) == (None, None, [], None, False)
    assert c["n_warnings"] == 1 and c["warnings"] == {"link upper": [WARNING]}
    assert input_context(c["s"]) == {}  # a summary without its inputs: no Inputs tables
    assert dict((k, v) for k, v, _ in c["timings"]) == {"fe": "1.5"}


def test_where_the_page_goes(folder, tmp_path):
    assert write_report(folder, renders=False) == folder / "report.html"
    out = tmp_path / "else where" / "r.html"
    assert write_report(folder, out, renders=False) == out and out.is_file()
    with pytest.raises(InputError, match="not a results folder"):
        write_report(tmp_path / "else where", renders=False)
