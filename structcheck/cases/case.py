"""Named load cases of one study (``Study.cases``): each a variant of the study (another motion, loads or event)
with a role in the verdict. The run (:mod:`.multi`) runs every case and envelopes them (:mod:`structcheck.results.
envelope`); this module only says what a case is and builds its study.

- A **duty** case is part of the robot's service: its stresses are checked against the study's required safety
  factor, and its fatigue damage counts with its ``share`` of the duty cycles (the duty cases' shares add up to 1;
  the one duty case of a study has share 1).
- An **accidental** case (an emergency stop, a collision, a payload dropped) happens rarely: it is checked against
  the strength with its own ``required_safety_factor`` (often lower than the duty's) and, when asked, against the
  material's tensile strength with ``required_tensile_safety_factor``; it does not count in fatigue.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Callable, Mapping

from ..errors import InputError, require_number
from ..settings import choice


class CaseRole(str, Enum):
    """What a case counts for: ``DUTY`` stresses against the study's safety factor and fatigue with its share of
    the duty; ``ACCIDENTAL`` stresses against its own safety factors, no fatigue."""

    DUTY = "duty"
    ACCIDENTAL = "accidental"


#: Study fields a case may not change: the name and the cases are the study's, the duty (fatigue) is shared by
#: the duty cases and not asked of the accidental ones, an accidental case's safety factor is the Case's own, and
#: the drives are the robot's hardware, checked over every case together (structcheck.drives.envelope)
FIXED_FIELDS = ("name", "cases", "fatigue", "required_safety_factor", "drives")
#: shares of the duty cases must add up to 1 within this (they are fractions of the duty cycles)
SHARE_TOLERANCE = 1e-9
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Case:
    """One load case: ``name`` (letters, digits, ``_ . -``: it names the case's results folder ``cases/<name>``),
    ``role`` (:class:`CaseRole` or its name), the study of the case as ``changes`` (Study field -> value, e.g.
    ``{"motion": {...}, "t_end": 2.0, "point_forces": (...)}``) applied to the study, after ``build`` (a function
    study -> study, e.g. one turning the motion into an emergency stop) when given; nothing changed: the study
    itself. ``share`` [-]: a duty case's fraction of the duty cycles (None for the only duty case: 1).
    ``required_safety_factor`` [-]: an accidental case's, against the strength the study's checks use (yield; the
    tensile strength for a brittle material), None: the study's; ``required_tensile_safety_factor`` [-]: an
    accidental case's against the material's tensile strength too (None: not checked); ``count`` [-]: an accidental
    case's expected number over the life, checked against the count a drive's reducer allows at its momentary peak
    (None: not checked)."""

    name: str
    role: CaseRole = CaseRole.DUTY
    changes: Mapping[str, Any] = field(default_factory=dict)
    build: Callable[[Any], Any] | None = None
    share: float | None = None
    required_safety_factor: float | None = None
    required_tensile_safety_factor: float | None = None
    count: float | None = None

    def __post_init__(self):
        if not (isinstance(self.name, str) and _NAME.match(self.name)):
            raise InputError(f"case name {self.name!r}: give letters, digits, '_', '.' or '-' (it names the "
                             f"folder cases/<name>)")
        object.__setattr__(self, "role", choice(CaseRole, f"case {self.name!r}: role", self.role))
        if not isinstance(self.changes, Mapping) or not all(isinstance(k, str) for k in self.changes):
            raise InputError(f"case {self.name!r}: changes = {self.changes!r}: give a mapping Study field -> value")
        if self.build is not None and not callable(self.build):
            raise InputError(f"case {self.name!r}: build = {self.build!r}: give a function study -> study or None")
        duty = self.role is CaseRole.DUTY
        for what, value, allowed, unit, bounds in (
                ("share", self.share, duty, "", dict(above=0)),
                ("required_safety_factor", self.required_safety_factor, not duty, "", dict(above=0)),
                ("required_tensile_safety_factor", self.required_tensile_safety_factor, not duty, "", dict(above=0)),
                ("count", self.count, not duty, "", dict(at_least=0))):
            if value is None:
                continue
            if not allowed:
                raise InputError(f"case {self.name!r}: {what} is for {'accidental' if duty else 'duty'} cases; "
                                 f"a {self.role.value} case " + ("has its share of the duty cycles" if what == "count"
                                                                 else "takes the study's" if duty else "has no share"))
            require_number(f"case {self.name!r}: {what}", value, unit, **bounds)
        if self.share is not None and self.share > 1:
            raise InputError(f"case {self.name!r}: share = {self.share!r}: give the case's fraction of the duty "
                             f"cycles, > 0 and <= 1")


def check_cases(cases, study_fields, has_fatigue: bool) -> None:
    """InputError (one line) for ``cases`` (a study's) that are not a tuple of :class:`Case` with distinct names,
    that change a field not in ``study_fields`` or one of :data:`FIXED_FIELDS`, or whose duty shares are not one
    per duty case adding up to 1 (the only duty case may leave it out); a study with fatigue needs a duty case."""
    if not isinstance(cases, tuple) or not all(isinstance(c, Case) for c in cases):
        raise InputError(f"cases = {cases!r}: give a tuple of structcheck.Case(...)")
    if not cases:
        return
    names = [c.name for c in cases]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"cases: the names {twice} are given more than once; name each case once")
    for c in cases:
        bad = sorted(set(c.changes) - set(study_fields) | set(c.changes) & set(FIXED_FIELDS))
        if bad:
            raise InputError(f"case {c.name!r}: changes {bad}, which a case cannot set; a case sets Study fields "
                             f"but not {list(FIXED_FIELDS)} (an accidental case's safety factor is the Case's own)")
    duty = [c for c in cases if c.role is CaseRole.DUTY]
    if has_fatigue and not duty:
        raise InputError("cases: the study asks for fatigue but has no duty case; give a Case with role 'duty' "
                         "or fatigue=None")
    check_duty_shares(duty, "cases")


def check_duty_shares(duty: list, what: str) -> None:
    """The duty cases' shares (objects with ``name`` and ``share``): one duty case may leave its share out (1);
    several give each theirs, adding up to 1 within :data:`SHARE_TOLERANCE`. InputError naming ``what`` else."""
    if len(duty) == 1 and duty[0].share in (None, 1):
        return
    missing = [c.name for c in duty if c.share is None]
    if missing:
        raise InputError(f"{what}: the duty cases {missing} have no share; give each duty case its share of the "
                         f"duty cycles (the shares add up to 1)")
    total = sum(c.share for c in duty)
    if abs(total - 1.0) > SHARE_TOLERANCE:
        raise InputError(f"{what}: the duty cases' shares add up to {total:.10g}, not 1; give each its fraction "
                         f"of the duty cycles")


def share(case: Case) -> float:
    """A duty case's share of the duty cycles (1 when it is the only one and gives none); 0 for an accidental
    case."""
    if case.role is CaseRole.ACCIDENTAL:
        return 0.0
    return 1.0 if case.share is None else float(case.share)


def case_study(study, case: Case):
    """The study of ``case`` (``study`` a ``structcheck.Study`` with ``cases``): ``build(study)`` when given, then
    its ``changes``; named ``<study>.<case>``, with no cases of its own; an accidental case without fatigue and
    with its own required safety factor. InputError naming the case for a ``build`` that fails or returns no
    Study, or a change the Study refuses."""
    base = replace(study, cases=())
    if case.build is not None:
        try:
            built = case.build(base)
        except InputError as exc:
            raise InputError(f"case {case.name!r}: {exc}") from exc
        except Exception as exc:
            raise InputError(f"case {case.name!r}: its build function failed: {type(exc).__name__}: {exc}") from exc
        if type(built) is not type(study):
            raise InputError(f"case {case.name!r}: its build function returned {type(built).__name__}, not a Study")
        base = replace(built, cases=())
    changes = dict(case.changes)
    if case.role is CaseRole.ACCIDENTAL:
        changes.update(fatigue=None, required_safety_factor=case.required_safety_factor or study.required_safety_factor)
    try:
        return replace(base, name=f"{study.name}.{case.name}", **changes)
    except InputError as exc:
        raise InputError(f"case {case.name!r}: {exc}") from exc
    except TypeError as exc:  # a field the Study does not have (check_cases names them first)
        raise InputError(f"case {case.name!r}: {exc}") from exc


def study_fields(study) -> tuple[str, ...]:
    """The names of ``study``'s fields (what a case's ``changes`` may name)."""
    return tuple(f.name for f in dataclasses.fields(study))
