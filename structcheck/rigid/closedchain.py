"""Closed kinematic chains: a spanning tree (a :class:`~structcheck.robot.Robot`) plus cut joints that close
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

Conventions as in :mod:`structcheck.dynamics`: a joint wrench [Fx, Fy, Fz, Mx, My, Mz] is exerted by the parent
on the child at the joint origin in the child's joint-frame axes; for a cut joint that is A on B at the origin of
B's joint frame, in B's joint-frame axes.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np

from .dynamics import Dynamics, Inertials, energy_rate, external_power, inverse_dynamics
from ..errors import InputError
from .kinematics import LinkKinematics, joint_transforms, link_kinematics
from ..model.robot import Robot

CUT_TYPES = ("revolute", "prismatic", "spherical")

_NEWTON_TOL = 1e-13      # scaled loop-closure residual (m / size, rad) at which Newton stops
_NEWTON_ITER = 30
_MAX_STEP = 0.5          # largest Newton step per coordinate (rad, or m / size): keeps a far guess on its branch
_RANK_RTOL = 1e-9        # singular values below this fraction of the largest count as zero (redundant rows)
_UNDETERMINED_RTOL = 1e-8
_COARSE = 65             # samples followed one after the other before the batched fill-in
_MAX_HALVINGS = 12


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
class ClosedChainMotion:
    """All tree coordinates along a motion: ``q``, ``qd``, ``qdd`` (n_t, n_coords) in ``coordinate_names``
    order (the tree's ``dof_names``) [rad, m, /s, /s^2]; ``Z`` (n_t, n_coords, n_independent) = dq/dq_ind;
    ``t`` (n_t,) [s] or None."""

    coordinate_names: tuple
    independent: tuple
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    Z: np.ndarray
    t: np.ndarray | None = None


@dataclass(frozen=True)
class LoopResiduals:
    """Loop-closure residuals per sample and cut joint (n_t, n_cuts), from the link kinematics: largest
    constrained component of the relative position [m], orientation [rad], velocity [m/s], angular velocity
    [rad/s], acceleration [m/s^2] and angular acceleration [rad/s^2] of the two cut frames."""

    cut_names: tuple
    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray
    acceleration: np.ndarray
    angular_acceleration: np.ndarray

    def max(self) -> float:
        """The largest residual of any kind (mixed units; for a quick 'is it closed' check)."""
        return float(max(np.max(np.abs(a), initial=0.0) for a in (
            self.position, self.orientation, self.velocity, self.angular_velocity, self.acceleration,
            self.angular_acceleration)))


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
        cuts = list(cuts)  # none: an open tree, whose dynamics are the tree's own
        seen = set(tree.joint_names)
        checked = []
        for cj in cuts:
            if cj.name in seen:
                raise InputError(f"cut joint name {cj.name!r} is already used by a joint of {self.name!r}; "
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
        self.cuts = tuple(checked)
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
        col = {n: k for k, n in enumerate(self.coordinate_names)}
        self._ind = np.array([col[n] for n in self.independent], int)
        self._dep = np.array([k for k in range(len(col)) if self.coordinate_names[k] not in self.independent], int)
        self._act = np.array([col[n] for n in self.actuated], int)
        self.dependent = tuple(self.coordinate_names[k] for k in self._dep)
        self._setup()

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

    def _setup(self):
        tree = self.tree
        lidx = {n: k for k, n in enumerate(tree.link_names)}
        parent_joint = {j.child: k for k, j in enumerate(tree.joints)}

        def ancestors(link):
            out = set()
            while link in parent_joint:
                k = parent_joint[link]
                out.add(k)
                link = tree.joints[k].parent
            return out

        nj, nc = len(tree.joints), len(self.cuts)
        # sgn[k, c] = +1 if joint k moves B but not A (B is in its subtree), -1 the other way round, else 0
        self._sgn = np.zeros((nj, nc), int)
        self._cut_links = []
        rows_t, rows_r, offsets, start = [], [], [], 0
        for c, cj in enumerate(self.cuts):
            anc_a, anc_b = ancestors(cj.parent), ancestors(cj.child)
            for k in anc_b - anc_a:
                self._sgn[k, c] = 1
            for k in anc_a - anc_b:
                self._sgn[k, c] = -1
            self._cut_links.append((lidx[cj.parent], lidx[cj.child]))
            e1, e2 = _perpendicular_basis(cj.axis)
            if cj.type == "revolute":
                Pt, Pr = np.eye(3), np.vstack([e1, e2])
            elif cj.type == "prismatic":
                Pt, Pr = np.vstack([e1, e2]), np.eye(3)
            else:
                Pt, Pr = np.eye(3), np.zeros((0, 3))
            rows_t.append(Pt)
            rows_r.append(Pr)
            offsets.append(start)
            start += len(Pt) + len(Pr)
        self._Pt, self._Pr, self._row0 = rows_t, rows_r, offsets
        self.n_rows = start
        # joint columns: (joint index, coordinate column, multiplier) for every movable tree joint
        col = {n: k for k, n in enumerate(self.coordinate_names)}
        self._cols = []
        for k, j in enumerate(tree.joints):
            if not j.movable:
                continue
            src, m = (j.name, 1.0) if j.mimic is None else (j.mimic[0], float(j.mimic[1]))
            self._cols.append((k, col[src], m))
        self._jchild = np.array([lidx[j.child] for j in tree.joints], int)
        self._jparent = np.array([lidx[j.parent] for j in tree.joints], int)
        order, placed = [], {lidx[tree.base]}
        while len(order) < nj:  # parents before children (the Robot checked that the tree is connected)
            for k in range(nj):
                if k not in order and self._jparent[k] in placed:
                    order.append(k)
                    placed.add(self._jchild[k])
        self._topo = order
        # a length scale makes rows and columns dimensionless for ranks, tolerances and minimum norms
        lengths = [np.linalg.norm(j.origin[:3, 3]) for j in tree.joints]
        lengths += [np.linalg.norm(c.origin[:3, 3]) for c in self.cuts]
        lengths += [np.linalg.norm(c.child_origin[:3, 3]) for c in self.cuts]
        self.size = max(1e-3, max(lengths))
        Dr = []
        for Pt, Pr in zip(rows_t, rows_r):
            Dr += [1.0 / self.size] * len(Pt) + [1.0] * len(Pr)
        self._Dr = np.array(Dr)
        self._Dc = np.array([self.size if tree.joint(n).type == "prismatic" else 1.0
                             for n in self.coordinate_names])

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
        :func:`structcheck.dynamics.inverse_dynamics`. See :func:`closed_chain_dynamics`."""
        return closed_chain_dynamics(self, motion, gravity, point_forces, payloads)


def _perpendicular_basis(axis):
    """Two unit vectors completing ``axis`` to a right-handed orthonormal basis (e1, e2, axis)."""
    a = np.asarray(axis, float)
    helper = np.eye(3)[int(np.argmin(np.abs(a)))]
    e1 = np.cross(helper, a)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(a, e1)


def _vee_skew(R):
    """Axial vector of the skew part of R (n, 3, 3): the rotation vector to first order."""
    return 0.5 * np.stack([R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0], R[:, 1, 0] - R[:, 0, 1]], axis=1)


