"""The worker side of a sweep: the local process pool, its thread limits, and the heap settings a variant runs
under in any worker.

Imports nothing heavy at the top (as :mod:`structcheck.sweep`): a spawned worker sets its thread limits before
numpy loads.
"""
from __future__ import annotations

import concurrent.futures as cf
import os
import threading
from contextlib import contextmanager

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: glibc's environment variables that fix its malloc thresholds (and so turn off their dynamic adjustment)
MALLOC_VARS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_")
#: mallopt parameters (glibc malloc.h) and the values a run uses [bytes]: glibc's own dynamic mmap threshold grows
#: to 32 MiB (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit) and the trim threshold to twice that
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_MMAP_MAX = -1, -3, -4
HEAP_MMAP_THRESHOLD = 32 << 20
HEAP_TRIM_THRESHOLD = 64 << 20
#: within a run: freed memory up to this much stays in the heap for the next large array [bytes] (mallopt's int)
RUN_TRIM_THRESHOLD = (1 << 31) - 1
_GLIBC_DEFAULT_MMAP_MAX = 65536
_heap_depth = 0
#: the thread budget of the map_in_threads item running in this thread (None outside one)
_item_budget = threading.local()


def limit_threads(n: int) -> None:
    """Process-pool initializer: at most ``n`` BLAS/OpenMP threads per worker, unless the user set them; the
    worker's own thread pools follow (:func:`thread_budget`)."""
    for var in THREAD_VARS:
        os.environ.setdefault(var, str(n))


def thread_budget() -> int:
    """Threads this process's own pools (the stress history's shares, the VTKHDF deflaters) may keep busy:
    inside an item of :func:`map_in_threads`, that item's share of the budget; else ``STRUCTCHECK_THREADS`` if
    set, else ``OMP_NUM_THREADS`` (set to cores / workers in a local pool's worker by :func:`limit_threads`, to
    1 by a Dask nanny, or by the user), else the number of cores. Without it two workers on two cores would each
    start a thread per core."""
    share = getattr(_item_budget, "n", None)
    if share is not None:
        return share
    for var in ("STRUCTCHECK_THREADS", "OMP_NUM_THREADS"):
        try:
            return max(1, int(os.environ[var]))
        except (KeyError, ValueError):
            pass
    return os.cpu_count() or 1


