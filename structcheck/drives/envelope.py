"""A study's drives over its load cases (``Study.cases``): every joint's drive checked over the cases together, each
check named with the case that governs it, and each case's own share of the checks.

Each case's run checks its drives as if that case were the whole duty (its own folder, ``cases/<case>/``). Over the
cases (:func:`drive_envelope`, from each case's run):

- **averages** (reducer average torque, life and average input speed, bearing L10 life, motor RMS torque): over the
  duty cases by their shares (:func:`~structcheck.drives.loadcases.case_drive_checks`); no one case governs them
  (``case`` = :data:`BY_SHARES`);
- **peaks of the duty** (:data:`PEAK_CHECKS`: repeated peak torque, maximum input speed, motor peak torque and
  speed, bearing static safety factor and tilting moment): the largest over the duty cases, governed by the duty
  case of highest utilisation; the bearing's static safety factor and tilting moment over every case, accidental
  ones too (:data:`EVERY_CASE_CHECKS`);
- **accidental cases** (an emergency stop): each one's largest torque against the momentary peak torque and, when
  the case gives its ``count``, the count the reducer's rule allows
  (:func:`~structcheck.drives.loadcases.accidental_checks`);
- **brake**: against the largest static holding torque of the cases (the worst static pose over the joint ranges,
  the same for every case, and each case's own poses at rest), its note naming the case that holds the most.

A case's own section (:attr:`DriveEnvelope.cases`) holds the checks of that case alone: a duty case's peaks (its own
run's), an accidental case's momentary peak, count, bearing static safety factor and tilting moment. A failed check
of a case's section is that case's failure; a failed average or brake check is the envelope's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import numpy as np

from ..cases.case import CaseRole
from ..errors import InputError
from .loadcases import DriveCase, accidental_checks, case_drive_checks
from .result import CheckResult
from .study import JointDrive

#: the ``case`` of a check averaged over the duty cases by their shares (no one case governs it)
BY_SHARES = "the duty cases by their shares"
#: the checks of a peak over the duty: the largest over the duty cases, governed by one of them
PEAK_CHECKS = frozenset({"reducer repeated peak torque", "reducer maximum input speed", "motor peak torque",
                         "motor speed", "bearing static safety factor", "bearing tilting moment"})
#: the peaks checked over every case, accidental ones too
EVERY_CASE_CHECKS = frozenset({"bearing static safety factor", "bearing tilting moment"})


@dataclass(frozen=True)
class CaseDrives:
    """One case as run: its ``name``, ``role`` (:class:`CaseRole` or its value), ``share`` of the duty cycles (a
    duty case's; 0 or None for an accidental one), ``count`` over the life (an accidental case's; None: not
    given) and its run's ``drives`` (joint -> :class:`JointDrive`)."""

    name: str
    role: CaseRole
    share: float | None
    count: float | None
    drives: Mapping[str, JointDrive]

    def __post_init__(self):
        object.__setattr__(self, "role", CaseRole(getattr(self.role, "value", self.role)))


@dataclass(frozen=True)
class DriveEnvelope:
    """The drives over the cases: ``joints`` joint -> :class:`JointDrive` whose checks are the envelope's (each
    with its ``case``), ``cases`` case -> joint -> JointDrive whose checks are the case's own section."""

    joints: dict[str, JointDrive]
    cases: dict[str, dict[str, JointDrive]]

    def failures(self) -> list[str]:
        """One line per failed check of the envelope's own (an average or the brake): the cases' are theirs."""
        return [f"joint {j!r} drive: {c.line()} ({c.case or 'the most held over the cases'})"
                for j, d in self.joints.items() for c in d.checks if c.passed is False and c.case not in self.cases]

    def case_failures(self, case: str) -> list[str]:
        """One line per failed check of ``case``'s own section."""
        return [f"joint {j!r} drive: {c.line()}" for j, d in self.cases.get(case, {}).items() for c in d.checks
                if c.passed is False]


def _key(r: CheckResult) -> tuple[str, str]:
    return r.check, r.part


def _governing(candidates: list[CheckResult]) -> CheckResult | None:
    made = [r for r in candidates if r.passed is not None]
    return max(made, key=lambda r: r.utilisation) if made else None


