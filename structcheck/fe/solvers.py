"""Sparse symmetric positive-definite factorization, chosen automatically.

Order of preference: MKL PARDISO in SPD mode (``pypardiso``, installed with structcheck wherever MKL has wheels:
x86-64 Linux, Windows and macOS), CHOLMOD (``scikit-sparse``), SciPy's SuperLU as the last fallback. One
factorization serves many right-hand sides. ``STRUCTCHECK_SOLVER`` (pardiso, cholmod, superlu) overrides the
choice; :func:`default_backend` is the one a run uses.

Reproducible to the bit: threaded PARDISO sums in an order that changes from run to run unless MKL's conditional
numerical reproducibility (CNR) is on. Before the first factorization, :func:`_mkl_reproducible` sets the CNR
branch to ``AUTO`` through ``mkl_cbwr_set`` (unless the environment already sets ``MKL_CBWR``: the user's choice
stands), turns off MKL's dynamic thread count, and every factorization asks PARDISO for CNR with the serial
nested-dissection ordering (the parallel one, iparm[1] = 3, excludes CNR) and iparm[33] = the thread count MKL
has in the calling thread (:func:`mkl_threads_local` lowers it in one thread). The same machine and thread count
then give the same bits; ``STRUCTCHECK_REPRODUCIBLE=0`` turns this off.
"""
from __future__ import annotations

import ctypes
import os
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
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
    """Backends importable on this machine, best first; the one ``STRUCTCHECK_SOLVER`` names first when it is
    set and importable (so the first is always the one :func:`factorize` uses by default)."""
    found = list(_importable())  # a copy: the cached list itself must keep its order
    chosen = os.environ.get("STRUCTCHECK_SOLVER")
    if chosen in found:
        found.remove(chosen)
        found.insert(0, chosen)
    return found


def default_backend() -> str:
    """The backend :func:`factorize` uses without an explicit one (``STRUCTCHECK_SOLVER`` or the best available)."""
    return os.environ.get("STRUCTCHECK_SOLVER") or _importable()[0]


@lru_cache(maxsize=1)
def _importable() -> list[str]:
    found = []
    if _mkl_library() is not None:
        found.append("pardiso")
    try:
        from sksparse.cholmod import cholesky  # noqa: F401

        found.append("cholmod")
    except Exception:
        pass
    found.append("superlu")
    return found


@lru_cache(maxsize=1)
def _mkl_library():
    """MKL's runtime library (ctypes.CDLL) or None: ``PYPARDISO_MKL_RT`` if set, else the ``libmkl_rt`` that the
    ``mkl`` wheel lists among its files, else the one pypardiso finds. The wheel's file list is read first because
    pypardiso, failing ``find_library``, globs the whole environment for it (2.4 s here)."""
    path = os.environ.get("PYPARDISO_MKL_RT")
    candidates = [path] if path else []
    if not path:
        try:
            from importlib import metadata

            files = [f for f in (metadata.files("mkl") or []) if "mkl_rt" in f.name]
            candidates += [str(f.locate()) for f in sorted(files, key=lambda f: len(str(f)))]
        except Exception:
            pass
    for c in candidates:
        try:
            return ctypes.CDLL(c)
        except OSError:
            pass
    try:
        import pypardiso

        return pypardiso.ps.libmkl
    except Exception:
        return None


#: MKL's constants (mkl_cbwr.h, mkl_service.h)
_MKL_CBWR_ALL, _MKL_CBWR_BRANCH_OFF, _MKL_CBWR_AUTO = -1, 1, 2
_mkl_state: dict = {}


def _mkl_reproducible(libmkl) -> dict:
    """Once per process, before MKL computes anything: CNR branch AUTO (if ``MKL_CBWR`` is not set), no dynamic
    thread adjustment. Returns {"threads": MKL's thread count, "cnr": whether CNR is on, "branch": MKL's CNR
    branch code}. ``STRUCTCHECK_REPRODUCIBLE=0`` leaves MKL as it is (and CNR off)."""
    if _mkl_state:
        return _mkl_state
    on = os.environ.get("STRUCTCHECK_REPRODUCIBLE", "1") != "0"
    try:  # the C entry points (the lower-case names of mkl_rt are the Fortran ones, taking pointers)
        cbwr_set, cbwr_get = libmkl.MKL_CBWR_Set, libmkl.MKL_CBWR_Get
        max_threads, set_dynamic = libmkl.MKL_Get_Max_Threads, libmkl.MKL_Set_Dynamic
        cbwr_set.restype = cbwr_get.restype = max_threads.restype = ctypes.c_int
        cbwr_set.argtypes = cbwr_get.argtypes = set_dynamic.argtypes = [ctypes.c_int]
        max_threads.argtypes = []
        set_dynamic.restype = None
        if on:
            if not os.environ.get("MKL_CBWR"):
                cbwr_set(_MKL_CBWR_AUTO)  # refused (harmlessly) once MKL has computed something
            set_dynamic(0)
        branch = int(cbwr_get(_MKL_CBWR_ALL))
        threads = int(max_threads())
    except AttributeError:  # an MKL without the service functions
        branch, threads = 0, 0
    _mkl_state.update(threads=threads, cnr=bool(on and branch > _MKL_CBWR_BRANCH_OFF and threads > 0), branch=branch)
    return _mkl_state


