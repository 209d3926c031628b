"""The structural stage of a run: the links' elastic response to their loads, by one of two models.

    link loads ──> model.reduce (per-link bases: where the links ring; superelements) ──> refine ──>
    model.solve ──> StructuralResult ──> checks

- ``"link"`` (:class:`.link.LinkModel`): each link alone in its own frame, supported at its proximal joint;
- ``"arm"`` (:class:`.arm.ArmModel`, the default): the links as superelements assembled along the chain
  (:mod:`structcheck.flex`); the per-link model runs beside it only when the study asks
  (``ArmSettings(compare_link_model=True)``, ``structcheck run --link-model``).

Both give per-link solutions in one layout (``checks.LinkSolution``) that the checks, fatigue and results read
alike, with the tool point and the arm's lowest mode as each model knows them (:class:`StructuralResult`). The model
is chosen once, by :func:`structural_model`; the run's other stages do not branch on it.
"""
from __future__ import annotations

from ..errors import InputError
from .arm import ArmModel
from .joints import RigidJoints
from .link import LinkModel
from .result import LinkModelPeaks, LinkReductions, StructuralModel, StructuralResult

MODELS: dict[str, StructuralModel] = {m.name: m for m in (LinkModel(), ArmModel())}
FLEXIBILITIES = tuple(MODELS)

__all__ = ["FLEXIBILITIES", "MODELS", "LinkModelPeaks", "LinkReductions", "RigidJoints", "StructuralModel",
           "StructuralResult", "rigid_joints", "structural_model"]


def structural_model(study) -> StructuralModel:
    """The structural model ``study.flexibility`` names (a study without parts has only rigid links: the per-link
    model, which then solves none); InputError naming the choices for another name."""
    if study.flexibility not in MODELS:
        raise InputError(f"flexibility must be one of {FLEXIBILITIES}, got {study.flexibility!r}")
    return MODELS[study.flexibility if study.parts else "link"]


def rigid_joints(study) -> RigidJoints:
    """The joints the study's structural model holds rigid, with what that means for its deflections and
    frequencies (none without parts: no structural model runs)."""
    return structural_model(study).rigid_joints(study) if study.parts else RigidJoints((), "")
