"""A stop as a structural load case (structcheck.cases.stopcase): the sampled law against closed forms and the
Study it makes run through the rigid-body stage of the pipeline.

- A bar braked in a horizontal plane moves on a parabola after the bite and a line before it: the quintic /
  quartic Hermite pieces reproduce polynomials of degree <= 4 exactly, so between samples the law's acceleration
  is 0 while coasting and -T_b / I while slipping, to round-off (1e-9 relative).
- A two-link arm in a vertical plane (gravity couples the joints) stopped with category 0: the Study's rigid-body
  stage at the simulator's samples returns the simulator's joint torques (the brakes' -T_b sign(qd) while
  slipping, the holding torques after); the law is exact at the samples, so the bound is the simulation's own
  forward/inverse round-off, 1e-6 of the torques' scale. Between samples the law (dt = 4 ms) is compared with a
  finer simulation's samples (2 ms): bound 1e-6 rad, measured below it (Hermite error ~ h^5 q^(5) near events).
"""
import numpy as np
import pytest

from structcheck.cases.stop import JointStop, StopCategory, StopSpec, simulate_stop, state_at
from structcheck.cases.stopcase import stop_study
from structcheck.model.robot import Joint, Link, Robot
from structcheck.rigid.simulate import Tolerance
from structcheck.settings import InitialState
from structcheck.study import Study, prepare, rigid_stage

TIGHT = Tolerance(rtol=1e-10, atol=1e-12)


def bar():
    return Robot([Link("ground"), Link("bar", 2.0, (0.5, 0, 0), np.diag([0.01] * 3))],
                 [Joint("j", "revolute", "ground", "bar", np.eye(4), np.array((0.0, 0.0, 1.0)))])


def two_link():
    y = np.array((0.0, -1.0, 0.0))
    j2 = np.eye(4)
    j2[0, 3] = 0.6
    return Robot([Link("ground"), Link("upper", 3.0, (0.3, 0, 0), np.diag([0.01, 0.1, 0.1])),
                  Link("fore", 1.5, (0.25, 0, 0), np.diag([0.005, 0.04, 0.04]))],
                 [Joint("j1", "revolute", "ground", "upper", np.eye(4), y),
                  Joint("j2", "revolute", "upper", "fore", j2, y)])


def test_sampled_law_is_exact_on_the_braked_bar():
    study = Study("bar", bar(), {"j": "0.4*(1-COS(2*PI*time))"}, {}, t_end=0.5, inertia_from_meshes=False)
    prep = prepare(study)
    q0, qd0, _ = state_at(study, prep, 0.25)
    stop = simulate_stop(prep.chain, StopSpec(0, {"j": JointStop(4.0, delay=0.02)}), q0, qd0, 0.25,
                         tolerance=TIGHT, dt=0.01)
    case = stop_study(study, prep, stop)
    assert case.initial_state is InitialState.MOVING and case.t_end == pytest.approx(stop.stop_time[0], rel=1e-12)
    law = case.motion["j"]
    coast = np.linspace(0.001, 0.019, 7)
    slip = np.linspace(0.021, case.t_end - 0.001, 11)
    inertia = 0.01 + 2.0 * 0.25
    assert np.allclose(law.acceleration(coast), 0.0, atol=1e-9)
    assert np.allclose(law.acceleration(slip), -4.0 / inertia, rtol=1e-9)
    assert law.velocity(case.t_end) == pytest.approx(0.0, abs=1e-9)
    assert law.value(case.t_end) - law.value(0.0) == pytest.approx(stop.stop_distance[0], rel=1e-9)


def test_stop_study_reproduces_the_simulated_torques_on_a_two_link_arm():
    study = Study("arm", two_link(), {"j1": "0.8*(1-COS(2*PI*time))", "j2": "-0.6*SIN(2*PI*time)"}, {},
                  t_end=1.0, inertia_from_meshes=False)
    prep = prepare(study)
    q0, qd0, _ = state_at(study, prep, 0.3)
    spec = StopSpec(StopCategory.ZERO, {"j1": JointStop(60.0, delay=0.01), "j2": JointStop(25.0, delay=0.01)})
    stop = simulate_stop(prep.chain, spec, q0, qd0, 0.3, study.gravity, tolerance=TIGHT, dt=0.004)
    fine = simulate_stop(prep.chain, spec, q0, qd0, 0.3, study.gravity, tolerance=TIGHT, dt=0.002)
    assert np.all(np.isfinite(stop.stop_time))
    case = stop_study(study, prep, stop)
    cprep = prepare(case)
    t = stop.simulation.t - 0.3
    events = np.array([e.t for e in stop.simulation.events]) - 0.3
    away = ~np.isclose(t[:, None], events[None, :], atol=1e-9).any(axis=1)  # one-sided values at events
    rigid = rigid_stage(case, cprep, t[away][:-1])
    scale = np.max(np.abs(stop.simulation.tau))
    assert np.allclose(rigid.body.tau[:-1], stop.simulation.tau[away][:-2], atol=1e-6 * scale)
    # between the coarse samples: the law against the finer simulation
    mid = np.isin(np.round((fine.simulation.t - 0.3) / 0.002), np.arange(1, 10_000, 2))
    tm = fine.simulation.t[mid] - 0.3
    tm = tm[tm < case.t_end]
    for k, j in enumerate(("j1", "j2")):
        ref = np.interp(tm, fine.simulation.t - 0.3, fine.simulation.q[:, k])
        assert np.max(np.abs(case.motion[j].value(tm) + 0.0 - ref)) < 1e-6


def test_sampled_law_through_events_1e_10_s_apart_keeps_bounded_accelerations():
    """Brakes biting and joints sticking at once put events a few 1e-10 s apart; a piece that short follows its
    start's Taylor quadratic (stopcase.MIN_PIECE_S) instead of fitting its end's q and qd, whose round-off over
    h^2 = 1e-20 s^2 would be accelerations of 1e3 rad/s^2. Samples of q = 3 - 2 t + 5 t^2 (exact: 10 rad/s^2
    everywhere) with 1e-16-relative noise and events at 0.05, 0.05 + 3e-10 and 0.05 + 6e-10 s: the law's acceleration
    stays 10 rad/s^2 to 1e-6 everywhere, and its value is the parabola's to 1e-12 rad."""
    from structcheck.cases.stopcase import SampledLaw

    events = (0.05, 0.05 + 3e-10, 0.05 + 6e-10)
    t = np.sort(np.r_[np.linspace(0.0, 0.1, 21), events])
    q = 3 - 2 * t + 5 * t ** 2
    q = q * (1 + 1e-16 * np.random.default_rng(1).choice([-1, 1], t.size))
    law = SampledLaw(t, q, -2 + 10 * t, np.full(t.size, 10.0), events)
    s = np.r_[np.linspace(0.0, 0.1, 401), 0.05 + np.linspace(0, 6e-10, 13)]
    assert np.allclose(law.acceleration(s), 10.0, rtol=1e-6, atol=0)
    assert np.allclose(law.value(s), 3 - 2 * s + 5 * s ** 2, rtol=0, atol=1e-12)
