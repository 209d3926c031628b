"""Exact maxima of long histories of norms, x(p, t) = |C[t] @ op(p)|, without forming most of them.

``C`` (n_t, n_b) holds the coefficient history, ``op(p)`` (n_b, c) the c coordinates of point p per basis column
(the 5 von Mises coordinates of an element node, the 3 displacement components of a node). Wanted: at each time the
max over points and the first point (in the full pass's order) that reaches it (the history), and at each point the
max over time (the envelope), as a full pass over every (point, time) pair gives them.

Bound: the samples are split into contiguous blocks of :data:`BLOCK` (:func:`blocks`). In block b, the lead column
j (largest spread) takes its least and largest values at samples l and h; every C[t] of the block is then
a C[l] + (1 - a) C[h] + r(t) with a in [0, 1] and r_j(t) = 0, and as the norm is convex,

    x(p, t) <= max(x(p, l), x(p, h)) + sum_i rho_i w_i(p) = ub(p, b),    rho_i = max over the block of |r_i(t)|,

w_i(p) the norm of column i's c coordinates at p. Two samples per block are formed for every point (2 / BLOCK of
the full work), exact values, so lb_env(p) = their max over the blocks is a lower bound of p's envelope. A few
points per block, those of largest bound sum_i |C_i| w_i(p) at the block's loudest (max over the block of each
|C_i|) and quietest sample, formed at every sample, give lb_hist(t) <= the history at t. Then block b of point p
is formed at every sample only if ub(p, b) > lb_env(p) (it may raise the envelope; the blocks of largest bound
first, so that lb_env rises soonest), and at the samples t of the block with lb_hist(t) <= ub(p, b) (it may reach
the history there; taken as the block's first 2^k samples in increasing lb_hist, for a few products per block).
Every other pair is proven below both maxima; the values formed are the full pass's products, on fewer rows and
columns, and the first point of a tie is kept by rank (:class:`RankedMax`), whatever the order of the products.
On paper 004's links 10-34 % of the element-node pairs are formed (6 of those % the samples l and h): the stress
peaks of a load cycle come back at every cycle, and every point's envelope needs each of them.

Round-off: ub is widened by a relative ``slack`` that covers the rounding of every product, norm and residual of
n_b terms (so it bounds x as any product computes it); the history's cut-off is lowered by 1e-13 relative (an
unformed pair is then below the history by more than any round-off: the history and its first point are those of
the full pass) and the envelope's raised by 1e-13 (an unformed block is below lb_env (1 + 1e-13): the envelope is
exact to that, against round-off differences of ~1e-16 between products of other shapes).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Callable

import numpy as np

from .solvers import single_thread_blas

#: samples per time block: the bound's product costs 2/BLOCK of the full one; shorter blocks give tighter bounds
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
class Blocks:
    """Contiguous blocks of samples: block b is edges[b]..edges[b+1]-1; ``rows`` (2 n_blocks,) its samples l, h of
    least and largest lead column (module docstring); ``spread`` (n_blocks, n_b) = (1 + slack) rho_b + slack
    (|C[l]| + |C[h]| + max_block |C|), so that ub = (max(x(l), x(h)) + spread @ w) (1 + slack) bounds x as any
    product computes it."""

    edges: np.ndarray
    rows: np.ndarray
    spread: np.ndarray
    slack: float


def blocks(C: np.ndarray, weight: np.ndarray, size: int = BLOCK, c: int = 5) -> Blocks:
    """Blocks of ``size`` samples of the history C (n_t >= 1, n_b) for norms of c coordinates; the lead column of
    a block is the one of largest spread times ``weight`` (n_b,) (a typical w_j). The slack, 4 (n_b + c + 8) unit
    round-offs, bounds the rounding of a product of n_b terms, of its norm, of the residual and of the bound."""
    n_t, n_b = C.shape
    edges = np.r_[np.arange(0, n_t, size), n_t]
    starts, lengths = edges[:-1], np.diff(edges)
    span = np.maximum.reduceat(C, starts, axis=0) - np.minimum.reduceat(C, starts, axis=0)
    lead = np.argmax(span * weight, axis=1)  # (n_blocks,)
    at = np.repeat(np.arange(len(starts)), lengths)  # block of each sample
    col = C[np.arange(n_t), lead[at]]
    order = np.lexsort((col, at))  # by block, then lead value
    lo, hi = order[starts], order[starts + lengths - 1]
    den = col[hi] - col[lo]
    a = np.clip(np.divide(col[hi][at] - col, den[at], out=np.ones(n_t), where=den[at] > 0), 0.0, 1.0)
    r = C - a[:, None] * C[lo][at] - (1 - a)[:, None] * C[hi][at]
    rho = np.maximum.reduceat(np.abs(r), starts, axis=0)
    size_c = np.abs(C[lo]) + np.abs(C[hi]) + np.maximum.reduceat(np.abs(C), starts, axis=0)
    slack = 4 * (n_b + c + 8) * np.finfo(float).eps / 2
    return Blocks(edges, np.stack([lo, hi], axis=1).ravel(), (1 + slack) * rho + slack * size_c, slack)


#: a group of points: (op (n_b, c, P) contiguous, point (P,) their indices, rank (P,) their order in the full pass)
Operator = Callable[[object, object], tuple]


@dataclass
class Maxima:
    """Squared maxima: ``history`` over points at each time (with the first point reaching it), ``envelope``
    (n_points,) over time at each point; ``evaluated`` pairs (point, time) formed exactly, of ``pairs``."""

    history: RankedMax
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


class RankedMax:
    """Max over points at each time (squared value, point index) keeping, among equal maxima, the point of least
    rank (the one a full pass in rank order meets first), so that the result does not depend on the order in
    which the pairs are formed."""

    def __init__(self, n_t: int):
        self.value = np.full(n_t, -np.inf)
        self.index = np.zeros(n_t, dtype=np.int64)
        self.rank = np.full(n_t, np.iinfo(np.int64).max)

    def _take(self, times, w, r, p) -> None:
        cur = self.value[times]
        better = (w > cur) | ((w == cur) & (r < self.rank[times]))
        at = times[better]
        self.value[at], self.rank[at], self.index[at] = w[better], r[better], p[better]

    def update(self, times: np.ndarray, x2: np.ndarray, rank: np.ndarray, point: np.ndarray) -> None:
        """``x2`` (len(times), m) values at the samples ``times`` of m points of increasing ``rank``."""
        j = np.argmax(x2, axis=1)  # the first column: the least rank of each row's max
        self._take(times, x2[np.arange(len(times)), j], rank[j], point[j])

    def merge(self, other: "RankedMax") -> None:
        self._take(np.arange(len(self.value)), other.value, other.rank, other.index)


@dataclass(frozen=True)
class _Plan:
    """The screen of one history: its blocks, and per block (n_blocks,) the least of lb_hist (lowered by the
    cut-off's margin), ``order`` (n_t,) the samples by block then increasing lb_hist and ``floors`` (n_t,) lb_hist
    in that order."""

    C: np.ndarray
    blocks: Blocks
    floor: np.ndarray
    order: np.ndarray
    floors: np.ndarray
    budget: float


def _norms(C: np.ndarray, op: np.ndarray, out=None) -> np.ndarray:
    """Squared norms (len(C), k) of the values C @ op of k points, op (c, k, n_b) contiguous (into ``out``): the
    full pass's product and sum of squares, whose values they are to the last bit."""
    c, k, n_b = op.shape
    return squared_norms((C @ op.reshape(c * k, n_b).T).reshape(len(C), c, k), out=out)


def _rows_major(op: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A group's operators (n_b, c, P) as (c, P, n_b), so that picking points copies whole rows, and their w
    (P, n_b): the norm of each basis column's c coordinates."""
    return np.ascontiguousarray(op.transpose(1, 2, 0)), np.ascontiguousarray(np.sqrt(squared_norms(op)).T)


def _pick(opT: np.ndarray, sel: np.ndarray) -> np.ndarray:
    """The operators (c, k, n_b) of the points ``sel`` of opT (c, P, n_b)."""
    return np.take(opT, sel, axis=1)


def _candidates(share: list, operator: Operator, C: np.ndarray, edges: np.ndarray):
    """The points that likely carry the history: per block of samples, the share's point of largest bound
    sum_j |C_j| w_j(p) with |C_j| the block's largest (its loudest) and, per block, at its quietest sample
    (least sum_j |C_j(t)|, where another point may lead). Returns their bounds (2 n_blocks,) and operators
    (2 n_blocks, c, n_b), and the sum of w over the share's points (n_b,)."""
    A = np.abs(C)
    at = np.repeat(np.arange(len(edges) - 1), np.diff(edges))
    t_quiet = np.lexsort((A.sum(axis=1), at))[edges[:-1]]
    levels = np.r_[np.maximum.reduceat(A, edges[:-1], axis=0), A[t_quiet]]
    best, best_op, rows, scratch = np.full(len(levels), -1.0), None, np.arange(len(levels)), Scratch()
    w_sum = np.zeros(C.shape[1])
    for g in share:
        op = operator(g, scratch)[0]
        W = np.sqrt(squared_norms(op))
        w_sum += W.sum(axis=1)
        bound = levels @ W
        j = np.argmax(bound, axis=1)
        better = bound[rows, j] > best
        best_op = np.zeros((len(levels),) + op.shape[1::-1]) if best_op is None else best_op
        best[better] = bound[rows, j][better]
        best_op[better] = op[:, :, j[better]].transpose(2, 1, 0)  # (k, c, n_b)
    return best, best_op, w_sum


def _plan(C: np.ndarray, firsts: list, block: int, budget: float) -> _Plan:
    """The screen's blocks and lower bounds of the history from the candidates of every share
    (:func:`_candidates`), formed at every sample (a product of a few columns)."""
    cand = np.unique(np.concatenate([op for _, op, _ in firsts]), axis=0)  # (k, c, n_b)
    tb = blocks(C, sum(w for _, _, w in firsts), block, cand.shape[1])
    lb = np.sqrt(_norms(C, np.ascontiguousarray(cand.transpose(1, 0, 2))).max(axis=1)) * (1 - _CUT)
    at = np.repeat(np.arange(len(tb.edges) - 1), np.diff(tb.edges))
    order = np.lexsort((lb, at))
    return _Plan(C, tb, np.minimum.reduceat(lb, tb.edges[:-1]), order, lb[order], budget)


def _form(plan: _Plan, times: np.ndarray, op: np.ndarray, rank, point, env: np.ndarray, peak: RankedMax) -> int:
    """Form the pairs (point, times) of the points op (c, k, n_b); raise ``env`` (k,) and ``peak``."""
    x2 = _norms(plan.C[times], op)
    peak.update(times, x2, rank, point)
    np.maximum(env, x2.max(axis=0), out=env)
    return x2.size


def _block(plan: _Plan, b: int, u: np.ndarray, opT, rank, point, env: np.ndarray, peak: RankedMax) -> int:
    """Block b of the points opT (c, P, n_b) of a group (ub u (P,)): every sample of those whose bound exceeds
    lb_env, and the samples of low lb_hist of those whose bound reaches it (module docstring). Returns the pairs
    formed."""
    whole = u > np.sqrt(env) * (1 + _CUT)
    count = 0
    for sel, times in _needs(plan, b, u, whole):
        if len(sel) > len(u) // 2:  # most points: the whole group (no copy of their operators, a few pairs more)
            count += _form(plan, times, opT, rank, point, env, peak)
            continue
        e = env[sel]
        count += _form(plan, times, _pick(opT, sel), rank[sel], point[sel], e, peak)
        env[sel] = e
    return count


def _needs(plan: _Plan, b: int, u: np.ndarray, whole: np.ndarray):
    """Yield (points, samples) to form in block b: the points of ``whole`` at every sample, then the others by
    the number of the block's samples whose lb_hist their bound reaches, rounded up to a power of 2."""
    ta, tb = plan.blocks.edges[b], plan.blocks.edges[b + 1]
    sel = np.flatnonzero(whole)
    if len(sel):
        yield sel, np.arange(ta, tb)
    rest = np.flatnonzero(~whole & (u >= plan.floor[b]))
    if len(rest) == 0:
        return
    k = np.searchsorted(plan.floors[ta:tb], u[rest], side="right")  # samples with lb_hist <= ub
    size = np.minimum(2 ** np.ceil(np.log2(np.maximum(k, 4))).astype(int), tb - ta)
    for s in np.unique(size):
        yield rest[size == s], np.sort(plan.order[ta:ta + s])


def _screen(share: list, operator: Operator, plan: _Plan, envelope: np.ndarray):
    """The maxima of a share of the groups: per group, the values at the blocks' samples l and h and the
    bounds, then the blocks the bounds let through (:func:`_block`), largest bound first (lb_env rises soonest).
    Sets ``envelope`` (squared) of the share's points; returns the running max over them and the pairs formed."""
    tb, peak, count, scratch = plan.blocks, RankedMax(len(plan.C)), 0, Scratch()
    n_blk = len(tb.edges) - 1
    for g in share:
        op, point, rank = operator(g, scratch)
        opT, W = _rows_major(op)
        x2 = scratch.get("x2_rows", (2 * n_blk, len(point)))
        m = max(1, int(plan.budget // (2 * n_blk * op.shape[1] * 8)))  # the product in cache-sized slices
        for a in range(0, len(point), m):
            x2[:, a:a + m] = _norms(plan.C[tb.rows], np.ascontiguousarray(opT[:, a:a + m]))
        peak.update(tb.rows, x2, rank, point)
        x2 = np.maximum(x2[0::2], x2[1::2])
        env = x2.max(axis=0)
        u, count = (np.sqrt(x2) + tb.spread @ W.T) * (1 + tb.slack), count + 2 * x2.size
        for b in np.argsort(-u.max(axis=1), kind="stable"):
            count += _block(plan, b, u[b], opT, rank, point, env, peak)
        envelope[point] = env
    return peak, count


def screened_maxima(groups: list, operator: Operator, n_points: int, C: np.ndarray, *, budget: float,
                    n_workers: int = 1, block: int = BLOCK) -> Maxima:
    """The history and envelope (squared) of x(p, t) = |C[t] @ op(p)| (module docstring) over the points of
    ``groups`` (``operator(group, scratch)`` gives a group's operators (n_b, c, P), the points' indices and
    ranks, increasing), equal to a full pass over every pair in rank order. ``budget``: bytes of a product's
    result (memory bound); ``n_workers`` threads on contiguous shares of the groups (the same result whatever
    their number)."""
    edges = np.r_[np.arange(0, len(C), block), len(C)]
    firsts = _shares(partial(_candidates, operator=operator, C=C, edges=edges), groups, n_workers)
    plan = _plan(C, firsts, block, budget)
    envelope = np.zeros(n_points)
    seconds = _shares(partial(_screen, operator=operator, plan=plan, envelope=envelope), groups, n_workers)
    peak, count = seconds[0]
    for p_i, c_i in seconds[1:]:
        peak.merge(p_i)
        count += c_i
    return Maxima(peak, envelope, count, len(C) * n_points)
