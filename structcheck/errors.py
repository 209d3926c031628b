"""Exceptions raised by structcheck, and the checks of numbers where they enter.

Every error a user can cause is an :class:`InputError` (a ``ValueError``) whose message names the
offending thing (joint, surface, file, position in an expression, time sample) and the valid choices.
A number is checked once, where it enters (a dataclass's ``__post_init__``, a command-line option, a mesh
generator's parameter), with :func:`require_number` or :func:`require_array`, so that a NaN, an infinity, a
negative mass or text where a number belongs is refused naming the input: ``payload_kg = nan: give a finite
number (kg)``.
"""
from __future__ import annotations

import math
import numbers
from contextlib import contextmanager

import numpy as np


class InputError(ValueError):
    """Bad user input: a study, motion law, robot model, mesh or results folder that cannot be used."""


class MeshError(InputError):
    """A mesh that cannot be analysed (inverted or degenerate elements, wrong units, unsupported cells)."""


def is_number(value) -> bool:
    """Whether ``value`` is a real number (Python or numpy, a 0-d array too), not a bool and not text."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iuf":
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def require_number(name: str, value, unit: str = "", *, above: float | None = None, at_least: float | None = None,
                   below: float | None = None, whole: bool = False) -> float:
    """``value`` as a float (an int if ``whole``) when it is a finite real number (a whole one if ``whole``)
    ``> above``, ``>= at_least`` and ``< below`` (each when given); else InputError reading
    ``<name> = <value>: give a finite number > 0 (<unit>)``."""
    ok = (is_number(value) and math.isfinite(value) and (above is None or value > above)
          and (at_least is None or value >= at_least) and (below is None or value < below)
          and (not whole or float(value).is_integer()))
    if ok:
        return int(value) if whole else float(value)
    bounds = [f"{op} {b:g}" for op, b in ((">", above), (">=", at_least), ("<", below)) if b is not None]
    what = ("a whole number" if whole else "a finite number") + (" " + " and ".join(bounds) if bounds else "")
    kind = "" if is_number(value) else f", not {type(value).__name__}"
    raise InputError(f"{name} = {value!r}: give {what}{f' ({unit})' if unit else ''}{kind}")


def require_array(name: str, value, shape: tuple, unit: str = "") -> np.ndarray:
    """``value`` as a float array of ``shape`` whose entries are all finite; else InputError naming ``name``."""
    try:
        a = np.asarray(value, float)
    except (TypeError, ValueError):
        a = None
    if a is None or a.shape != shape or not np.isfinite(a).all():
        size = " x ".join(map(str, shape))
        value = value.tolist() if isinstance(value, np.ndarray) else value  # on one line
        raise InputError(f"{name} = {value!r}: give {size} finite numbers{f' ({unit})' if unit else ''}")
    return a


@contextmanager
def named_input(name: str):
    """An InputError raised inside is raised again with ``name`` in front (e.g. the joint whose motion law it is)."""
    try:
        yield
    except InputError as exc:
        raise InputError(f"{name}: {exc}") from None
