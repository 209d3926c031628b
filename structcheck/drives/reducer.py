"""Reducer checks over a joint's duty: average torque, repeated and momentary peaks, life, input speeds.

With n(t) the output speed [rpm], T(t) the output torque [N m], p the kind's torque exponent (3 strain-wave, 10/3
cycloidal/RV), i the ratio and t_c the cycle (pause included):

    T_av = (int |n| |T|^p dt / int |n| dt)^(1/p)      HD SE CSD-2A (doc 1019659) p.18 eq. 18.2 as an integral
    n_in,av = i int |n| dt / t_c  <= max. average input speed        (eq. 18.5)
    n_in,max = i max |n|          <= max. input speed
    max |T| <= repeated peak (start/stop) torque;  T_k <= momentary peak torque
    L = L_rated (T_rated / T_av)^p (n_rated,in / n_in,av)            HD SE CSD-2A p.20 eq. 20.2 (p = 3);
                                                                      Nabtesco RV: K (N0/Nm) (T0/Tm)^(10/3)

The sums of the catalogues (segments k of torque T_k, speed n_k, time t_k) are these integrals for a
piecewise-constant duty (:meth:`JointDuty.from_segments`). An L50 rating of a strain-wave gear is compared with the
design life as L10 = L50 / 5 (HD SE CSD-2A p.20).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import require_number
from .catalogue import LifeBasis, Reducer, ReducerKind, SpeedSide
from .duty import JointDuty
from .result import CheckResult, compare, missing_fields, not_checked

HD_TORQUE = "Harmonic Drive SE, CSD-2A engineering data (doc 1019659), p.18 (torque based dimensioning)"
NABTESCO = ("Nabtesco RV-E/RV-N catalogues (allowable acceleration/deceleration torque, momentary maximum torque); "
            "averaging as HD SE CSD-2A p.18 with p = 10/3")
SOURCES = {ReducerKind.STRAIN_WAVE: HD_TORQUE, ReducerKind.CYCLOIDAL_RV: NABTESCO}
HD_LIFE = "Harmonic Drive SE, CSD-2A engineering data (doc 1019659), p.20 eq. 20.2; Nabtesco RV life equation"


@dataclass(frozen=True)
class MomentaryEvent:
    """An accidental peak (a collision, an emergency stop): output torque ``torque_nm`` [N m] at output speed
    ``output_speed_rpm`` [rpm] for ``duration_s`` [s], expected ``count`` times over the life (None: not given)."""

    torque_nm: float
    output_speed_rpm: float
    duration_s: float
    count: float | None = None

    def __post_init__(self):
        require_number("momentary event torque_nm", self.torque_nm, "N m")
        require_number("momentary event output_speed_rpm", self.output_speed_rpm, "rpm", at_least=0)
        require_number("momentary event duration_s", self.duration_s, "s", above=0)
        if self.count is not None:
            require_number("momentary event count", self.count, "-", at_least=0)


def _part(reducer: Reducer) -> str:
    return f"reducer {reducer.name}"


def average_torque(reducer: Reducer, duty: JointDuty) -> float:
    """T_av [N m]: the p-power mean of |T| weighted by |n| dt (p from the reducer's kind); nan if it never turns."""
    return duty.speed_weighted_mean(duty.tau, reducer.kind.torque_exponent)


def _p_text(kind: ReducerKind) -> str:
    return "3" if kind is ReducerKind.STRAIN_WAVE else "10/3"


def check_average_torque(reducer: Reducer, duty: JointDuty) -> CheckResult:
    """T_av against the entry's limit for average torque."""
    name = "reducer average torque"
    formula = f"T_av = (int |n| |T|^p dt / int |n| dt)^(1/p), p = {_p_text(reducer.kind)}"
    if reducer.average_torque_limit_nm is None:
        return not_checked(name, _part(reducer), reducer.name, "average_torque_limit_nm", formula=formula)
    t_av = average_torque(reducer, duty)
    if math.isnan(t_av):
        return CheckResult(name, _part(reducer), None, reducer.average_torque_limit_nm, "N m", None, None, formula,
                           SOURCES[reducer.kind], note="not checked: the joint does not turn over the duty")
    return compare(name, _part(reducer), t_av, reducer.average_torque_limit_nm, "N m", formula,
                   SOURCES[reducer.kind])


def check_repeated_peak(reducer: Reducer, duty: JointDuty) -> CheckResult:
    """The largest |T| over the duty against the repeated peak (start/stop, acceleration) torque."""
    name, formula = "reducer repeated peak torque", "max |T| <= repeated peak torque"
    if reducer.repeated_peak_torque_nm is None:
        return not_checked(name, _part(reducer), reducer.name, "repeated_peak_torque_nm", formula=formula)
    return compare(name, _part(reducer), np.abs(duty.tau).max(), reducer.repeated_peak_torque_nm, "N m", formula,
                   SOURCES[reducer.kind])


def check_momentary(reducer: Reducer, event: MomentaryEvent) -> list[CheckResult]:
    """An accidental peak: its torque against the momentary peak torque, and (when the event gives its expected
    count) the count against the allowed count of the entry's rule."""
    part, out = _part(reducer), []
    name = "reducer momentary peak torque"
    if reducer.momentary_peak_torque_nm is None:
        out.append(not_checked(name, part, reducer.name, "momentary_peak_torque_nm"))
    else:
        out.append(compare(name, part, abs(event.torque_nm), reducer.momentary_peak_torque_nm, "N m",
                           "T_k <= momentary peak torque", SOURCES[reducer.kind]))
    if event.count is None:
        return out
    name, formula = "reducer momentary peak count", "N_allowed = 10^4 / (2 (n_k/60) i t_k) <= 10^4 >= count"
    missing = missing_fields(reducer, "momentary_count_rule", "ratio")
    if missing:
        out.append(not_checked(name, part, reducer.name, *missing, formula=formula))
        return out
    allowed = reducer.momentary_count_rule.allowed(event.output_speed_rpm, reducer.ratio, event.duration_s)
    out.append(compare(name, part, allowed, event.count, "peaks", formula, HD_TORQUE, at_least=True))
    return out


def life_hours(reducer: Reducer, duty: JointDuty) -> float:
    """L = L_rated (T_rated / T_av)^p (n_rated / n_av) [h] in the entry's life basis, both speeds on the side the
    rating is given (an input rating compares with i n_out,av); inf if the joint never turns. Needs rated_life_h,
    rated_torque_nm, rated_speed_rpm, rated_speed_side (and ratio for an input rating)."""
    n_av = duty.mean_speed_rpm() * (reducer.ratio if reducer.rated_speed_side is SpeedSide.INPUT else 1.0)
    if n_av == 0:
        return math.inf
    t_av = average_torque(reducer, duty)
    p = reducer.kind.torque_exponent
    return reducer.rated_life_h * (reducer.rated_torque_nm / t_av) ** p * reducer.rated_speed_rpm / n_av


def check_life(reducer: Reducer, duty: JointDuty, design_life_h: float | None) -> CheckResult:
    """The reducer's life over the duty against ``design_life_h`` [h] (an L10 requirement)."""
    name, p = "reducer life", _p_text(reducer.kind)
    formula = f"L = L_rated (T_rated / T_av)^{p} (n_rated / n_av)"
    needed = ["rated_life_h", "rated_torque_nm", "rated_speed_rpm"]
    if reducer.rated_speed_side is SpeedSide.INPUT:
        needed.append("ratio")
    missing = missing_fields(reducer, *needed)
    if missing:
        return not_checked(name, _part(reducer), reducer.name, *missing, formula=formula)
    life, note = life_hours(reducer, duty), ""
    if reducer.life_basis is LifeBasis.L50 and reducer.kind is ReducerKind.STRAIN_WAVE:
        life, formula = life / 5.0, formula + "; L10 = L50 / 5 (HD SE CSD-2A p.20)"
    elif reducer.life_basis is LifeBasis.L50:
        note = "the rating is an L50 life, compared as given (no L10 conversion published for this kind)"
    if design_life_h is None:
        return CheckResult(name, _part(reducer), life, None, "h", None, None, formula, HD_LIFE,
                           note="not checked: no design life given")
    return compare(name, _part(reducer), life, design_life_h, "h", formula, HD_LIFE, at_least=True, note=note)


def check_input_speeds(reducer: Reducer, duty: JointDuty) -> list[CheckResult]:
    """The average and the largest input speed [rpm] against the entry's limits."""
    part, out = _part(reducer), []
    cases = (("reducer average input speed", "max_average_input_speed_rpm", duty.mean_speed_rpm(),
              "n_in,av = i int |n| dt / t_cycle"),
             ("reducer maximum input speed", "max_input_speed_rpm", float(duty.speed_rpm.max()),
              "n_in,max = i max |n|"))
    for name, limit_field, n_out, formula in cases:
        missing = missing_fields(reducer, "ratio", limit_field)
        if missing:
            out.append(not_checked(name, part, reducer.name, *missing, formula=formula))
        else:
            out.append(compare(name, part, reducer.ratio * n_out, getattr(reducer, limit_field), "rpm", formula,
                               SOURCES[reducer.kind]))
    return out


def reducer_checks(reducer: Reducer, duty: JointDuty, design_life_h: float | None = None,
                   events: tuple[MomentaryEvent, ...] = ()) -> list[CheckResult]:
    """Every reducer check of one joint: average torque, repeated peak, each momentary event, life, input
    speeds."""
    out = [check_average_torque(reducer, duty), check_repeated_peak(reducer, duty)]
    for event in events:
        out += check_momentary(reducer, event)
    return out + [check_life(reducer, duty, design_life_h)] + check_input_speeds(reducer, duty)
