"""Closed kinematic chains: a spanning tree (a :class:`~structcheck.model.robot.Robot`) plus cut joints that close
the loops (parallelograms, hydraulic cylinders), vectorized over time samples.

Model. Every joint of the mechanism but one per loop goes into the tree; the left-out joints are **cut joints**
(:class:`CutJoint`), each tying a frame on its ``parent`` link (A) to a frame on its ``child`` link (B):

- ``revolute``: coincident origins, parallel axes (5 constraint rows); ``prismatic``: B's origin on A's axis,
  no relative rotation (5 rows); ``spherical``: coincident origins (3 rows).

The tree coordinates q (the tree's ``dof_names``) split into the **independent** ones, whose motion is given,
and the **dependent** ones, found from the loop-closure constraints phi(q) = 0 (Newton, continued along time).
Velocities follow from the constraint Jacobian ``G`` (G qd = 0) and accelerations from G qdd = -gamma with the
analytic velocity-product term gamma = Gdot qd (relative acceleration of the cut frames at qdd = 0).

Constraint rows, multipliers and cut wrenches live in the cut joint's frame on A: translational rows along its
axes (relative velocity of B's origin w.r.t. the point of A at the same place), rotational rows along the axes
perpendicular to the joint axis (revolute) or all three (prismatic). A multiplier vector is the wrench [f; m]
that A exerts on B at B's joint-frame origin in those axes. Inverse dynamics: the tree's Newton-Euler gives
tau_tree = M qdd + h - Q_ext; the actuators (any subset of tree coordinates, as many as degrees of freedom,
prismatic included) and the multipliers solve ``tau_tree = S^T tau_act + G^T lambda``: with Z = dq/dq_ind,
``(S Z)^T tau_act = Z^T tau_tree`` (virtual work on the constrained system), then lambda is the minimum-norm
solution of ``G^T lambda = tau_tree - S^T tau_act``. The tree's joint wrenches are then corrected by the cut
wrenches acting as external loads on links A (minus) and B (plus).

Redundant constraints. A planar loop of spatial revolute joints has 3 redundant rows (the out-of-plane force and
the two out-of-plane moments close on themselves): the rank of G comes from an SVD of the dimensionless
constraint matrix (translational rows divided by the mechanism size, prismatic columns multiplied by it), the
multipliers are minimum-norm in those units, and every joint-wrench component that changes along the null space
of G^T is flagged in ``ClosedChainDynamics.undetermined``: rigid-body mechanics cannot say how those components
split between the loop's joints (that takes the joints' and links' compliance).

Layout: this module holds the model (:class:`ClosedChain`, whose frozen ``plan`` carries the arrays the
algorithms need), the inverse dynamics and the checks; the loop closure (positions, rates, residuals) is in
:mod:`structcheck.rigid.loops`, whose public names are importable from here as before.

Conventions as in :mod:`structcheck.rigid.dynamics`: a joint wrench [Fx, Fy, Fz, Mx, My, Mz] is exerted by the parent
on the child at the joint origin in the child's joint-frame axes; for a cut joint that is A on B at the origin of
B's joint frame, in B's joint-frame axes.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from . import dynamics
from ..errors import InputError
from ..model.robot import Robot
from ..spatial import cross
from .dynamics import Dynamics, Inertials, inverse_dynamics
from .kinematics import LinkKinematics
from .loops import (ClosedChainMotion, LoopPlan, LoopResiduals, closed_chain_motion, constraint_jacobian, cut_frames,
                    loop_plan, loop_residuals, rank, scaled, solve_positions, when)

__all__ = ["CUT_TYPES", "ClosedChain", "ClosedChainDynamics", "ClosedChainMotion", "CutJoint", "LoopPlan",
           "LoopResiduals", "closed_chain_dynamics", "closed_chain_motion", "link_equilibrium", "loop_residuals",
           "power_balance", "solve_positions"]

CUT_TYPES = ("revolute", "prismatic", "spherical")

_UNDETERMINED_RTOL = 1e-8


@dataclass(frozen=True)
class CutJoint:
    """A loop-closing joint between link ``parent`` (A) and link ``child`` (B).

    ``origin`` (4, 4): the joint frame on A, in A's link frame; ``child_origin`` (4, 4): the joint frame on B,
    in B's link frame (the frames coincide when the loop is closed, up to the joint's own motion); ``axis`` (3,)
    the joint axis in the joint frame (revolute, prismatic). A prismatic cut joint keeps the two frames parallel.
    """

    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray = field(default_factory=lambda: np.eye(4))
    child_origin: np.ndarray = field(default_factory=lambda: np.eye(4))
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))


@dataclass(frozen=True)
class ClosedChainDynamics:
    """Inverse dynamics of a closed chain.

    ``tau`` (n_t, n_actuated): actuator torques/forces [N m or N] of the ``actuated`` coordinates;
    ``joint_names``: the tree's joints, then the cut joints; ``joint_wrenches`` (n_t, n_joints, 6): parent on
    child at the joint origin in the child's joint-frame axes (cut joints: A on B at B's joint-frame origin, B's
    joint-frame axes), including the cut-joint forces; ``joint_wrenches_world``: the same in world axes (about
    the same points); ``undetermined`` (n_joints, 6) bool: components that rigid-body mechanics cannot determine
    (they change along the redundant constraints' null space at some sample; the values given are the
    minimum-norm ones); ``multipliers`` (n_t, n_rows) minimum-norm constraint forces [N, N m] in the cut frames
    on A; ``constraint_rank`` and ``redundant`` (number of redundant constraint rows); ``tree`` the Dynamics of
    the open tree without the cut forces (its ``kinematics``/``inertials`` describe the links' motion);
    ``warnings`` those of the tree (mimic joints in the tree, whose loop joints are also ``undetermined``)."""

    tau: np.ndarray
    actuated: tuple
    joint_names: tuple
    joint_wrenches: np.ndarray
    joint_wrenches_world: np.ndarray
    undetermined: np.ndarray
    multipliers: np.ndarray
    constraint_rank: int
    redundant: int
    motion: ClosedChainMotion
    tree: Dynamics
    warnings: tuple = ()

    @property
    def kinematics(self) -> LinkKinematics:
        """The links' motion (the tree's LinkKinematics; the loops are closed)."""
        return self.tree.kinematics

    @property
    def inertials(self) -> Inertials:
        """The links' inertial parameters used (the tree's)."""
        return self.tree.inertials


class ClosedChain:
    """A mechanism with closed loops: a spanning ``tree`` (Robot) plus ``cuts`` (CutJoint).

    ``independent``: names of the tree coordinates whose motion is given (as many as the mechanism's degrees of
    freedom); ``actuated``: the coordinates that carry the actuators (default: the independent ones; a hydraulic
    cylinder is a prismatic coordinate); the others are passive (no torque along their axes)."""

    def __init__(self, tree: Robot, cuts: Sequence[CutJoint] = (), independent: Sequence[str] | None = None,
                 actuated: Sequence[str] | None = None, name: str | None = None):
        if not isinstance(tree, Robot):
            raise InputError(f"the spanning tree must be a structcheck Robot, got {type(tree).__name__}")
        self.tree = tree
        self.name = name or tree.name
        self.cuts = _checked_cuts(tree, cuts, self.name)  # none: an open tree, whose dynamics are the tree's own
        self.cut_names = tuple(c.name for c in self.cuts)
        self.joint_names = tree.joint_names + self.cut_names
        self.coordinate_names = tree.dof_names
        self.independent = self._names(tree.dof_names if independent is None else independent, "independent")
        if not self.independent:
            raise InputError(f"closed chain {self.name!r}: give at least one independent coordinate out of "
                             f"{list(self.coordinate_names)}")
        self.actuated = self.independent if actuated is None else self._names(actuated, "actuated")
        if len(self.actuated) != len(self.independent):
            raise InputError(f"closed chain {self.name!r}: {len(self.actuated)} actuated coordinates "
                             f"{list(self.actuated)} for {len(self.independent)} independent ones "
                             f"{list(self.independent)}; inverse dynamics needs one actuator per degree of freedom")
        self.dependent = tuple(n for n in self.coordinate_names if n not in self.independent)
        #: the constant arrays of the algorithms (index maps, constraint rows, scales)
        self.plan = loop_plan(tree, self.cuts, self.independent, self.actuated)

    def _names(self, names, what):
        if isinstance(names, str):
            names = [names]
        names = tuple(names)
        for n in names:
            if n not in self.coordinate_names:
                mimic = n in self.tree.joint_names and self.tree.joint(n).mimic is not None
                why = " (a mimic joint follows its source)" if mimic else ""
                raise InputError(f"{what} coordinate {n!r} is not a movable tree coordinate{why}; closed chain "
                                 f"{self.name!r} has {list(self.coordinate_names)}")
        if len(set(names)) != len(names):
            raise InputError(f"{what} coordinates {list(names)} name a joint twice")
        return names

    def with_tree(self, tree: Robot) -> "ClosedChain":
        """The same loops on another spanning tree with the same joints (e.g. with link inertials from meshes)."""
        return ClosedChain(tree, self.cuts, self.independent, self.actuated, self.name)

    def __repr__(self):
        return (f"ClosedChain({self.name!r}, cuts={list(self.cut_names)}, independent={list(self.independent)}, "
                f"actuated={list(self.actuated)})")

    @property
    def n_dof(self) -> int:
        """Degrees of freedom of the mechanism (= number of independent coordinates)."""
        return len(self.independent)

    @property
    def n_rows(self) -> int:
        """Number of loop-closure equations (constraint rows of all cut joints, redundant ones included)."""
        return self.plan.n_rows

    @property
    def size(self) -> float:
        """The mechanism's length scale [m]: the longest joint offset (at least 1 mm)."""
        return self.plan.size

    # ------------------------------------------------------------------ algorithms (free functions below)
    def positions(self, q_ind, t=None, q_guess=None) -> np.ndarray:
        """All tree coordinates q (n_t, n_coords) [rad, m] (``coordinate_names`` order) that close the loops,
        for the independent coordinates ``q_ind`` (n_t, n_independent), absolute; ``t`` (n_t,) [s] only names
        times in errors; ``q_guess`` (n_coords,) the assembled pose near the start (default the home values).
        See :func:`solve_positions`."""
        return solve_positions(self, q_ind, t, q_guess)

    def motion(self, q_ind, qd_ind, qdd_ind, t=None, q_guess=None) -> ClosedChainMotion:
        """Positions, rates and accelerations of all tree coordinates from the independent ones (each
        (n_t, n_independent) [rad, m, /s, /s^2]); see :func:`closed_chain_motion`."""
        return closed_chain_motion(self, q_ind, qd_ind, qdd_ind, t, q_guess)

    def inverse_dynamics(self, motion: ClosedChainMotion, gravity=(0.0, 0.0, -9.81), point_forces=None,
                         payloads=None) -> ClosedChainDynamics:
        """Actuator torques/forces, cut-joint forces and every joint's wrench along ``motion``; ``gravity``
        (3,) world [m/s^2], ``point_forces`` point name -> (n_t, 3) or (3,) world [N], ``payloads`` as in
        :func:`structcheck.rigid.dynamics.inverse_dynamics`. See :func:`closed_chain_dynamics`."""
        return closed_chain_dynamics(self, motion, gravity, point_forces, payloads)


