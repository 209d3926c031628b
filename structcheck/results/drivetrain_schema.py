"""The drives a run checked (``drivetrain`` in summary.json), as typed entries: per joint its reducer, bearing, motor
and brake, the stiffness it gave the arm model and every check with its value, limit and utilisation
(:mod:`structcheck.drives.study`); listed in docs/summary.md with the rest of the summary."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .entries import NESTING, _Entry, entry


@dataclass(frozen=True)
class DriveCheckSummary(_Entry):
    """One drivetrain check (``drivetrain.<joint>.checks.<check>``), most utilised first."""

    check: str = entry("-", "what is checked (e.g. 'reducer repeated peak torque')")
    part: str = entry("-", "the part and its catalogue name (e.g. 'reducer RV-80E')")
    value: float | None = entry("unit", "the duty's value (null: not checked)")
    limit: float | None = entry("unit", "its limit (a floor when at_least)")
    unit: str = entry("-", "unit of value and limit")
    utilisation: float | None = entry("", "value / limit (limit / value when at_least); <= 1 passes (null: not "
                                          "checked)")
    passed: bool | None = entry("-", "the check passes (null: not checked, note says why)")
    at_least: bool = entry("-", "the value must reach the limit (a life, a safety factor)", default=False)
    formula: str = entry("-", "the equation used")
    source: str = entry("-", "where the formula and limit come from")
    note: str = entry("-", "why a check was not made, or a remark", default="")
    case: str | None = entry("-", "a study of several load cases: the case that governs the check ('the duty cases "
                                  "by their shares' for an average over them); absent in a run of one case and for "
                                  "the brake (its note names the case that holds the most)", present_with="case")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class JointDriveSummary(_Entry):
    """One joint's drive (``drivetrain.<joint>``)."""

    reducer: str = entry("-", "reducer catalogue name")
    bearing: str | None = entry("-", "output bearing catalogue name (null: none)")
    motor: str | None = entry("-", "motor catalogue name (null: none)")
    brake: str | None = entry("-", "brake catalogue name (null: none)")
    ratio: float | None = entry("", "reducer ratio (null: not in its entry)")
    passed: bool = entry("-", "every made check passes")
    max_utilisation: float | None = entry("", "the highest utilisation of the made checks")
    governing_check: str | None = entry("-", "the check with it")
    not_checked: int = entry("", "checks not made (a datasheet value missing; each says which)")
    stiffness_nm_per_rad: float | None = entry("N m/rad", "the torsional stiffness this drive gave the arm model "
                                                          "(null: none, see stiffness_note)")
    tilt_stiffness_nm_per_rad: float | None = entry("N m/rad", "the tilt stiffness (about the two axes normal to "
                                                               "the joint's) this drive's output bearing gave the "
                                                               "arm model (null: rigid in tilt)")
    stiffness_note: str = entry("-", "how it was chosen: the linearisation and load level, or why none (an "
                                     "explicit arm.joint_stiffness wins)")
    max_motor_torque_nm: float | None = entry("N m", "largest |motor-side torque| (null: no motor or no ratio "
                                                     "and efficiency)")
    max_motor_speed_rpm: float | None = entry("rpm", "largest |motor-side speed| (null: no ratio)")
    checks: dict = entry("-", "'<check> (<part>)' -> DriveCheckSummary: every check, most utilised first, then those "
                              "not made", default=None)
    extra: dict = field(default_factory=dict)


#: the entries of this module in docs/summary.md's order, with where each sits
ENTRIES = ((JointDriveSummary, "drivetrain.&lt;joint&gt;"),
           (DriveCheckSummary, "drivetrain.&lt;joint&gt;.checks.&lt;check&gt;"))

NESTING[JointDriveSummary] = {"checks": (dict, DriveCheckSummary)}


def _finite(x):
    return None if x is None or not math.isfinite(x) else float(x)


def _check(c) -> DriveCheckSummary:
    return DriveCheckSummary(check=c.check, part=c.part, value=_finite(c.value), limit=_finite(c.limit), unit=c.unit,
                             utilisation=_finite(c.utilisation), passed=c.passed, at_least=c.at_least,
                             formula=c.formula, source=c.source, note=c.note, case=c.case or None)


def check_keys(checks) -> list[str]:
    """The summary's key of each check, "<check> (<part>)", with " in case '<case>'" where that repeats: a study with
    two accidental cases checks each one's momentary peak torque, and keyed alike the second hid the first (the
    signed-off headline's summary showed the worst pose's 19 N m on joint2's reducer, not the stop's 343 N m)."""
    keys = [f"{c.check} ({c.part})" for c in checks]
    return [f"{k} in case {c.case!r}" if keys.count(k) > 1 else k for k, c in zip(keys, checks)]


def drivetrain_summary(drives) -> dict | None:
    """``{joint: JointDriveSummary}`` of :func:`structcheck.drives.study.study_drives`'s result (None: no drives),
    the joints most utilised first."""
    if not drives:
        return None
    out = {}
    for joint, d in drives.items():
        made = sorted((c for c in d.checks if c.passed is not None), key=lambda c: -c.utilisation)
        checks = made + [c for c in d.checks if c.passed is None]
        p = d.drive.parts
        out[joint] = JointDriveSummary(
            reducer=p["reducer"].name, bearing=p["bearing"] and p["bearing"].name,
            motor=p["motor"] and p["motor"].name, brake=p["brake"] and p["brake"].name, ratio=p["reducer"].ratio,
            passed=all(c.passed for c in made), max_utilisation=_finite(made[0].utilisation) if made else None,
            governing_check=f"{made[0].check} ({made[0].part})" if made else None,
            not_checked=len(checks) - len(made), stiffness_nm_per_rad=d.stiffness_nm_per_rad,
            tilt_stiffness_nm_per_rad=d.tilt_stiffness_nm_per_rad,
            stiffness_note=d.stiffness_note,
            max_motor_torque_nm=None if d.motor_torque_nm is None else float(abs(d.motor_torque_nm).max()),
            max_motor_speed_rpm=None if d.motor_speed_rpm is None else float(abs(d.motor_speed_rpm).max()),
            checks=dict(zip(check_keys(checks), map(_check, checks))))
    return dict(sorted(out.items(), key=lambda kv: -(kv[1].max_utilisation or 0.0)))
