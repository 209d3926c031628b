"""The rigid-body stage of a study: driven motion -> every coordinate's motion, torques, joint wrenches and the
rigid-body checks, for an open tree or a closed chain alike."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class RigidBody:
    """The rigid-body stage of a run: every tree coordinate's ``q``, ``qd``, ``qdd`` (n_t, n_coords) in the
    tree's ``dof_names`` order, ``tau`` (n_t, n_coords) actuator torques/forces (0 on passive joints), the
    ``dynamics`` (joint wrenches of every joint, cut joints of closed chains last, and the link kinematics), the
    checks (``power_balance``, rigid-body ``equilibrium``, relative), the ``cuts`` of a closed chain (else ()),
    ``undetermined`` (n_joints, 6): wrench components a redundant loop (or a URDF mimic coupling) leaves
    undetermined, and the rigid-body stage's ``warnings``."""

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    dynamics: Any
    power_balance: float
    equilibrium: float
    cuts: tuple = ()
    undetermined: np.ndarray | None = None
    warnings: tuple = ()


def is_closed_chain(robot) -> bool:
    from .closedchain import ClosedChain

    return isinstance(robot, ClosedChain)


def as_chain(robot) -> Any:
    """``robot`` as a :class:`~structcheck.rigid.closedchain.ClosedChain`: itself if it is one, else an open tree
    with no cut joints whose driven coordinates are all its movable joints."""
    from .closedchain import ClosedChain

    return robot if isinstance(robot, ClosedChain) else ClosedChain(robot)


def rigid_body(model, tree, t, q_drv, qd_drv, qdd_drv, gravity, point_forces, payloads) -> RigidBody:
    """Inverse dynamics of an open robot or a closed chain (``model``) whose links carry ``tree``'s inertials.

    ``q_drv``... (n_t, n_driven): absolute values of the driven coordinates (all the robot's movable joints, or
    a closed chain's independent ones); joint limits are checked on every coordinate."""
    if not is_closed_chain(model) or not model.cuts:
        from .dynamics import link_equilibrium, power_balance

        tree.check_limits(q_drv, t)
        dyn = tree.inverse_dynamics(q_drv, qd_drv, qdd_drv, gravity=gravity, point_forces=point_forces,
                                    payloads=payloads)
        pb = power_balance(tree, q_drv, qd_drv, qdd_drv, dyn, gravity=gravity, point_forces=point_forces)
        eq = float(np.nanmax(link_equilibrium(tree, dyn, gravity=gravity, point_forces=point_forces)))
        return RigidBody(q_drv, qd_drv, qdd_drv, dyn.tau, dyn, pb, eq,
                         undetermined=getattr(dyn, "undetermined", None), warnings=tuple(getattr(dyn, "warnings", ())))
    from . import closedchain as cc

    chain = cc.ClosedChain(tree, model.cuts, model.independent, model.actuated, model.name)
    motion = cc.closed_chain_motion(chain, q_drv, qd_drv, qdd_drv, t=t)
    tree.check_limits(motion.q, t)
    dyn = cc.closed_chain_dynamics(chain, motion, gravity, point_forces, payloads)
    tau = np.zeros_like(motion.q)
    tau[:, [tree.dof_names.index(n) for n in chain.actuated]] = dyn.tau
    pb = cc.power_balance(chain, dyn, gravity, point_forces)
    eq = float(np.nanmax(cc.link_equilibrium(chain, dyn, gravity, point_forces)))
    return RigidBody(motion.q, motion.qd, motion.qdd, tau, dyn, pb, eq, chain.cuts, dyn.undetermined,
                     tuple(getattr(dyn, "warnings", ())))
