"""Whole-arm flexible model: the links' superelements assembled along the robot's tree at a pose q.

Global coordinates x: the world-frame motion (d, theta) of one 6-DOF node per joint (and per free interface such
as a tool flange carrying a mass), the released relative rotations of compliant joints, and every link's modal and
residual-vector coordinates. A link's interface coordinates are its node's world motion turned into link axes,
z_if = diag(R^T, R^T) x_node (R = R_world_link at q), so the superelements are pose-invariant and only these
rotations change with q. Per link, z = L x (:attr:`ArmModel.maps`) and

    K = sum_links L^T K_r L + joint springs,   M = sum_links L^T M_r L + attached masses.

Joints: the parent's interface named after the joint and the child's interface of the same name are joined, rigid
in all six directions, or with a torsional spring about the joint axis (``joint_stiffness[name] = k`` [N m/rad])
and optionally a tilt spring about the two perpendicular axes (``(k, k_tilt)``): the child node's rotation is the
parent's plus the released relative rotations. The base's surface ``ground`` is clamped; if the base has no Part,
the proximal interfaces of its children are clamped. Prismatic joints are rigid at their current stroke (the two
flange points are joined through the offset between them).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from ..errors import InputError
from ..spatial import perpendicular_basis, skew
from .superelement import Superelement

GROUND = "ground"


@dataclass(frozen=True)
class AttachedMass:
    """A rigid mass on an interface node: ``mass`` [kg] with its centre at the node's reference point ``point``
    (3,) [m, link frame; None: the surface centroid] and ``inertia`` (3, 3) about it [kg m^2, link axes]. The
    surface becomes an interface of the link's superelement (a payload on the tool flange, a tip mass)."""

    link: str
    surface: str
    mass: float
    point: tuple | None = None
    inertia: tuple | None = None

    def matrix(self) -> np.ndarray:
        """6x6 rigid-body mass matrix at the reference point, link axes."""
        out = np.zeros((6, 6))
        out[:3, :3] = self.mass * np.eye(3)
        if self.inertia is not None:
            out[3:, 3:] = np.asarray(self.inertia, float)
        return out


@dataclass(frozen=True)
class ArmModel:
    """The assembled reduced arm at one pose. ``K``, ``M`` (n, n) in global coordinates x; ``superelements`` link ->
    :class:`Superelement`; ``maps`` link -> L (n_red, n) with z_link = L x; ``R_world_link`` link -> (3, 3);
    ``loads`` (n, 3) global load vectors of unit gravity components g_x, g_y, g_z [m/s^2] (world axes), body
    loads and attached masses; ``labels`` (n,) what every global coordinate is."""

    K: np.ndarray
    M: np.ndarray
    superelements: dict
    maps: dict
    R_world_link: dict
    gravity_loads: np.ndarray
    labels: tuple

    def link_coordinates(self, x: np.ndarray) -> dict:
        """Reduced coordinates per link, link -> z (..., n_red), of global coordinates x (..., n)."""
        x = np.asarray(x, float)
        return {n: x @ L.T for n, L in self.maps.items()}

    def solve_static(self, gravity) -> np.ndarray:
        """Static global coordinates x (n,) under gravity (3,) [m/s^2, world axes] (a slowly applied uniform body
        load on every link and attached mass)."""
        return np.linalg.solve(self.K, self.gravity_loads @ np.asarray(gravity, float))

    def modes(self, n: int = 6):
        """Lowest ``n`` natural frequencies [Hz] (n,) and mass-normalized mode shapes X (n_global, n)."""
        w2, X = sla.eigh(self.K, self.M, subset_by_index=[0, min(n, len(self.K)) - 1])
        return np.sqrt(np.maximum(w2, 0.0)) / (2 * np.pi), X


@dataclass(frozen=True)
class ArmModes:
    """``frequency_hz`` (n,), mode shapes ``X`` (n_global, n) (mass-normalized) and ``model``: recover a mode's
    link displacement with ``model.superelements[link].displacement(model.link_coordinates(X[:, i])[link])``."""

    frequency_hz: np.ndarray
    X: np.ndarray
    model: ArmModel


