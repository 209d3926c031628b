"""Reducer checks against published worked examples and hand calculations (sources in each test)."""
import math
import textwrap

import numpy as np
import pytest

from structcheck.drives import JointDuty, MomentaryEvent, load_catalogue, reducer_checks
from structcheck.drives.reducer import (average_torque, check_average_torque, check_input_speeds, check_life,
                                        check_momentary, check_repeated_peak, life_hours)

# Honpine, "How to select a harmonic reduction gear" (FSG-25 selection): start 150 N m, 0.2 s, 10 rpm; constant
# 82 N m, 3 s, 20 rpm; stop 130 N m, 0.3 s, 10 rpm; dwell 0.2 s at 0 N m; published Tav = 89 N m < 140 N m.
FSG25 = dict(torque_nm=[150.0, 82.0, 130.0], speed_rpm=[10.0, 20.0, 10.0], duration_s=[0.2, 3.0, 0.3], pause_s=0.2)


def _catalogue(tmp_path, text):
    f = tmp_path / "mine.toml"
    f.write_text(textwrap.dedent(text))
    return load_catalogue(f, shipped=False)


def test_fsg25_average_torque_is_the_published_89_nm():
    duty = JointDuty.from_segments(**FSG25)
    fsg25 = load_catalogue().get("reducer", "FSG-25")
    # the catalogue's segment sum written out (HD SE CSD-2A p.18 eq. 18.2, p = 3; the dwell turns nothing)
    segment_sum = ((10 * 150**3 * 0.2 + 20 * 82**3 * 3 + 10 * 130**3 * 0.3) / (10 * 0.2 + 20 * 3 + 10 * 0.3)) ** (1 / 3)
    assert average_torque(fsg25, duty) == pytest.approx(segment_sum, rel=1e-12)  # integral form == segment sum
    result = check_average_torque(fsg25, duty)
    assert abs(result.value - 89.0) < 0.5  # published to the newton: 89.37 rounds to 89
    assert result.limit == 140.0 and result.passed and result.utilisation == pytest.approx(segment_sum / 140)


def test_integral_form_converges_to_the_segment_sum_on_fine_samples():
    """A duty sampled finely (no repeated step instants) tends to the segment sum as the steps sharpen."""
    exact = average_torque(load_catalogue().get("reducer", "FSG-25"), JointDuty.from_segments(**FSG25))
    errors = []
    for n in (400, 4000, 40000):
        t = np.linspace(0.0, 3.7, n)
        edges = np.array([0.2, 3.2, 3.5])
        k = np.searchsorted(edges, t, side="right")
        tau = np.array([150.0, 82.0, 130.0, 0.0])[k]
        qd = np.array([10.0, 20.0, 10.0, 0.0])[k] * 2 * np.pi / 60
        duty = JointDuty(t=t, qd=qd, tau=tau)
        errors.append(abs(average_torque(load_catalogue().get("reducer", "FSG-25"), duty) - exact))
    assert errors[-1] < 1e-2 and errors[2] < errors[1] < errors[0]  # the step error shrinks like the sample step


def test_input_speeds_by_hand(tmp_path):
    """n_in,av = i (sum |n_k| t_k) / (sum t_k + t_p) and n_in,max = i max |n| (HD SE CSD-2A eq. 18.5), for the FSG-25
    duty with i = 100 (Honpine's 2,000 rpm maximum input speed at 20 rpm maximum output)."""
    cat = _catalogue(tmp_path, """
        [reducer.G]
        kind = "strain_wave"
        ratio = 100
        max_average_input_speed_rpm = 3000
        max_input_speed_rpm = 1900
        source = "made up for a test"
        """)
    avg, peak = check_input_speeds(cat.get("reducer", "G"), JointDuty.from_segments(**FSG25))
    assert avg.value == pytest.approx(100 * (10 * 0.2 + 20 * 3 + 10 * 0.3) / (0.2 + 3 + 0.3 + 0.2))  # 1756.8 rpm
    assert avg.passed
    assert peak.value == pytest.approx(2000.0) and not peak.passed and peak.utilisation == pytest.approx(2000 / 1900)


def test_momentary_count_formula_by_hand(tmp_path):
    """N = 10^4 / (2 (n/60) i t), at most 10^4 (HD SE CSD-2A p.18). Honpine's impact: 200 N m, 0.15 s, 20 rpm;
    with i = 100: 10^4 / (2 x 20/60 x 100 x 0.15) = 10^4 / 10 = 1,000 peaks."""
    cat = _catalogue(tmp_path, """
        [reducer.G]
        kind = "strain_wave"
        ratio = 100
        momentary_peak_torque_nm = 180
        momentary_count_rule = "flexspline_1e4"
        source = "made up for a test"
        """)
    g = cat.get("reducer", "G")
    torque, count = check_momentary(g, MomentaryEvent(200.0, 20.0, 0.15, count=500))
    assert not torque.passed and torque.utilisation == pytest.approx(200 / 180)
    assert count.value == pytest.approx(1000.0) and count.passed and count.utilisation == pytest.approx(0.5)
    assert not check_momentary(g, MomentaryEvent(100.0, 20.0, 0.15, count=2000))[1].passed
    # a short slow peak: 2 x 1/60 x 100 x 0.01 = 1/30 of a flexing, so the rule's cap of 10^4 holds
    assert check_momentary(g, MomentaryEvent(100.0, 1.0, 0.01, count=1))[1].value == 1e4
    assert len(check_momentary(g, MomentaryEvent(100.0, 20.0, 0.15))) == 1  # no count expected: torque only


