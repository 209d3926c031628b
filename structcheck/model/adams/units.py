"""ADAMS UNITS: the dataset's force, mass, length and time units and their factors to SI (N, kg, m, s).

``UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=MILLIMETER, TIME=SECOND`` or ``UNITS/SYSTEM=MMKS``; ADAMS's default
(no UNITS statement) is treated as SI and noted. Factors are exact definitions: inch 0.0254 m, foot 0.3048 m,
mile 1609.344 m, pound mass 0.45359237 kg, slug = lbf s^2/ft = 14.593902937206364 kg, pound force
4.4482216152605 N (0.45359237 kg x 9.80665 m/s^2), kilogram force 9.80665 N, dyne 1e-5 N, ounce 1/16 lb.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...errors import InputError

LBF = 0.45359237 * 9.80665
FACTORS = {
    "FORCE": {"NEWTON": 1.0, "KNEWTON": 1e3, "MEGANEWTON": 1e6, "MILLINEWTON": 1e-3, "MICRONEWTON": 1e-6,
              "NANONEWTON": 1e-9, "DYNE": 1e-5, "KILOGRAM_FORCE": 9.80665, "POUND_FORCE": LBF,
              "KPOUND_FORCE": 1e3 * LBF, "OUNCE_FORCE": LBF / 16},
    "MASS": {"KILOGRAM": 1.0, "GRAM": 1e-3, "MILLIGRAM": 1e-6, "MEGAGRAM": 1e3, "TONNE": 1e3,
             "POUND_MASS": 0.45359237, "KPOUND_MASS": 453.59237, "OUNCE_MASS": 0.45359237 / 16,
             "SLUG": LBF / 0.3048},
    "LENGTH": {"METER": 1.0, "MILLIMETER": 1e-3, "CENTIMETER": 1e-2, "KILOMETER": 1e3, "MICROMETER": 1e-6,
               "INCH": 0.0254, "FOOT": 0.3048, "MILE": 1609.344},
    "TIME": {"SECOND": 1.0, "MILLISECOND": 1e-3, "MICROSECOND": 1e-6, "MINUTE": 60.0, "HOUR": 3600.0},
}
SYSTEMS = {"MKS": ("NEWTON", "KILOGRAM", "METER", "SECOND"), "MMKS": ("NEWTON", "KILOGRAM", "MILLIMETER", "SECOND"),
           "CGS": ("DYNE", "GRAM", "CENTIMETER", "SECOND"), "IPS": ("POUND_FORCE", "POUND_MASS", "INCH", "SECOND"),
           "FPS": ("POUND_FORCE", "SLUG", "FOOT", "SECOND")}
ALIASES = {"N": "NEWTON", "KG": "KILOGRAM", "M": "METER", "MM": "MILLIMETER", "S": "SECOND", "SEC": "SECOND",
           "METRE": "METER", "MILLIMETRE": "MILLIMETER", "CENTIMETRE": "CENTIMETER", "KILOMETRE": "KILOMETER"}


@dataclass(frozen=True)
class Units:
    """The dataset's unit names and their SI factors: ``force`` [N per unit], ``mass`` [kg], ``length`` [m],
    ``time`` [s]."""

    names: tuple = ("NEWTON", "KILOGRAM", "METER", "SECOND")

    def factor(self, quantity: str) -> float:
        """SI per dataset unit of ``quantity`` ('FORCE', 'MASS', 'LENGTH', 'TIME')."""
        return FACTORS[quantity][self.names[tuple(FACTORS).index(quantity)]]

    @property
    def force(self) -> float:
        return self.factor("FORCE")

    @property
    def mass(self) -> float:
        return self.factor("MASS")

    @property
    def length(self) -> float:
        return self.factor("LENGTH")

    @property
    def time(self) -> float:
        return self.factor("TIME")


def read_units(args: dict, where: str) -> Units:
    """Units from a UNITS statement's arguments (keyword -> [value]); InputError naming ``where`` for an unknown
    unit, a UCF (units consistency factor: give consistent units instead) or a time unit other than SECOND (the
    function expressions' TIME would need rescaling)."""
    from .dataset import match

    if "UCF" in args:
        raise InputError(f"{where}: UCF is not read; give FORCE, MASS, LENGTH and TIME (each converted to SI)")
    names = dict(zip(FACTORS, ("NEWTON", "KILOGRAM", "METER", "SECOND")))
    if "SYSTEM" in args:
        system = args["SYSTEM"][0].upper()
        if system not in SYSTEMS:
            raise InputError(f"{where}: unknown SYSTEM {system!r}; known: {', '.join(SYSTEMS)}")
        names = dict(zip(FACTORS, SYSTEMS[system]))
    for q in FACTORS:
        if q in args:
            word = args[q][0].strip().upper()
            names[q] = match(ALIASES.get(word, word), tuple(FACTORS[q]), f"{q.lower()} unit", where)
    if names["TIME"] != "SECOND":
        raise InputError(f"{where}: TIME={names['TIME']} is not read (the laws' TIME would need rescaling); give "
                         f"TIME=SECOND and write the functions in seconds")
    return Units(tuple(names[q] for q in FACTORS))