def _placements(chain, q):
    """T_world_link (n, n_links, 4, 4) of tree coordinates q (n, n_coords): positions only, which is all the
    Newton iterations need (link_kinematics also builds velocities and accelerations)."""
    tree = chain.tree
    jt = joint_transforms(tree, tree.joint_values(q))
    n = len(q)
    T = np.zeros((n, len(tree.links), 4, 4))
    T[:, :, 3, 3] = 1.0
    T[:, tree.link_names.index(tree.base), :3, :3] = np.eye(3)
    for k in chain._topo:
        R, r = jt[k]
        pa, ch = chain._jparent[k], chain._jchild[k]
        T[:, ch, :3, :3] = T[:, pa, :3, :3] @ R
        T[:, ch, :3, 3] = T[:, pa, :3, 3] + np.einsum("tij,tj->ti", T[:, pa, :3, :3], r)
    return T


def _cut_frames(chain, T):
    """Per cut: (R_A, p_A, R_B, p_B) world placements (n, 3, 3), (n, 3) of the joint frames on A and on B."""
    out = []
    for cj, (a, b) in zip(chain.cuts, chain._cut_links):
        TA = T[:, a] @ cj.origin
        TB = T[:, b] @ cj.child_origin
        out.append((TA[:, :3, :3], TA[:, :3, 3], TB[:, :3, :3], TB[:, :3, 3]))
    return out


def _phi_parts(chain, T):
    """Loop-closure residual per cut: (translational rows (n, kt) [m], rotational rows (n, kr) [rad])."""
    out = []
    for cj, Pt, Pr, (RA, pA, RB, pB) in zip(chain.cuts, chain._Pt, chain._Pr, _cut_frames(chain, T)):
        rel_p = np.einsum("tji,tj->ti", RA, pB - pA)
        R_rel = np.einsum("tji,tjk->tik", RA, RB)
        if cj.type == "revolute":
            rot = np.cross(cj.axis, R_rel @ cj.axis)
        elif cj.type == "prismatic":
            rot = _vee_skew(R_rel)
        else:
            rot = np.zeros((len(T), 3))
        out.append((rel_p @ Pt.T, rot @ Pr.T))
    return out


