"""Output bearing checks: ISO 281 arithmetic by hand, the crossed-roller X/Y switch, the static factor, the load
transfer to the bearing centre (HD's M = Fr (Lr + R) + Fa La), Miner's rule over revolutions."""
import math

import numpy as np
import pytest

from structcheck.drives import JointDuty, bearing_checks, bearing_loads, equivalent_load, l10_hours, load_catalogue
from structcheck.drives.bearing import static_equivalent_load


def _duty(force, moment, rpm=10.0, pause=0.0):
    """A constant load at a constant speed over 1 s."""
    t = np.array([0.0, 1.0])
    return JointDuty(t=t, qd=np.full(2, rpm * 2 * np.pi / 60), tau=np.zeros(2), qdd=np.zeros(2),
                     force=np.tile(force, (2, 1)), moment=np.tile(moment, (2, 1)), pause=pause)


def test_l10_iso281_by_hand():
    """L10 = (C/P)^p 10^6 revolutions, L10h = 10^6 / (60 n) (C/P)^p (ISO 281:2007; SKF's life equation). C = 30 kN,
    P = 5 kN, n = 10 rpm: roller (10/3): 6^(10/3) = 216 x 6^(1/3) = 216 x 1.817121 = 392.498 -> 654,163 h; ball (3):
    216 -> 360,000 h; fw = 1.2 divides C/P by 1.2: 5^(10/3) = 125 x 1.709976 = 213.747 -> 356,245 h."""
    assert l10_hours(30e3, 5e3, 1.0, 10 / 3, 10.0) == pytest.approx(1e6 / 600 * 216 * 1.817121, rel=1e-6)
    assert l10_hours(30e3, 5e3, 1.0, 3.0, 10.0) == pytest.approx(360_000.0, rel=1e-12)
    assert l10_hours(30e3, 5e3, 1.2, 10 / 3, 10.0) == pytest.approx(1e6 / 600 * 125 * 1.709976, rel=1e-6)
    assert l10_hours(30e3, 0.0, 1.0, 10 / 3, 10.0) == math.inf


def test_x_y_switch_on_both_sides_of_1_5():
    """Pc = X (Fr + 2M/dp) + Y Fa: X = 1, Y = 0.45 when Fa / (Fr + 2M/dp) <= 1.5, else X = Y = 0.67 (IKO; HD SE SHG
    manual p.43). Fr = 1,000 N: Fa = 1,400 N (ratio 1.4) -> 1,000 + 630 = 1,630 N; Fa = 1,600 N (1.6) ->
    0.67 x 2,600 = 1,742 N; Fa = 1,500 N (exactly 1.5) -> 1,000 + 675 = 1,675 N."""
    Pc = equivalent_load([1000.0, 1000.0, 1000.0], [1400.0, 1600.0, 1500.0], [0.0, 0.0, 0.0], dp=0.088)
    np.testing.assert_allclose(Pc, [1630.0, 1742.0, 1675.0], rtol=1e-12)
    # a tilting moment counts as 2 M / dp of radial load: M = 44 N m on dp = 0.088 m is 1,000 N
    np.testing.assert_allclose(equivalent_load([0.0, 0.0], [1400.0, 1600.0], [44.0, 44.0], dp=0.088), [1630.0, 1742.0],
                               rtol=1e-12)
    assert equivalent_load([0.0], [500.0], [0.0], dp=0.088)[0] == pytest.approx(0.67 * 500)  # pure axial: X = Y = 0.67


def test_static_factor_by_hand():
    """P0 = Fr + 2M/dp + 0.44 Fa, fs = C0 / P0 (IKO; HD). CHA-25A (C0 = 45 kN, dp = 0.088 m): Fr = 2 kN, M = 100 N m,
    Fa = 1 kN -> P0 = 2,000 + 2,272.73 + 440 = 4,712.73 N, fs = 9.549."""
    assert static_equivalent_load(2000.0, 1000.0, 100.0, 0.088) == pytest.approx(2000 + 200 / 0.088 + 440)
    cha25 = load_catalogue().get("bearing", "CHA-25A")
    # loads given at the bearing centre (bearing_z_m = 0): radial along x, axial along z, tilting about y
    life, static, tilt = bearing_checks(cha25, _duty([2000.0, 0, 1000.0], [0, 100.0, 0]), design_life_h=20_000, fw=1.0,
                                        bearing_z_m=0.0)
    assert static.value == pytest.approx(45000 / (2000 + 200 / 0.088 + 440)) and static.passed
    assert static.limit == 1.5
    assert tilt.value == pytest.approx(100.0) and tilt.limit == 254.0 and tilt.passed
    # fa / (Fr + 2M/dp) = 1000 / 4272.7 < 1.5: Pc = 4272.7 + 450 = 4722.7 N; L10 = 10^6/(60 x 10) (30000/4722.7)^(10/3)
    Pc = 2000 + 200 / 0.088 + 0.45 * 1000
    assert life.value == pytest.approx(1e6 / 600 * (30000 / Pc) ** (10 / 3), rel=1e-12) and life.passed


