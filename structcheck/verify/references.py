"""Closed forms, published reference values and helpers shared by the verification cases: the row builders,
Timoshenko and Euler-Bernoulli cantilever deflection and frequencies, Richardson extrapolation, the tet mesh of a
rectangular beam. SI units (m, N, Pa, Hz, kg)."""
from __future__ import annotations

import numpy as np

from ..errors import InputError


# Paper 003 (Cheng et al. 2021, Appl. Sci. 11), Table 2: KR500 bodies as homogeneous steel cylinders along e1,
# density 7801 kg/m^3. Columns: length [m], radius [m], mass [kg], J11, J22 = J33 [kg m^2] (rounded to 4 decimals).
KR500_DENSITY = 7801.0
KR500_TABLE2 = {
    "B1": (1.045, 0.5, 6402.6012, 800.3251, 982.8126),
    "B2": (1.245, 0.3, 2746.0726, 123.5733, 416.4934),
    "B3": (1.21, 0.2, 1186.1661, 23.7233, 156.5838),
    "B4": (0.315, 0.2, 308.7953, 6.1759, 5.6413),
    "B5": (0.29, 0.2, 284.2877, 5.6858, 4.8353),
    "B6": (0.3, 0.3, 661.7042, 29.7767, 19.8511),
}

# NAFEMS LE10 (thick plate under pressure): sigma_yy at D = (2, 0, 0.3) m.
LE10_SIGMA_YY_D = -5.38e6


def _row(case, quantity, reference, computed, tolerance, scale=None) -> dict:
    """A relative-error row: error = |computed - reference| / scale (default |reference|)."""
    scale = abs(reference) if scale is None else scale
    error = abs(computed - reference) / scale
    return {"case": case, "quantity": quantity, "reference": float(reference), "computed": float(computed),
            "error": float(error), "tolerance": float(tolerance), "pass": bool(error <= tolerance)}


def _bound_row(case, quantity, reference, computed, bound: str, passed: bool) -> dict:
    return {"case": case, "quantity": quantity, "reference": float(reference), "computed": float(computed),
            "error": None, "tolerance": bound, "pass": bool(passed)}


# ---------------------------------------------------------------------------------------------- beam theory
def cowper_kappa(nu: float) -> float:
    """Cowper's shear coefficient of a rectangular section."""
    return 10 * (1 + nu) / (12 + 11 * nu)


def timoshenko_tip_deflection(P, L, E, nu, b, h) -> float:
    """Tip deflection [m] of a clamped-free Timoshenko beam (rectangle b x h) under an end shear P [N]."""
    I, A, G = b * h ** 3 / 12, b * h, E / (2 * (1 + nu))
    return P * L ** 3 / (3 * E * I) + P * L / (cowper_kappa(nu) * G * A)


def _timoshenko_determinant(w, L, E, G, rho, A, I, kappa):
    """Frequency determinant of a clamped-free Timoshenko beam at circular frequency w (below the cutoff
    sqrt(kappa G A / (rho I))). W = C1 cosh ax + C2 sinh ax + C3 cos bx + C4 sin bx, Psi from kappa G A (W'' -
    Psi') + rho A w^2 W = 0; rows: W(0) = 0, Psi(0) = 0, moment E I Psi'(L) = 0, shear W'(L) - Psi(L) = 0."""
    kGA = kappa * G * A
    qa, qb, qc = kGA * E * I, w * w * (kGA * rho * I + rho * A * E * I), rho * A * w * w * (rho * I * w * w - kGA)
    disc = np.sqrt(qb * qb - 4 * qa * qc)
    al = np.sqrt((-qb + disc) / (2 * qa))
    be = np.sqrt((qb + disc) / (2 * qa))
    ra = (kGA * al ** 2 + rho * A * w * w) / (kGA * al)  # Psi per W for the hyperbolic pair
    rb = (rho * A * w * w - kGA * be ** 2) / (kGA * be)  # Psi per W for the trigonometric pair
    ch, sh, co, si = np.cosh(al * L), np.sinh(al * L), np.cos(be * L), np.sin(be * L)
    D = np.array([[1.0, 0.0, 1.0, 0.0],
                  [0.0, ra, 0.0, -rb],
                  [ra * al * ch, ra * al * sh, rb * be * co, rb * be * si],
                  [(al - ra) * sh, (al - ra) * ch, -(be + rb) * si, (be + rb) * co]])
    # positive row scaling keeps the sign of the determinant and its magnitude O(1)
    return np.linalg.det(D / np.abs(D).max(axis=1, keepdims=True))


