"""Materials: density, elastic constants, failure criterion and strength, with the source of the numbers.

Ductile materials are judged by von Mises stress against yield; brittle ones (grey cast iron, no yield point)
by the maximum principal stress against the tensile strength.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, require_number

CRITERIA = ("von_mises", "max_principal")


@dataclass(frozen=True)
class Material:
    """``density`` [kg/m^3], ``E`` [Pa], ``nu`` [-], ``strength`` [Pa]: yield (von_mises) or tensile strength
    (max_principal)."""

    name: str
    density: float
    E: float
    nu: float
    strength: float
    criterion: str = "von_mises"
    source: str = ""

    def __post_init__(self):
        if self.criterion not in CRITERIA:
            raise InputError(f"material {self.name!r}: criterion must be one of {CRITERIA}, got {self.criterion!r}")
        for what, value, unit in (("density", self.density, "kg/m^3"), ("E", self.E, "Pa"),
                                  ("strength", self.strength, "Pa")):
            require_number(f"material {self.name!r}: {what}", value, unit, above=0)
        require_number(f"material {self.name!r}: nu", self.nu, "Poisson's ratio", above=-1, below=0.5)

    @property
    def yield_strength(self) -> float:
        """``strength`` [Pa] (the tensile strength for a brittle material, which has no yield point)."""
        return self.strength

    def safety_factor(self, von_mises, max_principal=None) -> np.ndarray:
        """strength / governing stress, inf where that stress is <= 0 (unloaded, or for a brittle material a
        compression-only state); ``von_mises`` and ``max_principal`` [Pa] arrays of one shape, any shape.

        The governing stress is von Mises for criterion 'von_mises' and the maximum principal stress for
        'max_principal' (which then must be given)."""
        if self.criterion == "max_principal" and max_principal is None:
            raise InputError(f"material {self.name!r} is brittle: its safety factor needs the max principal stress")
        stress = np.asarray(von_mises if self.criterion == "von_mises" else max_principal, float)
        out = np.full(stress.shape, np.inf)
        np.divide(self.strength, stress, out=out, where=stress > 0)
        return out


MATERIALS = {
    "304": Material("304", 7930.0, 193e9, 0.29, 205e6, source="paper 004, Table 2 (304 stainless steel)"),
    "6061-O": Material("6061-O", 2750.0, 69e9, 0.33, 55.2e6,
                       source="paper 004, Table 2 (6061 aluminium; 55.2 MPa is the annealed 6061-O temper)"),
    "6061-T6": Material("6061-T6", 2700.0, 68.9e9, 0.33, 276e6, source="ASM Handbook / MatWeb, 6061-T6"),
    "HT200": Material("HT200", 7200.0, 120e9, 0.27, 200e6, "max_principal",
                      source="GB/T 9439 grey cast iron HT200: tensile strength 200 MPa; E ~ 110-135 GPa"),
    "structural_steel": Material("structural_steel", 7850.0, 200e9, 0.3, 250e6,
                                 source="ANSYS Engineering Data default 'Structural Steel'"),
    "steel_7801": Material("steel_7801", 7801.0, 200e9, 0.3, 250e6,
                           source="paper 003, Table 2 density of the KR500 cylinder bodies"),
}
#: alloy names whose temper changes the strength several-fold: refused, naming the tempers of MATERIALS (an
#: untempered "6061" meant the annealed 6061-O here until 2026-12, while most designers mean 6061-T6)
TEMPERS = {"6061": ("6061-O", "6061-T6")}


def get_material(material, where: str = "") -> Material:
    """A Material from a name in MATERIALS (case-insensitive) or a Material (returned as is); InputError listing
    the built-in names otherwise (``where``: what the material is for, e.g. "part 'upper'", said first), naming
    the tempers for an alloy name without one (:data:`TEMPERS`)."""
    if isinstance(material, Material):
        return material
    lead = f"{where}: " if where else ""
    if material is None:
        raise InputError(f"{lead}give a material: one of {sorted(MATERIALS)} or a structcheck.Material (no "
                         f"default: a Part's strength and mass depend on it)")
    tempers = TEMPERS.get(str(material).lower())
    if tempers is not None:
        choices = " or ".join(f"{t!r} (yield {MATERIALS[t].strength / 1e6:g} MPa)" for t in tempers)
        raise InputError(f"{lead}material {material!r} names no temper: give {choices}")
    key = {k.lower(): k for k in MATERIALS}.get(str(material).lower())
    if key is None:
        raise InputError(f"{lead}unknown material {material!r}; built-in materials are {sorted(MATERIALS)} "
                         f"(or pass a structcheck.Material)")
    return MATERIALS[key]
