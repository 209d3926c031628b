"""The building blocks of the typed run summary (:mod:`.schema`, :mod:`.inputs_schema`): a field with its unit and
meaning (:func:`entry`), the shared behaviour of every entry (:class:`_Entry`: values made plain, JSON form), and
``NESTING``, which field of which entry holds further entries (filled by the schema modules)."""
from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Any, Mapping

import numpy as np

def entry(unit: str, doc: str, *, present_with: str | None = None, default: Any = None):
    """A summary field with its ``unit`` ('' dimensionless, shown as 1; '-' not a quantity) and meaning ``doc``;
    ``present_with``: the field (itself or another of the entry) whose None says the group of entries it belongs
    to is absent, and this field left out of summary.json."""
    return field(default=default, metadata={"unit": unit, "doc": doc, "present_with": present_with})


def plain(x):
    """JSON-safe version of numpy scalars/arrays and tuples (NaN and infinities -> None)."""
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return [plain(v) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, (np.floating, float)):
        x = float(x)
        return None if not np.isfinite(x) else x
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


class _Entry:
    """Shared behaviour of the summary's dataclasses: values made plain on construction (numpy scalars to
    Python numbers, NaN/inf to None, sequences to tuples), JSON form in field order with ``extra`` appended."""

    def __post_init__(self):
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "extra" or dataclasses.is_dataclass(value) or _nested(type(self), f.name):
                continue
            value = plain(value)
            if isinstance(value, list) and f.name not in _LISTS:
                value = tuple(value)
            object.__setattr__(self, f.name, value)

    def has(self, name: str) -> bool:
        """The entry holds field ``name``: always, except a field of a group the entry does not have."""
        group = self.__dataclass_fields__[name].metadata.get("present_with")
        return group is None or getattr(self, group) is not None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: schema fields in order (those of groups the entry does not have left out), then ``extra``."""
        out = {}
        for f in dataclasses.fields(self):
            if f.name == "extra":
                continue
            value = getattr(self, f.name)
            if not self.has(f.name):
                continue
            out[f.name] = _json(value)
        out.update(plain(getattr(self, "extra", {}) or {}))
        return out


def _json(value):
    if isinstance(value, _Entry):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    return plain(value)


# fields whose JSON list is a list in Python too (a sequence of names or values of varying length)
_LISTS = {"failures", "warnings", "arm_modes_hz", "undetermined_components", "rigid_joints"}


# nested entries: class -> {field name -> (container kind: None or dict, class)}; read_summary builds them from JSON
NESTING: dict = {}


def _nested(cls, name: str):
    return NESTING.get(cls, {}).get(name)