def _phi(chain, T):
    return np.concatenate([np.concatenate(p, axis=1) for p in _phi_parts(chain, T)], axis=1)


def _constraint_jacobian(chain, T):
    """G (n, n_rows, n_coords): constrained rows of B's twist relative to A (at B's frame origin, A axes)."""
    n = len(T)
    G = np.zeros((n, chain.n_rows, len(chain.coordinate_names)))
    frames = _cut_frames(chain, T)
    joints = chain.tree.joints
    for k, colk, mult in chain._cols:
        j = joints[k]
        Tc = T[:, chain._jchild[k]]
        z = Tc[:, :3, :3] @ j.axis
        o = Tc[:, :3, 3]
        for c in np.nonzero(chain._sgn[k])[0]:
            RA, _, _, pB = frames[c]
            if j.type == "prismatic":
                v, w = z, np.zeros_like(z)
            else:
                v, w = np.cross(z, pB - o), z
            s = chain._sgn[k, c] * mult
            r0, Pt, Pr = chain._row0[c], chain._Pt[c], chain._Pr[c]
            G[:, r0:r0 + len(Pt), colk] += s * np.einsum("tji,tj->ti", RA, v) @ Pt.T
            G[:, r0 + len(Pt):r0 + len(Pt) + len(Pr), colk] += s * np.einsum("tji,tj->ti", RA, w) @ Pr.T
    return G


def _relative_motion(chain, kin: LinkKinematics):
    """Per cut, in A's joint-frame axes: relative velocity of B's frame origin w.r.t. the point of A at the
    same place, relative angular velocity, and their time derivatives (n, 3) each."""
    T = kin.T_world_link
    R, p = T[..., :3, :3], T[..., :3, 3]
    world = lambda x: np.einsum("tlij,tlj->tli", R, x)  # noqa: E731
    w, al, v, a = world(kin.omega), world(kin.alpha), world(kin.v_origin), world(kin.a_origin)
    out = []
    for (ia, ib), (RA, _, _, pB) in zip(chain._cut_links, _cut_frames(chain, T)):
        rA, rB = pB - p[:, ia], pB - p[:, ib]
        vA = v[:, ia] + np.cross(w[:, ia], rA)
        vB = v[:, ib] + np.cross(w[:, ib], rB)
        aA = a[:, ia] + np.cross(al[:, ia], rA) + np.cross(w[:, ia], np.cross(w[:, ia], rA))
        aB = a[:, ib] + np.cross(al[:, ib], rB) + np.cross(w[:, ib], np.cross(w[:, ib], rB))
        u, dw = vB - vA, w[:, ib] - w[:, ia]
        # d/dt of (R_A^T u) and (R_A^T dw): the frame on A turns with A's angular velocity
        acc = aB - aA - 2 * np.cross(w[:, ia], u)
        ang = al[:, ib] - al[:, ia] - np.cross(w[:, ia], dw)
        to_a = lambda x: np.einsum("tji,tj->ti", RA, x)  # noqa: E731
        out.append((to_a(u), to_a(dw), to_a(acc), to_a(ang)))
    return out


def _constrained(chain, parts, lin, ang):
    return np.concatenate([np.concatenate([p[lin] @ Pt.T, p[ang] @ Pr.T], axis=1)
                           for p, Pt, Pr in zip(parts, chain._Pt, chain._Pr)], axis=1)


def loop_residuals(chain: ClosedChain, q, qd=None, qdd=None) -> LoopResiduals:
    """Loop-closure residuals of tree coordinates q, qd, qdd (n_t, n_coords), computed from the link
    kinematics of the tree (not from the constraint Jacobian)."""
    kin = link_kinematics(chain.tree, q, qd, qdd)
    parts = _phi_parts(chain, kin.T_world_link)
    rel = _relative_motion(chain, kin)
    big = lambda x, P: np.max(np.abs(x @ P.T), axis=1) if len(P) else np.zeros(len(x))  # noqa: E731
    cols = lambda f: np.stack(f, axis=1)  # noqa: E731
    return LoopResiduals(
        cut_names=chain.cut_names,
        position=cols([np.max(np.abs(pt), axis=1) for pt, _ in parts]),
        orientation=cols([np.max(np.abs(pr), axis=1) if pr.shape[1] else np.zeros(len(pr)) for _, pr in parts]),
        velocity=cols([big(r[0], Pt) for r, Pt in zip(rel, chain._Pt)]),
        angular_velocity=cols([big(r[1], Pr) for r, Pr in zip(rel, chain._Pr)]),
        acceleration=cols([big(r[2], Pt) for r, Pt in zip(rel, chain._Pt)]),
        angular_acceleration=cols([big(r[3], Pr) for r, Pr in zip(rel, chain._Pr)]))


