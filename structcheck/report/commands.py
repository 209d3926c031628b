"""The report's part of the command line: ``structcheck report RESULTS [-o FILE]`` (the run's page written again
from its folder) and ``compare --html FILE`` (:func:`structcheck.cli` calls these)."""
from __future__ import annotations

import argparse
from pathlib import Path


def add_report_command(sub, parents: list[argparse.ArgumentParser]) -> None:
    """The ``report`` subcommand, on the subparsers ``sub``."""
    r = sub.add_parser("report", parents=parents, help="write a results folder's report.html again",
                       description="Write the review page of a results folder (a run's --out): one self-contained "
                                   "HTML file that opens offline. The run writes it too, unless --no-report. --pdf "
                                   "prints it to PDF (Chromium's print, A4 landscape) for the archive.")
    r.add_argument("results", help="results folder (it holds summary.json)")
    r.add_argument("-o", "--out", metavar="FILE", help="the page to write (default RESULTS/report.html)")
    r.add_argument("--no-renders", action="store_true", help="without the static renders (faster)")
    r.add_argument("--pdf", nargs="?", const="", metavar="PDF",
                   help="also print the page to PDF for the archive (default RESULTS/report.pdf; needs Chromium and "
                        "the playwright package)")
    r.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from ..results import read_summary
    from .run_page import write_report

    s = read_summary(args.results)  # InputError (one line, exit 2) for a folder that is not a results folder
    if args.pdf is not None:
        from .pdf import chromium_path

        chromium_path()  # InputError before the page is written when there is no browser to print it
    if s.cases:  # a study of several load cases: its load-case page (each case's own is in cases/<case>/)
        from .cases_page import write_cases_report

        path = write_cases_report(args.results, args.out)
    else:
        path = write_report(args.results, args.out, renders=not args.no_renders)
    print(f"{s.study or 'report'}: {'PASSED' if s.passed else 'FAILED'}; report written to {path}")
    if args.pdf is not None:
        from .pdf import write_pdf

        pdf = write_pdf(path, args.pdf or Path(args.results) / "report.pdf")
        print(f"printed to {pdf}")
    return 0


def write_compare_html(args, cmp) -> None:
    """``compare --html FILE``: the comparison page, when asked for."""
    if args.html:
        from .compare_page import write_compare_report

        path = write_compare_report(args.baseline, args.candidate, args.html, cmp)
        print(f"comparison page written to {Path(path)}")
