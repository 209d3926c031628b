"""Robot model: links, joints, named points; built from D-H tables (standard or modified) or URDF.

Conventions (SI): ``q`` is the absolute joint coordinate [rad or m]. A joint places its child link:
``T_parent_child(q) = origin @ M(q)`` with ``M`` a rotation by q about ``axis`` (revolute, continuous) or a
translation q along it (prismatic), identity for fixed joints. The joint frame at the current q IS the child
link frame (URDF convention), so a joint's reaction wrench is given at the child frame's origin in child axes.
For D-H robots link i's frame sits on joint i's axis: modified (Craig) D-H frame i, or for standard D-H frame
i-1 turned by theta_i about z_{i-1} and moved d_i along it (DESIGN.md); inertias given in standard frame i are
transformed into it.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..errors import InputError

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed")


@dataclass(frozen=True)
class PointMass:
    """A non-structural mass (motor, reducer, cables) [kg] at ``position`` (3,) in the link frame [m]."""

    name: str
    mass: float
    position: tuple


@dataclass(frozen=True)
class Link:
    """A rigid link: ``mass`` [kg], ``com`` (3,) [m] and ``inertia`` (3, 3) about the COM [kg m^2], link axes."""

    name: str
    mass: float = 0.0
    com: tuple = (0.0, 0.0, 0.0)
    inertia: tuple = ((0.0, 0.0, 0.0),) * 3
    point_masses: tuple = ()
    mesh: str | None = None
    material: str | None = None


@dataclass(frozen=True)
class Joint:
    """A joint from ``parent`` to ``child`` link. ``origin`` (4, 4): placement of the joint frame in the parent
    frame at q = 0; ``axis`` (3,) unit vector in the joint frame; ``lower``/``upper`` absolute limits;
    ``home`` the assembled value; ``mimic`` = (joint name, multiplier, offset) for q = m q_src + offset."""

    name: str
    type: str
    parent: str
    child: str
    origin: np.ndarray = field(default_factory=lambda: np.eye(4))
    axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    lower: float = -math.inf
    upper: float = math.inf
    home: float = 0.0
    mimic: tuple | None = None

    @property
    def movable(self) -> bool:
        """True unless the joint is fixed."""
        return self.type != "fixed"


def rot_x(a):
    """Homogeneous transform (4, 4): rotation by angle ``a`` [rad] about x (scalar a)."""
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def rot_z(a):
    """Homogeneous transform (4, 4): rotation by angle ``a`` [rad] about z (scalar a)."""
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def trans(x=0.0, y=0.0, z=0.0):
    """Homogeneous transform (4, 4): translation by (x, y, z) [m], no rotation."""
    T = np.eye(4)
    T[:3, 3] = (x, y, z)
    return T


def rpy_matrix(r, p, y):
    """URDF roll-pitch-yaw: R = Rz(y) Ry(p) Rx(r)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


