"""A joint's drive checked over several load cases: the duty cases together as the service duty, each accidental case
as a momentary peak.

A study's load cases (``Study.cases``) each have a role: a **duty** case is part of the service and has a
``share`` of the duty cycles (the duty cases' shares add up to 1; the only duty case may give none: 1); an
**accidental** case (an emergency stop, a collision) happens a counted number of times over the life.

Duty cases feed every check that averages or peaks over the service: over N cycles of life case k runs N s_k
times, so each integral of the checks is the share-weighted sum of the cases' integrals,

    T_av = (sum_k s_k int_k |n| |T|^p dt / sum_k s_k int_k |n| dt)^(1/p)      (reducer average torque, life)
    n_av = sum_k s_k int_k |n| dt / sum_k s_k t_c,k                           (life, average input speed)
    T_rms = sqrt(sum_k s_k int_k tau_m^2 dt / sum_k s_k t_c,k)                (motor)
    P = (sum_k s_k int_k |n| Pc^B dt / sum_k s_k int_k |n| dt)^(1/B)          (bearing L10)

and the peaks (repeated peak torque, maximum input and motor speed, motor peak torque, bearing static load and
tilting moment) are the largest over the duty cases. :func:`combined_duty` builds one :class:`JointDuty` that
gives exactly these: the cases' histories one after the other, case k's time axis scaled by s_k (so that every
integral over it is s_k times the case's, and the cycle time is sum s_k t_c,k); its times are weights, not
instants of one motion.

Each accidental case is a momentary event (:class:`~structcheck.drives.reducer.MomentaryEvent`): its largest
|T| against the momentary peak torque, and its expected ``count`` over the life (when given) against the count
the entry's rule allows. The rule counts the flexspline's flexings during the peak, 2 i (n/60) t (HD SE CSD-2A
p.18); for a history this is 2 i times the output revolutions int |n| dt / 60 turned while |T| exceeds the
repeated peak torque (the whole case when the entry gives none: more turns, fewer allowed, the safe side). The
event is given as that time t and the mean |n| over it, so that n t is the revolutions turned.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..cases.case import CaseRole, check_duty_shares
from ..errors import InputError, require_number
from .bearing import FS_NORMAL
from .catalogue import Bearing, Brake, Motor, Reducer
from .duty import JointDuty
from .reducer import MomentaryEvent, check_momentary
from .result import CheckResult
from .selection import drive_checks

@dataclass(frozen=True)
class DriveCase:
    """One load case of one joint: ``name``, ``role`` (:class:`CaseRole`, its value, or any enum whose value is
    'duty' or 'accidental', e.g. ``Study.cases``' own), ``share`` [-] a duty case's fraction of the duty cycles
    (None: the only duty case, 1; an accidental case has none), the joint's ``duty`` over the case and, for an
    accidental case, its expected ``count`` over the life (None: the allowed count not checked)."""

    name: str
    role: CaseRole
    share: float | None
    duty: JointDuty
    count: float | None = None

    def __post_init__(self):
        value = getattr(self.role, "value", self.role)
        try:
            object.__setattr__(self, "role", CaseRole(str(value).lower()))
        except ValueError:
            raise InputError(f"case {self.name!r}: role = {self.role!r}: give 'duty' or 'accidental'") from None
        if not isinstance(self.duty, JointDuty):
            raise InputError(f"case {self.name!r}: duty = {self.duty!r}: give the joint's JointDuty over the case")
        duty = self.role is CaseRole.DUTY
        if self.share is not None:
            if not duty:
                raise InputError(f"case {self.name!r}: an accidental case has no share; give its count instead")
            require_number(f"case {self.name!r}: share", self.share, "-", above=0)
            if self.share > 1:
                raise InputError(f"case {self.name!r}: share = {self.share!r}: give its fraction of the duty "
                                 f"cycles, > 0 and <= 1")
        if self.count is not None:
            if duty:
                raise InputError(f"case {self.name!r}: a duty case has no count; give its share of the duty cycles")
            require_number(f"case {self.name!r}: count", self.count, "-", at_least=0)


def as_cases(cases) -> tuple[DriveCase, ...]:
    """``cases`` as :class:`DriveCase` s: each a DriveCase or a tuple (name, role, share, duty[, count]); the names
    distinct and the duty shares one per duty case adding up to 1 (the only duty case may give none)."""
    out = tuple(c if isinstance(c, DriveCase) else DriveCase(*c) for c in cases)
    names = [c.name for c in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"drive cases: the names {twice} are given more than once")
    duty = [c for c in out if c.role is CaseRole.DUTY]
    if not duty:
        raise InputError("drive cases: no duty case; give at least one case with role 'duty'")
    check_duty_shares(duty, "drive cases")
    return out


def _share(case: DriveCase) -> float:
    return 1.0 if case.share is None else float(case.share)


def combined_duty(cases) -> JointDuty:
    """One :class:`JointDuty` of the duty ``cases`` (DriveCases of role duty) whose integrals are the shares'
    weighted sums of the cases' and whose peaks are the largest over them: the histories one after the other,
    case k's times (from its first) scaled by its share s_k, its pause too (module docstring)."""
    parts, start, pause = [], 0.0, 0.0
    for c in cases:
        s, d = _share(c), c.duty
        parts.append((start + s * (d.t - d.t[0]), d))
        start += s * float(d.t[-1] - d.t[0])  # the next case starts at the same instant: no interval between
        pause += s * d.pause

    def joined(name):
        arrays = [getattr(d, name) for _, d in parts]
        return None if any(a is None for a in arrays) else np.concatenate(arrays)

    return JointDuty(t=np.concatenate([t for t, _ in parts]), qd=joined("qd"), tau=joined("tau"), qdd=joined("qdd"),
                     force=joined("force"), moment=joined("moment"), pause=pause)


def momentary_event(case: DriveCase, reducer: Reducer) -> tuple[MomentaryEvent, str]:
    """The accidental ``case`` as a momentary event, and how it was had: its largest |T|, and the time t and mean
    output speed n over which |T| exceeds ``reducer``'s repeated peak torque (the whole case when the entry gives
    none), n t the revolutions turned meanwhile [rpm s]. A case that never exceeds the repeated peak turns nothing
    over it: its count is the rule's largest."""
    d = case.duty
    limit = reducer.repeated_peak_torque_nm
    over = np.abs(d.tau) > (-np.inf if limit is None else limit)
    # an interval counts where either end is over the limit: the peak's own rise and fall are in it (safe side)
    dt = np.diff(d.t) * (over[1:] | over[:-1])
    duration = float(dt.sum())
    torque = float(np.abs(d.tau).max())
    if duration <= 0:
        span = float(d.t[-1] - d.t[0])
        return (MomentaryEvent(torque, 0.0, span, case.count),
                f"never over the repeated peak torque {limit:.4g} N m: no turns counted")
    turned = float(np.sum(0.5 * (d.speed_rpm[1:] + d.speed_rpm[:-1]) * dt))  # rpm s
    what = "the whole case" if limit is None else f"over the repeated peak torque {limit:.4g} N m"
    return (MomentaryEvent(torque, turned / duration, duration, case.count),
            f"{duration:.4g} s {what} at a mean {turned / duration:.4g} rpm")


def case_drive_checks(cases, reducer: Reducer, bearing: Bearing | None = None, motor: Motor | None = None,
                      brake: Brake | None = None, *, design_life_h: float | None = None, static_torque_nm=None,
                      fw: float | None = None, fs_required: float = FS_NORMAL, bearing_z_m: float | None = None,
                      static_basis: str = "") -> list[CheckResult]:
    """Every check of one joint's drive over load ``cases`` (see :func:`as_cases`): the duty cases together
    (:func:`combined_duty`) for the averages, lives, RMS and repeated peaks, each accidental case as a momentary
    peak with its allowed count (:func:`momentary_event`); the other arguments as
    :func:`~structcheck.drives.selection.drive_checks`. Each check's note names the cases it covers."""
    cases = as_cases(cases)
    duty = [c for c in cases if c.role is CaseRole.DUTY]
    accidental = [c for c in cases if c.role is CaseRole.ACCIDENTAL]
    over = "over the duty cases " + ", ".join(f"{c.name!r} (share {_share(c):g})" for c in duty)
    out = [r if r.check.startswith("brake") else _noted(r, over)  # the brake holds a static torque, not a case
           for r in drive_checks(combined_duty(duty), reducer, bearing, motor, brake, design_life_h=design_life_h,
                                 static_torque_nm=static_torque_nm, fw=fw, fs_required=fs_required,
                                 bearing_z_m=bearing_z_m, static_basis=static_basis)]
    for c in accidental:
        out += accidental_checks(c, reducer)
    return out


def accidental_checks(case: DriveCase, reducer: Reducer) -> list[CheckResult]:
    """The accidental ``case`` against ``reducer``'s momentary peak torque and, when the case gives its count, the
    count the entry's rule allows (:func:`momentary_event`); each check's note names the case."""
    event, how = momentary_event(case, reducer)
    note = f"accidental case {case.name!r}: {how}" + ("" if case.count is not None else "; no count given")
    return [_noted(r, note) for r in check_momentary(reducer, event)]


def _noted(result: CheckResult, text: str) -> CheckResult:
    """``result`` with ``text`` added to its note (a not-checked result's reason stays first)."""
    return replace(result, note=f"{result.note}; {text}" if result.note else text)