# ---------------------------------------------------------------------- positions
def _when(t, k):
    return f"t = {t[k]:.6g} s" if t is not None else f"sample {k}"


def _worst_loop(chain, T):
    """(cut name, position gap [m], angle [rad]) of the loop farthest from closing, for one sample."""
    parts = _phi_parts(chain, T)
    gaps = [(np.max(np.abs(pt[0]), initial=0.0), np.max(np.abs(pr[0]), initial=0.0)) for pt, pr in parts]
    c = int(np.argmax([g / chain.size + a for g, a in gaps]))
    return chain.cut_names[c], gaps[c][0], gaps[c][1]


def _newton(chain, q):
    """Newton on the dependent coordinates of q (n, n_coords), all samples at once. Returns (q, converged)."""
    q = q.copy()
    dep, Dr, Dc = chain._dep, chain._Dr, chain._Dc
    done = np.zeros(len(q), bool)
    for _ in range(_NEWTON_ITER):
        todo = ~done
        T = _placements(chain, q[todo])
        phi = _phi(chain, T) * Dr
        ok = np.max(np.abs(phi), axis=1, initial=0.0) < _NEWTON_TOL
        idx = np.nonzero(todo)[0]
        done[idx[ok]] = True
        if done.all() or len(dep) == 0:
            break
        live = ~ok
        G = _constraint_jacobian(chain, T[live]) * Dr[None, :, None] * Dc[None, None, :]
        step = -np.einsum("tij,tj->ti", np.linalg.pinv(G[:, :, dep], rcond=_RANK_RTOL), phi[live])
        big = np.max(np.abs(step), axis=1, keepdims=True)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(big, 1e-300))
        q[idx[live][:, None], dep[None, :]] += step * Dc[dep]
        bad = ~np.all(np.isfinite(q), axis=1)
        if bad.any():
            q[bad] = np.nan_to_num(q[bad])
            done[bad] = False
    return q, done


def _rank(s):
    return np.sum(s > _RANK_RTOL * s[..., :1], axis=-1)


def _check_dofs(chain, q, t, k, where):
    """Raise if the independent coordinates do not match the mechanism's degrees of freedom at q (1, n)."""
    T = _placements(chain, q)
    Gs = _constraint_jacobian(chain, T) * chain._Dr[None, :, None] * chain._Dc[None, None, :]
    n = Gs.shape[2]
    r = int(_rank(np.linalg.svd(Gs, compute_uv=False))[0]) if chain.n_rows else 0
    dof = n - r
    if dof != chain.n_dof:
        raise InputError(
            f"closed chain {chain.name!r} has {dof} degree(s) of freedom at {where} ({_when(t, k)}: {n} tree "
            f"coordinates, {r} independent loop-closure equations) but {chain.n_dof} independent coordinates "
            f"{list(chain.independent)} were given; give {dof}. A planar loop of revolute joints with axes that "
            f"are not exactly parallel is rigid: check the axes")
    if len(chain._dep):
        rd = int(_rank(np.linalg.svd(Gs[:, :, chain._dep], compute_uv=False))[0])
        if rd < len(chain._dep):
            raise InputError(
                f"closed chain {chain.name!r}: the independent coordinates {list(chain.independent)} do not "
                f"determine the dependent ones {list(chain.dependent)} at {where} ({_when(t, k)}); choose "
                f"coordinates whose motion fixes the loops, or move away from this singular pose")


def _as_samples(x, n, what, names):
    x = np.asarray(x, float)
    if x.ndim == 1 and n == 1 and x.shape[0] != 1:
        x = x[:, None]
    if x.ndim == 1:
        x = x[None, :] if x.shape[0] == n else x[:, None]
    if x.ndim != 2 or x.shape[1] != n:
        raise InputError(f"{what} must have shape (n_samples, {n}) for the independent coordinates "
                         f"{list(names)}, got {np.shape(x)}")
    bad = ~np.isfinite(x)
    if bad.any():
        i, k = np.argwhere(bad)[0]
        raise InputError(f"{what} of coordinate {names[k]!r} is not finite at sample {i}")
    return x


