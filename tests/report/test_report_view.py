"""The report's reading of a summary (structcheck.report.view) on hand-made summaries: the check that governs the
verdict is the most utilised one (demand / capacity), whichever kind it is, and each shown number carries its key
and its value in summary.json's unit."""
from __future__ import annotations

import pytest

from structcheck.report.view import design_checks, link_rows, number, verdict, warning_groups


def summary(fatigue_sf=None, deflection_m=None, limit_m=None):
    """Two links: a (safety factor 3.0) and b (2.0) against a required 1.5; optionally a's fatigue safety factor
    and the tool point's deflection with its limit."""
    a = {"min_safety_factor": 3.0, "passed": True, "material": "6061-T6", "max_von_mises_pa": 92e6}
    if fatigue_sf is not None:
        a["fatigue_safety_factor"] = fatigue_sf
    return {"required_safety_factor": 1.5, "passed": True, "failures": [], "tool_point_deflection_m": deflection_m,
            "deflection_limit_m": limit_m, "warnings": [],
            "links": {"a": a, "b": {"min_safety_factor": 2.0, "passed": True, "max_von_mises_pa": 138e6}}}


def test_the_most_utilised_check_governs():
    # stresses: a 1.5/3 = 0.5, b 1.5/2 = 0.75 -> b's stress governs
    v = verdict(summary())
    assert (v.governing.what, v.governing.link, v.governing.utilisation) == ("stress safety factor", "b", 0.75)
    # a's fatigue safety factor 1.25 -> utilisation 0.8, above b's stress
    v = verdict(summary(fatigue_sf=1.25))
    assert (v.governing.what, v.governing.link) == ("fatigue safety factor", "a")
    assert v.governing.utilisation == pytest.approx(0.8)
    # a tool point deflecting 3 mm against a 2 mm limit: 1.5, the largest
    checks = design_checks(summary(fatigue_sf=1.25, deflection_m=3e-3, limit_m=2e-3))
    assert [c.what for c in checks] == ["tool-point deflection", "fatigue safety factor", "stress safety factor",
                                        "stress safety factor"]
    assert checks[0].shown.text == "3" and checks[0].limit.text == "2" and checks[0].shown.unit == "mm"


def test_numbers_keep_their_key_and_si_value():
    s = summary(fatigue_sf=None)
    n = number(s, ("links", "b", "max_von_mises_pa"), 1e-6, "MPa")
    assert (n.key_json, n.value_repr, n.text) == ('["links", "b", "max_von_mises_pa"]', "138000000.0", "138")
    infinite = number({"x": None}, ("x",), none_text="inf")
    assert (infinite.value_repr, infinite.text) == ("null", "inf")
    assert number({"m": [1.0, 2.5]}, ("m", 1)).value == 2.5 and number({}, ("m", 3)).value is None
    rows = link_rows(s)
    assert [r["name"] for r in rows] == ["a", "b"]
    assert [c.key for c in rows[1]["cells"]][:1] == [("links", "b", "max_von_mises_pa")]


def test_warnings_are_grouped_by_their_link_in_order():
    s = {"warnings": ["link 'b': x", "the ramp", "link 'a': y", "link 'b': z"]}
    assert warning_groups(s) == {"link b": ["link 'b': x", "link 'b': z"], "robot and motion": ["the ramp"],
                                 "link a": ["link 'a': y"]}
