"""URDF reader: a Robot from a URDF file (http://wiki.ros.org/urdf/XML).

Read: ``<link>`` with ``<inertial>`` (mass [kg]; inertia [kg m^2] about the COM in the ``<origin>`` frame, turned
into link axes; COM [m] in the link frame) and the first ``<collision>`` (else ``<visual>``) mesh's filename,
kept as written (``package://`` paths need not exist); ``<joint>`` of type revolute, continuous, prismatic or
fixed with ``<origin>`` (placement of the joint frame in the parent link frame at q = 0; rpy = roll, pitch, yaw
about fixed x, y, z), ``<axis>`` (default x; a fixed joint's axis is ignored, as the specification says),
``<limit lower upper>`` (revolute and prismatic; a continuous joint has none) and ``<mimic joint multiplier
offset>``. Everything else (visual geometry, transmissions, gazebo, safety controllers, dynamics) is ignored.
Malformed input raises InputError naming the file, the joint or link and the attribute.
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..errors import InputError
from .links import JOINT_TYPES, Joint, Link, rpy_matrix

URDF_DEFAULT_AXIS = (1.0, 0.0, 0.0)


def urdf_parts(path) -> tuple[list, list, str]:
    """The links, joints and name (the ``<robot name>``, else the file's stem) of the robot described by the URDF
    file at ``path``: ``Robot(links, joints, name=name)`` (:func:`structcheck.model.robot.read_urdf`)."""
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise InputError(f"cannot read URDF {str(path)!r}: {exc}") from None
    if root.tag != "robot":
        raise InputError(f"{path}: the root element is <{root.tag}>, a URDF needs <robot>")
    links = [_read_link(el, path) for el in root.findall("link")]
    joints = [_read_joint(el, path) for el in root.findall("joint")]
    return links, joints, root.get("name", path.stem)


def _read_link(el, path) -> Link:
    """A Link from a ``<link>`` element: inertial properties in link axes and the mesh reference."""
    name = _name(el, "link", path)
    mass, com, inertia = 0.0, np.zeros(3), np.zeros((3, 3))
    inel = el.find("inertial")
    if inel is not None:
        T = _origin(inel.find("origin"), path, f"link {name!r}")
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
    return Link(name, mass, tuple(com), tuple(map(tuple, inertia)), mesh=mesh)


def _read_joint(el, path) -> Joint:
    """A Joint from a ``<joint>`` element (limits absolute; the axis of a fixed joint ignored)."""
    name, jtype = _name(el, "joint", path), el.get("type")
    if jtype not in JOINT_TYPES:
        raise InputError(f"{path}: joint {name!r} has unsupported type {jtype!r}; structcheck handles {JOINT_TYPES}")
    parent, child = el.find("parent"), el.find("child")
    if parent is None or child is None or not parent.get("link") or not child.get("link"):
        raise InputError(f"{path}: joint {name!r} needs <parent link=...> and <child link=...>")
    T = _origin(el.find("origin"), path, f"joint {name!r}")
    ax = el.find("axis") if jtype != "fixed" else None
    axis = np.array(URDF_DEFAULT_AXIS) if ax is None else \
        np.array(_triple(ax.get("xyz", ""), path, f"joint {name!r} <axis xyz>", "a direction"))
    if not np.linalg.norm(axis) > 0:
        raise InputError(f"{path}: {jtype} joint {name!r} <axis xyz> is zero: {ax.get('xyz')!r}; a movable "
                         f"joint needs a nonzero direction (only a fixed joint's axis is ignored)")
    lower, upper = -math.inf, math.inf
    if jtype in ("revolute", "prismatic"):
        lim = el.find("limit")
        if lim is None:
            raise InputError(f"{path}: {jtype} joint {name!r} needs a <limit lower= upper=>")
        lower = _num(lim.get("lower", "0"), path, f"joint {name!r} lower limit")
        upper = _num(lim.get("upper", "0"), path, f"joint {name!r} upper limit")
    mimic = None
    mel = el.find("mimic")
    if mel is not None:
        if not mel.get("joint"):
            raise InputError(f"{path}: joint {name!r} <mimic> needs a joint= attribute naming the joint it follows")
        mimic = (mel.get("joint"), _num(mel.get("multiplier", "1"), path, f"joint {name!r} mimic multiplier"),
                 _num(mel.get("offset", "0"), path, f"joint {name!r} mimic offset"))
    return Joint(name, jtype, parent.get("link"), child.get("link"), T, axis, lower, upper, 0.0, mimic)


def _name(el, kind, path) -> str:
    """The element's ``name`` attribute; InputError if it has none."""
    name = el.get("name")
    if not name:
        raise InputError(f"{path}: a <{kind}> has no name attribute")
    return name


def _num(text, path, what) -> float:
    """A finite float from an attribute's text; InputError naming ``what`` otherwise."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{path}: {what} is not a number: {text!r}") from None
    if not math.isfinite(v):
        raise InputError(f"{path}: {what} is not finite: {text!r}")
    return v


def _origin(el, path, what) -> np.ndarray:
    """The (4, 4) transform of an ``<origin xyz rpy>`` element (identity if absent) [m, rad]."""
    T = np.eye(4)
    if el is None:
        return T
    xyz = _triple(el.get("xyz", "0 0 0"), path, f"{what} <origin xyz>", "x y z [m]")
    rpy = _triple(el.get("rpy", "0 0 0"), path, f"{what} <origin rpy>", "roll pitch yaw [rad]")
    T[:3, :3] = rpy_matrix(*rpy)
    T[:3, 3] = xyz
    return T


def _triple(text, path, what, meaning) -> list[float]:
    """Three numbers from a URDF attribute such as xyz="0 0.1 0"; InputError naming ``what`` otherwise."""
    vals = [_num(v, path, what) for v in text.split()]
    if len(vals) != 3:
        raise InputError(f"{path}: {what} needs 3 numbers ({meaning}), got {len(vals)}: {text!r}")
    return vals
