"""Fatigue of a whole link in a study: damage, life and safety factor of every node from the link's FE basis and
coefficient history, without forming the stress history of every node.

The stress at element point p (one of the 10 nodes of an element; the unaveraged values, as the peaks use) is
``s_p(t) = sum_j c_j(t) s_jp`` (basis stresses s_jp of :class:`~structcheck.fe.response.LinkBasis`, coefficients
c_j(t): unit loads then modes; on straight elements a mid node's s_jp is its edge's vertices' mean, on curved ones
its own value). Screening without the history: for every plane, ``|n.s_p(t).n| <= |s_p(t)|_F
<= P_p = sum_j max_t |c_j| |s_jp|_F`` and the range of ``n.s_p.n`` over time is at most
``R_p = sum_j ptp_t(c_j) |s_jp|_F`` (|.|_F the Frobenius norm, shear counted twice; the signed von Mises
stress is at most sqrt(3/2) |s|_F). With these bounds for range, maximum and midrange,
:func:`.screening.onset_scale` gives a scale below which no cycle of the point can damage. Points are visited in
increasing bound, a block of them at a time, up to the scale of interest (1 for the damage; widened up to the
smallest safety factor found, as :func:`.damage.fatigue_life` does per plane); each block is counted by
:func:`.damage.fatigue_life` from its 6-component histories ``C @ S_p``.

A block is only counted when a tighter bound does not show that none of its points can be damaged nor have a
smaller safety factor than the one found (:func:`_spread_onset`): every eigenvalue of a stress tensor lies within
``p +- sqrt(2/3) |dev s|_F`` (p = tr s / 3), so about a constant tensor T the normal stress on every plane stays
within ``n.T.n + [-down, up]`` with ``n.T.n <= lambda_max(T)``, and range, maximum and the Goodman term
``a + k mid`` (taken together, not each at its worst) are bounded. The bound is first taken from the basis,
about ``T = sum_j mid_t(c_j) s_jp``: over each window of 16 time samples the hydrostatic part of ``s_p - T`` is at
most ``sum_j max_window((c_j - mid_j) p_jp)`` and its deviator's norm at most
``sum_j max_window|c_j - mid_j| |dev s_jp|_F`` (:func:`_window_spread`); then, for the points that leaves, from
their history (T the componentwise midrange, :func:`_coordinate_spread`). A block that is counted is the very
block, on the very safety-factor cap, that visiting every block counts, so the results are those of counting
every block, bit for bit (the BLAS products round a point differently in another block's composition); fewer
points are counted (``n_points_counted``).
Points map to mesh nodes as in the peaks: a node's damage is the largest over the element points at it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..errors import InputError
from ..fe.assembly import p2_edges
from ..fe.regions import region_nodes
from ..fe.solvers import single_thread_blas
from ..fe.stress import VON_MISES_MATRIX, von_mises
from .counting import Cycles, rainflow_cycles
from .criteria import normal_stress, signed_von_mises
from .meanstress import as_correction, beyond_ultimate, check_method, default_correction
from .damage import METHODS, _cycle_damage, _reversal_bound, fatigue_life, life_from_damage, miner_damage
from .planes import critical_plane_normals
from .screening import onset_scale
from .sn import SNCurve, get_sn_curve

_HISTORY_BYTES = 48e6  # 6-component histories formed at once
_BOUND_BYTES = 16e6  # basis stresses at the 10 element nodes formed at once
_SLACK = 1e-9  # of P_p, added to the spread bounds: far above the rounding of any history (~1e-14 P_p)
_SQRT_2_3 = np.sqrt(2.0 / 3.0)
_WINDOW = 16  # time samples of a window of the window bound (_window_spread)


@dataclass(frozen=True)
class FatigueSettings:
    """How a study asks for fatigue. ``design_life_cycles`` (None: lives only, no safety factor and no verdict);
    ``method`` 'critical_plane' or 'signed_von_mises'; ``mean_stress`` None (Goodman for material curves, none
    for detail categories) or a name of :data:`.meanstress.MEAN_STRESS_METHODS`; ``surface_factor`` Marin factors
    on the material's curve; ``details`` region -> S-N curve spec (a detail category such as 'EC3-71', a
    material name or an SNCurve), region '*' the whole link, else a named surface or line of the part, whose
    nodes take that curve instead of the material's."""

    design_life_cycles: float | None = None
    method: str = "critical_plane"
    mean_stress: str | None = None
    surface_factor: float = 1.0
    details: Mapping[str, object] = None
    plane_step_deg: float = 10.0


