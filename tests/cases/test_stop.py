"""Emergency stops (structcheck.cases.stop) against closed forms.

A bar on a vertical axis (gravity along the axis: no gravity torque) with moment of inertia I about the pivot,
turning at w0 when the stop is triggered:
- category 0, brake torque T_b biting after a delay t_d: it coasts w0 t_d, then stops in I w0 / T_b through
  I w0^2 / (2 T_b);
- category 1 at a constant deceleration a: time w0 / a, angle w0^2 / (2 a); at the torque limit T: as a brake T;
- a trigger grid over a motion whose speed peaks at a known time finds that time as the worst trigger.
Error budget: the stops are quadratics in time that DOP853 integrates exactly and the events are located to
round-off (simulate's own tests: ~1e-15); tolerance 1e-9 relative with TIGHT settings.
"""
import numpy as np
import pytest

from structcheck.cases.stop import JointStop, StopCategory, StopSpec, simulate_stop, sweep_triggers
from structcheck.errors import InputError
from structcheck.model.robot import Joint, Link, Robot
from structcheck.rigid.simulate import Tolerance
from structcheck.study import Study, prepare

TIGHT = Tolerance(rtol=1e-10, atol=1e-12)
M, LC, IC = 2.0, 0.5, 0.01
I_PIVOT = IC + M * LC ** 2


def bar():
    return Robot([Link("ground"), Link("bar", M, (LC, 0, 0), np.diag([IC, IC, IC]))],
                 [Joint("j", "revolute", "ground", "bar", np.eye(4), np.array((0.0, 0.0, 1.0)))])


@pytest.mark.parametrize("delay", [0.0, 0.04])
@pytest.mark.parametrize("w0", [3.0, -2.0])
def test_category_0_braked_bar_stops_as_closed_form(delay, w0):
    Tb = 4.0
    spec = StopSpec(StopCategory.ZERO, {"j": JointStop(Tb, delay=delay)})
    r = simulate_stop(bar(), spec, [0.3], [w0], t0=1.5, tolerance=TIGHT)
    t_ref = delay + I_PIVOT * abs(w0) / Tb
    a_ref = abs(w0) * delay + I_PIVOT * w0 ** 2 / (2 * Tb)
    assert r.stop_time[0] == pytest.approx(t_ref, rel=1e-9)
    assert r.stop_distance[0] == pytest.approx(a_ref, rel=1e-9)
    # the joint torque during the slip is the brake's, against the motion (inverse dynamics of the stop)
    slipping = (r.simulation.t > 1.5 + delay + 1e-9) & (r.simulation.t < 1.5 + t_ref - 1e-9)
    assert np.allclose(r.body.tau[slipping, 0], -np.sign(w0) * Tb, rtol=1e-7)
    assert r.peak_torque[0] == pytest.approx(Tb, rel=1e-9)


def test_category_0_with_a_rotor_stops_the_reflected_inertia_too():
    """A drive's rotor J behind a ratio i adds J i^2 to the bar's inertia: stop time (I + J i^2) w0 / T_b, angle
    (I + J i^2) w0^2 / (2 T_b) after the coast w0 t_d (a Rotor of zero inertia changes nothing)."""
    from structcheck.rigid import Rotor

    Tb, w0, delay, J, ratio = 4.0, 3.0, 0.03, 2e-5, 50.0
    spec = StopSpec(StopCategory.ZERO, {"j": JointStop(Tb, delay=delay, rotor=Rotor(J, ratio))})
    r = simulate_stop(bar(), spec, [0.3], [w0], tolerance=TIGHT)
    inertia = I_PIVOT + J * ratio ** 2
    assert r.stop_time[0] == pytest.approx(delay + inertia * w0 / Tb, rel=1e-9)
    assert r.stop_distance[0] == pytest.approx(w0 * delay + inertia * w0 ** 2 / (2 * Tb), rel=1e-9)
    with pytest.raises(InputError, match="Rotor"):
        JointStop(Tb, rotor=J)


