"""structcheck.report.sweep_page, called directly on a sweep folder written by hand (sweep.csv, one variant's
summary.json and report.html; no study run): the table's rows are sweep.csv's rows in its order, each metric shown
in MPa or mm to 4 significant digits beside its SI value, a link only to a report that exists; the figure draws each
metric against each parameter, sorted along it, with the required safety factor of the variants' summaries."""
from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

from structcheck.report.sweep_page import SWEEP_METRICS, sweep_context, sweep_figure, write_sweep_report

HEADER = ("wall_mm,material,variant,status,verdict,max_von_mises_pa,min_safety_factor,max_deformation_m,"
          "tool_point_deflection_m,mass_kg,run_time_s,error")
# out of order along wall_mm on purpose; one failed variant; a variant name that needs escaping and quoting
ROWS = [("4", "steel", "w4 steel", "ok", "pass", 61.5e6, 4.0, 2.5e-4, "", 12.0, 3.25, ""),
        ("2", "steel", "w2 <i>steel</i>", "ok", "fail", 123456789.0, 1.2, 1.0e-3, "", 6.5, 2.0, ""),
        ("3", "alu", "w3 alu", "failed", "", "", "", "", "", "", "", "mesh & solver gave up")]


@pytest.fixture
def folder(tmp_path):
    f = tmp_path / "sweep"
    f.mkdir()
    (f / "sweep.csv").write_text("\n".join([HEADER, *(",".join(map(str, r)) for r in ROWS)]) + "\n")
    (f / "w4 steel").mkdir()
    (f / "w4 steel" / "report.html").write_text("<p>variant</p>")
    (f / "w4 steel" / "summary.json").write_text(json.dumps(
        {"study": "v", "passed": True, "required_safety_factor": 2.0, "links": {}}))
    return f


class Table(HTMLParser):
    """The rows of ``#sweep-table``: each row's variant, links, cell texts and metric cells' data-value."""

    def __init__(self, html):
        super().__init__()
        self.rows, self._in, self._cell = [], False, None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "sweep-table":
            self._in = True
        elif self._in and tag == "tr" and "data-variant" in a:
            self.rows.append({"variant": a["data-variant"], "cells": [], "values": {}, "href": None})
        elif self._in and self.rows and tag == "td":
            self._cell = ""
            if "data-column" in a:
                self.rows[-1]["values"][a["data-column"]] = a["data-value"]
        elif self._in and self.rows and tag == "a":
            self.rows[-1]["href"] = a["href"]

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = False
        elif tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def test_rows_are_the_csvs_in_order(folder):
    html = write_sweep_report(folder).read_text()
    rows = Table(html).rows
    assert [r["variant"] for r in rows] == [r[2] for r in ROWS]
    # variant, wall_mm, material, status, verdict, 5 metrics, run time, error
    assert rows[0]["cells"] == ["w4 steel", "4", "steel", "ok", "pass", "61.5", "4", "0.25", "-", "12", "3.25", ""]
    assert rows[1]["cells"][5:8] == ["123.5", "1.2", "1"]  # 123456789 Pa = 123.5 MPa, 1e-3 m = 1 mm
    assert rows[2]["cells"][3:6] == ["failed", "-", "-"] and rows[2]["cells"][-1] == "mesh & solver gave up"
    assert rows[1]["values"]["max_von_mises_pa"] == "123456789.0" and rows[0]["values"]["tool_point_deflection_m"] \
        == "null"
    # a link only where the variant's report exists, its path quoted
    assert [r["href"] for r in rows] == ["w4%20steel/report.html", None, None]
    assert "<i>steel" not in html and "w2 &lt;i&gt;steel&lt;/i&gt;" in html  # the name is text
    assert "mesh &amp; solver" in html


