"""Transient stress analysis of one link under a load history given as unit loads times time coefficients.

The load vector at time t is ``F @ coeff[t]`` (F: (n_dof, k) unit loads, coeff: (n_t, k)). One factorization
of the supported stiffness gives the unit-load solutions and the lowest modes; the mode-acceleration method
adds the elastic-inertia correction ``phi @ modal[t]``. Every response is then a product of a fixed basis with
the coefficient history, so the stress history of every element node costs one matrix product per block.

The stress basis holds the 4 vertex stresses of each element (strain is linear in a straight-sided P2 tet, so
an edge's mid node has the mean of its vertices' stresses, and the von Mises and maximum principal stresses,
being convex, peak over an element at a vertex). Von Mises is evaluated as a Euclidean norm, vm^2 = |T s|^2
with T (5, 6) below, so a block of histories is one matrix product followed by a sum of squares; maxima are
taken on squares and rooted once. Blocks of elements (and, for long histories, of time) bound the memory and
keep the working arrays in cache.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .solvers import factorize


@dataclass(frozen=True)
class LinkBasis:
    """Unit-load and modal solutions of one supported link.

    ``U`` (n_dof, k) static solutions of the unit loads, ``phi`` (n_dof, m) mass-normalized modes,
    ``omega`` (m,) rad/s, ``S`` (k + m, 6, 4, n_elem) unaveraged stresses [xx, yy, zz, yz, xz, xy] at the
    4 vertices of every element for every basis column [Pa per unit coefficient] (``Part.vertex_stress``; the
    mid nodes' values are the means of their edge's vertices), ``F`` (n_dof, k) the unit loads.
    """

    F: np.ndarray
    U: np.ndarray
    phi: np.ndarray
    omega: np.ndarray
    S: np.ndarray


@dataclass(frozen=True)
class LinkResponse:
    """Peaks and fields of a link over the fine time grid (all stresses in Pa, lengths in m, link axes).

    ``vm_history`` (n_t,) is the link's maximum von Mises at each time; ``vm_envelope_nodes`` (n_nodes,) the
    max over time at each node (max over the elements sharing it of the unaveraged values);
    ``deformation_envelope`` (n_nodes,) the max over time of |u|; ``principal_envelope`` (n_nodes,) the max over
    time of the max principal stress (brittle materials only, else None).
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


def build_basis(part, F: np.ndarray, fixed: list[str], n_modes: int, progress=None,
                timings: dict | None = None) -> LinkBasis:
    """Solve every unit load and the lowest ``n_modes`` modes of ``part`` clamped on the ``fixed`` surfaces.

    ``timings``, if given, receives the wall time [s] of each phase (assembly of K and M, factorization,
    unit_solves, modes, stress_basis)."""
    from .transient import modes as compute_modes

    clock = _Clock(timings)
    free = part.free_dofs(fixed)
    K_full = part.stiffness
    clock("assembly_K")
    K = _submatrix(K_full, free)
    fact = factorize(K)
    clock("factorization")
    U = np.zeros_like(F)
    U[free] = fact.solve(F[free])
    clock("unit_solves")
    phi = np.zeros((F.shape[0], 0))
    omega = np.zeros(0)
    if n_modes > 0:
        M_full = part.mass_matrix
        clock("assembly_M")
        M = _submatrix(M_full, free)
        m = compute_modes(K, M, n_modes, factorization=fact)
        phi = np.zeros((F.shape[0], len(m.omega)))
        phi[free] = m.phi
        omega = m.omega
        clock("modes")
    del fact  # release the factor (GBs on large meshes) before the stress basis is formed
    S = part.vertex_stress(np.hstack([U, phi]))  # (k+m, 6, 4, n_elem)
    clock("stress_basis")
    return LinkBasis(F=F, U=U, phi=phi, omega=omega, S=S)


