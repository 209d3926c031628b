"""Is the assembled arm a structure or a mechanism?

A mechanism is a motion of the arm that stores no strain energy. In the arm model strain energy lives only in the
superelements and in the joint springs (:mod:`structcheck.flex.assembly`: K = sum_links L^T K_r L + springs), so a
global motion x stores none exactly when

- every superelement moves as a rigid body: its interface nodes move as one rigid body (d_i = d_0 - [p_i]x theta_0,
  theta_i = theta_0 for its interface points p_i) and its fixed-interface and residual coordinates are zero (the
  constraint modes reproduce the rigid motions exactly, the other columns are strained), and
- every released joint motion that has a spring (k > 0) is zero.

That is a kinematic condition: it does not depend on how stiff the links are nor on how heavy the payload is. The
arm is a mechanism when these linear conditions C x = 0 have a non-trivial solution. Interface translations are
measured in units of each link's size (so the rows are dimensionless), every column of C is scaled to unit length
(so the global coordinates' units do not matter), and the arm is a mechanism when the smallest singular value of
C is below ``MECHANISM_TOL`` = 1e-8 of the largest: round-off leaves about 1e-15, a structure, however soft or
heavily loaded, leaves a number of order its geometry's (1e-3 to 1).

A real but low first mode is no mechanism: a slender arm under a heavy payload, or a reducer so soft that the arm
swings at 0.05 Hz, runs to the end and its stresses and deflections give the verdict. (Comparing omega^2 of the
lowest mode with the stiffest part of the model, as an earlier version did, refused exactly those designs.)
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..errors import InputError
from ..spatial import skew

MECHANISM_TOL = 1e-8  # smallest / largest singular value of the scaled no-strain conditions
FREQUENCY_FLOOR_HZ = 1e-3  # a held arm whose first mode is below this cannot be integrated in float64


def _rigid_rows(points: np.ndarray) -> np.ndarray:
    """Orthonormal basis Q (6 n_if, 6) of the rigid motions of interface nodes at ``points`` (n_if, 3) [m], in the
    scaled interface coordinates (d / l, theta) with l the nodes' size about their centroid (at least 1 mm)."""
    r = points - points.mean(axis=0)
    size = max(float(np.max(np.linalg.norm(r, axis=1))), 1e-3)
    R = np.zeros((6 * len(points), 6))
    for i, ri in enumerate(r):
        R[6 * i:6 * i + 3, :3] = np.eye(3)
        R[6 * i:6 * i + 3, 3:] = -skew(ri / size)
        R[6 * i + 3:6 * i + 6, 3:] = np.eye(3)
    return np.linalg.qr(R)[0], size


def strain_free_conditions(model) -> np.ndarray:
    """C (n_rows, n): the linear conditions on the global coordinates x (n,) of one pose's
    :class:`~structcheck.flex.assembly.ArmModel` under which x stores no strain energy (module doc); rows
    dimensionless, columns in the coordinates' own units."""
    n = len(model.labels)
    rows = []
    for name, se in model.superelements.items():
        L = model.maps[name]
        ni = se.n_interface_dofs
        Q, size = _rigid_rows(np.asarray(se.points, float))
        scale = np.tile(np.r_[np.full(3, 1 / size), np.ones(3)], len(se.interfaces))
        Lif = scale[:, None] * L[:ni]
        rows += [Lif - Q @ (Q.T @ Lif), L[ni:]]
    for i, k in model.springs:
        if k > 0:
            rows.append(np.eye(1, n, i))
    return np.vstack(rows) if rows else np.zeros((0, n))


def mechanism_motion(model) -> np.ndarray | None:
    """A motion x (n,) of the arm that stores no strain energy (unit largest component), or None if there is none
    (the arm is a structure): the null vector of :func:`strain_free_conditions` with unit-length columns."""
    C = strain_free_conditions(model)
    n = C.shape[1]
    norms = np.linalg.norm(C, axis=0)
    if np.any(norms == 0.0):  # a coordinate no condition touches moves freely
        x = (norms == 0.0).astype(float)
        return x
    Cs = C / norms
    if Cs.shape[0] < n:
        _, s, Vt = np.linalg.svd(np.vstack([Cs, np.zeros((n - Cs.shape[0], n))]))
    else:
        _, s, Vt = np.linalg.svd(Cs, full_matrices=False)
    if s[-1] > MECHANISM_TOL * s[0]:
        return None
    x = Vt[-1] / norms
    return x / np.max(np.abs(x))


def _joints(model, coordinates) -> list:
    """Sorted names of the joints whose released motions are the global ``coordinates`` (labels
    "joint NAME relative KIND[i]")."""
    return sorted({model.labels[i].split("[")[0].removeprefix("joint ").split(" relative")[0] for i in coordinates})


def check_held(model, what: str = "") -> None:
    """InputError when the assembled arm (one pose) is a mechanism (a passive joint no loop holds, a joint stiffness
    of 0, a loop left free: :func:`mechanism_motion`), naming the released joint motions that take part in it.
    ``what`` is added to the message after "the assembled arm" (e.g. " at t = 0.15 s")."""
    x = mechanism_motion(model)
    if x is None:
        return
    involved = _joints(model, [i for i, v in enumerate(np.abs(x)) if "relative" in model.labels[i] and v > 1e-3])
    raise InputError(f"the assembled arm{what} is a mechanism (a motion that strains no link and no joint spring); "
                     f"released joints in it: {involved or 'none'}. Passive joints are free about their axes and "
                     f"must be held by a closed loop; make the joint actuated (ClosedChain(actuated=...)), give "
                     f"it a joint_stiffness > 0, or set flexibility='link'")


def check_resolvable(model, w2_lowest: float, what: str = "") -> None:
    """After :func:`check_held`: InputError when the arm's first mode is below ``FREQUENCY_FLOOR_HZ``, too soft to
    integrate, naming the soft joints. ``w2_lowest`` [rad^2/s^2] is the lowest omega^2 of the eigen solve of
    (K, M), whose round-off is about eps omega_max^2 (1e-4 to 1 on real arms): above 1 it is trusted as it is;
    below, the lowest omega^2 is found again as 1 / the largest eigenvalue of (M, K), which a Cholesky factor of K
    resolves to its relative precision (and a K that is not positive definite is no structure to integrate)."""
    if w2_lowest > 1.0:
        return
    try:
        mu = sla.eigh(model.M, model.K, eigvals_only=True, subset_by_index=[len(model.K) - 1] * 2)[0]
        w2 = 1.0 / mu if mu > 0 else 0.0
    except np.linalg.LinAlgError:
        w2 = 0.0
    if w2 >= (2 * np.pi * FREQUENCY_FLOOR_HZ) ** 2:
        return
    check_held(model, what)
    soft = _joints(model, [i for i, k in model.springs if k > 0])
    raise InputError(f"the assembled arm{what} has its first mode below {FREQUENCY_FLOOR_HZ:g} Hz (omega^2 = "
                     f"{w2:.3g}), too soft to integrate; the joint springs {soft or 'none'} are that soft: give "
                     f"joint_stiffness its catalogue value (N m/rad), or set flexibility='link'")
