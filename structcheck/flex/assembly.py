"""Whole-arm flexible model: the links' superelements assembled along the robot's tree (and a closed chain's cut
joints) at a pose q.

Global coordinates x: the world-frame motion (d, theta) of one 6-DOF node per joint (and per free interface such
as a tool flange carrying a mass), the released relative motions of compliant and passive joints, and every link's
modal and residual-vector coordinates. Links without a Part are rigid (no coordinates of their own). A link's
interface coordinates are its node's world motion turned into link axes,
z_if = diag(R^T, R^T) x_node (R = R_world_link at q), so the superelements are pose-invariant and only these
rotations change with q. Per link, z = L x (:attr:`ArmModel.maps`) and

    K = sum_links L^T K_r L + joint springs,   M = sum_links L^T M_r L + rigid links + attached masses.

Joints: the parent's interface named after the joint and the child's interface of the same name are joined, rigid
in all six directions, or with a torsional spring about the joint axis (``joint_stiffness[name] = k`` [N m/rad])
and optionally a tilt spring about the two perpendicular axes (``(k, k_tilt)``): the child node's rotation is the
parent's plus the released relative rotations. The base's surface ``ground`` is clamped; if the base has no Part,
the proximal interfaces of its children are clamped. Prismatic joints are rigid at their current stroke (the two
flange points are joined through the offset between them). In a closed chain only the actuated joints hold load
along their axes; passive joints are free there (:mod:`structcheck.flex.topology`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import scipy.linalg as sla

from ..errors import InputError, require_array, require_number
from ..spatial import skew
from .superelement import Superelement
from .topology import Topology, cut_joints, expression_matrix, rigid_mass_matrix, tree_joints

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

    def __post_init__(self):
        what = f"attached mass on {self.link!r} surface {self.surface!r}"
        require_number(f"{what}: mass", self.mass, "kg", at_least=0)
        if self.point is not None:
            require_array(f"{what}: point", self.point, (3,), "m")
        if self.inertia is not None:
            require_array(f"{what}: inertia", self.inertia, (3, 3), "kg m^2")

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
    :class:`Superelement`; ``maps`` link -> L (n_red, n) with z_link = L x; ``rigid_maps`` link -> (6, n): the
    motion (d, theta) of a rigid link's (one without a Part) frame origin in its link axes; ``R_world_link`` link
    -> (3, 3);
    ``loads`` (n, 3) global load vectors of unit gravity components g_x, g_y, g_z [m/s^2] (world axes), body
    loads and attached masses; ``labels`` (n,) what every global coordinate is; ``springs`` ((i, k), ...) the
    released joint motions: global coordinate i with its stiffness k [N m/rad or N/m] (0: free); ``nodes`` ((i, link),
    ...) the 6-DOF world nodes: first coordinate i (d then theta, world axes) and the elastic link that owns it.
    Assembled at a
    stack of poses, every array but ``labels`` has a leading pose dimension (K (n_poses, n, n), L (n_poses, n_red, n), ...): :meth:`at`
    picks one pose (the other methods take one pose)."""

    K: np.ndarray
    M: np.ndarray
    superelements: dict
    maps: dict
    R_world_link: dict
    gravity_loads: np.ndarray
    labels: tuple
    rigid_maps: dict = field(default_factory=dict)
    springs: tuple = ()
    nodes: tuple = ()

    def at(self, i: int) -> "ArmModel":
        """Pose i of a model assembled at a stack of poses (:func:`assemble_arm` with q (n_poses, n_coords))."""
        def pick(d):
            return {n: v[i] if v.ndim == 3 else v for n, v in d.items()}
        return replace(self, K=self.K[i], M=self.M[i], maps=pick(self.maps), R_world_link=pick(self.R_world_link),
                       gravity_loads=self.gravity_loads[i], rigid_maps=pick(self.rigid_maps))

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


def chain_parts(robot):
    """(tree Robot, cut joints, passive joint names) of a Robot (an open tree: every joint actuated) or a
    :class:`~structcheck.rigid.closedchain.ClosedChain` (passive: the tree coordinates that are not actuated)."""
    from ..rigid.stage import as_chain

    chain = as_chain(robot)
    return chain.tree, chain.cuts, set(chain.coordinate_names) - set(chain.actuated)


