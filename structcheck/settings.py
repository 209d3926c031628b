"""The typed parts of a :class:`structcheck.Study`: its structural model (:class:`Flexibility`), the arm model's
options (:class:`ArmSettings`), the fatigue duty and method (:class:`Fatigue`) and who signs the report
(:class:`SignOff`), each checked where it is made.

    Study(..., flexibility="arm", arm=ArmSettings(joint_stiffness={"joint2": 2e5}),
          fatigue=Fatigue(cycles_per_hour=120, design_life_hours=20_000))

A choice is an Enum (a plain string naming it is accepted and converted); ``structcheck run STUDY --set
fatigue.design_life_hours=40000`` reaches a field of a part (:func:`with_overrides`).
"""
from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Literal, Mapping

import numpy as np

from .errors import InputError, require_number


class Flexibility(str, Enum):
    """The structural model: ``ARM`` the links as superelements assembled along the chain (one flexible body),
    ``LINK`` each link alone in its own frame, supported at its proximal joint."""

    ARM = "arm"
    LINK = "link"

    def __str__(self) -> str:
        return self.value


class FatigueMethod(str, Enum):
    """How a node's stress history is reduced to cycles: ``CRITICAL_PLANE`` the normal stress on every candidate
    plane (the worst governs), ``SIGNED_VON_MISES`` the von Mises stress signed by the largest principal stress."""

    CRITICAL_PLANE = "critical_plane"
    SIGNED_VON_MISES = "signed_von_mises"

    def __str__(self) -> str:
        return self.value


class InitialState(str, Enum):
    """The state before the first sample. ``REST``: the robot stands still in its t = 0 pose, in static
    equilibrium under gravity and the loads present then; a jump at t = 0 of joint acceleration, force or payload
    excites the structure as the same jump later does (a study delayed in time gives the same numbers). ``MOVING``:
    the motion is already under way at t = 0 (a segment cut from a longer cycle): the structure starts in the
    quasi-static state of the loads at t = 0, moving with their initial rate, with no free vibration."""

    REST = "rest"
    MOVING = "moving"

    def __str__(self) -> str:
        return self.value


MeanStressName = Literal["goodman", "gerber", "swt", "none"]


def choice(enum: type[Enum], name: str, value) -> Enum:
    """``value`` (a member of ``enum`` or its value) as a member; InputError naming ``name`` and the choices."""
    try:
        return enum(value)
    except ValueError:
        raise InputError(f"{name} = {value!r}: choose one of {[m.value for m in enum]}") from None


@dataclass(frozen=True)
class ArmSettings:
    """The arm model's options (``Study.flexibility = "arm"``): ``joint_stiffness`` joint name -> torsional
    stiffness about its axis [N m/rad] or (torsional, tilt) [N m/rad] (joints not named are rigid when actuated,
    free about their axes when passive); ``max_joint_change`` [rad or m]: the arm is re-assembled whenever a joint
    has moved this much (frozen-pose segments); ``compare_link_model``: the per-link model runs beside it and its
    peaks, quasi-static peaks and first frequencies are added to each link's summary, at the per-link model's
    cost (``structcheck run --link-model``)."""

    joint_stiffness: Mapping[str, Any] = field(default_factory=dict)
    max_joint_change: float = 0.05
    compare_link_model: bool = False

    def __post_init__(self):
        require_number("arm.max_joint_change", self.max_joint_change, "rad or m", above=0)
        if not isinstance(self.compare_link_model, (bool, np.bool_)):
            raise InputError(f"arm.compare_link_model = {self.compare_link_model!r}: give True or False")
        if not isinstance(self.joint_stiffness, Mapping):
            raise InputError(f"arm.joint_stiffness = {self.joint_stiffness!r}: give a mapping joint name -> "
                             f"stiffness [N m/rad] or (torsional, tilt)")
        for joint, k in dict(self.joint_stiffness).items():
            for x in (k if isinstance(k, (tuple, list)) else [k]):
                require_number(f"arm.joint_stiffness[{joint!r}]", x, "N m/rad; or (torsional, tilt)", at_least=0)


