"""Exact maxima of long histories of norms, x(p, t) = |C[t] @ op(p)|, without forming most of them.

``C`` (n_t, n_b) holds the coefficient history, ``op(p)`` (n_b, c) the c coordinates of point p per basis column
(the 5 von Mises coordinates of an element node, or the 3 displacement components of a node). Wanted: at each
time the max over points and the first point that reaches it (the history), and at each point the max over time
(the envelope), exactly as a full pass over every (point, time) pair gives them.

Bound: the samples are split into contiguous blocks (:func:`time_blocks`); in block b with middle sample m_b,
d_bj = max over the block of |C[t, j] - C[m_b, j]|, and w_j(p) = |op_j(p)| (the norm of column j's c coordinates).
By the triangle inequality, for every t in block b

    x(p, t) <= x(p, m_b) + sum_j d_bj w_j(p) = ub(p, b),

one product per block, n_blocks / n_t of the full work. x(p, m_b) is a sample value, so lb_env(p) = max_b x(p, m_b)
is a lower bound of p's envelope; the point of largest bound in each block, evaluated at every sample, gives
lb_hist(t) <= max_p x(p, t). The pair (p, block b) is evaluated exactly (the full pass's product, on the points
that need it) only if it can reach the history, ub(p, b) >= min over the block of lb_hist, or raise p's envelope,
ub(p, b) > lb_env(p); every other pair is proven below both. On paper 004's links a few % of the pairs are formed.

Round-off: ub is widened by a relative ``slack`` that covers the rounding of every product and norm of n_b terms
(so it bounds x as any product computes it, not only the exact x), stored rounded up to float32; the history's
cut-off is lowered by 1e-13 relative (an unevaluated pair is then below the history by more than any round-off:
the history and its first point are those of the full pass) and the envelope's raised by 1e-13 (an unevaluated
block is below lb_env (1 + 1e-13): the envelope is exact to that, against round-off differences of ~1e-16 between
products of other shapes).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Callable

import numpy as np

from .solvers import single_thread_blas

#: samples per time block: the bound's product costs 1/BLOCK of the full one; shorter blocks give tighter bounds
BLOCK = 32
_CUT = 1e-13  # relative margin of the cut-offs (module docstring)


class RunningMax:
    """Max over items at each time (value and item index) accumulated block by block."""

    def __init__(self, n_t: int):
        self.value = np.full(n_t, -np.inf)
        self.index = np.zeros(n_t, dtype=np.int64)

    def update(self, ta: int, W: np.ndarray, item_index) -> None:
        """``W`` (chunk, n) values of times ta.. at items ``item_index(j)`` for local column j."""
        j = np.argmax(W, axis=1)
        w = W[np.arange(len(W)), j]
        better = w > self.value[ta:ta + len(W)]
        if better.any():
            self.value[ta:ta + len(W)][better] = w[better]
            self.index[ta:ta + len(W)][better] = item_index(j[better])

    def merge(self, later: "RunningMax") -> None:
        """Take ``later``'s maxima where strictly larger: the result of one pass over this one's items then
        ``later``'s (the first item of the largest value wins, as in a single pass)."""
        better = later.value > self.value
        self.value[better] = later.value[better]
        self.index[better] = later.index[better]


def squared_norms(R: np.ndarray, out=None) -> np.ndarray:
    """sum over axis 1 of R**2 for R (t, c, n): one fused pass (into ``out`` (t, n) if given)."""
    return np.einsum("tcn,tcn->tn", R, R, out=out)


class Scratch:
    """Reusable work arrays: a block's product and norms land in the same memory every time (fresh pages for
    every block cost as much as the arithmetic on this machine)."""

    def __init__(self):
        self._bufs = {}

    def get(self, key, shape) -> np.ndarray:
        n = int(np.prod(shape))
        buf = self._bufs.get(key)
        if buf is None or buf.size < n:
            buf = self._bufs[key] = np.empty(n)
        return buf[:n].reshape(shape)


