"""A joint's drive checked as a whole, and the selection of the smallest reducer that passes.

Selection sweeps the catalogue's reducers (of one kind, or all) from the smallest rated torque up; the first whose
every made check passes (its own and its output bearing's) is chosen, and the check with the highest utilisation
is named as governing. Checks a catalogue entry cannot make (a missing datasheet value) do not reject it but are
listed with the choice, so a reader sees what was not verified.
"""
from __future__ import annotations

from dataclasses import dataclass

from .bearing import FS_NORMAL, bearing_checks
from .brake import brake_check
from .catalogue import Bearing, Brake, Catalogue, Motor, Reducer, ReducerKind
from .duty import JointDuty
from .motor import motor_checks
from .reducer import MomentaryEvent, reducer_checks
from .result import CheckResult, governing


def drive_checks(duty: JointDuty, reducer: Reducer, bearing: Bearing | None = None, motor: Motor | None = None,
                 brake: Brake | None = None, *, design_life_h: float | None = None,
                 events: tuple[MomentaryEvent, ...] = (), static_torque_nm=None, fw: float | None = None,
                 fs_required: float = FS_NORMAL, bearing_z_m: float | None = None,
                 static_basis: str = "") -> list[CheckResult]:
    """Every check of one joint's drive over ``duty``: the reducer's, its output bearing's, the motor's and the
    brake's (each part when given; the brake when ``static_torque_nm`` [N m] is given too, ``static_basis`` saying
    where it comes from). ``design_life_h`` [h]
    the required L10 life; see :func:`~structcheck.drives.bearing.bearing_checks` for ``fw``, ``fs_required``,
    ``bearing_z_m``."""
    out = reducer_checks(reducer, duty, design_life_h, events)
    if bearing is not None:
        out += bearing_checks(bearing, duty, design_life_h, fw, fs_required, bearing_z_m)
    if motor is not None:
        out += motor_checks(motor, reducer, duty)
    if brake is not None and static_torque_nm is not None:
        out.append(brake_check(brake, reducer, static_torque_nm, basis=static_basis))
    return out


@dataclass(frozen=True)
class Selection:
    """The chosen reducer (None: none passes), its checks, the governing (most utilised) check, and each smaller
    entry tried with the check that rejected it (its most utilised failing check)."""

    reducer: str | None
    results: tuple[CheckResult, ...]
    governing: CheckResult | None
    rejected: tuple[tuple[str, CheckResult], ...]

    @property
    def not_checked(self) -> tuple[CheckResult, ...]:
        """The chosen entry's checks that could not be made."""
        return tuple(r for r in self.results if r.passed is None)


def select_reducer(catalogue: Catalogue, duty: JointDuty, *, kind: ReducerKind | str | None = None,
                   design_life_h: float | None = None, events: tuple[MomentaryEvent, ...] = (),
                   fw: float | None = None, fs_required: float = FS_NORMAL, bearing_z_m: float | None = None,
                   require_all_checked: bool = False) -> Selection:
    """The smallest reducer of ``catalogue`` (by rated torque; entries without one are skipped) of ``kind`` (None:
    any) whose made checks over ``duty`` all pass, with its output bearing's when the entry names one.
    ``require_all_checked``: an entry with a check it cannot make (a missing datasheet value) is passed over too."""
    kind = None if kind is None else ReducerKind(kind)
    candidates = sorted((r for r in catalogue.reducers.values()
                         if r.rated_torque_nm is not None and (kind is None or r.kind is kind)),
                        key=lambda r: (r.rated_torque_nm, r.name))
    rejected = []
    for reducer in candidates:
        results = drive_checks(duty, reducer, catalogue.bearing_of(reducer), design_life_h=design_life_h,
                               events=events, fw=fw, fs_required=fs_required, bearing_z_m=bearing_z_m)
        failed = [r for r in results if r.passed is False or (require_all_checked and r.passed is None)]
        if not failed:
            return Selection(reducer.name, tuple(results), governing(results), tuple(rejected))
        made = [r for r in failed if r.passed is False]
        rejected.append((reducer.name, governing(made) if made else failed[0]))
    return Selection(None, (), None, tuple(rejected))
