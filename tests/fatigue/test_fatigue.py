"""Fatigue: rainflow against ASTM E1049-85, S-N curves against their defining formulas and EN 1993-1-9,
Miner sums by hand, mean-stress corrections by hand, the critical plane under non-proportional loading,
the safety factor by re-running the scaled history, and screening against the unscreened count."""
import numpy as np
import pytest
from numpy.testing import assert_allclose

from structcheck.errors import InputError
from structcheck.fatigue import (EC3_CATEGORIES, SNCurve, equivalent_amplitude, fatigue_life,
                                 get_sn_curve, marin_size_factor, marin_surface_factor, plane_normals,
                                 rainflow_cycles, signed_von_mises)
from structcheck.model import MATERIALS, Material

MPa = 1e6
S_UT_STEEL = 460 * MPa  # structural_steel: ANSYS 'Structural Steel' ultimate strength


def shigley_life(S_a, S_ut=S_UT_STEEL):
    """Shigley's estimated S-N line for steel, written out: 0.9 S_ut at 1e3, 0.5 S_ut at 1e6, then endurance."""
    if S_a < 0.5 * S_ut:
        return np.inf
    m = np.log10(1e6 / 1e3) / np.log10(0.9 / 0.5)
    return 1e3 * (0.9 * S_ut / S_a) ** m


def uniaxial(xx):
    S = np.zeros((len(xx), 6))
    S[:, 0] = xx
    return S


def voigt(T):
    return np.stack([T[..., 0, 0], T[..., 1, 1], T[..., 2, 2], T[..., 1, 2], T[..., 0, 2], T[..., 0, 1]], -1)