def _submatrix(A, idx: np.ndarray):
    """A[idx][:, idx] (CSR) for sorted unique indices ``idx``, in one vectorized pass over the nonzeros (scipy's
    two fancy-indexing steps take seconds on a 300k-dof stiffness matrix)."""
    import scipy.sparse as sp

    A = sp.csr_matrix(A)
    idx = np.asarray(idx, dtype=np.int64)
    new = np.full(A.shape[0], -1, dtype=np.int64)
    new[idx] = np.arange(len(idx))
    starts, counts = A.indptr[idx], np.diff(A.indptr)[idx]
    offsets = np.r_[0, np.cumsum(counts)]
    take = np.repeat(starts - offsets[:-1], counts) + np.arange(offsets[-1])
    cols = new[A.indices[take]]
    keep = cols >= 0
    rows = np.repeat(np.arange(len(idx)), counts)[keep]
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=len(idx)))]
    return sp.csr_matrix((A.data[take][keep], cols[keep], indptr), shape=(len(idx), len(idx)))


class _Clock:
    """Records the wall time since the previous call under a name (no-op without a dict)."""

    def __init__(self, timings: dict | None):
        import time

        self.timings, self._now = timings, time.perf_counter
        self.t = self._now()

    def __call__(self, name: str) -> None:
        t = self._now()
        if self.timings is not None:
            self.timings[name] = self.timings.get(name, 0.0) + t - self.t
        self.t = t


def modal_coefficients(basis: LinkBasis, t: np.ndarray, coeff: np.ndarray, damping_ratio: float,
                       from_equilibrium: bool = False) -> np.ndarray:
    """Mode-acceleration corrections (n_t, m): u(t) = U @ coeff[t] + phi @ result[t].

    By default the link starts at rest and undeformed, so loads present at t[0] (gravity) act as a suddenly
    applied step. ``from_equilibrium`` starts it instead in its quasi-static state, deflected by the loads at
    t[0] and moving with their initial rate (eta = q / w^2, eta' = q' / w^2): a link at rest under gravity
    before the motion starts."""
    q, eta, _ = _modal_states(basis, t, coeff, damping_ratio, from_equilibrium)
    return eta - q / basis.omega ** 2


def _modal_states(basis: LinkBasis, t, coeff, damping_ratio, from_equilibrium):
    """Modal loads q, coordinates eta and rates eta' (each (n_t, m)) of the load history (exact for loads
    linear between the samples)."""
    from .transient import modal_response

    m = basis.phi.shape[1]
    if m == 0:
        z = np.zeros((len(t), 0))
        return z, z, z
    w2 = basis.omega ** 2
    q = coeff @ (basis.phi.T @ basis.F).T  # modal loads (n_t, m)
    eta0 = etad0 = None
    if from_equilibrium:
        eta0 = q[0] / w2
        etad0 = (q[1] - q[0]) / (t[1] - t[0]) / w2 if len(t) > 1 else np.zeros_like(eta0)
    eta, etad = modal_response(t, q, basis.omega, np.full(m, damping_ratio), eta0, etad0)
    return q, eta, etad