def link_interfaces(robot, parts: dict, attached=()) -> dict:
    """Per link with a Part: interface name -> reference point (3,) [m, link frame]: the joint to its parent at the
    link-frame origin, the joints to its children at their ``origin`` translation, ``ground`` on the base (surface
    centroid), and the surfaces of ``attached`` masses."""
    out = {}
    for name, part in parts.items():
        robot.link(name)  # InputError on an unknown link
        ifs = {}
        if name == robot.base:
            if GROUND not in part.surfaces:
                raise InputError(f"base link {name!r}: its Part needs a surface {GROUND!r} (the floor, clamped); "
                                 f"it has {sorted(part.surfaces)}")
            ifs[GROUND] = part.surface_geometry(GROUND)[1]
        for j in robot.joints:
            if j.child == name:
                ifs[j.name] = np.zeros(3)
            elif j.parent == name and j.child in parts:
                ifs[j.name] = np.asarray(j.origin, float)[:3, 3].copy()
        for a in attached:
            if a.link == name and a.surface not in ifs:
                ifs[a.surface] = (part.surface_geometry(a.surface)[1] if a.point is None
                                  else np.asarray(a.point, float))
        for s in ifs:
            if s not in part.surfaces:
                raise InputError(f"link {name!r}: its Part has no surface {s!r} (the flange of that interface); "
                                 f"it has {sorted(part.surfaces)}")
        out[name] = ifs
    return out


def reduce_links(robot, parts: dict, n_modes: int | None = 6, attached=(), coupling: str = "rigid",
                 **options) -> dict:
    """Superelements (link -> :class:`Superelement`) of every link in ``parts`` (link -> Part), interfaces from
    :func:`link_interfaces`; ``options`` go to :meth:`Superelement.from_part` (residual_loads, max_frequency,
    residual_tol). Pose-invariant: reduce once, assemble at many poses."""
    ifs = link_interfaces(robot, parts, attached)
    return {n: Superelement.from_part(parts[n], ifs[n], n_modes, coupling=coupling, **options) for n in parts}


