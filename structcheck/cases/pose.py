"""The worst static pose: over the joint ranges, the pose that maximizes each joint's holding torque and each
link's peak von Mises stress under gravity and payload, the robot standing still (qd = qdd = 0).

Search: a grid of ``points`` values per searched joint over its range (``points ** d`` poses for d joints; a joint
given one value, or a range of zero width, is held there), then a bounded local optimizer
(``scipy.optimize.minimize``, Powell; ``xtol`` = :data:`XTOL` rad or m and ``ftol`` = :data:`FTOL` relative for
the torques, :data:`XTOL_STRESS` and :data:`FTOL_STRESS` for the stresses) from the ``starts`` best grid poses:
a local refinement, not a proof of the global maximum (a finer grid bounds the gap). The holding torques of all
grid poses come from one vectorized inverse dynamics (:func:`structcheck.rigid.stage.rigid_body` at zero speeds
and accelerations, in chunks of :data:`CHUNK` poses).
A closed chain goes through its own machinery (:mod:`structcheck.rigid.closedchain`): the searched joints are its
independent coordinates, the loops are closed at every pose and its actuated joints' torques are reported; a grid
pose where a loop cannot close or a dependent joint leaves its limits is refused (InputError: give narrower
ranges).

Static stresses by superposition: each FE link, clamped at its proximal joint and loaded by gravity, its distal
joints' reaction wrenches and its payloads (:func:`structcheck.loads.link_loads`), has the static response
u = U @ coeff (``build_basis(part, F, support, n_modes=0)``); that per-link model is exact for static loads (no
elastic inertia; the arm model's joints carry the same wrenches). The peak over every element node and every
pose is found by the bound-screened :func:`structcheck.fe.response.peak_von_mises`, with the first pose that
reaches it (each pose's largest value over the points evaluated: a point skipped is below the peak). Point forces
of the study (time laws) are not part of a static pose unless asked (:func:`held_forces`: each at its largest
magnitude).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import numpy as np

from .. import loads as linkloads
from ..errors import InputError
from ..fe.stress import VON_MISES_MATRIX
from ..rigid.stage import as_chain
from .posesearch import (CHUNK, FTOL, MAXFEV, TURN, XTOL, Worst, _refine, _tops, holding_torques,  # noqa: F401
                         pose_grid, search_ranges, search_torques, static_bodies)

#: Powell's tolerances for the link stresses (each evaluation a load case; a relative 1e-8 is far below the mesh's
#: own error); those of the holding torques are :data:`structcheck.cases.posesearch.XTOL` and ``FTOL``.
XTOL_STRESS, FTOL_STRESS = 1e-5, 1e-8
#: The local stress search evaluates the element points whose bound reaches this share of the grid's peak.
CANDIDATE_SHARE = 0.7


@dataclass(frozen=True)
class PoseSearch:
    """The searched coordinates ``joints`` with their ``ranges`` (name -> (low, high) absolute [rad or m]), the
    ``points`` per joint, the grid's size ``n_grid``, each joint's worst holding torque (``torques``) and each FE
    link's worst static von Mises stress (``stresses``; empty when not asked); the point ``forces`` held (point ->
    (3,) world [N]; empty: gravity and payloads alone)."""

    joints: tuple[str, ...]
    ranges: dict
    points: int
    n_grid: int
    torques: dict = field(default_factory=dict)
    stresses: dict = field(default_factory=dict)
    forces: dict = field(default_factory=dict)


def worst_holding_torques(study_or_robot, points: int = 7, ranges: Mapping[str, Any] | None = None,
                          gravity=None, payloads: Mapping[str, Any] | None = None,
                          starts: int = 3) -> dict[str, tuple[float, dict]]:
    """Each joint's worst static holding torque: ``{joint: (torque [N m or N], pose {joint: value})}`` (for a brake
    or a reducer's holding check). ``study_or_robot``: a Study (its robot with its meshes' inertials, its gravity
    and payloads; ``gravity``/``payloads`` then override) or a Robot/ClosedChain (``gravity`` default (0, 0,
    -9.81) m/s^2; ``payloads`` point -> mass [kg] or (mass, inertia about the point in link axes)). ``ranges`` and
    ``points`` as in :func:`search_ranges` and :func:`pose_grid`."""
    chain, g, pl = static_model(study_or_robot, gravity, payloads)
    worst = search_torques(chain, search_ranges(chain, ranges), points, g, pl, starts)
    return {j: (w.value, w.pose) for j, w in worst.items()}


def static_model(study_or_robot, gravity, payloads):
    """(chain with the inertials the study runs with, gravity (3,), payloads) of a Study or a robot."""
    from ..study import Study, prepare

    if isinstance(study_or_robot, Study):
        prep = prepare(study_or_robot)
        g = study_or_robot.gravity if gravity is None else gravity
        return prep.chain, np.asarray(g, float), prep.payloads if payloads is None else payloads
    g = (0.0, 0.0, -9.81) if gravity is None else gravity
    table = {p: (float(v), np.zeros((3, 3))) if np.isscalar(v) else (float(v[0]), np.asarray(v[1], float))
             for p, v in dict(payloads or {}).items()}  # as the link loads take them: (mass, inertia)
    return as_chain(study_or_robot), np.asarray(g, float), table


@dataclass(frozen=True)
class StaticLink:
    """One FE link's static model: its ``part``, clamped on ``support``, and the ``basis`` of its unit loads
    (``U``, stress basis ``S``; no modes)."""

    part: Any
    support: tuple[str, ...]
    basis: Any


def static_links(chain, parts: Mapping[str, Any], q0: np.ndarray, gravity, payloads,
                 forces: Mapping | None = None) -> dict[str, StaticLink]:
    """Each FE link's unit-load basis (:func:`structcheck.fe.linkbasis.build_basis` with ``n_modes=0``), its unit
    loads taken from the loads at pose ``q0`` (n_driven,) (they do not depend on the pose). The links as many at a
    time as there are cores (:func:`structcheck.pool.map_in_threads`: each factorizes its own matrix)."""
    from ..fe.linkbasis import build_basis
    from ..pool import map_in_threads

    chain = as_chain(chain)
    _, _, body = next(static_bodies(chain, np.atleast_2d(q0), gravity, payloads, forces))

    def static_link(name):
        ld = linkloads.link_loads(chain, body.dynamics, name, parts[name], gravity, dict(forces or {}), payloads)
        return StaticLink(parts[name], ld.support, build_basis(parts[name], ld.F, list(ld.support), 0))

    names = [n for n in chain.tree.link_names if n in parts]
    return dict(zip(names, map_in_threads(static_link, names, weight=lambda n: parts[n].n_dofs)))


def static_coefficients(chain, links: Mapping[str, StaticLink], Q: np.ndarray, gravity,
                        payloads, forces: Mapping | None = None) -> dict[str, np.ndarray]:
    """Each link's load coefficients (n, k) at the poses Q (n, n_driven): its static load is ``F @ coeff[i]``."""
    chain = as_chain(chain)
    parts = {n: [] for n in links}
    for a, b, body in static_bodies(chain, Q, gravity, payloads, forces):
        held = {p: np.broadcast_to(np.asarray(f, float), (b - a, 3)) for p, f in (forces or {}).items()}
        for n, sl in links.items():
            parts[n].append(linkloads.link_loads(chain, body.dynamics, n, sl.part, gravity, held, payloads,
                                                 unit_loads=sl.basis.F).coeff)
    return {n: np.vstack(c) for n, c in parts.items()}


