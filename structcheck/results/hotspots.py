"""A link's top hot spots: the few most stressed places of its von Mises envelope, each with its time, its
unaveraged and nodal-averaged stress there and then, the stress-discontinuity indicator, and whether it sits at a
joint face (clamped or coupled), where linear elasticity makes the stress singular (docs/peaks.md).

Selection (greedy, on the envelope max over time of the unaveraged element-node von Mises at each node): the node
of the largest envelope value is the first hot spot; every node within :func:`hot_spot_radius` of a chosen one is
left out, and the largest of the rest is the next, up to :data:`N_HOT_SPOTS`. The first is therefore the link's
peak (``max_von_mises_pa`` at ``location_of_max_link_m``).

At each hot-spot node the 6-component stress history of every element sharing it is formed from the stress basis
(the element's own stress at that node: a vertex's value, the mean of its edge's vertices at a mid-side node of a
straight element, the node's own value on a curved one, as :mod:`structcheck.fe.response` and
:mod:`structcheck.fe.averaging` take it): the unaveraged von Mises is the largest element's, the averaged one that
of the elements' mean tensor, and the hot spot's time is the sample of its unaveraged maximum. Cost: one product
(n_t, n_b) x (n_b, 6 k) per hot spot, k the elements at the node (~30).
"""
from __future__ import annotations

import numpy as np

from ..fe.assembly import p2_edges
from ..fe.stress import VON_MISES_MATRIX

N_HOT_SPOTS = 5  # hot spots listed per link
RADIUS_OF_DIAGONAL = 0.1  # hot spots are at least this fraction of the link's box diagonal apart (or the band)


def hot_spot_radius(points: np.ndarray, support_band_m: float) -> float:
    """The smallest distance [m] between two hot spots of a link with nodes ``points`` (n, 3) [m]: 10% of its
    bounding box's diagonal, and at least the study's support band (one singular face gives one hot spot)."""
    diagonal = float(np.linalg.norm(np.ptp(points, axis=0)))
    return max(RADIUS_OF_DIAGONAL * diagonal, float(support_band_m))


def pick_nodes(points: np.ndarray, envelope: np.ndarray, radius: float, n: int = N_HOT_SPOTS) -> list[int]:
    """Greedy hot-spot nodes: the node of the largest ``envelope`` (n_nodes,) value, then the largest farther than
    ``radius`` [m] from every node chosen, and so on, up to ``n`` nodes (fewer on a small part); nodes of zero
    stress are never chosen."""
    free = np.asarray(envelope, float) > 0
    out: list[int] = []
    while free.any() and len(out) < n:  # a loop over hot spots (<= n), each one vectorized pass over the nodes
        i = int(np.argmax(np.where(free, envelope, -np.inf)))
        out.append(i)
        free &= np.linalg.norm(points - points[i], axis=1) > radius
    return out


def node_histories(S: np.ndarray, cells: np.ndarray, C: np.ndarray, node: int) -> np.ndarray:
    """Stress tensors (n_t, k, 6) [Pa] at ``node`` of each of the k elements sharing it, over the samples of
    coefficients ``C`` (n_t, n_b), from the element stress basis ``S`` (n_b, 6, n_p, n_elem) of
    ``LinkBasis.S`` and the element nodes ``cells`` (n_elem, 10)."""
    elems, pos = np.nonzero(cells == node)
    n_p = S.shape[2]
    if n_p == 10:
        B = S[:, :, pos, elems]  # (n_b, 6, k)
    else:  # straight elements: vertex values; a mid-side node takes the mean of its edge's two vertices
        pairs = np.concatenate([np.c_[np.arange(4), np.arange(4)], p2_edges()])[pos]  # (k, 2)
        B = 0.5 * (S[:, :, pairs[:, 0], elems] + S[:, :, pairs[:, 1], elems])
    n_b, _, k = B.shape
    return (C @ B.reshape(n_b, 6 * k)).reshape(len(C), 6, k).transpose(0, 2, 1)  # one BLAS product


def von_mises(s: np.ndarray) -> np.ndarray:
    """Von Mises stress (...,) of stress vectors s (..., 6) [xx, yy, zz, yz, xz, xy]."""
    return np.linalg.norm(s @ VON_MISES_MATRIX.T, axis=-1)


def surface_distances(part, names) -> dict[str, np.ndarray]:
    """Name -> distance (n_nodes,) [m] of every node of ``part`` to the named surface, for the ``names`` the part
    has."""
    return {n: part.distance_to_surfaces([n]) for n in names if n in part.surfaces}


def hot_spots(part, S: np.ndarray, C: np.ndarray, t: np.ndarray, envelope: np.ndarray, faces: dict,
              support_band_m: float) -> list[dict]:
    """The link's hot spots (:func:`pick_nodes`) as summary.json entries: place in the link frame [m], time [s],
    unaveraged and averaged von Mises [Pa] at that node and time, the discontinuity indicator (unaveraged /
    averaged - 1), the nearest joint face (``faces``: name -> node distances [m], :func:`surface_distances`) and
    its distance [m], and ``at_joint_face``: within ``support_band_m`` of it (a clamped or coupled face: the
    stress there may be a singularity of the model, not of the part). ``S`` (n_b, 6, n_p, n_elem) the stress
    basis, ``C`` (n_t, n_b) the coefficients over the analysis grid ``t`` (n_t,)."""
    out = []
    for node in pick_nodes(part.points, envelope, hot_spot_radius(part.points, support_band_m)):
        s = node_histories(S, part.cells, C, node)  # (n_t, k, 6)
        vm = von_mises(s).max(axis=1)
        i = int(np.argmax(vm))
        avg = float(von_mises(s[i].mean(axis=0)))
        face, dist = min(((n, float(d[node])) for n, d in faces.items()), key=lambda x: x[1], default=(None, None))
        out.append({"location_link_m": tuple(map(float, part.points[node])), "time_s": float(t[i]),
                    "von_mises_pa": float(vm[i]), "von_mises_averaged_pa": avg,
                    "stress_discontinuity": float(vm[i] / avg - 1.0) if avg > 0 else float("inf"),
                    "nearest_joint_face": face, "distance_to_joint_face_m": dist,
                    "at_joint_face": bool(dist is not None and dist <= support_band_m)})
    return out
