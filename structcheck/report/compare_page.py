"""The comparison page of two results folders (``structcheck compare A B --html FILE``): both verdicts, every
compared number with its relative change, largest first, flagged against the tolerance, and both 3-D views
side by side."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

from . import view
from .page import figure_html, render, write_page
from .signoff import revision_summary
from .view3d import peak_frame, robot_view


@dataclass(frozen=True)
class ChangeRow:
    """One compared number: link, label, unit, the two values shown and the change [%] (None: one side is
    infinite, shown as 'inf'), whether it regressed beyond the tolerance."""

    link: str
    label: str
    unit: str
    baseline: str
    candidate: str
    change_pct: float | None
    regressed: bool

    @property
    def order(self) -> float:
        """The sort key: relative change, largest first (a value becoming or ceasing to be infinite counts as the
        largest change)."""
        if self.change_pct is None:
            return math.inf if self.baseline != self.candidate else 0.0
        return abs(self.change_pct)


def change_rows(cmp) -> list[ChangeRow]:
    """The deltas of a :class:`structcheck.results.compare.Comparison`, largest relative change first."""
    def shown(v, scale):
        return "inf" if v is None else f"{v * scale:.6g}"

    rows = [ChangeRow(d.link, d.label, d.unit, shown(d.baseline, d.scale), shown(d.candidate, d.scale),
                      d.change_pct, d.regressed) for d in cmp.deltas]
    return sorted(rows, key=lambda r: -r.order)


def compare_context(baseline: Path, candidate: Path, cmp) -> dict:
    from .. import __version__
    from ..results import load

    runs = []
    for role, folder in (("baseline", baseline), ("candidate", candidate)):
        res = load(folder)
        s = view.as_mapping(res.summary)
        peak = peak_frame(res)
        fig = robot_view(res, peak[1]) if peak else None
        if fig is not None:
            fig.update_layout(height=520)
        runs.append({"role": role, "folder": str(folder), "s": s, "verdict": view.verdict(s),
                     "view": figure_html(fig, f"view3d-{role}") if fig is not None else None})
    rows = change_rows(cmp)
    return dict(version=__version__, runs=runs, changed=[r for r in rows if r.order > 0],
                unchanged=[r for r in rows if r.order == 0], cmp=cmp,
                revision=revision_summary(runs[0]["s"], runs[1]["s"], cmp))


def write_compare_report(baseline: str | os.PathLike, candidate: str | os.PathLike, out: str | os.PathLike,
                         cmp=None, tolerance_pct: float = 1.0, allow_quick: bool = False) -> Path:
    """Write the comparison page of results folders ``baseline`` and ``candidate`` to ``out``; ``cmp`` their
    :func:`structcheck.results.compare.compare` (computed here with ``tolerance_pct`` and ``allow_quick`` when
    None). Returns the page's path."""
    from ..results.compare import compare

    if cmp is None:
        cmp = compare(str(baseline), str(candidate), tolerance_pct, allow_quick=allow_quick)
    html = render("compare.html.j2", **compare_context(Path(baseline), Path(candidate), cmp))
    return write_page(html, out)
