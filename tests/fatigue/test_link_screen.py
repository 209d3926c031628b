"""The link fatigue's block screening (fatigue.links): its spread bounds never exceed the onset scale of any plane
(against every plane of the plane set counted), and link_fatigue with them gives, field for field and bit for bit,
what the block loop that counts every block gives (the previous implementation, kept here as the reference)."""
from types import SimpleNamespace

import numpy as np
import pytest

from structcheck.fatigue import links
from structcheck.fatigue.criteria import normal_stress, plane_normals, signed_von_mises
from structcheck.fatigue.damage import fatigue_life
from structcheck.fatigue.screening import onset_scale
from structcheck.fatigue.links import FatigueSettings, link_fatigue
from structcheck.fatigue.sn import get_sn_curve

MPa = 1e6


def _reference_count_group(S, C, points, n_e, curve, settings, mean_stress, onset, L, screen=None):
    """The block loop before the screening, verbatim: every block up to the limit is counted."""
    damage = np.zeros(len(points))
    order = np.argsort(onset, kind="stable")
    sf, sf_point, n = np.inf, None, 0
    while n < len(order):
        limit = 1.0 if L is None else max(1.0, sf)
        if onset[order[n]] > limit:
            break
        take = order[n:][onset[order[n:]] <= limit][:links._chunk_points(C)]
        (q, hist), = links._histories(S, C, points[take], n_e, single=True)
        r = fatigue_life(hist, curve, method=settings.method, mean_stress=mean_stress, design_life_cycles=L,
                         plane_step_deg=settings.plane_step_deg, safety_factor_cap=sf)
        damage[take] = r.damage_per_cycle
        if L is not None and r.safety_factor is not None and r.safety_factor < sf:
            sf, sf_point = r.safety_factor, int(q[r.safety_factor_node])
        done = np.zeros(len(order), bool)
        done[take] = True
        order = np.r_[order[:n], take, order[n:][~done[order[n:]]]]
        n += len(take)
    return damage, sf, sf_point, n


