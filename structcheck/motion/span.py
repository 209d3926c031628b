"""Times and spans shared by the motion laws: the check of a time argument and the samples where a law that is
held outside its span [t0, t1] moves."""
import numpy as np

from ..errors import InputError


def as_times(t):
    """``t`` [s] (scalar or array of any shape) as a float array of the same shape; InputError if any is NaN or
    infinite."""
    t = np.asarray(t, dtype=float)
    if not np.all(np.isfinite(t)):
        raise InputError("time values must be finite numbers (found NaN or inf)")
    return t


def in_span(t, t0, t1, side=None):
    """Boolean mask (shape of ``t``) of the times inside the span [t0, t1] [s] of a law held outside it.

    ``side=None``: the closed span, for a derivative that is continuous at the ends (a velocity). ``side=+1``:
    the open span plus t0, ``side=-1``: the open span plus t1, i.e. the samples whose one-sided limit (+1 right,
    -1 left) of a derivative that jumps at the ends (an acceleration) comes from inside."""
    if side is None:
        return (t >= t0) & (t <= t1)
    return (t > t0) & (t < t1) | ((t == t0) if side > 0 else (t == t1))