def ringing_samples(basis: LinkBasis, t: np.ndarray, coeff: np.ndarray, damping_ratio: float,
                    from_equilibrium: bool = True, tol: float = 1e-3) -> np.ndarray:
    """Sample times [s] to add to ``t`` so that maxima read at the samples follow the link's elastic ringing.

    The mode-acceleration response between two samples is exact, but maxima are read at the samples. After a
    fast load change (a STEP's acceleration jump, a 10 ms force ramp) a mode k rings freely with amplitude a_k,
    measured in the energy norm relative to the link's largest quasi-static response (w_k sqrt(d^2 + (d'/w_k)^2)
    / max_t sqrt(c^T U^T F c), with d = eta - q/w^2 the mode's dynamic part, d' its rate). Sampling it n times per
    period reads its peak low by at most a_k (1 - cos(pi / n)) ~ a_k pi^2 / (2 n^2): n is chosen to keep that
    below ``tol`` (and n >= 4), for as long as a_k exp(-zeta w_k s) stays above ``tol``. Returns the new
    samples (sorted, excluding those already in t)."""
    n_t = len(t)
    if basis.phi.shape[1] == 0 or n_t < 2:
        return np.zeros(0)
    w = basis.omega
    q, eta, etad = _modal_states(basis, t, coeff, damping_ratio, from_equilibrium)
    dt = np.diff(t)
    slope = np.diff(q, axis=0) / dt[:, None]  # q' on each step
    d = eta[:-1] - q[:-1] / w ** 2
    dd = etad[:-1] - slope / w ** 2
    G = basis.U.T @ basis.F  # c^T G c = twice the strain energy of the static response
    static = np.sqrt(np.max(np.maximum(np.einsum("ti,ij,tj->t", coeff, G, coeff), 0.0)))
    if not static > 0:
        return np.zeros(0)
    amp = w * np.sqrt(d * d + (dd / w) ** 2) / static  # (n_t - 1, m)
    steps, modes = np.nonzero(amp > tol)
    if len(steps) == 0:
        return np.zeros(0)
    a, wk = amp[steps, modes], w[modes]
    n_per_period = np.maximum(4, np.ceil(np.pi * np.sqrt(a / (2 * tol))))
    h = 2 * np.pi / wk / n_per_period  # sample spacing each ringing mode needs
    with np.errstate(divide="ignore"):
        ring = np.log(a / tol) / (damping_ratio * wk) if damping_ratio > 0 else np.full(len(a), np.inf)
    # per step: the finest spacing over the time the slowest-decaying mode rings
    h_step = np.full(n_t - 1, np.inf)
    np.minimum.at(h_step, steps, h)
    span = np.zeros(n_t - 1)
    np.maximum.at(span, steps, np.minimum(ring, dt[steps]))
    idx = np.nonzero(np.isfinite(h_step))[0]
    counts = np.ceil(span[idx] / h_step[idx]).astype(np.int64)
    k = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    new = np.repeat(t[idx], counts) + k * np.repeat(h_step[idx], counts)
    new = new[new < np.repeat(t[idx + 1], counts) - 1e-12]
    return np.setdiff1d(new, t)


# vm^2 = 1/2 ((xx-yy)^2 + (yy-zz)^2 + (zz-xx)^2) + 3 (yz^2 + xz^2 + xy^2) = |T s|^2 for s = [xx, yy, zz, yz, xz, xy]
_R3 = np.sqrt(3.0)
_VM = np.array([[_R3 / 2, -_R3 / 2, 0, 0, 0, 0], [0.5, 0.5, -1.0, 0, 0, 0], [0, 0, 0, _R3, 0, 0],
                [0, 0, 0, 0, _R3, 0], [0, 0, 0, 0, 0, _R3]])


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


def _element_node_operator(S: np.ndarray, a: int, n_blocks: int, ne: int, von_mises: bool) -> np.ndarray:
    """Stress operators (n_blocks, n_b, c, 10, ne) at the 10 element nodes of ``n_blocks`` consecutive blocks of
    ``ne`` elements from element a, from the vertex basis S (n_b, 6, 4, n_elem): its 6 components, or the
    5 von Mises coordinates _VM @ s. Each block's operator is contiguous, for one matrix product."""
    from .part import _p2_edges

    n_b, b = S.shape[0], a + n_blocks * ne
    out = np.empty((n_b, 5 if von_mises else 6, 10, b - a))
    if not von_mises:
        out[:, :, :4] = S[:, :, :, a:b]
    else:  # _VM's few nonzeros one by one (an einsum is slower on these blocks)
        for c, row in enumerate(_VM):
            j0, *rest = np.flatnonzero(row)
            np.multiply(S[:, j0, :, a:b], row[j0], out=out[:, c, :4])
            for j in rest:
                out[:, c, :4] += row[j] * S[:, j, :, a:b]
    for m, (i, j) in enumerate(_p2_edges()):
        np.add(out[:, :, i], out[:, :, j], out=out[:, :, 4 + m])
    out[:, :, 4:] *= 0.5
    if n_blocks == 1:
        return out[None]
    return np.ascontiguousarray(out.reshape(out.shape[:3] + (n_blocks, ne)).transpose(3, 0, 1, 2, 4))


