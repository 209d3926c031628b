"""The result of reading a dataset (:class:`AdamsModel`) and the names the reader and builder share."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..robot import Robot
from .units import Units

JOINT_KINDS = {"REVOLUTE": "revolute", "TRANSLATIONAL": "prismatic", "FIXED": "fixed"}
MOTION_KINDS = {"ROTATION": "revolute", "TRANSLATION": "prismatic"}
#: what a MOTION's FUNCTION gives -> the time derivative of the displacement it is (0: the displacement itself)
MOTION_LEVELS = {"DISPLACEMENT": 0, "VELOCITY": 1, "ACCELERATION": 2}


@dataclass
class AdamsModel:
    """A dataset read: ``robot`` (a Robot, or a structcheck ClosedChain when joints close loops; links named by Adams View's ``adams_view_name`` comments, else PART_id,
    JOINT_id, MARKER_id), ``motion`` joint -> MotionLaw (offset from home [rad or m]), ``motion_text`` joint -> its
    text, ``point_forces`` (structcheck.study.PointForce: magnitude [N] along a world direction), ``gravity`` (3,)
    [m/s^2], ``joint_stiffness`` joint -> [N m/rad], the dataset's ``splines`` (id -> (x, y)) and ``variables``
    (id -> text) the laws use, ``units``, ``title`` and ``notes`` (what was skipped, assumed or held)."""

    robot: Robot | object
    motion: dict
    motion_text: dict
    point_forces: tuple
    gravity: tuple
    joint_stiffness: dict
    splines: dict
    variables: dict
    units: Units
    title: str = ""
    notes: list = field(default_factory=list)


#: a torsional SFORCE that is a joint stiffness: FUNCTION = -k*AZ(i, j) (ADAMS's angle of I about J's z)
STIFFNESS = re.compile(r"^\s*-\s*(?P<k>[0-9.eE+-]+)\s*\*\s*AZ\s*\(\s*(?P<i>\d+)\s*,\s*(?P<j>\d+)\s*\)\s*$", re.I)