def solve_positions(chain: ClosedChain, q_ind, t=None, q_guess=None) -> np.ndarray:
    """All tree coordinates (n_t, n_coords) that close the loops, given the independent ones (n_t, n_ind).

    ``q_guess`` (n_coords,): the assembled pose near the start (default: the tree's home values); the first
    sample is assembled from it by Newton, then the solution is followed along the samples (a coarse march
    with sub-stepping, then batched Newton on the samples in between, each started from its solved
    neighbours), so it stays on the start's assembly branch. ``t`` (n_t,) [s] only names times in errors."""
    q_ind = _as_samples(q_ind, chain.n_dof, "q_ind", chain.independent)
    n_t, n = len(q_ind), len(chain.coordinate_names)
    t = None if t is None else np.asarray(t, float).reshape(-1)
    if t is not None and len(t) != n_t:
        raise InputError(f"t has {len(t)} samples but q_ind has {n_t}")
    guess = chain.tree.home if q_guess is None else np.asarray(q_guess, float).reshape(-1)
    if guess.shape != (n,):
        raise InputError(f"q_guess must have {n} values for {list(chain.coordinate_names)}, got {guess.shape}")
    ind, dep = chain._ind, chain._dep
    Q = np.zeros((n_t, n))
    Q[:, ind] = q_ind
    q0 = guess.copy()
    q0[ind] = q_ind[0]
    _check_dofs(chain, q0[None], t, 0, "the start guess")
    sol, ok = _newton(chain, q0[None])
    if not ok[0]:
        loop, gap, ang = _worst_loop(chain, _placements(chain, sol))
        raise InputError(
            f"loop {loop!r} of {chain.name!r} does not close at the start ({_when(t, 0)}): residual {gap:.3g} m, "
            f"{ang:.3g} rad after {_NEWTON_ITER} Newton iterations from the home pose; check the loop geometry "
            f"(link lengths, joint frames) or give q_guess closer to the assembled pose")
    _check_dofs(chain, sol, t, 0, "the assembled start pose")
    Q[0] = sol[0]
    solved = np.zeros(n_t, bool)
    solved[0] = True
    coarse = np.unique(np.round(np.linspace(0, n_t - 1, min(n_t, _COARSE))).astype(int))
    for i0, i1 in zip(coarse[:-1], coarse[1:]):
        Q[i1] = _march(chain, Q[i0], q_ind[i1], t, i0, i1)
        solved[i1] = True
    # fill in between the coarse samples: batched Newton from the interpolation of solved neighbours
    while not solved.all():
        s = np.nonzero(solved)[0]
        a, b = s[:-1], s[1:]
        gap = b - a > 1
        a, b = a[gap], b[gap]
        m = (a + b) // 2
        f = ((m - a) / (b - a))[:, None]
        start = Q[a] + f * (Q[b] - Q[a])
        start[:, ind] = q_ind[m]
        sol, ok = _newton(chain, start)
        # a correction larger than the neighbours' spacing means Newton may have left the branch: follow the
        # loop from the left neighbour instead (this also finds where an unreachable motion fails)
        redo = ~ok | (_jump(chain, sol, start) > 0.5 * _jump(chain, Q[b], Q[a], dep_only=False) + 1e-6)
        for i in np.nonzero(redo)[0]:
            sol[i] = _march(chain, Q[a[i]], q_ind[m[i]], t, a[i], m[i])
        Q[m] = sol
        solved[m] = True
    return Q


def _jump(chain, q1, q0, dep_only=True):
    """Largest scaled change (rad, m / size) between coordinate sets (n, n_coords), dependent ones only or all."""
    cols = chain._dep if dep_only else slice(None)
    return np.max(np.abs((q1 - q0)[:, cols] / chain._Dc[cols]), axis=1, initial=0.0)


def _march(chain, q_from, qi_to, t, i0, i1):
    """Follow the loop solution from q_from (n,) to independent values qi_to, halving the step on failure."""
    ind, dep = chain._ind, chain._dep
    q = q_from.copy()
    s, h, halvings = 0.0, 1.0, 0
    qi_from = q_from[ind].copy()
    while s < 1.0:
        h = min(h, 1.0 - s)
        target = qi_from + (s + h) * (qi_to - qi_from)
        start = q.copy()
        if len(dep):
            # first-order predictor along the constraint manifold: dq_dep = -G_dep^+ G_ind dq_ind
            Gs = _scaled(chain, _constraint_jacobian(chain, _placements(chain, q[None])))[0]
            dx = np.linalg.pinv(Gs[:, dep], rcond=_RANK_RTOL) @ (Gs[:, ind] @ ((target - q[ind]) / chain._Dc[ind]))
            start[dep] -= dx * chain._Dc[dep]
        start[ind] = target
        sol, ok = _newton(chain, start[None])
        if ok[0] and _jump(chain, sol, start[None])[0] <= 0.5 * _jump(chain, start[None], q[None], False)[0] + 1e-6:
            q, s = sol[0], s + h
            h *= 2.0
            continue
        halvings += 1
        if halvings > _MAX_HALVINGS:
            tt = None if t is None else t[i0] + s * (t[i1] - t[i0])
            when = f"t = {tt:.6g} s" if tt is not None else f"between samples {i0} and {i1}"
            loop, gap, ang = _worst_loop(chain, _placements(chain, sol))
            raise InputError(f"loop {loop!r} of {chain.name!r} cannot be closed at {when}: residual {gap:.3g} m, "
                             f"{ang:.3g} rad (the independent motion leaves the mechanism's reach or passes a "
                             f"singular pose)")
        h *= 0.5
    return q


