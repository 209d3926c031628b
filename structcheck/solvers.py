"""Sparse symmetric positive-definite factorization, chosen automatically.

Order of preference: MKL PARDISO in SPD mode (``pypardiso``, extra ``fast``), CHOLMOD (``scikit-sparse``),
SciPy's SuperLU as the last fallback. One factorization serves many right-hand sides.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

BACKENDS = ("pardiso", "cholmod", "superlu")


@dataclass(frozen=True)
class Factorization:
    """A factorized SPD matrix. ``solve(b)`` takes b of shape (n,) or (n, k) and returns the same shape."""

    backend: str
    n: int
    _solve: Callable[[np.ndarray], np.ndarray]

    def solve(self, b: np.ndarray) -> np.ndarray:
        b = np.asarray(b, dtype=float)
        if b.shape[0] != self.n:
            raise ValueError(f"right-hand side has {b.shape[0]} rows, the matrix has {self.n}")
        return self._solve(b)


def available_backends() -> list[str]:
    """Backends importable on this machine, best first."""
    found = []
    try:
        import pypardiso  # noqa: F401

        found.append("pardiso")
    except Exception:
        pass
    try:
        from sksparse.cholmod import cholesky  # noqa: F401

        found.append("cholmod")
    except Exception:
        pass
    found.append("superlu")
    return found


def _pardiso(A: sp.csr_matrix) -> Callable:
    import pypardiso

    # mtype 2 = real symmetric positive definite; PARDISO reads only the upper triangle.
    solver = pypardiso.PyPardisoSolver(mtype=2)
    solver.set_phase(12)
    A_upper = sp.triu(A, format="csr")
    A_upper.sort_indices()
    solver.factorize(A_upper)

    def solve(b):
        x = solver.solve(A_upper, np.ascontiguousarray(b))
        return np.asarray(x).reshape(b.shape)

    return solve


def _cholmod(A: sp.csc_matrix) -> Callable:
    from sksparse.cholmod import cholesky

    factor = cholesky(A.tocsc())
    return lambda b: factor(b)


def _superlu(A: sp.csc_matrix) -> Callable:
    lu = spla.splu(A.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                   options={"SymmetricMode": True})
    return lu.solve


def factorize(A: sp.spmatrix, backend: str | None = None) -> Factorization:
    """Factorize a sparse SPD matrix A (n, n).

    ``backend`` is one of :data:`BACKENDS` or None for the best available (env ``STRUCTCHECK_SOLVER``
    overrides the automatic choice).
    """
    backend = backend or os.environ.get("STRUCTCHECK_SOLVER") or available_backends()[0]
    if backend not in BACKENDS:
        raise ValueError(f"unknown sparse solver backend {backend!r}; choose one of {BACKENDS}")
    if backend not in available_backends():
        raise ValueError(f"sparse solver backend {backend!r} is not installed here; available: "
                         f"{available_backends()} (pip install 'structcheck[fast]' for pardiso)")
    A = sp.csr_matrix(A, dtype=float)
    make = {"pardiso": _pardiso, "cholmod": _cholmod, "superlu": _superlu}[backend]
    return Factorization(backend=backend, n=A.shape[0], _solve=make(A))
