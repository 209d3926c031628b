"""A joint's duty: its output-side histories over one duty cycle, time-first, and the integrals the checks take.

Every average of the drivetrain checks is an integral over the cycle (trapezoid rule on the samples). A
manufacturer's piecewise-constant duty (torque T_k at speed n_k for t_k seconds) is a history whose step instants
appear twice (:meth:`JointDuty.from_segments`); its integrals then equal the catalogues' segment sums exactly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, require_array, require_number

RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)


@dataclass(frozen=True)
class JointDuty:
    """One joint over one duty cycle, output side (after the reducer).

    ``t`` (n_t,) [s], non-decreasing (a repeated instant marks a step); ``qd`` (n_t,) joint speed [rad/s]; ``tau``
    (n_t,) joint torque about the axis [N m]; ``qdd`` (n_t,) joint acceleration [rad/s^2] (motor rotor inertia;
    None: not given); ``force``, ``moment`` (n_t, 3): the reaction the joint transmits [N, N m], at a point on the
    joint axis, in a frame whose z is the joint axis (the output bearing; None: not given); ``pause`` [s]: a dwell
    at rest after the last sample, counted in the cycle time (the catalogues' t_p)."""

    t: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    qdd: np.ndarray | None = None
    force: np.ndarray | None = None
    moment: np.ndarray | None = None
    pause: float = 0.0

    def __post_init__(self):
        t = np.asarray(self.t, float)
        if t.ndim != 1 or t.size < 2:
            raise InputError(f"duty t: give at least two time samples (s), not shape {t.shape}")
        n = t.size
        object.__setattr__(self, "t", require_array("duty t", t, (n,), "s"))
        if np.any(np.diff(self.t) < 0) or self.t[-1] <= self.t[0]:
            raise InputError("duty t: give non-decreasing time samples spanning more than 0 s")
        for name, unit in (("qd", "rad/s"), ("tau", "N m"), ("qdd", "rad/s^2")):
            value = getattr(self, name)
            if value is not None or name != "qdd":
                object.__setattr__(self, name, require_array(f"duty {name}", value, (n,), unit))
        for name, unit in (("force", "N"), ("moment", "N m")):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, require_array(f"duty {name}", value, (n, 3), unit))
        object.__setattr__(self, "pause", require_number("duty pause", self.pause, "s", at_least=0))

    @classmethod
    def from_segments(cls, torque_nm, speed_rpm, duration_s, pause_s: float = 0.0) -> "JointDuty":
        """A piecewise-constant duty as the catalogues write it: segment k holds torque ``torque_nm[k]`` [N m] at
        output speed ``speed_rpm[k]`` [rpm] for ``duration_s[k]`` [s]; a dwell ``pause_s`` [s] follows."""
        T, n, dt = (np.atleast_1d(np.asarray(a, float)) for a in (torque_nm, speed_rpm, duration_s))
        if not (T.shape == n.shape == dt.shape) or T.ndim != 1 or np.any(dt <= 0):
            raise InputError("duty segments: give as many torques, speeds and positive durations")
        edges = np.concatenate([[0.0], np.cumsum(dt)])
        t = np.repeat(edges, 2)[1:-1]  # each segment's start and end: steps at repeated instants
        return cls(t=t, qd=np.repeat(n / RPM_PER_RAD_S, 2), tau=np.repeat(T, 2), qdd=np.zeros(t.size),
                   pause=pause_s)

    @property
    def cycle_time(self) -> float:
        """The cycle's length [s]: the samples' span plus the pause."""
        return float(self.t[-1] - self.t[0]) + self.pause

    @property
    def speed_rpm(self) -> np.ndarray:
        """|joint speed| (n_t,) [rpm]."""
        return np.abs(self.qd) * RPM_PER_RAD_S

    def integral(self, y: np.ndarray) -> float:
        """The integral of ``y`` (n_t,) over the samples [unit of y times s] (trapezoid rule; exact for the
        piecewise-linear and, with repeated step instants, the piecewise-constant histories)."""
        return float(np.sum(0.5 * (y[1:] + y[:-1]) * np.diff(self.t)))

    def mean_speed_rpm(self) -> float:
        """The mean |output speed| over the cycle, pause included [rpm] (HD SE CSD-2A eq. 18.5's n_out,av)."""
        return self.integral(self.speed_rpm) / self.cycle_time

    def speed_weighted_mean(self, y: np.ndarray, p: float) -> float:
        """(int |n| |y|^p dt / int |n| dt)^(1/p): the p-power mean of ``y`` weighted by the revolutions turned
        (HD SE CSD-2A eq. 18.2 for p = 3; Nabtesco's T_m for p = 10/3); nan when the joint does not turn."""
        n = self.speed_rpm
        turned = self.integral(n)
        if turned <= 0:
            return math.nan
        return (self.integral(n * np.abs(y) ** p) / turned) ** (1.0 / p)
