"""Whole-arm model (component mode synthesis) verification: a beam cut into a chain of superelements.

Case ``beam_chain``: a slender steel beam (L = 0.8 m, 20 x 10 mm, bending in the 10 mm direction, L/h = 80) cut
into three links joined by rigid joints, clamped at the root, with a rigid tip mass m = mu rho A L (mu = 1) on the
tip face. Reference: the Euler-Bernoulli cantilever with a tip mass, whose frequencies follow from the roots b of
1 + cos b cosh b + mu b (cos b sinh b - sin b cosh b) = 0, omega = b^2 sqrt(E I / (rho A L^4)) (Blevins, Formulas
for Natural Frequency and Mode Shape, 1979, Table 8-8; Laura, Pombo, Susemihl, J. Sound Vib. 37(2), 161-168,
1974). The chain's error is the mesh's (about +0.2% at 84 cells) plus about +0.1% per rigid cut flange; shear is
below 0.2% at this slenderness for the third mode.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..model.materials import get_material
from .references import _row

L, W, H, MU = 0.8, 0.02, 0.01, 1.0


def tip_mass_roots(mu: float, n: int = 3) -> np.ndarray:
    """First ``n`` roots b of 1 + cos b cosh b + mu b (cos b sinh b - sin b cosh b) = 0 (bracketed on a grid,
    refined by Brent's method)."""
    def f(b):
        return 1 + np.cos(b) * np.cosh(b) + mu * b * (np.cos(b) * np.sinh(b) - np.sin(b) * np.cosh(b))

    g = np.linspace(0.05, 12.0, 4000)
    v = f(g)
    return np.array([brentq(f, g[i], g[i + 1]) for i in np.flatnonzero(v[:-1] * v[1:] < 0)[:n]])


def _chain(n_links: int, n_len: int):
    """Robot and Parts of the beam cut into ``n_links`` links s0.. (joints j0.. about y; the ground has no Part)."""
    from skfem import MeshTet

    from ..fe.part import Part
    from ..model.robot import Joint, Link, Robot, trans

    Ls = L / n_links
    links = [Link("ground")] + [Link(f"s{i}") for i in range(n_links)]
    joints = [Joint(f"j{i}", "revolute", "ground" if i == 0 else f"s{i - 1}", f"s{i}", trans(0.0 if i == 0 else Ls),
                    np.array([0.0, 1.0, 0.0])) for i in range(n_links)]
    parts = {}
    for i in range(n_links):
        mesh = MeshTet.init_tensor(np.linspace(0, Ls, n_len // n_links + 1), np.linspace(-W / 2, W / 2, 3),
                                   np.linspace(-H / 2, H / 2, 3))
        bnd = mesh.boundary_facets()
        x = mesh.p[0, mesh.facets[:, bnd]].mean(axis=0)
        ends = (f"j{i}", f"j{i + 1}" if i < n_links - 1 else "tip")
        parts[f"s{i}"] = Part.from_skfem(mesh, "structural_steel", name=f"s{i}",
                                         surfaces={ends[0]: bnd[np.isclose(x, 0.0)], ends[1]: bnd[np.isclose(x, Ls)]})
    return Robot(links, joints), parts


def case_beam_chain(quick: bool = False) -> list[dict]:
    """Three superelements (2 fixed-interface modes + residual vectors each) with a tip mass (mu = 1): the first
    three bending frequencies in the thin direction against the tip-mass cantilever equation, 1% each."""
    from ..flex import AttachedMass, arm_frequencies

    n_len = 42 if quick else 84
    robot, parts = _chain(3, n_len)
    steel = get_material("structural_steel")
    A, I = W * H, W * H ** 3 / 12
    tip = [AttachedMass("s2", "tip", MU * steel.density * A * L, point=(L / 3, 0, 0))]
    res = arm_frequencies(robot, parts, np.zeros(3), n=9, n_modes=2, attached=tip)
    labels = res.model.labels
    nodes = np.array([lab.startswith("node") for lab in labels])
    Xn = res.X[nodes].reshape(-1, 6, res.X.shape[1])
    thin = np.flatnonzero(np.abs(Xn[:, 2]).sum(0) > np.abs(Xn[:, :2]).sum((0, 1)))[:3]  # z-translation modes
    b = tip_mass_roots(MU)
    ref = b ** 2 * np.sqrt(steel.E * I / (steel.density * A * L ** 4)) / (2 * np.pi)
    return [_row("beam_chain", f"3 superelements + tip mass (mu = 1): bending frequency {k + 1} [Hz]", ref[k],
                 res.frequency_hz[i], 0.01) for k, i in enumerate(thin)]
