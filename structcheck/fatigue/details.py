"""Eurocode detail categories: welded and constructional details as stress-*range* S-N curves, steel (EN 1993-1-9)
and aluminium (EN 1999-1-3), with the partial factors of the check stated in the curve.

Both standards draw a detail's fatigue strength as two straight lines in log-log axes through the detail category
dsigma_C at N_C = 2e6 cycles: slope m1 to the knee at N_D = 5e6 cycles (the constant-amplitude fatigue limit
dsigma_D), slope m2 from there to the cut-off at N_L = 1e8 cycles (dsigma_L; no damage below it)::

    N = N_C (dsigma_C / dsigma)^m1                       for dsigma >= dsigma_D = dsigma_C (N_C / N_D)^(1/m1)
    N = N_D (dsigma_D / dsigma)^m2                       for dsigma_L <= dsigma < dsigma_D,
                                                             dsigma_L = dsigma_D (N_D / N_L)^(1/m2)

* **EN 1993-1-9:2005** (steel) sec. 7.1, Fig. 7.1: m1 = 3, m2 = 5 for every category; the 14 categories
  36...160 MPa of its Tables 8.1-8.10 are named ``"EC3-<dsigma_C>"``.
* **EN 1999-1-3:2007** (aluminium) sec. 6.2: each detail's row gives dsigma_C and m1 (the standard names a
  category "dsigma_C-m1", e.g. "40-4,3") and the detail's m2. This project could not check the standard's detail
  tables against its text, so **no aluminium category is shipped**: the user names the detail's row as
  ``"EC9-<dsigma_C>-<m1>-<m2>"`` (MPa, -, -), e.g. ``"EC9-40-4.3-6.3"``, and the curve takes the N_C, N_D, N_L
  above (from EN 1999-1-3 sec. 6.2.1, Fig. 6.1; not verified against the text, docs/fatigue.md).

Partial factors: the check is gamma_Ff dsigma <= dsigma_R / gamma_Mf (both standards), applied here by dividing
the curve's stresses by gamma_Ff gamma_Mf; the curve's name says them when either differs from 1 (characteristic
curves otherwise). Ranges include the weld's residual stresses: no mean-stress correction. Stresses [Pa] in the
curves, [MPa] in the names; lives [cycles]. One dispatch: :class:`DetailStandard`, by the name's prefix.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..errors import InputError
from .curve import MPa, SNCurve

N_C, N_D, N_L = 2e6, 5e6, 1e8  # reference, knee (constant-amplitude fatigue limit), cut-off [cycles]
#: EN 1993-1-9:2005 Tables 8.1-8.10: the detail categories dsigma_C [MPa]
EC3_CATEGORIES = {f"EC3-{c}": c for c in (160, 140, 125, 112, 100, 90, 80, 71, 63, 56, 50, 45, 40, 36)}


class _Steel:
    """EN 1993-1-9: ``EC3-<dsigma_C>``, one of :data:`EC3_CATEGORIES`; m1 = 3, m2 = 5."""

    form = "EC3-<dsigma_C>"
    document = "EN 1993-1-9:2005 sec. 7.1, Fig. 7.1"

    def slopes(self, name: str, fields: list[float]) -> tuple[float, float, float]:
        key = f"EC3-{fields[0]:g}" if len(fields) == 1 else None
        if key not in EC3_CATEGORIES:
            raise InputError(f"unknown detail category {name!r}; valid categories are {list(EC3_CATEGORIES)}")
        return fields[0], 3.0, 5.0

    def label(self, dsigma_C: float, m1: float, m2: float) -> str:
        return f"EC3-{dsigma_C:g}"

    def describe(self) -> str:
        return f"steel: m1 = 3, m2 = 5; dsigma_C = {', '.join(str(v) for v in EC3_CATEGORIES.values())} MPa"


class _Aluminium:
    """EN 1999-1-3: ``EC9-<dsigma_C>-<m1>-<m2>`` from the detail's row (none shipped: module docstring)."""

    form = "EC9-<dsigma_C>-<m1>-<m2>"
    document = "EN 1999-1-3:2007 sec. 6.2.1, Fig. 6.1 (curve shape not verified against the text)"

    def slopes(self, name: str, fields: list[float]) -> tuple[float, float, float]:
        if len(fields) != 3 or not all(v > 0 for v in fields) or fields[2] < fields[1]:
            raise InputError(f"aluminium detail category {name!r}: write it as EC9-<dsigma_C>-<m1>-<m2> with the "
                             f"numbers of the detail's row of EN 1999-1-3 (dsigma_C [MPa] at 2e6 cycles, m1 to "
                             f"5e6, m2 >= m1 to 1e8), e.g. 'EC9-40-4.3-6.3'; no EN 1999-1-3 category is shipped "
                             f"(its tables could not be verified, docs/fatigue.md)")
        return fields[0], fields[1], fields[2]

    def label(self, dsigma_C: float, m1: float, m2: float) -> str:
        return f"EC9-{dsigma_C:g}-{m1:g}-{m2:g}"

    def describe(self) -> str:
        return ("aluminium: dsigma_C, m1 and m2 from the detail's row of the standard; no category shipped (its "
                "tables could not be verified)")