def random_link(seed, n_p=10, n_e=40, n_b=7, n_t=160, level=25 * MPa):
    """A link of ``n_e`` elements whose 10 points share mesh nodes at random, a random basis (n_b, 6, n_p, n_e)
    whose size varies over the elements by a log-normal factor (the onset order then differs from the order of
    the safety factors), and periodic coefficient histories (a mean and three harmonics of random phase)."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, n_t, endpoint=False)
    S = rng.normal(size=(n_b, 6, n_p, n_e)) * level * rng.lognormal(0.0, 0.5, size=(1, 1, 1, n_e))
    C = rng.normal(size=(1, n_b)) * 0.3 + sum(rng.normal(size=(1, n_b)) / k * np.sin(2 * np.pi * k * t[:, None]
                                                                                  + rng.uniform(0, 6.3, n_b))
                                               for k in (1, 2, 3))
    part = SimpleNamespace(cells=rng.integers(0, 6 * n_e, size=(n_e, 10)), points=np.zeros((6 * n_e, 3)))
    return part, SimpleNamespace(S=S), C[:, :4], C[:, 4:]


def _same(a, b):
    for f in ("damage_per_cycle", "life_cycles", "governing_history", "governing_normal"):
        x, y = getattr(a, f), getattr(b, f)
        assert (x is None) == (y is None) and (x is None or np.array_equal(x, y)), f
    assert a.governing_node == b.governing_node and a.n_points == b.n_points
    assert a.safety_factor == b.safety_factor or (a.safety_factor is None and b.safety_factor is None)
    assert (a.curve is None) == (b.curve is None) and (a.curve is None or a.curve.name == b.curve.name)
    assert (a.governing_cycles is None) == (b.governing_cycles is None)
    if a.governing_cycles is not None:
        for f in ("range", "mean", "count"):
            assert np.array_equal(getattr(a.governing_cycles, f), getattr(b.governing_cycles, f)), f


CASES = [  # material, method, mean stress, design life, basis level
    ("6061-O", "critical_plane", None, 1e7, 2.5 * MPa),
    ("6061-O", "critical_plane", "gerber", 1e7, 1.8 * MPa),
    ("304", "critical_plane", "swt", 1e6, 6 * MPa),
    ("EC3-71", "critical_plane", None, 2e6, 0.6 * MPa),
    ("304", "critical_plane", "none", None, 11 * MPa),
    ("6061-O", "signed_von_mises", None, 1e7, 1.5 * MPa),
]


@pytest.mark.parametrize("n_p", [10, 4])
@pytest.mark.parametrize("material, method, mean_stress, life, level", CASES)
def test_screened_link_fatigue_equals_counting_every_block(monkeypatch, n_p, material, method, mean_stress, life,
                                                           level):
    part, basis, coeff, modal = random_link(n_p + len(material), n_p=n_p, level=level)
    settings = FatigueSettings(design_life_cycles=life, method=method, mean_stress=mean_stress, plane_step_deg=15.0)
    curve = get_sn_curve(material)
    monkeypatch.setattr(links, "_HISTORY_BYTES", len(coeff) * 6 * 8 * 2 * 6)  # blocks of 6 points
    new = link_fatigue(part, basis, coeff, modal, settings, {"": curve})
    full = link_fatigue(part, basis, coeff, modal, settings, {"": curve}, screening=False)
    monkeypatch.setattr(links, "_count_group", _reference_count_group)
    ref = link_fatigue(part, basis, coeff, modal, settings, {"": curve})
    _same(new, ref)
    _same(full, ref)
    assert full.n_points_counted == ref.n_points_counted
    assert new.n_points_counted <= ref.n_points_counted
    # the test field has what the screen must keep, and blocks it skips: without a design life no factor and
    # damaged points; with one a finite factor (the levels are set for one between 1 and 4)
    if life is None:
        assert new.safety_factor is None and new.damage_per_cycle.max() > 0
    else:
        assert 1 < new.safety_factor < np.inf
    assert new.n_points_counted < ref.n_points_counted


def test_screen_leaves_the_blocks_that_lower_the_safety_factor(monkeypatch):
    """In a field where later blocks hold smaller factors than the first one, those blocks are still counted
    (and their factor is the reference's)."""
    part, basis, coeff, modal = random_link(2, n_e=60, level=2 * MPa)
    settings = FatigueSettings(design_life_cycles=1e7, plane_step_deg=15.0)
    curve = get_sn_curve("6061-O")
    monkeypatch.setattr(links, "_HISTORY_BYTES", len(coeff) * 6 * 8 * 2 * 6)
    caps = []
    counted = links.fatigue_life

    def spy(hist, *args, **kw):
        caps.append(kw["safety_factor_cap"])
        return counted(hist, *args, **kw)

    monkeypatch.setattr(links, "fatigue_life", spy)
    new = link_fatigue(part, basis, coeff, modal, settings, {"": curve})
    lowered = len(set(caps))  # each new cap is a smaller factor found by a later block
    monkeypatch.setattr(links, "_count_group", _reference_count_group)
    ref = link_fatigue(part, basis, coeff, modal, settings, {"": curve})
    _same(new, ref)
    assert lowered >= 3


def _plane_onsets(hist, curve, mean_stress, method):
    """Onset scale (n,) of each point's least plane: of the grid's planes and 600 directions of a Fibonacci
    hemisphere (about 6 deg apart, between the grid's; the refinement counts planes off the grid, which the bounds
    must cover too)."""
    if method == "signed_von_mises":
        h = signed_von_mises(hist)[..., None]
        hi, lo = h.max(0), h.min(0)
        return onset_scale(hi - lo, hi, 0.5 * (hi + lo), curve, mean_stress).min(1)
    k = np.arange(600) + 0.5
    z, phi = k / 600, np.pi * (1 + 5 ** 0.5) * k
    dense = np.column_stack([np.sqrt(1 - z * z) * np.cos(phi), np.sqrt(1 - z * z) * np.sin(phi), z])
    normals = np.vstack([plane_normals(15.0), dense])
    out = np.full(hist.shape[1], np.inf)
    for a in range(0, len(normals), 350):
        h = normal_stress(hist, normals[a:a + 350])  # (n_t, n, 350)
        hi, lo = h.max(0), h.min(0)
        out = np.minimum(out, onset_scale(hi - lo, hi, 0.5 * (hi + lo), curve, mean_stress).min(1))
    return out


@pytest.mark.parametrize("material, method, mean_stress, life, level", CASES)
def test_spread_bounds_are_below_every_planes_onset(material, method, mean_stress, life, level):
    part, basis, coeff, modal = random_link(11, n_e=30, level=level)
    C = np.hstack([coeff, modal])
    curve = get_sn_curve(material)
    ms = links._mean_stress(mean_stress, curve, "")
    points = np.arange(10 * 30)
    op = np.ascontiguousarray(links._point_operator(basis.S, points // 30, points % 30))
    (_, hist), = links._histories(basis.S, C, points, 30, single=True)
    exact = _plane_onsets(hist, curve, ms, method)
    mid = 0.5 * (C.max(0) + C.min(0))
    starts = np.arange(0, len(C), links._WINDOW)
    bounds = {"window": links._window_spread(op, mid, np.maximum.reduceat(C - mid, starts, axis=0),
                                             np.minimum.reduceat(C - mid, starts, axis=0)),
              "one window": links._window_spread(op, mid, np.ptp(C, 0)[None] / 2, -np.ptp(C, 0)[None] / 2)}
    Y = (C @ np.matmul(links._PY, op).reshape(C.shape[1], -1)).reshape(len(C), 6, -1)
    bounds["history"], bounds["history, coupled"] = links._coordinate_spread(Y), links._coordinate_spread(Y, True)
    lower = {name: links._spread_onset(*b, curve, ms, method) for name, b in bounds.items()}
    for name, x in lower.items():
        assert (x <= exact * (1 + 1e-12)).all(), name
    # each refinement is at least as tight, and the history's bound close (it misses only the gaps between the
    # planes and, for the Goodman term, that the largest and smallest values need not be on one plane)
    assert (lower["window"] >= lower["one window"] * (1 - 1e-12)).all()
    assert (lower["history, coupled"] >= lower["history"] * (1 - 1e-12)).all()
    assert np.median(lower["history, coupled"] / exact) > 0.6


def test_spread_brackets_the_principal_stresses(rng):
    s = rng.normal(size=(500, 6)) * MPa
    s[:50, 3:] = 0.0  # uniaxial / axisymmetric states: the bound is reached
    s[:50, 1] = s[:50, 2]
    p, r = links._spread(s.T)
    T = np.zeros((500, 3, 3))
    for k, (i, j) in enumerate([(0, 0), (1, 1), (2, 2), (1, 2), (0, 2), (0, 1)]):
        T[:, i, j] = T[:, j, i] = s[:, k]
    ev = np.linalg.eigvalsh(T)
    assert (ev[:, 2] <= p + r + 1e-9 * MPa).all() and (ev[:, 0] >= p - r - 1e-9 * MPa).all()
    np.testing.assert_allclose(np.maximum(ev[:50, 2] - p[:50], p[:50] - ev[:50, 0]), r[:50], rtol=1e-9)
    # the _PY coordinates: hydrostatic stress and a deviator of the same Frobenius norm
    y = s @ links._PY.T
    np.testing.assert_allclose(y[:, 0], p, rtol=1e-12, atol=1e-6)
    np.testing.assert_allclose(np.sqrt(np.sum(y[:, 1:] ** 2, 1)) * np.sqrt(2 / 3), r, rtol=1e-12)


def test_screened_regions_equal_counting_every_block(monkeypatch):
    """Two curves (the material's and a detail category on a named region): each group's blocks and caps are the
    reference's."""
    part, basis, coeff, modal = random_link(5, level=2.5 * MPa)
    weld = np.arange(0, len(part.points), 3)
    part.named_nodes = lambda name: weld
    settings = FatigueSettings(design_life_cycles=1e7, plane_step_deg=15.0)
    curves = {"": get_sn_curve("6061-O"), "weld": get_sn_curve("EC3-80")}
    monkeypatch.setattr(links, "_HISTORY_BYTES", len(coeff) * 6 * 8 * 2 * 6)
    new = link_fatigue(part, basis, coeff, modal, settings, curves)
    monkeypatch.setattr(links, "_count_group", _reference_count_group)
    ref = link_fatigue(part, basis, coeff, modal, settings, curves)
    _same(new, ref)
    assert new.n_points_counted < ref.n_points_counted
