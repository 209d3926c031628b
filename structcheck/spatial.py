"""Small 3-D vector helpers shared by every stage: skew matrices, their axial vectors, orthonormal completions.

Every function takes one vector or a stack: shapes ``(..., 3)`` in, ``(..., 3, 3)`` or ``(..., 2, 3)`` out.
"""
from __future__ import annotations

import numpy as np

#: Levi-Civita symbol e_ijk (3, 3, 3): (a x b)_i = e_ijk a_j b_k.
LEVI_CIVITA = np.zeros((3, 3, 3))
LEVI_CIVITA[0, 1, 2] = LEVI_CIVITA[1, 2, 0] = LEVI_CIVITA[2, 0, 1] = 1.0
LEVI_CIVITA[0, 2, 1] = LEVI_CIVITA[2, 1, 0] = LEVI_CIVITA[1, 0, 2] = -1.0


def skew(v) -> np.ndarray:
    """Cross-product matrices [v]x (..., 3, 3) of vectors v (..., 3): [v]x @ b = v x b."""
    v = np.asarray(v, float)
    z = np.zeros(v.shape[:-1])
    x, y, w = v[..., 0], v[..., 1], v[..., 2]
    return np.stack([np.stack([z, -w, y], -1), np.stack([w, z, -x], -1), np.stack([-y, x, z], -1)], -2)


def vee(R) -> np.ndarray:
    """Axial vectors (..., 3) of the skew parts of matrices R (..., 3, 3): for a rotation, its rotation vector to
    first order; for R = skew(v), v itself."""
    R = np.asarray(R, float)
    return 0.5 * np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]],
                          axis=-1)


def perpendicular_basis(a) -> np.ndarray:
    """Two unit vectors (..., 2, 3) that complete unit vectors a (..., 3) to right-handed orthonormal bases
    (e1, e2, a). e1 is normal to a and to the coordinate axis along a's smallest component (well conditioned)."""
    a = np.asarray(a, float)
    helper = np.eye(3)[np.argmin(np.abs(a), axis=-1)]
    e1 = np.cross(helper, a)
    e1 = e1 / np.linalg.norm(e1, axis=-1, keepdims=True)
    return np.stack([e1, np.cross(a, e1)], axis=-2)


def cross(a, b) -> np.ndarray:
    """a x b (..., 3) of float vectors a, b (..., 3), broadcast: ``np.cross``'s products and differences in its
    order, so the same bits, without its axis moves and copies (a closed chain's loop closure calls it thousands of
    times on a few vectors each, where those dominate)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    a0, a1, a2, b0, b1, b2 = a[..., 0], a[..., 1], a[..., 2], b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(np.broadcast_shapes(a0.shape, b0.shape) + (3,))
    np.multiply(a1, b2, out=out[..., 0])
    out[..., 0] -= a2 * b1
    np.multiply(a2, b0, out=out[..., 1])
    out[..., 1] -= a0 * b2
    np.multiply(a0, b1, out=out[..., 2])
    out[..., 2] -= a1 * b0
    return out