def _checked_cuts(tree, cuts, name) -> tuple:
    """The cut joints with float (4, 4) frames and a unit axis; InputError for bad names, links or frames."""
    seen = set(tree.joint_names)
    checked = []
    for cj in cuts:
        if cj.name in seen:
            raise InputError(f"cut joint name {cj.name!r} is already used by a joint of {name!r}; "
                             f"joint names must be unique")
        seen.add(cj.name)
        if cj.type not in CUT_TYPES:
            raise InputError(f"cut joint {cj.name!r} has unsupported type {cj.type!r}; supported: {CUT_TYPES}")
        for end in (cj.parent, cj.child):
            if end not in tree.link_names:
                raise InputError(f"cut joint {cj.name!r} names unknown link {end!r}; the links are "
                                 f"{list(tree.link_names)}")
        if cj.parent == cj.child:
            raise InputError(f"cut joint {cj.name!r} joins link {cj.parent!r} to itself")
        o, oc = np.asarray(cj.origin, float), np.asarray(cj.child_origin, float)
        if o.shape != (4, 4) or oc.shape != (4, 4):
            raise InputError(f"cut joint {cj.name!r}: origin and child_origin must be 4x4 transforms, got "
                             f"shapes {o.shape} and {oc.shape}")
        ax = np.asarray(cj.axis, float).reshape(3)
        if not np.linalg.norm(ax) > 0:
            raise InputError(f"cut joint {cj.name!r} has a zero axis")
        checked.append(replace(cj, origin=o, child_origin=oc, axis=ax / np.linalg.norm(ax)))
    return tuple(checked)


