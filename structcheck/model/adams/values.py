"""Numbers and frames of ADAMS statements: numbers with the ``D`` (degrees) suffix, REULER body 3-1-3 Euler
angles, ZP/XP (ZG/XG) axis points, and the reverse (a rotation's REULER angles) for the writer."""
from __future__ import annotations

import math

import numpy as np

from ...errors import InputError


def number(text: str, where: str, what: str, angle: bool = False) -> float:
    """A finite float from ``text``; ``angle``: a ``D`` suffix means degrees (converted to rad), none rad."""
    t = text.strip().upper()
    deg = angle and t.endswith("D")
    try:
        v = float(t[:-1] if deg else t)
    except ValueError:
        raise InputError(f"{where}: {what} = {text.strip()!r} is not a number"
                         + (" (an angle: radians, or degrees with a D suffix, e.g. 90D)" if angle else "")) from None
    if not math.isfinite(v):
        raise InputError(f"{where}: {what} = {text.strip()!r} is not finite")
    return math.radians(v) if deg else v


def numbers(args: dict, key: str, n: int | tuple, where: str, angle: bool = False, default=None) -> list[float]:
    """The numbers of keyword ``key`` (``n`` of them, or a count in the tuple ``n``); ``default`` when absent."""
    if key not in args:
        if default is None:
            raise InputError(f"{where}: {key}= is missing")
        return list(default)
    vals = [number(v, where, key, angle) for v in args[key]]
    counts = n if isinstance(n, tuple) else (n,)
    if len(vals) not in counts:
        raise InputError(f"{where}: {key}= needs {' or '.join(map(str, counts))} numbers, got {len(vals)}")
    return vals


def reuler(psi: float, theta: float, phi: float) -> np.ndarray:
    """The rotation (3, 3) of ADAMS's REULER=psi,theta,phi [rad]: body 3-1-3, Rz(psi) Rx(theta) Rz(phi)
    (columns: the marker's axes in its part's axes)."""
    def rz(a):
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])

    c, s = math.cos(theta), math.sin(theta)
    return rz(psi) @ np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]) @ rz(phi)


def reuler_angles(R: np.ndarray) -> tuple[float, float, float]:
    """REULER (psi, theta, phi) [rad] of the rotation ``R`` (3, 3), theta in [0, pi]; at theta = 0 or pi (z
    along +-z) phi = 0 and psi takes the whole turn about z."""
    theta = math.atan2(math.hypot(R[0, 2], R[1, 2]), R[2, 2])
    if math.hypot(R[0, 2], R[1, 2]) < 1e-12:
        psi = math.atan2(R[1, 0], R[0, 0])  # Rz(psi) or Rz(psi) Rx(pi): the same first column
        return psi, (0.0 if R[2, 2] > 0 else math.pi), 0.0
    return math.atan2(R[0, 2], -R[1, 2]), theta, math.atan2(R[2, 0], R[2, 1])


def axes_from_z(z, x_hint=None) -> np.ndarray:
    """A rotation (3, 3) whose z column is the unit ``z`` and x column lies in the plane of z and ``x_hint``
    (default: the x axis, or the y axis when z is along x). The identity for z = (0, 0, 1)."""
    z = np.asarray(z, float) / np.linalg.norm(z)
    hint = np.asarray(x_hint, float) if x_hint is not None else \
        (np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0]))
    x = hint - hint.dot(z) * z
    if np.linalg.norm(x) < 1e-12:
        raise InputError(f"the x point lies on the z axis {z.tolist()}: give a point off the axis")
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def placement(args: dict, where: str, length: float, q: str, z: str, x: str) -> np.ndarray:
    """The (4, 4) pose of a PART (``q``=QG, ``z``=ZG, ``x``=XG) or MARKER (QP, ZP, XP) from its arguments:
    origin ``q`` [dataset length -> m via ``length``], orientation REULER or the ZP/XP points (both in the same
    frame as the origin)."""
    T = np.eye(4)
    T[:3, 3] = np.array(numbers(args, q, 3, where, default=(0, 0, 0))) * length
    if "REULER" in args and (z in args or x in args):
        raise InputError(f"{where}: give REULER or {z}/{x}, not both")
    if "REULER" in args:
        T[:3, :3] = reuler(*numbers(args, "REULER", 3, where, angle=True))
    elif z in args:
        if x not in args:  # ADAMS would pick an x axis by its own rule; the joint angles depend on it
            raise InputError(f"{where}: {z} without {x}; give {x} too (a point in the x-z plane), or REULER")
        zp = np.array(numbers(args, z, 3, where)) * length - T[:3, 3]
        if np.linalg.norm(zp) == 0:
            raise InputError(f"{where}: {z} is the origin itself; give a point on the z axis")
        xp = np.array(numbers(args, x, 3, where)) * length - T[:3, 3]
        try:
            T[:3, :3] = axes_from_z(zp, xp)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    elif x in args:
        raise InputError(f"{where}: {x} without {z}; give {z} (a point on the z axis) too")
    return T