@dataclass(frozen=True)
class LinkFatigue:
    """A link's fatigue under its duty cycle (the study's motion) repeated.

    ``damage_per_cycle``, ``life_cycles`` (n_nodes,): Miner damage of one duty cycle and duty cycles to failure
    (inf: no damaging cycle) per mesh node; ``governing_node``: the node of least life (when nothing is damaged,
    the node of the smallest safety factor, None without a design life); ``safety_factor``: factor on the whole
    stress history (amplitudes and means) bringing the link's shortest life to the design life (None without
    one; inf when no scale damages the link); ``curve``: the S-N curve at the governing node and ``region`` the
    region (of ``Study.fatigue.details`` or a part's Region) that curve belongs to (None: the part's material);
    ``governing_history`` (n_t,) [Pa]: the counted quantity there (normal stress on ``governing_normal`` or the
    signed von Mises stress) and ``governing_cycles`` its rainflow cycles; ``n_points_counted``: element
    points whose 6-component history was formed (of ``n_points``)."""

    damage_per_cycle: np.ndarray
    life_cycles: np.ndarray
    governing_node: int | None
    safety_factor: float | None
    curve: SNCurve | None
    governing_history: np.ndarray | None
    governing_normal: np.ndarray | None
    governing_cycles: Cycles | None
    n_points_counted: int
    n_points: int
    region: str | None = None

    @property
    def min_life_cycles(self) -> float:
        return float(self.life_cycles.min()) if len(self.life_cycles) else float("inf")


def check_settings(settings: FatigueSettings, part, link: str) -> dict[str, SNCurve]:
    """The S-N curve of every region of ``part`` (link ``link``): '' the material's (scaled by the surface
    factor), then the detail regions; InputError for a method, correction, category, surface or material
    without S-N data that cannot be used."""
    if settings.method not in METHODS:
        raise InputError(f"unknown fatigue_method {settings.method!r}; valid ones are {METHODS}")
    if settings.mean_stress is not None:
        check_method(settings.mean_stress)
    details = dict(settings.details or {})
    curves = {}
    if "*" not in details:
        try:
            curves[""] = get_sn_curve(part.material).scaled(float(settings.surface_factor))
        except InputError as exc:
            raise InputError(f"link {link!r}: fatigue was asked for (design life / cycles_per_hour) but {exc}") \
                from None
    if "*" not in details:  # a region's own curve (its material's unless it names one) over the part's
        for r in getattr(part, "regions", ()):
            try:
                curves[r.name] = get_sn_curve(r.fatigue if r.fatigue is not None else r.material)
            except InputError as exc:
                raise InputError(f"link {link!r}, region {r.name!r}: {exc}; or give Region(fatigue=...)") from None
            if r.fatigue is None:
                curves[r.name] = curves[r.name].scaled(float(settings.surface_factor))
    for region, spec in details.items():
        if region != "*":
            part.named_nodes(region)  # InputError naming the part's surfaces
        try:
            curves[region] = get_sn_curve(spec)
        except InputError as exc:
            raise InputError(f"link {link!r}, region {region!r}: {exc}") from None
    for region, curve in curves.items():
        _mean_stress(settings.mean_stress, curve, f"link {link!r} region {region or 'material'}")
    return curves


def _mean_stress(requested: str | None, curve: SNCurve, where: str) -> str:
    if requested is None:
        return default_correction(curve)
    if as_correction(requested).corrects and (curve.quantity == "range" or curve.ultimate_strength is None):
        raise InputError(f"{where}: curve {curve.name!r} is a detail category of stress ranges (or has no "
                         f"ultimate strength): it takes no mean-stress correction, use mean_stress=None or 'none'")
    return requested


