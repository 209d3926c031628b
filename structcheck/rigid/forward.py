"""Forward dynamics: the joint accelerations that given joint torques produce, for open trees and closed chains,
vectorized over samples (the inverse of :func:`structcheck.rigid.dynamics.inverse_dynamics`).

Method. The equations of motion of the independent coordinates are ``M(q) qdd + h(q, qd) = B(q) tau``:

- open tree: ``M`` column k is the inverse dynamics at (q, qd = 0, qdd = e_k) without gravity or external
  loads (the recursive Newton-Euler is linear in qdd); ``h`` is the inverse dynamics at (q, qd, qdd = 0) with
  gravity, point forces and payloads; ``B`` = I. All samples and all columns go through one vectorized call.
- closed chain (:class:`~structcheck.rigid.closedchain.ClosedChain`): with ``Z = dq/dq_ind`` and the tree
  accelerations ``qdd = Z qdd_ind + qdd_0`` (``qdd_0``: the velocity-product part, the tree's motion at
  qdd_ind = 0, from :func:`~structcheck.rigid.loops.closed_chain_motion`), virtual work on the constrained system
  gives ``M = Z^T M_tree Z``, ``h = Z^T tau_tree(q, qd, qdd_0)`` and ``B = (S Z)^T`` (S picks the actuated
  coordinates): the same relation ``(S Z)^T tau_act = Z^T tau_tree`` by which
  :func:`~structcheck.rigid.closedchain.closed_chain_dynamics` finds the actuator forces, so that forward then
  inverse dynamics returns the torques.

A reflected rotor inertia ``J i^2`` per actuated coordinate adds ``A^T diag(J i^2) A`` to ``M`` (A = S Z; the
diagonal for an open tree); the rotor's gyroscopic coupling with the link that carries it is neglected (of order
J i against J i^2). ``qdd`` comes from a batched Cholesky factorization of ``M``, which also detects a coordinate
that moves no mass.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from ..errors import InputError, require_number
from .closedchain import ClosedChain
from .dynamics import inverse_dynamics
from .loops import closed_chain_motion

__all__ = ["JointSpace", "Rotor", "forward_dynamics", "joint_space", "mass_matrix", "solve_spd"]

NO_GRAVITY = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Rotor:
    """A drive's rotor seen at its joint: ``inertia`` J of the rotor (with the parts turning at motor speed)
    [kg m^2] and the reduction ``ratio`` i (motor speed / joint speed); its kinetic energy adds the reflected
    inertia J i^2 to the joint's diagonal of the mass matrix [kg m^2, or kg for a prismatic joint driven by a
    screw whose ``ratio`` is motor rad per m]."""

    inertia: float
    ratio: float = 1.0

    def __post_init__(self):
        require_number("rotor inertia", self.inertia, "kg m^2", at_least=0.0)
        require_number("rotor reduction ratio", self.ratio, "motor speed / joint speed")

    @property
    def reflected(self) -> float:
        """J i^2 [kg m^2 or kg]."""
        return self.inertia * self.ratio ** 2


@dataclass(frozen=True)
class JointSpace:
    """Equations of motion ``M qdd + h = B tau`` of the independent coordinates at n_t samples.

    ``coordinates`` the independent coordinates (n) and ``actuated`` the coordinates tau drives (n_act; the same
    for an open tree); ``M`` (n_t, n, n) mass matrix with the rotors' reflected inertia [kg m^2, kg];
    ``h`` (n_t, n) bias: the generalized forces that hold qdd = 0 at (q, qd) against velocity products, gravity
    and point forces [N m, N]; ``B`` (n_t, n, n_act) maps actuator torques/forces to generalized forces;
    ``q_tree``, ``qd_tree`` (n_t, n_coords) every tree coordinate and its rate (the independent ones for an open
    tree), ``Z`` (n_t, n_coords, n) = d q_tree / d q and ``qdd0_tree`` (n_t, n_coords) the tree accelerations at
    qdd = 0: the tree's accelerations are ``Z qdd + qdd0_tree``."""

    coordinates: tuple
    actuated: tuple
    M: np.ndarray
    h: np.ndarray
    B: np.ndarray
    q_tree: np.ndarray
    qd_tree: np.ndarray
    Z: np.ndarray
    qdd0_tree: np.ndarray

    def accelerations(self, tau) -> np.ndarray:
        """qdd (n_t, n) [rad/s^2, m/s^2] from actuator torques/forces ``tau`` (n_t, n_act) or (n_act,)."""
        tau = np.broadcast_to(np.asarray(tau, float), (len(self.M), len(self.actuated)))
        return solve_spd(self.M, np.einsum("tij,tj->ti", self.B, tau) - self.h, self.coordinates)

    def tree_accelerations(self, qdd) -> np.ndarray:
        """Every tree coordinate's acceleration (n_t, n_coords) from the independent ones (n_t, n)."""
        return np.einsum("tij,tj->ti", self.Z, qdd) + self.qdd0_tree


