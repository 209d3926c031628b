"""The load cases of a study with several (``cases`` in summary.json): per case its role, its verdict and, per link,
how much of its allowance it uses; the envelope of the cases is the rest of the summary
(:mod:`structcheck.results.envelope`). Listed in docs/summary.md with the rest of the summary."""
from __future__ import annotations

from dataclasses import dataclass, field

from .drivetrain_schema import JointDriveSummary
from .entries import NESTING, _Entry, entry


@dataclass(frozen=True)
class CaseLinkSummary(_Entry):
    """One link in one case (``cases.<case>.links.<link>``): a row of the load-case matrix."""

    max_von_mises_pa: float = entry("Pa", "the link's peak von Mises in this case")
    min_safety_factor: float | None = entry("", "strength / peak stress in this case (null: unloaded, infinite)")
    tensile_safety_factor: float | None = entry("", "tensile strength / peak von Mises; accidental cases that ask "
                                                    "for it", present_with="tensile_safety_factor")
    utilisation: float = entry("", "the case's required safety factor / its safety factor (the larger with the "
                                   "tensile check); <= 1 passes")
    fatigue_damage_per_cycle: float | None = entry("", "largest Miner damage of one cycle of this case; duty cases "
                                                       "with fatigue", present_with="fatigue_damage_per_cycle")
    governs: bool = entry("-", "this case governs the link (highest utilisation of all cases)")
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CaseSummary(_Entry):
    """One load case (``cases.<case>``); its whole results folder is ``cases/<case>/`` (a run of the case's study
    on its own, whose fatigue counts the whole duty as that case)."""

    role: str = entry("-", "'duty' (counts in fatigue with its share) or 'accidental' (own safety factors, no "
                           "fatigue)")
    share: float = entry("", "fraction of the duty cycles that are this case (0: accidental)")
    required_safety_factor: float = entry("", "safety factor each link must reach in this case")
    required_tensile_safety_factor: float | None = entry("", "against the tensile strength too (null: not asked)")
    passed: bool = entry("-", "the case passes its strength, deflection and drive checks (fatigue is judged over "
                              "the duty cases together, in the envelope)")
    failures: list = entry("-", "its failed checks", default=())
    max_von_mises_pa: float = entry("Pa", "its largest peak von Mises over the links")
    max_von_mises_link: str = entry("-", "the link of that peak")
    governing_link: str = entry("-", "its link of highest utilisation")
    utilisation: float = entry("", "its highest utilisation over the links")
    tool_point_deflection_m: float | None = entry("m", "its largest tool-point deflection (null: no tool point)")
    t_end_s: float = entry("s", "length of the case's motion")
    folder: str = entry("-", "its results folder, relative to this one")
    links: dict = entry("-", "link name -> CaseLinkSummary", default=None)
    drivetrain: dict | None = entry("-", "a study with drives: joint -> JointDriveSummary of this case's own drive "
                                         "checks (a duty case's peaks, an accidental case's momentary peak, count and "
                                         "bearing static checks; docs/drivetrain.md)", present_with="drivetrain")
    extra: dict = field(default_factory=dict)


NESTING[CaseSummary] = {"links": (dict, CaseLinkSummary), "drivetrain": (dict, JointDriveSummary)}
ENTRIES = ((CaseSummary, "cases.&lt;case&gt;"), (CaseLinkSummary, "cases.&lt;case&gt;.links.&lt;link&gt;"))