class Robot:
    """A tree of links connected by joints, with named points (tool centre point, claw tips, ...).

    ``links``: sequence of Link (the first link that is no joint's child is the base, fixed to the world);
    ``joints``: sequence of Joint (order kept: ``joint_names``); ``points``: name -> (link name, (3,) position).
    """

    def __init__(self, links: Sequence[Link], joints: Sequence[Joint], points: Mapping | None = None,
                 name: str = "robot"):
        self.name = name
        self.links = tuple(links)
        self.joints = tuple(replace(j, origin=np.asarray(j.origin, float), axis=_unit(j.axis, j.name))
                            for j in joints)
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
                                 f"{j.name!r}); close loops with structcheck.closedchain.CutJoint, not in the tree")
            children[j.child] = j.name
            if j.origin.shape != (4, 4):
                raise InputError(f"joint {j.name!r}: origin must be a 4x4 transform, got shape {j.origin.shape}")
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
        self._order = tuple(order)
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
        return self._expand(self._check_q(q), offsets=True)

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

    def _check_q(self, q, what="q"):
        q = np.asarray(q, float)
        if q.ndim == 1:
            q = q[None, :]
        if q.ndim != 2 or q.shape[1] != self.n_dof:
            raise InputError(f"{what} must have shape (n_samples, {self.n_dof}) for joints {list(self.dof_names)}, "
                             f"got {np.shape(q)}")
        bad = ~np.isfinite(q)
        if bad.any():
            i, k = np.argwhere(bad)[0]
            raise InputError(f"{what} of joint {self.dof_names[k]!r} is not finite (NaN or inf) at sample {i}")
        return q

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
        """T_world_link (n_t, n_links, 4, 4); see structcheck.kinematics."""
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

        Returns a :class:`structcheck.dynamics.Dynamics`: ``tau`` (n_t, n_dof) [N m or N];
        ``joint_names`` (every joint, in ``joint_names`` order); ``joint_wrenches`` (n_t, n_joints, 6)
        [Fx, Fy, Fz, Mx, My, Mz] [N, N m] exerted by the parent on the child at the joint origin, in the child's
        axes (``joint_wrenches_world``: world axes); ``undetermined`` (n_joints, 6) bool and ``warnings`` for
        wrench components the model cannot give (mimic joints: the unmodelled loop); ``kinematics`` and
        ``inertials``. See structcheck.dynamics.inverse_dynamics."""
        from ..rigid.dynamics import inverse_dynamics

        return inverse_dynamics(self, q, qd, qdd, gravity, point_forces, payloads)

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_modified_dh(cls, rows, home=None, limits=None, link_names=None, joint_names=None, types=None,
                         inertials=None, base_name="base", name="robot") -> "Robot":
        """Modified (Craig) D-H: row i = (alpha_{i-1}, a_{i-1}, d_i[, theta_i]) [rad, m];
        T_{i-1,i} = RotX(alpha_{i-1}) TransX(a_{i-1}) RotZ(theta_i) TransZ(d_i). Link i's frame is frame i.

        The joint coordinate IS the row's variable, absolute (DESIGN.md): q_i = theta_i for a 'revolute' row,
        q_i = d_i for a 'prismatic' row. The row's entry for its variable must therefore be 0 (the pose is
        given by q, and the assembled pose by ``home``): a nonzero theta_i in a revolute row (or d_i in a
        prismatic row) raises InputError instead of silently shifting q. The other entries are the constant
        parameters (theta_i of a prismatic row, d_i of a revolute row).

        ``home`` (n,) absolute joint values of the assembled pose; ``limits`` (n, 2) absolute; ``types``
        'revolute' or 'prismatic' per row; ``inertials`` per link i >= 1: None or dict(mass=, com=, inertia=)
        in frame i. ``link_names`` has n + 1 names (base first)."""
        rows = _dh_rows(rows, 3, "(alpha_{i-1}, a_{i-1}, d_i[, theta_i])")
        n = len(rows)
        link_names, joint_names, types, home, limits = _dh_defaults(n, link_names, joint_names, types, home,
                                                                    limits, base_name)
        links = [Link(link_names[0])]
        joints = []
        for i, (alpha, a, d, theta) in enumerate(rows):
            _dh_check_variable(i, types[i], theta, d, joint_names[i])
            # the joint's own motion (RotZ(q) or TransZ(q)) follows the origin; RotZ and TransZ commute
            origin = rot_x(alpha) @ trans(x=a) @ (trans(z=d) if types[i] == "revolute" else rot_z(theta))
            joints.append(Joint(joint_names[i], types[i], link_names[i], link_names[i + 1], origin,
                                np.array([0.0, 0.0, 1.0]), float(limits[i][0]), float(limits[i][1]), float(home[i])))
            links.append(_inertial_link(link_names[i + 1], (inertials or [None] * n)[i]))
        return cls(links, joints, name=name)

    @classmethod
    def from_dh(cls, rows, home=None, limits=None, link_names=None, joint_names=None, types=None,
                inertials=None, base_name="base", name="robot") -> "Robot":
        """Standard (distal) D-H: row i = (theta_i, d_i, a_i, alpha_i) [rad, m];
        T_{i-1,i} = RotZ(theta_i) TransZ(d_i) TransX(a_i) RotX(alpha_i).

        The joint coordinate IS the row's variable, absolute (DESIGN.md): q_i = theta_i for a 'revolute' row,
        q_i = d_i for a 'prismatic' row; that entry of the row must be 0 (a nonzero one raises InputError; give
        the assembled pose with ``home``), the other entries are constants.

        Link i's body frame is frame i-1 turned by theta_i about z_{i-1} and moved d_i along it (on joint i's
        axis), so standard frame i = link frame i @ TransX(a_i) RotX(alpha_i). ``inertials`` are given in
        standard frame i and transformed. A point ``flange`` marks the origin of standard frame n. Other
        arguments as for ``from_modified_dh``."""
        rows = _dh_rows(rows, 4, "(theta_i, d_i, a_i, alpha_i)")
        n = len(rows)
        link_names, joint_names, types, home, limits = _dh_defaults(n, link_names, joint_names, types, home,
                                                                    limits, base_name)
        links = [Link(link_names[0])]
        joints = []
        prev = np.eye(4)  # TransX(a_{i-1}) RotX(alpha_{i-1}) of the previous row
        for i, (theta, d, a, alpha) in enumerate(rows):
            _dh_check_variable(i, types[i], theta, d, joint_names[i])
            origin = prev @ (trans(z=d) if types[i] == "revolute" else rot_z(theta))
            joints.append(Joint(joint_names[i], types[i], link_names[i], link_names[i + 1], origin,
                                np.array([0.0, 0.0, 1.0]), float(limits[i][0]), float(limits[i][1]), float(home[i])))
            C = trans(x=a) @ rot_x(alpha)  # standard frame i in link frame i
            inert = (inertials or [None] * n)[i]
            if inert is not None:
                R = C[:3, :3]
                inert = dict(mass=inert.get("mass", 0.0),
                             com=C[:3, :3] @ np.asarray(inert.get("com", (0, 0, 0)), float) + C[:3, 3],
                             inertia=R @ np.asarray(inert.get("inertia", np.zeros((3, 3))), float) @ R.T)
            links.append(_inertial_link(link_names[i + 1], inert))
            prev = C
        return cls(links, joints, points={"flange": (link_names[-1], prev[:3, 3])}, name=name)

    @classmethod
    def from_urdf(cls, path) -> "Robot":
        """Read a URDF file: links with ``<inertial>`` (origin rpy rotates the inertia into the link frame) and
        mesh references, joints (revolute, continuous, prismatic, fixed) with origin, axis, limits and mimic."""
        path = Path(path)
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as exc:
            raise InputError(f"cannot read URDF {str(path)!r}: {exc}") from None
        if root.tag != "robot":
            raise InputError(f"{path}: the root element is <{root.tag}>, a URDF needs <robot>")
        links = []
        for el in root.findall("link"):
            name = el.get("name")
            mass, com, inertia = 0.0, np.zeros(3), np.zeros((3, 3))
            inel = el.find("inertial")
            if inel is not None:
                T = _urdf_origin(inel.find("origin"), path, f"link {name!r}")
                m = inel.find("mass")
                mass = _num(m.get("value") if m is not None else "0", path, f"link {name!r} mass")
                ii = inel.find("inertia")
                if ii is not None:
                    g = {k: _num(ii.get(k, "0"), path, f"link {name!r} inertia {k}")
                         for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
                    I = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]],
                                  [g["ixz"], g["iyz"], g["izz"]]])
                    inertia = T[:3, :3] @ I @ T[:3, :3].T
                com = T[:3, 3]
            mesh = None
            for tag in ("collision", "visual"):
                m = el.find(f"{tag}/geometry/mesh")
                if m is not None:
                    mesh = m.get("filename")
                    break
            links.append(Link(name, mass, tuple(com), _freeze(inertia), mesh=mesh))
        joints = []
        for el in root.findall("joint"):
            name, jtype = el.get("name"), el.get("type")
            if jtype not in JOINT_TYPES:
                raise InputError(f"{path}: joint {name!r} has unsupported type {jtype!r}; structcheck handles "
                                 f"{JOINT_TYPES}")
            parent, child = el.find("parent"), el.find("child")
            if parent is None or child is None:
                raise InputError(f"{path}: joint {name!r} needs <parent link=...> and <child link=...>")
            T = _urdf_origin(el.find("origin"), path, f"joint {name!r}")
            ax = el.find("axis")
            axis = np.array(_triple(ax.get("xyz", ""), path, f"joint {name!r} <axis xyz>", "a direction")) \
                if ax is not None else np.array([1.0, 0.0, 0.0])
            lower, upper = -math.inf, math.inf
            lim = el.find("limit")
            if jtype in ("revolute", "prismatic"):
                if lim is None:
                    raise InputError(f"{path}: {jtype} joint {name!r} needs a <limit lower= upper=>")
                lower = _num(lim.get("lower", "0"), path, f"joint {name!r} lower limit")
                upper = _num(lim.get("upper", "0"), path, f"joint {name!r} upper limit")
            mimic = None
            mel = el.find("mimic")
            if mel is not None:
                mimic = (mel.get("joint"), _num(mel.get("multiplier", "1"), path, f"joint {name!r} mimic multiplier"),
                         _num(mel.get("offset", "0"), path, f"joint {name!r} mimic offset"))
            joints.append(Joint(name, jtype, parent.get("link"), child.get("link"), T, axis, lower, upper,
                                0.0, mimic))
        return cls(links, joints, name=root.get("name", path.stem))


def _dh_rows(rows, n_min, layout):
    """D-H rows as tuples of 4 floats (a missing 4th modified-D-H entry theta_i is 0)."""
    out = []
    for i, r in enumerate(rows):
        try:
            r = tuple(float(x) for x in r)
        except (TypeError, ValueError):
            raise InputError(f"D-H row {i + 1} must be numbers {layout}, got {r!r}") from None
        if not n_min <= len(r) <= 4 or not all(math.isfinite(x) for x in r):
            raise InputError(f"D-H row {i + 1} must be {n_min if n_min == 4 else '3 or 4'} finite numbers "
                             f"{layout}, got {r!r}")
        out.append(r + (0.0,) * (4 - len(r)))
    return out


def _dh_check_variable(i, jtype, theta, d, joint):
    if jtype not in ("revolute", "prismatic"):
        raise InputError(f"D-H row {i + 1}: joint type must be 'revolute' or 'prismatic', got {jtype!r}")
    var, val = ("theta", theta) if jtype == "revolute" else ("d", d)
    if val != 0.0:
        raise InputError(f"D-H row {i + 1}: {var}_{i + 1} = {val:g} is the {jtype} joint {joint!r}'s own coordinate "
                         f"(q = {var}_{i + 1}, absolute), so the row must give 0 there; put the assembled value in "
                         f"home= (and the motion as an offset from it)")


def _dh_defaults(n, link_names, joint_names, types, home, limits, base_name):
    link_names = list(link_names) if link_names is not None else [base_name] + [f"link{i}" for i in range(1, n + 1)]
    if len(link_names) != n + 1:
        raise InputError(f"a {n}-row D-H table needs {n + 1} link names (base first), got {len(link_names)}")
    joint_names = list(joint_names) if joint_names is not None else [f"joint{i}" for i in range(1, n + 1)]
    if len(joint_names) != n:
        raise InputError(f"a {n}-row D-H table needs {n} joint names, got {len(joint_names)}")
    types = list(types) if types is not None else ["revolute"] * n
    home = np.zeros(n) if home is None else np.asarray(home, float)
    limits = np.tile([-math.inf, math.inf], (n, 1)) if limits is None else np.asarray(limits, float)
    if home.shape != (n,) or limits.shape != (n, 2):
        raise InputError(f"home must have {n} values and limits shape ({n}, 2); got {home.shape}, {limits.shape}")
    return link_names, joint_names, types, home, limits


def _inertial_link(name, inert):
    if inert is None:
        return Link(name)
    return Link(name, float(inert.get("mass", 0.0)), tuple(np.asarray(inert.get("com", (0, 0, 0)), float)),
                _freeze(np.asarray(inert.get("inertia", np.zeros((3, 3))), float)))


def _freeze(v):
    if isinstance(v, np.ndarray):
        return tuple(map(tuple, v)) if v.ndim == 2 else tuple(v.tolist())
    return v


def _unit(axis, name):
    a = np.asarray(axis, float).reshape(3)
    n = np.linalg.norm(a)
    if not n > 0:
        raise InputError(f"joint {name!r} has a zero axis")
    return a / n


def _num(text, path, what):
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{path}: {what} is not a number: {text!r}") from None
    if not math.isfinite(v):
        raise InputError(f"{path}: {what} is not finite: {text!r}")
    return v


def _urdf_origin(el, path, what):
    T = np.eye(4)
    if el is None:
        return T
    xyz = _triple(el.get("xyz", "0 0 0"), path, f"{what} <origin xyz>", "x y z [m]")
    rpy = _triple(el.get("rpy", "0 0 0"), path, f"{what} <origin rpy>", "roll pitch yaw [rad]")
    T[:3, :3] = rpy_matrix(*rpy)
    T[:3, 3] = xyz
    return T


def _triple(text, path, what, meaning):
    """Three numbers from a URDF attribute such as xyz="0 0.1 0"; InputError naming ``what`` otherwise."""
    vals = [_num(v, path, what) for v in text.split()]
    if len(vals) != 3:
        raise InputError(f"{path}: {what} needs 3 numbers ({meaning}), got {len(vals)}: {text!r}")
    return vals