# ---------------------------------------------------------------------- inverse dynamics
def _cut_effect(plan: LoopPlan, T, lam):
    """Joint wrenches (n_t, k, n_joints, 6) caused by cut wrenches lam (n_t, k, n_rows) alone: the cut joints'
    own wrenches (B's joint-frame axes) and the tree joints' share (child axes at the joint origin)."""
    n_t, k = lam.shape[:2]
    nj = len(plan.tree.joints)
    W = np.zeros((n_t, k, nj + len(plan.cuts), 6))
    R, p = T[..., :3, :3], T[..., :3, 3]
    for c, (RA, _, RB, pB) in enumerate(cut_frames(plan, T)):
        r0, Pt, Pr = plan.row0[c], plan.Pt[c], plan.Pr[c]
        fA = lam[:, :, r0:r0 + len(Pt)] @ Pt
        mA = lam[:, :, r0 + len(Pt):r0 + len(Pt) + len(Pr)] @ Pr if len(Pr) else np.zeros_like(fA)
        fw = np.einsum("tij,tkj->tki", RA, fA)
        mw = np.einsum("tij,tkj->tki", RA, mA)
        W[:, :, nj + c, :3] = np.einsum("tji,tkj->tki", RB, fw)
        W[:, :, nj + c, 3:] = np.einsum("tji,tkj->tki", RB, mw)
        for jk in np.nonzero(plan.sgn[:, c])[0]:
            ch = plan.jchild[jk]
            arm = (pB - p[:, ch])[:, None, :]
            s = -plan.sgn[jk, c]  # the joint supplies minus the cut load on its subtree
            W[:, :, jk, :3] += s * np.einsum("tji,tkj->tki", R[:, ch], fw)
            W[:, :, jk, 3:] += s * np.einsum("tji,tkj->tki", R[:, ch], mw + cross(arm, fw))
    return W


