"""The run's review page (report.html) in headless chromium: it loads with no console error and no request
leaving the file, every tagged number equals summary.json, the 3-D view draws a coloured canvas whose fields
switch, the plots carry the summary's levels, and text from the study shows as text, never runs.

The headline (paper 004) page is written once from the shared run's folder by `structcheck report`; the template
study's page is the one its `structcheck run` wrote; the rest use the tiny cantilever study."""
from __future__ import annotations

import base64
import json
import re

import numpy as np

import pytest
from browser_pages import at, coloured_fraction, open_page, shown_numbers
from helpers import write_small_study

from structcheck.cli import main
from structcheck.report.figures import MAX_POINTS

MAX_HEADLINE_BYTES = 15e6  # the limit for the paper-004 page


def check_numbers(page, summary) -> set:
    """Every tagged number is summary.json's value at its key (exactly: repr in the page) and its text that value
    in the shown unit, rounded (at least 3 significant digits), or 0 where it is below its column's noise floor.
    Returns the keys seen."""
    rows = shown_numbers(page)
    for key, value, scale, text, zero_below in rows:
        expected = at(summary, key)
        assert value == expected, key
        if value is None:
            assert text in ("-", "inf"), (key, text)
        elif text == "0" and value != 0:
            assert abs(value) < zero_below, (key, value, zero_below)
        else:
            assert float(text) == pytest.approx(value * scale, rel=5e-3), (key, text)
    return {tuple(k) for k, *_ in rows}


def review_sections(page, s) -> None:
    """The sections a design review signs are on the page, the reactions of every joint tagged with their keys (their
    values checked by check_numbers), and every table fits the 1280 px window (tests/report/test_review_sections.py
    checks them against closed forms)."""
    from test_review_sections import fits_1280

    for section in ("signoff", "assumptions", "reactions"):
        assert page.locator(f"#{section}").is_visible(), section
    tagged = set(json.dumps(k) for k in page.eval_on_selector_all("#reactions-table .num[data-key]",
                                                                   "els => els.map(e => JSON.parse(e.dataset.key))"))
    for joint in s["joints"]:
        assert json.dumps(["joints", joint, "max_tilting_moment_nm"]) in tagged, joint
    assert fits_1280(page) == []


def expect_clean(opened) -> None:
    assert opened.errors == [], opened.errors
    assert opened.outside == [], opened.outside


def plot_data(page, div_id: str) -> list[dict]:
    """name, y and intensity (lists of numbers, or None) of each trace of the plotly figure in ``div_id``."""
    traces = page.evaluate(f"""() => document.getElementById({div_id!r}).data.map(
        t => ({{name: t.name, y: t.y === undefined ? null : t.y,
               intensity: t.intensity === undefined ? null : t.intensity}}))""")
    return [{k: values(v) if k != "name" else v for k, v in t.items()} for t in traces]