def _point_operator(S: np.ndarray, local: np.ndarray, elem: np.ndarray) -> np.ndarray:
    """Basis stresses (n_b, 6, n_points) at element points (local node 0..9, element) from ``S`` (n_b, 6, n_p, n_e):
    n_p = 10 (curved elements) their own values; n_p = 4 (straight) the vertices' and at the mid nodes the means of
    their edge's vertices."""
    if S.shape[2] == 10:
        return S[:, :, local, elem]
    edges = np.asarray(p2_edges())
    i = np.where(local < 4, local, edges[np.clip(local - 4, 0, 5), 0])
    j = np.where(local < 4, local, edges[np.clip(local - 4, 0, 5), 1])
    return 0.5 * (S[:, :, i, elem] + S[:, :, j, elem])


def _bounds(S: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P, R) (10 * n_e,) [Pa] at every element point (index local * n_e + e): bounds of the stress tensor's
    Frobenius norm over time and of the range of its normal stress on any plane (module docstring)."""
    n_b, _, _, n_e = S.shape
    cmax, cptp = np.abs(C).max(axis=0), np.ptp(C, axis=0)
    w = np.array([1.0, 1, 1, 2, 2, 2])  # Frobenius norm of the tensor from its 6 components
    P, R = np.empty((10, n_e)), np.empty((10, n_e))
    step = max(1, int(_BOUND_BYTES // (n_b * 6 * 10 * 8)))
    for a in range(0, n_e, step):
        e = np.arange(a, min(n_e, a + step))
        loc, el = np.repeat(np.arange(10), len(e)), np.tile(e, 10)  # point local * len(e) + k
        norms = np.sqrt(np.einsum("bcp,c->bp", _point_operator(S, loc, el) ** 2, w))  # (n_b, 10 * ne)
        P[:, e] = (cmax @ norms).reshape(10, len(e))
        R[:, e] = (cptp @ norms).reshape(10, len(e))
    return P.ravel(), R.ravel()


def _spread(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, r) (...,) [Pa] of stress vectors ``s`` (6, ...) (components first): the hydrostatic stress tr / 3 and
    sqrt(2/3) |dev s|_F = 2/3 of the von Mises stress. Every principal stress lies in [p - r, p + r]: the
    deviator's eigenvalues sum to zero and their squares to |dev s|_F^2, so none exceeds sqrt(2/3) |dev s|_F in
    magnitude."""
    return (s[0] + s[1] + s[2]) / 3.0, 2.0 / 3.0 * von_mises(np.moveaxis(s, 0, -1))


def _window_spread(op: np.ndarray, mid: np.ndarray, amax: np.ndarray, amin: np.ndarray) -> tuple[np.ndarray, ...]:
    """(up, down, top, vm) (m,) [Pa] of points with basis stresses ``op`` (n_b, 6, m) (C-contiguous) about
    ``T = sum_j mid_j s_j``, from the largest and smallest value of ``c_j(t) - mid_j`` in each window of time
    samples (n_w, n_b): within a window the hydrostatic part of ``s(t) - T`` is at most the sum of each term's
    largest value, its deviator's norm at most ``sum_j max|c_j - mid_j| |dev s_j|_F``; ``vm`` bounds the von
    Mises stress sqrt(3/2) |dev s|_F = 1.5 r the same way. The bounds of :func:`_spread_onset`."""
    p, r = _spread(op.transpose(1, 0, 2))  # (n_b, m)
    pos, neg = np.clip(p, 0.0, None), np.clip(p, None, 0.0)
    dev = np.maximum(amax, -amin) @ r  # (n_w, m)
    pT, rT = _spread(np.einsum("b,bcm->cm", mid, op))
    return ((amax @ pos + amin @ neg + dev).max(0), (dev - amin @ pos - amax @ neg).max(0), pT + rT,
            1.5 * (rT + dev.max(0)))


