"""One drivetrain check's result: the value, its limit, the utilisation, the verdict, the formula and its source.

A check that cannot be made because a catalogue entry lacks a datasheet value is kept in the list with
``passed = None`` and says which field is missing, so a reader sees what was not checked instead of a silent pass.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class CheckResult:
    """A drivetrain check. ``value`` and ``limit`` in ``unit``; ``at_least``: the value must reach the limit (a life,
    a safety factor, an allowed count) rather than stay under it. ``utilisation`` = value / limit (limit / value
    when ``at_least``): <= 1 passes. ``passed`` None: not checked (``note`` says why). ``formula`` the equation
    used, ``source`` where it comes from (document, page). ``case``: in a study of several load cases, the case
    that governs the check (:mod:`structcheck.drives.envelope`); '' in a run of one."""

    check: str
    part: str
    value: float | None
    limit: float | None
    unit: str
    utilisation: float | None
    passed: bool | None
    formula: str
    source: str
    at_least: bool = False
    note: str = ""
    case: str = ""

    @property
    def checked(self) -> bool:
        return self.passed is not None

    def line(self) -> str:
        """One line for a log or a table: ``reducer average torque (reducer RV-80E): 512 <= 784 N m, 0.65, pass``."""
        if self.passed is None:
            return f"{self.check} ({self.part}): {self.note}"
        op = ">=" if self.at_least else "<="
        verdict = "pass" if self.passed else "FAIL"
        unit = "" if self.unit in ("", "-") else f" {self.unit}"
        return (f"{self.check} ({self.part}): {self.value:.4g} {op} {self.limit:.4g}{unit}, "
                f"utilisation {self.utilisation:.3g}, {verdict}")


def compare(check: str, part: str, value: float, limit: float, unit: str, formula: str, source: str, *,
            at_least: bool = False, note: str = "") -> CheckResult:
    """A made check: utilisation value / limit (limit / value if ``at_least``; an infinite life or count gives 0)."""
    value, limit = float(value), float(limit)
    if at_least:
        utilisation = 0.0 if math.isinf(value) else (math.inf if value <= 0 else limit / value)
    else:
        utilisation = value / limit
    return CheckResult(check, part, value, limit, unit, utilisation, utilisation <= 1.0, formula, source, at_least,
                       note)


def not_checked(check: str, part: str, entry: str, *fields: str, formula: str = "", source: str = "") -> CheckResult:
    """A check left undone: ``not checked: <field> missing from catalogue entry <entry>``."""
    missing = ", ".join(fields)
    return CheckResult(check, part, None, None, "", None, None, formula, source,
                       note=f"not checked: {missing} missing from catalogue entry {entry}")


def missing_fields(entry, *fields: str) -> list[str]:
    """The names among ``fields`` whose value on ``entry`` is None."""
    return [f for f in fields if getattr(entry, f) is None]


def governing(results) -> CheckResult | None:
    """The made check with the highest utilisation (None when none was made)."""
    made = [r for r in results if r.passed is not None]
    return max(made, key=lambda r: r.utilisation) if made else None
