"""Stress and deformation histories of one link along a motion, reduced to peaks, envelopes and frame fields.

Every response is a product of the fixed basis of :mod:`.linkbasis` with the coefficient history, so the stress
history of every element node costs one matrix product per block. The stress basis of a straight-sided part holds
the 4 vertex stresses of each element (strain is linear in a straight-sided P2 tet, so an edge's mid node has the
mean of its vertices' stresses, and the von Mises and maximum principal stresses, being convex, peak over an element
at a vertex); that of a curved (isoparametric) part holds all 10 element-node stresses, each from the map's Jacobian
at its node (the strain is not linear there: a mid node's value is not its edge's mean). Von Mises is evaluated
as a Euclidean norm, vm^2 = |T s|^2 with T = :data:`.stress.VON_MISES_MATRIX` (5, 6), so a block of histories is
one matrix product followed by a sum of squares; maxima are taken on squares and rooted once. Blocks of elements
(and, for long histories, of time) bound the memory and keep the working arrays in cache.
The nodal-averaged von Mises history (:mod:`.averaging`) is one product per block of nodes with the averaged stress
basis, like the displacement history.

This module is also the link-response API that the study uses: it re-exports the basis (:class:`LinkBasis`,
:func:`build_basis`, :func:`modal_coefficients`, :func:`ringing_samples`) and the interface operators
(:func:`load_resultants`, :func:`rigid_fit_operator`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .assembly import p2_edges
from .averaging import averaged_stress_basis, von_mises_coordinates
from .interface import resultant, rigid_fit_operator
from .linkbasis import LinkBasis, build_basis, modal_coefficients, ringing_samples
from .stress import VON_MISES_MATRIX, max_principal
from .screening import RunningMax, Scratch, screened_maxima, squared_norms
from .solvers import single_thread_blas

__all__ = ["LinkBasis", "LinkResponse", "build_basis", "frame_fields", "load_resultants", "modal_coefficients",
           "peak_von_mises", "respond", "rigid_fit_operator", "ringing_samples"]


@dataclass(frozen=True)
class LinkResponse:
    """Peaks and fields of a link over the fine time grid (all stresses in Pa, lengths in m, link axes).

    ``vm_history`` (n_t,) is the link's maximum von Mises at each time; ``vm_envelope_nodes`` (n_nodes,) the
    max over time at each node (max over the elements sharing it of the unaveraged values);
    ``deformation_envelope`` (n_nodes,) the max over time of |u|; ``principal_envelope`` (n_nodes,) the max over
    time of the max principal stress (brittle materials only, else None).

    The ``*_averaged`` fields are the same peaks of the nodal-averaged stress (von Mises of the plain mean of the
    element-node stress tensors at each node, :mod:`.averaging`, as ANSYS and CalculiX display): the maximum over
    nodes and time with its time index and node, the max over nodes at each time (n_t,) and the max over time at
    each node (n_nodes,); ``von_mises_averaged_at_max`` is the averaged value at ``node_max`` and ``i_time_max``.
    """

    max_von_mises: float
    i_time_max: int
    node_max: int
    vm_history: np.ndarray
    vm_envelope_nodes: np.ndarray
    deformation_history: np.ndarray
    deformation_envelope: np.ndarray
    max_deformation: float
    i_time_max_deformation: int
    principal_history: np.ndarray | None
    principal_envelope: np.ndarray | None
    modal_coeff: np.ndarray
    max_von_mises_averaged: float
    i_time_max_averaged: int
    node_max_averaged: int
    vm_averaged_history: np.ndarray
    vm_averaged_envelope_nodes: np.ndarray
    von_mises_averaged_at_max: float

    @property
    def stress_discontinuity(self) -> float:
        """Unaveraged over nodal-averaged von Mises, minus 1, at the node and time of the link's peak (unaveraged)
        von Mises: how much the element that reports the peak disagrees with the mean of the elements sharing the
        node. Never negative (von Mises is a norm: that of the mean tensor is at most the mean of the elements'
        values, at most their max); large at a re-entrant corner or a clamped edge, where the stress is singular,
        and on a mesh too coarse for the gradient there; 0 for a zero response."""
        if self.max_von_mises == 0.0:
            return 0.0
        if self.von_mises_averaged_at_max == 0.0:
            return float("inf")
        return self.max_von_mises / self.von_mises_averaged_at_max - 1.0


def _check_nodes_used(cells: np.ndarray, n_nodes: int) -> None:
    if np.any(np.bincount(np.ravel(cells), minlength=n_nodes) == 0):
        raise InputError("mesh has nodes that belong to no element; remove unused points")


def _node_reducer(cells: np.ndarray, n_nodes: int):
    """Return f(values (..., n_points)) -> (..., n_nodes) taking the max over the points of each node, where
    point i belongs to node ``cells.ravel()[i]``."""
    flat = np.ascontiguousarray(cells).ravel()
    _check_nodes_used(flat, n_nodes)

    def reduce_max(values: np.ndarray) -> np.ndarray:
        v = values.reshape(-1, values.shape[-1])
        out = np.full((len(v), n_nodes), -np.inf)
        for row, vals in zip(out, v):  # unbuffered scatter-max, one row (time) at a time
            np.maximum.at(row, flat, vals)
        return out.reshape(values.shape[:-1] + (n_nodes,))

    return reduce_max


def _element_node_operator(S: np.ndarray, a: int, n_blocks: int, ne: int, von_mises: bool,
                           scratch: "Scratch | None" = None) -> np.ndarray:
    """Stress operators (n_blocks, n_b, c, 10, ne) at the 10 element nodes of ``n_blocks`` consecutive blocks of
    ``ne`` elements from element a, from the stress basis S (n_b, 6, n_p, n_elem): its 6 components, or the
    5 von Mises coordinates VON_MISES_MATRIX @ s. n_p = 4: vertex stresses of straight elements, the mid nodes
    the means of their edge's vertices; n_p = 10: the stresses of all 10 nodes of curved elements, taken as they
    are. Each block's operator is contiguous, for one matrix product. With ``scratch`` the result (and the work
    arrays) live in its reused buffers, valid until the next call."""
    n_b, n_p, b = S.shape[0], S.shape[2], a + n_blocks * ne
    c_out = 5 if von_mises else 6

    def buffer(name, shape):
        return np.empty(shape) if scratch is None else scratch.get((name, von_mises), shape)

    out = buffer("op_nodes", (n_b, c_out, 10, b - a))
    if not von_mises:
        out[:, :, :n_p] = S[:, :, :, a:b]
    else:  # the matrix's few nonzeros one by one (an einsum is slower on these blocks)
        term = buffer("op_term", (n_b, n_p, b - a))
        for c, row in enumerate(VON_MISES_MATRIX):
            j0, *rest = np.flatnonzero(row)
            np.multiply(S[:, j0, :, a:b], row[j0], out=out[:, c, :n_p])
            for j in rest:
                np.multiply(S[:, j, :, a:b], row[j], out=term)
                out[:, c, :n_p] += term
    if n_p == 4:  # straight: mid nodes from their edge's vertices
        for m, (i, j) in enumerate(p2_edges()):
            np.add(out[:, :, i], out[:, :, j], out=out[:, :, 4 + m])
        out[:, :, 4:] *= 0.5
    if n_blocks == 1:
        return out[None]
    blocks = buffer("op_blocks", (n_blocks, n_b, c_out, 10, ne))
    np.copyto(blocks, out.reshape(out.shape[:3] + (n_blocks, ne)).transpose(3, 0, 1, 2, 4))
    return blocks


def _blocks(n_t: int, n_items: int, values_per_item: int, budget: float, group: int = 2048):
    """Tiling of (time, item) for products whose result holds ``values_per_item`` values per item and time:
    time chunks x blocks of items with a result near ``budget`` bytes (all of time at once when at least 8
    items fit). Blocks come in groups (start, n_blocks, block size) of about ``group`` items whose operators are
    built in one go. Returns (time chunks, groups)."""
    per_t = values_per_item * 8
    eb = int(budget // (per_t * n_t))
    if eb >= 8:
        tc = n_t
    else:
        eb = 8
        tc = max(1, int(budget // (per_t * eb)))
    eb = max(1, min(eb, n_items))
    per_group = max(1, group // eb)
    full, rest = divmod(n_items, eb)
    groups = [(g * eb, min(per_group, full - g), eb) for g in range(0, full, per_group)]
    if rest:
        groups.append((full * eb, 1, rest))
    return [(a, min(n_t, a + tc)) for a in range(0, n_t, tc)], groups


def _element_stress_blocks(S, C, budget, brittle, part: tuple[int, int] = (0, 1)):
    """Yield (ea, eb, ta, tb, vm2, p1) over blocks of elements ea..eb-1 and times ta..tb-1: vm2 (chunk, 10, ne)
    squared von Mises at the element nodes, p1 (chunk, 10, ne) max principal stress (None unless brittle).
    The yielded arrays are overwritten by the next block: use them before advancing. ``part`` (i, n): only the
    i-th of n contiguous shares of the element groups (for workers that split a link).

    The mid nodes get a product of their own although on straight elements their stresses are the means of their
    edge's vertices': BLAS does their multiply-adds near the core's peak, faster than forming |R_i + R_j|^2 from the
    vertex products with strided element-wise passes (measured: 1.2 s against 2.3 s for 2000 samples x 8400 tets)."""
    t_chunks, groups = _blocks(len(C), S.shape[3], 10 * (5 + (12 if brittle else 0)), budget)
    i, n = part
    groups = groups[i * len(groups) // n:(i + 1) * len(groups) // n]
    scratch = Scratch()
    for ga, n_blocks, ne in groups:
        OP = _element_node_operator(S, ga, n_blocks, ne, True, scratch)  # (n_blocks, n_b, 5, 10, ne)
        OP6 = _element_node_operator(S, ga, n_blocks, ne, False, scratch) if brittle else None
        for k in range(n_blocks):
            ea = ga + k * ne
            op = OP[k].reshape(OP.shape[1], -1)
            for ta, tb in t_chunks:
                R = np.matmul(C[ta:tb], op, out=scratch.get("R", (tb - ta, op.shape[1])))
                vm2 = squared_norms(R.reshape(tb - ta, 5, 10 * ne), out=scratch.get("vm2", (tb - ta, 10 * ne)))
                p1 = None
                if brittle:
                    s6 = (C[ta:tb] @ OP6[k].reshape(OP6.shape[1], -1)).reshape(tb - ta, 6, 10, ne)
                    p1 = max_principal(s6.transpose(0, 2, 3, 1))
                yield ea, ea + ne, ta, tb, vm2.reshape(tb - ta, 10, ne), p1


def peak_von_mises(basis: LinkBasis, coeff: np.ndarray, chunk_bytes: float = 8e6, where: bool = False):
    """Largest von Mises stress [Pa] over the samples and the link of the quasi-static response
    u = U @ coeff[t] (``coeff`` (n_t, k)), without the modal part; with ``where``, (that stress, the first sample
    reaching it to a relative 1e-12).

    The maximum over the element nodes, as :func:`respond` reports. The points evaluated are those of the
    basis (``basis.S`` (n_b, 6, n_p, n_elem)): on straight-sided elements the n_p = 4 vertices, which is enough
    because the stress is linear there and von Mises, a norm of a linear function of it, is convex (a mid node's
    value is at most its edge's vertices' larger one); on curved elements the strain is not linear and all
    n_p = 10 nodes are evaluated (a mid node on a curved bore can carry the element's peak). At a point p the
    value is at most b(p) = sum_j max_t |c_j(t)| |T s_j(p)| (T = VON_MISES_MATRIX, s_j the stress of unit load j).
    Points are evaluated exactly in decreasing order of that bound until the bound falls below the largest value
    found: on paper 004's links about 0.1 % of them (the peak sits in a few elements near the supports and load
    patches)."""
    k = coeff.shape[1]
    S = basis.S[:k]  # (k, 6, n_loc, n_elem): 4 vertices or 10 nodes per element
    C = np.ascontiguousarray(coeff, dtype=float)
    n_t, n_loc, n_e = C.shape[0], S.shape[2], S.shape[3]
    if n_t == 0 or n_e == 0:
        return (0.0, 0) if where else 0.0
    cmax = np.abs(C).max(axis=0)
    bound = np.empty((n_loc, n_e))
    step = max(1, int(chunk_bytes // (k * 5 * n_loc * 8)))
    for a in range(0, n_e, step):
        V = np.einsum("cs,ksve->kcve", VON_MISES_MATRIX, S[..., a:a + step])
        bound[:, a:a + step] = np.einsum("k,kve->ve", cmax, np.sqrt(np.einsum("kcve,kcve->kve", V, V)))
    bound = bound.ravel()
    order = np.argsort(-bound, kind="stable")  # element point v * n_e + e
    n_p = max(1, min(256, int(chunk_bytes // (5 * 8 * n_t))))  # points per exact evaluation
    tc = max(1, int(chunk_bytes // (5 * 8 * n_p)))  # samples per product
    best2 = -1.0
    per_sample = np.zeros(n_t) if where else None  # each sample's largest squared value over the points evaluated
    for a in range(0, len(order), n_p):
        idx = order[a:a + n_p]
        # the bound holds to round-off only: stop with a margin far above it
        if best2 >= 0 and bound[idx[0]] * (1 + 1e-9) < np.sqrt(best2):
            break
        v, e = np.divmod(idx, n_e)
        op = np.einsum("cs,ksp->kcp", VON_MISES_MATRIX, S[:, :, v, e]).reshape(k, -1)  # (k, 5 * n_points)
        with single_thread_blas():
            for ta in range(0, n_t, tc):
                R = (C[ta:ta + tc] @ op).reshape(-1, 5, len(idx))
                q2 = squared_norms(R).max(axis=1)
                best2 = max(best2, float(q2.max()))
                if where:
                    np.maximum(per_sample[ta:ta + tc], q2, out=per_sample[ta:ta + tc])
    peak = float(np.sqrt(best2))
    if not where:
        return peak
    # a point not evaluated is below the bound, below the peak: the samples reaching it are known exactly
    return peak, int(np.argmax(np.sqrt(per_sample) >= peak * (1 - 1e-12)))


def _node_blocks(D, C, budget, part: tuple[int, int] = (0, 1)):
    """Yield (na, nb, ta, tb, u2) with u2 (chunk, nb - na) the squared norms over axis 1 of C @ D at nodes
    na..nb-1, for D (n_b, c, n): squared |u| for displacements (c = 3), squared von Mises for von Mises coordinates
    (c = 5). The yielded array is overwritten by the next block. ``part`` (i, n): only the i-th of n contiguous
    shares of the node groups (the blocks are the same whatever n)."""
    n_b, c = D.shape[:2]
    t_chunks, groups = _blocks(len(C), D.shape[2], c, budget)
    i, n = part
    groups = groups[i * len(groups) // n:(i + 1) * len(groups) // n]
    scratch = Scratch()
    for ga, n_blocks, nn in groups:
        for na in range(ga, ga + n_blocks * nn, nn):
            op = np.ascontiguousarray(D[:, :, na:na + nn]).reshape(n_b, -1)
            for ta, tb in t_chunks:
                R = np.matmul(C[ta:tb], op, out=scratch.get("R", (tb - ta, op.shape[1])))
                yield na, na + nn, ta, tb, squared_norms(R.reshape(tb - ta, c, nn),
                                                          out=scratch.get("u2", (tb - ta, nn)))


def _node_history(D, C, budget, screen: bool = False) -> tuple[RunningMax, np.ndarray]:
    """Max over the nodes at each time (squared value and node) and max over time at each node (squared,
    (n,)) of the squared norms of :func:`_node_blocks`; in threads on shares of the nodes when the history is
    large (:func:`_workers`), with the same result. ``screen``: only the pairs (node, time) that can reach a
    maximum are formed (:mod:`.screening`), the same maxima."""
    n_workers = _workers(len(C) * D.size)
    if screen:
        def operator(g, scratch):
            ga, n_blocks, nn = g
            nodes = np.arange(ga, ga + n_blocks * nn)
            return np.ascontiguousarray(D[:, :, ga:ga + n_blocks * nn]), nodes, nodes

        groups = _blocks(len(C), D.shape[2], D.shape[1], budget, group=16384)[1]  # fewer, longer loops
        found = screened_maxima(groups, operator, D.shape[2], C, budget=budget, n_workers=n_workers)
        return found.history, found.envelope
    env = np.zeros(D.shape[2])

    def share(i: int, n: int):
        peak = RunningMax(len(C))
        for na, nb, ta, tb, u2 in _node_blocks(D, C, budget, part=(i, n)):
            peak.update(ta, u2, lambda j, na=na: na + j)
            np.maximum(env[na:nb], u2.max(axis=0), out=env[na:nb])
        return peak, None

    if n_workers == 1:
        with single_thread_blas():
            peak, _ = share(0, 1)
    else:
        peak, _ = _in_threads(share, n_workers)
    return peak, env


def _workers(multiply_adds: float) -> int:
    """Threads for a stress history of this many multiply-adds: one per core this process may use
    (:func:`structcheck.pool.thread_budget`: 1 in each of two sweep workers on two cores, and in each of two links'
    threads of :func:`structcheck.pool.map_in_threads`; at most 4), one for small ones (under ~0.2 s of work, where
    starting threads does not pay); ``STRUCTCHECK_THREADS`` overrides both."""
    import os

    from ..pool import thread_budget

    if os.environ.get("STRUCTCHECK_THREADS"):
        return thread_budget()
    return min(4, thread_budget()) if multiply_adds > 5e9 else 1


def _in_threads(share, n: int):
    """Run ``share(i, n)`` for i < n in n threads, each on its own contiguous share of the elements (or nodes);
    merge the running maxima in share order, which gives exactly the single-pass result.

    OpenBLAS runs on one thread throughout the stress history: the shares are the parallelism (the einsum and
    max reductions run in parallel too, not only the products), and OpenBLAS's own threads on these small-inner-
    dimension products were 3.5x slower than one thread on this 2-core machine (7.8 s against 2.2 s, forearm,
    1980 samples). Every product is then the same single-threaded one whatever the number of shares, so the
    results do not depend on it."""
    from concurrent.futures import ThreadPoolExecutor

    with single_thread_blas(), ThreadPoolExecutor(n) as pool:
        results = list(pool.map(share, range(n), [n] * n))
    vm, p1 = results[0]
    for vm_i, p1_i in results[1:]:
        vm.merge(vm_i)
        if p1 is not None:
            p1.merge(p1_i)
    return vm, p1


def _element_operator(S: np.ndarray):
    """The screened pass's operators (:mod:`.screening`) of a group (start, n_blocks, ne) of the elements of
    :func:`_blocks`: the von Mises coordinates (n_b, 5, 10 G) of its G elements' nodes in the full pass's order
    (block of ne elements, then node v, then element), their point indices v n_e + e and ranks in that order."""
    n_b, n_e = S.shape[0], S.shape[3]

    def operator(g, scratch):
        ga, n_blocks, ne = g
        G = n_blocks * ne
        op = _element_node_operator(S, ga, 1, G, True, scratch)[0].reshape(n_b, 5, 10, n_blocks, ne)
        out = scratch.get("op_ranked", (n_b, 5, n_blocks, 10, ne))
        np.copyto(out, op.transpose(0, 1, 3, 2, 4))
        k, v, e = np.unravel_index(np.arange(10 * G), (n_blocks, 10, ne))
        return out.reshape(n_b, 5, 10 * G), v * n_e + ga + k * ne + e, 10 * ga + np.arange(10 * G)

    return operator


def _element_history(S: np.ndarray, C: np.ndarray, budget: float, brittle: bool, screen: bool):
    """The unaveraged element-node maxima: (vm, vm_env, p1, p1_env), vm (and p1 if brittle) the running max over
    points at each time (squared von Mises; max principal), vm_env (10, n_e) the squared max over time at each
    point, p1_env the same of the max principal stress. ``screen`` (not brittle): only the pairs that can reach a
    maximum are formed (:mod:`.screening`); else every pair, in blocks of elements and time."""
    n_t, n_e = len(C), S.shape[3]
    n_workers = _workers(n_t * n_e * S.shape[0] * 50)
    if screen and not brittle:
        groups = _blocks(n_t, n_e, 50, budget)[1]
        found = screened_maxima(groups, _element_operator(S), 10 * n_e, C, budget=budget, n_workers=n_workers)
        return found.history, found.envelope.reshape(10, n_e), None, None
    vm_env = np.zeros((10, n_e))  # squared
    p1_env = np.full((10, n_e), -np.inf) if brittle else None

    def share(i: int, n: int):
        """The maxima over time of the i-th of n shares of the elements (its own slices of the envelopes)."""
        vm = RunningMax(n_t)
        p1 = RunningMax(n_t) if brittle else None
        for ea, eb, ta, tb, vm2, s1 in _element_stress_blocks(S, C, budget, brittle, part=(i, n)):
            ne = eb - ea

            def point(j, ea=ea, ne=ne):  # local column j of a (10, ne) block -> point index
                return (j // ne) * n_e + ea + j % ne

            vm.update(ta, vm2.reshape(tb - ta, -1), point)
            np.maximum(vm_env[:, ea:eb], vm2.max(axis=0), out=vm_env[:, ea:eb])
            if brittle:
                p1.update(ta, s1.reshape(tb - ta, -1), point)
                np.maximum(p1_env[:, ea:eb], s1.max(axis=0), out=p1_env[:, ea:eb])
        return vm, p1

    if n_workers == 1:
        with single_thread_blas():
            vm, p1 = share(0, 1)
    else:
        vm, p1 = _in_threads(share, n_workers)
    return vm, vm_env, p1, p1_env


def respond(part, basis: LinkBasis, coeff: np.ndarray, modal: np.ndarray, *, brittle: bool = False,
            chunk_bytes: float = 8e6, screen: bool = True) -> LinkResponse:
    """Stress and deformation history on the fine grid, reduced to peaks and envelopes.

    ``coeff`` (n_t, k), ``modal`` (n_t, m). Blocks of elements (and of time when the history is long) keep each
    product's result near ``chunk_bytes`` (cache-sized). Another size changes the results in the last bit only
    (BLAS takes other kernels at other block edges: 2.5e-16 relative, paper 004's upper arm at 2 against 8 MB); the
    same size gives the same bits, whatever the number of threads.

    ``screen`` (default): the von Mises and |u| maxima form only the (point, time) pairs that bounds cannot rule
    out (:mod:`.screening`: paper 004's links, a few % of them), with the same results as ``screen=False``, the
    full pass over every pair, kept as the reference (equal to 1e-13 relative, the same indices of the maxima;
    tests/fe/test_screening.py). Brittle parts (max principal stress) take the full pass.
    """
    C = np.ascontiguousarray(np.hstack([coeff, modal]), dtype=float)  # (n_t, n_b)
    n_t = len(C)
    S = basis.S
    screen = screen and n_t > 0
    cells_T = part.cells.T  # element node (p, e) -> node; point index p * n_e + e
    n_nodes = len(part.node_dofs)
    reduce_max = _node_reducer(cells_T, n_nodes)
    vm, vm_env, p1, p1_env = _element_history(S, C, chunk_bytes, brittle, screen)

    D = np.hstack([basis.U, basis.phi])[part.node_dofs]  # (n_nodes, 3, n_b)
    D = np.ascontiguousarray(D.transpose(2, 1, 0))  # (n_b, 3, n_nodes)
    dmax, def_env = _node_history(D, C, chunk_bytes, screen)  # squared
    # nodal-averaged von Mises: the averaged basis once, then one product per node block (module averaging)
    TA = von_mises_coordinates(averaged_stress_basis(S, part.cells, n_nodes))  # (n_b, 5, n_nodes)
    avg, avg_env = _node_history(TA, C, chunk_bytes, screen)  # squared

    vm_hist = np.sqrt(vm.value)
    def_hist = np.sqrt(dmax.value)
    avg_hist = np.sqrt(avg.value)
    i_max = int(np.argmax(vm_hist))
    node_max = int(cells_T.ravel()[vm.index[i_max]])
    i_def = int(np.argmax(def_hist))
    i_avg = int(np.argmax(avg_hist))
    avg_at_max = float(np.linalg.norm(C[i_max] @ TA[:, :, node_max]))
    return LinkResponse(
        max_von_mises=float(vm_hist[i_max]), i_time_max=i_max, node_max=node_max, vm_history=vm_hist,
        vm_envelope_nodes=np.sqrt(reduce_max(vm_env.ravel())), deformation_history=def_hist,
        deformation_envelope=np.sqrt(def_env), max_deformation=float(def_hist[i_def]), i_time_max_deformation=i_def,
        principal_history=p1.value if brittle else None,
        principal_envelope=reduce_max(p1_env.ravel()) if brittle else None, modal_coeff=modal,
        max_von_mises_averaged=float(avg_hist[i_avg]), i_time_max_averaged=i_avg,
        node_max_averaged=int(avg.index[i_avg]), vm_averaged_history=avg_hist,
        vm_averaged_envelope_nodes=np.sqrt(avg_env), von_mises_averaged_at_max=avg_at_max)


def frame_fields(part, basis: LinkBasis, coeff_frames: np.ndarray, modal_frames: np.ndarray,
                 brittle: bool = False, chunk_bytes: float = 8e6) -> dict[str, np.ndarray]:
    """Point fields at the output frames: displacement (n_f, n_nodes, 3) in link axes, von_mises and max
    principal (n_f, n_nodes) as the max over the elements sharing each node of the unaveraged values."""
    C = np.ascontiguousarray(np.hstack([coeff_frames, modal_frames]), dtype=float)
    n_f, n_nodes = len(C), len(part.node_dofs)
    _check_nodes_used(part.cells, n_nodes)
    cells_T = part.cells.T
    frame_offset = (np.arange(n_f) * n_nodes)[:, None, None]
    vm2 = np.full((n_f, n_nodes), -np.inf)
    p1 = np.full((n_f, n_nodes), -np.inf) if brittle else None
    with single_thread_blas():
        for ea, eb, ta, tb, v, s1 in _element_stress_blocks(basis.S, C, chunk_bytes, brittle):
            at = (frame_offset[ta:tb] + cells_T[:, ea:eb]).ravel()  # (frame, node) of every value of the block
            np.maximum.at(vm2.reshape(-1), at, v.ravel())
            if brittle:
                np.maximum.at(p1.reshape(-1), at, s1.ravel())
    D = np.hstack([basis.U, basis.phi])[part.node_dofs.ravel()]
    out = {"displacement": (C @ D.T).reshape(n_f, -1, 3), "von_mises": np.sqrt(vm2)}
    if brittle:
        out["max_principal"] = p1
    return out


def load_resultants(part, F: np.ndarray) -> np.ndarray:
    """Resultant force [N] and moment [N m] about the link-frame origin of each unit load F (n_dof, k): (6, k)."""
    return resultant(part, F)
