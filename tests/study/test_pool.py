"""The heap settings a run works under (large temporaries reused from the heap, not mapped afresh), also when the
environment (a Dask nanny's ``MALLOC_TRIM_THRESHOLD_``) has fixed glibc's malloc thresholds; the sweep's worker
threads; the per-link stages' threads (``map_in_threads``)."""
import os
import platform
import subprocess
import sys

import pytest

from structcheck.pool import MALLOC_VARS, THREAD_VARS, heap_reuse

# In a child whose environment fixes the trim threshold (as a Dask worker's does), count the minor page faults of
# allocating and filling a 4 MiB array 40 times, outside, inside and after heap_reuse. Freed and mapped afresh each
# time, every allocation faults in its pages again (here 512 faults each: the kernel may map more than a page per
# fault); reused from the heap, only the first does.
FAULTS = """
import resource, numpy as np
from structcheck.pool import heap_reuse

def faults(n, size):
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(n):
        a = np.empty(size)
        a.fill(1.0)
        del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
"""
CHILD = FAULTS + """
outside = faults(40, 1 << 19)
with heap_reuse():
    inside = faults(40, 1 << 19)
after = faults(40, 1 << 19)
print(outside, inside, after)
"""


def user_env() -> dict:
    """The environment with OpenBLAS's thread count as a user's process has it (the suite's workers hold it to their
    share of the cores): on one thread OpenBLAS maps no buffers of its own, which leaves glibc's heap in another
    state for the first arrays."""
    return {k: v for k, v in os.environ.items() if k not in THREAD_VARS}


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc thresholds")
def test_heap_reuse_keeps_large_temporaries_on_the_heap_under_a_fixed_trim_threshold():
    env = {**user_env(), "MALLOC_TRIM_THRESHOLD_": "65536"}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, check=True)
    outside, inside, after = map(int, out.stdout.split())
    assert inside < outside / 10  # reused: the first array's faults only
    assert after > outside / 2  # the environment's setting is back: every array mapped afresh