def _max_principal(s: np.ndarray) -> np.ndarray:
    """Largest principal stress of s (6, ...) = [xx, yy, zz, yz, xz, xy], closed form (trigonometric solution
    of the characteristic cubic; relative error ~1e-8 of the stress magnitude at worst, where the two largest
    principal stresses coincide)."""
    xx, yy, zz, yz, xz, xy = s
    m = (xx + yy + zz) / 3
    a, b, c = xx - m, yy - m, zz - m
    off = yz * yz + xz * xz + xy * xy
    p = np.sqrt((a * a + b * b + c * c + 2 * off) / 6)
    det = a * b * c + 2 * xy * yz * xz - a * yz * yz - b * xz * xz - c * xy * xy
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip(det / (2 * p ** 3), -1.0, 1.0)
    r = np.where(p > 0, r, 1.0)
    return m + 2 * p * np.cos(np.arccos(r) / 3)


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


class _RunningMax:
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


def _squared_norms(R: np.ndarray, out=None) -> np.ndarray:
    """sum over axis 1 of R**2 for R (t, c, n): one fused pass (into ``out`` (t, n) if given)."""
    return np.einsum("tcn,tcn->tn", R, R, out=out)


class _Scratch:
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


def _element_stress_blocks(S, C, budget, brittle):
    """Yield (ea, eb, ta, tb, vm2, p1) over blocks of elements ea..eb-1 and times ta..tb-1: vm2 (chunk, 10, ne)
    squared von Mises at the element nodes, p1 (chunk, 10, ne) max principal stress (None unless brittle).
    The yielded arrays are overwritten by the next block: use them before advancing."""
    t_chunks, groups = _blocks(len(C), S.shape[3], 10 * (5 + (12 if brittle else 0)), budget)
    scratch = _Scratch()
    for ga, n_blocks, ne in groups:
        OP = _element_node_operator(S, ga, n_blocks, ne, von_mises=True)  # (n_blocks, n_b, 5, 10, ne)
        OP6 = _element_node_operator(S, ga, n_blocks, ne, von_mises=False) if brittle else None
        for k in range(n_blocks):
            ea = ga + k * ne
            op = OP[k].reshape(OP.shape[1], -1)
            for ta, tb in t_chunks:
                R = np.matmul(C[ta:tb], op, out=scratch.get("R", (tb - ta, op.shape[1])))
                vm2 = _squared_norms(R.reshape(tb - ta, 5, 10 * ne), out=scratch.get("vm2", (tb - ta, 10 * ne)))
                p1 = None
                if brittle:
                    s6 = (C[ta:tb] @ OP6[k].reshape(OP6.shape[1], -1)).reshape(tb - ta, 6, 10, ne)
                    p1 = _max_principal(s6.transpose(1, 0, 2, 3))
                yield ea, ea + ne, ta, tb, vm2.reshape(tb - ta, 10, ne), p1


def _node_displacement_blocks(D, C, budget):
    """Yield (na, nb, ta, tb, u2) with u2 (chunk, nb - na) squared |u| at nodes na..nb-1 for D (n_b, 3, n).
    The yielded array is overwritten by the next block."""
    n_b = D.shape[0]
    t_chunks, groups = _blocks(len(C), D.shape[2], 3, budget)
    scratch = _Scratch()
    for ga, n_blocks, nn in groups:
        for na in range(ga, ga + n_blocks * nn, nn):
            op = np.ascontiguousarray(D[:, :, na:na + nn]).reshape(n_b, -1)
            for ta, tb in t_chunks:
                R = np.matmul(C[ta:tb], op, out=scratch.get("R", (tb - ta, op.shape[1])))
                yield na, na + nn, ta, tb, _squared_norms(R.reshape(tb - ta, 3, nn),
                                                          out=scratch.get("u2", (tb - ta, nn)))


