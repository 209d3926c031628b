"""Each node's counted scalar histories over the candidate planes (critical plane) or its signed von Mises stress,
their extremes formed once per node (:class:`_Extremes`), and the refinement of the planes around the grid's best
(:class:`_Refinement`, :mod:`.refine`)."""
from __future__ import annotations

import numpy as np

from ..fe.stress import von_mises
from .criteria import normal_stress_weights, plane_normals, signed_von_mises
from .meanstress import as_correction, equivalent_amplitude
from .refine import loss_bound, plane_histories, refine_normals, refinement_radii
from .screening import cap_scale, onset_scale
from .sn import SNCurve

_BLOCK = 131_072  # floats of one block of time samples of a history (1 MB, half an L2 cache), reduced in cache


def _histories(s, weights) -> np.ndarray:
    """Counted scalar histories (n_t, k, n_planes) [Pa] of stresses ``s`` (n_t, k, 6): the normal stress on
    each plane of ``weights`` (n_planes, 6), or the signed von Mises stress (n_planes = 1) for None."""
    return signed_von_mises(s)[..., None] if weights is None else s @ weights.T


def _extremes(s, weights) -> tuple[np.ndarray, np.ndarray]:
    """Largest and smallest value over time (k, n_planes) [Pa] of :func:`_histories` of ``s`` (n_t, k, 6),
    formed a block of time samples at a time so that each block is reduced while in cache (forming the whole
    history and reducing it costs twice as long). Bit for bit those of the whole history: numpy multiplies a
    stack as one (k, 6) @ (6, n_planes) product per time sample, the signed von Mises stress is computed
    sample by sample, and max / min are exact."""
    n_t, k = s.shape[:2]
    step = max(1, _BLOCK // (k * (1 if weights is None else len(weights))))
    h = _histories(s[:step], weights)
    hi, lo = h.max(0), h.min(0)
    for a in range(step, n_t, step):
        h = _histories(s[a:a + step], weights)
        np.maximum(hi, h.max(0), out=hi)
        np.minimum(lo, h.min(0), out=lo)
    return hi, lo


class _Extremes:
    """Largest and smallest value over time (n_nodes, n_planes) [Pa] of each node's counted histories, formed
    once per node: the safety-factor cap's pass and the counting pass (and a widened count) need them for the
    same nodes, and forming the histories is most of each pass's cost. A node's values are those of
    :func:`_extremes` of the chunk it was first requested in, and every pass then sees those very bits (BLAS
    may round a node's products in the last bit differently within another chunk's product).

    With ``refine`` (a :class:`_Refinement`), each node also has ``n_crit`` refined planes (:mod:`.refine`) after
    the grid's, computed once, when a pass first asks for the node at a scale ``reach`` that some plane off the
    grid may reach (:meth:`_Refinement.gate`); until then (and where no refined plane beats the grid) their
    extremes are 0, which no screening counts."""

    def __init__(self, S, weights, refine: "_Refinement | None" = None):
        n_planes = 1 if weights is None else len(weights)
        self.S, self.weights, self.refine = S, weights, refine
        self.hi = np.empty((S.shape[1], n_planes))
        self.lo = np.empty((S.shape[1], n_planes))
        self.known = np.zeros(S.shape[1], bool)
        n_ref = 0 if refine is None else refine.n_crit
        self.ref_normals = np.zeros((S.shape[1], n_ref, 3))
        self.ref_hi, self.ref_lo = np.zeros((S.shape[1], n_ref)), np.zeros((S.shape[1], n_ref))
        self.ref_known = np.zeros(S.shape[1], bool)
        self.gate = np.full(S.shape[1], np.nan)  # _Refinement.gate of each node, once known

    def __call__(self, idx: np.ndarray, reach: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(hi, lo), each (len(idx), n_planes), of the nodes ``idx``; with ``reach`` (and a refinement), each
        (len(idx), n_planes + n_crit): the refined planes appended, refined for the nodes that may need them."""
        miss = idx[~self.known[idx]]
        if miss.size:
            self.hi[miss], self.lo[miss] = _extremes(self.S[:, miss], self.weights)
            self.known[miss] = True
        if reach is None or self.refine is None:
            return self.hi[idx], self.lo[idx]
        self.refine_nodes(idx, reach)
        return (np.concatenate([self.hi[idx], self.ref_hi[idx]], 1),
                np.concatenate([self.lo[idx], self.ref_lo[idx]], 1))

    def refine_nodes(self, idx: np.ndarray, reach: float, step: int | None = None):
        """Refine, all at once, the nodes of ``idx`` not yet refined that some plane off the grid may take to
        ``reach`` (:meth:`_Refinement.gate`); with ``step``, their grid extremes first, ``step`` nodes at a time
        (the chunks of :func:`_count`, so that every pass sees the same bits)."""
        if step is not None:
            for a in range(0, len(idx), step):
                self(idx[a:a + step])
        if self.refine is None:
            return
        new = idx[np.isnan(self.gate[idx])]
        if new.size:
            self.gate[new] = self.refine.gate(self.S[:, new], self.hi[new], self.lo[new])
        miss = idx[~self.ref_known[idx] & (self.gate[idx] <= reach)]
        if miss.size:
            n, h, l = self.refine(self.S[:, miss], self.hi[miss], self.lo[miss], self.gate[miss])
            self.ref_normals[miss], self.ref_hi[miss], self.ref_lo[miss] = n, h, l
            self.ref_known[miss] = True

    def histories(self, idx: np.ndarray, kk: np.ndarray, qq: np.ndarray) -> np.ndarray:
        """Counted histories (n_t, len(kk)) [Pa] of the pairs (node idx[kk], plane qq) (planes of :meth:`__call__`
        with a ``reach``: grid, then refined)."""
        if not kk.size:
            return np.zeros((self.S.shape[0], 0))
        G = self.hi.shape[1]
        ref = qq >= G
        if not ref.any():
            return _histories(self.S[:, idx], self.weights)[:, kk, qq]
        h = np.empty((self.S.shape[0], len(kk)))
        if not ref.all():
            h[:, ~ref] = _histories(self.S[:, idx], self.weights)[:, kk[~ref], qq[~ref]]
        node = idx[kk[ref]]
        h[:, ref] = plane_histories(self.S, node, self.ref_normals[node, qq[ref] - G])
        return h

    def normal(self, node: int, plane: int) -> np.ndarray:
        """Unit normal (3,) of plane ``plane`` (a grid index, or grid size + j for refined plane j) of ``node``."""
        G = len(self.refine.grid)
        return self.refine.grid[plane] if plane < G else self.ref_normals[node, plane - G]


class _Refinement:
    """The critical plane's refinement (:mod:`.refine`) for one S-N curve and mean-stress correction: the grid,
    the refinement radii and the criteria maximized (the largest cycle's equivalent amplitude at scale 1 and, where
    it ranks planes differently - Goodman, Gerber - with a design life, the inverse of its :func:`cap_scale`)."""

    def __init__(self, grid, step_deg, curve: SNCurve, mean_stress, design_life: float | None):
        self.grid, self.curve, self.design_life = grid, curve, design_life
        self.mean_stress = as_correction(mean_stress)
        self.radii = refinement_radii(step_deg)
        self.two = design_life is not None and curve.quantity != "range" and self.mean_stress.ranks_by_cap
        self.n_crit = 2 if self.two else 1

    def scores(self, hi, lo) -> np.ndarray:
        """Criteria (..., n_crit) of planes with normal-stress extremes ``hi``, ``lo`` (...) [Pa]; larger is worse."""
        R, mid = hi - lo, 0.5 * (hi + lo)
        c = self.curve
        if c.quantity == "range":
            return R[..., None]
        if not self.mean_stress.corrects or c.ultimate_strength is None:
            return 0.5 * R[..., None]
        e = equivalent_amplitude(0.5 * R, mid, c.ultimate_strength, self.mean_stress)
        if not self.two:
            return e[..., None]
        with np.errstate(divide="ignore"):
            f = 1.0 / cap_scale(R, hi, mid, c, self.mean_stress, self.design_life)
        return np.stack([e, f], -1)

    def gate(self, s, hi, lo) -> np.ndarray:
        """Lower bound (k,) of :func:`onset_scale` over every plane off the grid of nodes with stress histories
        ``s`` (n_t, k, 6) and grid extremes ``hi``, ``lo`` (k, G) [Pa]: the range is below max R / (1 - loss_0)
        (:mod:`.refine`), and within rho_0 of a grid plane the largest and smallest normal stress move by at
        most (l1 - l3) sin(rho_0) <= sqrt(2) |dev S|_F sin(rho_0) (the normal stress's slope in the angle is
        at most l1 - l3)."""
        if not len(hi):
            return np.zeros(0)
        widen = 2.0 / np.sqrt(3.0) * von_mises(s).max(0) * np.sin(self.radii[0])  # sqrt(2) sqrt(2/3) vM
        R = (hi - lo).max(1) / (1.0 - loss_bound(self.radii[0]))
        return onset_scale(R, hi.max(1) + widen, (0.5 * (hi + lo)).max(1) + widen, self.curve, self.mean_stress)

    def __call__(self, s, hi, lo, gate=None):
        """Refined normals (k, n_crit, 3) and their extremes (k, n_crit) of nodes (:func:`.refine.refine_normals`);
        0 extremes where the grid is not beaten. ``gate``: the nodes' :meth:`gate` if known."""
        active = None
        if self.two:  # the damage's criterion only where a plane may be damaged at scale 1
            gate = self.gate(s, hi, lo) if gate is None else gate
            active = np.column_stack([gate <= 1.0, np.ones(len(hi), bool)])
        n = refine_normals(s, self.grid, hi, lo, self.scores, self.radii, active=active)
        k = len(n)
        h = plane_histories(s, np.repeat(np.arange(k), self.n_crit), n.reshape(-1, 3)).reshape(-1, k, self.n_crit)
        h, l = h.max(0), h.min(0)  # the very values of the counted histories (_Extremes.histories)
        c = np.arange(self.n_crit)
        better = self.scores(h, l)[:, c, c] > self.scores(hi, lo).max(1)
        return np.where(better[..., None], n, 0.0), np.where(better, h, 0.0), np.where(better, l, 0.0)


def critical_plane_normals(s, curve: SNCurve, mean_stress: str, design_life: float | None = None,
                           step_deg: float = 10.0) -> np.ndarray:
    """The planes :func:`fatigue_life` counts for one node of stress history ``s`` (n_t, 6) [Pa]: the unit normals
    (m, 3) of the grid (:func:`.criteria.plane_normals`) then its refined planes that beat the grid
    (:mod:`.refine`)."""
    grid = plane_normals(step_deg)
    s = np.asarray(s, float)[:, None]
    hi, lo = _extremes(s, normal_stress_weights(grid))
    n, h, l = _Refinement(grid, step_deg, curve, mean_stress, design_life)(s, hi, lo)
    return np.concatenate([grid, n[0][h[0] - l[0] > 0]])