def _actuator_forces(chain, motion, tau_tree):
    """Actuator forces (n_t, n_actuated) from virtual work on the constrained system,
    (S Z)^T tau_act = Z^T tau_tree, solved in the scaled coordinates x = q / Dc."""
    plan = chain.plan
    Dc, act = plan.Dc, plan.act
    Zx = motion.Z * Dc[plan.ind][None, None, :] / Dc[None, :, None]  # dx/dx_ind
    A = np.swapaxes(Zx[:, act, :], 1, 2)
    b = np.einsum("tji,tj->ti", Zx, tau_tree * Dc)
    sA = np.linalg.svd(A, compute_uv=False)
    weak = sA[:, -1] <= 1e-10 * sA[:, 0]
    if weak.any():
        k = int(np.argmax(weak))
        raise InputError(f"the actuators {list(chain.actuated)} of {chain.name!r} cannot drive the mechanism at "
                         f"{when(motion.t, k)} (singular pose: their motion does not span the degrees of freedom)")
    return np.linalg.solve(A, b[..., None])[..., 0] / Dc[act]


def _multipliers(chain, T, resid, t):
    """Minimum-norm multipliers (n_t, n_rows) of G^T lambda = resid (n_t, n_coords), in dimensionless rows and
    columns; with the constraint rank r and the null space of G^T (n_t, n_rows, n_rows - r) in force units."""
    plan = chain.plan
    Gs = scaled(plan, constraint_jacobian(plan, T))
    U, s, Vt = np.linalg.svd(Gs, full_matrices=True)
    ranks = rank(s)
    r = int(ranks[0])
    if (ranks != r).any():
        k = int(np.argmax(ranks != r))
        raise InputError(f"closed chain {chain.name!r} passes a singular pose at {when(t, k)}: the rank of the "
                         f"loop-closure equations changes from {r} to {int(ranks[k])}")
    rs = resid * plan.Dc  # G_s^T lambda_s = Dc resid with lambda = Dr lambda_s
    lam_s = np.einsum("tij,tj->ti", U[:, :, :r], np.einsum("tij,tj->ti", Vt[:, :r, :], rs) / s[:, :r])
    return lam_s * plan.Dr, r, U[:, :, r:] * plan.Dr[None, :, None]


