"""Material files: the shipped library (``data/materials.toml``) and a user's own file of the same layout, read
into keyword arguments of :class:`~structcheck.model.materials.Material` (which builds them: this module does
not import it).

One TOML table per material, units in the key names (docs/materials.md)::

    ["7075-T73"]
    density_kg_m3 = 2810
    E_GPa = 72
    nu = 0.33
    yield_MPa = 435
    tensile_MPa = 505            # optional (needed for fatigue)
    elongation_pct = 13          # optional
    criterion = "von_mises"      # optional; "max_principal" for a brittle material (yield_MPa = tensile strength)
    source = "where the numbers come from"
    ["7075-T73".fatigue]         # optional: unnotched, R = -1 fatigue strength at a number of cycles
    strength_MPa = 150
    cycles = 5e8
    source = "..."
    ["7075-T73".sources]         # optional: where each value was checked, by its key (fatigue_strength_MPa,
    yield_MPa = "..."            # fatigue_cycles for the fatigue table's); the shipped library has one per value
"""
from __future__ import annotations

import tomllib
from decimal import Decimal, InvalidOperation
from importlib import resources
from pathlib import Path

from ..errors import InputError

#: key -> (Material field, scale to SI); the scale is applied in decimal so "68.9" GPa is exactly 68.9e9 Pa
_KEYS = {"density_kg_m3": ("density", 0), "E_GPa": ("E", 9), "nu": ("nu", 0), "yield_MPa": ("strength", 6),
         "tensile_MPa": ("tensile_strength", 6), "elongation_pct": ("elongation", 0)}
_REQUIRED = ("density_kg_m3", "E_GPa", "nu", "yield_MPa")
_FATIGUE_KEYS = {"strength_MPa": ("fatigue_strength", 6), "cycles": ("fatigue_cycles", 0)}
#: keys of a material's [name.sources] table: its values' keys, the fatigue table's prefixed with "fatigue_"
SOURCE_KEYS = (*_KEYS, "criterion", *(f"fatigue_{k}" for k in _FATIGUE_KEYS))


def _si(where: str, key: str, value, exponent: int):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}: {key} = {value!r}: give a number")
    if exponent == 0:
        return float(value)
    try:
        return float(Decimal(repr(value)).scaleb(exponent))
    except InvalidOperation:
        raise InputError(f"{where}: {key} = {value!r}: give a finite number") from None


def _fields(where: str, table: dict, keys: dict) -> dict:
    unknown = sorted(set(table) - set(keys) - {"source", "criterion", "fatigue", "sources"})
    if unknown:
        raise InputError(f"{where}: unknown key(s) {unknown}; valid keys are {sorted(keys) + ['criterion', 'source']}")
    return {keys[k][0]: _si(where, k, v, keys[k][1]) for k, v in table.items() if k in keys}


def material_fields(name: str, table, where: str) -> dict:
    """Material keyword arguments (SI) from one TOML table (module docstring); InputError naming ``where`` and
    the key otherwise."""
    at = f"{where}, material {name!r}"
    if not isinstance(table, dict):
        raise InputError(f"{at}: give a table [\"{name}\"] with keys {list(_REQUIRED)}")
    missing = [k for k in _REQUIRED if k not in table]
    if missing:
        raise InputError(f"{at}: missing {missing} (units are in the key names)")
    kwargs = _fields(at, table, _KEYS)
    fatigue = table.get("fatigue")
    if fatigue is not None:
        if not isinstance(fatigue, dict) or set(_FATIGUE_KEYS) - set(fatigue):
            raise InputError(f"{at}: [\"{name}\".fatigue] needs strength_MPa and cycles (and a source)")
        kwargs |= _fields(f"{at}, fatigue", {k: v for k, v in fatigue.items() if k != "source"}, _FATIGUE_KEYS)
        kwargs["fatigue_source"] = str(fatigue.get("source", ""))
    kwargs |= _value_sources(at, table.get("sources", {}))
    for text in ("source", "criterion"):
        if text in table:
            if not isinstance(table[text], str):
                raise InputError(f"{at}: {text} = {table[text]!r}: give a string")
            kwargs[text] = table[text]
    return kwargs


def _value_sources(at: str, sources) -> dict:
    """{"sources": ((key, text), ...)} of a [name.sources] table (keys :data:`SOURCE_KEYS`), {} without one."""
    if not isinstance(sources, dict) or not all(isinstance(v, str) for v in sources.values()):
        raise InputError(f"{at}: sources must be a table of strings, one per value key (e.g. yield_MPa = \"...\")")
    unknown = sorted(set(sources) - set(SOURCE_KEYS))
    if unknown:
        raise InputError(f"{at}: sources for unknown key(s) {unknown}; valid keys are {list(SOURCE_KEYS)}")
    return {"sources": tuple((k, sources[k]) for k in SOURCE_KEYS if k in sources)} if sources else {}


def parse_tables(text: str, where: str) -> dict[str, dict]:
    """{name: Material keyword arguments} from TOML text (``where`` names the file in errors)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: not valid TOML ({exc})") from None
    if not data:
        raise InputError(f"{where}: no materials (give one table per material, e.g. [\"7075-T73\"])")
    return {name: material_fields(name, table, where) for name, table in data.items()}


def read_file(path) -> tuple[str, str]:
    """(text, where) of a user's material file; InputError when it cannot be read."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8"), f"material file {str(path)!r}"
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"material file {str(path)!r}: cannot read it ({exc.__class__.__name__}: {exc})") from None


def builtin_text() -> tuple[str, str]:
    """(text, where) of the shipped library, structcheck/model/data/materials.toml."""
    text = resources.files("structcheck.model").joinpath("data/materials.toml").read_text(encoding="utf-8")
    return text, "structcheck/model/data/materials.toml"