def peak_pose(basis, coeff: np.ndarray) -> tuple[float, int]:
    """(largest von Mises [Pa] over the link's element nodes and the poses, the index of the first pose reaching it
    to a relative 1e-12) of the static responses ``U @ coeff[i]`` (``coeff`` (n, k)): one pass of
    :func:`structcheck.fe.response.peak_von_mises` keeping each pose's largest value over the points it
    evaluates (a point it skips is below the peak)."""
    from ..fe.response import peak_von_mises

    peak, i = peak_von_mises(basis, coeff, where=True)
    return peak, int(i)


def search_stresses(chain, links: Mapping[str, StaticLink], ranges: dict, points: int, gravity, payloads,
                    starts: int = 2, forces: Mapping | None = None) -> dict[str, Worst]:
    """Each link's largest static von Mises stress [Pa] over the grid (all poses at once by superposition),
    refined by the local optimizer from the link's worst grid pose and from the worst grid poses of up to
    ``starts - 1`` other links (which often load this one too). The links' peaks, then their refinements, as many
    links at a time as there are cores (:func:`structcheck.pool.map_in_threads`; each link's work is its own)."""
    from ..fe.response import peak_von_mises
    from ..pool import map_in_threads

    chain = as_chain(chain)
    Q = pose_grid(ranges, points)
    coeff = static_coefficients(chain, links, Q, gravity, payloads, forces)
    size = {n: sl.part.n_dofs for n, sl in links.items()}
    found = dict(zip(links, map_in_threads(lambda n: peak_pose(links[n].basis, coeff[n]), list(links),
                                           weight=size.get)))
    names = list(ranges)

    def refined(n):
        sl = links[n]
        others = [i for m, (_, i) in found.items() if m != n][:max(0, starts - 1)]
        peak = _candidate_peak(sl.basis, coeff[n], found[n][0])

        def at(q):
            return static_coefficients(chain, {n: sl}, q[None], gravity, payloads, forces)[n]

        _, q = _refine(lambda q: peak(at(q)), Q[[found[n][1], *others]], ranges, XTOL_STRESS, FTOL_STRESS)
        # the value at the pose found over every element point (the candidates' value is at most it)
        value = peak_von_mises(sl.basis, at(q))
        return Worst(float(value), dict(zip(names, map(float, q))), float(found[n][0]))

    return dict(zip(links, map_in_threads(refined, list(links), weight=size.get)))