def test_loads_moved_to_the_bearing_centre_give_hds_moment():
    """HD LLC CSF/CSG p.34: M = Fr (Lr + R) + Fa La for a radial force Fr at Lr from the output flange and an axial
    force Fa at La from the axis, the bearing centre R inside the flange. Loads given at the flange centre (z out of
    the reducer): F = (Fr, 0, -Fa) applied at (La, 0, Lr) is a moment p x F = (0, Lr Fr + La Fa, 0) there."""
    Fr, Fa, Lr, La, R = 800.0, 300.0, 0.05, 0.04, 0.018
    moment = np.cross([La, 0.0, Lr], [Fr, 0.0, -Fa])
    fr, fa, m = bearing_loads(_duty([Fr, 0.0, -Fa], moment), bearing_z_m=-R)
    assert fr[0] == pytest.approx(Fr) and fa[0] == pytest.approx(Fa)
    assert m[0] == pytest.approx(Fr * (Lr + R) + Fa * La, rel=1e-12)
    # the check's default puts the centre at -offset_m (CHA-25A: R = 0.018 m)
    cha25 = load_catalogue().get("bearing", "CHA-25A")
    tilt = bearing_checks(cha25, _duty([Fr, 0.0, -Fa], moment), fw=1.0)[2]
    assert tilt.value == pytest.approx(Fr * (Lr + R) + Fa * La, rel=1e-12)


def test_mean_load_is_miners_rule_over_revolutions():
    """Two loads P1, P2 over equal revolutions: the life from the mean load equals Miner's sum of damage,
    1 / L = 0.5 / L1 + 0.5 / L2 (each L_k = 10^6 (C / P_k)^(10/3) revolutions)."""
    cha32 = load_catalogue().get("bearing", "CHA-32A")
    t = np.array([0.0, 1.0, 1.0, 2.0])
    F = np.array([[3000.0, 0, 0]] * 2 + [[6000.0, 0, 0]] * 2)
    duty = JointDuty(t=t, qd=np.full(4, 2 * np.pi / 60 * 12), tau=np.zeros(4), force=F, moment=np.zeros((4, 3)))
    life = bearing_checks(cha32, duty, design_life_h=1.0, fw=1.0, bearing_z_m=0.0)[0]
    L1, L2 = 1e6 * (34500 / 3000) ** (10 / 3), 1e6 * (34500 / 6000) ** (10 / 3)  # revolutions
    revolutions_per_hour = 12 * 60
    assert life.value == pytest.approx(1 / (0.5 / L1 + 0.5 / L2) / revolutions_per_hour, rel=1e-12)
    # the four-point contact CHA-14A uses B = 3 (HD SE SHG table 42.4)
    cha14 = load_catalogue().get("bearing", "CHA-14A")
    life3 = bearing_checks(cha14, _duty([1000.0, 0, 0], [0, 0, 0], rpm=12), design_life_h=1.0, fw=1.0, bearing_z_m=0)[0]
    assert life3.value == pytest.approx(1e6 * 8.5**3 / revolutions_per_hour, rel=1e-12)


def test_tilting_moment_over_allowable_fails_and_missing_inputs_are_named():
    cha25 = load_catalogue().get("bearing", "CHA-25A")
    tilt = bearing_checks(cha25, _duty([0, 0, 0], [300.0, 0, 0]), fw=1.0, bearing_z_m=0.0)[2]
    assert not tilt.passed and tilt.utilisation == pytest.approx(300 / 254)
    no_fw = bearing_checks(cha25, _duty([0, 0, 0], [30.0, 0, 0]), design_life_h=1.0)[0]
    assert no_fw.note == "not checked: load_factor missing from catalogue entry CHA-25A"
    no_loads = JointDuty(t=[0.0, 1.0], qd=[1.0, 1.0], tau=[0.0, 0.0])
    assert all("no reaction force" in r.note for r in bearing_checks(cha25, no_loads, fw=1.0))


def test_shipped_cha_bearings_reproduce_hds_static_moment_for_small_sizes():
    """M0 = dp C0 / (2 fs) reproduces HD SE's CHA table (M0 = 155, 276, 603 N m at fs = 1.8 for sizes 14-20): the
    shipped dp and C0 are those of the table."""
    cat = load_catalogue()
    for size, m0 in (("14A", 155), ("17A", 276), ("20A", 603)):
        b = cat.get("bearing", f"CHA-{size}")
        assert b.pitch_diameter_m * b.static_load_rating_n / (2 * 1.8) == pytest.approx(m0, abs=0.6)
