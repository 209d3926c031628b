"""Stress measures over stacks of stress vectors ``s[..., 6]`` = [xx, yy, zz, yz, xz, xy] [Pa]."""
from __future__ import annotations

import numpy as np


def von_mises(s: np.ndarray) -> np.ndarray:
    """Von Mises equivalent stress (...,)."""
    xx, yy, zz, yz, xz, xy = np.moveaxis(s, -1, 0)
    return np.sqrt(np.maximum(0.5 * ((xx - yy) ** 2 + (yy - zz) ** 2 + (zz - xx) ** 2)
                              + 3.0 * (yz * yz + xz * xz + xy * xy), 0.0))


def tensor(s: np.ndarray) -> np.ndarray:
    """(..., 3, 3) symmetric tensors from (..., 6) vectors."""
    xx, yy, zz, yz, xz, xy = np.moveaxis(s, -1, 0)
    return np.stack([np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)], -2)


def principal_stresses(s: np.ndarray) -> np.ndarray:
    """Principal stresses (..., 3) sorted descending."""
    return np.linalg.eigvalsh(tensor(s))[..., ::-1]


def equivalent_strain(von_mises_stress, E: float):
    """ANSYS's equivalent elastic strain with nu' = nu: von Mises / E."""
    return np.asarray(von_mises_stress) / E


#: T (5, 6) with von_mises(s) = |T s| for s = [xx, yy, zz, yz, xz, xy]:
#: vm^2 = 1/2 ((xx-yy)^2 + (yy-zz)^2 + (zz-xx)^2) + 3 (yz^2 + xz^2 + xy^2).
_R3 = np.sqrt(3.0)
VON_MISES_MATRIX = np.array([[_R3 / 2, -_R3 / 2, 0, 0, 0, 0], [0.5, 0.5, -1.0, 0, 0, 0], [0, 0, 0, _R3, 0, 0],
                             [0, 0, 0, 0, _R3, 0], [0, 0, 0, 0, 0, _R3]])


def max_principal(s: np.ndarray) -> np.ndarray:
    """Largest principal stress (...,) of s (..., 6), closed form (trigonometric solution of the characteristic
    cubic; relative error ~1e-8 of the stress magnitude at worst, where the two largest principal stresses
    coincide). Cheaper than :func:`principal_stresses` on large stacks."""
    xx, yy, zz, yz, xz, xy = np.moveaxis(s, -1, 0)
    m = (xx + yy + zz) / 3
    a, b, c = xx - m, yy - m, zz - m
    off = yz * yz + xz * xz + xy * xy
    p = np.sqrt((a * a + b * b + c * c + 2 * off) / 6)
    det = a * b * c + 2 * xy * yz * xz - a * yz * yz - b * xz * xz - c * xy * xy
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip(det / (2 * p ** 3), -1.0, 1.0)
    r = np.where(p > 0, r, 1.0)
    return m + 2 * p * np.cos(np.arccos(r) / 3)