@contextmanager
def mkl_threads_local(n: int):
    """MKL (PARDISO's factorizations and solves) on at most ``n`` threads in the calling thread only
    (``MKL_Set_Num_Threads_Local``), as it was afterwards: for threads that each factorize their own matrix.
    A no-op without MKL."""
    libmkl = _mkl_library() if "pardiso" in _importable() else None
    set_local = getattr(libmkl, "MKL_Set_Num_Threads_Local", None)
    if set_local is None:
        yield
        return
    set_local.restype = ctypes.c_int
    set_local.argtypes = [ctypes.c_int]
    previous = set_local(int(n))
    try:
        yield
    finally:
        set_local(previous)  # 0: back to the process-wide count


def _mkl_threads(libmkl) -> int:
    """MKL's thread count in the calling thread (its local setting if any, else the process's)."""
    fn = libmkl.MKL_Get_Max_Threads
    fn.restype, fn.argtypes = ctypes.c_int, []
    return int(fn())


def mkl_settings() -> dict:
    """MKL's thread count and CNR state as PARDISO uses them (empty before the first PARDISO factorization)."""
    return dict(_mkl_state)


class _Pardiso:
    """MKL PARDISO, real SPD (mtype 2), called through ctypes on MKL's runtime library (:func:`_mkl_library`).

    pypardiso's own solver object is not used: it compares (or hashes) the whole matrix and converts its index
    arrays on every solve, and its default parameters add two iterative-refinement solves to every
    back-substitution (3x the cost of a Cholesky solve, which is backward stable without them)."""

    def __init__(self, A: sp.csr_matrix):
        libmkl = _mkl_library()
        self._ct = ctypes
        self._fn = libmkl.pardiso
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
        mkl = _mkl_reproducible(libmkl)
        self.iparm[0] = 1  # parameters below, not defaults
        # fill-in reordering: nested dissection (METIS); its parallel version (3) excludes CNR
        self.iparm[1] = 2 if mkl["cnr"] else 3
        self.iparm[7] = 0  # no iterative refinement
        self.iparm[9] = 13  # pivot perturbation 1e-13 (not used for SPD)
        self.iparm[33] = _mkl_threads(libmkl) if mkl["cnr"] else 0  # CNR with this thread's MKL thread count
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


def single_thread_blas():
    """Context in which OpenBLAS (numpy's and scipy's BLAS in their wheels) runs on one thread; a no-op without
    threadpoolctl. For many small products (ARPACK's vectors, the stress-history blocks, the fatigue screening),
    where OpenBLAS's threads cost more than they share. MKL is left alone: PARDISO's reproducible mode needs the
    same thread count all along."""
    import sys

    try:
        controller = _openblas(len(sys.modules))
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        from contextlib import nullcontext

        return nullcontext()
    return controller.limit(limits=1)


@lru_cache(maxsize=1)
def _openblas(_n_modules: int):
    """threadpoolctl's controller of the loaded OpenBLAS libraries: looked up again only after more modules were
    imported (one may have loaded another OpenBLAS), since a lookup scans every loaded library (~1 ms, against
    ~0.1 ms for the small products it is entered around, hundreds of times in a link's fatigue)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(internal_api="openblas")


def factorize(A: sp.spmatrix, backend: str | None = None) -> Factorization:
    """Factorize a sparse SPD matrix A (n, n).

    ``backend`` is one of :data:`BACKENDS` or None for the best available (env ``STRUCTCHECK_SOLVER``
    overrides the automatic choice).
    """
    backend = backend or default_backend()
    if backend not in BACKENDS:
        raise ValueError(f"unknown sparse solver backend {backend!r}; choose one of {BACKENDS}")
    if backend not in _importable():
        raise ValueError(f"sparse solver backend {backend!r} is not installed here; available: "
                         f"{_importable()} (pardiso: pip install pypardiso, on x86-64 only)")
    A = sp.csr_matrix(A, dtype=float)
    make = {"pardiso": _pardiso, "cholmod": _cholmod, "superlu": _superlu}[backend]
    return Factorization(backend=backend, n=A.shape[0], _solve=make(A))
