"""A study's events (:mod:`.events`) as the loads the rigid-body stage takes: point name -> (n_t, 3) force or
(n_t, 6) force and moment, world axes, about the point (:func:`structcheck.rigid.dynamics.inverse_dynamics`).
Checked against the robot and the motion's span once (:func:`event_loads`); the study's rigid-body stage adds
them on every grid (:meth:`EventLoads.forces`, :meth:`EventLoads.payload_wrenches`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..loads import payload_table
from .events import EVENTS, Collision, PayloadRelease, Presence, event_name


@dataclass(frozen=True)
class EventLoads:
    """The collisions' point forces (``forces``: PointForce with a HalfSine magnitude) and the payloads that leave
    or arrive (``payloads``: (Payload, its presence law) pairs); empty for a study without events."""

    forces: tuple = ()
    payloads: tuple = ()

    @property
    def laws(self) -> list:
        """Every event's law (the pulses, the presences): their breakpoints go into the analysis grid."""
        return [pf.magnitude for pf in self.forces] + [h for _, h in self.payloads]

    def add_forces(self, point_forces: dict, t: np.ndarray) -> dict:
        """``point_forces`` (point -> (n_t, 3 or 6) world) with the collisions' pulses on the samples ``t`` [s]."""
        out = dict(point_forces)
        for pf in self.forces:
            d = np.asarray(pf.direction, float) / np.linalg.norm(pf.direction)
            out = add_load(out, pf.point, pf.magnitude.value(t)[:, None] * d)
        return out

    def payload_wrenches(self, point_forces: dict, tree, kin, gravity, t: np.ndarray) -> dict:
        """``point_forces`` with every event payload's wrench h(t) [m (g - a_P), -(I alpha + omega x I omega)] at
        its point, world axes (n_t, 6), from the link kinematics ``kin`` (``LinkKinematics`` on ``t``, (n_t,)
        [s]) of the same motion; ``gravity`` (3,) world [m/s^2]."""
        out = dict(point_forces)
        for payload, presence in self.payloads:
            link, r = tree.points[payload.point]
            i = tree.link_names.index(link)
            R = kin.T_world_link[:, i, :3, :3]
            w, al, r = kin.omega[:, i], kin.alpha[:, i], np.asarray(r, float)
            a_p = kin.a_origin[:, i] + np.cross(al, r) + np.cross(w, np.cross(w, r))
            force = payload.mass * (np.einsum("tji,j->ti", R, np.asarray(gravity, float)) - a_p)
            I = np.zeros((3, 3)) if payload.inertia is None else np.asarray(payload.inertia, float)
            moment = -(al @ I.T + np.cross(w, w @ I.T))
            wrench = np.hstack([np.einsum("tij,tj->ti", R, force), np.einsum("tij,tj->ti", R, moment)])
            out = add_load(out, payload.point, presence.value(t)[:, None] * wrench)
        return out

    def rest_wrenches(self, point_forces: dict, tree, gravity, t0: float) -> dict:
        """``point_forces`` (point -> (3 or 6,) world, at rest before the motion) with each event payload's weight
        h(t0) m g while it is held then (standing still: no inertia)."""
        out = dict(point_forces)
        for payload, presence in self.payloads:
            weight = float(presence.value(t0)) * payload.mass * np.asarray(gravity, float)
            out = add_load(out, payload.point, np.r_[weight, np.zeros(3)])
        return out


def add_load(point_forces: dict, point: str, load: np.ndarray) -> dict:
    """``point_forces`` with ``load`` (..., 3) force or (..., 6) force and moment added at ``point`` (a new dict; a
    force and a wrench at the same point add up to a wrench)."""
    old = point_forces.get(point)
    if old is None:
        return {**point_forces, point: load}
    old = np.asarray(old, float)
    width = max(old.shape[-1], load.shape[-1])
    pad = (lambda x: x if x.shape[-1] == width else np.concatenate([x, np.zeros(x.shape[:-1] + (3,))], axis=-1))
    return {**point_forces, point: pad(old) + pad(load)}


def check_events(events) -> None:
    """InputError unless ``events`` is a tuple (or list) of events (:data:`.events.EVENTS`)."""
    if not isinstance(events, (tuple, list)) or not all(isinstance(e, EVENTS) for e in events):
        raise InputError(f"events = {events!r}: give a tuple of structcheck.Collision(...), PayloadRelease(...) "
                         f"or PayloadPickup(...)")


def event_loads(events, tree, t_end: float, payloads=()) -> EventLoads:
    """A study's ``events`` checked against its robot (``tree``: the points), the motion's span [0, ``t_end``]
    [s] and its held ``payloads`` (an event's payload must not be one of them), as :class:`EventLoads`: the
    events of one Payload (equal values) make its presence, held from the start when its first event is a
    release. InputError, naming the event: not an event, an unknown point, an event outside the motion, a payload
    also held all along, a payload released when not held or picked up when held."""
    check_events(events)
    held = {p.point for p in payloads}
    for e in events:
        point = e.point if isinstance(e, Collision) else e.payload.point
        if point not in tree.points:
            raise InputError(f"{event_name(e)}: unknown point {point!r}; the robot's points are {sorted(tree.points)}")
        end = e.end if isinstance(e, Collision) else e.t
        if end > t_end or (not isinstance(e, Collision) and e.t >= t_end):
            span = f"{e.t:g} s to {end:g} s" if end != e.t else f"t = {e.t:g} s"
            raise InputError(f"{event_name(e)}: at {span}, outside the motion (0 to t_end = {t_end:g} s); give a "
                             f"time within it, or a longer t_end")
        if not isinstance(e, Collision) and point in held:
            raise InputError(f"{event_name(e)}: a payload at {point!r} is in Study.payloads too; list it only in "
                             f"the events (they say when it is held)")
    forces = tuple(e.point_force() for e in events if isinstance(e, Collision))
    by_payload = {}  # the same payload (point, mass, inertia) -> its events in time order
    for e in sorted((e for e in events if not isinstance(e, Collision)), key=lambda e: e.t):
        payload_table([e.payload], tree)  # its inertia symmetric positive semi-definite
        key = (e.payload.point, e.payload.mass, None if e.payload.inertia is None else
               tuple(np.asarray(e.payload.inertia, float).ravel()))
        by_payload.setdefault(key, (e.payload, []))[1].append(e)
    return EventLoads(forces, tuple((p, presence(evs)) for p, evs in by_payload.values()))


def presence(events) -> Presence:
    """The presence of one payload from its events (sorted by time): held from the start when the first is a
    release; each release must find it held and each pick-up not held (InputError naming the event)."""
    held = [1.0 if isinstance(events[0], PayloadRelease) else 0.0]
    for e in events:
        now = 0.0 if isinstance(e, PayloadRelease) else 1.0
        if now == held[-1]:
            raise InputError(f"{event_name(e)}, t = {e.t:g} s: the payload is {'not ' if now == 0 else ''}held then "
                             f"(its events must alternate: pick-up, release, ...)")
        held.append(now)
    return Presence(tuple(e.t for e in events), tuple(held))
