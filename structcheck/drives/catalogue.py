"""The drivetrain catalogue: reducers, output bearings, motors and brakes with their datasheet values, read from TOML.

A catalogue file holds tables ``[reducer."NAME"]``, ``[bearing."NAME"]``, ``[motor."NAME"]``, ``[brake."NAME"]``;
each entry names its ``source`` (document, page or table) and gives only the values that source prints: a value
not given is None, and a check that needs it says so (``not checked: <field> missing from catalogue entry X``).
Units are in the keys (``_nm``: N m, ``_n``: N, ``_m``: m, ``_rpm``: rev/min, ``_h``: hours, ``_kgm2``: kg m^2,
``_arcmin``). :func:`load_catalogue` reads the shipped file(s) (``structcheck/drives/data/*.toml``) and the user's
own; docs/drivetrain.md describes every field.
"""
from __future__ import annotations

import dataclasses
import math
import tomllib
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Mapping

from ..errors import InputError, named_input, require_number
from .stiffness import LinearTorsion, ThreeSegmentTorsion, TorsionCurve

DATA = Path(__file__).resolve().parent / "data"
ARCMIN = math.pi / (180.0 * 60.0)  # rad


class ReducerKind(Enum):
    """The reducer's kind, which sets the torque exponent p of its average torque and life (HD SE CSD-2A p.20:
    3 for strain-wave gears; Nabtesco RV: 10/3)."""

    STRAIN_WAVE = "strain_wave"
    CYCLOIDAL_RV = "cycloidal_rv"

    @property
    def torque_exponent(self) -> float:
        return {ReducerKind.STRAIN_WAVE: 3.0, ReducerKind.CYCLOIDAL_RV: 10.0 / 3.0}[self]


class LifeBasis(Enum):
    """Which life the catalogue's rated life is: L10 (90 % survive) or L50 (half survive)."""

    L10 = "L10"
    L50 = "L50"


class SpeedSide(Enum):
    """The side the rated speed is given on: Harmonic Drive rates at an input speed (2,000 rpm), Nabtesco at an
    output speed (15 rpm)."""

    INPUT = "input"
    OUTPUT = "output"


class MomentaryCountRule(Enum):
    """How many momentary peaks a reducer allows. ``flexspline_1e4``: N = 10^4 / (2 (n/60) i t), at most 10^4
    (HD SE CSD-2A doc 1019659 p.18: the flexspline is rated for 10^4 momentary peaks; a peak lasting t at output
    speed n flexes it 2 (n/60) i t times)."""

    FLEXSPLINE_1E4 = "flexspline_1e4"

    def allowed(self, output_speed_rpm: float, ratio: float, duration_s: float) -> float:
        """The allowed count of peaks lasting ``duration_s`` [s] at output speed ``output_speed_rpm`` [rpm]."""
        turns = 2.0 * output_speed_rpm / 60.0 * ratio * duration_s
        return 1e4 if turns <= 1.0 else 1e4 / turns


class BearingType(Enum):
    """The output bearing's type, which sets its life exponent B (HD SE SHG manual table 42.4)."""

    CROSSED_ROLLER = "crossed_roller"
    FOUR_POINT_CONTACT = "four_point_contact"

    @property
    def life_exponent(self) -> float:
        return {BearingType.CROSSED_ROLLER: 10.0 / 3.0, BearingType.FOUR_POINT_CONTACT: 3.0}[self]


class BrakeSide(Enum):
    """Where the brake sits: on the motor shaft (it holds the joint torque through the ratio) or on the output."""

    MOTOR = "motor"
    OUTPUT = "output"


def _number(unit: str, **bounds):
    return field(default=None, metadata={"unit": unit, "bounds": bounds or {"above": 0}})


def _choice(enum: type[Enum], required: bool = False):
    return field(default=None, metadata={"enum": enum, "required": required})


def _text(required: bool = False):
    return field(default=None, metadata={"text": True, "required": required})


