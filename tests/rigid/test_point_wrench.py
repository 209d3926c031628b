"""Point loads with a moment ((n_t, 6): force and moment about the point, world axes), as the events of a study
apply a payload that leaves or arrives (structcheck.cases.event_loads). Reference: the payload of the inverse
dynamics itself (its mass and inertia in the link's inertials, a separate code path): the same payload's wrench
[m (g - a_P), -(I alpha + omega x I omega)] applied as a point load gives the same torques and joint wrenches, on a
general 3-D robot (skewed axes, a prismatic joint, full inertia tensors)."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import _random_inertia, general_robot

from structcheck.cases.event_loads import EventLoads
from structcheck.cases.events import Presence
from structcheck.rigid import dynamics
from structcheck.study import Payload

GRAVITY = np.array([0.3, -1.2, -9.81])


@pytest.fixture(scope="module")
def case():
    rng = np.random.default_rng(7)
    robot = general_robot(rng)
    n = robot.n_dof
    q, qd, qdd = (rng.uniform(-1, 1, (40, n)) for _ in range(3))
    payload = Payload("tool", 2.5, _random_inertia(rng))
    return robot, q, qd, qdd, payload


def test_a_payload_as_a_point_wrench_gives_the_held_payload_dynamics(case):
    """Torques and reaction wrenches equal to 1e-12 of their largest; the power balance and every link's equilibrium
    with the moment's power and moment hold to round-off."""
    robot, q, qd, qdd, payload = case
    held = dynamics.inverse_dynamics(robot, q, qd, qdd, GRAVITY, payloads={"tool": (payload.mass, payload.inertia)})
    bare = dynamics.inverse_dynamics(robot, q, qd, qdd, GRAVITY)
    t = np.linspace(0.0, 1.0, len(q))
    loads = EventLoads(payloads=((payload, Presence((2.0,), (1.0, 0.0))),))  # held all along
    forces = loads.payload_wrenches({}, robot, bare.kinematics, GRAVITY, t)
    assert forces["tool"].shape == (len(q), 6) and np.abs(forces["tool"][:, 3:]).max() > 0
    as_load = dynamics.inverse_dynamics(robot, q, qd, qdd, GRAVITY, point_forces=forces)
    for a, b in ((held.tau, as_load.tau), (held.joint_wrenches, as_load.joint_wrenches),
                 (held.joint_wrenches_world, as_load.joint_wrenches_world)):
        assert np.max(np.abs(a - b)) <= 1e-12 * np.max(np.abs(a))
    assert np.max(np.abs(held.tau - bare.tau)) > 1e-2 * np.max(np.abs(held.tau))  # the payload matters
    assert dynamics.power_balance(robot, q, qd, qdd, as_load, GRAVITY, forces) < 1e-12
    assert np.nanmax(dynamics.link_equilibrium(robot, as_load, GRAVITY, forces)) < 1e-12


def test_a_force_and_a_wrench_at_one_point_add_up(case):
    """A (3,) force and a (6,) wrench at the same point (a collision on a payload's point) make one (6,) load whose
    dynamics is the sum of the two's (linearity; gravity-free, at rest)."""
    from structcheck.cases.event_loads import add_load

    robot, q, _, _, _ = case
    zero = np.zeros_like(q)
    f = np.array([1.0, -2.0, 3.0])
    w = np.array([0.5, 0.0, -1.0, 0.2, -0.3, 0.4])
    both = add_load({"tool": f}, "tool", w)
    assert both["tool"] == pytest.approx(np.r_[f, 0, 0, 0] + w)
    tau = [dynamics.inverse_dynamics(robot, q, zero, zero, (0, 0, 0), point_forces=p).tau
           for p in ({"tool": f}, {"tool": w}, both)]
    assert np.max(np.abs(tau[0] + tau[1] - tau[2])) <= 1e-12 * np.max(np.abs(tau[2]))
