"""Results of a run: with :mod:`structcheck.report` (the HTML pages), the only package that writes files (summary,
CSV, VTK for ParaView, plots, screenshot; a sweep's ``sweep.csv`` and ``sweep.png`` in
:mod:`structcheck.results.sweep`) and the comparison of two results folders."""
from .data import LinkResult, RunResult, link_result
from .files import prepare_output, write_results
from .load import Results, load
from .report import format_table
from .screenshot import write_screenshot
from .schema import RunSummary, read_summary, write_summary
from .tables import read_csv

__all__ = ["LinkResult", "Results", "RunResult", "RunSummary", "format_table", "load", "link_result", "prepare_output", "read_csv", "read_summary",
           "write_results", "write_screenshot", "write_summary"]
