"""The report's sign-off block (project, revision, author, checker, date from ``Study.metadata``, recorded in
summary.json's ``inputs.settings.metadata.<field>``; an empty field a blank to fill in by hand on the printed page)
and, on the comparison page, the revision summary: the two runs' sign-off, the inputs that changed and the governing
numbers of each."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Mapping

from ..settings import SignOff
from . import view

FIELDS = tuple(f.name for f in fields(SignOff))


def signoff(s: Mapping) -> dict[str, str]:
    """Field -> text of the run's sign-off (``SignOff`` field order); '' where empty or not recorded (a folder
    written before structcheck recorded it)."""
    settings = (s.get("inputs") or {}).get("settings") or {}
    return {f: str((settings.get(f"metadata.{f}") or {}).get("value") or "") for f in FIELDS}


@dataclass(frozen=True)
class Governing:
    """One governing number of a run on the revision summary: ``label``, the text shown and the same for the other
    run (``baseline``, ``candidate``)."""

    label: str
    baseline: str
    candidate: str

    @property
    def changed(self) -> bool:
        return self.baseline != self.candidate


def _governing(s: Mapping) -> dict[str, str]:
    v = view.verdict(s)
    g = v.governing
    out = {"verdict": "PASSED" if v.passed else "FAILED",
           "governing check": "-" if g is None else f"{g.what}{' of link ' + g.link if g.link else ''}",
           "its utilisation": "-" if g is None else f"{100 * g.utilisation:.1f}%",
           "peak von Mises": f"{view.number(s, ('max_von_mises_pa',), view.MPA).text} MPa "
                             f"(link {s.get('max_von_mises_link')})"}
    factors = [L.get("min_safety_factor") for L in s.get("links", {}).values()]
    finite = [f for f in factors if f is not None]
    out["smallest safety factor"] = f"{min(finite):.3g}" if finite else "inf"
    if s.get("tool_point_deflection_m") is not None:
        out["tool-point deflection"] = f"{view.number(s, ('tool_point_deflection_m',), view.MM).text} mm"
    fatigue = s.get("fatigue") or {}
    if fatigue:
        life = fatigue.get("min_life_hours")
        out["shortest fatigue life"] = "infinite" if fatigue.get("min_life_cycles") is None else (
            f"{fatigue['min_life_cycles']:.3g} cycles" + (f" ({life:.3g} h)" if life is not None else ""))
    return out


def revision_summary(sb: Mapping, sc: Mapping, cmp) -> dict:
    """The revision summary of a comparison: each run's sign-off (``baseline``, ``candidate``: field -> text), the
    names of the inputs that changed apart from the sign-off (``inputs``; None: a run did not record its inputs) and
    the governing numbers of both (:class:`Governing` rows)."""
    gb, gc = _governing(sb), _governing(sc)
    rows = [Governing(k, gb.get(k, "-"), gc.get(k, "-")) for k in list(gb) + [k for k in gc if k not in gb]]
    inputs = None if cmp.unrecorded else [c.name for c in cmp.inputs if not c.name.startswith("settings.metadata.")]
    return {"baseline": signoff(sb), "candidate": signoff(sc), "inputs": inputs, "governing": rows}
