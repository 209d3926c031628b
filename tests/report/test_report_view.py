"""The report's reading of a summary (structcheck.report.view) on hand-made summaries: the check that governs the
verdict is the most utilised one (demand / capacity), whichever kind it is, and each shown number carries its key
and its value in summary.json's unit; rounding noise (below NOISE_FRACTION of its column's largest) shows as 0."""
from __future__ import annotations

import pytest

from structcheck.report.view import (NOISE_FRACTION, design_checks, joint_rows, link_rows, noise_floored, number,
                                     verdict, warning_groups)


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


def test_rounding_noise_shows_as_zero_in_every_table():
    # the joint: no torque, 1.75e-7 N m of round-off beside 120 N m; its time is then no peak's time
    joint = {"max_reaction_force_n": 300.0, "time_of_max_force_s": 1.0, "max_reaction_moment_nm": 0.0,
             "time_of_max_moment_s": 0.0}
    s = {"joints": {"j1": {**joint, "max_abs_torque": 120.0, "time_of_max_torque_s": 0.5},
                    "j2": {**joint, "max_abs_torque": 1.75e-7, "time_of_max_torque_s": 0.37},
                    "j3": {**joint, "max_abs_torque": 0.012, "time_of_max_torque_s": 0.2}}}
    rows = {r["name"]: r for r in joint_rows(s)}
    assert rows["j2"]["torque"].text == "0" and rows["j2"]["torque_t"].text == "-" and not rows["j2"]["torque_t"].key
    assert rows["j2"]["torque"].value == 1.75e-7  # summary.json keeps the computed value
    assert (rows["j1"]["torque"].text, rows["j1"]["torque_t"].text) == ("120", "0.5")
    assert rows["j3"]["torque"].text == "0.012"  # 1e-4 of the largest: a value, shown
    assert rows["j1"]["moment"].text == "0" and rows["j1"]["moment_t"].text == "-"  # an all-zero column
    # the floor is the stated fraction of the column's largest magnitude (nulls and infinities left out)
    col = noise_floored([number({"v": v}, ("v",)) for v in (-4.0, None, 3.9e-6, 4.1e-6)])
    assert [n.text for n in col] == ["-4", "-", "0", "4.1e-06"] and col[0].zero_below == NOISE_FRACTION * 4.0
    # the links' table: a link the loads do not reach
    links = {"a": {"max_von_mises_pa": 50e6, "max_deformation_m": 1e-3, "min_safety_factor": 5.0},
             "b": {"max_von_mises_pa": 20.0, "max_deformation_m": 2e-16, "min_safety_factor": None}}
    cells = {r["name"]: {c.key[-1]: c.text for c in r["cells"]} for r in link_rows({"links": links})}
    assert cells["b"] == {"max_von_mises_pa": "0", "max_deformation_m": "0", "min_safety_factor": "inf"}
    assert cells["a"]["max_von_mises_pa"] == "50"


def test_the_page_is_written_with_the_mode_of_every_other_result_file(tmp_path):
    import os
    import stat

    from structcheck.report.page import write_page

    old = os.umask(0o022)  # the usual umask: results files 0644
    try:
        page = write_page("<p>x</p>", tmp_path / "report.html")
        (tmp_path / "summary.json").write_text("{}")  # as results/schema.write_summary writes
    finally:
        os.umask(old)
    mode = stat.S_IMODE(page.stat().st_mode)
    assert mode == stat.S_IMODE((tmp_path / "summary.json").stat().st_mode) == 0o644, oct(mode)
    assert page.read_text() == "<p>x</p>" and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
