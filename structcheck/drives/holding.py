"""The static holding torque a joint's brake must hold: the larger of the worst static pose over the joint ranges
and the study's own motion samples at rest.

- **Worst static pose over the ranges** (the search of :func:`structcheck.cases.pose.worst_holding_torques`,
  :func:`structcheck.cases.posesearch.search_torques`, on the run's own chain and payloads): each actuated
  joint's largest |tau| at qd = qdd = 0 under gravity and the payloads, over a grid of every joint's range (its
  limits; one turn for a continuous joint) refined by a local search. A brake holds the arm wherever it stops, so
  this is the design value; it leaves the study's point forces out (they are time laws of the motion, not loads
  at rest).
- **The motion's own poses at rest**: the inverse dynamics of each of the run's samples at qd = qdd = 0 with the
  point forces of that sample (an open tree only): a tool force held while the arm stands still counts here.

The brake is held against the larger; the check's note gives both numbers and the worst pose. A closed chain's
worst pose is searched through its loops (its actuated joints); a search that cannot close a loop at a grid pose
leaves that part out and says why.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cases.posesearch import search_ranges, search_torques
from ..errors import InputError

#: Grid values per joint of the worst-pose search and its local searches' starts (the pose search's defaults:
#: ``points ** n_joints`` poses in one vectorized inverse dynamics; the local search closes the grid's gap).
POINTS, STARTS = 7, 3


@dataclass(frozen=True)
class HoldingTorque:
    """A joint's static holding torque [N m]: ``held`` = max(``worst``, ``motion``) (None: neither known), ``worst``
    |tau| at the worst static pose over the ranges with its ``pose`` (joint -> value, rad or m), ``motion`` max |tau|
    over the motion's samples at rest (None: not computed), ``basis``: one line for the brake check saying which
    governs and both values (or why one is missing), ``why_not_worst``: why the worst pose was not searched."""

    held: float | None
    worst: float | None
    pose: dict | None
    motion: float | None
    basis: str
    why_not_worst: str = ""


def _pose_text(pose: dict) -> str:
    return ", ".join(f"{j} = {v:.4g}" for j, v in pose.items())


def holding_torque(worst: tuple[float, dict] | None, motion: float | None, why_not_worst: str = "",
                   why_not_motion: str = "") -> HoldingTorque:
    """The :class:`HoldingTorque` of one joint from its worst static pose (``(torque, pose)`` of
    ``worst_holding_torques``; None: not searched, ``why_not_worst`` says why) and the largest |tau| over the
    motion's samples at rest ``motion`` [N m] (None: ``why_not_motion``)."""
    w = None if worst is None else abs(float(worst[0]))
    pose = None if worst is None else dict(worst[1])
    parts = [f"worst static pose over the joint ranges (gravity, payloads): {w:.4g} N m at {_pose_text(pose)}"
             if w is not None else f"worst static pose not searched ({why_not_worst})",
             f"the motion's own poses at rest (its point forces too): {motion:.4g} N m" if motion is not None
             else f"the motion's own poses at rest not computed ({why_not_motion})"]
    known = [x for x in (w, motion) if x is not None]
    held = max(known) if known else None
    if held is None:
        governs = "neither known"
    elif w is not None and (motion is None or w >= motion):
        governs = "held: the worst static pose"
    else:
        governs = "held: the motion's own poses"
    return HoldingTorque(held, w, pose, motion, f"{governs}; {'; '.join(parts)}", why_not_worst)


def worst_poses(chain, joints, gravity, payloads, points: int = POINTS,
                starts: int = STARTS) -> tuple[dict[str, tuple[float, dict]], str]:
    """``({joint: (torque [N m], pose)}, reason)``: the worst static holding torque of each of ``joints`` among
    ``chain``'s actuated coordinates over its joint ranges (the joints not actuated are left out), and '' or why
    the search could not be made (an InputError's message: e.g. a loop that does not close at a grid pose).
    ``gravity`` (3,) world [m/s^2]; ``payloads`` point -> (mass [kg], inertia (3, 3) about the point in link axes)
    as the inverse dynamics takes them."""
    try:
        worst = search_torques(chain, search_ranges(chain), points, np.asarray(gravity, float), payloads, starts,
                               joints=set(joints))
    except InputError as exc:
        return {}, str(exc)
    return {j: (w.value, w.pose) for j, w in worst.items() if j in joints}, ""


def motion_holding(tree, q: np.ndarray, gravity, point_forces, payloads) -> np.ndarray:
    """|tau| (n_t, n_coords) [N m or N] of an open ``tree`` at each pose ``q`` (n_t, n_coords) at rest, with each
    sample's ``point_forces`` (point -> (n_t, 3) world [N]) and the ``payloads``."""
    zero = np.zeros_like(q)
    return np.abs(tree.inverse_dynamics(q, zero, zero, gravity=gravity, point_forces=point_forces,
                                        payloads=payloads).tau)