def values(v):
    """A trace's array as a list: JSON lists as they are, plotly's typed arrays ({dtype, bdata}) decoded."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"])).tolist()
    return v


def figure_ids(page) -> dict[str, str]:
    """Plot title -> div id of every figure in the Plots section."""
    return dict(page.evaluate("""() => Array.from(document.querySelectorAll('#plots .plotly-graph-div')).map(
        d => [d.layout.title.text, d.id])"""))


def test_headline_report_is_self_contained_and_its_numbers_are_the_summarys(paper004_run, browser, tmp_path):
    path = tmp_path / "report.html"
    assert main(["report", str(paper004_run.out), "-o", str(path)]) == 0
    assert path.stat().st_size < MAX_HEADLINE_BYTES
    opened = open_page(browser, path, width=1280)
    expect_clean(opened)
    s, page = paper004_run.summary, opened.page
    keys = check_numbers(page, s)
    review_sections(page, s)
    for link in s["links"]:
        assert {("links", link, k) for k in ("max_von_mises_pa", "min_safety_factor", "max_deformation_m",
                                              "fatigue_safety_factor")} <= keys
    for joint in s["joints"]:
        assert ("joints", joint, "max_reaction_force_n") in keys and ("joints", joint, "max_abs_torque") in keys
    banner = page.locator(".banner").first.inner_text()
    assert ("PASSED" if s["passed"] else "FAILED") in banner
    # the stress check governs paper 004 (every fatigue safety factor is far larger): the link of least margin
    worst = min(s["links"], key=lambda n: s["links"][n]["min_safety_factor"])
    assert f"stress safety factor of link {worst}" in banner
    # the fatigue-governing history of every link (fatigue.csv), on the analysis grid
    title = "Fatigue-governing stress history at each link's governing node (one duty cycle)"
    fatigue = plot_data(page, figure_ids(page)[title])
    assert len(fatigue) == len(s["links"])
    # drawn through each bucket's extremes of the analysis grid's samples (report.figures.min_max_points): every
    # history's largest and smallest stress are on the page, as fatigue.csv holds them (float32 on the page)
    assert all(len(t["y"]) == min(s["analysis"]["n_time_samples"], MAX_POINTS) for t in fatigue)
    histories = np.genfromtxt(paper004_run.out / "fatigue.csv", delimiter=",", names=True)
    for trace, link in zip(fatigue, s["links"]):
        y = histories[f"{link}_governing_stress_pa"] / 1e6
        assert max(trace["y"]) == pytest.approx(y.max(), rel=1e-6) and min(trace["y"]) == pytest.approx(y.min(),
                                                                                                        rel=1e-6)
    assert coloured_fraction(page, "#view3d-plot") > 0.01


@pytest.mark.xdist_group("template")  # on the worker that has made the template run
def test_template_report_written_by_the_run(template_run, browser):
    folder = template_run / "results" / "arm"
    s = json.loads((folder / "summary.json").read_text())
    opened = open_page(browser, folder / "report.html", width=1280)
    expect_clean(opened)
    page = opened.page
    keys = check_numbers(page, s)
    review_sections(page, s)
    assert {("links", n, "max_von_mises_averaged_pa") for n in s["links"]} <= keys
    assert {("arm_modes_hz", k) for k in range(len(s["arm_modes_hz"]))} <= keys
    # the warnings in full (the console shortens them), one box each, grouped by the link they are about
    groups: dict = {}
    for w in s["warnings"]:
        groups.setdefault(re.match(r"(link '[^']*')?", w).group(0), []).append(w)
    assert page.locator(".warn").all_inner_texts() == sum(groups.values(), [])
    # the two static renders for printing, decoded by the browser (a quick look's page goes without them)
    sizes = page.eval_on_selector_all(".renders img", "els => els.map(e => [e.naturalWidth, e.naturalHeight])")
    assert len(sizes) == 2 and all(w > 100 and h > 100 for w, h in sizes), sizes
    # no button that sends a figure out (plotly's "Share chart" to its cloud)
    tools = page.eval_on_selector_all(".modebar-btn", "els => els.map(e => e.getAttribute('data-title'))")
    assert "Download plot as a PNG" in tools and not any("Share" in t for t in tools)
    figs = figure_ids(page)
    # each link's stress panel carries its strength and the allowable stress strength / required SF [MPa]
    stress = plot_data(page, figs["Peak stress of each link over time (log scale)"])
    yields = [L["yield_strength_pa"] * 1e-6 for L in s["links"].values()]
    assert [t["y"][0] for t in stress if t["name"] == "strength"] == pytest.approx(yields)
    assert [t["y"][0] for t in stress if t["name"] == "allowable"] == \
        pytest.approx([y / s["required_safety_factor"] for y in yields])
    # the arm's first frequency along the motion is lowest where the summary says (float32 on the page)
    freq = plot_data(page, figs["Arm frequencies along the motion (one point per frozen pose)"])
    assert min(freq[0]["y"]) == pytest.approx(s["arm_modes_hz"][0], rel=1e-6)
    # the 3-D view: drawn, and the envelope button shows the envelope, whose top is the robot's peak [MPa]
    assert coloured_fraction(page, "#view3d-plot") > 0.01
    page.locator("#view3d-plot .updatemenu-button", has_text="von Mises envelope").click()
    title = page.evaluate("() => document.getElementById('view3d-plot').layout.coloraxis.colorbar.title.text")
    assert title.startswith("von Mises envelope")
    top = max(max(t["intensity"]) for t in plot_data(page, "view3d-plot"))
    assert top == pytest.approx(s["max_von_mises_pa"] * 1e-6, rel=1e-7)  # float32 on the page
    # the arm's modes: a button per frequency of summary.json, and the shape switches with it
    labels = page.locator("#modes-plot .updatemenu-button").all_text_contents()
    assert labels == [f"mode {k + 1}: {f:.4g} Hz" for k, f in enumerate(s["arm_modes_hz"])]
    first = plot_data(page, "modes-plot")[0]["intensity"]
    page.locator("#modes-plot .updatemenu-button").nth(2).click()
    third = plot_data(page, "modes-plot")[0]["intensity"]
    assert max(max(t["intensity"]) for t in plot_data(page, "modes-plot")) == pytest.approx(1.0, abs=1e-3)
    assert len(third) == len(first) and third != first


HOSTILE = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">'


def test_study_text_shows_as_text_and_never_runs(tmp_path, browser):
    script = write_small_study(tmp_path)
    script.write_text(script.read_text() + f"""
