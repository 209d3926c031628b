"""Robots from Denavit-Hartenberg tables: standard (distal) and modified (Craig) conventions, one builder.

A D-H row describes a screw about z (theta, d) and a screw about x (a, alpha). The two conventions differ only in
where a row's x-screw sits: after joint i in the standard convention (it belongs to link i and leads to
standard frame i), before joint i in the modified one (it leads from frame i-1 to frame i):

- standard:  T_{i-1,i} = RotZ(theta_i) TransZ(d_i) TransX(a_i) RotX(alpha_i), row (theta_i, d_i, a_i, alpha_i);
- modified:  T_{i-1,i} = RotX(alpha_{i-1}) TransX(a_{i-1}) RotZ(theta_i) TransZ(d_i),
  row (alpha_{i-1}, a_{i-1}, d_i[, theta_i]).

Link i's frame sits on joint i's axis in both: frame i for modified D-H; for standard D-H frame i-1 turned by
theta_i about z_{i-1} and moved d_i along it, so standard frame i = link frame i @ TransX(a_i) RotX(alpha_i).
Units: angles [rad], lengths [m].
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from .links import Joint, Link, _freeze, rot_x, rot_z, trans

# row layout of each convention: the column names in the order a row gives them, and the shortest row
CONVENTIONS = {
    "standard": (("theta", "d", "a", "alpha"), 4, "(theta_i, d_i, a_i, alpha_i)"),
    "modified": (("alpha", "a", "d", "theta"), 3, "(alpha_{i-1}, a_{i-1}, d_i[, theta_i])"),
}


def dh_table(rows, convention: str = "standard", home=None, limits=None, link_names=None, joint_names=None,
             types=None, inertials=None, base_name: str = "base") -> tuple[list, list, dict | None]:
    """The links, joints and named points (or None) of a serial robot from a D-H table (``convention`` 'standard'
    or 'modified', layouts in the module docstring): ``Robot(*dh_table(...))``
    (:func:`structcheck.model.robot.build_dh_robot`, ``Robot.from_dh``, ``Robot.from_modified_dh``).

    The joint coordinate IS the row's variable, absolute: q_i = theta_i for a 'revolute' row,
    q_i = d_i for a 'prismatic' row. The row's entry for its variable must therefore be 0 (the pose is given by
    q, and the assembled pose by ``home``): a nonzero theta_i in a revolute row (or d_i in a prismatic row)
    raises InputError instead of silently shifting q. The other entries are the constant parameters (theta_i of
    a prismatic row, d_i of a revolute row).

    ``home`` (n,) absolute joint values of the assembled pose [rad, m]; ``limits`` (n, 2) absolute; ``types``
    'revolute' or 'prismatic' per row; ``inertials`` per link i >= 1: None or dict(mass= [kg], com= (3,) [m],
    inertia= (3, 3) about the COM [kg m^2]) in frame i (standard frame i is moved into link frame i).
    ``link_names`` has n + 1 names (base first). A standard table also gives the point ``flange``, the origin of
    standard frame n on the last link."""
    if convention not in CONVENTIONS:
        raise InputError(f"D-H convention must be one of {sorted(CONVENTIONS)}, got {convention!r}")
    standard = convention == "standard"
    rows = _dh_rows(rows, *CONVENTIONS[convention])
    n = len(rows)
    link_names, joint_names, types, home, limits = _dh_defaults(n, link_names, joint_names, types, home, limits,
                                                                base_name)
    links = [Link(link_names[0])]
    joints = []
    x_screw = np.eye(4)  # the x-screw placed before the next joint: the previous row's (standard) or its own
    for i, (theta, d, a, alpha) in enumerate(rows):
        _dh_check_variable(i, types[i], theta, d, joint_names[i])
        if not standard:
            x_screw = rot_x(alpha) @ trans(x=a)
        # the joint's own motion (RotZ(q) or TransZ(q)) follows the origin; RotZ and TransZ commute
        origin = x_screw @ (trans(z=d) if types[i] == "revolute" else rot_z(theta))
        joints.append(Joint(joint_names[i], types[i], link_names[i], link_names[i + 1], origin,
                            np.array([0.0, 0.0, 1.0]), float(limits[i][0]), float(limits[i][1]), float(home[i])))
        inert = (inertials or [None] * n)[i]
        if standard:
            x_screw = trans(x=a) @ rot_x(alpha)  # standard frame i in link frame i
            inert = _moved_inertial(inert, x_screw)
        links.append(_inertial_link(link_names[i + 1], inert))
    points = {"flange": (link_names[-1], x_screw[:3, 3])} if standard else None
    return links, joints, points


def _dh_rows(rows, columns, n_min, layout):
    """D-H rows as tuples (theta, d, a, alpha) of floats (a missing 4th modified-D-H entry theta_i is 0)."""
    out = []
    for i, r in enumerate(rows):
        try:
            r = tuple(float(x) for x in r)
        except (TypeError, ValueError):
            raise InputError(f"D-H row {i + 1} must be numbers {layout}, got {r!r}") from None
        if not n_min <= len(r) <= 4 or not all(math.isfinite(x) for x in r):
            raise InputError(f"D-H row {i + 1} must be {n_min if n_min == 4 else '3 or 4'} finite numbers "
                             f"{layout}, got {r!r}")
        value = dict(zip(columns, r + (0.0,) * (4 - len(r))))
        out.append((value["theta"], value["d"], value["a"], value["alpha"]))
    return out


def _dh_check_variable(i, jtype, theta, d, joint):
    """InputError unless row i's type is revolute/prismatic and its own variable (theta or d) is 0."""
    if jtype not in ("revolute", "prismatic"):
        raise InputError(f"D-H row {i + 1}: joint type must be 'revolute' or 'prismatic', got {jtype!r}")
    var, val = ("theta", theta) if jtype == "revolute" else ("d", d)
    if val != 0.0:
        raise InputError(f"D-H row {i + 1}: {var}_{i + 1} = {val:g} is the {jtype} joint {joint!r}'s own coordinate "
                         f"(q = {var}_{i + 1}, absolute), so the row must give 0 there; put the assembled value in "
                         f"home= (and the motion as an offset from it)")


def _dh_defaults(n, link_names, joint_names, types, home, limits, base_name):
    """Names, types, home (n,) and limits (n, 2) of an n-row table, defaults filled in and shapes checked."""
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


def _moved_inertial(inert, C):
    """An inertial dict given in frame F moved into the frame where F sits at C (4, 4); None stays None."""
    if inert is None:
        return None
    R = C[:3, :3]
    return dict(mass=inert.get("mass", 0.0),
                com=C[:3, :3] @ np.asarray(inert.get("com", (0, 0, 0)), float) + C[:3, 3],
                inertia=R @ np.asarray(inert.get("inertia", np.zeros((3, 3))), float) @ R.T)


def _inertial_link(name, inert):
    """A Link from an inertial dict (mass [kg], com (3,) [m], inertia (3, 3) [kg m^2]) or a massless one."""
    if inert is None:
        return Link(name)
    return Link(name, float(inert.get("mass", 0.0)), tuple(np.asarray(inert.get("com", (0, 0, 0)), float)),
                _freeze(np.asarray(inert.get("inertia", np.zeros((3, 3))), float)))
