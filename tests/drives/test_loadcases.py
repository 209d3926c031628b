"""Drive checks over several load cases (structcheck.drives.loadcases) against sums written out by hand: two duty
cases of piecewise-constant segments (Honpine's FSG-25 selection duty split in two) with shares of the duty cycles
give the share-weighted average torque, mean speed, life and motor RMS torque; the one duty case alone is the
single-duty check; an accidental case is HD SE's momentary peak with its allowed count (200 N m for 0.15 s at
20 rpm through i = 100: 10^4 / (2 x 20/60 x 100 x 0.15) = 1,000 peaks)."""
import math
from enum import Enum

import numpy as np
import pytest

from structcheck.drives import JointDuty, drive_checks, load_catalogue
from structcheck.drives.loadcases import CaseRole, DriveCase, as_cases, case_drive_checks, combined_duty
from structcheck.errors import InputError

RATIO, ETA = 100.0, 0.8
CATALOGUE = f"""
[reducer."SW"]
kind = "strain_wave"
ratio = {RATIO}
rated_torque_nm = 100
rated_speed_rpm = 2000
rated_speed_side = "input"
rated_life_h = 35000
life_basis = "L50"
average_torque_limit_nm = 140
repeated_peak_torque_nm = 180
momentary_peak_torque_nm = 350
momentary_count_rule = "flexspline_1e4"
max_average_input_speed_rpm = 3000
max_input_speed_rpm = 6000
efficiency = {ETA}
source = "test entry"

[motor."M"]
rated_torque_nm = 1.5
peak_torque_nm = 4.0
max_speed_rpm = 6000
rotor_inertia_kgm2 = 1e-4
source = "test entry"
"""
# Honpine's duty split in two cases: A = start 150 N m 0.2 s at 10 rpm, then 82 N m 3 s at 20 rpm;
# B = 82 N m 1 s at 20 rpm, stop 130 N m 0.3 s at 10 rpm, rest 0.2 s
A = ([150.0, 82.0], [10.0, 20.0], [0.2, 3.0], 0.0)
B = ([82.0, 130.0], [20.0, 10.0], [1.0, 0.3], 0.2)
SA, SB = 0.7, 0.3


@pytest.fixture(scope="module")
def cat(tmp_path_factory):
    f = tmp_path_factory.mktemp("cat") / "c.toml"
    f.write_text(CATALOGUE)
    return load_catalogue(f)


def _duty(seg):
    return JointDuty.from_segments(*seg[:3], pause_s=seg[3])


def _by_name(results):
    return {r.check: r for r in results}


def test_two_duty_cases_by_hand(cat):
    r = _by_name(case_drive_checks([("a", "duty", SA, _duty(A)), ("b", "duty", SB, _duty(B))],
                                   cat.get("reducer", "SW"), motor=cat.get("motor", "M"), design_life_h=5000))

    def sums(seg, p):  # sum n |T|^p t, sum n t, cycle time, sum tau_m^2 t (driving: tau / (i eta), qdd = 0)
        T, n, t, pause = (np.asarray(x) for x in seg)
        return (np.sum(n * T ** p * t), np.sum(n * t), np.sum(t) + pause, np.sum((T / (RATIO * ETA)) ** 2 * t))

    a3, b3 = sums(A, 3), sums(B, 3)
    t_av = ((SA * a3[0] + SB * b3[0]) / (SA * a3[1] + SB * b3[1])) ** (1 / 3)
    n_av = (SA * a3[1] + SB * b3[1]) / (SA * a3[2] + SB * b3[2])  # output rpm, the pauses counted
    # the integrals of the joined history are these sums to round-off
    assert r["reducer average torque"].value == pytest.approx(t_av, rel=1e-12)
    assert r["reducer average input speed"].value == pytest.approx(RATIO * n_av, rel=1e-12)
    life = 35000 * (100 / t_av) ** 3 * 2000 / (RATIO * n_av) / 5  # L50 -> L10 = L50 / 5
    assert r["reducer life"].value == pytest.approx(life, rel=1e-12)
    t_rms = math.sqrt((SA * a3[3] + SB * b3[3]) / (SA * a3[2] + SB * b3[2]))
    assert r["motor RMS torque"].value == pytest.approx(t_rms, rel=1e-12)
    assert r["reducer repeated peak torque"].value == 150.0  # the largest over both cases
    assert r["reducer maximum input speed"].value == pytest.approx(RATIO * 20.0, rel=1e-12)
    assert "over the duty cases 'a' (share 0.7), 'b' (share 0.3)" in r["reducer average torque"].note


