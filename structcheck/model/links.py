"""The parts a robot model is built from: links (mass properties in the link frame), joints (placement, axis,
limits, home), point masses, and the homogeneous transforms that place them (4 x 4, SI units). A
:class:`~structcheck.model.robot.Robot` joins them into a tree; model/dh.py and model/urdf.py make them from a D-H
table or a URDF file."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, require_array, require_number

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed")


@dataclass(frozen=True)
class PointMass:
    """A non-structural mass (motor, reducer, cables) [kg] at ``position`` (3,) in the link frame [m]."""

    name: str
    mass: float
    position: tuple

    def __post_init__(self):
        require_number(f"point mass {self.name!r}: mass", self.mass, "kg", at_least=0)
        require_array(f"point mass {self.name!r}: position", self.position, (3,), "m")


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

    def __post_init__(self):
        require_number(f"link {self.name!r}: mass", self.mass, "kg", at_least=0)
        require_array(f"link {self.name!r}: com", self.com, (3,), "m")
        require_array(f"link {self.name!r}: inertia", self.inertia, (3, 3), "kg m^2")


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


def as_samples(x, names, what: str, noun: str = "joint") -> np.ndarray:
    """Values of the coordinates ``names`` as (n_samples, len(names)) floats: one sample (len(names),), a stack,
    or with a single coordinate its time series (n_samples,). InputError naming ``what`` for a wrong shape, and
    the ``noun`` (e.g. 'joint') and sample of a non-finite value."""
    x = np.asarray(x, float)
    n = len(names)
    if x.ndim == 1:
        x = x[:, None] if n == 1 and x.shape[0] != 1 else x[None, :]
    if x.ndim != 2 or x.shape[1] != n:
        raise InputError(f"{what} must have shape (n_samples, {n}) for the {noun}s {list(names)}, got {np.shape(x)}")
    bad = ~np.isfinite(x)
    if bad.any():
        i, k = np.argwhere(bad)[0]
        raise InputError(f"{what} of {noun} {names[k]!r} is not finite (NaN or inf) at sample {i}")
    return x



def _freeze(v):
    """A numpy array as nested tuples (Link fields are hashable); anything else unchanged."""
    if isinstance(v, np.ndarray):
        return tuple(map(tuple, v)) if v.ndim == 2 else tuple(v.tolist())
    return v
