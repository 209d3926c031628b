"""A braked joint that breaks away from a standstill and is held again within the integrator's first step
(structcheck.rigid.simulate), against its closed form.

A bar on a vertical axis (no gravity torque; inertia I about the pivot) held by a brake of torque T_b; a tip force
gives the torque tau(t) = T_b + e - k t until t_r, then T_b + e - k t_r (< T_b). At t = 0 the holding torque
exceeds the brake's by e: the bar slips, qdd = (e - k t) / I, v = (e t - k t^2 / 2) / I, back at rest at
t1 = 2 e / k, held from then on (|tau| < T_b), having turned (e t1^2 / 2 - k t1^3 / 6) / I = 2 e^3 / (3 k^2 I).
With e = 0.1 N m and k = 1e5 N m/s, t1 = 2 us lies within the integrator's first step: the root finder returned
the start of the slip for its return to rest, and the simulator repeated that piece of no length until it gave up
("the brakes chatter"; met by the headline's stop at 4.35 s with the part held). Error budget: the slip is a cubic
in time that DOP853 (order 8) integrates exactly and the event is located to round-off: 1e-9 relative on t1 and
on the angle (1.3e-13 rad; measured 2e-11).
"""
import numpy as np
import pytest

from structcheck.model.robot import Joint, Link, Robot
from structcheck.rigid.actuation import Brake
from structcheck.rigid.simulate import EventKind, Tolerance, simulate

M, LC, IC, L = 2.0, 0.5, 0.01, 1.0
I_PIVOT = IC + M * LC ** 2
TB, E, K, T_RAMP = 4.0, 0.1, 1e5, 3e-6


def tip_force(t):
    """The force at the tip along world y [N] (n_t, 3): its moment about the axis is tau(t) (bar along x)."""
    tau = TB + E - K * np.minimum(np.asarray(t, float), T_RAMP)
    return np.stack([np.zeros_like(tau), tau / L, np.zeros_like(tau)], -1)


def test_a_brake_breaking_away_and_holding_again_within_one_step():
    bar = Robot([Link("ground"), Link("bar", M, (LC, 0, 0), np.diag([IC, IC, IC]))],
                [Joint("j", "revolute", "ground", "bar", np.eye(4), np.array((0.0, 0.0, 1.0)))],
                points={"tip": ("bar", (L, 0.0, 0.0))})
    sim = simulate(bar, {"j": Brake(TB)}, [0.0], [0.0], t_end=0.002, point_forces={"tip": tip_force},
                   breakpoints=(T_RAMP,), tolerance=Tolerance(rtol=1e-10, atol=1e-12))
    held = [e.t for e in sim.events if e.kind is EventKind.HELD]
    t1 = 2 * E / K
    assert held[-1] == pytest.approx(t1, rel=1e-9)
    assert len(sim.events) <= 4  # engaged, held, slips, held: no chatter
    assert sim.q[-1, 0] == pytest.approx(2 * E ** 3 / (3 * K ** 2 * I_PIVOT), rel=1e-9)
