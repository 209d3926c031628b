"""The external loads a study names: forces at robot points (:class:`PointForce`) and rigid payloads held at
them (:class:`Payload`), each checked where it is made; :func:`check_law` for any law a study takes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InputError, is_number, named_input, require_array, require_number
from .motion import as_law


@dataclass(frozen=True)
class PointForce:
    """An external force at a named robot point: ``magnitude(t)`` [N] (a motion-law string or law object)
    along ``direction`` (3,) in world axes (normalized). Paper 004's claw load: direction (0, 0, -1)."""

    point: str
    magnitude: Any
    direction: tuple[float, float, float] = (0.0, 0.0, -1.0)

    def __post_init__(self):
        check_law(f"point force at {self.point!r}: magnitude", self.magnitude, "N")
        if not np.any(require_array(f"point force at {self.point!r}: direction", self.direction, (3,))):
            raise InputError(f"point force at {self.point!r}: direction = {self.direction!r} is zero; give the "
                             f"force's direction in world axes, e.g. (0, 0, -1)")


@dataclass(frozen=True)
class Payload:
    """A rigid payload held at a named robot point: ``mass`` [kg] with its centre of mass at the point and
    ``inertia`` (3, 3) about it in the point's link axes [kg m^2] (None: a point mass). Its weight and inertia
    (force m (g - a_P), moment -(I alpha + omega x I omega)) load the link on the surface named after the point.
    """

    point: str
    mass: float
    inertia: Any = None

    def __post_init__(self):
        require_number(f"payload at {self.point!r}: mass", self.mass, "kg", above=0)
        if self.inertia is not None:
            require_array(f"payload at {self.point!r}: inertia", self.inertia, (3, 3), "kg m^2")


def check_law(name: str, law, unit: str):
    """``law`` (a motion-law string, number or law object: :func:`structcheck.motion.as_law`) as a Law, or
    InputError naming ``name``: a number that is not finite, an expression that does not parse."""
    if is_number(law):
        require_number(name, law, unit)
    with named_input(name):
        return as_law(law)
