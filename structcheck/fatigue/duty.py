"""The duty of a study: its motion (one duty cycle of ``t_end`` seconds) repeated ``cycles_per_hour`` times an
hour for a design life, and the fatigue settings a study asks for."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


from ..errors import InputError
from .links import FatigueSettings


@dataclass(frozen=True)
class Duty:
    """``cycles_per_hour`` [1/h] (None: lives in duty cycles only), ``design_life_cycles`` [duty cycles] and
    ``design_life_hours`` [h] (None: no design life, so no fatigue safety factor and no fatigue verdict);
    ``duty_cycle_s`` [s], the length of one duty cycle (the study's motion)."""

    cycles_per_hour: float | None
    design_life_cycles: float | None
    design_life_hours: float | None
    duty_cycle_s: float

    def hours(self, cycles: float) -> float | None:
        """Hours of operation [h] for ``cycles`` duty cycles (None without cycles_per_hour)."""
        return None if self.cycles_per_hour is None else cycles / self.cycles_per_hour


def _number(value) -> float | None:
    """A duty number as float (None stays None); ``settings.Fatigue`` has checked it finite and > 0."""
    return None if value is None else float(value)


def study_duty(study) -> Duty | None:
    """The duty of ``study`` (a ``study.Study``; its ``fatigue`` a ``settings.Fatigue``), None when it asks for no
    fatigue (``fatigue`` None). Each number was checked by ``Fatigue``; InputError for a design life in hours
    without cycles_per_hour, a design life given twice, or more duty cycles an hour than fit in it."""
    fat = study.fatigue
    if fat is None:
        return None
    cph = _number(fat.cycles_per_hour)
    hours = _number(fat.design_life_hours)
    cycles = _number(fat.design_life_cycles)
    if hours is not None and cycles is not None:
        raise InputError(f"give the design life once: design_life_hours = {hours:g} or design_life_cycles = "
                         f"{cycles:g}, not both")
    if hours is not None and cph is None:
        raise InputError(f"design_life_hours = {hours:g} needs cycles_per_hour (duty cycles an hour) to count "
                         f"its cycles; or give design_life_cycles instead")
    if cph is not None and cph * study.t_end > 3600.0 * (1 + 1e-12):
        raise InputError(f"cycles_per_hour = {cph:g} duty cycles of t_end = {study.t_end:g} s take "
                         f"{cph * study.t_end:g} s, more than an hour: at most {3600.0 / study.t_end:g} an hour")
    if hours is not None:
        cycles = hours * cph
    elif cycles is not None and cph is not None:
        hours = cycles / cph
    return Duty(cph, cycles, hours, float(study.t_end))


def study_fatigue_settings(study, duty: Duty, link: str) -> FatigueSettings:
    """Link ``link``'s fatigue settings from ``study``: its ``fatigue.details`` entry is a curve spec for the
    whole link (detail category, material name or SNCurve) or a mapping region -> spec."""
    fat = study.fatigue
    spec: Any = (fat.details or {}).get(link)
    details: Mapping[str, Any] = {} if spec is None else (dict(spec) if isinstance(spec, Mapping) else {"*": spec})
    return FatigueSettings(design_life_cycles=duty.design_life_cycles, method=fat.method.value,
                           mean_stress=fat.mean_stress_correction, surface_factor=fat.surface_factor,
                           details=details)
