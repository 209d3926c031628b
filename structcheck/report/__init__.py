"""Review pages a designer sends: one self-contained HTML file per run (``report.html``), per comparison of two
runs (``structcheck compare A B --html FILE``) and per sweep (``sweep.html``), readable offline in a browser.

Built with Jinja2 (templates/, autoescaped) and plotly (plotly.js inline once per page, a ``Mesh3d`` 3-D view);
the numbers come from summary.json through :mod:`structcheck.report.view`.
"""
from .compare_page import write_compare_report
from .run_page import write_report
from .sweep_page import write_sweep_report

__all__ = ["write_compare_report", "write_report", "write_sweep_report"]