@dataclass(frozen=True)
class Reducer:
    """A reducer's datasheet values (None: not given by its source)."""

    name: str
    kind: ReducerKind = _choice(ReducerKind, required=True)
    source: str = _text(required=True)
    ratio: float | None = _number("-", at_least=1)
    rated_torque_nm: float | None = _number("N m")
    rated_speed_rpm: float | None = _number("rpm")
    rated_speed_side: SpeedSide | None = _choice(SpeedSide)
    repeated_peak_torque_nm: float | None = _number("N m")
    momentary_peak_torque_nm: float | None = _number("N m")
    momentary_count_rule: MomentaryCountRule | None = _choice(MomentaryCountRule)
    average_torque_limit_nm: float | None = _number("N m")
    rated_life_h: float | None = _number("h")
    life_basis: LifeBasis | None = _choice(LifeBasis)
    max_average_input_speed_rpm: float | None = _number("rpm")
    max_input_speed_rpm: float | None = _number("rpm")
    torsion_t1_nm: float | None = _number("N m")
    torsion_t2_nm: float | None = _number("N m")
    torsion_k1_nm_per_rad: float | None = _number("N m/rad")
    torsion_k2_nm_per_rad: float | None = _number("N m/rad")
    torsion_k3_nm_per_rad: float | None = _number("N m/rad")
    torsional_stiffness_nm_per_rad: float | None = _number("N m/rad")
    lost_motion_arcmin: float | None = _number("arcmin", at_least=0)
    efficiency: float | None = _number("-", above=0, at_least=None)
    bearing: str | None = _text()
    note: str | None = _text()

    def __post_init__(self):
        _needs(self, "rated_life_h", "life_basis")
        _needs(self, "rated_speed_rpm", "rated_speed_side")
        if self.efficiency is not None and self.efficiency > 1:
            raise InputError(f"efficiency = {self.efficiency!r}: give a fraction in (0, 1]")
        segments = [f"torsion_{k}" for k in ("t1_nm", "t2_nm", "k1_nm_per_rad", "k2_nm_per_rad", "k3_nm_per_rad")]
        given = [f for f in segments if getattr(self, f) is not None]
        if given and len(given) < len(segments):
            missing = ", ".join(f for f in segments if f not in given)
            raise InputError(f"three-segment torsion: {missing} missing (give all five or none)")
        if given and self.torsion_t2_nm <= self.torsion_t1_nm:
            raise InputError(f"torsion_t2_nm = {self.torsion_t2_nm!r}: give more than torsion_t1_nm")
        if given and self.torsional_stiffness_nm_per_rad is not None:
            raise InputError("give either the three-segment torsion or torsional_stiffness_nm_per_rad, not both")

    @property
    def torsion(self) -> TorsionCurve | None:
        """The torque-torsion curve (three segments, or one stiffness), None when the entry gives neither."""
        if self.torsion_t1_nm is not None:
            return ThreeSegmentTorsion(self.torsion_t1_nm, self.torsion_t2_nm, self.torsion_k1_nm_per_rad,
                                       self.torsion_k2_nm_per_rad, self.torsion_k3_nm_per_rad)
        if self.torsional_stiffness_nm_per_rad is not None:
            lost = None if self.lost_motion_arcmin is None else self.lost_motion_arcmin * ARCMIN
            return LinearTorsion(self.torsional_stiffness_nm_per_rad, lost)
        return None


@dataclass(frozen=True)
class Bearing:
    """An output bearing's datasheet values: pitch diameter dp, offset R (output flange to bearing centre), basic
    dynamic and static load ratings C, C0, allowable (dynamic) tilting moment Mc, load factor fw, tilting
    stiffness (moment rigidity: in N m/rad or, as the catalogues print it, N m/arcmin; one of the two)."""

    name: str
    source: str = _text(required=True)
    type: BearingType = _choice(BearingType, required=True)
    pitch_diameter_m: float | None = _number("m")
    offset_m: float | None = _number("m", at_least=0)
    dynamic_load_rating_n: float | None = _number("N")
    static_load_rating_n: float | None = _number("N")
    allowable_moment_nm: float | None = _number("N m")
    load_factor: float | None = _number("-", at_least=1)
    tilting_stiffness_nm_per_rad: float | None = _number("N m/rad")
    tilting_stiffness_nm_per_arcmin: float | None = _number("N m/arcmin")
    note: str | None = _text()

    def __post_init__(self):
        if self.tilting_stiffness_nm_per_rad is not None and self.tilting_stiffness_nm_per_arcmin is not None:
            raise InputError("give either tilting_stiffness_nm_per_rad or tilting_stiffness_nm_per_arcmin, not both")

    @property
    def tilt_stiffness(self) -> float | None:
        """The tilting stiffness [N m/rad] (None: the entry gives none)."""
        if self.tilting_stiffness_nm_per_arcmin is not None:
            return self.tilting_stiffness_nm_per_arcmin / ARCMIN
        return self.tilting_stiffness_nm_per_rad


@dataclass(frozen=True)
class Motor:
    """A servo motor's datasheet values. ``rated_power_w`` at ``rated_speed_rpm`` stands in for a missing rated
    torque (T = P / omega at the rated point, said so in the check)."""

    name: str
    source: str = _text(required=True)
    rated_torque_nm: float | None = _number("N m")
    peak_torque_nm: float | None = _number("N m")
    rated_speed_rpm: float | None = _number("rpm")
    max_speed_rpm: float | None = _number("rpm")
    rotor_inertia_kgm2: float | None = _number("kg m^2")
    rated_power_w: float | None = _number("W")
    note: str | None = _text()