@dataclass(frozen=True)
class TimeBlocks:
    """Contiguous blocks of samples: block b is edges[b]..edges[b+1]-1, its middle sample ``middle[b]``;
    ``spread`` (n_blocks, n_b) = (1 + slack) d_b + slack |C[middle_b]| (d_bj: max over the block of
    |C[t, j] - C[middle_b, j]|), so that ub = (x(middle) + spread @ w) (1 + slack) bounds every computed x."""

    edges: np.ndarray
    middle: np.ndarray
    spread: np.ndarray
    slack: float


def time_blocks(C: np.ndarray, size: int = BLOCK, c: int = 5) -> TimeBlocks:
    """Blocks of ``size`` samples of the history C (n_t >= 1, n_b) for norms of c coordinates. The slack,
    4 (n_b + c + 8) unit round-offs, bounds the rounding of a product of n_b terms, of its norm and of the
    bound itself."""
    n_t, n_b = C.shape
    edges = np.r_[np.arange(0, n_t, size), n_t]
    middle = (edges[:-1] + edges[1:] - 1) // 2
    d = np.maximum.reduceat(np.abs(C - np.repeat(C[middle], np.diff(edges), axis=0)), edges[:-1], axis=0)
    slack = 4 * (n_b + c + 8) * np.finfo(float).eps / 2
    return TimeBlocks(edges, middle, (1 + slack) * d + slack * np.abs(C[middle]), slack)


#: a group of points: (op (n_b, c, P) contiguous, point (P,) their indices, rank (P,) their order in the full pass)
Operator = Callable[[object, object], tuple]


@dataclass
class Maxima:
    """Squared maxima: ``history`` over points at each time (with the first point reaching it), ``envelope``
    (n_points,) over time at each point; ``evaluated`` pairs (point, time) formed exactly, of ``pairs``."""

    history: RunningMax
    envelope: np.ndarray
    evaluated: int
    pairs: int


