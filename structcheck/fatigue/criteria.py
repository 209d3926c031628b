"""Scalar stress histories for cycle counting: the normal stress on candidate planes (critical-plane method)
and the signed von Mises stress. Stress vectors ``s[..., 6]`` = [xx, yy, zz, yz, xz, xy] [Pa] (tensor shear
components, as in :mod:`structcheck.fe.stress`)."""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..fe.stress import von_mises


def plane_normals(step_deg: float = 10.0) -> np.ndarray:
    """Unit normals (n_planes, 3) of candidate planes covering the hemisphere (a normal and its opposite are
    the same plane) on a spherical grid: polar angles 0, d, 2d, ..., 90 deg (d = 90 / round(90 / step_deg)),
    on each ring azimuths about d / sin(polar) apart over 360 deg, over 180 deg on the equator. Any direction
    is within about d / sqrt(2) of a normal of the set (7.1 deg for the default 10 deg: 206 planes; up to 2.5 %
    more at steps of 20-30 deg), so the grid alone finds the largest range (twice the largest amplitude) of the
    normal stress within 2 sin^2(d / sqrt(2)) = 3.0 % for any stress history (1 - cos^2(d / sqrt(2)) = 1.5 %
    only when the other principal values of the worst stress difference are not negative; pure shear loses
    2 sin^2 of the angle). :mod:`.refine` refines the worst planes to 0.1 %."""
    if not 0.5 <= step_deg <= 45.0:
        raise InputError(f"plane_step_deg must be between 0.5 and 45 degrees, got {step_deg}")
    n_rings = max(1, round(90.0 / step_deg))
    d = np.pi / 2 / n_rings
    out = [np.array([[0.0, 0.0, 1.0]])]
    for k in range(1, n_rings + 1):
        polar = k * d
        span = np.pi if k == n_rings else 2 * np.pi
        n_az = max(1, int(round(span * np.sin(polar) / d)))
        az = np.arange(n_az) * span / n_az
        out.append(np.column_stack([np.sin(polar) * np.cos(az), np.sin(polar) * np.sin(az),
                                    np.full(n_az, np.cos(polar))]))
    return np.concatenate(out)


def normal_stress_weights(normals: np.ndarray) -> np.ndarray:
    """(n_planes, 6) weights W with sigma_n = s @ W.T = n . S . n for stress vectors s[..., 6]."""
    n = np.asarray(normals, float)
    nx, ny, nz = n.T
    return np.column_stack([nx * nx, ny * ny, nz * nz, 2 * ny * nz, 2 * nx * nz, 2 * nx * ny])


def normal_stress(s: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """Normal stress n . S . n [Pa] on every plane: (..., 6) stresses, (n_planes, 3) normals -> (..., n_planes)."""
    return np.einsum("...k,pk->...p", np.asarray(s, float), normal_stress_weights(normals))


def signed_von_mises(s: np.ndarray) -> np.ndarray:
    """Von Mises stress (...,) [Pa] with the sign of the hydrostatic stress; a trace within round-off of zero
    (|trace| <= 1e-9 |S|) counts positive, so a traceless state does not flip sign on rounding noise.

    The sign of the hydrostatic stress (rather than of the largest-magnitude principal stress) is used because
    it is unambiguous when principal stresses of opposite sign have equal magnitude (pure shear). Known
    limits: where the hydrostatic stress changes sign the equivalent jumps by up to 2 sigma_vM (conservative
    spurious ranges), and a stress state whose principal directions rotate at constant magnitude gives a
    constant value and no cycle at all (unconservative): use the critical-plane method for such loading."""
    s = np.asarray(s, float)
    trace = s[..., 0] + s[..., 1] + s[..., 2]
    return von_mises(s) * np.where(trace >= -1e-9 * stress_norm(s), 1.0, -1.0)


def stress_norm(s: np.ndarray) -> np.ndarray:
    """Frobenius norm of the stress tensor (...,) [Pa]: an upper bound of |n . S . n| over all planes and of
    every principal stress's magnitude."""
    s = np.asarray(s, float)
    return np.sqrt(np.sum(s[..., :3] ** 2, -1) + 2.0 * np.sum(s[..., 3:] ** 2, -1))
