"""The S-N curve: a piecewise power law ``N = N_a (S_a / S)^m`` with knees and a cut-off, of stress amplitudes
(base material, R = -1) or stress ranges (welded detail categories). Stresses [Pa], lives [cycles]. The curves'
data: materials in :mod:`.sn`, Eurocode detail categories in :mod:`.details`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError

MPa = 1e6
QUANTITIES = ("amplitude", "range")


@dataclass(frozen=True)
class SNCurve:
    """A piecewise power-law S-N curve.

    Segment 0 passes through (``N_ref``, ``S_ref``) with inverse slope ``m[0]`` (``N = N_ref (S_ref/S)^m0``)
    up to ``N_knee[0]``; segment j runs from ``N_knee[j-1]`` to ``N_knee[j]`` (the last one to ``N_cutoff``)
    with inverse slope ``m[j]``, continuous at the knees. Stresses below ``S(N_cutoff)`` (the endurance limit
    or cut-off, :attr:`limit`) give infinite life; ``N_cutoff = inf`` continues the last slope for ever.

    ``quantity`` is ``"amplitude"`` (base material, R = -1) or ``"range"`` (welded detail categories);
    ``ultimate_strength`` [Pa] feeds the mean-stress correction (``None`` for detail categories, which take
    none). Stresses [Pa], lives [cycles].
    """

    name: str
    S_ref: float
    N_ref: float
    m: tuple
    N_knee: tuple = ()
    N_cutoff: float = np.inf
    quantity: str = "amplitude"
    ultimate_strength: float | None = None
    source: str = ""

    def __post_init__(self):
        m, knees = tuple(float(v) for v in np.atleast_1d(self.m)), tuple(float(v) for v in self.N_knee)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "N_knee", knees)
        if self.quantity not in QUANTITIES:
            raise InputError(f"S-N curve {self.name!r}: quantity must be one of {QUANTITIES}, got {self.quantity!r}")
        if len(m) != len(knees) + 1:
            raise InputError(f"S-N curve {self.name!r}: len(m) = {len(m)} must be len(N_knee) + 1 = {len(knees) + 1}")
        if not (self.S_ref > 0 and self.N_ref > 0 and all(v > 0 for v in m)):
            raise InputError(f"S-N curve {self.name!r}: need S_ref > 0, N_ref > 0 and every m > 0; got "
                             f"S_ref = {self.S_ref}, N_ref = {self.N_ref}, m = {m}")
        edges = (*knees, self.N_cutoff)
        if any(b <= a for a, b in zip(edges, edges[1:])) or (knees and knees[0] <= 0):
            raise InputError(f"S-N curve {self.name!r}: knees {knees} and cut-off {self.N_cutoff} must increase")
        if self.ultimate_strength is not None and not self.ultimate_strength > 0:
            raise InputError(f"S-N curve {self.name!r}: ultimate_strength must be > 0 or None")

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_basquin(cls, name, S_f, b, *, N_cutoff=np.inf, ultimate_strength=None, source=""):
        """Basquin's law ``S_a = S_f (2N)^b`` (``S_f`` [Pa] the fatigue strength coefficient, ``b < 0``)."""
        if not (S_f > 0 and b < 0):
            raise InputError(f"S-N curve {name!r}: Basquin needs S_f > 0 and b < 0, got S_f = {S_f}, b = {b}")
        return cls(name, S_f * 2.0 ** b, 1.0, (-1.0 / b,), (), N_cutoff, "amplitude", ultimate_strength, source)

    @classmethod
    def from_two_points(cls, name, N1, S1, N2, S2, *, endurance=True, ultimate_strength=None, source=""):
        """The line through (``N1``, ``S1``) and (``N2``, ``S2``) in log-log axes; with ``endurance`` the
        curve is cut off at ``N2`` (an endurance limit ``S2``: infinite life below it)."""
        m = np.log(N2 / N1) / np.log(S1 / S2)
        return cls(name, S1, N1, (m,), (), N2 if endurance else np.inf, "amplitude", ultimate_strength, source)

    def scaled(self, factor: float) -> "SNCurve":
        """The curve with every stress multiplied by ``factor`` (Marin surface/size factors k_a k_b, or the
        Eurocode size reduction k_s); lives unchanged."""
        if not (np.isfinite(factor) and factor > 0):
            raise InputError(f"surface/size factor must be a finite number > 0, got {factor}")
        if factor == 1.0:
            return self
        return replace(self, name=f"{self.name} x {factor:g}", S_ref=self.S_ref * factor)

    # ------------------------------------------------------------------ evaluation
    def _segments(self):
        """(N_anchor, S_anchor, m, S_low) per segment: S_low the stress at the segment's long-life end."""
        out, N_a, S_a = [], self.N_ref, self.S_ref
        for m, N_end in zip(self.m, (*self.N_knee, self.N_cutoff)):
            S_end = S_a * (N_a / N_end) ** (1.0 / m) if np.isfinite(N_end) else 0.0
            out.append((N_a, S_a, m, S_end))
            N_a, S_a = N_end, S_end
        return out

    @property
    def limit(self) -> float:
        """Endurance limit / cut-off stress S(N_cutoff) [Pa] (0 when the curve has no cut-off)."""
        return self._segments()[-1][3]

    @property
    def C(self) -> float:
        """``C`` of the first segment written ``N = C S^-m`` [cycles Pa^m]."""
        return self.N_ref * self.S_ref ** self.m[0]

    def life(self, stress) -> np.ndarray:
        """Cycles to failure at a stress amplitude (or range, see ``quantity``) [Pa], any shape; ``inf`` below
        :attr:`limit`, 0 for an infinite stress."""
        S = np.asarray(stress, float)
        N = np.full(S.shape, np.inf)
        S_high = np.inf
        with np.errstate(divide="ignore", over="ignore"):
            for N_a, S_a, m, S_low in self._segments():
                on = (S >= S_low) & (S < S_high) if S_low > 0 else (S > 0) & (S < S_high)
                N[on] = N_a * (S_a / S[on]) ** m
                S_high = S_low
        N[np.isposinf(S)] = 0.0
        return N

    def strength(self, cycles) -> np.ndarray:
        """The inverse of :meth:`life`: stress [Pa] at a life [cycles]; :attr:`limit` beyond the cut-off."""
        N = np.asarray(cycles, float)
        if np.any(~(N > 0)):
            raise InputError(f"S-N curve {self.name!r}: lives must be > 0 cycles")
        S = np.full(N.shape, self.limit)
        N_low = 0.0
        for (N_a, S_a, m, _), N_end in zip(self._segments(), (*self.N_knee, self.N_cutoff)):
            on = (N > N_low) & (N <= N_end)
            S[on] = S_a * (N_a / N[on]) ** (1.0 / m)
            N_low = N_end
        return S