def random_field(n_t=96, n_nodes=150, level=18 * MPa, seed=0):
    """A smooth periodic stress field: three harmonics with random tensors plus a random static part."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 1, n_t, endpoint=False)
    size = rng.lognormal(0, 0.8, size=(1, n_nodes, 1))
    S = rng.normal(size=(1, n_nodes, 6)) * 1.5 * level
    for k in range(1, 4):
        S = S + size * level * (rng.normal(size=(1, n_nodes, 6)) * np.cos(2 * np.pi * k * t)[:, None, None]
                                + rng.normal(size=(1, n_nodes, 6)) * np.sin(2 * np.pi * k * t)[:, None, None])
    return S


# ---------------------------------------------------------------------- counting
def test_rainflow_reproduces_astm_e1049_example():
    # ASTM E1049-85 (2011) Fig. 6 / X1: history -2, 1, -3, 5, -1, 3, -4, 4, -2 counts
    # range 3: 0.5, 4: 1.5, 6: 0.5, 8: 1.0, 9: 0.5 (the table the rainflow package reproduces in its docs).
    c = rainflow_cycles([-2, 1, -3, 5, -1, 3, -4, 4, -2], periodic=False)  # a one-off, as in the standard
    table = {r: c.count[c.range == r].sum() for r in np.unique(c.range)}
    assert table == {3: 0.5, 4: 1.5, 6: 0.5, 8: 1.0, 9: 0.5}
    assert c.count.sum() == 4.0
    # the full cycle of range 4 is the 3 -> -1 ... closing on the -1, 3 reversal pair: mean 1
    assert_allclose(c.mean[(c.range == 4) & (c.count == 1)], [1.0])


def test_periodic_count_is_the_steady_state_of_the_repeated_history():
    # Counting K repetitions minus K - 1 repetitions leaves exactly one steady-state period.
    x = np.random.default_rng(3).normal(size=40)
    one = rainflow_cycles(x, periodic=True)
    a, b = rainflow_cycles(np.tile(x, 12), periodic=False), rainflow_cycles(np.tile(x, 11), periodic=False)

    def hist(c):
        out = {}
        for r, m, n in zip(np.round(c.range, 9), np.round(c.mean, 9), c.count):
            out[(r, m)] = out.get((r, m), 0.0) + n
        return out
    ha, hb, h1 = hist(a), hist(b), hist(one)
    diff = {k: ha.get(k, 0) - hb.get(k, 0) for k in set(ha) | set(hb)}
    assert {k: v for k, v in diff.items() if v} == h1
    assert np.all(np.isin(list(h1.values()), [1.0, 2.0, 3.0]))  # half cycles paired into whole ones
    assert one.range.max() == pytest.approx(x.max() - x.min())  # the largest cycle closes


# ---------------------------------------------------------------------- S-N curves
@pytest.mark.parametrize("S_a", [400 * MPa, 300 * MPa, 240 * MPa, 229 * MPa])
def test_constant_amplitude_history_gives_the_sn_life(S_a):
    t = np.arange(64) / 64  # the sine's peaks are samples
    r = fatigue_life(uniaxial(S_a * np.sin(2 * np.pi * t)), "structural_steel")
    assert_allclose(r.life_cycles, [shigley_life(S_a)], rtol=1e-12)
    if np.isfinite(shigley_life(S_a)):
        assert_allclose(np.abs(r.governing_normal), [1, 0, 0], atol=1e-12)
        assert_allclose(r.governing_cycles.range, [2 * S_a])


def test_two_block_history_gives_miners_hand_sum():
    S1, S2, Sm, n1, n2 = 320 * MPa, 260 * MPa, 60 * MPa, 3, 5
    xx = [0.0] + [S1, -S1] * n1 + [0.0] + [S2, -S2] * n2 + [0.0]
    r = fatigue_life(uniaxial(np.array(xx) + Sm), "structural_steel", mean_stress="goodman")
    goodman = 1.0 / (1.0 - Sm / S_UT_STEEL)
    hand = n1 / shigley_life(S1 * goodman) + n2 / shigley_life(S2 * goodman)
    assert_allclose(r.damage_per_cycle, [hand], rtol=1e-12)
    assert sorted(r.governing_cycles.range) == [2 * S2] * n2 + [2 * S1] * n1


def test_sn_curve_inverse_basquin_and_material_data():
    c = SNCurve.from_basquin("basquin", 900 * MPa, -0.1, ultimate_strength=1e9)
    N = np.array([1e2, 1e4, 1e7])
    assert_allclose(c.strength(N), 900 * MPa * (2 * N) ** -0.1)
    assert_allclose(c.life(c.strength(N)), N)
    assert c.limit == 0 and c.life(0.0) == np.inf
    for name, material in MATERIALS.items():  # every shipped material has fatigue data, stronger than static
        curve = get_sn_curve(material)
        assert curve.source and curve.quantity == "amplitude"
        assert curve.ultimate_strength >= material.strength
        assert 0.2 * curve.ultimate_strength < curve.limit < 0.55 * curve.ultimate_strength, name
    assert get_sn_curve("6061-T6").limit == 96.5 * MPa


def test_surface_factor_scales_the_curve():
    S_a, k = 300 * MPa, 0.8
    r = fatigue_life(uniaxial(S_a * np.sin(2 * np.pi * np.arange(32) / 32)), "structural_steel", surface_factor=k)
    assert_allclose(r.life_cycles, [shigley_life(S_a / k)], rtol=1e-12)
    assert marin_surface_factor(460 * MPa, "machined") == pytest.approx(4.51 * 460 ** -0.265)
    assert marin_size_factor(0.02) == pytest.approx(1.24 * 20 ** -0.107)


def test_eurocode_3_detail_category_71():
    c = get_sn_curve("EC3-71")
    assert c.quantity == "range" and c.ultimate_strength is None
    assert_allclose(c.strength(2e6), 71 * MPa)
    D = (2 / 5) ** (1 / 3) * 71 * MPa  # constant-amplitude fatigue limit at 5e6
    assert_allclose(c.strength(5e6), D)
    assert D / (71 * MPa) == pytest.approx(0.737, abs=5e-4)
    assert_allclose(c.life([2 * 71 * MPa, 71 * MPa]), [2e6 / 8, 2e6])  # m = 3 above the knee
    assert_allclose(c.life(0.9 * D), 5e6 * 0.9 ** -5)  # m = 5 below it
    L = (5 / 100) ** (1 / 5) * D
    assert_allclose(c.limit, L)
    assert L / (71 * MPa) == pytest.approx(0.405, abs=5e-4)
    assert c.life(0.999 * L) == np.inf and c.life(1.001 * L) < 1e8
    assert len(EC3_CATEGORIES) == 14


def test_detail_category_errors():
    with pytest.raises(InputError, match="EC3-71"):
        get_sn_curve("EC3-70")
    with pytest.raises(InputError, match="EC9-<dsigma_C>-<m1>-<m2>"):  # no EN 1999-1-3 row shipped: m2 is the user's
        get_sn_curve("EC9-25-4.3")
    S = uniaxial(np.sin(np.linspace(0, 2 * np.pi, 17)) * 50 * MPa)
    with pytest.raises(InputError, match="mean_stress='none'"):
        fatigue_life(S, "EC3-71", mean_stress="goodman")
    r = fatigue_life(S + 100 * MPa, "EC3-71")  # ranges only: the mean does not matter
    assert_allclose(r.damage_per_cycle, fatigue_life(S, "EC3-71").damage_per_cycle, rtol=1e-12)


# ---------------------------------------------------------------------- mean stress
def test_mean_stress_corrections_match_hand_values():
    Sa, Sm, Su = 100.0, 50.0, 400.0
    assert equivalent_amplitude(Sa, Sm, Su, "goodman") == pytest.approx(100 / (1 - 50 / 400))
    assert equivalent_amplitude(Sa, Sm, Su, "gerber") == pytest.approx(100 / (1 - (50 / 400) ** 2))
    assert equivalent_amplitude(Sa, Sm, Su, "swt") == pytest.approx(np.sqrt(150 * 100))
    assert equivalent_amplitude(Sa, Sm, Su, "none") == Sa
    assert equivalent_amplitude(Sa, -50.0, Su, "goodman") == Sa  # no benefit from compression
    assert equivalent_amplitude(Sa, -150.0, Su, "swt") == 0.0  # S_max < 0
    assert np.all(equivalent_amplitude([Sa, Sa], [Su, 2 * Su], Su, "swt") == np.inf)


def test_mean_beyond_ultimate_is_flagged_static_failure_not_nan():
    S = uniaxial(500 * MPa + 10 * MPa * np.sin(2 * np.pi * np.arange(16) / 16))
    r = fatigue_life(np.stack([S, 0.1 * S], 1), "structural_steel")
    assert r.static_failure.tolist() == [True, False]
    assert r.life_cycles[0] == 0 and r.damage_per_cycle[0] == np.inf
    assert not np.isnan(r.damage_per_cycle).any() and r.governing_node == 0


# ---------------------------------------------------------------------- criteria
def test_plane_set_covers_the_hemisphere_within_its_stated_angle():
    n = plane_normals(10.0)
    assert len(n) == 206
    assert_allclose(np.linalg.norm(n, axis=1), 1.0)
    v = np.random.default_rng(1).normal(size=(20000, 3))
    v /= np.linalg.norm(v, axis=1)[:, None]
    worst = np.degrees(np.arccos(np.clip(np.abs(v @ n.T).max(1), 0, 1))).max()
    assert worst <= 10 / np.sqrt(2)


def test_critical_plane_catches_rotating_principal_direction_signed_von_mises_misses_it():
    s = 250 * MPa  # above the endurance limit even at the grid's worst angle; von Mises below S_ut
    w = 2 * np.pi * np.arange(720) / 720  # one duty cycle = one turn of the principal directions
    T = np.zeros((len(w), 3, 3))
    T[:, 0, 0], T[:, 1, 1] = s * np.cos(w), -s * np.cos(w)
    T[:, 0, 1] = T[:, 1, 0] = s * np.sin(w)
    a, b = 0.3, 0.7  # a rotation that puts the loaded plane off the plane grid
    Rz = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, np.cos(b), -np.sin(b)], [0, np.sin(b), np.cos(b)]])
    R = Rx @ Rz
    S = voigt(R @ T @ R.T)
    svm = signed_von_mises(S)
    assert np.ptp(svm) < 1e-6 * s  # constant: no cycle to count
    cp = fatigue_life(S, "structural_steel", mean_stress="none")
    vm = fatigue_life(S, "structural_steel", method="signed_von_mises", mean_stress="none")
    assert vm.damage_per_cycle[0] == 0.0
    # the worst plane lies within step / sqrt(2) of a grid normal: amplitude s cos^2(delta) <= S_a <= s
    delta = np.radians(10 / np.sqrt(2))
    D = cp.damage_per_cycle[0]
    assert 1 / shigley_life(s * np.cos(delta) ** 2 * (1 - 1e-4)) <= D <= 1 / shigley_life(s)
    assert abs(cp.governing_normal @ R[:, 2]) < np.sin(delta)  # its normal lies in the loaded plane
    assert_allclose(cp.governing_cycles.range.max(), 2 * s, rtol=1.5e-2)


# ---------------------------------------------------------------------- safety factor and screening
def test_safety_factor_gives_the_design_life_when_the_history_is_scaled():
    S = random_field()
    # on the fixed plane grid, exactly (the bisection's tolerance)
    r = fatigue_life(S, "structural_steel", design_life_cycles=1e5, refine=False)
    assert 0 < r.safety_factor < np.inf
    scaled = fatigue_life(S * r.safety_factor, "structural_steel", refine=False)
    assert_allclose(scaled.min_life_cycles, 1e5, rtol=1e-6)
    assert scaled.governing_node == r.safety_factor_node
    # with the refinement, each history's planes are its own (Goodman ranks planes differently at another scale):
    # the scaled history's refined plane may differ within the refinement's resolution, 0.04 % of the range, 0.5 %
    # of the life on this curve (slope 11.75)
    r = fatigue_life(S, "structural_steel", design_life_cycles=1e5)
    scaled = fatigue_life(S * r.safety_factor, "structural_steel")
    assert_allclose(scaled.min_life_cycles, 1e5, rtol=5e-3)
    assert scaled.governing_node == r.safety_factor_node


def test_safety_factor_at_the_endurance_limit_and_without_cycles():
    S_a = 150 * MPa
    S = uniaxial(S_a * np.sin(2 * np.pi * np.arange(32) / 32))
    r = fatigue_life(S, "structural_steel", design_life_cycles=1e9)  # beyond the knee: the limit governs
    assert_allclose(r.safety_factor, 0.5 * S_UT_STEEL / S_a, rtol=1e-12)
    steady = fatigue_life(uniaxial(np.full(8, 100 * MPa)), "structural_steel", design_life_cycles=1e6)
    assert steady.safety_factor == np.inf and steady.life_cycles[0] == np.inf


@pytest.mark.parametrize("material, mean_stress", [("structural_steel", "goodman"), ("6061-T6", "swt"),
                                                   ("304", "gerber"), ("EC3-71", None)])
def test_screening_never_drops_a_damaged_node(material, mean_stress):
    S = random_field(seed=7)
    kw = dict(mean_stress=mean_stress, design_life_cycles=2e6)
    fast = fatigue_life(S, material, **kw)
    full = fatigue_life(S, material, screening=False, **kw)
    assert_allclose(fast.damage_per_cycle, full.damage_per_cycle, rtol=0, atol=0)
    assert fast.safety_factor == full.safety_factor
    assert (full.damage_per_cycle[fast.screened] == 0).all()
    assert (full.damage_per_cycle > 0).any()  # damaged nodes the screen must keep (what it skips: the next test)


def test_screening_skips_nodes_in_the_test_field():
    fast = fatigue_life(random_field(seed=7), "structural_steel")
    assert 0 < fast.screened.sum() < fast.screened.size and (fast.damage_per_cycle > 0).any()


# ---------------------------------------------------------------------- input errors
@pytest.mark.parametrize("kwargs, match", [
    (dict(stress_history=np.zeros((10, 3, 5))), "shape"),
    (dict(design_life_cycles=-1.0), "design_life_cycles"),
    (dict(method="tresca"), "critical_plane"),
    (dict(mean_stress="walker"), "goodman"),
    (dict(material=Material("unobtainium", 1000.0, 1e9, 0.3, 1e6)), "no fatigue"),
    (dict(surface_factor=0.0), "surface"),
])
def test_input_errors(kwargs, match):
    args = dict(stress_history=uniaxial(np.sin(np.arange(8.0))), material="304")
    args.update(kwargs)
    with pytest.raises(InputError, match=match):
        fatigue_life(args.pop("stress_history"), args.pop("material"), **args)


def test_reversal_bound_bounds_the_periodic_rainflow_count(rng):
    """The screening's cycle-count bound (peaks of the periodic series) is never below the count sum of a
    periodic rainflow count, and equals it for a history with one peak (one cycle per duty cycle)."""
    from structcheck.fatigue.damage import _reversal_bound

    for _ in range(300):
        x = np.round(rng.standard_normal(rng.integers(2, 40)), 1)  # rounding makes plateaus and ties
        assert rainflow_cycles(x, periodic=True).count.sum() <= _reversal_bound(x[:, None])[0]
    trapezoid = np.array([-1.0, 0, 1, 1, 1, 0, -1, -1])
    assert _reversal_bound(trapezoid[:, None])[0] == 1 == rainflow_cycles(trapezoid, periodic=True).count.sum()


def test_verification_manual_fatigue_cases_pass():
    """`structcheck verify`'s fatigue cases (ASTM E1049, a life on every material curve, a weld detail category,
    pure shear against the brute-force plane search), each row within its stated tolerance."""
    from structcheck.verify import run_cases

    names = ["astm_e1049", "sn_constant_amplitude", "weld_detail", "pure_shear_plane"]
    rows = run_cases(names)
    assert {r["case"] for r in rows} == set(names)
    assert [(r["case"], r["quantity"]) for r in rows if not r["pass"]] == []
    from structcheck.verify.fatigue import MATERIAL_CURVES

    assert set(MATERIALS) == set(MATERIAL_CURVES)