def closed_chain_dynamics(chain: ClosedChain, motion: ClosedChainMotion, gravity=(0.0, 0.0, -9.81),
                          point_forces=None, payloads=None) -> ClosedChainDynamics:
    """Actuator forces, cut-joint forces and all joint reaction wrenches along ``motion``.

    ``gravity`` (3,) world [m/s^2]; ``point_forces``: point name -> force (n_t, 3) or (3,) world [N];
    ``payloads``: point name -> mass or (mass, inertia about the point in link axes), as for the tree's
    :func:`structcheck.rigid.dynamics.inverse_dynamics`."""
    tree, plan = chain.tree, chain.plan
    if motion.coordinate_names != chain.coordinate_names or motion.independent != chain.independent:
        raise InputError(f"the motion is for coordinates {list(motion.coordinate_names)} with independent "
                         f"{list(motion.independent)}, not for closed chain {chain.name!r}")
    dyn = inverse_dynamics(tree, motion.q, motion.qd, motion.qdd, gravity, point_forces, payloads)
    n_t = len(motion.q)
    tau_act = _actuator_forces(chain, motion, dyn.tau)
    resid = dyn.tau.copy()
    resid[:, plan.act] -= tau_act
    T = dyn.kinematics.T_world_link
    lam, r, N = _multipliers(chain, T, resid, motion.t)
    W = np.concatenate([dyn.joint_wrenches, np.zeros((n_t, len(chain.cuts), 6))], axis=1)
    W = W + _cut_effect(plan, T, lam[:, None, :])[:, 0]
    m = plan.n_rows
    undetermined = np.zeros((len(chain.joint_names), 6), bool)
    if m > r:  # components that change along the null space of G^T
        dW = _cut_effect(plan, T, np.swapaxes(N, 1, 2))
        mag = np.abs(dW) * np.concatenate([np.full(3, plan.size), np.ones(3)])
        scale = np.max(mag, axis=(2, 3), keepdims=True)
        undetermined = np.any(mag > _UNDETERMINED_RTOL * np.maximum(scale, 1e-300), axis=(0, 1))
    undetermined[:len(tree.joints)] |= dyn.undetermined  # mimic joints of the tree: loops the model lacks
    R_wl = T[..., :3, :3]
    Rj = np.stack([R_wl[:, plan.jchild[k]] for k in range(len(tree.joints))]
                  + [Rb for (_, _, Rb, _) in cut_frames(plan, T)], axis=1)
    Ww = np.concatenate([np.einsum("tkij,tkj->tki", Rj, W[..., :3]), np.einsum("tkij,tkj->tki", Rj, W[..., 3:])],
                        axis=2)
    return ClosedChainDynamics(tau=tau_act, actuated=chain.actuated, joint_names=chain.joint_names,
                               joint_wrenches=W, joint_wrenches_world=Ww, undetermined=undetermined,
                               multipliers=lam, constraint_rank=r, redundant=m - r, motion=motion, tree=dyn,
                               warnings=dyn.warnings)


# ---------------------------------------------------------------------- checks every study reports
def power_balance(chain: ClosedChain, dyn: ClosedChainDynamics, gravity=(0.0, 0.0, -9.81),
                  point_forces=None) -> float:
    """max |sum tau_act qd_act + P_ext - dE/dt| / max |sum tau_act qd_act| (dE/dt analytic); see
    :func:`structcheck.rigid.dynamics.power_balance`."""
    mo = dyn.motion
    return dynamics.power_balance(chain.tree, mo.q, mo.qd[:, chain.plan.act], mo.qdd, dyn, gravity, point_forces)


def link_equilibrium(chain: ClosedChain, dyn: ClosedChainDynamics, gravity=(0.0, 0.0, -9.81),
                     point_forces=None) -> np.ndarray:
    """Relative Newton-Euler residual (n_t, n_links) of every link with all its loads: tree and cut joint
    wrenches, gravity, point forces, minus its rate of momentum (:func:`structcheck.rigid.dynamics.
    free_body_wrenches`); relative to |F| + |M| / size of the largest joint wrench on the link (0 for the base)."""
    plan = chain.plan
    T = dyn.kinematics.T_world_link
    R, p = T[..., :3, :3], T[..., :3, 3]
    # world axes, moments about each link's origin
    F, N = (np.einsum("tlij,tlj->tli", R, x) for x in dynamics.free_body_wrenches(chain.tree, dyn, gravity,
                                                                                   point_forces))
    ends = [(plan.jparent[k], plan.jchild[k], p[:, plan.jchild[k]]) for k in range(len(chain.tree.joints))]
    ends += [(a, b, pB) for (a, b), (_, _, _, pB) in zip(plan.cut_links, cut_frames(plan, T))]
    scale = np.zeros(F.shape[:2])
    Wd = dyn.joint_wrenches_world
    for k, (a, b, at) in enumerate(ends):
        f, m = Wd[:, k, :3], Wd[:, k, 3:]
        F[:, b] += f
        N[:, b] += m + cross(at - p[:, b], f)
        F[:, a] -= f
        N[:, a] -= m + cross(at - p[:, a], f)
        mag = np.linalg.norm(f, axis=1) + np.linalg.norm(m, axis=1) / plan.size
        scale[:, a] = np.maximum(scale[:, a], mag)
        scale[:, b] = np.maximum(scale[:, b], mag)
    res = np.linalg.norm(F, axis=2) + np.linalg.norm(N, axis=2) / plan.size
    res[:, chain.tree.link_names.index(chain.tree.base)] = 0.0
    return res / np.maximum(scale.max(axis=0, keepdims=True), 1e-300)
