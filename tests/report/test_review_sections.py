"""The report's sections for a design review, in headless chromium on a passing and a failing run of the tiny
cantilever (tests/helpers.py): the sign-off block from Study.metadata, the assumptions generated from each run's
model, the joints' reactions for bearing and bolt sizing against the cantilever's closed form, every table within a
1280 px window, the comparison's revision summary, and the page printed to a PDF that opens."""
from __future__ import annotations

import json
import re

import pytest
from browser_pages import open_page
from helpers import SMALL_L, write_small_study
from test_report_run import check_numbers, expect_clean

from structcheck.cli import main

G = 9.81
STEEL_KG = 7850.0 * SMALL_L * 0.02 * 0.02  # the beam's mass: structural steel's density times its 0.4 x 20 x 20 mm


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two runs of the cantilever: 'pass' (arm model, gravity, revision B by A. Engineer) and 'fail' (per-link
    model, safety factor 10 required: it fails)."""
    root = tmp_path_factory.mktemp("review")
    script = write_small_study(root)
    out = {"pass": root / "pass", "fail": root / "fail"}
    assert main(["run", str(script), "--out", str(out["pass"]), "--quiet", "--no-vtk", "--set", f"gravity_z={-G}",
                 "--set", "metadata.revision=B", "--set", 'metadata.author="A. Engineer"']) == 0
    assert main(["run", str(script), "--out", str(out["fail"]), "--quiet", "--no-vtk", "--set",
                 "required_safety_factor=10", "--set", 'study.flexibility="link"', "--set", "metadata.revision=C",
                 "--set", 'metadata.project="Cantilever"']) == 1
    return {k: (v, json.loads((v / "summary.json").read_text())) for k, v in out.items()}


def fits_1280(page) -> list:
    """The tables (id or class) wider than their column of the page, or than the window, at 1280 px: none fits
    is the request; also the page itself must not scroll sideways."""
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 1280
    return page.evaluate("""() => Array.from(document.querySelectorAll('table')).filter(t => {
        const p = t.parentElement;
        return t.getBoundingClientRect().right > document.body.getBoundingClientRect().right + 0.5
            || p.scrollWidth > p.clientWidth + 0.5; }).map(t => t.id || t.className || t.outerHTML.slice(0, 60))""")


def rows(page, table: str, header: int = 1) -> dict[str, list[str]]:
    """First cell's text -> the other cells' texts of each row of table ``table`` below its ``header`` rows."""
    return dict(page.evaluate(f"""() => Array.from(document.querySelectorAll('#{table} tr')).slice({header}).map(
        r => [r.cells[0].innerText, Array.from(r.cells).slice(1).map(c => c.innerText)])"""))


@pytest.mark.parametrize("which", ["pass", "fail"])
def test_review_sections_on_a_passing_and_a_failing_page(runs, browser, which):
    folder, s = runs[which]
    opened = open_page(browser, folder / "report.html", width=1280)
    expect_clean(opened)
    page = opened.page
    keys = check_numbers(page, s)  # every tagged number is summary.json's (the reactions' too)
    assert fits_1280(page) == []
    assert page.locator(".banner").first.inner_text().startswith("PASSED" if which == "pass" else "FAILED")
    for section in ("signoff", "assumptions", "reactions"):
        assert page.locator(f"#{section}").is_visible(), section
    # the sign-off: what the study gave, blanks to fill in by hand for the rest
    signoff = rows(page, "signoff-table", header=0)
    given = {"pass": {"revision": "B", "author": "A. Engineer"}, "fail": {"revision": "C", "project": "Cantilever"}}
    assert {k: v[0] for k, v in signoff.items()} == {f: given[which].get(f, "") for f in
                                                     ("project", "revision", "author", "checker", "date")}
    blanks = page.eval_on_selector_all("#signoff-table tr", "rs => rs.map(r => [r.dataset.field, r.cells[1].className])")
    assert {f for f, c in blanks if c == "blank"} == {"project", "revision", "author", "checker", "date"} - set(
        given[which])
    # the reactions: joint1 along y holds the tip force P and the weight m g across its axis, the moment
    # P L + m g L / 2 about it, nothing along it or in tilt (the beam lies along x, the loads along -z)
    weight = STEEL_KG * G if which == "pass" else 0.0
    P = 100.0
    j = s["joints"]["joint1"]
    assert j["max_radial_force_n"] == pytest.approx(P + weight, rel=1e-3)  # the mesh's mass: exact for the box
    assert j["max_axis_moment_nm"] == pytest.approx(P * SMALL_L + weight * SMALL_L / 2, rel=1e-3)
    assert j["max_axial_force_n"] < 1e-9 * P and j["max_tilting_moment_nm"] < 1e-9 * P * SMALL_L
    assert {("joints", "joint1", k) for k in ("max_radial_force_n", "max_axis_moment_nm", "time_of_max_radial_force_s",
                                              "max_axial_force_n", "max_tilting_moment_nm")} <= keys
    cells = rows(page, "reactions-table")["joint1"]
    assert cells[0] == "0" and cells[1] == "-" and cells[4] == "0" and cells[5] == "-"  # axial, tilting: none
    assert float(cells[2]) == pytest.approx(P + weight, rel=5e-4)
    # the assumptions follow each run's model
    text = page.locator("#assumptions-table").inner_text()
    if which == "pass":
        assert "Arm model" in text and "Joints without stiffness, rigid in all six directions: joint1" in text
        assert "damping" in text and "quasi-static" in text  # the tiny study is quasi-static: no damping enters
        assert "coupled rigidly" in text and "clamped at their flanges" in text
    else:
        assert "Per-link model" in text and "Every joint is rigid" in text and "clamped at its proximal joint" in text
        assert "distributing coupling" in text
    assert "Contact, bolts and their preload" in text and "geometric linearity" in text


def test_revision_summary_of_a_comparison(runs, browser, tmp_path):
    """compare --html: both runs' sign-off, the inputs that changed (not the sign-off's) and the governing numbers."""
    (a, sa), (b, sb) = runs["pass"], runs["fail"]
    page_path = tmp_path / "cmp.html"
    main(["compare", str(a), str(b), "--html", str(page_path)])
    opened = open_page(browser, page_path, width=1280)
    expect_clean(opened)
    page = opened.page
    assert fits_1280(page) == []
    signoff = rows(page, "revision-signoff")
    assert signoff["revision"] == ["B", "C"] and signoff["author"] == ["A. Engineer", "-"]
    changed = page.locator("#revision-inputs").inner_text()
    for name in ("settings.flexibility", "settings.required_safety_factor", "settings.gravity"):
        assert name in changed
    assert "metadata" not in changed
    gov = rows(page, "revision-governing")
    assert gov["verdict"] == ["PASSED", "FAILED"]
    assert gov["peak von Mises"][0].startswith(f"{sa['max_von_mises_pa'] / 1e6:.4g} MPa")
    assert gov["peak von Mises"][1].startswith(f"{sb['max_von_mises_pa'] / 1e6:.4g} MPa")
    assert gov["smallest safety factor"] == [f"{s['links']['beam']['min_safety_factor']:.3g}" for s in (sa, sb)]
    assert gov["its utilisation"][1] == f"{100 * 10 / sb['links']['beam']['min_safety_factor']:.1f}%"


def pdf_pages(data: bytes) -> int:
    """The page count of a PDF, checked as a reader opens it: the header, the end marker, a cross-reference table
    at startxref whose every entry points at its object, and a page tree whose root /Count equals the page objects."""
    assert data.startswith(b"%PDF-1.") and data.rstrip().endswith(b"%%EOF")
    start = int(re.findall(rb"startxref\s+(\d+)", data)[-1])
    assert data[start:start + 4] == b"xref"
    first, count = map(int, re.match(rb"xref\s+(\d+)\s+(\d+)\s", data[start:]).groups())
    entries = re.findall(rb"(\d{10}) (\d{5}) ([nf])", data[start:start + 40 + 20 * count])[:count]
    for k, (offset, _, kind) in enumerate(entries):
        if kind == b"n":
            assert re.match(rb"%d 0 obj" % (first + k), data[int(offset):int(offset) + 20]), k
    pages = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", data))
    assert max(int(c) for c in re.findall(rb"/Count\s+(\d+)", data)) == pages
    return pages


def test_report_pdf_opens(runs, tmp_path, capsys):
    folder, s = runs["fail"]
    pdf = tmp_path / "archive" / "report.pdf"
    assert main(["report", str(folder), "-o", str(tmp_path / "page.html"), "--pdf", str(pdf), "--no-renders"]) == 0
    assert f"printed to {pdf}" in capsys.readouterr().out
    # the whole page on A4 landscape: more than a sheet, and not one sheet a table row (a runaway layout)
    assert 2 <= pdf_pages(pdf.read_bytes()) <= 40
    assert not list(pdf.parent.glob(".*.tmp"))


def test_pdf_parser_catches_a_broken_file(tmp_path):
    """The check above can fail: a PDF cut short is refused."""
    good = b"%PDF-1.4\n1 0 obj\n<< /Type /Pages /Count 1 >>\nendobj\n2 0 obj\n<< /Type /Page >>\nendobj\n"
    body = good + b"xref\n0 0\ntrailer\n<<>>\nstartxref\n%d\n%%%%EOF\n" % len(good)
    assert pdf_pages(body) == 1
    with pytest.raises(AssertionError):
        pdf_pages(body[:-20])


def test_pdf_without_chromium_is_an_input_error(runs, monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("STRUCTCHECK_CHROMIUM", raising=False)
    assert main(["report", str(runs["pass"][0]), "--pdf"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Chromium" in err
