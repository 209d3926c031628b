"""Robot model: links, joints, named points; built from D-H tables (standard or modified, model/dh.py) or URDF
(model/urdf.py).

Conventions (SI): ``q`` is the absolute joint coordinate [rad or m]. A joint places its child link:
``T_parent_child(q) = origin @ M(q)`` with ``M`` a rotation by q about ``axis`` (revolute, continuous) or a
translation q along it (prismatic), identity for fixed joints. The joint frame at the current q IS the child
link frame (URDF convention), so a joint's reaction wrench is given at the child frame's origin in child axes.
For D-H robots link i's frame sits on joint i's axis: modified (Craig) D-H frame i, or for standard D-H frame
i-1 turned by theta_i about z_{i-1} and moved d_i along it; inertias given in standard frame i are
transformed into it.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Mapping, Sequence

import numpy as np

from ..errors import InputError, is_number, require_array, require_number
from .dh import dh_table
from .links import JOINT_TYPES, Joint, Link, PointMass, _freeze, as_samples, rot_x, rot_z, rpy_matrix, trans
from .urdf import urdf_parts

__all__ = ["JOINT_TYPES", "Joint", "Link", "PointMass", "Robot", "as_samples", "build_dh_robot", "read_urdf",
           "rot_x", "rot_z", "rpy_matrix", "trans"]

class Robot:
    """A tree of links connected by joints, with named points (tool centre point, claw tips, ...).

    ``links``: sequence of Link (the first link that is no joint's child is the base, fixed to the world);
    ``joints``: sequence of Joint (order kept: ``joint_names``); ``points``: name -> (link name, (3,) position).
    ``ordered_joints`` holds the joints parents before children (the order recursive algorithms walk).
    """

    def __init__(self, links: Sequence[Link], joints: Sequence[Joint], points: Mapping | None = None,
                 name: str = "robot"):
        self.name = name
        self.links = tuple(links)
        self.joints = tuple(replace(j, origin=np.asarray(j.origin, float), axis=_unit_axis(j)) for j in joints)
        names = [ln.name for ln in self.links]
        if len(set(names)) != len(names):
            raise InputError(f"robot {name!r}: duplicate link names in {names}")
        jn = [j.name for j in self.joints]
        if len(set(jn)) != len(jn):
            raise InputError(f"robot {name!r}: duplicate joint names in {jn}")
        children = {}
        for j in self.joints:
            if j.type not in JOINT_TYPES:
                raise InputError(f"joint {j.name!r} has unsupported type {j.type!r}; supported: {JOINT_TYPES}")
            for end in (j.parent, j.child):
                if end not in names:
                    raise InputError(f"joint {j.name!r} names unknown link {end!r}; the links are {names}")
            if j.child in children:
                raise InputError(f"link {j.child!r} is the child of two joints ({children[j.child]!r} and "
                                 f"{j.name!r}); close loops with structcheck.CutJoint, not in the tree")
            children[j.child] = j.name
            if j.origin.shape != (4, 4):
                raise InputError(f"joint {j.name!r}: origin must be a 4x4 transform, got shape {j.origin.shape}")
            require_array(f"joint {j.name!r}: origin", j.origin, (4, 4), "a transform, m")
            require_number(f"joint {j.name!r}: home", j.home, "rad or m")
            for side in ("lower", "upper"):  # an open limit is +-inf; NaN would silently pass every check
                v = getattr(j, side)
                if not is_number(v) or math.isnan(v):
                    raise InputError(f"joint {j.name!r}: {side} limit = {v!r}: give a number (rad or m), or "
                                     f"{'-' if side == 'lower' else ''}inf for none")
            if j.lower > j.upper:
                raise InputError(f"joint {j.name!r}: lower limit {j.lower:g} > upper limit {j.upper:g}: give "
                                 f"lower <= upper (absolute, rad or m)")
        roots = [n for n in names if n not in children]
        if len(roots) != 1:
            raise InputError(f"robot {name!r} must have exactly one base link (no parent joint); found {roots}")
        self.base = roots[0]
        # joints in topological order (parents before children): kinematics walks this
        order, placed, pending = [], {self.base}, list(self.joints)
        while pending:
            ready = [j for j in pending if j.parent in placed]
            if not ready:
                raise InputError(f"robot {name!r}: joints {[j.name for j in pending]} are not connected to the "
                                 f"base {self.base!r} (a cycle or a detached branch)")
            for j in ready:
                order.append(j)
                placed.add(j.child)
                pending.remove(j)
        self.ordered_joints = tuple(order)
        self.link_names = tuple(names)
        self.joint_names = tuple(jn)
        dofs = [j for j in self.joints if j.movable and j.mimic is None]
        self.dof_names = tuple(j.name for j in dofs)
        by_name = {j.name: j for j in self.joints}
        for j in self.joints:
            if j.mimic is not None:
                src = j.mimic[0]
                if src not in self.dof_names:
                    raise InputError(f"joint {j.name!r} mimics {src!r}, which is not an independent movable "
                                     f"joint; those are {list(self.dof_names)}")
        self._by_name = by_name
        self.points = {}
        for pname, (lname, xyz) in (points or {}).items():
            if lname not in names:
                raise InputError(f"point {pname!r} is on unknown link {lname!r}; the links are {names}")
            self.points[pname] = (lname, np.asarray(xyz, float).reshape(3))

    # ------------------------------------------------------------------ basic properties
    @property
    def n_dof(self) -> int:
        """Number of independent joint coordinates (movable joints that are not mimics)."""
        return len(self.dof_names)

    @property
    def home(self) -> np.ndarray:
        """Assembled pose (n_dof,), absolute joint values [rad or m]."""
        return np.array([self._by_name[n].home for n in self.dof_names], float)

    @property
    def lower(self) -> np.ndarray:
        """Lower limits (n_dof,), absolute [rad or m] (-inf: none)."""
        return np.array([self._by_name[n].lower for n in self.dof_names], float)

    @property
    def upper(self) -> np.ndarray:
        """Upper limits (n_dof,), absolute [rad or m] (inf: none)."""
        return np.array([self._by_name[n].upper for n in self.dof_names], float)

    def joint(self, name: str) -> Joint:
        """The joint called ``name`` (InputError listing the joints if there is none)."""
        if name not in self._by_name:
            raise InputError(f"unknown joint {name!r}; the robot's joints are {list(self.joint_names)}")
        return self._by_name[name]

    def link(self, name: str) -> Link:
        """The link called ``name`` (InputError listing the links if there is none)."""
        for ln in self.links:
            if ln.name == name:
                return ln
        raise InputError(f"unknown link {name!r}; the robot's links are {list(self.link_names)}")

    def __repr__(self):
        return f"Robot({self.name!r}, links={list(self.link_names)}, dofs={list(self.dof_names)})"

    # ------------------------------------------------------------------ functional updates
    def with_link(self, name: str, **changes) -> "Robot":
        """A new robot with link ``name``'s fields replaced (mass, com, inertia, point_masses, mesh, ...)."""
        self.link(name)
        links = [replace(ln, **{k: _freeze(v) for k, v in changes.items()}) if ln.name == name else ln
                 for ln in self.links]
        return Robot(links, self.joints, self.points, self.name)

    def with_points(self, points: Mapping) -> "Robot":
        """A new robot with named points added (name -> (link name, (3,) position in the link frame))."""
        return Robot(self.links, self.joints, {**self.points, **points}, self.name)

    # ------------------------------------------------------------------ joint values
    def joint_values(self, q: np.ndarray) -> np.ndarray:
        """All joints' values (n_t, n_joints) from dof values (n_t, n_dof): mimics applied, fixed = 0."""
        return self._expand(self.check_q(q), offsets=True)

    def joint_rates(self, qd: np.ndarray) -> np.ndarray:
        """All joints' rates (n_t, n_joints) from dof rates (n_t, n_dof) (velocities or accelerations): mimic
        multipliers applied (their offsets do not move), fixed = 0."""
        qd = np.asarray(qd, float)
        return self._expand(qd[None, :] if qd.ndim == 1 else qd, offsets=False)

    def _expand(self, x: np.ndarray, offsets: bool) -> np.ndarray:
        out = np.zeros((x.shape[0], len(self.joints)))
        col = {n: k for k, n in enumerate(self.dof_names)}
        for i, j in enumerate(self.joints):
            if j.name in col:
                out[:, i] = x[:, col[j.name]]
            elif j.mimic is not None:
                src, m, off = j.mimic
                out[:, i] = m * x[:, col[src]] + (off if offsets else 0.0)
        return out

    def path_to_base(self, link: str) -> list[Joint]:
        """The joints from ``link`` down to the base, nearest first (empty for the base)."""
        parent_joint = {j.child: j for j in self.joints}
        self.link(link)  # unknown names raise InputError
        path = []
        while link in parent_joint:
            path.append(parent_joint[link])
            link = path[-1].parent
        return path

    def check_q(self, q, what: str = "q") -> np.ndarray:
        """Joint values or rates as (n_samples, n_dof) floats from (n_dof,) or (n_samples, n_dof) [rad, m, /s,
        /s^2]; InputError naming ``what`` for a wrong shape or a non-finite value (joint and sample named)."""
        return as_samples(q, self.dof_names, what, "joint")

    def check_limits(self, q: np.ndarray, t: np.ndarray | None = None, tol: float = 1e-9) -> None:
        """Raise InputError naming the first joint and time at which q leaves its limits."""
        qj = self.joint_values(q)
        for i, j in enumerate(self.joints):
            if not j.movable or j.type == "continuous":
                continue
            low, high = qj[:, i] < j.lower - tol, qj[:, i] > j.upper + tol
            if low.any() or high.any():
                k = int(np.argmax(low | high))
                when = f"at time {t[k]:g} s" if t is not None else f"at sample {k}"
                conv = math.degrees if j.type == "revolute" else (lambda x: x)
                unit = "deg" if j.type == "revolute" else "m"
                lim = j.lower if low[k] else j.upper
                raise InputError(f"joint {j.name!r} reaches {conv(qj[k, i]):.4g} {unit} {when}, beyond its "
                                 f"{'lower' if low[k] else 'upper'} limit {conv(lim):.4g} {unit} "
                                 f"(range {conv(j.lower):.4g} to {conv(j.upper):.4g} {unit}); "
                                 f"change the motion or the limits")

    # ------------------------------------------------------------------ algorithms (free functions)
    def forward_kinematics(self, q) -> np.ndarray:
        """T_world_link (n_t, n_links, 4, 4); see structcheck.rigid.kinematics."""
        from ..rigid.kinematics import forward_kinematics

        return forward_kinematics(self, q)

    def kinematics(self, q, qd=None, qdd=None):
        """LinkKinematics (placements, omega, alpha, origin velocity/acceleration in link axes)."""
        from ..rigid.kinematics import link_kinematics

        return link_kinematics(self, q, qd, qdd)

    def jacobian(self, q, point) -> np.ndarray:
        """Geometric Jacobian (n_t, 6, n_dof) of a named point (or (link, xyz)), world axes [v; w]."""
        from ..rigid.kinematics import jacobian

        return jacobian(self, q, point)

    def inverse_dynamics(self, q, qd, qdd, gravity=(0.0, 0.0, -9.81), point_forces=None, payloads=None):
        """Inverse dynamics with every joint's reaction wrench (recursive Newton-Euler over all samples at once).

        ``q``, ``qd``, ``qdd`` (n_t, n_dof) or (n_dof,): absolute joint values and their rates of the
        independent joints (``dof_names`` order) [rad, m; /s; /s^2]. ``gravity`` (3,) world [m/s^2];
        ``point_forces``: point name -> force (n_t, 3) or (3,) in world axes [N]; ``payloads``: point name ->
        mass [kg] or (mass, inertia (3, 3) about the point in link axes [kg m^2]).

        Returns a :class:`structcheck.rigid.dynamics.Dynamics`: ``tau`` (n_t, n_dof) [N m or N];
        ``joint_names`` (every joint, in ``joint_names`` order); ``joint_wrenches`` (n_t, n_joints, 6)
        [Fx, Fy, Fz, Mx, My, Mz] [N, N m] exerted by the parent on the child at the joint origin, in the child's
        axes (``joint_wrenches_world``: world axes); ``undetermined`` (n_joints, 6) bool and ``warnings`` for
        wrench components the model cannot give (mimic joints: the unmodelled loop); ``kinematics`` and
        ``inertials``. See structcheck.rigid.dynamics.inverse_dynamics."""
        from ..rigid.dynamics import inverse_dynamics

        return inverse_dynamics(self, q, qd, qdd, gravity, point_forces, payloads)

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_modified_dh(cls, rows, home=None, limits=None, link_names=None, joint_names=None, types=None,
                         inertials=None, base_name="base", name="robot") -> "Robot":
        """A robot from a modified (Craig) D-H table; see :func:`build_dh_robot`.

        Row i = (alpha_{i-1}, a_{i-1}, d_i[, theta_i]) [rad, m];
        T_{i-1,i} = RotX(alpha_{i-1}) TransX(a_{i-1}) RotZ(theta_i) TransZ(d_i). Link i's frame is frame i, and
        ``inertials`` are given in it."""
        return cls(*dh_table(rows, "modified", home, limits, link_names, joint_names, types, inertials, base_name),
                   name=name)

    @classmethod
    def from_dh(cls, rows, home=None, limits=None, link_names=None, joint_names=None, types=None,
                inertials=None, base_name="base", name="robot") -> "Robot":
        """A robot from a standard (distal) D-H table; see :func:`build_dh_robot`.

        Row i = (theta_i, d_i, a_i, alpha_i) [rad, m]; T_{i-1,i} = RotZ(theta_i) TransZ(d_i) TransX(a_i) RotX(alpha_i).
        Link i's frame sits on joint i's axis (standard frame i = link frame i @ TransX(a_i) RotX(alpha_i));
        ``inertials`` are given in standard frame i and moved into it. A point ``flange`` marks the origin of
        standard frame n."""
        return cls(*dh_table(rows, "standard", home, limits, link_names, joint_names, types, inertials, base_name),
                   name=name)

    @classmethod
    def from_urdf(cls, path) -> "Robot":
        """A robot read from a URDF file; see :func:`read_urdf`."""
        links, joints, name = urdf_parts(path)
        return cls(links, joints, name=name)


def _unit_axis(joint: Joint) -> np.ndarray:
    """The joint's axis (3,) as a unit vector. A fixed joint's axis is ignored (URDF): a zero one stays as given."""
    a = np.asarray(joint.axis, float).reshape(3)
    n = np.linalg.norm(a)
    if n > 0:
        return a / n
    if joint.movable:
        raise InputError(f"{joint.type} joint {joint.name!r} has a zero axis {a.tolist()}: its axis must be a "
                         f"nonzero direction (only a fixed joint's axis is ignored)")
    return a


def build_dh_robot(rows, convention: str = "standard", home=None, limits=None, link_names=None, joint_names=None,
                   types=None, inertials=None, base_name: str = "base", name: str = "robot") -> Robot:
    """A serial robot from a D-H table, ``convention`` 'standard' or 'modified': see
    :func:`structcheck.model.dh.dh_table` for the rows and every parameter."""
    return Robot(*dh_table(rows, convention, home, limits, link_names, joint_names, types, inertials, base_name),
                 name=name)


def read_urdf(path) -> Robot:
    """The Robot described by the URDF file at ``path`` (name: the ``<robot name>``, else the file's stem); see
    :func:`structcheck.model.urdf.urdf_parts`."""
    return Robot.from_urdf(path)