# ---------------------------------------------------------------------- velocities and accelerations
def _scaled(chain, G):
    """G in dimensionless rows (translations / size) and columns (prismatic coordinates / size)."""
    return G * chain._Dr[None, :, None] * chain._Dc[None, None, :]


def closed_chain_motion(chain: ClosedChain, q_ind, qd_ind, qdd_ind, t=None, q_guess=None) -> ClosedChainMotion:
    """Positions, velocities and accelerations of all tree coordinates from the independent ones
    (each (n_t, n_ind) [rad, m, /s, /s^2]); see :func:`solve_positions` for ``t`` and ``q_guess``."""
    q_ind = _as_samples(q_ind, chain.n_dof, "q_ind", chain.independent)
    qd_ind = _as_samples(qd_ind, chain.n_dof, "qd_ind", chain.independent)
    qdd_ind = _as_samples(qdd_ind, chain.n_dof, "qdd_ind", chain.independent)
    if not len(q_ind) == len(qd_ind) == len(qdd_ind):
        raise InputError(f"q_ind, qd_ind and qdd_ind must have the same number of samples, got "
                         f"{len(q_ind)}, {len(qd_ind)}, {len(qdd_ind)}")
    q = solve_positions(chain, q_ind, t, q_guess)
    n_t, n = q.shape
    ind, dep, Dc = chain._ind, chain._dep, chain._Dc
    T = _placements(chain, q)
    Gs = _scaled(chain, _constraint_jacobian(chain, T))
    Z = np.zeros((n_t, n, len(ind)))
    Z[:, ind, np.arange(len(ind))] = 1.0
    if len(dep):
        GD = Gs[:, :, dep]
        s = np.linalg.svd(GD, compute_uv=False)
        rd = _rank(s)
        if (rd < len(dep)).any():
            k = int(np.argmax(rd < len(dep)))
            raise InputError(f"closed chain {chain.name!r} passes a singular pose at {_when(t, k)}: the independent "
                             f"coordinates {list(chain.independent)} no longer determine {list(chain.dependent)}")
        GDp = np.linalg.pinv(GD, rcond=_RANK_RTOL)
        # scaled coordinates x = q / Dc: Z_dep = -Dc_dep GD^+ G_ind / Dc_ind
        Z[:, dep, :] = -Dc[dep][None, :, None] * (GDp @ Gs[:, :, ind]) / Dc[ind][None, None, :]
    qd = np.einsum("tij,tj->ti", Z, qd_ind)
    qdd = np.zeros_like(q)
    qdd[:, ind] = qdd_ind
    if len(dep):
        kin0 = link_kinematics(chain.tree, q, qd, None)
        gamma = _constrained(chain, _relative_motion(chain, kin0), 2, 3) * chain._Dr
        rhs = -gamma - np.einsum("tij,tj->ti", Gs[:, :, ind], qdd_ind / Dc[ind])
        qdd[:, dep] = Dc[dep] * np.einsum("tij,tj->ti", GDp, rhs)
    return ClosedChainMotion(chain.coordinate_names, chain.independent, q, qd, qdd, Z,
                             None if t is None else np.asarray(t, float).reshape(-1))


# ---------------------------------------------------------------------- inverse dynamics
def _cut_effect(chain, T, lam):
    """Joint wrenches (n_t, k, n_joints, 6) caused by cut wrenches lam (n_t, k, n_rows) alone: the cut joints'
    own wrenches (B's joint-frame axes) and the tree joints' share (child axes at the joint origin)."""
    n_t, k = lam.shape[:2]
    nj = len(chain.tree.joints)
    W = np.zeros((n_t, k, nj + len(chain.cuts), 6))
    R, p = T[..., :3, :3], T[..., :3, 3]
    for c, (RA, _, RB, pB) in enumerate(_cut_frames(chain, T)):
        r0, Pt, Pr = chain._row0[c], chain._Pt[c], chain._Pr[c]
        fA = lam[:, :, r0:r0 + len(Pt)] @ Pt
        mA = lam[:, :, r0 + len(Pt):r0 + len(Pt) + len(Pr)] @ Pr if len(Pr) else np.zeros_like(fA)
        fw = np.einsum("tij,tkj->tki", RA, fA)
        mw = np.einsum("tij,tkj->tki", RA, mA)
        W[:, :, nj + c, :3] = np.einsum("tji,tkj->tki", RB, fw)
        W[:, :, nj + c, 3:] = np.einsum("tji,tkj->tki", RB, mw)
        for jk in np.nonzero(chain._sgn[:, c])[0]:
            ch = chain._jchild[jk]
            arm = (pB - p[:, ch])[:, None, :]
            s = -chain._sgn[jk, c]  # the joint supplies minus the cut load on its subtree
            W[:, :, jk, :3] += s * np.einsum("tji,tkj->tki", R[:, ch], fw)
            W[:, :, jk, 3:] += s * np.einsum("tji,tkj->tki", R[:, ch], mw + np.cross(arm, fw))
    return W


