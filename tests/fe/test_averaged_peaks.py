"""Nodal-averaged peak stresses and the stress-discontinuity indicator (fe.averaging, fe.response.respond).

The averaged stress at a node is the plain mean of the element-node stress tensors of the elements sharing it, as
ANSYS and CalculiX display; its von Mises is taken of the mean tensor. Checked against a by-hand average of the
element-node stresses recovered independently (Part.element_node_stress), and, on a cantilever under a tip load
refined three times, against Euler-Bernoulli beam theory: sigma_xx = M c / I = 6 P (L - x) / (w h^2) on the
outer fibres (Saint-Venant's flexure solution has the same bending stress; its shear stresses vanish at the
corners of the section, where the peak sits).
"""
from types import SimpleNamespace

import numpy as np
import pytest

from helpers import beam
from structcheck.checks import discontinuity_warnings
from structcheck.fe.averaging import averaging_operator
from structcheck.fe.response import LinkBasis, build_basis, respond

L, H, P = 0.2, 0.02, 100.0  # cantilever length, square section side [m], tip load [N]; L/h = 10
SIGMA_ROOT = 6 * P * L / H ** 3  # beam theory's bending stress at the root's outer fibres [Pa]
N_SIDE = (2, 4, 6)  # elements across the section; 10 x as many along (cubes split into 6 tets)


def hand_von_mises(s):
    """Von Mises of stress vectors s (..., 6) [xx, yy, zz, yz, xz, xy] from their principal stresses."""
    xx, yy, zz, yz, xz, xy = np.moveaxis(s, -1, 0)
    T = np.stack([np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)], -2)
    s1, s2, s3 = np.moveaxis(np.linalg.eigvalsh(T), -1, 0)
    return np.sqrt(((s1 - s2) ** 2 + (s2 - s3) ** 2 + (s3 - s1) ** 2) / 2)


def test_averaging_operator_reproduces_a_constant_field():
    part = beam(0.1, 0.02, 0.02, 4, n_side=2, distort=0.2)
    Q = averaging_operator(part.cells, len(part.points))
    np.testing.assert_allclose(Q @ np.ones(Q.shape[1]), 1.0, rtol=1e-14)  # weights of every node sum to 1
    # every node averages over exactly the elements that hold it: 1/k at vertices, 1/(2k) per edge end at mid nodes
    k = np.bincount(part.cells.ravel())
    assert Q.nnz == np.sum(k[:part.mesh.nvertices]) + 2 * np.sum(k[part.mesh.nvertices:])


@pytest.fixture(scope="module")
def history():
    """A distorted beam clamped at its root under a random history of tip force and two modes' coefficients."""
    part = beam(0.12, 0.02, 0.02, 6, n_side=2, distort=0.25, seed=3)
    basis = build_basis(part, part.patch_force_basis("tip"), ["root"], 2)
    rng = np.random.default_rng(0)
    coeff = rng.uniform(-100, 100, (7, 3))
    modal = rng.uniform(-1, 1, (7, 2)) * 1e-3
    return part, basis, coeff, modal


def hand_averaged(part, basis, coeff, modal):
    """(n_t, n_nodes) von Mises of the mean element-node stress tensors at every node, node by node."""
    u = basis.U @ coeff.T + basis.phi @ modal.T  # (n_dof, n_t)
    S = part.element_node_stress(u)  # (n_t, n_elem, 10, 6)
    out = np.empty((len(coeff), len(part.points)))
    for node in range(len(part.points)):
        e, p = np.nonzero(part.cells == node)
        out[:, node] = hand_von_mises(S[:, e, p].mean(axis=1))
    return out, hand_von_mises(S)


def test_averaged_peak_equals_hand_average(history):
    part, basis, coeff, modal = history
    r = respond(part, basis, coeff, modal)
    avg, unavg = hand_averaged(part, basis, coeff, modal)
    scale = avg.max()
    # round-off: sums of ~40 basis columns of Pa-size values, then a square root
    np.testing.assert_allclose(r.vm_averaged_envelope_nodes, avg.max(axis=0), rtol=0, atol=1e-11 * scale)
    np.testing.assert_allclose(r.vm_averaged_history, avg.max(axis=1), rtol=0, atol=1e-11 * scale)
    i_t, node = np.unravel_index(np.argmax(avg), avg.shape)
    assert (r.i_time_max_averaged, r.node_max_averaged) == (i_t, node)
    assert r.max_von_mises_averaged == pytest.approx(avg.max(), rel=1e-11)
    # the indicator: unaveraged peak over the averaged value at the peak's node and time, minus 1
    assert r.max_von_mises == pytest.approx(unavg.max(), rel=1e-11)
    assert r.von_mises_averaged_at_max == pytest.approx(avg[r.i_time_max, r.node_max], rel=1e-11)
    assert r.stress_discontinuity == pytest.approx(unavg.max() / avg[r.i_time_max, r.node_max] - 1, rel=1e-9)
    assert r.stress_discontinuity > 0  # von Mises is a norm: of the mean tensor <= the max of the elements'


