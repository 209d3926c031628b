"""Which joints a structural model holds rigid, and what that means for its numbers: said in the run header,
summary.json (``rigid_joints``, ``rigid_joints_meaning``) and the report.

A real joint (drive, reducer, bearings) is compliant. Held rigid, it stiffens the arm: the tool-point deflection
and the deformations are then lower bounds, and the frequencies upper bounds. The arm model holds rigid every
joint that carries load about its axis and has no ``ArmSettings.joint_stiffness`` (a joint given one stiffness,
not ``(k, k_tilt)``, stays rigid in tilt); a closed chain's passive joints are free about their axes. The per-link
model holds every joint rigid whatever ``joint_stiffness`` says: each link is clamped at its proximal joint and
the tool-point deflection chains the links' own deflections.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RigidJoints:
    """``names`` the joints the model holds rigid (robot order) and ``meaning`` what that does to the numbers
    ('' when none is)."""

    names: tuple[str, ...]
    meaning: str

    def header(self) -> str:
        """The run header's line on the joints."""
        if not self.names:
            return "joints: none held rigid (every load-bearing joint has a stiffness)"
        return f"joints held rigid: {', '.join(self.names)}: {self.meaning}"


_BOUNDS = "the tool-point deflection and the deformations are lower bounds, the frequencies upper bounds"


def load_bearing_joints(robot) -> tuple[str, ...]:
    """The joints of ``robot`` (a Robot or ClosedChain) that carry load about their own axis: the tree's movable
    joints except a closed chain's passive coordinates (free about their axes), in the tree's order."""
    from ..flex.assembly import chain_parts

    tree, _, passive = chain_parts(robot)
    return tuple(j.name for j in tree.ordered_joints if j.type != "fixed" and j.name not in passive)


def arm_rigid_joints(study) -> RigidJoints:
    """The arm model's rigid joints: the load-bearing joints without ``study.arm.joint_stiffness``."""
    stiff = {**dict(study.arm.joint_stiffness),  # a drive whose reducer gives the arm model its stiffness
             **{j: d for j, d in dict(getattr(study, "drives", {})).items() if d.stiffness is not None}}
    names = tuple(j for j in load_bearing_joints(study.robot) if j not in stiff)
    return RigidJoints(names, f"no arm.joint_stiffness given, so {_BOUNDS}; give each drive's torsional "
                              f"stiffness [N m/rad] to make them real" if names else "")


def link_rigid_joints(study) -> RigidJoints:
    """The per-link model's rigid joints: every load-bearing joint (the model takes no joint stiffness)."""
    names = load_bearing_joints(study.robot)
    return RigidJoints(names, f"the per-link model clamps each link at its proximal joint and takes no joint "
                              f"stiffness, so {_BOUNDS}; the arm model (flexibility='arm') takes "
                              f"arm.joint_stiffness" if names else "")