def closed_chain_dynamics(chain: ClosedChain, motion: ClosedChainMotion, gravity=(0.0, 0.0, -9.81),
                          point_forces=None, payloads=None) -> ClosedChainDynamics:
    """Actuator forces, cut-joint forces and all joint reaction wrenches along ``motion``.

    ``gravity`` (3,) world [m/s^2]; ``point_forces``: point name -> force (n_t, 3) or (3,) world [N];
    ``payloads``: point name -> mass or (mass, inertia about the point in link axes), as for the tree's
    :func:`structcheck.dynamics.inverse_dynamics`."""
    tree = chain.tree
    q, qd, qdd, Z = motion.q, motion.qd, motion.qdd, motion.Z
    if motion.coordinate_names != chain.coordinate_names or motion.independent != chain.independent:
        raise InputError(f"the motion is for coordinates {list(motion.coordinate_names)} with independent "
                         f"{list(motion.independent)}, not for closed chain {chain.name!r}")
    t = motion.t
    dyn = inverse_dynamics(tree, q, qd, qdd, gravity, point_forces, payloads)
    n_t = len(q)
    Dr, Dc, act = chain._Dr, chain._Dc, chain._act
    # actuators from virtual work on the constrained system: (S Z)^T tau_act = Z^T tau_tree (scaled units)
    ind = chain._ind
    Zx = Z * Dc[ind][None, None, :] / Dc[None, :, None]  # dx/dx_ind in the scaled coordinates x = q / Dc
    A = np.swapaxes(Zx[:, act, :], 1, 2)
    b = np.einsum("tji,tj->ti", Zx, dyn.tau * Dc)
    sA = np.linalg.svd(A, compute_uv=False)
    weak = sA[:, -1] <= 1e-10 * sA[:, 0]
    if weak.any():
        k = int(np.argmax(weak))
        raise InputError(f"the actuators {list(chain.actuated)} of {chain.name!r} cannot drive the mechanism at "
                         f"{_when(t, k)} (singular pose: their motion does not span the degrees of freedom)")
    tau_s = np.linalg.solve(A, b[..., None])[..., 0]
    tau_act = tau_s / Dc[act]
    resid = dyn.tau.copy()
    resid[:, act] -= tau_act
    # minimum-norm multipliers from G^T lambda = resid, in dimensionless rows and columns
    T = dyn.kinematics.T_world_link
    Gs = _scaled(chain, _constraint_jacobian(chain, T))
    U, s, Vt = np.linalg.svd(Gs, full_matrices=True)
    ranks = _rank(s)
    r = int(ranks[0])
    if (ranks != r).any():
        k = int(np.argmax(ranks != r))
        raise InputError(f"closed chain {chain.name!r} passes a singular pose at {_when(t, k)}: the rank of the "
                         f"loop-closure equations changes from {r} to {int(ranks[k])}")
    rs = resid * Dc  # G_s^T lambda_s = Dc resid with lambda = Dr lambda_s
    lam_s = np.einsum("tij,tj->ti", U[:, :, :r], np.einsum("tij,tj->ti", Vt[:, :r, :], rs) / s[:, :r])
    lam = lam_s * Dr
    W = np.concatenate([dyn.joint_wrenches, np.zeros((n_t, len(chain.cuts), 6))], axis=1)
    W = W + _cut_effect(chain, T, lam[:, None, :])[:, 0]
    m = chain.n_rows
    undetermined = np.zeros((len(chain.joint_names), 6), bool)
    if m > r:
        N = U[:, :, r:] * Dr[None, :, None]  # null space of G^T, back in force units
        dW = _cut_effect(chain, T, np.swapaxes(N, 1, 2))
        mag = np.abs(dW) * np.concatenate([np.full(3, chain.size), np.ones(3)])
        scale = np.max(mag, axis=(2, 3), keepdims=True)
        undetermined = np.any(mag > _UNDETERMINED_RTOL * np.maximum(scale, 1e-300), axis=(0, 1))
    if dyn.undetermined is not None:  # mimic joints of the tree: loops the model does not contain
        undetermined[:len(tree.joints)] |= dyn.undetermined
    R_wl = T[..., :3, :3]
    Rj = np.stack([R_wl[:, chain._jchild[k]] for k in range(len(tree.joints))]
                  + [Rb for (_, _, Rb, _) in _cut_frames(chain, T)], axis=1)
    Ww = np.concatenate([np.einsum("tkij,tkj->tki", Rj, W[..., :3]), np.einsum("tkij,tkj->tki", Rj, W[..., 3:])],
                        axis=2)
    return ClosedChainDynamics(tau=tau_act, actuated=chain.actuated, joint_names=chain.joint_names,
                               joint_wrenches=W, joint_wrenches_world=Ww, undetermined=undetermined,
                               multipliers=lam, constraint_rank=r, redundant=m - r, motion=motion, tree=dyn,
                               warnings=dyn.warnings)


