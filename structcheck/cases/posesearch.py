"""The worst static pose's search over the joint ranges, without a study: a grid of every searched joint's range
and a bounded local refinement (:mod:`structcheck.cases.pose` describes the method), and each actuated joint's
largest static holding torque. Apart from :mod:`structcheck.cases.pose` (which reads a Study) so that a library
below the study, e.g. the drives' brake check (:mod:`structcheck.drives.holding`), can search a chain.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..errors import InputError
from ..rigid.stage import as_chain, rigid_body

#: Powell's line-search tolerance on the joint values [rad or m] and relative tolerance on the objective for the
#: holding torques (cheap: tight).
XTOL, FTOL = 1e-8, 1e-12
#: Objective evaluations per local search at most (a search that stops there keeps its best pose; the grid's is
#: never lost).
MAXFEV = 3000
#: Poses per vectorized inverse dynamics (bounds the memory of the kinematics arrays: ~1 kB per link and pose).
CHUNK = 20000
#: An infinite range (a continuous joint) is searched over one turn.
TURN = (-np.pi, np.pi)


@dataclass(frozen=True)
class Worst:
    """The worst pose of one quantity: ``value`` [N m, N or Pa] (a holding torque keeps its sign), ``pose`` joint
    name -> value [rad or m] (every searched coordinate, absolute), ``grid_value`` the best on the grid alone."""

    value: float
    pose: dict
    grid_value: float


def search_ranges(chain, ranges: Mapping[str, Any] | None = None) -> dict[str, tuple[float, float]]:
    """The range of each independent coordinate of ``chain`` (a Robot or ClosedChain): ``ranges`` joint -> (low,
    high) or one value (held there) [rad or m, absolute], else its limits (one turn for a continuous joint).
    InputError for an unknown joint, a range outside the limits or low > high."""
    chain = as_chain(chain)
    tree = chain.tree
    given = dict(ranges or {})
    unknown = sorted(set(given) - set(chain.independent))
    if unknown:
        raise InputError(f"ranges name {unknown}, not driven joints; the robot's are {list(chain.independent)}")
    out = {}
    for name in chain.independent:
        j = tree.joint(name)
        lim = (j.lower, j.upper) if np.isfinite([j.lower, j.upper]).all() else TURN
        r = given.get(name, lim)
        lo, hi = (float(r), float(r)) if np.isscalar(r) else (float(r[0]), float(r[1]))
        if not (np.isfinite([lo, hi]).all() and lo <= hi):
            raise InputError(f"range of joint {name!r} = {r!r}: give (low, high) with low <= high, or one value")
        if lo < j.lower - 1e-12 or hi > j.upper + 1e-12:
            raise InputError(f"range of joint {name!r} = ({lo:g}, {hi:g}) leaves its limits ({j.lower:g}, "
                             f"{j.upper:g}); give a range within them")
        out[name] = (lo, hi)
    return out


def pose_grid(ranges: Mapping[str, tuple[float, float]], points: int) -> np.ndarray:
    """Every combination of ``points`` evenly spaced values per range (one value for a zero-width range):
    (n_poses, n_joints) [rad or m], joints in ``ranges`` order, the first joint varying slowest."""
    if not (isinstance(points, (int, np.integer)) and points >= 2):
        raise InputError(f"points = {points!r}: give a whole number >= 2 of grid values per joint")
    axes = [np.linspace(lo, hi, points) if hi > lo else np.array([lo]) for lo, hi in ranges.values()]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(axes))


def static_bodies(chain, Q: np.ndarray, gravity, payloads, forces: Mapping | None = None):
    """The rigid-body stage of ``chain`` standing still at each pose Q (n, n_driven): yields (a, b, RigidBody) for
    the poses a..b-1, :data:`CHUNK` at a time (qd = qdd = 0; gravity (3,) world [m/s^2]; payloads as the inverse
    dynamics takes them; ``forces`` point -> constant force (3,) world [N], none by default)."""
    forces = {p: np.asarray(f, float) for p, f in (forces or {}).items()}
    for a in range(0, len(Q), CHUNK):
        q = Q[a:a + CHUNK]
        zero = np.zeros_like(q)
        held = {p: np.broadcast_to(f, (len(q), 3)) for p, f in forces.items()}
        yield a, a + len(q), rigid_body(chain, None, q, zero, zero, gravity, held, payloads)


def holding_torques(chain, Q: np.ndarray, gravity, payloads, forces: Mapping | None = None) -> np.ndarray:
    """Static holding torques (n, n_driven) [N m or N] of the driven (for a closed chain: actuated) coordinates
    at the poses Q (n, n_driven)."""
    chain = as_chain(chain)
    cols = [chain.tree.dof_names.index(n) for n in chain.actuated]
    out = np.empty((len(Q), len(cols)))
    for a, b, body in static_bodies(chain, Q, gravity, payloads, forces):
        out[a:b] = body.tau[:, cols]
    return out


def _refine(fun, starts: np.ndarray, ranges: dict, xtol: float = XTOL,
            ftol: float = FTOL) -> tuple[float, np.ndarray]:
    """Maximize ``fun(q)`` (a scalar of one pose (n_driven,)) from each start pose with bounded Powell; the best
    (value, pose). Held joints (zero-width ranges) stay fixed."""
    from scipy.optimize import minimize

    free = np.array([hi > lo for lo, hi in ranges.values()])
    bounds = [r for r, f in zip(ranges.values(), free) if f]
    best = (-np.inf, None)
    for q0 in starts:
        def neg(x, q0=q0):
            q = q0.copy()
            q[free] = x
            return -fun(q)

        if not free.any():
            value, q = fun(q0), q0
        else:
            res = minimize(neg, q0[free], method="Powell", bounds=bounds,
                           options=dict(xtol=xtol, ftol=ftol, maxfev=MAXFEV))
            q = q0.copy()
            q[free] = np.clip(res.x, [b[0] for b in bounds], [b[1] for b in bounds])
            value = fun(q)
            if value < fun(q0):  # never worse than the start
                value, q = fun(q0), q0
        if value > best[0]:
            best = (value, q)
    return best


def _tops(values: np.ndarray, starts: int) -> np.ndarray:
    """Indices of the ``starts`` largest values."""
    k = min(starts, len(values))
    return np.argpartition(-values, k - 1)[:k]


def search_torques(chain, ranges: dict, points: int, gravity, payloads, starts: int = 3,
                   forces: Mapping | None = None, joints=None) -> dict[str, Worst]:
    """Each actuated coordinate's largest static holding torque |tau| over the grid, refined from its ``starts``
    best grid poses; the value keeps the torque's sign. ``joints``: only these actuated coordinates (None: all;
    the refinement is the search's larger cost)."""
    chain = as_chain(chain)
    Q = pose_grid(ranges, points)
    tau = holding_torques(chain, Q, gravity, payloads, forces)
    names = list(ranges)
    out = {}
    for k, joint in enumerate(chain.actuated):
        if joints is not None and joint not in joints:
            continue
        top = _tops(np.abs(tau[:, k]), starts)
        value, q = _refine(lambda q, k=k: abs(holding_torques(chain, q[None], gravity, payloads, forces)[0, k]), Q[top],
                           ranges)
        signed = float(holding_torques(chain, q[None], gravity, payloads, forces)[0, k])
        out[joint] = Worst(float(np.copysign(value, signed)), dict(zip(names, map(float, q))),
                           float(np.abs(tau[:, k]).max()))
    return out
