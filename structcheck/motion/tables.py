"""Laws through given points: a B-spline through waypoints (:class:`BSpline`) and a table of times and values,
e.g. exported from ADAMS (:class:`Tabulated`, also read from CSV). Both are a scipy spline on a span
[t0, t1] [s], held at its end values outside it, and share one evaluator."""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .span import as_times, in_span


class _HeldSpline:
    """Evaluation shared by the spline laws: the spline ``_spl`` (set by the subclass) on the span
    ``breakpoints`` = (t0, t1) [s], evaluated at t clipped to the span (so the value holds outside it).

    ``_holds``: whether velocity and acceleration are zero outside the span. There the acceleration's one-sided
    limit at t0 and t1 is chosen by ``side``, the velocity's by ``_velocity_side`` (None: the closed span)."""

    _holds = True
    _velocity_side = None

    def _check_span(self, t, t0, t1):
        """Hook: raise InputError for times ``t`` [s] the law does not cover."""

    def _eval(self, t, nu, side=1):
        """Derivative ``nu`` (0 value, 1 velocity, 2 acceleration) at ``t`` [s], of t's shape."""
        t = as_times(t)
        t0, t1 = self.breakpoints
        self._check_span(t, t0, t1)
        v = self._spl(np.clip(t, t0, t1), nu)
        if nu and self._holds:
            v = np.where(in_span(t, t0, t1, side if nu == 2 else self._velocity_side), v, 0.0)
        return v

    def value(self, t):
        """Offset from home [rad or m] at times ``t`` [s] (scalar or array; same shape out)."""
        return self._eval(t, 0)

    def velocity(self, t):
        """First time derivative [rad/s or m/s] at ``t`` [s] (same shape as t)."""
        return self._eval(t, 1)

    def acceleration(self, t, side=1):
        """Second time derivative [rad/s^2 or m/s^2] at ``t`` [s] (same shape as t); ``side=+1`` gives the right
        limit at the span's ends, ``side=-1`` the left one."""
        return self._eval(t, 2, side)


@dataclass(frozen=True)
class BSpline(_HeldSpline):
    """Quintic (or cubic) B-spline through waypoints ``q`` at ``times`` with zero end velocity and acceleration
    (paper 002's palletizing trajectories), held at its end values outside the time span."""

    times: tuple
    waypoints: tuple
    degree: int = 5

    # the end velocities are zero by construction; at t1 the velocity is taken as zero, not the spline's
    # round-off there (the same one-sided choice as the acceleration's right limit)
    _velocity_side = 1

    def __post_init__(self):
        from scipy.interpolate import make_interp_spline

        t = np.asarray(self.times, float)
        q = np.asarray(self.waypoints, float)
        if not (np.isfinite(t).all() and np.isfinite(q).all()):
            raise InputError(f"BSpline times = {t.tolist()}, waypoints = {q.tolist()}: give finite numbers (s; rad "
                             f"or m)")
        if t.ndim != 1 or len(t) != len(q) or len(t) < 2:
            raise InputError(f"BSpline needs as many times as waypoints (>= 2), got {len(t)} and {len(q)}")
        if np.any(np.diff(t) <= 0):
            raise InputError(f"BSpline times must increase strictly, got {list(t)}")
        if self.degree == 5:
            bc = ([(1, 0.0), (2, 0.0)], [(1, 0.0), (2, 0.0)])
        elif self.degree == 3:
            bc = ([(1, 0.0)], [(1, 0.0)])
        else:
            raise InputError(f"BSpline degree must be 3 or 5, got {self.degree}")
        object.__setattr__(self, "_spl", make_interp_spline(t, q, k=self.degree, bc_type=bc))

    @property
    def breakpoints(self):
        """First and last waypoint times [s]."""
        return (float(self.times[0]), float(self.times[-1]))

    @property
    def ramps(self):
        """Shortest interval between waypoints [s]."""
        return (float(np.min(np.diff(self.times))),)


