"""The review page of a study of several load cases (its results folder's top-level report.html): the verdict over
the cases, the load-case matrix (cases x links: utilisation, the governing case marked), the envelope's links and
joints with the case each comes from, and a link to each case's own page (``cases/<case>/report.html``)."""
from __future__ import annotations

import os
from pathlib import Path

from ..results.cases_table import case_matrix
from ..results.schema import read_summary
from .page import render, write_page


def cases_context(folder: Path) -> dict:
    """What cases.html.j2 shows, from the folder's summary.json (a study with ``cases``)."""
    from .. import __version__

    s = read_summary(folder)
    rows = case_matrix(s)
    for r in rows:  # a case's own page, when it was written
        page = Path(r["folder"]) / "report.html"
        r["report"] = str(page) if (folder / page).is_file() else None
    links = [{"name": n, "case": L.governing_case, "utilisation": L.utilisation, "vm_mpa": L.max_von_mises_pa * 1e-6,
              "t": L.time_of_max_s, "sf": L.min_safety_factor, "passed": L.passed,
              "life": L.min_fatigue_life_cycles if L.has("min_fatigue_life_cycles") else "-"}
             for n, L in s.links.items()]
    joints = [{"name": n, "peaks": [(q, getattr(J, q), (J.governing_case or {}).get(q)) for q in
                                    ("max_reaction_force_n", "max_reaction_moment_nm", "max_abs_torque")
                                    if getattr(J, q) is not None]} for n, J in s.joints.items()]
    return dict(version=__version__, s=s, rows=rows, link_names=list(s.links), links=links, joints=joints)


def write_cases_report(folder: str | os.PathLike, out: str | os.PathLike | None = None) -> Path:
    """Write the load cases' page of the results folder ``folder`` to ``out`` (default ``folder/report.html``)."""
    folder = Path(folder)
    return write_page(render("cases.html.j2", **cases_context(folder)), folder / "report.html" if out is None else out)
