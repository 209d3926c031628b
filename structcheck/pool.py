"""The worker side of a sweep: the local process pool, its thread limits, and the heap settings a variant runs
under in any worker.

Imports nothing heavy at the top (as :mod:`structcheck.sweep`): a spawned worker sets its thread limits before
numpy loads.
"""
from __future__ import annotations

import concurrent.futures as cf
import os
from contextlib import contextmanager

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: glibc's environment variables that fix its malloc thresholds (and so turn off their dynamic adjustment)
MALLOC_VARS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")
#: mallopt parameters (glibc malloc.h) and the values a variant runs with [bytes]: glibc's own dynamic mmap
#: threshold grows to 32 MiB (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit) and the trim threshold to twice that
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
HEAP_MMAP_THRESHOLD = 32 << 20
HEAP_TRIM_THRESHOLD = 64 << 20
_GLIBC_DEFAULT_THRESHOLD = 128 << 10  # both thresholds' defaults


def limit_threads(n: int) -> None:
    """Process-pool initializer: at most ``n`` BLAS/OpenMP threads per worker, unless the user set them; the
    worker's own thread pools follow (:func:`thread_budget`)."""
    for var in THREAD_VARS:
        os.environ.setdefault(var, str(n))


def thread_budget() -> int:
    """Threads this process's own pools (the stress history's shares, the VTKHDF deflaters) may keep busy:
    ``STRUCTCHECK_THREADS`` if set, else ``OMP_NUM_THREADS`` (set to cores / workers in a local pool's worker
    by :func:`limit_threads`, to 1 by a Dask nanny, or by the user), else the number of cores. Without it two
    workers on two cores would each start a thread per core."""
    for var in ("STRUCTCHECK_THREADS", "OMP_NUM_THREADS"):
        try:
            return max(1, int(os.environ[var]))
        except (KeyError, ValueError):
            pass
    return os.cpu_count() or 1


def local_executor(workers: int | None = None) -> cf.ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes (default: the number of cores), each using cores/workers threads.

    Spawned, not forked: a worker starts clean (no threads or modules of the caller), so the files a study
    imports are seen, and it imports structcheck from the caller's ``sys.path``/``PYTHONPATH``."""
    import multiprocessing

    workers = workers or os.cpu_count() or 1
    return cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=limit_threads, initargs=(max(1, (os.cpu_count() or 1) // workers),))


def _mallopt():
    """glibc's ``mallopt`` (ctypes), or None on another C library."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        fn = libc.mallopt
    except (OSError, AttributeError):
        return None
    fn.argtypes, fn.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return fn


@contextmanager
def heap_reuse():
    """Within the block, large temporaries reuse freed heap memory, where the environment had turned that off.

    A Dask nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536`` (its default
    ``distributed.nanny.pre-spawn-environ``, so that freed memory goes back to the OS). Setting any of
    :data:`MALLOC_VARS` fixes glibc's mmap threshold at 128 KiB: every array above it is then mapped fresh and
    unmapped when freed, and a variant's block-wise products and fatigue histories fault in new zeroed pages for
    every block (measured: the fatigue stage 3.5x slower, 6x the system time). Here the thresholds are set to
    those glibc's dynamic adjustment reaches by itself (:data:`HEAP_MMAP_THRESHOLD`, :data:`HEAP_TRIM_THRESHOLD`)
    and restored on leaving (to the environment's values, glibc's defaults for those not set). A no-op when
    none of :data:`MALLOC_VARS` is set (glibc adjusts its thresholds itself) and off glibc."""
    fixed = {v: os.environ.get(v) for v in MALLOC_VARS if os.environ.get(v)}
    mallopt = _mallopt() if fixed else None
    if mallopt is None:
        yield
        return
    mallopt(_M_MMAP_THRESHOLD, HEAP_MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, HEAP_TRIM_THRESHOLD)
    try:
        yield
    finally:
        mallopt(_M_MMAP_THRESHOLD, _bytes(fixed.get("MALLOC_MMAP_THRESHOLD_"), _GLIBC_DEFAULT_THRESHOLD))
        mallopt(_M_TRIM_THRESHOLD, _bytes(fixed.get("MALLOC_TRIM_THRESHOLD_"), _GLIBC_DEFAULT_THRESHOLD))


def _bytes(value: str | None, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