def test_one_duty_case_is_the_single_duty_check(cat):
    d = _duty(A)
    red, mot = cat.get("reducer", "SW"), cat.get("motor", "M")
    single = drive_checks(d, red, motor=mot, design_life_h=5000)
    for cases in ([("only", "duty", None, d)], [("x", "duty", 0.5, d), ("y", "duty", 0.5, d)]):
        many = case_drive_checks(cases, red, motor=mot, design_life_h=5000)
        assert [(c.check, c.passed) for c in many] == [(c.check, c.passed) for c in single]
        # one case: the same history; two halves: the joined one, whose sums differ in rounding only
        assert [c.value for c in many] == pytest.approx([c.value for c in single], rel=1e-13)


@pytest.mark.parametrize("count, passed", [(800, True), (1500, False)])
def test_accidental_case_is_a_momentary_peak_with_its_allowed_count(cat, count, passed):
    stop = JointDuty.from_segments([50.0, 200.0, 50.0], [20.0, 20.0, 20.0], [0.5, 0.15, 0.5])
    r = case_drive_checks([("run", "duty", None, _duty(A)), ("e-stop", "accidental", None, stop, count)],
                          cat.get("reducer", "SW"))
    peak, allowed = [c for c in r if c.check.startswith("reducer momentary")]
    assert peak.value == 200.0 and peak.limit == 350.0 and peak.passed
    # 0.15 s over the 180 N m repeated peak at 20 rpm: 2 x (20/60) x 100 x 0.15 = 10 flexings per peak
    assert allowed.value == pytest.approx(1e4 / (2 * 20 / 60 * RATIO * 0.15), rel=1e-12) and allowed.passed is passed
    assert "accidental case 'e-stop': 0.15 s over the repeated peak torque 180 N m at a mean 20 rpm" in allowed.note
    # the accidental case does not enter the duty's peaks or averages
    assert _by_name(r)["reducer repeated peak torque"].value == 150.0


def test_roles_shares_and_counts_are_checked():
    class StudyRole(str, Enum):  # Study.cases' roles: a str enum with the same values
        DUTY = "duty"
        ACCIDENTAL = "accidental"

    d = _duty(A)
    assert DriveCase("a", StudyRole.ACCIDENTAL, None, d).role is CaseRole.ACCIDENTAL
    for bad, message in [(("a", "sometimes", None, d), "give 'duty' or 'accidental'"),
                         (("a", "accidental", 0.5, d), "an accidental case has no share"),
                         (("a", "duty", 1.5, d), "share = 1.5"),
                         (("a", "duty", None, d, 3), "a duty case has no count")]:
        with pytest.raises(InputError, match=message):
            DriveCase(*bad)
    with pytest.raises(InputError, match="add up to 0.9"):
        as_cases([("a", "duty", 0.6, d), ("b", "duty", 0.3, d)])
    with pytest.raises(InputError, match="no duty case"):
        as_cases([("a", "accidental", None, d)])
    with pytest.raises(InputError, match="more than once"):
        as_cases([("a", "duty", 0.5, d), ("a", "duty", 0.5, d)])


def test_the_joined_duty_weights_time_by_share():
    a, b = _duty(A), _duty(B)
    joined = combined_duty(as_cases([("a", "duty", SA, a), ("b", "duty", SB, b)]))
    assert joined.cycle_time == pytest.approx(SA * a.cycle_time + SB * b.cycle_time, rel=1e-15)
    y = np.concatenate([a.tau ** 2, b.tau ** 2])
    assert joined.integral(y) == pytest.approx(SA * a.integral(a.tau ** 2) + SB * b.integral(b.tau ** 2), rel=1e-14)