# ---------------------------------------------------------------------- checks every study reports
def power_balance(chain: ClosedChain, dyn: ClosedChainDynamics, gravity=(0.0, 0.0, -9.81),
                  point_forces=None) -> float:
    """max |sum tau_act qd_act + P_ext - dE/dt| / max |sum tau_act qd_act| (dE/dt analytic)."""
    qd_act = dyn.motion.qd[:, chain._act]
    p_act = np.sum(dyn.tau * qd_act, axis=1)
    dE = energy_rate(chain.tree, dyn.tree, gravity)
    res = p_act + external_power(chain.tree, dyn.tree, point_forces) - dE
    scale = np.max(np.abs(p_act))
    if scale == 0:
        scale = max(np.max(np.abs(dE)), 1e-300)
    return float(np.max(np.abs(res)) / scale)


def link_equilibrium(chain: ClosedChain, dyn: ClosedChainDynamics, gravity=(0.0, 0.0, -9.81),
                     point_forces=None) -> np.ndarray:
    """Relative Newton-Euler residual (n_t, n_links) of every link with all its loads: tree and cut joint
    wrenches, gravity, point forces, minus its rate of momentum; relative to |F| + |M| / size (0 for the base)."""
    tree, kin, inert = chain.tree, dyn.kinematics, dyn.inertials
    T = kin.T_world_link
    R, p = T[..., :3, :3], T[..., :3, 3]
    c = inert.com[None]
    a_com = kin.a_origin + np.cross(kin.alpha, c) + np.cross(kin.omega, np.cross(kin.omega, c))
    g = np.einsum("tlji,j->tli", R, np.asarray(gravity, float))
    # everything in world axes about the world origin
    Fl = inert.mass[None, :, None] * (g - a_com)
    Iw = np.einsum("lij,tlj->tli", inert.inertia, kin.omega)
    Nl = np.cross(c, Fl) - np.einsum("lij,tlj->tli", inert.inertia, kin.alpha) - np.cross(kin.omega, Iw)
    F = np.einsum("tlij,tlj->tli", R, Fl)
    N = np.einsum("tlij,tlj->tli", R, Nl) + np.cross(p, F)
    for pname, f in (point_forces or {}).items():
        if pname not in tree.points:
            raise InputError(f"point force at unknown point {pname!r}; the points are {sorted(tree.points)}")
        lname, xyz = tree.points[pname]
        i = tree.link_names.index(lname)
        f = np.broadcast_to(np.asarray(f, float), (len(T), 3))
        F[:, i] += f
        N[:, i] += np.cross(p[:, i] + R[:, i] @ xyz, f)
    scale = np.zeros(F.shape[:2])
    Wd = dyn.joint_wrenches_world
    lidx = {n: k for k, n in enumerate(tree.link_names)}
    ends = [(lidx[j.parent], lidx[j.child], p[:, lidx[j.child]]) for j in tree.joints]
    ends += [(a, b, pB) for (a, b), (_, _, _, pB) in zip(chain._cut_links, _cut_frames(chain, T))]
    for k, (a, b, at) in enumerate(ends):
        f, m = Wd[:, k, :3], Wd[:, k, 3:]
        mo = m + np.cross(at, f)
        F[:, b] += f
        N[:, b] += mo
        F[:, a] -= f
        N[:, a] -= mo
        mag = np.linalg.norm(f, axis=1) + np.linalg.norm(m, axis=1) / chain.size
        scale[:, a] = np.maximum(scale[:, a], mag)
        scale[:, b] = np.maximum(scale[:, b], mag)
    # moments about the world origin mix in |p| |F|: measure them about each link's origin instead
    Nrel = N - np.cross(p, F)
    res = np.linalg.norm(F, axis=2) + np.linalg.norm(Nrel, axis=2) / chain.size
    res[:, lidx[tree.base]] = 0.0
    return res / np.maximum(scale.max(axis=0, keepdims=True), 1e-300)
