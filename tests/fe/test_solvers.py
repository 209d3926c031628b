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
