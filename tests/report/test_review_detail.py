"""The review detail of a run's page in headless chromium (report.detail_page): boundary conditions and loads
drawn on each link with its mesh and quality, the hot spots, the fatigue detail at the governing node and the
damage field of the 3-D view - on a failing study's page (the tiny cantilever swung through 90 deg with 1000 N at
its tip, which fails both yield and fatigue) and on the headline's.

Every number on them is summary.json's (tagged, as in every table), the page makes no request outside itself, and
the figures' data are checked against references worked out here: the Goodman line of the Haigh diagram in
closed form from the curve's endurance limit and ultimate strength, and the largest cycle of a periodic history,
whose range and mean are the history's range and midrange (any rainflow count of a repeated history closes that
cycle), from fatigue.csv."""
from __future__ import annotations

import json

import numpy as np
import pytest

from browser_pages import open_page
from helpers import write_small_study
from test_report_run import check_numbers, expect_clean, plot_data, values

from structcheck.cli import main

FAILING = """
import dataclasses
from structcheck import Fatigue
study = dataclasses.replace(build(law="STEP(time,0,0,1,90d)", tip_force_n=1000.0), name="swinging_cantilever",
                            fatigue=Fatigue(cycles_per_hour=360, design_life_hours=80_000))
"""


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("review_detail")
    script = write_small_study(tmp)
    script.write_text(script.read_text() + FAILING)
    assert main(["run", str(script), "--out", str(tmp / "out"), "--quiet"]) == 1  # a failing design: exit 1
    return tmp / "out"


def review_keys(summary, link: str) -> set:
    """The keys the review sections tag for ``link``: its hot spots' numbers, its faces' forces, its mesh
    quality and, with fatigue, its S-N curve's parameters and fatigue safety factor."""
    keys = {("links", link, "hot_spots", k, q) for k in range(len(summary["links"][link]["hot_spots"]))
            for q in ("time_s", "von_mises_pa", "von_mises_averaged_pa", "stress_discontinuity",
                      "distance_to_joint_face_m")}
    keys |= {("links", link, "boundary_conditions", k, q) for k in
             range(len(summary["links"][link]["boundary_conditions"])) for q in ("max_force_n",)}
    keys |= {("inputs", "parts", link, q) for q in ("n_elements", "min_edge_m", "max_edge_m", "worst_shape_quality")}
    if summary["links"][link].get("fatigue_curve"):
        keys |= {("links", link, "fatigue_safety_factor"), ("fatigue", "surface_factor")}
    return keys


def test_failing_study_page_has_every_review_section(failing_run, browser):
    s = json.loads((failing_run / "summary.json").read_text())
    assert not s["passed"]
    opened = open_page(browser, failing_run / "report.html")
    expect_clean(opened)
    page = opened.page
    keys = check_numbers(page, s)
    assert review_keys(s, "beam") <= keys
    # boundary conditions and mesh: the figure decoded by the browser, a row per face (support and tip patch)
    sizes = page.eval_on_selector_all(".bc-figure img", "els => els.map(e => [e.naturalWidth, e.naturalHeight])")
    assert len(sizes) == 1 and sizes[0][0] > 500 and sizes[0][1] > 200, sizes
    faces = page.locator('.bc-table[data-link="beam"] tr th').all_inner_texts()
    assert faces[-2:] == ["joint1", "tip"]
    # hot spots: five, the first at the clamped face and flagged, the rest not
    flags = page.locator('.hotspot-table[data-link="beam"] tr td:last-child').all_inner_texts()
    assert len(flags) == 5 and flags[0].startswith("yes") and all(f == "no" for f in flags[1:])
    # the fatigue detail: the Haigh diagram's allowable line is Goodman's at the endurance limit (the design life,
    # 2.88e7 cycles, is beyond the curve's 1e6 cut-off), and its largest cycle is the history's range and midrange
    curve = s["inputs"]["parts"]["beam"]["sn_curves"]["material"]
    S_e, S_u = curve["endurance_limit_pa"] * 1e-6, curve["ultimate_strength_pa"] * 1e-6
    traces = [{k: values(v) if k != "name" else v for k, v in t.items()} for t in page.evaluate(
        """() => document.getElementById('fatigue-detail-beam').data.map(t => ({name: t.name, x: t.x, y: t.y}))""")]
    line = next(t for t in traces if t["name"] == "allowable")
    x = np.asarray(line["x"])
    np.testing.assert_allclose(line["y"], S_e * (1 - np.clip(x, 0, None) / S_u), rtol=1e-6, atol=1e-9)
    history = np.genfromtxt(failing_run / "fatigue.csv", delimiter=",", names=True)["beam_governing_stress_pa"]
    cycles = next(t for t in traces if t["name"] == "Haigh cycles")
    k = int(np.argmax(cycles["y"]))
    assert cycles["y"][k] == pytest.approx(np.ptp(history) / 2e6, rel=1e-9)
    assert cycles["x"][k] == pytest.approx((history.max() + history.min()) / 2e6, rel=1e-9)
    # the point is beyond the line: the node fails its design life, as summary.json says
    assert cycles["y"][k] > S_e * (1 - cycles["x"][k] / S_u) and not s["links"]["beam"]["fatigue_passed"]
    # the 3-D view's damage field: log10 of the damage per duty cycle, its top the summary's largest damage
    page.locator("#view3d-plot .updatemenu-button", has_text="fatigue damage").click()
    title = page.evaluate("() => document.getElementById('view3d-plot').layout.coloraxis.colorbar.title.text")
    assert title.startswith("fatigue damage per duty cycle")
    top = max(max(t["intensity"]) for t in plot_data(page, "view3d-plot"))
    assert top == pytest.approx(np.log10(s["links"]["beam"]["fatigue_damage_per_cycle"]), abs=1e-5)  # float32


def test_headline_page_has_every_review_section(paper004_run, browser, tmp_path):
    """The headline's page written without its pyvista renders (the other headline test writes them, figures of
    the links included, and holds the whole page within 15 MB): every link has its faces, hot spots and fatigue
    detail, every number summary.json's."""
    path = tmp_path / "report.html"
    assert main(["report", str(paper004_run.out), "-o", str(path), "--no-renders"]) == 0
    opened = open_page(browser, path)
    expect_clean(opened)
    s, page = paper004_run.summary, opened.page
    keys = check_numbers(page, s)
    for link in s["links"]:
        assert review_keys(s, link) <= keys, link
        assert page.locator(f'.bc-table[data-link="{link}"] tr').count() >= 2  # the header and the support
        assert page.locator(f'.hotspot-table[data-link="{link}"] tr').count() >= 2
    assert page.locator("#fatigue-detail .plotly-graph-div").count() == len(s["links"])
