"""The comparison page (`compare A B --html`) and the sweep page (sweep.html) in headless chromium.

The tiny cantilever is linear elastic and quasi-static, so 1.5 times its tip force gives 1.5 times every stress,
strain and deflection (+50%) and 1/1.5 of its safety factor (-33.3%), with the mass unchanged: the order the page
must list them in is known without running anything."""
from __future__ import annotations

import concurrent.futures as cf

import pytest
from browser_pages import coloured_fraction, open_page
from helpers import write_small_study

from structcheck.cli import main
from structcheck.results.sweep import read_sweep_csv
from structcheck.sweep import sweep


def test_compare_page_orders_changes_largest_first_and_shows_both_views(tmp_path, browser):
    study = write_small_study(tmp_path)
    runs = {}
    for name, force in (("base", 100.0), ("heavier", 150.0)):
        runs[name] = tmp_path / name
        assert main(["run", str(study), "--out", str(runs[name]), "--quiet", "--no-report", "--set",
                     f"tip_force_n={force}"]) == 0
    page_path = tmp_path / "compare.html"
    assert main(["compare", str(runs["base"]), str(runs["heavier"]), "--html", str(page_path)]) == 1  # regresses
    opened = open_page(browser, page_path)
    assert opened.errors == [] and opened.outside == []
    page = opened.page
    rows = page.eval_on_selector_all("#changes tr.change", "els => els.map(e => [Number(e.dataset.order), "
                                     "e.children[1].textContent, e.children[5].textContent])")
    order = [r[0] for r in rows]
    assert order == sorted(order, reverse=True)
    scaled = [r for r in rows if r[0] == pytest.approx(50.0, rel=1e-6)]  # stress, strain, deformation, deflection
    assert {r[1].split(" [")[0] for r in scaled} >= {"max von Mises", "max strain", "max deformation",
                                                      "tool-point deflection"}
    assert all(r[2] == "REGRESSED" for r in scaled)
    assert rows[len(scaled)][1] == "min safety factor" and rows[len(scaled)][0] == pytest.approx(100 / 3, rel=1e-6)
    assert rows[len(scaled) + 1:] == []  # the mass did not change: listed apart as unchanged
    assert "mass" in page.locator("details").text_content()
    assert page.locator("#comparison-verdict").inner_text().startswith("NOT OK")
    for role in ("baseline", "candidate"):
        assert coloured_fraction(page, f"#view3d-{role}") > 0.01


def test_sweep_page_links_every_variant_report_and_draws_the_required_safety_factor(tmp_path, browser):
    study = write_small_study(tmp_path)
    with cf.ThreadPoolExecutor(1) as ex:
        res = sweep(study, {"tip_force_n": [100, 2000.0]}, tmp_path / "out", ex, progress=False, plots=False)
    assert res.html == res.out / "sweep.html"
    opened = open_page(browser, res.html)
    assert opened.errors == [] and opened.outside == []
    page = opened.page
    links = page.eval_on_selector_all("#sweep-table a", "els => els.map(e => e.getAttribute('href'))")
    rows = read_sweep_csv(res.csv)
    assert links == [f"{r['variant']}/report.html".replace("=", "%3D") for r in rows]
    assert all((res.out / r["variant"] / "report.html").is_file() for r in rows)
    cells = page.eval_on_selector_all("#sweep-table td[data-column]",
                                      "els => els.map(e => [e.parentElement.dataset.variant, e.dataset.column, "
                                      "e.dataset.value])")
    by_variant = {r["variant"]: r for r in rows}
    assert len(cells) == 5 * len(rows)
    for variant, column, value in cells:
        assert (None if value == "null" else float(value)) == by_variant[variant][column]
    # the required safety factor (the study's 1.5) drawn across the safety-factor panel
    levels = page.evaluate("() => document.getElementById('sweep-plot').layout.shapes.map(s => s.y0)")
    assert levels == [1.5]
