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