def map_in_threads(fn, items, weight=None, on_done=None) -> list:
    """``[fn(item) for item in items]``, up to :func:`thread_budget` items at a time in threads, the heaviest
    first (``weight(item)``, e.g. a link's dofs): for per-link stages that each factorize and solve their own
    matrix, whose single-right-hand-side solves and Lanczos steps keep one core busy at most.

    Each thread runs MKL (PARDISO) on budget // threads threads of its own (:func:`fe.solvers.mkl_threads_local`),
    its nested pools (a stress history's shares) on as many (:func:`thread_budget`), and OpenBLAS is held to one
    thread meanwhile, so the cores are shared, not oversubscribed. ``on_done(item)``
    runs in the calling thread as each item finishes (a progress bar). The results are in the order of
    ``items`` and the same from run to run (each item's work is its own; PARDISO's reproducible mode fixes its
    thread count). An exception in one item stops the items not yet started and is raised once the running ones
    are done. With a budget of one thread, or one item, it is a plain loop in the calling thread."""
    from .fe.solvers import mkl_threads_local, single_thread_blas

    items = list(items)
    workers = min(thread_budget(), len(items))
    if workers <= 1:
        out = []
        for item in items:
            out.append(fn(item))
            if on_done is not None:
                on_done(item)
        return out
    order = sorted(range(len(items)), key=lambda i: -weight(items[i])) if weight else range(len(items))
    share = max(1, thread_budget() // workers)

    def task(item):
        _item_budget.n = share
        try:
            with mkl_threads_local(share):
                return fn(item)
        finally:
            _item_budget.n = None

    with single_thread_blas(), cf.ThreadPoolExecutor(workers) as pool:
        futures = {pool.submit(task, items[i]): i for i in order}
        try:
            for f in cf.as_completed(futures):
                f.result()
                if on_done is not None:
                    on_done(items[futures[f]])
        except BaseException:
            for f in futures:
                f.cancel()
            raise
        by_index = {i: f.result() for f, i in futures.items()}
    return [by_index[i] for i in range(len(items))]


def local_executor(workers: int | None = None) -> cf.ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes (default: the number of cores), each using cores/workers threads.

    Spawned, not forked: a worker starts clean (no threads or modules of the caller), so the files a study
    imports are seen, and it imports structcheck from the caller's ``sys.path``/``PYTHONPATH``."""
    import multiprocessing

    workers = workers or os.cpu_count() or 1
    return cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=limit_threads, initargs=(max(1, (os.cpu_count() or 1) // workers),))


def _libc():
    """glibc (ctypes) with ``mallopt`` and ``malloc_trim`` typed, or None on another C library."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt.argtypes, libc.mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
        libc.malloc_trim.argtypes, libc.malloc_trim.restype = [ctypes.c_size_t], ctypes.c_int
    except (OSError, AttributeError):
        return None
    return libc


@contextmanager
def heap_reuse():
    """Within the block, large arrays come from the heap and reuse its freed memory, instead of fresh pages.

    glibc maps every allocation above its mmap threshold (at most 32 MiB) afresh and unmaps it when freed, so each
    of a run's large temporaries (stress bases, history blocks, frame fields: hundreds of MB) faults in new zeroed
    pages. That costs: the headline study made 1.13 million page faults and spent 21 s of system time, against
    0.49 million and 10 s with mmap off (same user time and peak memory). Worse, a Dask nanny starts its workers
    with ``MALLOC_TRIM_THRESHOLD_=65536`` (``distributed.nanny.pre-spawn-environ``), which fixes the threshold at
    128 KiB: a variant's fatigue stage then ran 3.5x slower. Here mmap is off (``M_MMAP_MAX`` 0) and freed memory
    up to :data:`RUN_TRIM_THRESHOLD` stays in the heap; on leaving, glibc's limits are restored (the environment's
    :data:`MALLOC_VARS` where set, else the values its dynamic adjustment reaches, :data:`HEAP_MMAP_THRESHOLD` and
    :data:`HEAP_TRIM_THRESHOLD`) and the heap is trimmed, so the memory goes back to the OS. Re-entrant (only the
    outermost block acts); a no-op off glibc."""
    global _heap_depth
    libc = _libc() if _heap_depth == 0 else None  # only the outermost block acts
    _heap_depth += 1
    env = {v: os.environ.get(v) for v in MALLOC_VARS if os.environ.get(v)}
    if libc is not None:
        libc.mallopt(_M_MMAP_MAX, 0)
        libc.mallopt(_M_TRIM_THRESHOLD, RUN_TRIM_THRESHOLD)
    try:
        yield
    finally:
        _heap_depth -= 1
        if libc is not None:
            libc.mallopt(_M_MMAP_MAX, _GLIBC_DEFAULT_MMAP_MAX)
            libc.mallopt(_M_MMAP_THRESHOLD, _bytes(env.get("MALLOC_MMAP_THRESHOLD_"), HEAP_MMAP_THRESHOLD))
            libc.mallopt(_M_TRIM_THRESHOLD, _bytes(env.get("MALLOC_TRIM_THRESHOLD_"), HEAP_TRIM_THRESHOLD))
            libc.malloc_trim(0)


def return_free_memory(at_least: int = 0) -> None:
    """Give the heap's free pages back to the OS (glibc's ``malloc_trim``: every arena, free pages in the middle
    of a heap too; a no-op off glibc). Within :func:`heap_reuse` freed memory stays in the heap for the next large
    array, but a thread's arena keeps what it freed for itself: a run calls this when a stage has dropped much
    memory that later stages, in other threads, would not reuse (the links' assembled K and M once they are
    reduced), so that the peak resident memory is not the sum of the two. ``at_least`` [bytes]: only when the
    arenas hold that much free (glibc's ``mallinfo2``), since the trim and the page faults of the memory taken
    again after it cost time (about 0.2 s a run on a small study) that only a large heap repays."""
    libc = _libc()
    if libc is None:
        return
    if at_least > 0:
        info = _mallinfo2(libc)
        if info is not None and info < at_least:
            return
    libc.malloc_trim(0)


def _mallinfo2(libc) -> int | None:
    """Free bytes in glibc's arenas (``mallinfo2().fordblks``, all arenas), or None before glibc 2.33."""
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                    "fsmblks", "uordblks", "fordblks", "keepcost")]

    fn = getattr(libc, "mallinfo2", None)
    if fn is None:
        return None
    fn.restype, fn.argtypes = MallInfo2, []
    return int(fn().fordblks)


def _bytes(value: str | None, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