@dataclass(frozen=True)
class Brake:
    """A holding brake's datasheet values: holding (static) torque, engagement delay, the shaft it sits on."""

    name: str
    source: str = _text(required=True)
    side: BrakeSide = _choice(BrakeSide, required=True)
    holding_torque_nm: float | None = _number("N m")
    engagement_delay_s: float | None = _number("s")
    note: str | None = _text()


def _needs(entry, given: str, needed: str) -> None:
    if getattr(entry, given) is not None and getattr(entry, needed) is None:
        raise InputError(f"{given} is given without {needed}: say which it is")


SECTIONS = {"reducer": Reducer, "bearing": Bearing, "motor": Motor, "brake": Brake}


@dataclass(frozen=True)
class Catalogue:
    """The entries by name, per kind of part, and the files they came from."""

    reducers: Mapping[str, Reducer]
    bearings: Mapping[str, Bearing]
    motors: Mapping[str, Motor]
    brakes: Mapping[str, Brake]
    files: tuple[Path, ...] = ()

    def get(self, section: str, name: str):
        """The ``section`` ('reducer', 'bearing', 'motor', 'brake') entry ``name``; InputError listing the names."""
        entries = getattr(self, section + "s")
        if name not in entries:
            raise InputError(f"no {section} {name!r} in the drivetrain catalogue; {section}s: "
                             f"{', '.join(sorted(entries)) or 'none'}")
        return entries[name]

    def bearing_of(self, reducer: Reducer) -> Bearing | None:
        """The output bearing ``reducer`` names (None when it names none)."""
        return None if reducer.bearing is None else self.bearings[reducer.bearing]


def shipped_files() -> list[Path]:
    """The catalogue files shipped with structcheck (``structcheck/drives/data/*.toml``)."""
    return sorted(DATA.glob("*.toml"))


def load_catalogue(*files, shipped: bool = True) -> Catalogue:
    """The catalogue of the shipped files (unless ``shipped`` is False) and the user's ``files`` (paths to TOML).
    An entry whose name is already taken, an unknown field or a bad value raises InputError naming the file, the
    entry and the field."""
    paths = (shipped_files() if shipped else []) + [Path(f) for f in files]
    entries = {section: {} for section in SECTIONS}
    origin = {}
    for path in paths:
        for section, name, entry in _read_file(path):
            if (section, name) in origin:
                raise InputError(f"{path}: {section} {name!r} is already in {origin[section, name]}; rename it")
            origin[section, name] = path
            entries[section][name] = entry
    for name, reducer in entries["reducer"].items():
        if reducer.bearing is not None and reducer.bearing not in entries["bearing"]:
            raise InputError(f"{origin['reducer', name]}: reducer {name!r}: bearing = {reducer.bearing!r} is not in "
                             f"the catalogue; bearings: {', '.join(sorted(entries['bearing'])) or 'none'}")
    return Catalogue(entries["reducer"], entries["bearing"], entries["motor"], entries["brake"], tuple(paths))


def _read_file(path: Path):
    """(section, name, entry) of every entry in the TOML file ``path``."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise InputError(f"{path}: no such drivetrain catalogue file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML ({exc})") from None
    out = []
    for section, table in data.items():
        if section not in SECTIONS:
            raise InputError(f"{path}: unknown table [{section}]; give {', '.join(f'[{s}.NAME]' for s in SECTIONS)}")
        if not isinstance(table, dict):
            raise InputError(f"{path}: {section} = {table!r}: give tables [{section}.\"NAME\"]")
        for name, values in table.items():
            with named_input(f"{path}: {section} {name!r}"):
                out.append((section, name, _entry(SECTIONS[section], name, values)))
    return out


def _entry(cls, name: str, values):
    """The ``cls`` entry ``name`` from its TOML table ``values``, each field checked where it enters."""
    if not isinstance(values, dict):
        raise InputError(f"give a table of fields, not {values!r}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.name != "name"}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise InputError(f"unknown field {unknown[0]!r}; fields: {', '.join(fields)}")
    kwargs = {}
    for key, f in fields.items():
        value, meta = values.get(key), f.metadata
        if value is None:
            if meta.get("required"):
                raise InputError(f"{key} missing: every entry names it")
            continue
        if "enum" in meta:
            choices = [e.value for e in meta["enum"]]
            if value not in choices:
                raise InputError(f"{key} = {value!r}: give one of {', '.join(map(repr, choices))}")
            kwargs[key] = meta["enum"](value)
        elif meta.get("text"):
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"{key} = {value!r}: give text")
            kwargs[key] = value
        else:
            bounds = {k: v for k, v in meta["bounds"].items() if v is not None}
            kwargs[key] = require_number(key, value, meta["unit"], **bounds)
    return cls(name=name, **kwargs)
