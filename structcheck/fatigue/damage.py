"""Miner's rule damage, life and fatigue safety factor of every node from one duty cycle's stress history.

Per node and candidate plane (critical-plane method) or per node (signed von Mises), the scalar history of one
duty cycle is rainflow-counted as a periodic series; each cycle (S_a, S_m) becomes an equivalent fully
reversed amplitude S_ar (mean-stress correction; the range itself for welded detail categories) and
contributes n_i / N(S_ar,i) to the damage (Palmgren-Miner). The node's damage per duty cycle is the largest
over its planes - the grid's and, for the nodes some plane off the grid may damage (a bound on every such
plane's onset, :class:`_Refinement`), the refined planes of :mod:`.refine`; its life is 1 / D duty cycles.

Screening (:mod:`.screening`): only (node, plane) pairs that some scale of interest can damage are counted;
nodes are first screened with R = 2 P, M = mid = P, P the largest Frobenius norm of the stress tensor over time
(>= |n . S . n| on every plane, >= |signed von Mises|; for the critical plane, tighter: R = 2 Q, M = mid = |S0| + Q
with S0 the componentwise midrange tensor and Q = max_t |S(t) - S0|). With a design life, the scale of interest
is the cap of :func:`.screening.cap_scale`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .counting import Cycles, rainflow_cycles
from .criteria import normal_stress_weights, plane_normals, signed_von_mises, stress_norm
from .meanstress import MEAN_STRESS_METHODS, as_correction, beyond_ultimate, default_correction, equivalent_amplitude
from .planes import _Extremes, _Refinement
from .screening import cap_scale, onset_scale
from .sn import SNCurve, get_sn_curve

METHODS = ("critical_plane", "signed_von_mises")
_CHUNK = 4_000_000  # floats of normal-stress history held at once (32 MB)


def miner_damage(cycles: Cycles, curve: SNCurve, mean_stress: str = "goodman") -> float:
    """Palmgren-Miner damage sum_i n_i / N_i [-] of counted ``cycles`` [Pa] on ``curve``, with the mean-stress
    correction ``mean_stress`` (use ``"none"`` for a detail category's ranges). With the cycles of
    :func:`.counting.rainflow_cycles` (periodic by default) of a uniaxial history, the damage per duty cycle that
    :func:`fatigue_life` gives it."""
    return float(np.sum(_cycle_damage(cycles.range, cycles.mean, cycles.count, curve, mean_stress)))


def _cycle_damage(rng, mean, count, curve: SNCurve, mean_stress) -> np.ndarray:
    if curve.quantity == "range":
        S = rng
    elif not as_correction(mean_stress).corrects or curve.ultimate_strength is None:
        S = 0.5 * rng
    else:
        S = equivalent_amplitude(0.5 * rng, mean, curve.ultimate_strength, mean_stress)
    N = curve.life(S)
    if curve.ultimate_strength is not None:
        N = np.where(beyond_ultimate(mean, curve.ultimate_strength), 0.0, N)
    with np.errstate(divide="ignore"):
        return count / N


def life_from_damage(damage) -> np.ndarray:
    """Life [duty cycles] = 1 / damage per duty cycle; inf where the damage is 0."""
    d = np.asarray(damage, float)
    with np.errstate(divide="ignore"):
        return np.where(d > 0, 1.0 / d, np.inf)


@dataclass(frozen=True)
class FatigueResult:
    """Fatigue of every node over one duty cycle (the stress history), repeated.

    ``damage_per_cycle`` (n_nodes,) [-]: Miner damage of one duty cycle (max over planes);
    ``life_cycles`` (n_nodes,): duty cycles to failure (inf: no damaging cycle);
    ``governing_node``: the node of largest damage (of largest stress norm when nothing is damaged);
    ``governing_normal`` (3,): its critical plane's unit normal (None for signed von Mises or no damage);
    ``governing_cycles``: that node's (and plane's) counted cycles [Pa];
    ``static_failure`` (n_nodes,): a cycle's mean stress reached the ultimate strength (life 0);
    ``screened`` (n_nodes,): nodes skipped by the screening (undamaged by construction);
    ``safety_factor``: factor on the whole stress history (amplitudes and means) that brings the shortest
    life to ``design_life_cycles`` (None without a design life), at ``safety_factor_node``."""

    damage_per_cycle: np.ndarray
    life_cycles: np.ndarray
    governing_node: int
    governing_normal: np.ndarray | None
    governing_cycles: Cycles
    static_failure: np.ndarray
    screened: np.ndarray
    curve: SNCurve
    method: str
    mean_stress: str
    safety_factor: float | None = None
    safety_factor_node: int | None = None
    design_life_cycles: float | None = None

    @property
    def min_life_cycles(self) -> float:
        return float(self.life_cycles[self.governing_node])


def _safety_factor_cap(S, weights, curve, mean_stress, design_life, node_onset, cap=np.inf,
                       extremes: _Extremes | None = None) -> float:
    """The smallest :func:`cap_scale` over every (node, plane) pair, visiting nodes in increasing onset and
    stopping where the onset passes the cap found (those nodes cannot lower it). ``extremes`` keeps the
    visited nodes' extremes for the counting pass."""
    n_t = S.shape[0]
    n_planes = 1 if weights is None else len(weights)
    extremes = extremes or _Extremes(S, weights)
    order = np.argsort(node_onset, kind="stable")
    step = max(1, _CHUNK // (n_t * n_planes))
    for start in range(0, len(order), step):
        idx = order[start:start + step]
        idx = idx[node_onset[idx] <= cap]
        if not idx.size:
            break
        hi, lo = extremes(idx)
        cap = min(cap, float(cap_scale(hi - lo, hi, 0.5 * (hi + lo), curve, mean_stress, design_life).min()))
    return cap


@dataclass(frozen=True)
class _Table:
    """Cycles of the counted (node, plane) pairs, flattened: pair_node/pair_plane (n_pairs,), and per cycle
    pair index, range, mean, count (n_cycles,)."""

    pair_node: np.ndarray
    pair_plane: np.ndarray
    pair: np.ndarray
    rng: np.ndarray
    mean: np.ndarray
    count: np.ndarray
    next_onset: float  # smallest onset scale among the pairs not counted


def _reversal_bound(h: np.ndarray) -> np.ndarray:
    """Number of peaks of each series h[:, ...] (time first) taken as periodic (increments include the one from
    the last sample back to the first; plateaus skipped), at least 1: the rainflow count of one period of a
    repeated history is one cycle per peak, so it bounds the count sum of :func:`.rainflow_cycles`."""
    s = np.sign(np.diff(h, axis=0, append=h[:1]))
    at = np.where(s != 0, np.arange(len(s)).reshape((-1,) + (1,) * (s.ndim - 1)), 0)
    np.maximum.accumulate(at, axis=0, out=at)
    s = np.take_along_axis(s, at, axis=0)  # plateaus take the last nonzero sign before them
    s = np.where(s == 0, s[-1], s)  # leading plateau: its cyclic predecessor, the last sign
    changes = np.count_nonzero(s * np.roll(s, 1, axis=0) < 0, axis=0)
    return np.maximum(1, changes // 2)


def _dominated(R, mid, n_ub, node, curve, mean_stress, onset) -> np.ndarray:
    """True for pairs (flat arrays; ``node`` the pair's node, ``n_ub`` its :func:`_reversal_bound`) that cannot
    hold their node's largest damage at scale 1: the largest cycle's damage d(R, mid) is a lower bound of a
    pair's damage, and n_ub d_G(R, mid) an upper bound (d_G with the Goodman amplitude for Gerber, which
    Goodman's bounds; every cycle's equivalent amplitude is at most the largest cycle's, module docstring)."""
    ones = np.ones(R.shape)
    lower = np.where(onset <= 1.0, _cycle_damage(R, mid, ones, curve, mean_stress), 0.0)
    upper = n_ub * _cycle_damage(R, mid, ones, curve, as_correction(mean_stress).bound)
    best = np.zeros(node.max() + 1 if node.size else 0)
    np.maximum.at(best, node, lower)
    return upper < best[node]


def _count(S, weights, curve, mean_stress, scale, node_onset, prune: bool = False,
           design_life: float | None = None, extremes: _Extremes | None = None) -> _Table:
    """Rainflow-count every (node, plane) pair whose onset scale is <= ``scale`` (for the safety factor; with a
    ``design_life``, only those whose safety factor can be <= ``scale``) and, with ``prune``, the pairs with
    onset <= 1 that may hold their node's damage at scale 1 (:func:`_dominated`). ``extremes``: those of the
    nodes already visited (:class:`_Extremes`)."""
    n_t = S.shape[0]
    extremes = extremes or _Extremes(S, weights)
    n_planes = 1 if weights is None else len(weights)
    reach = max(scale, 1.0) if prune else scale
    cand = np.flatnonzero(node_onset <= reach)
    skipped = node_onset[node_onset > scale]
    next_onset = float(skipped.min()) if skipped.size else np.inf
    pn, pp, pair, rng, mean, count = [], [], [], [], [], []
    step = max(1, _CHUNK // (n_t * n_planes))
    extremes.refine_nodes(cand, reach, step)  # one call for all candidates: the refinement's steps are per call
    for start in range(0, len(cand), step):
        idx = cand[start:start + step]
        hi, lo = extremes(idx, reach)  # (k, p): the grid's planes and the refined ones
        onset = onset_scale(hi - lo, hi, 0.5 * (hi + lo), curve, mean_stress)
        later = onset[onset > scale]
        if later.size:
            next_onset = min(next_onset, float(later.min()))
        # pairs that may be counted: onset within the safety factor's scale, or within 1 for the damage
        kk, qq = np.nonzero(onset <= (max(scale, 1.0) if prune else scale))  # (node in chunk, plane)
        R, M, mid, o = (hi - lo)[kk, qq], hi[kk, qq], 0.5 * (hi + lo)[kk, qq], onset[kk, qq]
        h = extremes.histories(idx, kk, qq)  # (n_t, n_pairs): the pairs that may be counted
        n_ub = _reversal_bound(h) if kk.size else np.zeros(0, int)
        take = o <= scale
        if design_life is not None and np.isfinite(scale):
            # the pair's safety factor is at least the scale at which n_ub cycles as bad as its largest reach
            # the design life (n_ub the reversal bound; Goodman bounds Gerber): count it only if that is <= scale
            floor = cap_scale(R, M, mid, curve, as_correction(mean_stress).bound, design_life * n_ub)
            skip = take & (floor > scale)
            if skip.any():
                next_onset = min(next_onset, float(floor[skip].min()))
            take &= floor <= scale
        if prune:  # the damage at scale 1, whatever the safety factor's pruning dropped
            take |= (o <= 1.0) & ~_dominated(R, mid, n_ub, kk, curve, mean_stress, o)
        for j, k, p in zip(np.flatnonzero(take), kk[take], qq[take]):
            c = rainflow_cycles(h[:, j], periodic=True)
            pair.append(np.full(len(c), len(pn)))
            pn.append(idx[k])
            pp.append(p)
            rng.append(c.range)
            mean.append(c.mean)
            count.append(c.count)
    cat = (lambda v, t: np.concatenate(v).astype(t) if v else np.zeros(0, t))
    return _Table(np.asarray(pn, int), np.asarray(pp, int), cat(pair, int), cat(rng, float), cat(mean, float),
                  cat(count, float), next_onset)


def _pair_damage(t: _Table, curve, mean_stress, x_pair) -> np.ndarray:
    """Damage per pair at scale ``x_pair`` (n_pairs,)."""
    x = x_pair[t.pair]
    d = _cycle_damage(x * t.rng, x * t.mean, t.count, curve, mean_stress)
    return np.bincount(t.pair, weights=d, minlength=len(t.pair_node)) if d.size else np.zeros(len(t.pair_node))


def _node_damage(t: _Table, curve, mean_stress, nodes, x_nodes) -> np.ndarray:
    """Damage per duty cycle (len(nodes),) of the given nodes at their scales (max over their pairs)."""
    where = np.searchsorted(nodes, t.pair_node)
    keep = (where < len(nodes)) & (nodes[np.minimum(where, len(nodes) - 1)] == t.pair_node)
    x_pair = np.where(keep, x_nodes[np.minimum(where, len(nodes) - 1)], 0.0)
    d_pair = np.where(keep, _pair_damage(t, curve, mean_stress, x_pair), 0.0)
    out = np.zeros(len(nodes))
    np.maximum.at(out, where[keep], d_pair[keep])
    return out


def _safety_factors(t: _Table, curve, mean_stress, nodes, design_life) -> np.ndarray:
    """Largest scale x per node with life(x) >= design_life (bisection in log x, vectorized over nodes); inf
    where no scale up to 2^200 shortens the life below the design life."""
    if not len(nodes):
        return np.zeros(0)

    def ok(x):
        return _node_damage(t, curve, mean_stress, nodes, x) * design_life <= 1.0

    lo, hi = np.ones(len(nodes)), np.ones(len(nodes))
    good = ok(lo)
    for _ in range(200):  # bracket: ok(lo), not ok(hi)
        grow, shrink = good & ok(hi), ~good & ~ok(lo)
        if not (grow.any() or shrink.any()):
            break
        hi = np.where(grow, 2.0 * hi, hi)
        lo = np.where(grow, hi / 2.0, np.where(shrink, lo / 2.0, lo))
        hi = np.where(shrink, 2.0 * lo, hi)
    never = good & ok(hi)
    for _ in range(64):  # hi / lo <= 2: 64 halvings of log(hi / lo) leave ~1e-19 relative
        mid = np.sqrt(lo * hi)
        m = ok(mid)
        lo, hi = np.where(m, mid, lo), np.where(m, hi, mid)
    return np.where(never, np.inf, lo)


# ---------------------------------------------------------------------- the top-level function
def _as_history(stress_history) -> np.ndarray:
    S = np.asarray(stress_history, float)
    if S.ndim == 2:
        S = S[:, None, :]
    if S.ndim != 3 or S.shape[-1] != 6:
        raise InputError(f"stress_history must have shape (n_t, n_nodes, 6) or (n_t, 6) (Voigt xx, yy, zz, yz, "
                         f"xz, xy [Pa]), got {np.shape(stress_history)}")
    if S.shape[0] < 2 or S.shape[1] < 1:
        raise InputError(f"stress_history needs at least 2 time samples and 1 node, got shape {S.shape}")
    if not np.all(np.isfinite(S)):
        raise InputError("stress_history has NaN or infinite values")
    return S


def _checked(material, method: str, mean_stress, surface_factor: float, design_life_cycles):
    """The S-N curve (scaled by the surface factor) and the mean-stress correction's name :func:`fatigue_life`
    uses; InputError for an unknown method or correction, a correction a curve cannot take, a design life <= 0."""
    if method not in METHODS:
        raise InputError(f"unknown fatigue method {method!r}; valid ones are {METHODS}")
    curve = get_sn_curve(material).scaled(float(surface_factor))
    correction = as_correction(default_correction(curve) if mean_stress is None else mean_stress)
    if correction.corrects and curve.quantity == "range":
        raise InputError(f"{curve.name!r} is a detail category of stress ranges (residual stresses included): "
                         f"use mean_stress='none' (or leave it unset), not {correction.name!r}")
    if correction.corrects and curve.ultimate_strength is None:
        raise InputError(f"S-N curve {curve.name!r} has no ultimate_strength for the {correction.name!r} mean-stress "
                         f"correction; give it one or use mean_stress='none' (valid: {MEAN_STRESS_METHODS})")
    if design_life_cycles is not None and not design_life_cycles > 0:
        raise InputError(f"design_life_cycles must be > 0 duty cycles, got {design_life_cycles}")
    return curve, correction.name


def _node_bounds(S, curve: SNCurve, mean_stress: str, critical_plane: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per node (n_nodes,) a bound P [Pa] of every counted history's magnitude and the scale below which none of
    its histories can damage (:func:`.screening.onset_scale`; module docstring)."""
    if critical_plane:
        # every plane's normal stress stays within n.S0.n +- Q, S0 the componentwise midrange tensor and
        # Q = max_t |S(t) - S0|_F: range <= 2 Q, maximum and midrange <= |S0|_F + Q
        S0 = 0.5 * (S.max(0) + S.min(0))
        Q, P0 = stress_norm(S - S0).max(0), stress_norm(S0)
        P = P0 + Q
        return P, onset_scale(2.0 * Q, P, P, curve, mean_stress)
    P = np.abs(signed_von_mises(S)).max(0)
    return P, onset_scale(2.0 * P, P, P, curve, mean_stress)


def fatigue_life(stress_history, material, *, method: str = "critical_plane", mean_stress: str | None = None,
                 surface_factor: float = 1.0, design_life_cycles: float | None = None,
                 plane_step_deg: float = 10.0, screening: bool = True,
                 safety_factor_cap: float = np.inf, refine: bool = True) -> FatigueResult:
    """Fatigue damage and life of every node under a duty cycle repeated.

    Parameters
    ----------
    stress_history : (n_t, n_nodes, 6) or (n_t, 6) array [Pa]
        One duty cycle of stress vectors [xx, yy, zz, yz, xz, xy], time-first; the cycle repeats, so the
        history is counted as periodic (:func:`~structcheck.fatigue.counting.rainflow_cycles`, whose default
        it is; ``periodic=False`` there counts a one-off pass instead).
    material : str, Material or SNCurve
        A shipped material name, a :class:`structcheck.model.Material` (by name), a detail category
        (``"EC3-71"``) or an :class:`SNCurve`.
    method : ``"critical_plane"`` (normal stress on the planes of :func:`plane_normals`, refined around the
        worst ones, :mod:`.refine`) or ``"signed_von_mises"`` (misses non-proportional loading).
    mean_stress : ``"goodman"``, ``"gerber"``, ``"swt"``, ``"none"``; default ``"goodman"`` for base-material
        curves and ``"none"`` for detail categories (stress ranges, which take no correction).
    surface_factor : Marin factors k_a k_b ... (or Eurocode k_s) multiplying every stress of the S-N curve.
    design_life_cycles : duty cycles the part must last; gives ``safety_factor``: the factor on the whole
        history (amplitudes and means) at which the shortest life equals it. ``inf`` when no scale up to
        2^200 damages any node. Where the life jumps from below the design life to infinite at an endurance
        limit, the factor is the jump (the scale at which the first cycle reaches the limit).
    plane_step_deg : angular step of the plane grid (10 deg: 206 planes, which alone find the largest range of
        the normal stress within 2 sin^2(d / sqrt 2) = 3.0 %, for any history); the refinement then finds it within 0.1 %
        (0.04 % from the 10 deg grid) for any history, and counts the refined planes of largest equivalent
        amplitude (and, with a design life and Goodman or Gerber, of smallest :func:`cap_scale`) with the grid's.
    refine : refine the planes (default); ``False`` counts the grid's planes only.
    screening : skip (node, plane) pairs that cannot be damaged (module docstring); ``False`` counts every
        pair, for verification only.
    safety_factor_cap : a known upper bound of the safety factor of a larger set these nodes belong to (the
        smallest :func:`cap_scale` of other nodes): pairs that cannot have a smaller factor are not counted, so
        ``safety_factor`` is exact when it is <= the cap and is otherwise only known to exceed it.
    """
    S = _as_history(stress_history)
    curve, mean_stress = _checked(material, method, mean_stress, surface_factor, design_life_cycles)
    normals = plane_normals(plane_step_deg) if method == "critical_plane" else None
    weights = None if normals is None else normal_stress_weights(normals)
    P, node_onset = _node_bounds(S, curve, mean_stress, critical_plane=normals is not None)
    n_nodes = S.shape[1]

    # Count at scale 1 (the damage) and, with a design life, up to the cap of the safety factor (the smallest
    # scale at which one pair's largest cycle alone reaches the design life): no uncounted pair, whose onset
    # is beyond the cap, can have a smaller factor. The loop widens further only if the cap was not reached.
    # Pairs with onset <= 1 whose damage cannot be their node's largest are skipped (_dominated).
    scale, sf, sf_node = (0.0 if screening else np.inf), None, None
    refinement = (_Refinement(normals, plane_step_deg, curve, mean_stress, design_life_cycles)
                  if refine and normals is not None else None)
    extremes = _Extremes(S, weights, refinement)  # each node's, formed once for every pass
    if screening and design_life_cycles is not None:
        cap = _safety_factor_cap(S, weights, curve, mean_stress, float(design_life_cycles), node_onset,
                                 float(safety_factor_cap), extremes)
        scale = cap if np.isfinite(cap) else 1.0
    while True:
        table = _count(S, weights, curve, mean_stress, scale, node_onset, prune=screening,
                       design_life=None if design_life_cycles is None else float(design_life_cycles),
                       extremes=extremes)
        if design_life_cycles is None:
            break
        nodes = np.unique(table.pair_node)
        sfs = _safety_factors(table, curve, mean_stress, nodes, float(design_life_cycles))
        sf = float(sfs.min()) if sfs.size else np.inf
        sf_node = int(nodes[np.argmin(sfs)]) if sfs.size else int(np.argmax(P))
        if sf <= scale or not np.isfinite(table.next_onset) or scale >= safety_factor_cap:
            break
        scale = sf if np.isfinite(sf) else max(2.0 * scale, table.next_onset)

    d_pair = _pair_damage(table, curve, mean_stress, np.ones(len(table.pair_node)))
    damage = np.zeros(n_nodes)
    np.maximum.at(damage, table.pair_node, d_pair)
    static = np.zeros(n_nodes, bool)
    if curve.ultimate_strength is not None and table.rng.size:
        hit = beyond_ultimate(table.mean, curve.ultimate_strength)
        static[table.pair_node[np.unique(table.pair[hit])]] = True
    plane_normal = None if normals is None else (lambda node, plane: extremes.normal(node, plane) if refinement
                                                 else normals[plane])
    g, normal, cycles = _governing(table, damage, d_pair, P, plane_normal)
    return FatigueResult(damage, life_from_damage(damage), g, normal, cycles, static, node_onset > 1.0, curve,
                         method, mean_stress, sf, sf_node, design_life_cycles)


def _governing(table: _Table, damage, d_pair, P, plane_normal) -> tuple[int, np.ndarray | None, Cycles]:
    """The node of largest damage (of largest stress bound ``P`` when nothing is damaged), its governing plane's
    normal (``plane_normal(node, plane)``; None for signed von Mises or no damage) and that pair's cycles."""
    if not damage.max() > 0:
        return int(np.argmax(P)), None, Cycles(np.zeros(0), np.zeros(0), np.zeros(0))
    g = int(np.argmax(damage))
    mine = np.flatnonzero(table.pair_node == g)
    gp = mine[np.argmax(d_pair[mine])]
    rows = table.pair == gp
    cycles = Cycles(table.rng[rows], table.mean[rows], table.count[rows])
    return g, None if plane_normal is None else plane_normal(g, table.pair_plane[gp]), cycles
