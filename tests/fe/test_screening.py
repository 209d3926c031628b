"""The screened stress recovery (structcheck.fe.screening) gives the full pass's numbers: every field of the
link response equal to 1e-12 relative and the same time and node indices of the maxima, on random bases, a real
link basis under a STEP-law load with ringing, and the cases built to break a screen (constant history, blocks
all alike, zero response, one sample, fewer samples than a block, a peak at a block's edge). The reference is
respond(..., screen=False), the pass over every (point, time) pair."""
from dataclasses import fields

import numpy as np
import pytest

from helpers import beam

from structcheck.fe.response import build_basis, respond
from structcheck.fe.screening import BLOCK
from structcheck.motion.expression import MotionLaw

L = 0.3


@pytest.fixture(scope="module")
def link():
    """A distorted P2 beam (432 elements), its 9 unit loads (gravity, tip wrench) and 4 modes clamped at the
    root."""
    part = beam(L, 0.04, 0.03, 8, "6061-O", distort=0.2, seed=1)
    F = np.hstack([part.body_load_basis()[:, [0, 2, 5]], part.wrench_basis("tip", [L, 0, 0])])
    return part, build_basis(part, F, ["root"], n_modes=4)


def assert_same(screened, full):
    """Every field of two LinkResponses equal: arrays and floats to 1e-12 relative, indices exactly."""
    for f in fields(full):
        a, b = getattr(screened, f.name), getattr(full, f.name)
        if isinstance(b, (int, np.integer)):
            assert a == b, f.name
        elif b is None:
            assert a is None, f.name
        else:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, err_msg=f.name)


def both(part, basis, coeff, modal, **kw):
    return respond(part, basis, coeff, modal, screen=True, **kw), respond(part, basis, coeff, modal, screen=False,
                                                                          **kw)


def random_basis(part, basis, rng, n_p):
    """The link's mesh with a random stress basis of n_p points per element (4: straight, 10: curved) and random
    displacement columns (5 'unit loads', 3 'modes')."""
    n_dof, n_e = basis.U.shape[0], basis.S.shape[3]
    return type(basis)(F=np.zeros((n_dof, 5)), U=rng.standard_normal((n_dof, 5)), phi=rng.standard_normal((n_dof, 3)),
                       omega=np.ones(3), S=rng.standard_normal((8, 6, n_p, n_e)) * 1e6)


@pytest.mark.parametrize("n_p", [4, 10])
def test_random_basis_smooth_and_ringing(link, rng, n_p):
    part, real = link
    basis = random_basis(part, real, rng, n_p)
    t = np.linspace(0, 2, 700)[:, None]
    smooth = np.hstack([np.sin(2 * np.pi * f * t + p) for f, p in zip([0.3, 0.5, 0.7, 1.1, 0.2], rng.random(5))])
    ringing = np.exp(-t) * np.sin(2 * np.pi * np.array([23.0, 41.0, 67.0]) * t) * 0.3
    screened, full = both(part, basis, smooth, ringing, chunk_bytes=2e5)
    assert_same(screened, full)
    assert 0 < full.i_time_max < 699


@pytest.mark.parametrize("threads", ["1", "3"])
def test_real_link_under_a_step_load(link, monkeypatch, threads):
    """A tip force switched on by a STEP law (0 -> 800 N in 20 ms) on gravity, the modes ringing after it; small
    blocks so that the elements come in several groups, split among threads."""
    part, basis = link
    monkeypatch.setenv("STRUCTCHECK_THREADS", threads)
    t = np.linspace(0, 0.5, 900)
    force = MotionLaw("STEP(time,0.1,0,0.12,800)").value(t)
    coeff = np.zeros((len(t), basis.U.shape[1]))
    coeff[:, 1] = -9.81
    coeff[:, 4] = -force  # the tip wrench's z force
    coeff[:, 6] = -0.3 * force  # its moment about y
    omega = basis.omega
    after = np.clip(t - 0.12, 0, None)[:, None]
    modal = 1e-5 * (force[:, None] / 800) * np.exp(-5 * after) * np.cos(omega * after)
    screened, full = both(part, basis, coeff, modal, chunk_bytes=3e5)
    assert_same(screened, full)
    assert full.i_time_max > np.searchsorted(t, 0.1)  # the step's peak, not gravity's


def test_adversarial_histories(link, rng):
    part, basis = link
    k, m = basis.U.shape[1], basis.phi.shape[1]
    n_t = 5 * BLOCK
    base = rng.standard_normal((1, k + m)) * np.r_[np.full(k, 100.0), np.full(m, 1e-5)]
    one_block = rng.standard_normal((BLOCK, k + m)) * np.r_[np.full(k, 100.0), np.full(m, 1e-5)]
    edge = np.zeros((n_t, k + m))
    edge[:, 4] = np.sin(np.linspace(0, 3, n_t)) * 50
    edge[2 * BLOCK, 4] = 4000.0  # the peak on a block's first sample
    edge[3 * BLOCK - 1, 6] = -300.0  # a smaller one on a block's last
    cases = {"constant": np.repeat(base, n_t, axis=0), "blocks alike": np.tile(one_block, (5, 1)),
             "zero": np.zeros((n_t, k + m)), "one sample": base, "under a block": np.repeat(base, 7, axis=0)
             * np.linspace(1, 2, 7)[:, None], "peak at a block edge": edge}
    for name, C in cases.items():
        screened, full = both(part, basis, C[:, :k], C[:, k:])
        assert_same(screened, full)
    assert full.i_time_max == 2 * BLOCK


def test_brittle_takes_the_full_pass(link, rng):
    part, basis = link
    coeff = rng.standard_normal((80, basis.U.shape[1])) * 100.0
    modal = rng.standard_normal((80, basis.phi.shape[1])) * 1e-5
    screened, full = both(part, basis, coeff, modal, brittle=True)
    assert_same(screened, full)
    assert screened.principal_envelope is not None
