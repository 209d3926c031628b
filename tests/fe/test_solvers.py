import numpy as np
import pytest
import scipy.sparse as sp

from structcheck.fe.solvers import available_backends, factorize


@pytest.mark.parametrize("backend", available_backends())
def test_backends_solve_spd_system(backend, rng):
    n = 200
    # 1-D Laplacian plus identity: SPD, with a known solution.
    A = sp.diags([-np.ones(n - 1), 3 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")
    x = rng.standard_normal((n, 3))
    f = factorize(A, backend)
    np.testing.assert_allclose(f.solve(A @ x), x, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(f.solve(A @ x[:, 0]), x[:, 0], rtol=1e-10, atol=1e-10)


def test_unknown_backend_is_named():
    with pytest.raises(ValueError, match="unknown sparse solver backend 'mumps'"):
        factorize(sp.eye(3), "mumps")


def test_first_available_backend_is_the_one_used(monkeypatch):
    """summary.json reports available_backends()[0]: it must be the backend factorize picks, also when
    STRUCTCHECK_SOLVER chooses another."""
    from structcheck.fe.solvers import default_backend

    monkeypatch.delenv("STRUCTCHECK_SOLVER", raising=False)
    assert available_backends()[0] == default_backend() == factorize(sp.eye(3) * 2.0).backend
    monkeypatch.setenv("STRUCTCHECK_SOLVER", "superlu")
    assert available_backends()[0] == default_backend() == factorize(sp.eye(3) * 2.0).backend == "superlu"
    monkeypatch.delenv("STRUCTCHECK_SOLVER")  # the choice must not stick (it once reordered the cached list)
    assert available_backends()[0] == default_backend() == factorize(sp.eye(3) * 2.0).backend
    assert default_backend() == ("pardiso" if "pardiso" in available_backends() else available_backends()[0])


def test_pardiso_runs_in_mkl_reproducible_mode(rng):
    """PARDISO is asked for conditional numerical reproducibility (CNR) with a fixed thread count, and the same
    system factorized twice gives the same bits."""
    from conftest import require_pardiso

    require_pardiso()
    from structcheck.fe.solvers import mkl_settings

    n = 3000
    A = sp.diags([-np.ones(n - 1), 3 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")
    b = rng.standard_normal((n, 4))
    x1, x2 = factorize(A, "pardiso").solve(b), factorize(A, "pardiso").solve(b)
    settings = mkl_settings()
    assert settings["cnr"] and settings["threads"] >= 1
    assert np.array_equal(x1, x2)
