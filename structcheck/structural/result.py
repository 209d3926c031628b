"""What a structural model is (:class:`StructuralModel`), builds per link (:class:`LinkReductions`) and gives the
rest of a run (:class:`StructuralResult`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..checks import LinkSolution, ToolPointChecks
from ..notes import Note
from .joints import RigidJoints


@dataclass(frozen=True)
class LinkModelPeaks:
    """The per-link model's own numbers per link, for a run of another model that asked for them beside its own
    (``ArmSettings(compare_link_model=True)``): ``max_von_mises_pa`` its peak von Mises [Pa] (unaveraged, element nodes),
    ``quasi_static_max_von_mises_pa`` its peak without elastic inertia [Pa] (NaN when the link keeps no modes),
    ``lowest_frequency_hz`` the link's first mode clamped at its proximal joint [Hz] (NaN: no modes kept)."""

    max_von_mises_pa: dict[str, float]
    quasi_static_max_von_mises_pa: dict[str, float]
    lowest_frequency_hz: dict[str, float]


@dataclass(frozen=True)
class LinkReductions:
    """What a structural model builds per link before the analysis grid is refined: ``bases`` link -> the per-link
    ``fe.response.LinkBasis`` (one factorization of the link clamped at its proximal joint: its modes say where the
    link rings, ``study.refine``), ``superelements`` link -> ``flex.superelement.Superelement`` (the arm model's,
    reduced in the same pass; None for the per-link model)."""

    bases: dict
    superelements: dict | None = None


@dataclass(frozen=True)
class StructuralResult:
    """The structural stage's result on the analysis samples.

    ``solutions`` link -> ``checks.LinkSolution`` (the layout the checks, fatigue and results read, whichever model
    made it); ``tool`` the tool point's deflection and the arm's lowest mode (None without a tool point);
    ``arm_mode`` (Hz, time [s]) the arm's lowest mode as the model knows it (estimated or assembled; NaN: none),
    for the load-ramp warning; ``undetermined`` (n_joints, 6) bool the joint wrench components the model leaves to
    rigid-body mechanics' minimum-norm split; ``tree_only_tool_deflection`` the tool deflection leaves out the
    loops' stiffness; ``arm_dynamics`` 'integrated' when the model integrates the arm's modes in time, else 'not
    captured'; ``warnings`` the model's own notes; ``arm`` the arm model's ``flex.stage.ArmStage`` (None for the
    per-link model); ``link_model`` the per-link model's numbers beside the arm model's (None unless asked for)."""

    solutions: dict[str, LinkSolution]
    tool: ToolPointChecks | None
    arm_mode: tuple[float, float]
    undetermined: np.ndarray
    tree_only_tool_deflection: bool
    arm_dynamics: str
    warnings: list[Note] = field(default_factory=list)
    arm: Any = None
    link_model: LinkModelPeaks | None = None

    @property
    def mode_shapes(self):
        """The assembled arm's lowest mode shapes (``flex.modes.ArmModeShapes``), None for the per-link model."""
        return None if self.arm is None else self.arm.mode_shapes


class StructuralModel(Protocol):
    """One way to compute the links' elastic response: ``name`` as ``Study.flexibility`` names it."""

    name: str

    def check(self, study, chain) -> None:
        """InputError for a study (``study.Study``, its ``chain`` a ClosedChain) this model cannot run."""

    def reduce(self, study, prep, loads: dict, clock, progress: bool) -> LinkReductions:
        """Every link's reductions (:class:`LinkReductions`) from its loads (link -> LinkLoads: their unit loads
        do not change when the grid is refined), the links as many at a time as the process has cores, timed as
        ``fe_bases``."""

    def note(self, study) -> str:
        """One line for the run header: the model and what it does."""

    def rigid_joints(self, study) -> RigidJoints:
        """The joints the model holds rigid and what that means (:mod:`structcheck.structural.joints`)."""

    def solve(self, study, prep, rigid, loads: dict, reduced: LinkReductions, frames: np.ndarray, clock,
              progress: bool, finish=None) -> StructuralResult:
        """The response on the rigid stage's samples ``rigid.t``: ``prep`` the study's prepared inputs
        (``study.Prepared``: ``chain`` with the inertials used, the analysis ``grid``), ``rigid`` the rigid stage
        (``t``, ``point_forces``, ``body``), ``loads`` link -> LinkLoads, ``reduced`` the links'
        :class:`LinkReductions` (the model may release what it no longer needs of them), ``frames`` the output
        frames' indices into ``t``, ``clock`` a ``progress.Clock`` (phases), ``progress`` show progress bars;
        ``finish(solution) -> solution`` applied to each link's solution as soon as it exists, in the thread that
        made it (the run forms the link's results there and keeps what it returns)."""
