"""The heap settings a run works under (large temporaries reused from the heap, not mapped afresh), also when the
environment (a Dask nanny's ``MALLOC_TRIM_THRESHOLD_``) has fixed glibc's malloc thresholds; the sweep's worker
threads."""
import os
import platform
import subprocess
import sys

import pytest

from structcheck.pool import MALLOC_VARS, heap_reuse

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


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc thresholds")
def test_heap_reuse_keeps_large_temporaries_on_the_heap_under_a_fixed_trim_threshold():
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"}
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
    env = {k: v for k, v in os.environ.items() if k not in MALLOC_VARS}
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