def link_interfaces(robot, parts: dict, attached=()) -> dict:
    """Per link with a Part: interface name -> reference point (3,) [m, link frame]: the joint to its parent at the
    link-frame origin, the joints to its children at their ``origin`` translation, a closed chain's cut joints at
    their frame on this link, ``ground`` on the base (surface centroid), and the surfaces of ``attached`` masses.
    ``robot``: a Robot or a ClosedChain."""
    tree, cuts, _ = chain_parts(robot)
    out = {}
    for name, part in parts.items():
        tree.link(name)  # InputError on an unknown link
        ifs = {}
        if name == tree.base:
            if GROUND not in part.surfaces:
                raise InputError(f"base link {name!r}: its Part needs a surface {GROUND!r} (the floor, clamped in "
                                 f"the arm model); it has {sorted(part.surfaces)}. Name it, or set "
                                 f"flexibility='link'")
            ifs[GROUND] = part.surface_geometry(GROUND)[1]
        for j in tree.joints:
            if j.child == name:
                ifs[j.name] = np.zeros(3)
            elif j.parent == name:
                ifs[j.name] = np.asarray(j.origin, float)[:3, 3].copy()
        for c in cuts:
            if name in (c.parent, c.child):
                ifs[c.name] = np.asarray(c.origin if name == c.parent else c.child_origin, float)[:3, 3].copy()
        for a in attached:
            if a.link == name and a.surface not in ifs:
                ifs[a.surface] = (part.surface_geometry(a.surface)[1] if a.point is None
                                  else np.asarray(a.point, float))
        for s in ifs:
            if s not in part.surfaces:
                raise InputError(f"link {name!r}: its Part has no surface {s!r} (the flange of that interface, where "
                                 f"the arm model joins the links); it has {sorted(part.surfaces)}. Name that "
                                 f"surface in the mesh, or set flexibility='link'")
        out[name] = ifs
    return out


def reduce_links(robot, parts: dict, n_modes: int | None = 6, attached=(), coupling: str = "rigid", on_done=None,
                 **options) -> dict:
    """Superelements (link -> :class:`Superelement`) of every link in ``parts`` (link -> Part), interfaces from
    :func:`link_interfaces`; ``options`` go to :meth:`Superelement.from_part` (residual_loads, max_frequency,
    residual_tol). Pose-invariant: reduce once, assemble at many poses. The links are reduced as many at a time as
    the process has cores (:func:`structcheck.pool.map_in_threads`; ``on_done(link)`` as each is done)."""
    from ..pool import map_in_threads

    ifs = link_interfaces(robot, parts, attached)
    ses = map_in_threads(lambda n: Superelement.from_part(parts[n], ifs[n], n_modes, coupling=coupling, **options),
                         list(parts), weight=lambda n: parts[n].n_dofs, on_done=on_done)
    return dict(zip(parts, ses))


def assemble_arm(robot, superelements: dict, q, joint_stiffness: dict | None = None, attached=(),
                 rigid_inertials=None) -> ArmModel:
    """The reduced arm at the tree's joint values q (n_coords,), or at a stack of poses q (n_poses, n_coords) in one
    pass (every array of the ArmModel then has a leading pose dimension; :meth:`ArmModel.at` picks one): see the
    module doc and :mod:`structcheck.flex.topology`. ``robot``: a Robot or a ClosedChain (its cut joints join the links'
    interfaces of their names; its passive joints are free about their axes). ``joint_stiffness``: joint -> k
    [N m/rad] about the joint axis, or (k, k_tilt) [N m/rad]; joints not listed are rigid (actuated) or free
    (passive). ``attached``: AttachedMass list (their surfaces must be interfaces of the superelements: reduce with
    the same list). Links without a superelement are rigid, their mass matrices from ``rigid_inertials``
    (:class:`~structcheck.rigid.dynamics.Inertials`, default the tree's links with their point masses); the base
    without one is the ground."""
    from ..rigid.dynamics import link_inertials
    from ..rigid.kinematics import forward_kinematics

    tree, cuts, passive = chain_parts(robot)
    joint_stiffness = dict(joint_stiffness or {})
    names = set(tree.joint_names) | {c.name for c in cuts}
    for jn in joint_stiffness:
        if jn not in names:
            raise InputError(f"joint_stiffness names unknown joint {jn!r}; the joints are {sorted(names)}")
    q = np.asarray(q, float)
    T = forward_kinematics(tree, q)  # (n_poses, n_links, 4, 4)
    T = T[0] if q.ndim == 1 else T
    T_wl = {n: T[..., tree.link_names.index(n), :, :] for n in tree.link_names}
    top = Topology()
    tree_joints(top, tree, superelements, T_wl, passive, joint_stiffness)
    cut_joints(top, cuts, superelements, T_wl, joint_stiffness)
    for a in attached:  # attached masses on interfaces that are no joint: free nodes
        if a.link in superelements and (a.link, a.surface) not in top.node_side:
            top.node_side[(a.link, a.surface)] = top.node(a.link, f"{a.link}.{a.surface}")
    n_int = {name: top.new(se.n_red - se.n_interface_dofs, f"{name} modal") for name, se in superelements.items()}
    n = len(top.labels)
    maps = {name: _link_map(name, se, top, T_wl[name][..., :3, :3], n_int[name], n, tree.base)
            for name, se in superelements.items()}
    rigid_maps = {name: _turned(T_wl[name][..., :3, :3]) @ expression_matrix(expr, n)
                  for name, expr in top.rigid.items() if name != tree.base or expr}
    inert = link_inertials(tree) if rigid_inertials is None else rigid_inertials
    K, M, Fg = _matrices(superelements, maps, rigid_maps, attached, T_wl, tree, inert, n, q.shape[:-1])
    for i, k in top.springs:
        K[..., i, i] += k
    return ArmModel(K=0.5 * (K + _T(K)), M=0.5 * (M + _T(M)), superelements=dict(superelements), maps=maps,
                    R_world_link={k: v[..., :3, :3] for k, v in T_wl.items() if k in superelements},
                    gravity_loads=Fg, labels=tuple(top.labels), rigid_maps=rigid_maps,
                    springs=tuple((int(i), float(k)) for i, k in top.springs), nodes=tuple(top.nodes))