# orthonormal coordinates of a stress vector for the Frobenius norm (shear counted twice): the hydrostatic stress
# p = tr / 3 (row 0, not normalized) and 5 coordinates y of the deviator with |y| = |dev s|_F (rows 1-5: the von
# Mises coordinates scaled by sqrt(2/3), as |dev s|_F = sqrt(2/3) von Mises)
_PY = np.vstack([[1 / 3, 1 / 3, 1 / 3, 0, 0, 0], _SQRT_2_3 * VON_MISES_MATRIX])


def _coordinate_spread(Y: np.ndarray, coupled: bool = False) -> tuple[np.ndarray, ...]:
    """(up, down, top, vm) (m,) [Pa] of histories ``Y`` (n_t, 6, m) in the coordinates of :data:`_PY`, about
    their coordinatewise midrange T (a constant tensor), the bounds of :func:`_spread_onset`: the largest value
    over time of the hydrostatic part and of the deviator's norm taken separately, or with ``coupled`` sample by
    sample (tighter, a square root per sample); ``vm`` the largest von Mises stress."""
    hi, lo = Y.max(0), Y.min(0)
    mid = 0.5 * (hi + lo)
    q = np.zeros((Y.shape[0], Y.shape[2]))
    for k in range(1, 6):
        d = Y[:, k] - mid[k]
        q += d * d  # |dev (s(t) - T)|_F^2
    top = mid[0] + _SQRT_2_3 * np.sqrt(np.sum(mid[1:] ** 2, axis=0))
    vm = np.sqrt(1.5 * np.max(np.sum(Y[:, 1:] ** 2, axis=1), axis=0))
    if coupled:
        r, p = _SQRT_2_3 * np.sqrt(q), Y[:, 0] - mid[0]
        return (p + r).max(0), (r - p).max(0), top, vm
    r = _SQRT_2_3 * np.sqrt(q.max(0))
    return hi[0] - mid[0] + r, mid[0] - lo[0] + r, top, vm


def _spread_onset(up, down, top, vm, curve: SNCurve, mean_stress: str, method: str) -> np.ndarray:
    """Lower bound (n,) of :func:`.screening.onset_scale` over every plane of histories whose principal stresses
    stay within ``T + [-down, up]``, T a constant tensor whose largest principal stress is at most ``top``
    (arrays [Pa]); for the signed von Mises method of histories whose von Mises stress is at most ``vm``.

    On a plane n the normal stress stays within ``tau + [-down, up]``, tau = n.T.n <= top: range
    R <= up + down, maximum M <= top + up and, with k = limit / S_u <= 1, the Goodman (and Gerber: same onset)
    term ``a + k max(mid, 0) = max(a, ((1 + k) max - (1 - k) min) / 2) <= max((up + down) / 2,
    k top + ((1 + k) up + (1 - k) down) / 2)``; :func:`.screening.onset_scale` decreases in each of them."""
    if method == "signed_von_mises":  # |signed vM| <= vm: range <= 2 vm, maximum and midrange <= vm
        return onset_scale(2.0 * vm, vm, vm, curve, mean_stress)
    R, M = up + down, top + up
    L = curve.limit
    with np.errstate(divide="ignore", invalid="ignore"):
        if curve.quantity == "range":
            x = L / R
        else:
            x = as_correction(mean_stress).spread(L, R, M, top, up, down, curve.ultimate_strength)
        if curve.ultimate_strength is not None:
            x = np.minimum(x, curve.ultimate_strength / np.clip(M, 0.0, None))
    return np.nan_to_num(x, nan=np.inf)


def _cleared(bound: np.ndarray, limit: float) -> np.ndarray:
    """True where an onset bound shows a point undamaged at scale 1 and of safety factor above ``limit``
    (>= 1), with a margin against rounding."""
    return bound > limit * (1.0 + 1e-9)


