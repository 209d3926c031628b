"""A part the arm holds during part of its motion, as rigid masses for the emergency stops triggered then
(``StopSpec.held``).

A study may give a held part as point forces (its weight only: paper 004's two 98 N claw forces). For a
programmed motion that is its own model; in a stop the arm is no longer driven, so the part's inertia changes the
motion itself (a joint coasting during the brakes' delay carries it) and the loads on the links that hold it. A
:class:`HeldPart` says what the part is while it is held: rigid :class:`~structcheck.Payload` s at robot points,
from ``start`` to ``end`` of the study's motion, replacing the point forces at the points ``replaces`` (the
study's model of its weight). A stop triggered in that window carries the payloads and not those forces, in its
simulation (:func:`held_loads`) and in its structural case (:func:`held_study`); a stop triggered outside it is
the study's own (the part is not there: no payload; the forces, if any, are the study's there).

:func:`block_payloads` splits a solid rectangular block gripped at several points into equal payloads at them
whose total is the block: each share's inertia about its point is the block's share minus the parallel-axis term
of that point's offset from the block's centre (the centroid of the points), so that the shares' weight acts where
the point forces it replaces acted and their inertia about the centre adds up to the block's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np

from .. import loads as linkloads
from ..errors import InputError, require_array, require_number
from ..user_loads import Payload

__all__ = ["HeldPart", "block_payloads", "held_loads", "held_study"]


@dataclass(frozen=True)
class HeldPart:
    """A part held from ``start`` to ``end`` [s] of the study's motion (held for start <= t < end) as the rigid
    ``payloads`` (a tuple of :class:`~structcheck.Payload`, at robot points; their masses and inertias are the
    part's), in place of the study's point forces at the points ``replaces`` (None: at the payloads' points; ():
    none replaced)."""

    payloads: tuple
    start: float = 0.0
    end: float = float("inf")
    replaces: tuple | None = None

    def __post_init__(self):
        payloads = (self.payloads,) if isinstance(self.payloads, Payload) else self.payloads
        if not isinstance(payloads, (tuple, list)) or not payloads or \
                not all(isinstance(p, Payload) for p in payloads):
            raise InputError(f"held part: payloads = {self.payloads!r}; give one or more "
                             f"structcheck.Payload(point, mass, inertia)")
        object.__setattr__(self, "payloads", tuple(payloads))
        start = require_number("held part: start", self.start, "s", at_least=0.0)
        end = self.end if self.end == float("inf") else require_number("held part: end", self.end, "s", above=start)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", float(end))
        replaces = tuple(p.point for p in payloads) if self.replaces is None else self.replaces
        if isinstance(replaces, str) or not all(isinstance(p, str) for p in replaces):
            raise InputError(f"held part: replaces = {self.replaces!r}; give a tuple of point names")
        object.__setattr__(self, "replaces", tuple(dict.fromkeys(replaces)))

    @property
    def mass(self) -> float:
        """The part's mass [kg] (all its payloads)."""
        return float(sum(p.mass for p in self.payloads))

    def holds(self, t: float) -> bool:
        """Whether the part is held at ``t`` [s]."""
        return self.start <= float(t) < self.end


def _check(held: HeldPart, study, tree) -> None:
    """InputError (one line) for a held part whose points the robot lacks, or that replaces point forces the
    study does not have."""
    for p in held.payloads + tuple(held.replaces):
        point = p.point if isinstance(p, Payload) else p
        if point not in tree.points:
            raise InputError(f"held part at unknown point {point!r}; the robot's points are {sorted(tree.points)}")
    forced = {pf.point for pf in study.point_forces}
    missing = [p for p in held.replaces if p not in forced]
    if missing:
        raise InputError(f"held part replaces the point forces at {missing}, which the study does not have; its "
                         f"point forces act at {sorted(forced)} (give replaces=() to replace none)")


def held_loads(held: HeldPart | None, study, prep, t0: float, forces: Mapping) -> tuple[dict, dict]:
    """The point forces (point -> (3,) world [N]) and payloads (as the dynamics takes them:
    :func:`structcheck.loads.payload_table`) of a stop of ``study`` (prepared as ``prep``) triggered at ``t0``
    [s], from the study's ``forces`` there: with ``held``'s payloads and without the forces it replaces while it
    holds the part, the study's own otherwise."""
    if held is None:
        return dict(forces), prep.payloads
    _check(held, study, prep.chain.tree)
    if not held.holds(t0):
        return dict(forces), prep.payloads
    kept = {p: f for p, f in forces.items() if p not in held.replaces}
    return kept, linkloads.payload_table(tuple(study.payloads) + held.payloads, prep.chain.tree)


def held_study(held: HeldPart | None, study, t0: float):
    """``study`` (a stop's Study, made from the study whose stop is triggered at ``t0`` [s]) with ``held``'s
    payloads and without the point forces it replaces while it holds the part (its ``payload_mass_kg``, the mass of
    a payload given as forces, less the held part's); as it is otherwise."""
    if held is None or not held.holds(t0):
        return study
    forces = tuple(pf for pf in study.point_forces if pf.point not in held.replaces)
    return replace(study, payloads=tuple(study.payloads) + held.payloads, point_forces=forces,
                   payload_mass_kg=max(0.0, study.payload_mass_kg - held.mass))


def block_payloads(points: Mapping, mass: float, size) -> tuple:
    """A solid rectangular block of ``mass`` [kg] and edge lengths ``size`` (3,) [m] along the points' link axes,
    centred at the centroid of ``points`` (name -> position (3,) [m] in one link's axes: where it is gripped), as
    equal :class:`~structcheck.Payload` s at the points: each m / n with the inertia about its point
    I_block / n - (m / n) (|d|^2 E - d d^T), d its offset from the centre (so the shares' total inertia about the
    centre is the block's, m / 12 (b^2 + c^2), ... on the diagonal). InputError when a share's inertia is not
    positive semi-definite (the shares' parallel-axis terms exceed the block's inertia: two points on opposite
    faces 2 d apart need the other two edges at least 2 sqrt(2) d)."""
    m = require_number("held block: mass", mass, "kg", above=0.0)
    a = require_array("held block: size", size, (3,), "m")
    if not (a > 0).all():
        raise InputError(f"held block: size = {list(size)!r}; give three edge lengths > 0 (m)")
    if not points:
        raise InputError("held block: points = {}; give the points where it is gripped (name -> position)")
    pos = {n: require_array(f"held block: point {n!r}", x, (3,), "m") for n, x in points.items()}
    centre = np.mean(list(pos.values()), axis=0)
    share = m / len(pos)
    I_block = m / 12.0 * np.diag([a[1] ** 2 + a[2] ** 2, a[0] ** 2 + a[2] ** 2, a[0] ** 2 + a[1] ** 2])
    out = []
    for name, x in pos.items():
        d = x - centre
        I = I_block / len(pos) - share * (d @ d * np.eye(3) - np.outer(d, d))
        if np.linalg.eigvalsh(I).min() < -1e-12:
            raise InputError(f"held block: {share:g} kg at its point {name!r}, {np.linalg.norm(d):.4g} m from its "
                             f"centre, carries more inertia than the block of size {a.tolist()} m there; give "
                             f"Payloads directly")
        out.append(Payload(name, share, I))
    return tuple(out)