def _T(A: np.ndarray) -> np.ndarray:
    """The transposes (..., m, n) of matrices A (..., n, m)."""
    return np.swapaxes(A, -1, -2)


def _turned(R: np.ndarray) -> np.ndarray:
    """diag(R^T, R^T) (..., 6, 6): world (d, theta) into link axes, for rotations R (..., 3, 3)."""
    out = np.zeros(R.shape[:-2] + (6, 6))
    out[..., :3, :3] = out[..., 3:, 3:] = _T(R)
    return out


def _link_map(name, se, top, R, internal, n, base) -> np.ndarray:
    """L (..., n_red, n): a link's reduced coordinates from the global ones (interface rows from their expressions
    in link axes, internal coordinates its own), for its rotations R (..., 3, 3)."""
    L = np.zeros(R.shape[:-2] + (se.n_red, n))
    for s in se.interfaces:
        if s == GROUND and name == base:
            continue  # clamped
        if (name, s) not in top.node_side:
            raise InputError(f"link {name!r}: interface {s!r} is joined to nothing (no joint or attached mass "
                             f"of that name)")
        L[..., se.interface_dofs(s), :] = _turned(R) @ expression_matrix(top.node_side[(name, s)], n)
    L[..., se.n_interface_dofs:, internal] = np.eye(se.n_red - se.n_interface_dofs)
    return L


def _matrices(superelements, maps, rigid_maps, attached, T_wl, tree, inert, n, poses=()):
    """K, M (..., n, n) and the unit-gravity loads (..., n, 3) of the superelements, rigid links and attached
    masses; ``poses`` the leading shape (a stack of poses, or () for one). One matrix product per link for all
    the poses (numpy's stacked matmul: per pose the same BLAS products as for one pose alone)."""
    from ..loads import body_coefficients

    K, M, Fg = np.zeros(poses + (n, n)), np.zeros(poses + (n, n)), np.zeros(poses + (n, 3))
    for name, se in superelements.items():
        L = maps[name]
        K += _T(L) @ se.K @ L
        M += _T(L) @ se.M @ L
        # unit world gravity e_i is R^T e_i in link axes: the rows of R
        R = T_wl[name][..., :3, :3]
        coeff = body_coefficients(R.reshape(-1, 3), np.zeros(3), np.zeros(3), np.zeros(3))  # (n_poses 3, 12)
        Fg += _T(L) @ (se.body_loads @ _T(coeff.reshape(R.shape[:-1] + (12,))))
    for name, L in rigid_maps.items():
        i = tree.link_names.index(name)
        Mr = rigid_mass_matrix(inert.mass[i], inert.com[i], inert.inertia[i])
        M += _T(L) @ Mr @ L
        Fg += _T(L) @ (Mr @ _gravity_rows(T_wl[name][..., :3, :3]))
    for a in attached:
        R = T_wl[a.link][..., :3, :3]
        if a.link in superelements:
            L = maps[a.link][..., superelements[a.link].interface_dofs(a.surface), :]
        elif a.link in rigid_maps:  # on a rigid link: its origin's motion carried to the mass's point
            Tr = np.eye(6)
            Tr[:3, 3:] = -skew(np.asarray(a.point, float))
            L = Tr @ rigid_maps[a.link]
        else:
            continue  # held by the ground
        Ma = a.matrix()
        M += _T(L) @ Ma @ L
        Fg += _T(L) @ (Ma @ _gravity_rows(R))
    return K, M, Fg


def _gravity_rows(R: np.ndarray) -> np.ndarray:
    """(..., 6, 3): unit world gravity components as rigid-body accelerations (d, theta) in link axes,
    [R^T; 0] for rotations R (..., 3, 3)."""
    return np.concatenate([_T(R), np.zeros(R.shape[:-2] + (3, 3))], axis=-2)


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
