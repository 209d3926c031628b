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


class _Pardiso:
    """MKL PARDISO, real SPD (mtype 2), called through ctypes on the library pypardiso located.

    pypardiso's own solver object is not used: it compares (or hashes) the whole matrix and converts its index
    arrays on every solve, and its default parameters add two iterative-refinement solves to every
    back-substitution (3x the cost of a Cholesky solve, which is backward stable without them)."""

    def __init__(self, A: sp.csr_matrix):
        import ctypes

        import pypardiso

        self._ct = ctypes
        self._fn = pypardiso.ps.libmkl.pardiso
        i32p = ctypes.POINTER(ctypes.c_int32)
        self._fn.argtypes = [ctypes.POINTER(ctypes.c_int64), i32p, i32p, i32p, i32p, i32p, ctypes.c_void_p,
                             i32p, i32p, ctypes.c_void_p, i32p, i32p, i32p, ctypes.c_void_p, ctypes.c_void_p, i32p]
        self._fn.restype = None
        # PARDISO reads the upper triangle only, one-based, sorted column indices
        if not A.has_sorted_indices:
            A = A.sorted_indices()
        self.n = A.shape[0]
        rows = np.repeat(np.arange(self.n, dtype=np.int32), np.diff(A.indptr))
        upper = A.indices >= rows
        self.data = np.ascontiguousarray(A.data[upper], dtype=np.float64)
        self.ja = (A.indices[upper] + 1).astype(np.int32)
        self.ia = np.r_[0, np.cumsum(np.bincount(rows[upper], minlength=self.n))].astype(np.int32) + 1
        self.pt = np.zeros(64, dtype=np.int64)  # PARDISO's handle
        self.iparm = np.zeros(64, dtype=np.int32)
        self.iparm[0] = 1  # parameters below, not defaults
        self.iparm[1] = 3  # fill-in reordering: parallel nested dissection (METIS)
        self.iparm[7] = 0  # no iterative refinement
        self.iparm[9] = 13  # pivot perturbation 1e-13 (not used for SPD)
        self.iparm[34] = 0  # one-based indices
        self._freed = False
        self._call(12, np.zeros((self.n, 1)))  # analysis + numerical factorization

    def _call(self, phase: int, b: np.ndarray) -> np.ndarray:
        ct = self._ct
        b = np.asfortranarray(b, dtype=np.float64)
        x = np.zeros_like(b, order="F")
        err = ct.c_int32(0)

        def i32(v):
            return ct.byref(ct.c_int32(v))

        i32p = ct.POINTER(ct.c_int32)
        self._fn(self.pt.ctypes.data_as(ct.POINTER(ct.c_int64)), i32(1), i32(1), i32(2), i32(phase), i32(self.n),
                 self.data.ctypes.data, self.ia.ctypes.data_as(i32p), self.ja.ctypes.data_as(i32p), None,
                 i32(b.shape[1] if b.ndim == 2 else 1), self.iparm.ctypes.data_as(i32p), i32(0), b.ctypes.data,
                 x.ctypes.data, ct.byref(err))
        if err.value != 0:
            hint = " (the matrix is not positive definite: is the part supported?)" if err.value == -4 else ""
            raise RuntimeError(f"MKL PARDISO phase {phase} failed with error {err.value}{hint}")
        return x

    def solve(self, b: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(self._call(33, b)).reshape(b.shape)

    def __del__(self):
        # phase -1 releases PARDISO's internal memory (the factor)
        if getattr(self, "_freed", True) is False:
            self._freed = True
            try:
                self._call(-1, np.zeros((self.n, 1)))
            except Exception:
                pass


def _pardiso(A: sp.csr_matrix) -> Callable:
    return _Pardiso(A).solve


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