@dataclass(frozen=True)
class Fatigue:
    """The duty and the fatigue method (docs/fatigue.md). One duty cycle is the study's motion (``t_end``),
    repeated ``cycles_per_hour`` times an hour [1/h] (None: lives in duty cycles only); the design life is
    ``design_life_hours`` [h] (needs ``cycles_per_hour``) or ``design_life_cycles`` [duty cycles] (None: no design
    life, so no fatigue safety factor and no fatigue verdict; with one, a link whose shortest life is below it
    fails). ``method`` a :class:`FatigueMethod`; ``mean_stress_correction`` None (Goodman on material curves,
    none on detail categories), 'goodman', 'gerber', 'swt' or 'none'; ``surface_factor`` the Marin factors on
    every material curve; ``details`` maps a link to a detail category ('EC3-71', 'EC9-40-4.3-6.3'), material or
    ``fatigue.SNCurve`` for the whole link, or to {surface or line name: category} for regions of it."""

    cycles_per_hour: float | None = None
    design_life_hours: float | None = None
    design_life_cycles: float | None = None
    method: FatigueMethod = FatigueMethod.CRITICAL_PLANE
    mean_stress_correction: MeanStressName | None = None
    surface_factor: float = 1.0
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        from .fatigue.meanstress import as_correction

        for name, unit in (("cycles_per_hour", "duty cycles an hour"), ("design_life_hours", "h"),
                           ("design_life_cycles", "duty cycles")):
            if getattr(self, name) is not None:
                require_number(f"fatigue.{name}", getattr(self, name), unit, above=0)
        require_number("fatigue.surface_factor", self.surface_factor, "", above=0)
        object.__setattr__(self, "method", choice(FatigueMethod, "fatigue.method", self.method))
        if self.mean_stress_correction is not None:
            try:
                as_correction(self.mean_stress_correction)
            except InputError as exc:
                raise InputError(f"fatigue.mean_stress_correction: {exc}") from None
        if not isinstance(self.details, Mapping):
            raise InputError(f"fatigue.details = {self.details!r}: give a mapping link name -> detail category, "
                             f"material or {{region: category}}")


# the parts a dotted --set name reaches: Study field -> the part's class (made with its defaults when None)
@dataclass(frozen=True)
class SignOff:
    """Who signs the study's report and for what (``Study.metadata``): ``project``, ``revision`` (of the design or
    the study), ``author``, ``checker`` and ``date`` as text, shown in the report's sign-off block and recorded in
    summary.json (``inputs.settings.metadata.<field>``); a field left empty is a blank to fill in by hand on the
    printed page. ``structcheck run STUDY --set metadata.revision=B`` sets one from the command line (a number given
    there becomes its text)."""

    project: str = ""
    revision: str = ""
    author: str = ""
    checker: str = ""
    date: str = ""

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                object.__setattr__(self, f.name, f"{value:g}" if isinstance(value, float) else str(value))
            elif not isinstance(value, str):
                raise InputError(f"metadata.{f.name} = {value!r}: give a text (SignOff fields are text; '' leaves "
                                 f"a blank to fill in by hand)")


PARTS = {"arm": ArmSettings, "fatigue": Fatigue, "metadata": SignOff}


def _setting(key: str, study_fields, option: str):
    """The part class (None: the Study itself) and field name that ``key`` (``part.field``, ``study.field`` or
    ``field``) names; InputError naming the option (``--set``, ``--param``), the unknown part or field and the ones
    that exist. ``study_fields`` the Study's field names."""
    part, _, name = key.rpartition(".")
    if part in ("", "study"):
        if name not in study_fields:
            raise InputError(f"{option} {key}: Study has no field {name!r}; fields: {sorted(study_fields)}; "
                             f"parts: {sorted(f'{p}.<field>' for p in PARTS)}")
        return None, name
    cls = PARTS.get(part)
    if cls is None:
        raise InputError(f"{option} {key}: Study has no part {part!r}; parts: {sorted(PARTS)} (and study.<field> "
                         f"for the Study's own fields)")
    fields = {f.name for f in dataclasses.fields(cls)}
    if name not in fields:
        raise InputError(f"{option} {key}: {cls.__name__} has no field {name!r}; fields: {sorted(fields)}")
    return cls, name


def check_setting(key: str, values, study_fields) -> None:
    """InputError unless ``key`` (``part.field`` or ``study.field``) names a setting and each of ``values`` is one
    its part accepts on its own (made with its defaults otherwise): what ``structcheck sweep --param`` checks before
    any variant runs. ``study_fields`` the Study's field names."""
    cls, name = _setting(key, study_fields, "--param")
    for value in values if cls is not None else ():
        cls(**{name: _as_field_type(cls, name, value)})


def with_overrides(study, overrides: Mapping[str, Any]):
    """``study`` with ``overrides`` applied: ``"part.field" -> value`` sets a field of a part (``fatigue``,
    ``arm``; a part the study leaves None is made with its defaults first), ``"study.field"`` (or ``"field"``) a
    field of the Study itself. Each value is checked as the part checks it; InputError naming an unknown part or
    field and the ones that exist."""
    parts: dict[type, dict] = {}
    top: dict[str, Any] = {}
    names = {f.name for f in dataclasses.fields(study) if f.init}
    for key, value in overrides.items():
        cls, name = _setting(key, names, "--set")
        if cls is None:
            top[name] = value
        else:
            parts.setdefault(cls, {})[name] = _as_field_type(cls, name, value)
    for part, cls in PARTS.items():
        if cls in parts:
            top[part] = replace(getattr(study, part) or cls(), **parts[cls])
    return replace(study, **top) if top else study


def _as_field_type(cls, name: str, value):
    """A --set value (JSON number, boolean or text) as field ``name`` of ``cls`` takes it: whole numbers where a
    float belongs become floats; the part's own check then judges it."""
    hint = typing.get_type_hints(cls)[name]
    if isinstance(value, int) and not isinstance(value, bool) and float in (typing.get_args(hint) or (hint,)):
        return float(value)
    return value