@dataclass(frozen=True)
class Tabulated(_HeldSpline):
    """Tabulated joint data (e.g. exported from ADAMS): offsets ``q`` [rad or m] at times ``t`` [s] (equal
    lengths, at least 6 rows, times increasing strictly, all finite), interpolated by a quintic spline so that
    velocity and acceleration are continuous inside the table.

    Outside the table ``[t[0], t[-1]]`` the data say nothing about the motion. With ``outside="error"`` (the
    default) evaluating there raises InputError naming the table's span: extend the table (e.g. with rows at
    rest) or shorten the analysis. With ``outside="hold"`` the joint holds its end value with zero velocity and
    acceleration (as this package's Quintic and BSpline laws do); that is consistent only if the data start
    and end at rest, otherwise the velocity jumps at the table ends (an impulse the rigid-body dynamics does
    not represent). Either way the table ends are ``breakpoints``, so the analysis grid contains them; at an
    end, ``acceleration(t, side)`` gives the one-sided limit (``side=+1`` right, ``-1`` left)."""

    t: tuple
    q: tuple
    source: str = "table"
    outside: str = "error"

    ramps = ()

    @classmethod
    def from_csv(cls, path, column: str | None = None, time_column: str = "time", units: str = "rad",
                 outside: str = "error"):
        """Read a CSV with a header row. ``column`` names the joint column (default: the only non-time column);
        ``units`` 'rad', 'deg' or 'm'; ``outside`` as for the class. Errors name the file, row, column and
        time."""
        if units not in ("rad", "deg", "m"):
            raise InputError(f"units must be 'rad', 'deg' or 'm', got {units!r}")
        t, q, column = _read_csv_columns(path, column, time_column)
        if units == "deg":
            q = [math.radians(v) for v in q]
        return cls(tuple(t), tuple(q), source=f"{path}:{column}", outside=outside)

    def __post_init__(self):
        if self.outside not in ("error", "hold"):
            raise InputError(f"{self.source}: outside must be 'error' or 'hold', got {self.outside!r}")
        t, q = _table_column(self.t, self.source, "t"), _table_column(self.q, self.source, "q")
        if len(t) != len(q):
            raise InputError(f"{self.source}: {len(t)} times but {len(q)} values; give one value per time")
        if len(t) < 6:
            raise InputError(f"{self.source}: a table needs at least 6 rows, got {len(t)}")
        bad_t, bad_q = np.flatnonzero(~np.isfinite(t)), np.flatnonzero(~np.isfinite(q))
        if len(bad_t):
            raise InputError(f"{self.source}: the time at index {bad_t[0]} is {t[bad_t[0]]} (NaN or infinite)")
        if len(bad_q):
            k = bad_q[0]
            raise InputError(f"{self.source}: the value at index {k} (time {t[k]:g} s) is {q[k]} (NaN or infinite)")
        bad = np.nonzero(np.diff(t) <= 0)[0]
        if len(bad):
            raise InputError(f"{self.source}: time does not increase at row {bad[0] + 2} "
                             f"({t[bad[0]]:g} -> {t[bad[0] + 1]:g} s)")
        from scipy.interpolate import make_interp_spline

        object.__setattr__(self, "_spl", make_interp_spline(t, q, k=5))

    @property
    def breakpoints(self):
        """The table's first and last times [s]."""
        return (float(self.t[0]), float(self.t[-1]))

    @property
    def _holds(self):
        return self.outside == "hold"

    def _check_span(self, t, t0, t1):
        if self.outside != "error":
            return
        # round-off of a time grid built from the same end times is not "outside"
        tol = 1e-12 * max(1.0, abs(t0), abs(t1))
        out = (t < t0 - tol) | (t > t1 + tol)
        if np.any(out):
            k = np.flatnonzero(out.ravel())[0]
            raise InputError(f"{self.source}: time {t.ravel()[k]:g} s is outside the table's span "
                             f"[{t0:g}, {t1:g}] s; extend the table (e.g. with rows at rest), shorten the "
                             f"analysis, or give outside='hold' to hold the end values")


def _table_column(x, source, what):
    """``x`` as a 1-D float array; InputError naming ``source`` and ``what`` otherwise."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{source}: {what} must be a sequence of numbers") from None
    if a.ndim != 1:
        raise InputError(f"{source}: {what} must be one-dimensional, got shape {a.shape}")
    return a


def _read_csv_columns(path, column, time_column):
    """Times [s] and values (lists of floats) of ``column`` (None: the only non-time column) and ``time_column``
    of the CSV file ``path`` with a header row, and the column's name. Errors name the file, row, column and
    time."""
    try:
        with open(path, newline="") as fh:
            rows = [r for r in csv.reader(fh) if r and any(c.strip() for c in r)]
    except OSError as exc:
        raise InputError(f"cannot read motion table {str(path)!r}: {exc.strerror}") from None
    if not rows:
        raise InputError(f"{path}: the motion table is empty; it needs a header row and data rows")
    header = [h.strip() for h in rows[0]]
    lower = [h.lower() for h in header]
    if time_column.lower() not in lower:
        raise InputError(f"{path}: no time column {time_column!r}; columns are {header}")
    it = lower.index(time_column.lower())
    if column is None:
        others = [h for i, h in enumerate(header) if i != it]
        if len(others) != 1:
            raise InputError(f"{path}: several data columns {others}; say which with column=")
        column = others[0]
    if column not in header:
        raise InputError(f"{path}: no column {column!r}; columns are {header}")
    ic = header.index(column)
    t, q = [], []
    for k, r in enumerate(rows[1:], start=2):
        try:
            tv, qv = float(r[it]), float(r[ic])
        except (ValueError, IndexError):
            raise InputError(f"{path}, row {k}: cannot read a number in column {column!r} or "
                             f"{time_column!r}: {r}") from None
        if not np.isfinite(tv):
            raise InputError(f"{path}, row {k}, column {time_column!r}: the time is NaN or infinite ({r[it]!r})")
        if not np.isfinite(qv):
            raise InputError(f"{path}, row {k}, column {column!r}, time {tv:g} s: value is NaN or infinite "
                             f"({r[ic]!r})")
        t.append(tv)
        q.append(qv)
    return t, q, column