import dataclasses
study = dataclasses.replace(build(), description={HOSTILE!r}, parameters={{"note": {HOSTILE!r}}})
""")
    out = tmp_path / "out"
    assert main(["run", str(script), "--out", str(out), "--quiet", "--no-vtk"]) == 0
    opened = open_page(browser, out / "report.html")
    expect_clean(opened)  # the img would have asked for the file x
    page = opened.page
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("#description").inner_text() == HOSTILE
    assert HOSTILE in page.locator("#inputs").inner_text()


def test_inputs_section_shows_the_study_as_it_ran(tmp_path, browser):
    """The Inputs of a run with --set values: every number is summary.json's (tagged, as in every table), joint1's
    spring is the value given on the command line and says so, the steel's constants are the library's (ANSYS
    'Structural Steel': E 200 GPa, nu 0.3, 7850 kg/m^3, yield 250 MPa), the mesh's longest edge the diagonal of its
    10 x 12.5 x 12.5 mm boxes, and the command that reruns the folder is there."""
    out = tmp_path / "out"
    assert main(["run", str(write_small_study(tmp_path)), "--out", str(out), "--quiet", "--no-vtk", "--set",
                 "side_mm=25", "--set", 'arm.joint_stiffness={"joint1": 20000}']) == 0
    s = json.loads((out / "summary.json").read_text())
    opened = open_page(browser, out / "report.html")
    expect_clean(opened)
    page = opened.page
    keys = check_numbers(page, s)
    part = ("inputs", "parts", "beam")
    assert {("inputs", "joints", "joint1", "torsional_stiffness_nm_per_rad"), (*part, "youngs_modulus_pa"),
            (*part, "tensile_strength_pa"), (*part, "max_edge_m"), (*part, "worst_shape_quality"),
            (*part, "sn_curves", "material", "endurance_limit_pa")} <= keys
    joint = page.locator('#input-joints tr[data-joint="joint1"] td').all_inner_texts()
    assert joint[0] == "spring" and float(joint[1]) == 20000 and joint[-1] == "--set"
    row = page.locator('#input-settings tr[data-setting="arm.joint_stiffness"] td').all_inner_texts()
    assert json.loads(row[0]) == {"joint1": 20000} and row[1] == "--set"
    assert page.locator('#input-settings tr[data-setting="damping_ratio"] td').all_inner_texts() == ["0.02", "default"]
    assert page.locator('#input-build tr[data-source="--set"] th').all_inner_texts() == ["side_mm"]
    steel = page.locator('#input-materials tr[data-link="beam"] td').all_inner_texts()
    assert steel[:7] == ["structural_steel", "von_mises", "7850", "200", "0.3", "250", "460"]
    mesh = page.locator('#input-meshes tr[data-link="beam"] td').all_inner_texts()
    assert mesh[1] == "960" and float(mesh[3]) == pytest.approx(float(np.hypot(10, np.hypot(12.5, 12.5))), rel=1e-3)
    assert "structcheck rerun RESULTS" in page.locator("#input-script").inner_text()


def test_the_browser_check_catches_a_request_and_an_error(tmp_path, browser):
    """The checks above can fail: a page that asks for an image elsewhere and throws is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><img src="http://127.0.0.1:9/x.png"><script>null.x</script></body></html>')
    opened = open_page(browser, bad)
    assert opened.outside == ["http://127.0.0.1:9/x.png"] and len(opened.errors) >= 1


def test_no_report_and_bad_folders(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", str(write_small_study(tmp_path)), "--out", str(out), "--quiet", "--no-vtk",
                 "--no-report"]) == 0
    assert (out / "summary.json").is_file() and not (out / "report.html").exists()
    capsys.readouterr()
    for folder, says in ((tmp_path / "missing", "does not exist"), (tmp_path, "not a structcheck results folder")):
        assert main(["report", str(folder)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and says in err
    assert main(["report", str(out), "-o", str(tmp_path / "again.html")]) == 0
    assert (tmp_path / "again.html").stat().st_size > 1e6