def solve_spd(M, b, names=()) -> np.ndarray:
    """x (n_t, n) with M x = b for symmetric positive definite M (n_t, n, n) and b (n_t, n), by a batched
    Cholesky factorization; InputError naming the first sample and ``names`` when some M is not positive
    definite (a coordinate that moves no mass)."""
    M = 0.5 * (M + np.swapaxes(M, 1, 2))  # round-off asymmetry of the Newton-Euler columns
    if M.shape[1] == 0:
        return np.zeros(b.shape)
    try:
        L = np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        w, v = np.linalg.eigh(M)
        k = int(np.argmin(w[:, 0]))
        lazy = [n for n, c in zip(names, np.abs(v[k, :, 0])) if c > 0.3] or list(names)
        raise InputError(f"the mass matrix is singular at sample {k} (smallest eigenvalue {w[k, 0]:.3g}): "
                         f"coordinate(s) {lazy} move no mass; give those links a mass and inertia, or the joint "
                         f"a rotor inertia") from None
    y = np.linalg.solve(L, b[..., None])
    return np.linalg.solve(np.swapaxes(L, 1, 2), y)[..., 0]


def _rotor_diag(names, rotors) -> np.ndarray:
    """Reflected inertias (n_act,) [kg m^2, kg] of the actuated coordinates ``names`` from name -> Rotor."""
    rotors = dict(rotors or {})
    unknown = sorted(set(rotors) - set(names))
    if unknown:
        raise InputError(f"rotor inertia given for {unknown}, which are not actuated coordinates; those are "
                         f"{list(names)}")
    out = np.zeros(len(names))
    for k, n in enumerate(names):
        if n in rotors:
            r = rotors[n]
            if not isinstance(r, Rotor):
                raise InputError(f"rotor of {n!r}: give structcheck.rigid.Rotor(inertia, ratio), got {r!r}")
            out[k] = r.reflected
    return out


def _open_space(robot, q, qd, gravity, point_forces, payloads) -> JointSpace:
    q, qd = robot.check_q(q), robot.check_q(qd, "qd")
    if len(q) != len(qd):
        raise InputError(f"q has {len(q)} samples but qd has {len(qd)}")
    n_t, n = q.shape
    zero = np.zeros((n_t * n, n))
    cols = inverse_dynamics(robot, np.repeat(q, n, axis=0), zero, np.tile(np.eye(n), (n_t, 1)), NO_GRAVITY,
                            payloads=payloads).tau
    M = np.swapaxes(cols.reshape(n_t, n, n), 1, 2)  # sample (t, k) holds column k
    h = inverse_dynamics(robot, q, qd, np.zeros_like(q), gravity, point_forces, payloads).tau
    eye = np.broadcast_to(np.eye(n), (n_t, n, n))
    return JointSpace(robot.dof_names, robot.dof_names, M, h, eye, q, qd, eye, np.zeros_like(q))


