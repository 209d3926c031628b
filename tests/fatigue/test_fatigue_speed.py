"""The fatigue stage's shortcuts give what the direct computation gives, bit for bit: the extremes of the plane
histories formed block by block in time against those of the whole history, and the governing plane found by
counting planes in decreasing damage bound against counting every plane (its definition)."""
import numpy as np
import pytest

from structcheck.fatigue import planes
from structcheck.fatigue.counting import rainflow_cycles
from structcheck.fatigue.criteria import normal_stress, normal_stress_weights, plane_normals, signed_von_mises
from structcheck.fatigue.damage import miner_damage
from structcheck.fatigue.links import _governing_plane
from structcheck.fatigue.sn import get_sn_curve

MPa = 1e6


@pytest.mark.parametrize("method", ["critical_plane", "signed_von_mises"])
def test_extremes_by_time_blocks_equal_those_of_the_whole_history(method, monkeypatch):
    rng = np.random.default_rng(0)
    s = 50 * MPa * rng.standard_normal((301, 7, 6))
    weights = normal_stress_weights(plane_normals(10.0)) if method == "critical_plane" else None
    h = signed_von_mises(s)[..., None] if weights is None else s @ weights.T
    monkeypatch.setattr(planes, "_BLOCK", 7 * 206 * 16)  # 16 or 113 samples a block, the last one short
    hi, lo = planes._extremes(s, weights)
    assert np.array_equal(hi, h.max(0)) and np.array_equal(lo, h.min(0))


@pytest.mark.parametrize("method", ["critical_plane", "signed_von_mises"])
def test_extremes_kept_per_node_are_the_whole_historys_and_the_same_in_every_pass(method):
    """The safety-factor cap's pass and the counting pass visit nodes in different orders and chunks and share
    each node's extremes (planes._Extremes): they are the whole history's to round-off (BLAS may round a
    product in the last bit differently in another chunk's product) and every later request of a node gets
    the very bits of its first."""
    rng = np.random.default_rng(1)
    s = 50 * MPa * rng.standard_normal((203, 37, 6))
    weights = normal_stress_weights(plane_normals(10.0)) if method == "critical_plane" else None
    h = signed_von_mises(s)[..., None] if weights is None else s @ weights.T
    cache = planes._Extremes(s, weights)
    order = rng.permutation(37)
    first = {}
    for chunk in (order[:5], order[3:20], np.sort(order[10:])):  # overlapping, unordered, then all of them
        hi, lo = cache(chunk)
        # a sum of 6 products: within a few units of the last place of the largest term
        np.testing.assert_allclose(hi, h.max(0)[chunk], rtol=0, atol=1e-14 * np.abs(h).max())
        np.testing.assert_allclose(lo, h.min(0)[chunk], rtol=0, atol=1e-14 * np.abs(h).max())
        for k, node in enumerate(chunk):
            seen = first.setdefault(node, (hi[k], lo[k]))
            assert np.array_equal(seen[0], hi[k]) and np.array_equal(seen[1], lo[k])
    assert cache.known.all()


def _every_plane(sn, curve, mean_stress, x):
    """The definition: count every plane, the first of largest damage at scale x (of largest range if none)."""
    cycles = [rainflow_cycles(sn[:, k], periodic=True) for k in range(sn.shape[1])]
    d = np.array([miner_damage(c.scaled(x), curve, mean_stress) for c in cycles])
    k = int(np.argmax(d)) if d.max() > 0 else int(np.argmax(np.ptp(sn, axis=0)))
    return k, cycles[k]


@pytest.mark.parametrize("material, mean_stress", [("6061-O", "goodman"), ("6061-O", "gerber"), ("304", "swt"),
                                                   ("304", "none"), ("EC3-71", "none")])
def test_governing_plane_is_the_one_counting_every_plane_gives(material, mean_stress):
    rng = np.random.default_rng(1)
    curve, normals = get_sn_curve(material), plane_normals(10.0)
    t = np.linspace(0.0, 1.0, 120, endpoint=False)
    for n in range(4):
        # a mean plus two harmonics of random phase per component (non-proportional), some of it near the limit
        s = rng.uniform(-40, 60, 6) * MPa + sum(rng.uniform(0, 90, 6) * MPa
                                                * np.sin(2 * np.pi * f * t[:, None] + rng.uniform(0, 6.3, 6))
                                                for f in (1, 3))
        sn = normal_stress(s, normals)
        for x in (1.0, 0.5, 3.0):
            k, c = _governing_plane(sn, curve, mean_stress, x)
            k0, c0 = _every_plane(sn, curve, mean_stress, x)
            assert k == k0
            assert all(np.array_equal(getattr(c, f), getattr(c0, f)) for f in ("range", "mean", "count"))
