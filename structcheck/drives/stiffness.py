"""Reducer torsion curves and the joint stiffness the arm model takes.

Strain-wave gears (Harmonic Drive SE, CSD-2A engineering data, doc 1019659, p.23, eqs. 23.1-23.3; CHA manual
doc 1018854 p.68): the torque-torsion curve in three linear segments,

    phi = T / K1                                          |T| <= T1
    phi = T1 / K1 + (T - T1) / K2                         T1 < |T| <= T2
    phi = T1 / K1 + (T2 - T1) / K2 + (T - T2) / K3        |T| > T2

odd in T. Cycloidal/RV reducers (Nabtesco) give one torsional stiffness and a lost motion (the torsion angle at
the middle of the hysteresis width at +-3 % of rated torque); the curve here is T / K, the lost motion (a dead
band of under an arcminute) is left out of the elastic curve.

The arm model is linear: it takes one stiffness per joint. ``SECANT`` is T / phi(T), the stiffness that gives the
right deflection at torque T (the choice for a static or peak deflection); ``TANGENT`` is dT/dphi at T, the
stiffness of small vibrations about a load T (the choice for frequencies about a working load). Below T1 both are
K1, so a light load gives the softest value; the load level is the caller's choice (stated in docs/drivetrain.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Mapping, Protocol

import numpy as np

from ..errors import InputError, require_number

if TYPE_CHECKING:
    from .catalogue import Bearing, Reducer


class TorsionCurve(Protocol):
    """A reducer's torque-torsion curve (output side, input blocked)."""

    def angle(self, torque) -> np.ndarray:
        """Torsion angle [rad] at output torque ``torque`` [N m] (any shape)."""

    def tangent(self, torque) -> np.ndarray:
        """dT/dphi [N m/rad] at ``torque`` [N m]."""


@dataclass(frozen=True)
class ThreeSegmentTorsion:
    """Strain-wave torsion: limit torques ``t1`` < ``t2`` [N m], segment stiffnesses ``k1``, ``k2``, ``k3``
    [N m/rad]."""

    t1: float
    t2: float
    k1: float
    k2: float
    k3: float

    def angle(self, torque) -> np.ndarray:
        T = np.abs(np.asarray(torque, float))
        phi = (np.minimum(T, self.t1) / self.k1 + np.clip(T - self.t1, 0.0, self.t2 - self.t1) / self.k2
               + np.maximum(T - self.t2, 0.0) / self.k3)
        return np.sign(torque) * phi

    def tangent(self, torque) -> np.ndarray:
        T = np.abs(np.asarray(torque, float))
        return np.select([T <= self.t1, T <= self.t2], [self.k1, self.k2], self.k3)


@dataclass(frozen=True)
class LinearTorsion:
    """Cycloidal/RV torsion: one stiffness ``k`` [N m/rad]; ``lost_motion`` [rad] is kept for the record."""

    k: float
    lost_motion: float | None = None

    def angle(self, torque) -> np.ndarray:
        return np.asarray(torque, float) / self.k

    def tangent(self, torque) -> np.ndarray:
        return np.full(np.shape(torque), self.k)


class StiffnessChoice(Enum):
    """How the curve is linearised at a load level: ``secant`` T / phi(T), ``tangent`` dT/dphi."""

    SECANT = "secant"
    TANGENT = "tangent"

    def of(self, curve: TorsionCurve, torque: float) -> float:
        """The linear stiffness [N m/rad] of ``curve`` at ``torque`` [N m] (secant at 0 N m: the first slope)."""
        if self is StiffnessChoice.TANGENT or torque == 0:
            return float(curve.tangent(torque))
        return float(torque / curve.angle(torque))


def joint_stiffness(reducer: "Reducer", torque: float, choice: StiffnessChoice | str = StiffnessChoice.SECANT,
                    bearing: "Bearing | None" = None) -> float | tuple[float, float]:
    """The joint's linear torsional stiffness [N m/rad] from ``reducer``'s curve at the load level ``torque``
    [N m] (e.g. the joint's peak or RMS torque over the duty), linearised by ``choice``; with a ``bearing`` whose
    entry gives a tilting stiffness (moment rigidity), (torsional, tilt) [N m/rad] as ``ArmSettings.joint_stiffness``
    takes it: the tilt spring turns the child about the two axes normal to the joint's, theta = M / k_tilt."""
    choice = StiffnessChoice(choice)
    torque = require_number(f"reducer {reducer.name}: load level", torque, "N m")
    curve = reducer.torsion
    if curve is None:
        raise InputError(f"reducer {reducer.name}: its catalogue entry gives no torsional stiffness; add "
                         f"torsion_t1_nm, torsion_t2_nm, torsion_k1..k3_nm_per_rad or torsional_stiffness_nm_per_rad")
    k = choice.of(curve, abs(torque))
    if bearing is not None and bearing.tilt_stiffness is not None:
        return k, bearing.tilt_stiffness
    return k


def arm_joint_stiffness(drives: Mapping[str, tuple["Reducer", float]],
                        choice: StiffnessChoice | str = StiffnessChoice.SECANT) -> dict[str, float]:
    """``{joint: (reducer, load level [N m])}`` -> ``{joint: stiffness [N m/rad]}`` for
    ``ArmSettings(joint_stiffness=...)``."""
    return {joint: joint_stiffness(reducer, torque, choice) for joint, (reducer, torque) in drives.items()}
