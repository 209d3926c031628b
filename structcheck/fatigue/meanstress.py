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
Smith-Watson-Topper: Smith, Watson & Topper, J. Materials 5 (1970) 767-778. Each method is one class of the
:class:`MeanStressCorrection` protocol (its amplitude, and the scales at which a history's largest cycle reaches
a limit, which the screening and the safety-factor cap of :mod:`.damage` and :mod:`.links` use), looked up once
by name in :func:`as_correction`. A cycle whose mean reaches the
ultimate strength (S_m >= S_u) is a static failure: S_ar = inf for every method (see
:func:`beyond_ultimate`), so its damage is infinite and its life zero - never NaN.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from ..errors import InputError


class MeanStressCorrection(Protocol):
    """A mean-stress correction. Arrays [Pa] broadcast; ``a`` a cycle's (or a history's largest) amplitude,
    ``M`` the maximum, ``mid`` the mean (midrange), ``Su`` the ultimate strength."""

    name: str
    corrects: bool  # False for 'none': the amplitude itself, never inf for a mean beyond Su
    ranks_by_cap: bool  # with a design life the cap ranks planes otherwise than the amplitude (mean enters apart)

    def amplitude(self, Sa, Sm, Su: float) -> np.ndarray:
        """Equivalent fully reversed amplitude S_ar (module table; means beyond Su not handled here)."""

    def onset(self, L, a, M, mid, Su: float) -> np.ndarray:
        """Smallest scale x at which the largest cycle's S_ar can reach the limit ``L`` (a lower bound)."""

    def cap(self, S_L, a, M, mid, Su: float) -> np.ndarray:
        """Scale x at which the largest cycle's S_ar is ``S_L`` (exact)."""

    def spread(self, L, R, M, top, up, down, Su: float) -> np.ndarray:
        """Lower bound of :meth:`onset` over every plane of histories whose principal stresses stay within
        ``T + [-down, up]`` (range ``R`` = up + down, maximum ``M`` = top + up, ``top`` >= T's largest
        principal stress): :func:`.links._spread_onset`."""

    @property
    def bound(self) -> "MeanStressCorrection":
        """A correction whose damage is at least this one's for every cycle (itself, or Goodman for Gerber)."""


class _Goodman:
    name, corrects, ranks_by_cap = "goodman", True, True

    def amplitude(self, Sa, Sm, Su):
        return Sa / (1.0 - np.clip(Sm / Su, 0.0, None))

    def onset(self, L, a, M, mid, Su):
        return L / (a + L * np.clip(mid, 0.0, None) / Su)

    def cap(self, S_L, a, M, mid, Su):
        return S_L / (a + S_L * np.clip(mid, 0.0, None) / Su)

    def spread(self, L, R, M, top, up, down, Su):
        # a + k max(mid, 0) = max(a, ((1 + k) max - (1 - k) min) / 2), k = L / Su (docstring of links._spread_onset)
        k = L / Su
        g = (np.maximum(0.5 * R, k * top + 0.5 * ((1.0 + k) * up + (1.0 - k) * down)) if k <= 1.0
             else 0.5 * R + k * np.clip(M, 0.0, None))
        return L / g

    @property
    def bound(self):
        return self


class _Gerber(_Goodman):
    """Gerber's S_ar is at most Goodman's for S_m >= 0 (and equal below): Goodman's onset bounds it."""

    name, corrects, ranks_by_cap = "gerber", True, True

    def amplitude(self, Sa, Sm, Su):
        r = np.clip(Sm / Su, 0.0, None)
        return Sa / (1.0 - r * r)

    def cap(self, S_L, a, M, mid, Su):
        # root of (S_L m^2 / S_u^2) x^2 + a x - S_L = 0, in its stable form
        c = S_L * (np.clip(mid, 0.0, None) / Su) ** 2
        return 2.0 * S_L / (a + np.sqrt(a * a + 4.0 * c * S_L))

    @property
    def bound(self):
        return CORRECTIONS["goodman"]


class _SWT:
    name, corrects, ranks_by_cap = "swt", True, False  # cap = limit / S_ar of the largest cycle: same ranking

    def amplitude(self, Sa, Sm, Su):
        return np.sqrt(np.clip(Sm + Sa, 0.0, None) * Sa)

    def onset(self, L, a, M, mid, Su):
        return L / np.sqrt(np.clip(M, 0.0, None) * a)

    cap = onset

    def spread(self, L, R, M, top, up, down, Su):
        return L / np.sqrt(np.clip(M, 0.0, None) * 0.5 * R)

    @property
    def bound(self):
        return self


class _NoCorrection:
    name, corrects, ranks_by_cap = "none", False, False

    def amplitude(self, Sa, Sm, Su):
        return Sa.copy()

    def onset(self, L, a, M, mid, Su):
        return L / a

    cap = onset

    def spread(self, L, R, M, top, up, down, Su):
        return L / (0.5 * R)

    @property
    def bound(self):
        return self


CORRECTIONS: dict[str, MeanStressCorrection] = {c.name: c for c in (_Goodman(), _Gerber(), _SWT(), _NoCorrection())}
MEAN_STRESS_METHODS = tuple(CORRECTIONS)


def as_correction(method: str | MeanStressCorrection) -> MeanStressCorrection:
    """The correction named ``method`` (one of :data:`MEAN_STRESS_METHODS`; a correction passes through);
    InputError naming the valid ones otherwise."""
    if not isinstance(method, str):
        return method
    try:
        return CORRECTIONS[method]
    except KeyError:
        raise InputError(f"unknown mean-stress correction {method!r}; valid ones are {MEAN_STRESS_METHODS}") from None


def default_correction(curve) -> str:
    """The correction a curve takes unless one is asked for: 'none' for a detail category (stress ranges,
    residual stresses included) or a curve without an ultimate strength, else 'goodman'."""
    return "none" if curve.quantity == "range" or curve.ultimate_strength is None else "goodman"


def check_method(method: str) -> str:
    """``method`` if it names a correction; InputError naming the valid ones otherwise."""
    return as_correction(method).name


def beyond_ultimate(mean, ultimate_strength) -> np.ndarray:
    """True where the mean stress reaches the ultimate strength [Pa] (static failure)."""
    return np.asarray(mean, float) >= ultimate_strength


def equivalent_amplitude(amplitude, mean, ultimate_strength: float, method: str = "goodman") -> np.ndarray:
    """Equivalent fully reversed stress amplitude S_ar [Pa] of cycles with amplitude S_a >= 0 and mean S_m
    [Pa] (arrays broadcast), for an ultimate strength S_u [Pa]; table in the module docstring."""
    correction = as_correction(method)
    if not ultimate_strength > 0:
        raise InputError(f"mean-stress correction needs an ultimate strength > 0, got {ultimate_strength}")
    Sa, Sm = np.broadcast_arrays(np.asarray(amplitude, float), np.asarray(mean, float))
    Su = float(ultimate_strength)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = correction.amplitude(Sa, Sm, Su)
    return np.where(beyond_ultimate(Sm, Su), np.inf, out)
