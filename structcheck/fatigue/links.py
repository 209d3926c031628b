"""Fatigue of a whole link in a study: damage, life and safety factor of every node from the link's FE basis and
coefficient history, without forming the stress history of every node.

The stress at element point p (one of the 10 nodes of an element; the unaveraged values, as the peaks use) is
``s_p(t) = sum_j c_j(t) s_jp`` (basis stresses s_jp of :class:`~structcheck.fe.response.LinkBasis`, coefficients
c_j(t): unit loads then modes; on straight elements a mid node's s_jp is its edge's vertices' mean, on curved ones
its own value). Screening without the history: for every plane, ``|n.s_p(t).n| <= |s_p(t)|_F
<= P_p = sum_j max_t |c_j| |s_jp|_F`` and the range of ``n.s_p.n`` over time is at most
``R_p = sum_j ptp_t(c_j) |s_jp|_F`` (|.|_F the Frobenius norm, shear counted twice; the signed von Mises
stress is at most sqrt(3/2) |s|_F). With these bounds for range, maximum and midrange,
:func:`.damage.onset_scale` gives a scale below which no cycle of the point can damage; only points whose
bound is reached at the scale of interest (1 for the damage; widened up to the smallest safety factor found,
as :func:`.damage.fatigue_life` does per plane) get their 6-component history ``C @ S_p`` and are counted.
Points map to mesh nodes as in the peaks: a node's damage is the largest over the element points at it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..errors import InputError
from ..fe.assembly import p2_edges
from .counting import Cycles, rainflow_cycles
from .criteria import normal_stress, plane_normals, signed_von_mises
from .meanstress import beyond_ultimate, check_method
from .damage import (METHODS, _cycle_damage, _reversal_bound, fatigue_life, life_from_damage, miner_damage,
                     onset_scale)
from .sn import SNCurve, get_sn_curve

_HISTORY_BYTES = 48e6  # 6-component histories formed at once
_BOUND_BYTES = 16e6  # basis stresses at the 10 element nodes formed at once


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
    one; inf when no scale damages the link); ``curve``: the S-N curve at the governing node;
    ``governing_history`` (n_t,) [Pa]: the counted quantity there (normal stress on ``governing_normal`` or the
    signed von Mises stress) and ``governing_cycles`` its rainflow cycles; ``n_points_counted``: element
    points whose history was formed (of ``n_points``)."""

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
            curves[""] = get_sn_curve(part.material.name).scaled(float(settings.surface_factor))
        except InputError as exc:
            raise InputError(f"link {link!r}: fatigue was asked for (design life / cycles_per_hour) but {exc}") \
                from None
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
        return "none" if curve.quantity == "range" or curve.ultimate_strength is None else "goodman"
    if requested != "none" and (curve.quantity == "range" or curve.ultimate_strength is None):
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
    for k, region in enumerate(names):
        if region not in ("", "*"):
            group[part.named_nodes(region)] = k
    return group


def _count_group(S, C, points, n_e, curve, settings, mean_stress, onset, L):
    """Damage per duty cycle of ``points`` (element point indices) on one curve, (safety factor, its point) and
    the number of points counted. Points are visited in increasing ``onset`` bound, and stop where it passes
    both 1 (no damage beyond) and the smallest safety factor found (no smaller factor beyond): each chunk is
    counted with that factor as its cap (:func:`.damage.fatigue_life`)."""
    damage = np.zeros(len(points))
    order = np.argsort(onset, kind="stable")
    sf, sf_point, n = np.inf, None, 0
    while n < len(order):
        limit = 1.0 if L is None else max(1.0, sf)
        if onset[order[n]] > limit:
            break
        take = order[n:][onset[order[n:]] <= limit][:_chunk_points(C)]
        (q, hist), = _histories(S, C, points[take], n_e, single=True)
        r = fatigue_life(hist, curve, method=settings.method, mean_stress=mean_stress, design_life_cycles=L,
                         plane_step_deg=settings.plane_step_deg, safety_factor_cap=sf)
        damage[take] = r.damage_per_cycle
        if L is not None and r.safety_factor is not None and r.safety_factor < sf:
            sf, sf_point = r.safety_factor, int(q[r.safety_factor_node])
        done = np.zeros(len(order), bool)
        done[take] = True
        order = np.r_[order[:n], take, order[n:][~done[order[n:]]]]
        n += len(take)
    return damage, sf, sf_point, n


def _chunk_points(C) -> int:
    return max(1, int(_HISTORY_BYTES // (C.shape[0] * 6 * 8 * 2)))


def _governing_history(S, C, point, n_e, curve, settings, mean_stress, scale):
    """The counted scalar history (n_t,) [Pa] at element point ``point``, its plane normal (critical plane: the
    plane of most damage at ``scale``, or of largest range when none is damaged) and its cycles."""
    (_, hist), = _histories(S, C, np.array([point]), n_e)
    hist = hist[:, 0]
    if settings.method == "signed_von_mises":
        h = signed_von_mises(hist)
        return h, None, rainflow_cycles(h, periodic=True)
    normals = plane_normals(settings.plane_step_deg)
    sn = normal_stress(hist, normals)  # (n_t, n_planes)
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
    ms = "goodman" if mean_stress == "gerber" else mean_stress
    ones = np.ones(len(hi))
    d = _reversal_bound(sn) * _cycle_damage(grow * (hi - lo), grow * 0.5 * (hi + lo), ones, curve, ms)
    if curve.ultimate_strength is not None:  # every cycle's mean is at most the maximum
        d = np.where(beyond_ultimate(grow * hi, curve.ultimate_strength), np.inf, d)
    return d


def link_fatigue(part, basis, coeff: np.ndarray, modal: np.ndarray, settings: FatigueSettings,
                 curves: dict[str, SNCurve] | None = None, link: str = "") -> LinkFatigue:
    """Fatigue of every node of ``part`` under one duty cycle, repeated: the link's response
    ``coeff`` (n_t, k) unit-load and ``modal`` (n_t, m) coefficients on ``basis`` over one duty cycle (the
    study's fine grid). ``curves``: from :func:`check_settings` (computed when None)."""
    curves = check_settings(settings, part, link) if curves is None else curves
    C = np.ascontiguousarray(np.hstack([coeff, modal]), dtype=float)
    S = basis.S
    n_e = S.shape[3]
    L = settings.design_life_cycles
    P, R = _bounds(S, C)
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
        d, sf_g, p_g, n = _count_group(S, C, points, n_e, curve, settings, ms, onset, L)
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
    curve = list(curves.values())[point_group[gp]]
    ms = _mean_stress(settings.mean_stress, curve, link)
    h, normal, cycles = _governing_history(S, C, gp, n_e, curve, settings, ms, scale)
    return LinkFatigue(node_damage, life_from_damage(node_damage), int(point_node[gp]), sf, curve, h, normal,
                       cycles, n_counted, len(point_node))