def timoshenko_frequencies(n: int, L, E, nu, rho, b, h) -> np.ndarray:
    """First ``n`` bending frequencies [Hz] of a clamped-free Timoshenko beam (rectangle b x h, bending about the
    axis parallel to b; Cowper's kappa, rotary inertia included): roots of the frequency equation, bracketed on a
    grid below the cutoff frequency and refined with Brent's method."""
    from scipy.optimize import brentq

    G, A, I, kappa = E / (2 * (1 + nu)), b * h, b * h ** 3 / 12, cowper_kappa(nu)
    w_eb = np.sqrt(E * I / (rho * A)) / L ** 2  # Euler-Bernoulli scale: w_n = (beta_n L)^2 w_eb
    w_cut = np.sqrt(kappa * G * A / (rho * I))
    w_max = min(((n + 0.5) * np.pi) ** 2 * w_eb, 0.999 * w_cut)  # (beta_n L) < (n - 1/2) pi + small for EB
    grid = np.linspace(0.5 * w_eb, w_max, 400 * (n + 1))
    args = (L, E, G, rho, A, I, kappa)
    vals = np.array([_timoshenko_determinant(w, *args) for w in grid])
    roots = [brentq(_timoshenko_determinant, grid[i], grid[i + 1], args=args, xtol=1e-13 * w_eb, rtol=1e-14)
             for i in np.nonzero(np.sign(vals[:-1]) != np.sign(vals[1:]))[0]]
    if len(roots) < n:
        raise InputError(f"only {len(roots)} Timoshenko frequencies below the shear cutoff; asked for {n}")
    return np.array(roots[:n]) / (2 * np.pi)


def euler_bernoulli_frequencies(L, E, rho, b, h) -> np.ndarray:
    """First three clamped-free Euler-Bernoulli bending frequencies [Hz]."""
    bl = np.array([1.875104, 4.694091, 7.854757])
    return bl ** 2 / (2 * np.pi * L ** 2) * np.sqrt(E * h * h / 12 / rho)


def richardson(h, values) -> tuple[float, float]:
    """Richardson extrapolation of a sequence ``values`` on meshes of size ``h`` (halved each time): the limit
    from the three finest, and the observed order: the slope of log|limit - value| against log h over the
    coarser meshes (the finest one's error is fixed by the extrapolation)."""
    h, v = np.asarray(h, float), np.asarray(values, float)
    r = h[-2] / h[-1]
    p3 = np.log((v[-2] - v[-3]) / (v[-1] - v[-2])) / np.log(r)
    limit = v[-1] + (v[-1] - v[-2]) / (r ** p3 - 1)
    err = np.abs(limit - v[:-1])
    order = np.polyfit(np.log(h[:-1]), np.log(err), 1)[0]
    return float(limit), float(order)


# ---------------------------------------------------------------------------------------------- meshes
def beam_part(L, b, h, n_len, n_sec, material, name="beam"):
    """Tensor-product tet mesh of the beam [0, L] x [-b/2, b/2] x [-h/2, h/2] with surfaces 'root' (x = 0) and
    'tip' (x = L)."""
    from skfem import MeshTet

    from ..fe.part import Part
    from ..fe.mesh import plane_selector

    mesh = MeshTet.init_tensor(np.linspace(0, L, n_len + 1), np.linspace(-b / 2, b / 2, n_sec + 1),
                               np.linspace(-h / 2, h / 2, n_sec + 1))
    part = Part.from_skfem(mesh, material, name=name)
    tol = 1e-9 * L
    return part.with_surfaces({"root": part.select_facets(plane_selector((0, 0, 0), (1, 0, 0), tol)),
                               "tip": part.select_facets(plane_selector((L, 0, 0), (1, 0, 0), tol))})
