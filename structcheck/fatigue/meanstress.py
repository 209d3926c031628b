"""Mean-stress corrections: the equivalent fully reversed amplitude S_ar of a cycle (S_a, S_m) [Pa].

==========  =====================================  ===============================
method      S_ar                                   compressive mean (S_m < 0)
==========  =====================================  ===============================
goodman     S_a / (1 - S_m / S_u)                  S_a (no benefit taken)
gerber      S_a / (1 - (S_m / S_u)^2)              S_a
swt         sqrt(S_max S_a), S_max = S_m + S_a     formula; 0 when S_max <= 0
none        S_a                                    S_a
==========  =====================================  ===============================

Goodman (modified Goodman line) and Gerber as in Shigley's Mechanical Engineering Design, sec. 6-12;
Smith-Watson-Topper: Smith, Watson & Topper, J. Materials 5 (1970) 767-778. A cycle whose mean reaches the
ultimate strength (S_m >= S_u) is a static failure: S_ar = inf for every method (see
:func:`beyond_ultimate`), so its damage is infinite and its life zero - never NaN.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError

MEAN_STRESS_METHODS = ("goodman", "gerber", "swt", "none")


def check_method(method: str) -> str:
    if method not in MEAN_STRESS_METHODS:
        raise InputError(f"unknown mean-stress correction {method!r}; valid ones are {MEAN_STRESS_METHODS}")
    return method


def beyond_ultimate(mean, ultimate_strength) -> np.ndarray:
    """True where the mean stress reaches the ultimate strength [Pa] (static failure)."""
    return np.asarray(mean, float) >= ultimate_strength


def equivalent_amplitude(amplitude, mean, ultimate_strength: float, method: str = "goodman") -> np.ndarray:
    """Equivalent fully reversed stress amplitude S_ar [Pa] of cycles with amplitude S_a >= 0 and mean S_m
    [Pa] (arrays broadcast), for an ultimate strength S_u [Pa]; table in the module docstring."""
    check_method(method)
    if not ultimate_strength > 0:
        raise InputError(f"mean-stress correction needs an ultimate strength > 0, got {ultimate_strength}")
    Sa, Sm = np.broadcast_arrays(np.asarray(amplitude, float), np.asarray(mean, float))
    Su = float(ultimate_strength)
    r = np.clip(Sm / Su, 0.0, None)  # compressive means: no benefit
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "goodman":
            out = Sa / (1.0 - r)
        elif method == "gerber":
            out = Sa / (1.0 - r * r)
        elif method == "swt":
            out = np.sqrt(np.clip(Sm + Sa, 0.0, None) * Sa)
        else:
            out = Sa.copy()
    return np.where(beyond_ultimate(Sm, Su), np.inf, out)
