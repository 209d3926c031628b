"""Materials: density, elastic constants, failure criterion and strength, with the source of the numbers.

Ductile materials are judged by von Mises stress against yield; brittle ones (grey cast iron, no yield point)
by the maximum principal stress against the tensile strength.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, require_number
from .library import builtin_text, parse_tables, read_file

CRITERIA = ("von_mises", "max_principal")


@dataclass(frozen=True)
class Material:
    """``density`` [kg/m^3], ``E`` [Pa], ``nu`` [-], ``strength`` [Pa]: yield (0.2 % proof stress, von_mises) or
    tensile strength (max_principal). Optional: ``tensile_strength`` [Pa], ``elongation`` [%] (after fracture, A),
    and the unnotched fully reversed fatigue strength ``fatigue_strength`` [Pa] at ``fatigue_cycles`` (endurance
    limit or cut-off) with its ``fatigue_source`` (structcheck.fatigue.sn builds the S-N curve from them and
    ``tensile_strength``). ``sources``: ((key, text), ...) where each value was checked, by its key in the material
    file (``yield_MPa``, ``fatigue_cycles``, ...), or labelled "not verified against the text"."""

    name: str
    density: float
    E: float
    nu: float
    strength: float
    criterion: str = "von_mises"
    source: str = ""
    tensile_strength: float | None = None
    elongation: float | None = None
    fatigue_strength: float | None = None
    fatigue_cycles: float | None = None
    fatigue_source: str = ""
    sources: tuple = ()

    def __post_init__(self):
        if self.criterion not in CRITERIA:
            raise InputError(f"material {self.name!r}: criterion must be one of {CRITERIA}, got {self.criterion!r}")
        for what, value, unit in (("density", self.density, "kg/m^3"), ("E", self.E, "Pa"),
                                  ("strength", self.strength, "Pa")):
            require_number(f"material {self.name!r}: {what}", value, unit, above=0)
        require_number(f"material {self.name!r}: nu", self.nu, "Poisson's ratio", above=-1, below=0.5)
        for what, value, unit in (("tensile_strength", self.tensile_strength, "Pa"),
                                  ("elongation", self.elongation, "%"),
                                  ("fatigue_strength", self.fatigue_strength, "Pa"),
                                  ("fatigue_cycles", self.fatigue_cycles, "cycles")):
            if value is not None:
                require_number(f"material {self.name!r}: {what}", value, unit, above=0)
        if (self.fatigue_strength is None) != (self.fatigue_cycles is None):
            raise InputError(f"material {self.name!r}: give both fatigue_strength and fatigue_cycles, or neither")

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


def parse_materials(text: str, where: str) -> dict[str, Material]:
    """Materials by name from the TOML text of a material file (layout: :mod:`structcheck.model.library`)."""
    out = {}
    for name, kwargs in parse_tables(text, where).items():
        try:
            out[name] = Material(name, **kwargs)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    return out


def load_materials(path) -> dict[str, Material]:
    """A user's material file (TOML, docs/materials.md) as {name: Material}; pass one to a Part."""
    return parse_materials(*read_file(path))


#: the shipped library, read from structcheck/model/data/materials.toml (docs/materials.md lists it)
MATERIALS = parse_materials(*builtin_text())
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