def _sections(cases: Sequence[CaseDrives], joint: str) -> dict[str, list[CheckResult]]:
    """Each case's own checks of ``joint`` (module docstring), each with its ``case``."""
    out = {}
    for c in cases:
        d = c.drives[joint]
        if c.role is CaseRole.DUTY:
            own = [r for r in d.checks if r.check in PEAK_CHECKS]
        else:
            event = DriveCase(c.name, c.role, None, d.duty, c.count)
            own = accidental_checks(event, d.drive.parts["reducer"]) + [r for r in d.checks
                                                                         if r.check in EVERY_CASE_CHECKS]
        out[c.name] = [replace(r, case=c.name) for r in own]
    return out


def _holding(cases: Sequence[CaseDrives], joint: str) -> tuple[float | None, str]:
    """The largest static holding torque of the cases [N m] and what it is (None: none known)."""
    known = [(c.drives[joint].holding, c.name) for c in cases
             if c.drives[joint].holding is not None and c.drives[joint].holding.held is not None]
    if not known:
        return None, ""
    h, name = max(known, key=lambda x: x[0].held)
    return h.held, f"the most held over the cases: case {name!r}, {h.basis}"


def _joint_envelope(cases: Sequence[CaseDrives], joint: str, sections: dict) -> list[CheckResult]:
    """The envelope's checks of ``joint`` (module docstring)."""
    duty = [c for c in cases if c.role is CaseRole.DUTY]
    first = cases[0].drives[joint]
    p, drive = first.drive.parts, first.drive
    held, basis = _holding(cases, joint)
    out = []
    if duty:
        joined = [DriveCase(c.name, c.role, c.share, c.drives[joint].duty) for c in duty]
        out = case_drive_checks(joined, p["reducer"], p["bearing"], p["motor"], p["brake"],
                                design_life_h=drive.design_life_h, static_torque_nm=held,
                                bearing_z_m=drive.bearing_z_m, static_basis=basis)
    if p["brake"] is not None and held is None:  # the cases' own runs say why it was not checked
        out += [r for r in first.checks if r.check.startswith("brake")]
    enveloped = []
    for r in out:
        if r.check in PEAK_CHECKS:
            pool = [c for c in cases if c.role is CaseRole.DUTY or r.check in EVERY_CASE_CHECKS]
            top = _governing([s for c in pool for s in sections[c.name] if _key(s) == _key(r)])
            if top is not None and (r.utilisation is None or top.utilisation > r.utilisation):
                r = top  # an accidental case's bearing check over the duty's: that case's own
            r = replace(r, case=top.case if top is not None else "")
        elif not r.check.startswith("brake"):
            r = replace(r, case=BY_SHARES)
        enveloped.append(r)
    for c in cases:
        if c.role is CaseRole.ACCIDENTAL:
            enveloped += [s for s in sections[c.name] if s.check.startswith("reducer momentary")]
            if not duty:  # no duty case: the accidental case's bearing checks are the envelope's
                enveloped += [s for s in sections[c.name] if s.check in EVERY_CASE_CHECKS]
    return enveloped


def _joined(arrays):
    return None if any(a is None for a in arrays) or not arrays else np.concatenate(arrays)


def drive_envelope(cases: Sequence[CaseDrives]) -> DriveEnvelope:
    """The drives of ``cases`` (in the study's order, each run with the same drives) over the cases (module
    docstring). The envelope's motor torque and speed are the duty cases' one after the other (their largest is
    the summary's)."""
    cases = list(cases)
    joints = list(cases[0].drives)
    for c in cases[1:]:
        if list(c.drives) != joints or any(c.drives[j].drive != cases[0].drives[j].drive for j in joints):
            raise InputError(f"case {c.name!r}: its drives differ from those of case {cases[0].name!r}; a load case "
                             f"cannot change the drives")
    env, own = {}, {c.name: {} for c in cases}
    duty = [c for c in cases if c.role is CaseRole.DUTY] or cases
    for j in joints:
        sections = _sections(cases, j)
        for c in cases:
            own[c.name][j] = replace(c.drives[j], checks=tuple(sections[c.name]))
        env[j] = replace(cases[0].drives[j], checks=tuple(_joint_envelope(cases, j, sections)),
                         motor_torque_nm=_joined([c.drives[j].motor_torque_nm for c in duty]),
                         motor_speed_rpm=_joined([c.drives[j].motor_speed_rpm for c in duty]))
    return DriveEnvelope(env, own)