def _histories(S, C, points, n_e, single=False):
    """Yield (chunk of point indices, stress histories (n_t, n_chunk, 6) [Pa]) for element points (one chunk of
    all of them with ``single``)."""
    n_t, n_b = C.shape
    step = len(points) if single else _chunk_points(C)
    for a in range(0, len(points), step):
        q = points[a:a + step]
        op = _point_operator(S, q // n_e, q % n_e)  # (n_b, 6, n)
        yield q, (C @ op.reshape(n_b, -1)).reshape(n_t, 6, len(q)).transpose(0, 2, 1)


def _region_of_nodes(part, curves: dict[str, SNCurve]) -> np.ndarray:
    """Index into ``list(curves)`` of every mesh node's curve: the material's ('' or '*'), then the named
    regions in the order given (a later region wins where they overlap)."""
    names = list(curves)
    group = np.full(len(part.points), names.index("" if "" in curves else "*"))
    material_regions = {r.name for r in getattr(part, "regions", ())}
    for k, region in enumerate(names):
        if region in material_regions:  # a volume: its nodes by the weakest-material rule (fe.regions)
            group[region_nodes(part, region)] = k
        elif region not in ("", "*"):
            group[part.named_nodes(region)] = k
    return group


@dataclass(frozen=True)
class _Screen:
    """Bounds that clear element points without counting them (module docstring): ``slack`` (n_points,) [Pa]
    added against rounding, ``mid`` (n_b,) the coefficients' midranges and ``amax`` / ``amin`` (n_w, n_b) the
    extremes of ``c_j(t) - mid_j`` over windows of time samples (:func:`_window_spread`)."""

    curve: SNCurve
    mean_stress: str
    method: str
    slack: np.ndarray
    mid: np.ndarray
    amax: np.ndarray
    amin: np.ndarray

    def _uncleared(self, bounds, e, limit) -> np.ndarray:
        """False where the spread ``bounds`` (up, down, top, vm), each widened by ``e`` [Pa], clear a point."""
        up, down, top, vm = bounds
        onset = _spread_onset(up + e, down + e, top + e, vm + e, self.curve, self.mean_stress, self.method)
        return ~_cleared(onset, limit)

    def uncleared(self, S, C, points, n_e, limit) -> tuple[np.ndarray, int]:
        """Which of ``points`` (element point indices) no bound clears at ``limit`` (bool), and the number of
        points whose history was formed to try: the window bound from the basis, then for the points it leaves
        the bounds from their history, its extremes taken separately, then sample by sample."""
        if not np.isfinite(limit):
            return np.ones(len(points), bool), 0
        # small products: OpenBLAS's threads cost more than they share. Only the screening runs on one thread: the
        # counted blocks' products keep their threads, as their rounding may depend on how the threads split them
        with single_thread_blas():
            return self._uncleared_points(S, C, points, n_e, limit)

    def _uncleared_points(self, S, C, points, n_e, limit) -> tuple[np.ndarray, int]:
        op = np.ascontiguousarray(_point_operator(S, points // n_e, points % n_e))  # on BLAS: points innermost
        e = self.slack[points]
        left = np.flatnonzero(self._uncleared(_window_spread(op, self.mid, self.amax, self.amin), e, limit))
        tried = len(left)
        if tried:
            n_b = op.shape[0]
            Y = (C @ np.matmul(_PY, op[:, :, left]).reshape(n_b, -1)).reshape(len(C), 6, -1)  # (n_t, 6, n)
            for coupled in (False, True):
                keep = self._uncleared(_coordinate_spread(Y, coupled), e[left], limit)
                left, Y = left[keep], Y[:, :, keep]
                if not len(left):
                    break
        out = np.zeros(len(points), bool)
        out[left] = True
        return out, tried


def _count_group(S, C, points, n_e, curve, settings, mean_stress, onset, L, screen: _Screen | None):
    """Damage per duty cycle of ``points`` (element point indices) on one curve, (safety factor, its point) and
    the number of points whose history was formed. Points are visited in increasing ``onset`` bound, a block of
    them at a time, and stop where it passes both 1 (no damage beyond) and the smallest safety factor found (no
    smaller factor beyond): each block is counted with that factor as its cap (:func:`.damage.fatigue_life`)
    unless ``screen`` clears each of its points (then counting finds no damage and no smaller factor; None:
    every block is counted)."""
    damage = np.zeros(len(points))
    order = np.argsort(onset, kind="stable")
    ranked = onset[order]
    step = _chunk_points(C)
    sf, sf_point, n, formed = np.inf, None, 0, 0
    while n < len(order):
        limit = 1.0 if L is None else max(1.0, sf)
        end = min(n + step, int(np.searchsorted(ranked, limit, side="right")))  # onset is sorted: a prefix
        if end <= n:
            break
        take, n = order[n:end], end
        left, tried = screen.uncleared(S, C, points[take], n_e, limit) if screen else (np.ones(1, bool), 0)
        if not left.any():
            formed += tried
            continue
        # the block's own product, as counting every block forms it: BLAS rounds a point differently in a
        # product of other points
        (_, hist), = _histories(S, C, points[take], n_e, single=True)
        formed += len(take)
        r = fatigue_life(hist, curve, method=settings.method, mean_stress=mean_stress, design_life_cycles=L,
                         plane_step_deg=settings.plane_step_deg, safety_factor_cap=sf)
        damage[take] = r.damage_per_cycle
        if L is not None and r.safety_factor is not None and r.safety_factor < sf:
            sf, sf_point = r.safety_factor, int(points[take][r.safety_factor_node])
    return damage, sf, sf_point, formed


def _chunk_points(C) -> int:
    return max(1, int(_HISTORY_BYTES // (C.shape[0] * 6 * 8 * 2)))


def _governing_history(S, C, point, n_e, curve, settings, mean_stress, scale):
    """The counted scalar history (n_t,) [Pa] at element point ``point``, its plane normal (critical plane: the
    plane of most damage at ``scale`` among those :func:`.damage.fatigue_life` counts - the grid's and the refined
    ones, :func:`.planes.critical_plane_normals` - or of largest range when none is damaged) and its cycles."""
    (_, hist), = _histories(S, C, np.array([point]), n_e)
    hist = hist[:, 0]
    if settings.method == "signed_von_mises":
        h = signed_von_mises(hist)
        return h, None, rainflow_cycles(h, periodic=True)
    normals = critical_plane_normals(hist, curve, mean_stress, settings.design_life_cycles, settings.plane_step_deg)
    sn = normal_stress(hist, normals)  # (n_t, n_planes): the grid's and the refined planes
    x = scale * (1 + 1e-6) if np.isfinite(scale) else 1.0  # just past a factor at an endurance-limit jump
    k, cycles = _governing_plane(sn, curve, mean_stress, x)
    return sn[:, k], normals[k], cycles


def _governing_plane(sn, curve, mean_stress, x) -> tuple[int, Cycles]:
    """The plane (column of ``sn`` (n_t, n_planes) [Pa]) of most damage at scale ``x`` (the first of equal
    ones), of largest range when none is damaged, and its cycles (unscaled). Planes are counted in decreasing
    :func:`_damage_bound` until the bound of the rest is below the largest damage found: they cannot hold it
    nor tie with it, so the plane is the one counting every plane gives."""
    upper = _damage_bound(sn, curve, mean_stress, x)
    cycles, d = {}, np.zeros(sn.shape[1])
    for k in np.argsort(-upper, kind="stable"):
        if d.max() > upper[k]:
            break
        cycles[k] = rainflow_cycles(sn[:, k], periodic=True)
        d[k] = miner_damage(cycles[k].scaled(x), curve, mean_stress)
    k = int(np.argmax(d)) if d.max() > 0 else int(np.argmax(np.ptp(sn, axis=0)))
    return k, (cycles[k] if k in cycles else rainflow_cycles(sn[:, k], periodic=True))


def _damage_bound(sn, curve, mean_stress, x) -> np.ndarray:
    """Upper bound (n_planes,) of the Miner damage of each series ``sn[:, k]`` [Pa] scaled by ``x``: at most
    :func:`.damage._reversal_bound` cycles, none worse than a cycle of the whole range and midrange (the
    largest, :mod:`.damage`; Goodman bounds Gerber), with range and midrange taken 1e-6 larger against
    rounding; inf where a cycle's mean can reach the ultimate strength (static failure)."""
    hi, lo = sn.max(0), sn.min(0)
    grow = x * (1 + 1e-6)
    ms = as_correction(mean_stress).bound
    ones = np.ones(len(hi))
    d = _reversal_bound(sn) * _cycle_damage(grow * (hi - lo), grow * 0.5 * (hi + lo), ones, curve, ms)
    if curve.ultimate_strength is not None:  # every cycle's mean is at most the maximum
        d = np.where(beyond_ultimate(grow * hi, curve.ultimate_strength), np.inf, d)
    return d


def link_fatigue(part, basis, coeff: np.ndarray, modal: np.ndarray, settings: FatigueSettings,
                 curves: dict[str, SNCurve] | None = None, link: str = "", screening: bool = True) -> LinkFatigue:
    """Fatigue of every node of ``part`` under one duty cycle, repeated: the link's response
    ``coeff`` (n_t, k) unit-load and ``modal`` (n_t, m) coefficients on ``basis`` over one duty cycle (the
    study's fine grid). ``curves``: from :func:`check_settings` (computed when None). ``screening``: skip the
    blocks the spread bounds clear (module docstring); ``False`` counts every block up to the limit, for
    verification only (same results, more points counted)."""
    curves = check_settings(settings, part, link) if curves is None else curves
    C = np.ascontiguousarray(np.hstack([coeff, modal]), dtype=float)
    S = basis.S
    n_e = S.shape[3]
    L = settings.design_life_cycles
    P, R = _bounds(S, C)
    slack = _SLACK * P  # P >= |s_p(t)|_F
    mid = 0.5 * (C.max(axis=0) + C.min(axis=0))
    starts = np.arange(0, len(C), _WINDOW)
    amax, amin = np.maximum.reduceat(C - mid, starts, axis=0), np.minimum.reduceat(C - mid, starts, axis=0)
    if settings.method == "signed_von_mises":  # |signed vM| <= sqrt(3/2) |s|_F; sign flips: range <= 2 max
        P = np.sqrt(1.5) * P
        R = 2.0 * P
    R = np.minimum(R, 2.0 * P)
    point_node = part.cells.T.ravel()  # element point local * n_e + e -> mesh node
    point_group = _region_of_nodes(part, curves)[point_node]
    point_damage = np.zeros(len(point_node))
    sf, sf_point, n_counted = (np.inf if L is not None else None), None, 0
    for g, (region, curve) in enumerate(curves.items()):
        points = np.flatnonzero(point_group == g)
        if not len(points):
            continue
        ms = _mean_stress(settings.mean_stress, curve, f"link {link!r} region {region or 'material'}")
        onset = onset_scale(R[points], P[points], P[points], curve, ms)
        screen = _Screen(curve, ms, settings.method, slack, mid, amax, amin) if screening else None
        d, sf_g, p_g, n = _count_group(S, C, points, n_e, curve, settings, ms, onset, L, screen)
        point_damage[points] = d
        n_counted += n
        if L is not None and p_g is not None and sf_g < sf:
            sf, sf_point = sf_g, p_g
    node_damage = np.zeros(len(part.points))
    np.maximum.at(node_damage, point_node, point_damage)
    if point_damage.max() > 0:
        gp, scale = int(np.argmax(point_damage)), 1.0
    elif sf_point is not None:
        gp, scale = sf_point, sf
    else:
        gp = None
    if gp is None:
        return LinkFatigue(node_damage, life_from_damage(node_damage), None, sf, None, None, None, None,
                           n_counted, len(point_node))
    region, curve = list(curves.items())[point_group[gp]]
    ms = _mean_stress(settings.mean_stress, curve, link)
    h, normal, cycles = _governing_history(S, C, gp, n_e, curve, settings, ms, scale)
    return LinkFatigue(node_damage, life_from_damage(node_damage), int(point_node[gp]), sf, curve, h, normal,
                       cycles, n_counted, len(point_node), None if region in ("", "*") else region)
