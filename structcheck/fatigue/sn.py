"""S-N curves: piecewise power laws ``N = N_a (S_a / S)^m`` with knees and a cut-off, and the fatigue data of
the shipped materials, each with its source (the Eurocode welded detail categories: :mod:`.details`).

Stresses in Pa, lives in cycles. Base-material curves are unnotched, fully reversed (R = -1) stress
*amplitudes*; Eurocode detail categories are stress *ranges* that already contain the weld's residual
stresses, so no mean-stress correction applies to them. Where a number is a handbook *estimate* (a rule such
as S_e' = 0.5 S_ut) rather than a measured value, its ``source`` says so; ``docs/fatigue.md`` tabulates them.
"""
from __future__ import annotations

from ..errors import InputError
from .curve import QUANTITIES, MPa, SNCurve  # noqa: F401  (SNCurve's home until 2026-11: imported from here)
from .details import EC3_CATEGORIES, DetailCategory, DetailStandard, detail_category

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
