"""How the links of the arm model are joined at a pose: which global coordinates move each link's interfaces.

Every link side of a joint gets an *expression*: a list of (global coordinate indices (k,), matrix (6, k)) whose
sum is the world motion (d, theta) of that link's flange point at the joint (translation [m] of the point, small
rotation [rad], world axes). An empty list is the clamped ground.

- A tree joint whose parent is elastic (has a superelement) creates one 6-DOF world node at the parent's flange
  point. A link without a Part is **rigid**: the motion of any of its points is its frame origin's, carried
  rigidly (d_b = d_a + theta x (b - a)). The base without a Part is the clamped ground.
- The child's side is the parent's, carried from the parent's flange point to the child's origin (a prismatic
  joint's stroke), plus the joint's **released** relative motions: a rotation about the axis (a compliant joint:
  ``joint_stiffness``, N m/rad; or a passive revolute: stiffness 0), the two tilts (``(k, k_tilt)``), a
  translation along the axis (a passive prismatic joint: stiffness 0).
- Which joints hold load along their own axis (closed chains, :class:`~structcheck.rigid.closedchain.ClosedChain`):
  the actuated coordinates (rigid, or ``joint_stiffness``). The passive tree coordinates and the cut joints are
  free along their own axis: a revolute's rotation about its axis, a prismatic joint's translation along it, a
  spherical cut joint's three rotations. The loops keep the assembly non-singular; an open tree's joints are all
  actuated. A prismatic actuator (a hydraulic cylinder) is rigid along its stroke at the current length.
- A cut joint joins the two links' interfaces of its name (on A at ``origin``, on B at ``child_origin``): one side
  takes the other's motion, carried between the two flange points, plus the released motions. At least one of
  the two links must be elastic.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..spatial import perpendicular_basis, skew


def transport(expr: list, a, b) -> list:
    """The motion at point b (..., 3) [m, world] of a rigid body whose motion at point a (..., 3) is ``expr``
    (a stack of poses: leading dimensions)."""
    r = np.asarray(b, float) - np.asarray(a, float)
    Tr = np.zeros(r.shape[:-1] + (6, 6))
    Tr[..., :, :] = np.eye(6)
    Tr[..., :3, 3:] = -skew(r)
    return [(cols, Tr @ A) for cols, A in expr]


def release_matrix(kind: str, axis) -> np.ndarray:
    """Columns (..., 6, k) of the released relative motions of a joint with unit ``axis`` (..., 3) [world]:
    'rotation' about it (k = 1), 'rotation+tilt' (k = 3: about it and the two normals), 'translation' along it
    (k = 1), 'spherical' (k = 3 rotations)."""
    a = np.asarray(axis, float)
    zero = np.zeros_like(a)
    G = {"rotation": lambda: np.concatenate([zero, a], axis=-1)[..., None],
         "translation": lambda: np.concatenate([a, zero], axis=-1)[..., None],
         "rotation+tilt": lambda: np.concatenate([np.zeros(a.shape[:-1] + (3, 3)),
                                                  np.stack([a, *np.moveaxis(perpendicular_basis(a), -2, 0)],
                                                           axis=-1)], axis=-2),
         "spherical": lambda: np.vstack([np.zeros((3, 3)), np.eye(3)])}
    return G[kind]()


@dataclass
class Topology:
    """The global coordinates being numbered while a pose is assembled: ``labels`` (what each coordinate is),
    ``node_side`` (link, interface) -> expression, ``rigid`` link -> expression of its frame origin,
    ``springs`` (coordinate, stiffness) of the released motions (stiffness 0: free), ``nodes`` (first coordinate,
    owner link) of every 6-DOF world node: the elastic link whose flange it is (its parent side)."""

    labels: list = field(default_factory=list)
    node_side: dict = field(default_factory=dict)
    rigid: dict = field(default_factory=dict)
    springs: list = field(default_factory=list)
    nodes: list = field(default_factory=list)

    def new(self, k: int, what: str) -> np.ndarray:
        start = len(self.labels)
        self.labels.extend(f"{what}[{i}]" for i in range(k))
        return np.arange(start, start + k)

    def node(self, owner: str, name: str) -> list:
        """A new 6-DOF world node (d, theta) at a flange of the elastic link ``owner``: its expression."""
        cols = self.new(6, f"node {name}")
        self.nodes.append((int(cols[0]), owner))
        return [(cols, np.eye(6))]

    def released(self, expr: list, joint: str, kind: str, axis, stiffness) -> list:
        """``expr`` plus the released motions of ``joint`` with their springs [N m/rad or N/m]."""
        G = release_matrix(kind, axis)
        r = self.new(G.shape[-1], f"joint {joint} relative {kind}")
        self.springs += list(zip(r, np.broadcast_to(stiffness, (G.shape[-1],))))
        return expr + [(r, G)]


def joint_release(name: str, jtype: str, passive: bool, joint_stiffness: dict):
    """(kind, stiffness) of a joint's released motions, or None for a rigid joint. ``joint_stiffness`` (a
    compliant joint) overrides; a passive revolute/prismatic is free along its axis, a spherical cut joint in its
    three rotations."""
    if name in joint_stiffness:
        k = np.atleast_1d(np.asarray(joint_stiffness[name], float))
        if np.any(k < 0) or not np.all(np.isfinite(k)) or len(k) > 2:
            raise InputError(f"joint_stiffness[{name!r}] must be k or (k, k_tilt) >= 0 [N m/rad], got {k}")
        return ("rotation", k[0]) if len(k) == 1 else ("rotation+tilt", np.array([k[0], k[1], k[1]]))
    if not passive:
        return None
    kinds = {"revolute": "rotation", "continuous": "rotation", "prismatic": "translation", "spherical": "spherical"}
    if jtype not in kinds:
        return None
    return kinds[jtype], 0.0


def tree_joints(top: Topology, tree, elastic: dict, T_wl: dict, passive: set, joint_stiffness: dict) -> None:
    """Expressions of both sides of every tree joint, in topological order, and of every rigid link's origin.
    ``T_wl`` link -> placement (..., 4, 4) (a stack of poses: leading dimensions)."""
    base = tree.base
    if base not in elastic:
        top.rigid[base] = []  # the ground
    for j in tree.ordered_joints:
        x_child = T_wl[j.child][..., :3, 3]
        if j.parent in elastic:
            se_p = elastic[j.parent]
            if j.name not in se_p.interfaces:
                raise InputError(f"joint {j.name!r}: the superelement of {j.parent!r} has no interface {j.name!r}")
            x_par = (T_wl[j.parent][..., :3, :3] @ se_p.points[se_p.interfaces.index(j.name)]
                     + T_wl[j.parent][..., :3, 3])
            parent_expr = top.node(j.parent, j.name)
            top.node_side[(j.parent, j.name)] = parent_expr
        else:  # rigid parent: its origin's motion carried to the joint's placement on it
            x_par = T_wl[j.parent][..., :3, :3] @ np.asarray(j.origin, float)[:3, 3] + T_wl[j.parent][..., :3, 3]
            parent_expr = transport(top.rigid[j.parent], T_wl[j.parent][..., :3, 3], x_par)
        child_expr = transport(parent_expr, x_par, x_child)
        rel = joint_release(j.name, j.type, j.name in passive, joint_stiffness)
        if rel is not None:
            child_expr = top.released(child_expr, j.name, rel[0], T_wl[j.child][..., :3, :3] @ j.axis, rel[1])
        if j.child in elastic:
            top.node_side[(j.child, j.name)] = child_expr
        else:
            top.rigid[j.child] = child_expr  # the child's origin is the joint point


def cut_joints(top: Topology, cuts, elastic: dict, T_wl: dict, joint_stiffness: dict) -> None:
    """Expressions of both sides of every cut joint: the elastic side B (or A, when B is rigid) takes the other
    side's motion carried between the two flange points, plus the cut joint's released motions."""
    for c in cuts:
        xa = T_wl[c.parent][..., :3, :3] @ c.origin[:3, 3] + T_wl[c.parent][..., :3, 3]
        xb = T_wl[c.child][..., :3, :3] @ c.child_origin[:3, 3] + T_wl[c.child][..., :3, 3]
        axis = T_wl[c.parent][..., :3, :3] @ c.origin[:3, :3] @ c.axis
        sides = [(c.parent, xa), (c.child, xb)]
        if not any(s in elastic for s, _ in sides):
            raise InputError(f"cut joint {c.name!r} joins two links without a Part ({c.parent!r}, {c.child!r}); the "
                             f"arm model needs a Part for at least one of them")
        (src, x_src), (dst, x_dst) = sides if c.child in elastic else sides[::-1]
        if src in elastic:
            src_expr = top.node(src, c.name)
            top.node_side[(src, c.name)] = src_expr
        else:
            src_expr = transport(top.rigid[src], T_wl[src][..., :3, 3], x_src)
        expr = transport(src_expr, x_src, x_dst)
        rel = joint_release(c.name, c.type, True, joint_stiffness)
        if rel is not None:
            expr = top.released(expr, c.name, rel[0], axis, rel[1])
        top.node_side[(dst, c.name)] = expr


def expression_matrix(expr: list, n: int) -> np.ndarray:
    """The (..., 6, n) matrix of an expression over n global coordinates (its terms' leading dimensions: a stack
    of poses)."""
    out = np.zeros(np.broadcast_shapes(*(A.shape[:-2] for _, A in expr)) + (6, n))
    for cols, A in expr:
        out[..., cols] += A
    return out


def rigid_mass_matrix(mass: float, com, inertia) -> np.ndarray:
    """6x6 mass matrix [kg, kg m, kg m^2] of a rigid body for the motion (d, theta) of its frame origin, link
    axes: ``mass``, ``com`` (3,) [m] and ``inertia`` (3, 3) about the com; the com moves with d + theta x c."""
    C = skew(com)
    out = np.zeros((6, 6))
    out[:3, :3] = mass * np.eye(3)
    out[:3, 3:] = -mass * C
    out[3:, :3] = mass * C
    out[3:, 3:] = np.asarray(inertia, float) - mass * C @ C
    return out
