"""Reducer torsion curves against Harmonic Drive's published example and the RV-42N datasheet."""
import math

import numpy as np
import pytest

from structcheck.drives import (StiffnessChoice, ThreeSegmentTorsion, arm_joint_stiffness, joint_stiffness,
                                load_catalogue)
from structcheck.errors import InputError
from structcheck.settings import ArmSettings

ARCMIN = math.pi / 180 / 60


def test_hfuc_32_100_torsion_angle_at_60_nm_is_the_published_value():
    """HD SE CSD-2A (doc 1019659) p.23, example HFUC-32-100-2UH: T = 60 N m, T1 = 29, T2 = 108 N m, K1 = 6.7e4,
    K2 = 1.1e5, K3 = 1.2e5 N m/rad: phi = 29/6.7e4 + 31/1.1e5 = 7.15e-4 rad = 2.5 arcmin (printed to 3 and 2
    digits)."""
    curve = load_catalogue().get("reducer", "HFUC-32-100").torsion
    phi = float(curve.angle(60.0))
    assert phi == pytest.approx(7.15e-4, abs=0.005e-4)
    assert phi / ARCMIN == pytest.approx(2.5, abs=0.05)
    assert float(curve.angle(-60.0)) == -phi  # odd in T


def test_three_segments_by_hand():
    c = ThreeSegmentTorsion(29.0, 108.0, 6.7e4, 1.1e5, 1.2e5)
    # first segment, and the third: 29/6.7e4 + 79/1.1e5 + 42/1.2e5 at 150 N m
    np.testing.assert_allclose(c.angle([10.0, 150.0]), [10 / 6.7e4, 29 / 6.7e4 + 79 / 1.1e5 + 42 / 1.2e5], rtol=1e-14)
    np.testing.assert_allclose(c.tangent([10.0, 60.0, 150.0]), [6.7e4, 1.1e5, 1.2e5])
    # continuous at the limit torques
    for T in (29.0, 108.0):
        assert float(c.angle(T + 1e-9)) == pytest.approx(float(c.angle(T)), abs=1e-12)


def test_joint_stiffness_secant_and_tangent():
    hfuc = load_catalogue().get("reducer", "HFUC-32-100")
    phi60 = 29 / 6.7e4 + 31 / 1.1e5
    assert joint_stiffness(hfuc, 60.0) == pytest.approx(60 / phi60)  # secant: 8.40e4 N m/rad
    assert joint_stiffness(hfuc, -60.0, "tangent") == pytest.approx(1.1e5)
    assert joint_stiffness(hfuc, 0.0) == pytest.approx(6.7e4)  # no load: the first slope
    assert joint_stiffness(hfuc, 5.0, StiffnessChoice.SECANT) == pytest.approx(6.7e4)


def test_rv42n_stiffness_is_the_datasheets_113_nm_per_arcmin():
    """Nabtesco RV-N rating table: RV-42N torsional stiffness 113 N m/arcmin; lost motion < 1 arcmin."""
    rv42n = load_catalogue().get("reducer", "RV-42N")
    assert joint_stiffness(rv42n, 300.0) * ARCMIN == pytest.approx(113.0, rel=1e-5)
    assert joint_stiffness(rv42n, 300.0, "tangent") == joint_stiffness(rv42n, 300.0)
    assert rv42n.torsion.lost_motion == pytest.approx(1.0 * ARCMIN)


def test_arm_settings_take_the_stiffness_and_a_reducer_without_curve_is_refused():
    cat = load_catalogue()
    k = arm_joint_stiffness({"joint2": (cat.get("reducer", "RV-42N"), 300.0),
                             "joint5": (cat.get("reducer", "HFUC-32-100"), 60.0)})
    settings = ArmSettings(joint_stiffness=k)
    assert settings.joint_stiffness["joint5"] == pytest.approx(60 / (29 / 6.7e4 + 31 / 1.1e5))
    with pytest.raises(InputError, match="reducer RV-80E: its catalogue entry gives no torsional stiffness"):
        joint_stiffness(cat.get("reducer", "RV-80E"), 500.0)


def test_bearing_tilt_stiffness_from_arcmin(tmp_path):
    """A bearing's moment rigidity printed in N m/arcmin becomes the tilt stiffness in N m/rad: 1 arcmin =
    pi / 10800 rad, so 300 N m/arcmin = 300 x 10800 / pi = 1.0313e6 N m/rad; joint_stiffness then gives (k, k_tilt)."""
    (tmp_path / "b.toml").write_text('[bearing.B]\ntype = "crossed_roller"\nsource = "s"\n'
                                     'tilting_stiffness_nm_per_arcmin = 300\n'
                                     '[reducer.R]\nkind = "cycloidal_rv"\nsource = "s"\n'
                                     'torsional_stiffness_nm_per_rad = 4e5\nbearing = "B"\n')
    cat = load_catalogue(tmp_path / "b.toml")
    bearing = cat.get("bearing", "B")
    assert bearing.tilt_stiffness == pytest.approx(300 * 10800 / math.pi, rel=1e-15)
    k, k_tilt = joint_stiffness(cat.get("reducer", "R"), 100.0, "secant", bearing)
    assert k == 4e5 and k_tilt == bearing.tilt_stiffness
    assert joint_stiffness(cat.get("reducer", "R"), 100.0, "secant") == 4e5  # no bearing: torsion alone