def _shares(fn, groups: list, n_workers: int) -> list:
    """``fn(groups_of_share)`` on n_workers contiguous shares of the groups, in threads, OpenBLAS on one thread
    (the shares are the parallelism; :func:`structcheck.fe.response._in_threads`). Results in share order."""
    n = max(1, min(n_workers, len(groups)))
    parts = [groups[i * len(groups) // n:(i + 1) * len(groups) // n] for i in range(n)]
    with single_thread_blas():
        if n == 1:
            return [fn(parts[0])]
        with ThreadPoolExecutor(n) as pool:
            return list(pool.map(fn, parts))


def _up32(x: np.ndarray) -> np.ndarray:
    """float32 values >= x (0 stays 0)."""
    with np.errstate(over="ignore"):
        y = x.astype(np.float32)
    return np.where(y < x, np.nextafter(y, np.float32(np.inf)), y)


def _bounds(share: list, operator: Operator, C: np.ndarray, tb: TimeBlocks, ub: np.ndarray,
            envelope: np.ndarray):
    """First pass over a share of the groups: ub (n_blocks, n_points) and, in ``envelope``, lb_env squared of its
    points; returns per block the largest ub of the share (n_blocks,) and the operator (n_blocks, n_b, c) of its
    point."""
    scratch, n_blk = Scratch(), len(tb.middle)
    best, best_op, rows = np.full(n_blk, -1.0), None, np.arange(n_blk)
    for g in share:
        op, point, _ = operator(g, scratch)
        n_b, c, P = op.shape
        x2 = squared_norms((C[tb.middle] @ op.reshape(n_b, -1)).reshape(n_blk, c, P))
        envelope[point] = x2.max(axis=0)
        u = (np.sqrt(x2) + tb.spread @ np.sqrt(squared_norms(op))) * (1 + tb.slack)
        ub[:, point] = _up32(u)
        j = np.argmax(u, axis=1)
        better = u[rows, j] > best
        best_op = np.zeros((n_blk, n_b, c)) if best_op is None else best_op
        best[better] = u[rows, j][better]
        best_op[better] = op[:, :, j[better]].transpose(2, 0, 1)
    return best, best_op


def _history_floor(firsts: list, C: np.ndarray, tb: TimeBlocks) -> np.ndarray:
    """Per block (n_blocks,) a value under the max over points at each of its samples (lowered by the cut-off's
    margin): the least over the block of the history of the block winners of :func:`_bounds`, evaluated at every
    sample (a product of a few columns)."""
    best, best_op = firsts[0]
    for b_i, op_i in firsts[1:]:
        better = b_i > best
        best[better], best_op[better] = b_i[better], op_i[better]
    cand = np.unique(best_op, axis=0)  # (k, n_b, c)
    x2 = squared_norms((C @ cand.transpose(1, 2, 0).reshape(C.shape[1], -1)).reshape(len(C), -1, len(cand)))
    return np.sqrt(np.minimum.reduceat(x2.max(axis=1), tb.edges[:-1])) * (1 - _CUT)


def _exact(share: list, operator: Operator, C: np.ndarray, tb: TimeBlocks, ub: np.ndarray, envelope: np.ndarray,
           floor: np.ndarray, budget: float):
    """Second pass over a share of the groups: the pairs that can reach a maximum, formed block of samples by
    block in the full pass's order of the points; raises ``envelope`` (squared) in place. Returns the running
    max over the share's points and the number of pairs formed."""
    scratch, peak, count = Scratch(), RunningMax(len(C)), 0
    for g in share:
        op, point, rank = operator(g, scratch)
        n_b, c, P = op.shape
        u = ub[:, point]
        need = (u >= floor[:, None]) | (u > np.sqrt(envelope[point]) * (1 + _CUT))
        for b in np.flatnonzero(need.any(axis=1)):
            ta, tb_ = tb.edges[b], tb.edges[b + 1]
            sel = np.flatnonzero(need[b])
            sel = sel[np.argsort(rank[sel], kind="stable")]  # the full pass's order: the same first point
            m = max(1, int(budget // ((tb_ - ta) * c * 8)))
            for a in range(0, len(sel), m):
                s = sel[a:a + m]
                R = np.matmul(C[ta:tb_], op[:, :, s].reshape(n_b, -1), out=scratch.get("Rs", (tb_ - ta, c * len(s))))
                x2 = squared_norms(R.reshape(tb_ - ta, c, len(s)), out=scratch.get("x2s", (tb_ - ta, len(s))))
                peak.update(ta, x2, lambda j, s=s: point[s[j]])
                envelope[point[s]] = np.maximum(envelope[point[s]], x2.max(axis=0))
                count += len(s) * (tb_ - ta)
    return peak, count


def screened_maxima(groups: list, operator: Operator, n_points: int, C: np.ndarray, *, budget: float,
                    n_workers: int = 1, block: int = BLOCK) -> Maxima:
    """The history and envelope (squared) of x(p, t) = |C[t] @ op(p)| (module docstring) over the points of
    ``groups`` (``operator(group, scratch)`` gives a group's operators), equal to a full pass that visits the groups
    in order and each group's points in ``rank`` order. ``budget``: bytes of a product's result (memory bound);
    ``n_workers`` threads on contiguous shares of the groups (the same result whatever their number)."""
    tb = time_blocks(C, block)
    ub = np.empty((len(tb.middle), n_points), np.float32)
    envelope = np.zeros(n_points)  # squared: lb_env after the first pass, the envelope after the second
    firsts = _shares(partial(_bounds, operator=operator, C=C, tb=tb, ub=ub, envelope=envelope), groups, n_workers)
    floor = _history_floor(firsts, C, tb)
    seconds = _shares(partial(_exact, operator=operator, C=C, tb=tb, ub=ub, envelope=envelope, floor=floor,
                              budget=budget), groups, n_workers)
    peak, count = seconds[0]
    for p_i, c_i in seconds[1:]:
        peak.merge(p_i)
        count += c_i
    return Maxima(peak, envelope, count, len(C) * n_points)