def test_averaged_peak_does_not_depend_on_blocks(history):
    part, basis, coeff, modal = history
    big, small = (respond(part, basis, coeff, modal, chunk_bytes=c) for c in (8e6, 2e3))
    for f in ("vm_averaged_history", "vm_averaged_envelope_nodes"):
        np.testing.assert_array_equal(getattr(small, f), getattr(big, f))
    assert (small.node_max_averaged, small.i_time_max_averaged) == (big.node_max_averaged, big.i_time_max_averaged)


def _cantilever(n_side, support):
    part = beam(L, H, H, 10 * n_side, n_side=n_side)
    F = part.patch_force_basis("tip")
    U = part.solve_unit_loads(F, ["root"], support=support)
    basis = LinkBasis(F=F, U=U, phi=np.zeros((len(U), 0)), omega=np.zeros(0), S=part.vertex_stress(U))
    return part, respond(part, basis, np.array([[0.0, 0.0, P], [0.0, 0.0, -0.5 * P]]), np.zeros((2, 0)))


@pytest.fixture(scope="module")
def cantilevers():
    """support -> [(part, response)] on the N_SIDE refinements: 'clamp' (root face held: singular edges) and
    'averaged' (the root face's mean motion held, RBE3-like: the reaction is beam theory's linear traction)."""
    return {s: [_cantilever(n, s) for n in N_SIDE] for s in ("clamp", "averaged")}


def _rate(values):
    """Convergence rate of errors ``values`` against h ~ 1 / N_SIDE (slope of log error against log h)."""
    return np.polyfit(np.log(1.0 / np.array(N_SIDE)), np.log(values), 1)[0]


@pytest.mark.parametrize("support", ["clamp", "averaged"])
def test_peaks_away_from_the_support_converge_to_beam_theory(cantilevers, support):
    """At mid-span (x = L/2, 5 depths from the root and the tip) the unaveraged and the averaged peak of the
    section both converge to M c / I at O(h^2) (P2 stresses), the averaged one from closer; whatever the support."""
    x0 = L / 2
    sigma = SIGMA_ROOT * (1 - x0 / L)
    err = {"unaveraged": [], "averaged": []}
    for part, r in cantilevers[support]:
        section = np.isclose(part.points[:, 0], x0)
        err["unaveraged"].append(r.vm_envelope_nodes[section].max() / sigma - 1)
        err["averaged"].append(r.vm_averaged_envelope_nodes[section].max() / sigma - 1)
    for name, e in err.items():
        assert np.all(np.diff(np.abs(e)) < 0), (name, e)
        assert _rate(np.abs(e)) > 1.5, (name, e)
    assert abs(err["unaveraged"][-1]) < 0.006 and abs(err["averaged"][-1]) < 0.002  # 0.42% and 0.13% measured


def test_clamped_peak_is_singular_and_flagged(cantilevers):
    """Clamped root: the peak sits on the clamped edge, where the Poisson contraction is held and the stress is
    singular: both peaks grow with every refinement and the indicator stays above 10% (the warning names the
    'root' surface); no refinement converges it."""
    runs = cantilevers["clamp"]
    unavg = [r.max_von_mises for _, r in runs]
    avg = [r.max_von_mises_averaged for _, r in runs]
    assert np.all(np.diff(unavg) > 0) and np.all(np.diff(avg) > 0)
    # at the clamped face or one element from it
    assert all(part.points[r.node_max, 0] <= L / (10 * n) * (1 + 1e-9) for (part, r), n in zip(runs, N_SIDE))
    assert all(r.stress_discontinuity > 0.10 for _, r in runs)
    part, r = runs[-1]
    (w,) = map(str, discontinuity_warnings({"beam": SimpleNamespace(part=part, response=r)}))
    assert "link 'beam'" in w and "from surface 'root'" in w and "support singularity" in w


def test_peak_with_averaged_support_converges(cantilevers):
    """RBE3-like support: no singular edge; the peak (root, outer fibre corner) converges to within 1% of beam
    theory's root stress (the rest is the local field where the support's uniform shear traction meets the free
    faces), averaged and unaveraged peaks converge to each other and the indicator falls at O(h^2), far below
    the 10% warning level."""
    runs = cantilevers["averaged"]
    unavg = np.array([r.max_von_mises for _, r in runs])
    avg = np.array([r.max_von_mises_averaged for _, r in runs])
    ind = np.array([r.stress_discontinuity for _, r in runs])
    assert np.all(np.abs(unavg / SIGMA_ROOT - 1) < 0.01) and np.all(np.abs(avg / SIGMA_ROOT - 1) < 0.012)
    assert abs(unavg[-1] / avg[-1] - 1) < 1e-3  # 0.04% measured, 0.4% on the coarsest mesh
    assert np.all(np.diff(ind) < 0) and _rate(ind) > 1.5 and ind[-1] < 0.01
    part, r = runs[-1]
    assert discontinuity_warnings({"beam": SimpleNamespace(part=part, response=r)}) == []