def test_life_strain_wave_by_hand(tmp_path):
    """L50 = Ln (T_N / T_av)^3 (n_N / n_in,av), L10 = L50 / 5 (HD SE CSD-2A p.20). Made-up rating T_N = 100 N m,
    Ln = 35,000 h, n_N = 2,000 rpm; duty 50 N m at 10 rpm output (1,000 rpm input) half the time:
    n_in,av = 500 rpm, L50 = 35,000 x 2^3 x 4 = 1,120,000 h, L10 = 224,000 h."""
    cat = _catalogue(tmp_path, """
        [reducer.G]
        kind = "strain_wave"
        ratio = 100
        rated_torque_nm = 100
        rated_speed_rpm = 2000
        rated_speed_side = "input"
        rated_life_h = 35000
        life_basis = "L50"
        source = "made up for a test"
        """)
    g, duty = cat.get("reducer", "G"), JointDuty.from_segments([50.0], [10.0], [1.0], pause_s=1.0)
    assert life_hours(g, duty) == pytest.approx(1_120_000.0, rel=1e-12)
    life = check_life(g, duty, design_life_h=200_000)
    assert life.value == pytest.approx(224_000.0, rel=1e-12) and life.passed
    assert not check_life(g, duty, design_life_h=300_000).passed


def test_life_rv_by_hand(tmp_path):
    """Lh = K (N0 / Nm) (T0 / Tm)^(10/3) (Nabtesco RV life equation), made-up rating K = 6,000 h (L10), N0 = 15 rpm
    output, T0 = 412 N m; duty 206 N m at 15 rpm half the time: Nm = 7.5 rpm, Lh = 6,000 x 2 x 2^(10/3)."""
    cat = _catalogue(tmp_path, """
        [reducer.R]
        kind = "cycloidal_rv"
        rated_torque_nm = 412
        rated_speed_rpm = 15
        rated_speed_side = "output"
        rated_life_h = 6000
        life_basis = "L10"
        source = "made up for a test"
        """)
    r, duty = cat.get("reducer", "R"), JointDuty.from_segments([206.0], [15.0], [1.0], pause_s=1.0)
    assert check_life(r, duty, 20_000).value == pytest.approx(6000 * 2 * 2 ** (10 / 3), rel=1e-12)  # 120,952 h


def test_rv_average_torque_uses_the_10_3_power(tmp_path):
    """Two segments at equal speed and time, 100 and 200 N m: Tm = ((100^(10/3) + 200^(10/3)) / 2)^(3/10)."""
    cat = _catalogue(tmp_path, """
        [reducer.R]
        kind = "cycloidal_rv"
        source = "made up for a test"
        """)
    duty = JointDuty.from_segments([100.0, -200.0], [10.0, -10.0], [1.0, 1.0])
    expected = ((100 ** (10 / 3) + 200 ** (10 / 3)) / 2) ** 0.3
    assert average_torque(cat.get("reducer", "R"), duty) == pytest.approx(expected, rel=1e-12)


def test_repeated_peak_against_the_rv42n_datasheet():
    """RV-42N: allowable acceleration/deceleration torque 1,029 N m (Nabtesco RV-N rating table)."""
    rv42n = load_catalogue().get("reducer", "RV-42N")
    duty = JointDuty.from_segments([1100.0, 300.0, -800.0], [5.0, 10.0, 5.0], [0.2, 1.0, 0.2])
    peak = check_repeated_peak(rv42n, duty)
    assert peak.value == 1100.0 and peak.limit == 1029.0 and not peak.passed


def test_missing_datasheet_values_are_reported_not_passed():
    """Paper 000's RV-80E gives a ratio and a rated torque only: every other check says which field is missing."""
    results = reducer_checks(load_catalogue().get("reducer", "RV-80E"), JointDuty.from_segments([500.0], [10.0], [1.0]),
                             design_life_h=20_000)
    assert all(r.passed is None for r in results)
    notes = {r.check: r.note for r in results}
    assert notes["reducer average torque"] == "not checked: average_torque_limit_nm missing from catalogue entry RV-80E"
    assert notes["reducer life"] == ("not checked: rated_life_h, rated_speed_rpm missing from catalogue entry RV-80E")
    hfuc = reducer_checks(load_catalogue().get("reducer", "HFUC-32-100"),
                          JointDuty.from_segments([50.0], [10.0], [1.0]))
    assert {r.check: r.note for r in hfuc}["reducer life"] == \
        "not checked: rated_torque_nm missing from catalogue entry HFUC-32-100"


def test_a_joint_that_never_turns_has_no_average_torque_and_endless_life(tmp_path):
    cat = _catalogue(tmp_path, """
        [reducer.R]
        kind = "cycloidal_rv"
        average_torque_limit_nm = 100
        rated_torque_nm = 412
        rated_speed_rpm = 15
        rated_speed_side = "output"
        rated_life_h = 6000
        life_basis = "L10"
        source = "made up for a test"
        """)
    r, duty = cat.get("reducer", "R"), JointDuty.from_segments([300.0], [0.0], [1.0])
    assert math.isnan(average_torque(r, duty)) and check_average_torque(r, duty).passed is None
    life = check_life(r, duty, 20_000)
    assert life.value == math.inf and life.passed and life.utilisation == 0.0
