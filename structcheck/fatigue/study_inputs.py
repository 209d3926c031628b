"""A study's fatigue inputs, checked before any FE work, and a link's fatigue from its solution (the run's two
fatigue steps, kept beside the fatigue code so that the run itself stays a sequence of stages)."""
from __future__ import annotations

from ..errors import InputError
from .duty import Duty, study_duty, study_fatigue_settings
from .links import LinkFatigue, check_settings, link_fatigue


def fatigue_inputs(study, fe_links: tuple[str, ...]) -> tuple[Duty | None, dict]:
    """The study's duty and, per FE link, its fatigue settings and S-N curves (checked before any FE work)."""
    duty = study_duty(study)
    if duty is None:
        return None, {}
    unknown = sorted(set(study.fatigue.details if study.fatigue else {}) - set(fe_links))
    if unknown:
        raise InputError(f"fatigue.details names links {unknown} that have no part; the FE links are {list(fe_links)}")
    out = {}
    for name in fe_links:
        settings = study_fatigue_settings(study, duty, name)
        out[name] = (settings, check_settings(settings, study.parts[name], name))
    return duty, out


def solution_fatigue(study, prep, sol) -> LinkFatigue | None:
    """A link's fatigue over one duty cycle (the analysis grid) from its solution, when the study asks for it
    (``prep.fatigue``, else None)."""
    if sol.name not in prep.fatigue:
        return None
    return link_fatigue(sol.part, sol.basis, sol.loads.coeff, sol.modal, *prep.fatigue[sol.name], link=sol.name)
