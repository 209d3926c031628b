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
grid alone finds R* within 2 sin^2(rho_0) = 3.0 % (1 - cos^2(rho_0), the figure the grid's docstring used to
give, holds only when l3 >= 0).

Branch and bound. Candidates covering the region that can hold n* with covering radius rho (every direction of it
within rho of a candidate) contain one within rho of n*, whose range is >= (1 - 2 sin^2 rho) R* >=
(1 - 2 sin^2 rho) max R over the candidates; so n* lies within rho of a candidate whose range reaches that
threshold. Those candidates (at most ``keep`` per node and criterion, the best) become centres: around each, a 3 x 3
pattern of spacing h = tan(rho) / 1.5 in the gnomonic plane tangent there covers its cap of radius rho with
covering radius h / sqrt(2) (the gnomonic map only lengthens distances), about 0.47 rho. From the grid (10 deg)
three levels reach 0.78 deg: R* within 2 sin^2(0.78 deg) = 0.04 % (:func:`refinement_radii`, target 0.1 %). The
bound is exact for the range whenever at most ``keep`` candidates per level meet the threshold, as for isolated
maxima (proportional loading: the largest and smallest principal directions; rotating principal directions) or
tied ones (a whole ring of equal range); in any case the result is never below the grid's.

What is maximized. Damage, not the range, governs, and rainflow damage is a step function of the plane (cycles
appear and merge), useless to a local search. Each criterion is a smooth function of the plane's range R, maximum
M and midrange mid, increasing in each: the equivalent amplitude of its largest cycle (the one of range R and mean
mid, the largest equivalent amplitude of the history, :mod:`.damage`) at scale 1 - for the damage - and, with a
design life, the inverse of the scale at which that cycle alone reaches the design life (:func:`.damage.cap_scale`)
- for the safety factor (they rank planes differently once the mean matters: Goodman, Gerber). Without a mean
correction, on a detail category (ranges) and for SWT with no mean both are R itself, and the bound above holds
for them; with a mean, the range part is bounded as above and the mean term is searched the same way. The best
plane of each criterion is then rainflow-counted with the grid's planes (:func:`.damage.fatigue_life`), and a
node's damage is the largest over all of them: never below the grid's, and for a history whose cycles all scale
with its largest (proportional loading, or one dominant cycle) the plane of largest damage.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .criteria import normal_stress_weights

TARGET_LOSS = 1e-3  # relative loss of the largest range (amplitude) the refinement guarantees
KEEP = 3  # centres per node, criterion and level
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


def _extremes(s, node, normals) -> tuple[np.ndarray, np.ndarray]:
    """Largest and smallest value over time (m,) of :func:`plane_histories`, a block of candidates at a time."""
    hi, lo = np.empty(len(node)), np.empty(len(node))
    step = max(1, _FLOATS // s.shape[0])
    for a in range(0, len(node), step):
        h = plane_histories(s, node[a:a + step], normals[a:a + step])
        hi[a:a + step], lo[a:a + step] = h.max(0), h.min(0)
    return hi, lo


def _top(node: np.ndarray, score: np.ndarray, n_nodes: int, loss: float, keep: int) -> np.ndarray:
    """Mask (m,) of the candidates (node (m,), one criterion's ``score`` (m,)) whose score reaches (1 - loss) times
    the best of their node, at most the ``keep`` best of each node."""
    best = np.full(n_nodes, -np.inf)
    np.maximum.at(best, node, score)
    ok = score >= (1.0 - loss) * best[node]
    order = np.lexsort((-score, node))
    first = np.searchsorted(node[order], node[order], side="left")
    rank = np.empty(len(node), int)
    rank[order] = np.arange(len(node)) - first
    return ok & (rank < keep)


def refine_normals(s: np.ndarray, grid: np.ndarray, hi: np.ndarray, lo: np.ndarray,
                   scores: Callable[[np.ndarray, np.ndarray], np.ndarray], radii: list[float],
                   keep: int = KEEP) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The best plane of each criterion for every node, by branch and bound from the grid (module docstring).

    ``s`` (n_t, k, 6) [Pa] stress histories; ``grid`` (G, 3) the grid's normals and ``hi``, ``lo`` (k, G) [Pa] the
    extremes of the normal stress on them; ``scores(hi, lo)`` -> (..., n_crit) the criteria (>= 0, larger is
    worse) of planes with those extremes; ``radii`` from :func:`refinement_radii`. Returns normals (k, n_crit, 3),
    and their hi, lo (k, n_crit) [Pa]; where no candidate beats the grid, the best grid plane's."""
    k, G = hi.shape
    sc = scores(hi, lo)  # (k, G, C)
    n_crit = sc.shape[-1]
    node = np.repeat(np.arange(k), G)
    normals, h, l, sc = np.tile(grid, (k, 1)), hi.ravel(), lo.ravel(), sc.reshape(k * G, n_crit)
    all_node, all_n, all_h, all_l, all_s = [node], [normals], [h], [l], [sc]
    for rho, rho_next in zip(radii[:-1], radii[1:]):
        loss = loss_bound(rho)
        centre = np.zeros(len(node), bool)
        for c in range(n_crit):
            centre |= _top(node, sc[:, c], k, loss, keep)
        node = np.repeat(node[centre], 9)
        normals = _patterns(normals[centre], rho)
        h, l = _extremes(s, node, normals)
        sc = scores(h, l)
        all_node.append(node), all_n.append(normals), all_h.append(h), all_l.append(l), all_s.append(sc)
    node, normals, h, l, sc = (np.concatenate(v) for v in (all_node, all_n, all_h, all_l, all_s))
    out_n, out_h, out_l = np.empty((k, n_crit, 3)), np.empty((k, n_crit)), np.empty((k, n_crit))
    for c in range(n_crit):
        order = np.lexsort((-sc[:, c], node))  # the first of each node's group is its best (stable: grid first)
        first = order[np.searchsorted(node[order], np.arange(k))]
        out_n[:, c], out_h[:, c], out_l[:, c] = normals[first], h[first], l[first]
    return out_n, out_h, out_l