def test_context_reads_the_parameters_and_the_required_safety_factor(folder):
    c = sweep_context(folder)
    assert c["names"] == ["wall_mm", "material"] and c["folder"] == "sweep"
    assert c["required"] == 2.0  # from the variant's summary.json
    assert [r["report"] for r in c["rows"]] == ["w4 steel/report.html", None, None]
    assert c["rows"][0]["wall_mm"] == 4 and c["rows"][1]["max_von_mises_pa"] == 123456789.0
    assert c["figure"] is not None and 'id="sweep-plot"' in str(c["figure"])


def test_no_figure_when_nothing_ran(tmp_path):
    (tmp_path / "sweep.csv").write_text(HEADER + "\n" + "2,steel,w2,failed,,,,,,,,no mesh\n")
    c = sweep_context(tmp_path)
    assert c["figure"] is None and c["required"] is None and c["rows"][0]["error"] == "no mesh"


def row(wall, verdict, vm, sf, mass=None, material="steel", status="ok"):
    return {"variant": f"w{wall}{material}", "wall_mm": wall, "material": material, "status": status,
            "verdict": verdict, "max_von_mises_pa": vm, "min_safety_factor": sf, "max_deformation_m": 1e-3 * wall,
            "tool_point_deflection_m": None, "mass_kg": mass}


def test_figure_each_metric_against_each_parameter_sorted_along_it():
    rows = [row(4, "pass", 60e6, 4.0), row(2, "fail", 120e6, 1.2), row(3, "pass", 80e6, 3.0),
            row(9, None, None, None, status="failed")]
    fig = sweep_figure(rows, ["wall_mm"], 1.5)
    # metrics with a value in a variant that ran: stress, safety factor, deformation (no tool point, no mass)
    assert [t.name for t in fig.data] == ["variants"] * 3
    stress, sf, deformation = fig.data
    assert list(stress.x) == [2, 3, 4] and list(stress.y) == pytest.approx([120.0, 80.0, 60.0], rel=1e-12)  # MPa
    assert list(deformation.y) == pytest.approx([2.0, 3.0, 4.0], rel=1e-12)  # mm
    assert list(sf.y) == [1.2, 3.0, 4.0]
    assert list(stress.marker.symbol) == ["circle-open", "circle", "circle"]  # the failing variant open
    assert list(stress.text) == ["w2steel", "w3steel", "w4steel"]
    # the required safety factor: one dashed level, on the safety factor's panel (the second row) only
    lines = [s for s in fig.layout.shapes if s.line.dash == "dash"]
    assert len(lines) == 1 and lines[0].y0 == lines[0].y1 == 1.5 and lines[0].yref == "y2"
    assert [a.text for a in fig.layout.annotations if "required" in a.text] == ["required 1.5"]
    assert [t for _, t, _, _ in SWEEP_METRICS][:3] == ["peak von Mises", "min safety factor",
                                                     "largest link deformation"]


def test_a_line_per_combination_of_the_other_parameters():
    rows = [row(2, "pass", 100e6, 2.0), row(4, "pass", 50e6, 4.0), row(2, "pass", 300e6, 0.9, material="alu"),
            row(4, "pass", 150e6, 1.8, material="alu")]
    fig = sweep_figure(rows, ["wall_mm", "material"], None)
    panels = 3 * 2  # three metrics by two parameters
    assert not [s for s in fig.layout.shapes or () if s.line.dash == "dash"]  # no required factor: no level
    against_wall = fig.data[:2]  # stress against wall_mm: a line per material
    assert [t.name for t in against_wall] == ["material=steel", "material=alu"]
    assert list(against_wall[1].y) == pytest.approx([300.0, 150.0], rel=1e-12)
    against_material = fig.data[6:8]  # stress against material: a line per wall; x the material's position
    assert [t.name for t in against_material] == ["wall_mm=2", "wall_mm=4"]
    assert list(against_material[0].x) == [0, 1] and list(against_material[0].y) == pytest.approx([100.0, 300.0])
    assert len(fig.data) == 2 * panels and fig.layout.xaxis2.ticktext == ("steel", "alu")