def _candidate_peak(basis, coeff: np.ndarray, grid_peak: float, share: float = CANDIDATE_SHARE):
    """A fast objective for the local optimizer: the largest von Mises over the element points whose bound over
    the grid's coefficient box (sum_j max_i |c_ij| |T s_j(p)|) reaches ``share`` of the grid's peak, the only
    points that can carry a peak near it at poses between grid poses. Returns coeff (1, k) -> value [Pa]."""
    from ..fe.screening import squared_norms

    k = coeff.shape[1]
    S = basis.S[:k]
    idx = np.nonzero(np.abs(coeff).max(axis=0) @ point_norms(S) >= share * grid_peak)[0]
    v, e = np.divmod(idx, S.shape[3])
    op = np.einsum("cs,ksp->kcp", VON_MISES_MATRIX, S[:, :, v, e]).reshape(k, -1)
    return lambda c: float(np.sqrt(squared_norms((c @ op).reshape(-1, 5, len(idx))).max()))

def search(study, points: int = 7, ranges: Mapping[str, Any] | None = None, starts: int = 1,
           stresses: bool = True, forces: bool = False) -> PoseSearch:
    """The worst static poses of ``study``: each driven joint's holding torque and (``stresses``) each FE link's
    static peak von Mises, under the study's gravity and payloads, with the inertials it runs with; with
    ``forces``, its point forces too, each held at its largest magnitude (:func:`held_forces`)."""
    chain, g, pl = static_model(study, None, None)
    r = search_ranges(chain, ranges)
    held = held_forces(study) if forces else {}
    torques = search_torques(chain, r, points, g, pl, starts, held)
    found = {}
    if stresses and study.parts:
        home = np.array([chain.tree.joint(j).home for j in r])
        q0 = np.clip(home, [lo for lo, _ in r.values()], [hi for _, hi in r.values()])
        links = static_links(chain, study.parts, q0, g, pl, held)
        found = search_stresses(chain, links, r, points, g, pl, starts, held)
    return PoseSearch(tuple(r), r, points, len(pose_grid(r, points)), torques, found, held)


def held_forces(study) -> dict[str, np.ndarray]:
    """Each point force of ``study`` held still at its largest magnitude over the study's analysis grid, along its
    direction: point -> (3,) world [N] (forces at the same point added). A payload given as a force (paper 004's
    196 N claw load) is then part of the static pose."""
    from ..motion import as_law, time_grid

    laws = [as_law(pf.magnitude) for pf in study.point_forces]
    t = time_grid(laws, study.t_end, n_frames=study.n_frames, min_ramp_samples=study.min_ramp_samples,
                  max_dt=study.max_step_s).t if laws else np.zeros(1)
    hist = linkloads.point_force_histories(study.point_forces, laws, t)
    return {p: f[np.argmax(np.linalg.norm(f, axis=1))] for p, f in hist.items()}


def pose_study(study, pose: Mapping[str, float], name: str | None = None, hold_s: float = 1.0,
               forces: Mapping[str, Any] | None = None):
    """``study`` standing still at ``pose`` (joint -> absolute value [rad or m]; joints not named stay where the
    study starts them): a constant motion held ``hold_s`` [s], quasi-static, the point ``forces`` (point -> (3,)
    world [N], constant: :attr:`PoseSearch.forces`) instead of the study's (none by default), no fatigue (a
    holding case is checked against yield), so that :func:`structcheck.study.run` gives its full results and
    verdict. ``name`` defaults to ``<study>_worst_pose``."""
    chain = as_chain(study.robot)
    unknown = sorted(set(pose) - set(chain.independent))
    if unknown:
        raise InputError(f"pose names {unknown}, not driven joints; the robot's are {list(chain.independent)}")
    motion = dict(study.motion)
    for j, v in pose.items():
        motion[j] = float(v) - chain.tree.joint(j).home  # laws are offsets from home
    from ..user_loads import PointForce

    held = tuple(PointForce(p, float(np.linalg.norm(f)), tuple(np.asarray(f, float) / np.linalg.norm(f)))
                 for p, f in (forces or {}).items() if np.linalg.norm(f) > 0)
    return replace(study, name=name or f"{study.name}_worst_pose", motion=motion, t_end=hold_s, n_frames=2,
                   quasi_static=True, point_forces=held, fatigue=None, ringing_samples=False)


def point_norms(S: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """|T s_j(p)| (k, n_points) for every basis column j and element point p (v * n_e + e order)."""
    k, _, n_loc, n_e = S.shape
    out = np.empty((k, n_loc, n_e))
    for a in range(0, n_e, chunk):
        V = np.einsum("cs,ksve->kcve", VON_MISES_MATRIX, S[..., a:a + chunk])
        out[..., a:a + chunk] = np.sqrt(np.einsum("kcve,kcve->kve", V, V))
    return out.reshape(k, -1)