def _closed_space(chain: ClosedChain, q, qd, gravity, point_forces, payloads, q_guess) -> JointSpace:
    tree = chain.tree
    q = np.atleast_2d(np.asarray(q, float))
    mo = closed_chain_motion(chain, q, qd, np.zeros_like(q), q_guess=q_guess)
    n_t, n_c, n = mo.Z.shape
    # tree accelerations Z e_k at rest, no gravity: tau_tree = M_tree Z e_k, sample (t, k)
    cols = inverse_dynamics(tree, np.repeat(mo.q, n, axis=0), np.zeros((n_t * n, n_c)),
                            np.swapaxes(mo.Z, 1, 2).reshape(n_t * n, n_c), NO_GRAVITY, payloads=payloads).tau
    M = np.einsum("tci,tkc->tik", mo.Z, cols.reshape(n_t, n, n_c))
    h = np.einsum("tci,tc->ti", mo.Z, inverse_dynamics(tree, mo.q, mo.qd, mo.qdd, gravity, point_forces,
                                                       payloads).tau)
    B = np.swapaxes(mo.Z[:, chain.plan.act, :], 1, 2)
    return JointSpace(chain.independent, chain.actuated, M, h, B, mo.q, mo.qd, mo.Z, mo.qdd)


def joint_space(robot, q, qd, gravity=(0.0, 0.0, -9.81), point_forces=None, payloads=None,
                rotors: Mapping | None = None, q_guess=None) -> JointSpace:
    """The equations of motion ``M qdd + h = B tau`` (:class:`JointSpace`) at samples q, qd (n_t, n) or (n,) of
    the independent coordinates (absolute [rad, m], [rad/s, m/s]) of ``robot``: a Robot (its ``dof_names``) or a
    ClosedChain (its ``independent`` coordinates; tau drives its ``actuated`` ones; ``q_guess`` (n_coords,) the
    assembled pose near the first sample, as for :func:`~structcheck.rigid.loops.solve_positions`).

    ``gravity`` (3,) world [m/s^2]; ``point_forces`` point name -> force (n_t, 3) or (3,) world [N];
    ``payloads`` point name -> mass [kg] or (mass, inertia (3, 3) about the point, link axes); ``rotors``
    actuated coordinate name -> :class:`Rotor`."""
    if isinstance(robot, ClosedChain):
        js = _closed_space(robot, q, qd, gravity, point_forces, payloads, q_guess)
    else:
        js = _open_space(robot, q, qd, gravity, point_forces, payloads)
    J = _rotor_diag(js.actuated, rotors)
    if J.any():
        A = np.swapaxes(js.B, 1, 2)
        js = JointSpace(js.coordinates, js.actuated, js.M + np.einsum("tai,a,taj->tij", A, J, A), js.h, js.B,
                        js.q_tree, js.qd_tree, js.Z, js.qdd0_tree)
    return js


def mass_matrix(robot, q, payloads=None, rotors: Mapping | None = None, q_guess=None) -> np.ndarray:
    """M (n_t, n, n) [kg m^2, kg] of the independent coordinates at q (n_t, n) or (n,); see :func:`joint_space`."""
    q = np.atleast_2d(np.asarray(q, float))
    return joint_space(robot, q, np.zeros_like(q), NO_GRAVITY, None, payloads, rotors, q_guess).M


def forward_dynamics(robot, q, qd, tau, gravity=(0.0, 0.0, -9.81), point_forces=None, payloads=None,
                     rotors: Mapping | None = None, q_guess=None) -> np.ndarray:
    """Joint accelerations qdd (n_t, n) [rad/s^2, m/s^2] of the independent coordinates at q, qd (n_t, n) or (n,)
    under actuator torques/forces ``tau`` (n_t, n_act) or (n_act,) [N m, N], gravity, point forces and payloads:
    the inverse of :func:`~structcheck.rigid.dynamics.inverse_dynamics` (an open Robot: n_act = n, its
    ``dof_names``) and of :func:`~structcheck.rigid.closedchain.closed_chain_dynamics` (a ClosedChain: its
    ``independent`` coordinates, tau on its ``actuated`` ones). Arguments as for :func:`joint_space`; ``tau``
    includes the torque that accelerates the ``rotors``."""
    js = joint_space(robot, q, qd, gravity, point_forces, payloads, rotors, q_guess)
    tau = np.asarray(tau, float)
    shape = (len(js.M), len(js.actuated))
    if tau.shape not in (shape, shape[1:]) or not np.all(np.isfinite(tau)):
        raise InputError(f"tau must be finite with shape {shape} or {shape[1:]} (samples x actuated coordinates "
                         f"{list(js.actuated)}), got {tau.shape}")
    return js.accelerations(tau)