# Arrays of 40 MiB, above the 32 MiB that glibc's dynamic mmap threshold can reach: mapped afresh every time
# outside heap_reuse whatever the environment; reused inside, also after a nested block has ended.
CHILD_LARGE = FAULTS + """
outside = faults(10, 5 << 20)
with heap_reuse():
    with heap_reuse():
        inner = faults(10, 5 << 20)
    inside = faults(10, 5 << 20)  # the outer block still holds
after = faults(10, 5 << 20)
print(outside, inner, inside, after)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc thresholds")
def test_heap_reuse_keeps_arrays_above_the_mmap_threshold_on_the_heap():
    env = {k: v for k, v in user_env().items() if k not in MALLOC_VARS}
    out = subprocess.run([sys.executable, "-c", CHILD_LARGE], env=env, capture_output=True, text=True, check=True)
    outside, inner, inside, after = map(int, out.stdout.split())
    assert inner < outside / 4 and inside < outside / 10  # the first array's faults only
    assert after > outside / 2  # mapped afresh again, the heap trimmed


def test_thread_budget_follows_structcheck_threads_then_omp_then_the_cores(monkeypatch):
    from structcheck.pool import thread_budget

    monkeypatch.delenv("STRUCTCHECK_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert thread_budget() == (os.cpu_count() or 1)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert thread_budget() == 3
    monkeypatch.setenv("STRUCTCHECK_THREADS", "2")
    assert thread_budget() == 2
    monkeypatch.setenv("STRUCTCHECK_THREADS", "many")  # not a number: the next setting counts
    assert thread_budget() == 3


def test_local_pool_workers_share_the_cores(monkeypatch):
    """Each of a local pool's workers gets cores / workers threads for BLAS and for its own thread pools (the
    stress history's shares, the VTKHDF deflaters), unless the user set them."""
    from structcheck.fe.response import _workers
    from structcheck.pool import local_executor, thread_budget
    from structcheck.results.vtkhdf import _compress_threads

    for var in ("STRUCTCHECK_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(var, raising=False)
    cores = os.cpu_count() or 1
    with local_executor(2) as pool:
        budgets = [f.result() for f in [pool.submit(thread_budget) for _ in range(2)]]
        big = pool.submit(_workers, 1e12).result()
        deflaters = pool.submit(_compress_threads).result()
    assert budgets == [max(1, cores // 2)] * 2
    assert big == min(4, max(1, cores // 2)) and deflaters == min(4, max(1, cores // 2))


def test_map_in_threads_keeps_the_order_starts_the_heaviest_first_and_reports_each(monkeypatch):
    """Two threads (STRUCTCHECK_THREADS=2): the results in the items' order whatever order they finish in, the
    heaviest item started first, on_done once per item in the calling thread; with a budget of one thread a plain
    loop in the calling thread."""
    import threading
    import time

    from structcheck.pool import map_in_threads

    caller = threading.get_ident()
    started, done, threads = [], [], set()

    def work(x):
        started.append(x)
        threads.add(threading.get_ident())
        time.sleep(0.01 * (x % 3))
        return x * x

    monkeypatch.setenv("STRUCTCHECK_THREADS", "2")
    items = [3, 9, 1, 7, 5]
    out = map_in_threads(work, items, weight=lambda x: x,
                         on_done=lambda x: done.append((x, threading.get_ident())))
    assert out == [9, 81, 1, 49, 25]
    # the heaviest in the first pair started (which of the two threads records its start first is a race)
    assert 9 in started[:2] and sorted(started) == sorted(items)
    assert sorted(x for x, _ in done) == sorted(items) and {t for _, t in done} == {caller}
    assert caller not in threads and len(threads) == 2
    monkeypatch.setenv("STRUCTCHECK_THREADS", "1")
    threads.clear()
    assert map_in_threads(work, items) == out and threads == {caller}


def test_map_in_threads_raises_the_first_error_and_starts_nothing_after_it(monkeypatch):
    """An item that fails: its exception reaches the caller; items queued behind it are not started (two
    threads, the failing item first of four slow ones)."""
    import time

    from structcheck.pool import map_in_threads

    monkeypatch.setenv("STRUCTCHECK_THREADS", "2")
    started = []

    def work(x):
        started.append(x)
        if x == 0:
            raise ValueError("item 0 is bad")
        time.sleep(0.2)
        return x

    with pytest.raises(ValueError, match="item 0 is bad"):
        map_in_threads(work, [0, 1, 2, 3, 4, 5])
    assert len(started) <= 3  # the bad one and at most the two running beside or after it


def test_map_in_threads_gives_each_thread_its_share_of_mkl_and_the_same_bits_every_time(monkeypatch):
    """PARDISO factorizations in two threads: each thread's MKL runs on one thread (2 cores / 2 threads) and its
    factorization asks for reproducibility with that count, the caller's MKL count is as before, the solutions
    solve their systems (relative residual 1e-12) and two passes give the same bits."""
    from conftest import require_pardiso

    require_pardiso()
    import numpy as np
    import scipy.sparse as sp

    from structcheck.fe.solvers import _mkl_library, _mkl_threads, factorize
    from structcheck.pool import map_in_threads

    monkeypatch.setenv("STRUCTCHECK_THREADS", "2")
    lib = _mkl_library()
    before = _mkl_threads(lib)

    def laplacian(n):
        T = sp.diags([-np.ones(n - 1), 2.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
        return (sp.kron(T, sp.eye(n)) + sp.kron(sp.eye(n), T)).tocsr()

    def solve(n):
        A = laplacian(n)
        b = np.cos(np.arange(n * n))
        return _mkl_threads(lib), A, b, factorize(A, "pardiso").solve(b)

    first = map_in_threads(solve, [60, 90, 75, 40], weight=lambda n: n)
    again = map_in_threads(solve, [60, 90, 75, 40], weight=lambda n: n)
    assert [t for t, *_ in first] == [1] * 4 and _mkl_threads(lib) == before  # budget 2 over 2 threads
    for (_, A, b, x), (*_, y) in zip(first, again):
        assert np.linalg.norm(A @ x - b) < 1e-12 * np.linalg.norm(b)
        assert np.array_equal(x, y)


def test_map_in_threads_gives_each_item_its_share_of_the_thread_budget(monkeypatch):
    """Nested pools (a stress history's shares) inside an item get budget // threads: 4 threads over 2 items ->
    2 each, 2 over 2 -> 1, 4 over 3 -> 1; outside the items, and in the plain loop of a one-thread budget, the
    budget is the process's."""
    from structcheck.pool import map_in_threads, thread_budget

    for budget, items, share in ((4, [1, 2], 2), (2, [1, 2, 3], 1), (4, [1, 2, 3], 1), (1, [1, 2], 1)):
        monkeypatch.setenv("STRUCTCHECK_THREADS", str(budget))
        assert map_in_threads(lambda _: thread_budget(), items) == [share] * len(items)
        assert thread_budget() == budget


def test_stress_histories_in_threads_are_those_of_one_thread(monkeypatch, rng):
    """The per-link stages run the links' stress histories in map_in_threads items (flex.stage,
    study.link_solutions): an item's history on its one thread gives the same bits as the history alone on two
    threads' shares (STRUCTCHECK_THREADS=2 makes even this small history split in two outside the items)."""
    import numpy as np
    from helpers import beam

    from structcheck.fe.linkbasis import LinkBasis
    from structcheck.fe.response import respond
    from structcheck.pool import map_in_threads

    part = beam(0.3, 0.04, 0.03, 8, "6061-O", distort=0.2, seed=0)
    n, ne, nb, n_t = part.n_dofs, part.cells.shape[0], 7, 400
    basis = LinkBasis(F=np.zeros((n, 0)), U=np.zeros((n, 0)), phi=rng.standard_normal((n, nb)),
                      omega=np.ones(nb), S=rng.standard_normal((nb, 6, 4, ne)))
    z = np.cumsum(rng.standard_normal((n_t, nb)), axis=0)
    monkeypatch.setenv("STRUCTCHECK_THREADS", "2")

    def history(_=None):
        return respond(part, basis, np.zeros((n_t, 0)), z, brittle=True, chunk_bytes=2e4)

    alone = history()
    for r in map_in_threads(history, [0, 1]):
        for f in ("vm_history", "vm_envelope_nodes", "principal_envelope", "deformation_envelope",
                  "vm_averaged_history", "vm_averaged_envelope_nodes"):
            assert np.array_equal(getattr(r, f), getattr(alone, f)), f
        assert (r.i_time_max, r.node_max) == (alone.i_time_max, alone.node_max)


# Inside heap_reuse a freed 400 MB array stays in the heap; a trim asking for more free memory than that leaves it,
# one asking for less gives it back (resident memory in MB, from /proc/self/status).
CHILD_TRIM = """
import numpy as np
from structcheck.pool import heap_reuse, return_free_memory
def rss():
    return int(next(l for l in open("/proc/self/status") if l.startswith("VmRSS")).split()[1]) // 1024
with heap_reuse():
    a = np.ones(50_000_000)
    del a
    held = rss()
    return_free_memory(1 << 40)
    kept = rss()
    return_free_memory(256 << 20)
    print(held, kept, rss())
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallinfo2 and malloc_trim")
def test_return_free_memory_trims_only_a_heap_holding_enough_free():
    out = subprocess.run([sys.executable, "-c", CHILD_TRIM], env=user_env(), capture_output=True, text=True,
                         check=True)
    held, kept, trimmed = map(int, out.stdout.split())
    assert kept > held - 50 and trimmed < held - 300, (held, kept, trimmed)
