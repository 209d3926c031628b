"""The rigid-body stage of a study: driven motion -> every coordinate's motion, torques, joint wrenches and the
rigid-body checks, for an open tree or a closed chain alike."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from . import closedchain as cc
from . import dynamics
from .closedchain import ClosedChain, ClosedChainDynamics
from .dynamics import Dynamics


@dataclass(frozen=True)
class RigidBody:
    """The rigid-body stage of a run: every tree coordinate's ``q``, ``qd``, ``qdd`` (n_t, n_coords) in the
    tree's ``dof_names`` order, ``tau`` (n_t, n_coords) actuator torques/forces (0 on passive joints), the
    ``dynamics`` (joint wrenches of every joint, cut joints of closed chains last, and the link kinematics), the
    checks (``power_balance``, rigid-body ``equilibrium``, relative; ``loop_closure``: the largest position
    residual of any cut joint over the motion [m], 0 for an open tree), the ``cuts`` of a closed chain (() for an
    open tree), ``undetermined`` (n_joints, 6) bool: wrench components a redundant loop (or a URDF mimic
    coupling) leaves undetermined (all False when there are none), and the rigid-body stage's ``warnings``
    (a tuple, maybe empty)."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    dynamics: Dynamics | ClosedChainDynamics
    power_balance: float
    equilibrium: float
    cuts: tuple
    undetermined: np.ndarray
    warnings: tuple
    loop_closure: float = 0.0


def as_chain(robot) -> ClosedChain:
    """``robot`` as a :class:`~structcheck.rigid.closedchain.ClosedChain`: itself if it is one, else an open tree
    with no cut joints whose driven coordinates are all its movable joints."""
    return robot if isinstance(robot, ClosedChain) else ClosedChain(robot)


def rigid_body(chain, t, q_drv, qd_drv, qdd_drv, gravity, point_forces, payloads) -> RigidBody:
    """Inverse dynamics and rigid-body checks of ``chain`` (a ClosedChain, or a Robot taken as an open one),
    whose ``chain.tree`` carries the link inertials.

    ``t`` (n_t,) [s] names times in errors (or None); ``q_drv``, ``qd_drv``, ``qdd_drv`` (n_t, n_driven):
    absolute values [rad, m] and rates of the driven coordinates (``chain.independent``: all the movable joints
    of an open tree); ``gravity`` (3,) world [m/s^2]; ``point_forces`` point name -> force (n_t, 3) or (3,)
    world [N]; ``payloads`` point name -> mass or (mass, inertia). Joint limits are checked on every
    coordinate. An open tree (no cut joints) goes through the tree's own inverse dynamics."""
    chain = as_chain(chain)
    tree = chain.tree
    if not chain.cuts:
        tree.check_limits(q_drv, t)
        dyn = tree.inverse_dynamics(q_drv, qd_drv, qdd_drv, gravity=gravity, point_forces=point_forces,
                                    payloads=payloads)
        pb = dynamics.power_balance(tree, q_drv, qd_drv, qdd_drv, dyn, gravity=gravity, point_forces=point_forces)
        eq = float(np.nanmax(dynamics.link_equilibrium(tree, dyn, gravity=gravity, point_forces=point_forces)))
        return RigidBody(q_drv, qd_drv, qdd_drv, dyn.tau, dyn, pb, eq, (), dyn.undetermined, tuple(dyn.warnings))
    motion = cc.closed_chain_motion(chain, q_drv, qd_drv, qdd_drv, t=t)
    tree.check_limits(motion.q, t)
    dyn = cc.closed_chain_dynamics(chain, motion, gravity, point_forces, payloads)
    tau = np.zeros_like(motion.q)
    tau[:, chain.plan.act] = dyn.tau
    pb = cc.power_balance(chain, dyn, gravity, point_forces)
    eq = float(np.nanmax(cc.link_equilibrium(chain, dyn, gravity, point_forces)))
    closure = float(np.max(cc.loop_residuals(chain, motion.q).position, initial=0.0))
    return RigidBody(motion.q, motion.qd, motion.qdd, tau, dyn, pb, eq, chain.cuts, dyn.undetermined,
                     tuple(dyn.warnings), closure)


def starts_still(names, qd: np.ndarray, rtol: float = 1e-6) -> None:
    """InputError when a driven coordinate moves at the first sample: a robot at rest before its motion cannot
    start with a speed (an infinite acceleration). ``names`` (n_driven,); ``qd`` (n_t, n_driven) the motion's speeds
    [rad/s or m/s], whose largest scale ``rtol`` (speeds below it at t[0] are the laws' round-off)."""
    scale = np.max(np.abs(qd), axis=0, initial=0.0)
    moving = [f"{n} ({v:.3g}/s)" for n, v, s in zip(names, qd[0], scale) if abs(v) > rtol * s and v != 0]
    if moving:
        raise InputError(f"the motion starts moving at t = 0: joints {', '.join(moving)}; a robot at rest before "
                         f"its motion cannot: start the laws from standstill, or, for a segment cut from a longer "
                         f"motion, set initial_state='moving'")


def rest_body(chain, t0: float, q0: np.ndarray, gravity, point_forces: dict, payloads) -> RigidBody:
    """The rigid-body stage of the robot standing still at ``q0`` (n_driven,) (the first pose) at time ``t0`` [s]:
    one sample, zero speeds and accelerations, ``point_forces`` point -> (3,) world [N] and ``payloads`` as they
    act at t0 (:func:`rigid_body`; a load (3,) force or (6,) force and moment)."""
    q0 = np.atleast_2d(np.asarray(q0, float))
    zero = np.zeros_like(q0)
    return rigid_body(chain, np.array([t0]), q0, zero, zero, gravity,
                      {p: np.reshape(f, (1, -1)) for p, f in point_forces.items()}, payloads)