class DetailStandard(Enum):
    """The standard a detail category belongs to, named by the category's prefix: one place that dispatches. Each
    value has ``form`` (how a name is written), ``document`` (the clause), ``slopes(name, fields)`` ->
    (dsigma_C, m1, m2), ``label`` and ``describe()``."""

    EC3 = _Steel()
    EC9 = _Aluminium()

    @classmethod
    def of(cls, name) -> "DetailStandard | None":
        """The standard of a category name (its prefix before the first '-', case-insensitive); None for a name
        that is no detail category (a material)."""
        prefix = str(name).split("-", 1)[0].upper() if "-" in str(name) else ""
        return cls.__members__.get(prefix)


@dataclass(frozen=True)
class DetailCategory:
    """A detail's fatigue strength: ``standard``, the category ``dsigma_C`` [MPa] at 2e6 cycles, slopes ``m1``
    (to 5e6) and ``m2`` (to the cut-off at 1e8), and the partial factors ``gamma_Ff`` (on the stress ranges) and
    ``gamma_Mf`` (on the strength) of the check; build one with :func:`parse_detail`."""

    standard: DetailStandard
    dsigma_C: float
    m1: float
    m2: float
    gamma_Ff: float = 1.0
    gamma_Mf: float = 1.0

    def __post_init__(self):
        for what in ("gamma_Ff", "gamma_Mf"):
            v = getattr(self, what)
            if not (isinstance(v, (int, float)) and 1.0 <= v < 10.0):
                raise InputError(f"detail category {self.name}: {what} = {v!r}: give a partial factor >= 1")

    @property
    def name(self) -> str:
        """The category's name, with the partial factors when either differs from 1."""
        label = self.standard.value.label(self.dsigma_C, self.m1, self.m2)
        if (self.gamma_Ff, self.gamma_Mf) == (1.0, 1.0):
            return label
        return f"{label} (gamma_Ff {self.gamma_Ff:g}, gamma_Mf {self.gamma_Mf:g})"

    def curve(self) -> SNCurve:
        """The stress-range S-N curve, stresses divided by gamma_Ff gamma_Mf (module docstring)."""
        factor = self.gamma_Ff * self.gamma_Mf
        D = self.dsigma_C * (N_C / N_D) ** (1.0 / self.m1)
        L = D * (N_D / N_L) ** (1.0 / self.m2)
        source = (f"{self.standard.value.document}: detail category {self.dsigma_C:g} MPa at 2e6 cycles, m1 = "
                  f"{self.m1:g} to the knee at 5e6 (dsigma_D = {D:.4g} MPa), m2 = {self.m2:g} to the cut-off at "
                  f"1e8 (dsigma_L = {L:.4g} MPa); partial factors gamma_Ff = {self.gamma_Ff:g}, gamma_Mf = "
                  f"{self.gamma_Mf:g} (curve stresses / {factor:g})")
        return SNCurve(self.name, self.dsigma_C * MPa / factor, N_C, (self.m1, self.m2), (N_D,), N_L, "range", None,
                       source)


def parse_detail(name: str, gamma_Ff: float = 1.0, gamma_Mf: float = 1.0) -> DetailCategory:
    """The :class:`DetailCategory` a name gives (``"EC3-71"``, ``"EC9-40-4.3-6.3"``; module docstring), with the
    check's partial factors; InputError naming the valid forms otherwise."""
    standard = DetailStandard.of(name)
    forms = [s.value.form for s in DetailStandard]
    if standard is None:
        raise InputError(f"unknown detail category {name!r}; write one as {' or '.join(forms)} "
                         f"(steel: {list(EC3_CATEGORIES)})")
    try:
        fields = [float(v) for v in str(name).split("-")[1:]]
    except ValueError:
        raise InputError(f"detail category {name!r}: write it as {standard.value.form} (numbers)") from None
    return DetailCategory(standard, *standard.value.slopes(name, fields), gamma_Ff, gamma_Mf)


def detail_category(name: str, gamma_Ff: float = 1.0, gamma_Mf: float = 1.0) -> SNCurve:
    """A Eurocode detail category's stress-*range* curve: steel ``"EC3-71"`` (EN 1993-1-9) or aluminium
    ``"EC9-<dsigma_C>-<m1>-<m2>"`` from the detail's row of EN 1999-1-3; characteristic unless the partial
    factors are given (module docstring)."""
    return parse_detail(name, gamma_Ff, gamma_Mf).curve()