@pytest.mark.parametrize("category", [StopCategory.ONE, StopCategory.TWO])
def test_controlled_stop_at_constant_deceleration(category):
    a, w0 = 12.0, 3.0
    spec = StopSpec(category, {"j": JointStop(4.0, torque_limit=10.0, deceleration=a)})
    r = simulate_stop(bar(), spec, [0.0], [w0], tolerance=TIGHT)
    assert r.stop_time[0] == pytest.approx(w0 / a, rel=1e-9)
    assert r.stop_distance[0] == pytest.approx(w0 ** 2 / (2 * a), rel=1e-9)
    assert r.peak_torque[0] == pytest.approx(I_PIVOT * a, rel=1e-9)  # I a while decelerating


def test_category_1_at_the_torque_limit_stops_as_a_brake_of_that_torque():
    T, w0 = 6.0, 2.5
    r = simulate_stop(bar(), StopSpec(1, {"j": JointStop(4.0, torque_limit=T)}), [0.0], [w0], tolerance=TIGHT)
    assert r.stop_time[0] == pytest.approx(I_PIVOT * w0 / T, rel=1e-9)
    assert r.stop_distance[0] == pytest.approx(I_PIVOT * w0 ** 2 / (2 * T), rel=1e-9)


def test_category_1_needs_a_deceleration_or_torque_limit():
    with pytest.raises(InputError, match="deceleration or torque limit"):
        simulate_stop(bar(), StopSpec(1, {"j": JointStop(4.0)}), [0.0], [1.0])
    with pytest.raises(InputError, match="unknown joints"):
        simulate_stop(bar(), StopSpec(0, {"k": JointStop(4.0)}), [0.0], [1.0])


def test_trigger_grid_finds_the_speed_peak():
    """q = 0.4 (1 - cos(2 pi t)) over half a period: the speed 0.8 pi sin(2 pi t) peaks at t = 0.25 s, and a
    category-0 stop's time and distance grow with the speed, so the worst trigger is 0.25 s: within half the
    grid spacing on the grid (the grid 0, 0.03, ... has 0.24 and 0.27), within the tolerance refined."""
    study = Study("sweep", bar(), {"j": "0.4*(1-COS(2*PI*time))"}, {}, t_end=0.5, inertia_from_meshes=False)
    prep = prepare(study)
    spec = StopSpec(0, {"j": JointStop(4.0, delay=0.02)})
    step = 0.03
    coarse = sweep_triggers(study, prep, spec, step)
    assert abs(coarse.worst_time[0] - 0.25) <= step / 2 and abs(coarse.worst_distance[0] - 0.25) <= step / 2
    fine = sweep_triggers(study, prep, spec, step, refine_tol=1e-4)
    assert abs(fine.worst_time[0] - 0.25) <= 2e-4 and abs(fine.worst_distance[0] - 0.25) <= 2e-4
    w = 0.8 * np.pi
    assert fine.max_distance[0] == pytest.approx(w * 0.02 + I_PIVOT * w ** 2 / 8.0, rel=1e-6)


def test_a_long_sweep_runs_in_processes_with_the_same_numbers(monkeypatch):
    """From PARALLEL_TRIGGERS triggers on the stops run in spawned processes, a contiguous share each (the
    headline's 201 stops: 41 s in one process, 25 s in two). Each stop is the same computation either way: the
    stopping times and distances are equal to the bit. Here on 2 workers from 8 triggers (the threshold lowered)."""
    from structcheck.cases import stop as stop_mod

    study = Study("sweep", bar(), {"j": "0.4*(1-COS(2*PI*time))"}, {}, t_end=0.5, inertia_from_meshes=False)
    prep = prepare(study)
    spec = StopSpec(0, {"j": JointStop(4.0, delay=0.02)})
    triggers = np.linspace(0.0, 0.5, 9)
    here = stop_mod.trigger_stops(study, prep, spec, triggers)
    monkeypatch.setattr(stop_mod, "PARALLEL_TRIGGERS", 8)
    monkeypatch.setattr("structcheck.pool.thread_budget", lambda: 2)
    import structcheck.pool as pool

    real, pools = pool.local_executor, []
    monkeypatch.setattr(pool, "local_executor", lambda n: pools.append(n) or real(n))
    spawned = stop_mod.trigger_stops(study, prep, spec, triggers)
    assert pools == [2]
    for a, b in zip(here, spawned):
        assert a.shape == (9, 1) and np.array_equal(a, b)
