"""Refinement of the critical plane: from the best planes of the grid of :func:`.criteria.plane_normals` to the
worst plane within a stated loss, node by node, vectorized over nodes and time samples.

The bound that holds. Let R(n) = max_t n.S(t).n - min_t n.S(t).n be the range of the normal stress on the plane
of unit normal n (twice the amplitude of the history's largest rainflow cycle), R* its largest value over all
planes, reached at n* for the pair of times (t1, t2): R* = n*.D.n* with D = S(t1) - S(t2), and n* is D's
eigenvector of its largest eigenvalue l1 = R*. The smallest eigenvalue l3 of D is >= -R* (-D = S(t2) - S(t1) is a
pair too), so on a plane alpha away from n*

    R(n) >= n.D.n >= l1 cos^2(alpha) + l3 sin^2(alpha) >= R* (1 - 2 sin^2(alpha))

for any history: uniaxial to pure shear (l3 = -l1), in phase or not. The grid's normals lie within rho_0 of every
direction (about d / sqrt(2) for a ring step d, 7.1 deg for 10 deg; :func:`grid_radius` takes 10 % more), so the
grid alone finds R* within 2 sin^2(d / sqrt 2) = 3.0 % (1 - cos^2(d / sqrt 2) = 1.5 %, the figure the grid's
docstring used to give, holds only when l3 >= 0; pure shear at 45 deg between two grid normals 10 deg apart loses
2 sin^2(5 deg) = 1.5 %, and other orientations up to 3 %).

Branch and bound. Candidates covering the region that can hold n* with covering radius rho (every direction of it
within rho of a candidate) contain one within rho of n*, whose range is >= (1 - 2 sin^2 rho) R* >=
(1 - 2 sin^2 rho) max R over the candidates; so n* lies within rho of a candidate whose range reaches that
threshold. Those candidates (at most ``keep`` = 2 per node and criterion, the best) become centres: around each, a
3 x 3 pattern of spacing h = tan(rho) / 1.5 in the gnomonic plane tangent there covers its cap of radius rho with
covering radius h / sqrt(2) (the gnomonic map only lengthens distances), about 0.47 rho. From the grid (10 deg)
three levels reach 0.78 deg: R* within 2 sin^2(0.78 deg) = 0.04 % (:func:`refinement_radii`, target 0.1 %). The
bound is exact for the range whenever at most ``keep`` candidates per level meet the threshold with distinct
values, as for isolated maxima (proportional loading: the largest and smallest principal directions; pure shear's
two planes) or tied ones (a whole ring of equal range: any of them is a maximum); in any case the result is never
below the grid's. The tests hold it against a brute-force search on random non-proportional histories.

Cost. Each level is one (m, 6) @ (6, n_t) product per node (m = 9 x the centres), on only the time samples at which
a plane near the centres can take its largest or smallest normal stress (:func:`_times`: within an angle alpha the
normal stress moves by at most (l1 - l3) sin(alpha) <= sqrt(2) |dev S|_F sin(alpha)), so the deeper levels look at
fewer samples. :func:`.damage.fatigue_life` refines only the nodes some plane off the grid may damage at the scale
of interest (a bound on every such plane's onset, :meth:`.planes._Refinement.gate`), all of them in one call.

What is maximized. Damage, not the range, governs, and rainflow damage is a step function of the plane (cycles
appear and merge), useless to a local search. Each criterion is a smooth function of the plane's range R, maximum
M and midrange mid, increasing in each: the equivalent amplitude of its largest cycle (the one of range R and mean
mid, the largest equivalent amplitude of the history, :mod:`.damage`) at scale 1 - for the damage - and, with a
design life, the inverse of the scale at which that cycle alone reaches the design life (:func:`.screening.cap_scale`)
- for the safety factor (they rank planes differently once the mean matters: Goodman, Gerber). Without a mean
correction, on a detail category (ranges) and for SWT with no mean both are R itself, and the bound above holds
for them; with a mean, the range part is bounded as above and the mean term is searched the same way (the
damage's criterion only for nodes some plane may damage at scale 1). The best plane of each criterion is then
rainflow-counted with the grid's planes (:func:`.damage.fatigue_life`), and a node's damage is the largest over all
of them: never below the grid's, and the largest over every plane whenever the planes' damage ranks as their largest
cycle's equivalent amplitude does - one cycle or one dominant cycle per period (the tests' pure shear,
tension-torsion in and out of phase with a mean, uniaxial: against the brute force, lives within 2 %), or
proportional loading without a mean correction, where every cycle scales with n.A.n. A history of several cycles
of comparable size whose planes rank differently by the sum than by the largest is only as good as the grid's
bound there (3 % of the amplitude).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..fe.stress import von_mises
from .criteria import normal_stress_weights

TARGET_LOSS = 1e-3  # relative loss of the largest range (amplitude) the refinement guarantees
KEEP = 2  # centres per node, criterion and level
_PATTERN = np.array([(i, j) for i in (-1.0, 0.0, 1.0) for j in (-1.0, 0.0, 1.0)])  # (9, 2)
_FLOATS = 2_000_000  # floats of candidate histories (n_t x candidates) formed at once


def grid_radius(step_deg: float) -> float:
    """Angular radius [rad] within which every direction has a normal of ``plane_normals(step_deg)``: d / sqrt(2)
    for the ring step d = 90 / round(90 / step_deg), taken 10 % larger (the azimuths' rounding puts a few
    directions up to 2.5 % beyond it at steps of 20-30 deg; test ``test_grid_radius_covers_the_sphere``)."""
    d = np.pi / 2 / max(1, round(90.0 / step_deg))
    return 1.1 * d / np.sqrt(2.0)


def loss_bound(radius) -> np.ndarray:
    """Largest relative loss 2 sin^2(radius) of the range R* of the normal stress on a plane ``radius`` [rad] from
    the worst one, for any stress history (module docstring)."""
    return 2.0 * np.sin(radius) ** 2


def refinement_radii(step_deg: float, target: float = TARGET_LOSS) -> list[float]:
    """Covering radii [rad] of the grid and of each refinement level, down to the first whose loss bound is at
    most ``target``: rho_{l+1} = tan(rho_l) / (1.5 sqrt 2) (module docstring)."""
    radii = [grid_radius(step_deg)]
    while loss_bound(radii[-1]) > target:
        radii.append(np.tan(radii[-1]) / (1.5 * np.sqrt(2.0)))
    return radii


def _tangent_basis(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal u, v (n, 3) perpendicular to unit vectors c (n, 3)."""
    helper = np.where(np.abs(c[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    u = np.cross(c, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return u, np.cross(c, u)


def _patterns(c: np.ndarray, radius: float) -> np.ndarray:
    """The 3 x 3 patterns (n * 9, 3) around unit normals c (n, 3) covering their caps of angular ``radius``."""
    h = np.tan(radius) / 1.5
    u, v = _tangent_basis(c)
    p = c[:, None] + h * (_PATTERN[None, :, :1] * u[:, None] + _PATTERN[None, :, 1:] * v[:, None])
    p /= np.linalg.norm(p, axis=2, keepdims=True)
    return p.reshape(-1, 3)


def plane_histories(s: np.ndarray, node: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """Normal stress histories (n_t, m) [Pa] on ``normals`` (m, 3), each at its node ``node`` (m,) of the stress
    histories ``s`` (n_t, k, 6): sum over the 6 components, one gathered column at a time."""
    w = normal_stress_weights(normals)
    h = s[:, node, 0] * w[:, 0]
    for c in range(1, 6):
        h += s[:, node, c] * w[:, c]
    return h


def _rows(sT: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """Normal stress histories (k, m, n_t) [Pa] on each node's ``normals`` (k, m, 3) of stress histories laid out
    node-first, ``sT`` (k, 6, n_t): one (m, 6) @ (6, n_t) product per node."""
    k, m = normals.shape[:2]
    w = np.ascontiguousarray(normal_stress_weights(normals.reshape(-1, 3)).reshape(k, m, 6))
    return np.matmul(w, sT)


def _extremes(sT, normals) -> tuple[np.ndarray, np.ndarray]:
    """Largest and smallest value over time (k, m) of :func:`_rows`, a block of nodes at a time."""
    k, m = normals.shape[:2]
    hi, lo = np.empty((k, m)), np.empty((k, m))
    step = max(1, _FLOATS // (m * sT.shape[2]))
    for a in range(0, k, step):
        h = _rows(sT[a:a + step], normals[a:a + step])
        hi[a:a + step], lo[a:a + step] = h.max(2), h.min(2)
    return hi, lo


def _times(sT: np.ndarray, w: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """The time samples (k, n_sub) of each node of ``sT`` (k, 6, n_t) at which some plane within an angle alpha of
    one of its centres ``normals`` (k, m, 3) can take its largest or smallest normal stress (padded with the
    first one's), ``w`` (k, n_t) = sqrt(2) |dev S(t)|_F sin(alpha). The normal stress on such a plane differs from
    the centre's by at most (l1 - l3)(S(t)) sin(alpha) <= w_t, so its largest value over time is >= hi(c) -
    max_t w_t, and a sample with c.S(t).c + w_t below that is not where it is reached; likewise for the
    smallest. Extremes over these samples are those over all."""
    h = _rows(sT, normals)  # (k, m, n_t)
    wn, wmax = w[:, None, :], w.max(1)[:, None, None]
    near = ((h + wn >= h.max(2, keepdims=True) - wmax) | (h - wn <= h.min(2, keepdims=True) + wmax)).any(1)
    order = np.argsort(~near, axis=1, kind="stable")[:, :max(1, int(near.sum(1).max()))]  # kept samples first
    return np.where(np.take_along_axis(near, order, 1), order, order[:, :1])


def _top(score: np.ndarray, loss: float, keep: int) -> np.ndarray:
    """Indices (k, keep) of each node's candidates (one criterion's ``score`` (k, m)) in decreasing score; those
    below (1 - loss) times the node's best are replaced by its best (a repeated centre: the same pattern again)."""
    order = np.argsort(-score, axis=1, kind="stable")[:, :keep]
    top = np.take_along_axis(score, order, 1)
    return np.where(top >= (1.0 - loss) * top[:, :1], order, order[:, :1])


def refine_normals(s: np.ndarray, grid: np.ndarray, hi: np.ndarray, lo: np.ndarray,
                   scores: Callable[[np.ndarray, np.ndarray], np.ndarray], radii: list[float],
                   keep: int = KEEP, active: np.ndarray | None = None) -> np.ndarray:
    """The best plane of each criterion for every node, by branch and bound from the grid (module docstring).

    ``s`` (n_t, k, 6) [Pa] stress histories; ``grid`` (G, 3) the grid's normals and ``hi``, ``lo`` (k, G) [Pa] the
    extremes of the normal stress on them; ``scores(hi, lo)`` -> (..., n_crit) the criteria (>= 0, larger is
    worse) of planes with those extremes; ``radii`` from :func:`refinement_radii`; ``active`` (k, n_crit) the
    criteria searched per node (default all; an inactive one's centres are its node's first active one's; one
    inactive for every node is not searched; each still reports its best candidate). Returns the normals
    (k, n_crit, 3); where no candidate beats the grid, the best grid plane's. Each level's candidates are
    evaluated on the time samples where their extremes can be (:func:`_times`)."""
    k, G = hi.shape
    sc = scores(hi, lo)  # (k, G, C)
    n_crit = sc.shape[-1]
    active = np.ones((k, n_crit), bool) if active is None else active
    searched = np.flatnonzero(active.any(0))
    normals = np.broadcast_to(grid, (k, G, 3))
    best_s = sc.max(1)  # (k, C)
    best_n = np.take_along_axis(normals, sc.argmax(1)[..., None], 1)  # (k, C, 3)
    sT = np.ascontiguousarray(s.transpose(1, 2, 0))  # (k, 6, n_t)
    dev = 2.0 / np.sqrt(3.0) * von_mises(s).T  # (k, n_t): sqrt(2) |dev S|_F >= l1 - l3
    rows = np.arange(k)[:, None]
    for rho in radii[:-1]:
        loss = loss_bound(rho)
        tops = [_top(sc[..., c], loss, keep) for c in searched]
        first = np.where(active[:, searched[0]], tops[0][:, 0], tops[-1][:, 0])[:, None]
        centre = np.concatenate([np.where(active[:, [c]], tc, first) for c, tc in zip(searched, tops)], 1)
        centres = normals[rows, centre]  # (k, n_centres, 3)
        # every later candidate lies within 0.943 (rho + 0.49 rho + 0.24 rho ...) < 2 rho of these centres
        t = _times(sT, dev * np.sin(2.0 * rho), centres)  # (k, n_sub)
        sT, dev = sT[rows[:, :, None], np.arange(6)[None, :, None], t[:, None, :]], dev[rows, t]
        normals = _patterns(centres.reshape(-1, 3), rho).reshape(k, -1, 3)
        sc = scores(*_extremes(sT, normals))
        i = sc.argmax(1)  # (k, C)
        s_i = np.take_along_axis(sc, i[:, None], 1)[:, 0]
        better = s_i > best_s
        best_n = np.where(better[..., None], np.take_along_axis(normals, i[..., None], 1), best_n)
        best_s = np.where(better, s_i, best_s)
    return best_n