def assemble_arm(robot, superelements: dict, q, joint_stiffness: dict | None = None, attached=()) -> ArmModel:
    """The reduced arm at joint values q (n_dof,): see the module doc. ``joint_stiffness``: joint -> k [N m/rad]
    about the joint axis, or (k, k_tilt) [N m/rad]; joints not listed are rigid. ``attached``: AttachedMass list
    (their surfaces must be interfaces of the superelements: reduce with the same list)."""
    from ..rigid.kinematics import forward_kinematics

    joint_stiffness = dict(joint_stiffness or {})
    for jn in joint_stiffness:
        robot.joint(jn)
    T = forward_kinematics(robot, np.asarray(q, float))[0]
    T_wl = {n: T[robot.link_names.index(n)] for n in superelements}
    labels = []

    def new(k, what):
        start = len(labels)
        labels.extend(f"{what}[{i}]" for i in range(k))
        return np.arange(start, start + k)

    # node of every joint (world motion of the joint point), in topological order: the child's side may differ
    # from the parent's side by released rotations
    node_side = {}  # (link, interface) -> (expression: list of (global dofs (6,) or (k,), 6 x k matrix), point)
    springs = []
    for j in robot.ordered_joints:
        if j.child not in superelements:
            if j.parent in superelements and j.name in superelements[j.parent].interfaces:
                raise InputError(f"joint {j.name!r}: link {j.child!r} has no Part while its parent has the flange")
            continue
        x_child = T_wl[j.child][:3, 3]  # the joint point on the child (child origin)
        if j.parent in superelements:
            se_p = superelements[j.parent]
            if j.name not in se_p.interfaces:
                raise InputError(f"joint {j.name!r}: the superelement of {j.parent!r} has no interface {j.name!r}")
            x_par = T_wl[j.parent][:3, :3] @ se_p.points[se_p.interfaces.index(j.name)] + T_wl[j.parent][:3, 3]
            g = new(6, f"node {j.name}")
            parent_expr = [(g, np.eye(6))]
            node_side[(j.parent, j.name)] = parent_expr
            # transport from the parent's flange point to the child's (prismatic stroke; zero for revolute)
            Tr = np.eye(6)
            Tr[:3, 3:] = -skew(x_child - x_par)
            child_expr = [(g, Tr)]
        else:
            if j.parent != robot.base:
                raise InputError(f"joint {j.name!r}: its parent link {j.parent!r} has no Part; only the base may "
                                 f"be without one (then it is the clamped ground)")
            child_expr = []  # clamped to the ground
        if j.name in joint_stiffness:
            k = np.atleast_1d(np.asarray(joint_stiffness[j.name], float))
            a = T_wl[j.child][:3, :3] @ j.axis  # joint axis, world
            axes = [a] if len(k) == 1 else [a, *perpendicular_basis(a)]
            kk = [k[0]] if len(k) == 1 else [k[0], k[1], k[1]]
            r = new(len(axes), f"joint {j.name} relative rotation")
            G = np.zeros((6, len(axes)))
            G[3:] = np.array(axes).T
            child_expr = child_expr + [(r, G)]
            springs += list(zip(r, kk))
        node_side[(j.child, j.name)] = child_expr
    # attached masses on interfaces that are no joint: free nodes
    for a in attached:
        if (a.link, a.surface) not in node_side:
            node_side[(a.link, a.surface)] = [(new(6, f"node {a.link}.{a.surface}"), np.eye(6))]
    # links: interface rows from their nodes, internal coordinates their own
    maps = {}
    n_int = {}
    for name, se in superelements.items():
        n_int[name] = new(se.n_red - se.n_interface_dofs, f"{name} modal")
    n = len(labels)
    for name, se in superelements.items():
        L = np.zeros((se.n_red, n))
        R = T_wl[name][:3, :3]
        Rt = sla.block_diag(R.T, R.T)
        for s in se.interfaces:
            rows = se.interface_dofs(s)
            if s == GROUND and name == robot.base:
                continue  # clamped
            if (name, s) not in node_side:
                raise InputError(f"link {name!r}: interface {s!r} is joined to nothing (no joint or attached mass "
                                 f"of that name)")
            for cols, A in node_side[(name, s)]:
                L[np.ix_(rows, cols)] += Rt @ A
        L[se.n_interface_dofs:, n_int[name]] = np.eye(se.n_red - se.n_interface_dofs)
        maps[name] = L
    K = np.zeros((n, n))
    M = np.zeros((n, n))
    Fg = np.zeros((n, 3))
    from ..loads import body_coefficients

    for name, se in superelements.items():
        L = maps[name]
        K += L.T @ se.K @ L
        M += L.T @ se.M @ L
        R = T_wl[name][:3, :3]
        # unit world gravity e_i is R^T e_i in link axes: the rows of R
        coeff = body_coefficients(R, np.zeros(3), np.zeros(3), np.zeros(3))  # (3, 12)
        Fg += L.T @ (se.body_loads @ coeff.T)
    for a in attached:
        se = superelements[a.link]
        L = maps[a.link][se.interface_dofs(a.surface)]
        Ma = a.matrix()
        M += L.T @ Ma @ L
        R = T_wl[a.link][:3, :3]
        Fg += L.T @ (Ma @ np.vstack([R.T, np.zeros((3, 3))]))
    for i, k in springs:
        K[i, i] += k
    return ArmModel(K=0.5 * (K + K.T), M=0.5 * (M + M.T), superelements=dict(superelements), maps=maps,
                    R_world_link={k: v[:3, :3] for k, v in T_wl.items()}, gravity_loads=Fg, labels=tuple(labels))


def arm_frequencies(robot, parts: dict, q, n: int = 6, n_modes: int | None = 6, joint_stiffness: dict | None = None,
                    attached=(), coupling: str = "rigid", **options) -> ArmModes:
    """Lowest ``n`` natural frequencies [Hz] and mode shapes of the arm at joint values q (n_dof,).

    ``parts``: link -> Part (interfaces named after the joints, the base's floor ``ground``) or link ->
    :class:`Superelement` (already reduced, e.g. by :func:`reduce_links`, reused across poses). ``n_modes``
    fixed-interface modes per link; ``joint_stiffness``: joint -> k [N m/rad] or (k, k_tilt); ``attached``:
    :class:`AttachedMass` list; ``coupling``, ``options``: see :meth:`Superelement.from_part`."""
    if all(isinstance(v, Superelement) for v in parts.values()):
        ses = parts
    else:
        ses = reduce_links(robot, parts, n_modes, attached, coupling, **options)
    model = assemble_arm(robot, ses, q, joint_stiffness, attached)
    f, X = model.modes(n)
    return ArmModes(frequency_hz=f, X=X, model=model)
