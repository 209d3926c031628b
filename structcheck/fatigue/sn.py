"""S-N curves: piecewise power laws ``N = N_a (S_a / S)^m`` with knees and a cut-off, and the fatigue data of
the shipped materials, each with its source (the Eurocode welded detail categories: :mod:`.details`).

Stresses in Pa, lives in cycles. Base-material curves are unnotched, fully reversed (R = -1) stress
*amplitudes*; Eurocode detail categories are stress *ranges* that already contain the weld's residual
stresses, so no mean-stress correction applies to them. Where a number is a handbook *estimate* (a rule such
as S_e' = 0.5 S_ut) rather than a measured value, its ``source`` says so; ``docs/fatigue.md`` tabulates them.
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


# ---------------------------------------------------------------------- material data
# Shigley's / Juvinall-Marshek's stress-life estimate: a straight line in log-log axes from
# (1e3 cycles, 0.9 S_ut) to (N_e, S_e'), then an endurance limit (steels, cast iron: N_e = 1e6) or, for
# aluminium (no true endurance limit), the fatigue strength at 5e8 cycles used as a cut-off. The materials'
# S_ut, S_e' and N_e with their sources are in structcheck/model/data/materials.toml (docs/materials.md).
_F_1E3 = 0.9


def material_sn_curve(material) -> SNCurve:
    """The unnotched, fully reversed (R = -1) S-N curve of a material: a library name (case-insensitive) or a
    :class:`structcheck.model.Material` with ``tensile_strength``, ``fatigue_strength`` and ``fatigue_cycles``."""
    from ..model.materials import MATERIALS, Material, get_material
    from .details import EC3_CATEGORIES

    if not isinstance(material, Material):
        key = {k.lower(): k for k in MATERIALS}.get(str(material).lower())
        if key is None:
            raise InputError(f"no fatigue (S-N) data for material {material!r}; library materials are "
                             f"{sorted(MATERIALS)}, or pass a structcheck.fatigue.SNCurve or a detail category "
                             f"such as 'EC3-71' (valid: {sorted(EC3_CATEGORIES)[:3]}...)")
        material = get_material(key)
    m = material
    if m.fatigue_strength is None or m.tensile_strength is None:
        raise InputError(f"no fatigue (S-N) data for material {m.name!r}: add tensile_MPa and a [\"{m.name}\".fatigue] "
                         f"table (strength_MPa, cycles, source) to its material file (Material(tensile_strength=, "
                         f"fatigue_strength=, fatigue_cycles=)), or give fatigue.details an SNCurve or a detail "
                         f"category such as 'EC3-71'")
    return SNCurve.from_two_points(m.name, 1e3, _F_1E3 * m.tensile_strength, m.fatigue_cycles, m.fatigue_strength,
                                   endurance=True, ultimate_strength=m.tensile_strength, source=m.fatigue_source)


def get_sn_curve(spec) -> SNCurve:
    """An :class:`SNCurve` from an SNCurve, a detail category (a name such as ``"EC3-71"`` or
    ``"EC9-40-4.3-6.3"``, or a :class:`structcheck.fatigue.details.DetailCategory` with its partial factors), a
    material name or a :class:`structcheck.model.Material` (by its name)."""
    from .details import DetailCategory, DetailStandard, detail_category

    if isinstance(spec, SNCurve):
        return spec
    if isinstance(spec, DetailCategory):
        return spec.curve()
    if hasattr(spec, "fatigue_strength"):  # a Material: its own fatigue data (a user's file, a HAZ)
        return material_sn_curve(spec)
    name = getattr(spec, "name", spec)
    if not isinstance(name, str):
        raise InputError(f"expected an SNCurve, a material or a detail category name, got {spec!r}")
    if DetailStandard.of(name) is not None:
        return detail_category(name)
    return material_sn_curve(name)


# ---------------------------------------------------------------------- Marin factors
# Shigley's Mechanical Engineering Design, 9th/10th ed., eq. (6-19) and Table 6-2: k_a = a S_ut^b, S_ut in MPa.
SURFACE_FINISH = {"ground": (1.58, -0.085), "machined": (4.51, -0.265), "cold-drawn": (4.51, -0.265),
                  "hot-rolled": (57.7, -0.718), "as-forged": (272.0, -0.995)}


def marin_surface_factor(ultimate_strength: float, finish: str) -> float:
    """Marin surface factor k_a = a S_ut^b (Shigley eq. 6-19, Table 6-2); ``ultimate_strength`` [Pa]. Capped
    at 1 (the formula exceeds 1 for soft alloys with a machined finish, where no benefit is taken)."""
    if finish not in SURFACE_FINISH:
        raise InputError(f"unknown surface finish {finish!r}; valid finishes are {list(SURFACE_FINISH)}")
    a, b = SURFACE_FINISH[finish]
    return min(1.0, a * (ultimate_strength / MPa) ** b)


def marin_size_factor(diameter: float, loading: str = "bending") -> float:
    """Marin size factor k_b for a round section of ``diameter`` [m] (Shigley eq. 6-20): 1.24 d^-0.107 for
    2.79 <= d <= 51 mm, 1.51 d^-0.157 for 51 < d <= 254 mm (bending, torsion), 1 for axial loading."""
    if loading == "axial":
        return 1.0
    if loading not in ("bending", "torsion"):
        raise InputError(f"loading must be 'bending', 'torsion' or 'axial', got {loading!r}")
    d = diameter * 1e3
    if not 2.79 <= d <= 254.0:
        raise InputError(f"Marin size factor is defined for 2.79 mm <= d <= 254 mm, got d = {d:g} mm")
    return 1.24 * d ** -0.107 if d <= 51.0 else 1.51 * d ** -0.157