def respond(part, basis: LinkBasis, coeff: np.ndarray, modal: np.ndarray, *, brittle: bool = False,
            chunk_bytes: float = 8e6) -> LinkResponse:
    """Stress and deformation history on the fine grid, reduced to peaks and envelopes.

    ``coeff`` (n_t, k), ``modal`` (n_t, m). Blocks of elements (and of time when the history is long) keep each
    product's result near ``chunk_bytes`` (cache-sized); the result does not depend on it.
    """
    C = np.ascontiguousarray(np.hstack([coeff, modal]), dtype=float)  # (n_t, n_b)
    n_t = len(C)
    S = basis.S
    n_e = S.shape[3]
    cells_T = part.cells.T  # element node (p, e) -> node; point index p * n_e + e
    n_nodes = len(part.node_dofs)
    reduce_max = _node_reducer(cells_T, n_nodes)

    vm = _RunningMax(n_t)
    vm_env = np.zeros((10, n_e))  # squared
    p1 = _RunningMax(n_t) if brittle else None
    p1_env = np.full((10, n_e), -np.inf) if brittle else None
    for ea, eb, ta, tb, vm2, s1 in _element_stress_blocks(S, C, chunk_bytes, brittle):
        ne = eb - ea

        def point(j, ea=ea, ne=ne):  # local column j of a (10, ne) block -> point index
            return (j // ne) * n_e + ea + j % ne

        vm.update(ta, vm2.reshape(tb - ta, -1), point)
        np.maximum(vm_env[:, ea:eb], vm2.max(axis=0), out=vm_env[:, ea:eb])
        if brittle:
            p1.update(ta, s1.reshape(tb - ta, -1), point)
            np.maximum(p1_env[:, ea:eb], s1.max(axis=0), out=p1_env[:, ea:eb])

    D = np.hstack([basis.U, basis.phi])[part.node_dofs]  # (n_nodes, 3, n_b)
    D = np.ascontiguousarray(D.transpose(2, 1, 0))  # (n_b, 3, n_nodes)
    dmax = _RunningMax(n_t)
    def_env = np.zeros(n_nodes)  # squared
    for na, nb, ta, tb, u2 in _node_displacement_blocks(D, C, chunk_bytes):
        dmax.update(ta, u2, lambda j, na=na: na + j)
        np.maximum(def_env[na:nb], u2.max(axis=0), out=def_env[na:nb])

    vm_hist = np.sqrt(vm.value)
    def_hist = np.sqrt(dmax.value)
    i_max = int(np.argmax(vm_hist))
    node_max = int(cells_T.ravel()[vm.index[i_max]])
    i_def = int(np.argmax(def_hist))
    return LinkResponse(
        max_von_mises=float(vm_hist[i_max]), i_time_max=i_max, node_max=node_max, vm_history=vm_hist,
        vm_envelope_nodes=np.sqrt(reduce_max(vm_env.ravel())), deformation_history=def_hist,
        deformation_envelope=np.sqrt(def_env), max_deformation=float(def_hist[i_def]), i_time_max_deformation=i_def,
        principal_history=p1.value if brittle else None,
        principal_envelope=reduce_max(p1_env.ravel()) if brittle else None, modal_coeff=modal)


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
    """Resultant force and moment about the link-frame origin of each unit load: (6, k)."""
    nd = part.node_dofs
    x = part.points
    f = F[nd]  # (n_nodes, 3, k)
    force = f.sum(axis=0)
    moment = np.einsum("ijk,nj,nkc->ic", _levi_civita(), x, f)
    return np.vstack([force, moment])


def _levi_civita() -> np.ndarray:
    e = np.zeros((3, 3, 3))
    e[0, 1, 2] = e[1, 2, 0] = e[2, 0, 1] = 1.0
    e[0, 2, 1] = e[2, 1, 0] = e[1, 0, 2] = -1.0
    return e


def rigid_fit_operator(part, surface: str, point: np.ndarray) -> np.ndarray:
    """Operator P (6, n_dof): [d; theta] = P @ u is the least-squares rigid motion of the surface's nodes
    (translation d of ``point`` and small rotation theta, link axes)."""
    nodes = part.surface_nodes(surface)
    r = part.points[nodes] - point
    n = len(nodes)
    A = np.zeros((3 * n, 6))
    A[:, :3] = np.tile(np.eye(3), (n, 1))
    # u = d + theta x r  ->  u = d - [r]x theta
    skew = np.zeros((n, 3, 3))
    skew[:, 0, 1], skew[:, 0, 2] = -r[:, 2], r[:, 1]
    skew[:, 1, 0], skew[:, 1, 2] = r[:, 2], -r[:, 0]
    skew[:, 2, 0], skew[:, 2, 1] = -r[:, 1], r[:, 0]
    A[:, 3:] = -skew.reshape(3 * n, 3)
    pinv = np.linalg.pinv(A)  # (6, 3n)
    P = np.zeros((6, part.n_dofs))
    P[:, part.node_dofs[nodes].ravel()] = pinv
    return P
