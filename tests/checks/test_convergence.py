"""Richardson extrapolation and the grid convergence index (checks.convergence), against closed forms: sequences
built from a known phi_0 + c h^p, an oscillating and a singular sequence, and a cantilever under a tip load whose
mid-span bending stress on refined meshes extrapolates to Euler-Bernoulli's 6 P (L - x) / (w h^2)."""
import numpy as np
import pytest

from helpers import beam
from structcheck.checks.convergence import SAFETY_FACTOR, observed_order, richardson
from structcheck.errors import InputError
from structcheck.fe.response import build_basis, respond


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("h", [(1.0, 0.8, 0.667), (1.0, 0.8, 0.667, 0.57), (0.57, 1.0, 0.5 ** 0.5)])
@pytest.mark.parametrize("c", [0.3, -0.2])
def test_exact_power_law_is_extrapolated_exactly(p, h, c):
    phi0 = 7.0
    values = phi0 + c * np.asarray(h) ** p
    conv = richardson(h, values)
    assert conv.status == "converging" and conv.monotone
    assert conv.order == pytest.approx(p, rel=1e-9)
    assert conv.extrapolated == pytest.approx(phi0, rel=1e-12)
    # GCI_fine = 1.25 |phi1 - phi0| / |phi1| for an exact power law: (phi2 - phi1) / (r^p - 1) = phi1 - phi0
    hf = min(h)
    phi1 = phi0 + c * hf ** p
    assert conv.gci == pytest.approx(SAFETY_FACTOR * abs(phi1 - phi0) / abs(phi1), rel=1e-9)
    assert conv.error == pytest.approx(SAFETY_FACTOR * abs(phi1 - phi0), rel=1e-9)
    assert conv.finest == pytest.approx(phi1)


def test_unequal_ratios_need_the_fixed_point():
    """With r21 != r32 the simple estimate ln(e32/e21)/ln(r) is wrong; the fixed point recovers p."""
    h = np.array([0.5, 0.6, 1.0])
    phi = 1.0 + 0.4 * h ** 2
    r21, r32 = h[1] / h[0], h[2] / h[1]
    naive = np.log((phi[2] - phi[1]) / (phi[1] - phi[0])) / np.log(r21)
    assert abs(naive - 2) > 0.5
    assert observed_order(phi, r21, r32) == pytest.approx(2.0, rel=1e-9)


def test_oscillating_values_have_no_estimate_but_their_scatter():
    h = [1.0, 0.8, 0.667, 0.57]
    values = [100.0, 107.0, 98.0, 104.0]  # up, down, up
    conv = richardson(h, values)
    assert conv.status == "no monotone trend" and not conv.monotone
    assert np.isnan(conv.extrapolated) and np.isnan(conv.order) and np.isnan(conv.gci)
    finest = 104.0
    assert conv.scatter == pytest.approx(6.0 / finest)  # farthest level from the finest: 98
    assert conv.error == pytest.approx(6.0)


def test_a_singular_peak_is_not_converging():
    """phi = h^-1/2 (a stress singularity's peak on ever finer meshes): monotone, but the differences grow."""
    h = np.array([1.0, 0.8, 0.667, 0.57])
    conv = richardson(h, h ** -0.5)
    assert conv.monotone and conv.status == "not converging"
    assert conv.order < 0
    assert np.isnan(conv.extrapolated)
    assert conv.error == pytest.approx(abs(1.0 - 0.57 ** -0.5))


@pytest.mark.parametrize("h, values", [([1.0, 0.5], [1.0, 2.0]), ([1.0, 0.5, 0.5], [1.0, 2.0, 3.0]),
                                       ([1.0, -0.5, 0.2], [1, 2, 3]), ([1.0, 0.5, 0.2], [1, np.nan, 3])])
def test_bad_input(h, values):
    with pytest.raises(InputError, match="richardson"):
        richardson(h, values)


def test_cantilever_mid_span_extrapolates_to_beam_theory():
    """A steel cantilever (L = 0.2 m, 20 mm square, P = 100 N at the tip, clamped root) on 2, 3 and 4 elements
    across: the largest bending stress of the mid-span section converges to M c / I = 6 P (L/2) / h^3 (Saint-Venant
    away from the clamp) at about O(h^2), and the Richardson value is nearer to it than the finest mesh's, with
    the GCI band covering the finest mesh's error."""
    L, H, P = 0.2, 0.02, 100.0
    sigma_mid = 6 * P * (L / 2) / H ** 3
    n_side = (2, 3, 4)
    values = []
    for n in n_side:
        part = beam(L, H, H, 10 * n, n_side=n, ends=("root", "tip"))
        basis = build_basis(part, part.patch_force_basis("tip"), ["root"], 0)
        r = respond(part, basis, np.array([[0.0, 0.0, P]]), np.zeros((1, 0)))
        mid = np.isclose(part.points[:, 0], L / 2)
        values.append(r.vm_envelope_nodes[mid].max())
    conv = richardson([1 / n for n in n_side], values)
    assert conv.status == "converging"
    assert 1.5 < conv.order < 3.0  # quadratic elements, smooth field: about 2
    finest_error = abs(conv.finest - sigma_mid)
    assert abs(conv.extrapolated - sigma_mid) < 0.25 * finest_error
    assert conv.error >= finest_error
