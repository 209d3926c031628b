"""Fatigue cases: rainflow counting against the ASTM E1049 worked example, a constant-amplitude life on every
shipped material curve and on a Eurocode 3 detail category against the curves' defining formulas, and pure shear
in random orientations against a brute-force search for the worst plane. Stresses in Pa, lives in cycles."""
from __future__ import annotations

import numpy as np

from ..fatigue import fatigue_life, rainflow_cycles
from .references import _row

MPa = 1e6

#: ASTM E1049-85 (Reapproved 2011), sec. 5.4.4 and Fig. 6 (rainflow counting example, counted as a one-off): the
#: history -2, 1, -3, 5, -1, 3, -4, 4, -2 counts, by range, 3: 0.5, 4: 1.5, 6: 0.5, 8: 1.0, 9: 0.5 cycles.
ASTM_E1049_HISTORY = (-2.0, 1.0, -3.0, 5.0, -1.0, 3.0, -4.0, 4.0, -2.0)
ASTM_E1049_COUNTS = {3.0: 0.5, 4.0: 1.5, 6.0: 0.5, 8.0: 1.0, 9.0: 0.5}

#: The material curves' defining data (docs/fatigue.md, "S-N data"): ultimate strength S_ut [Pa] and the fatigue
#: strength [Pa] at N cycles; each curve is a straight line in log-log axes from 0.9 S_ut at 1e3 cycles to it
#: (Juvinall & Marshek sec. 8.4; Shigley sec. 6-7, f = 0.9). Sources per row: S_ut of 304 ASTM A240; 6061-O and
#: 6061-T6 ASM Handbook Vol. 2 (R.R. Moore, 5e8 cycles); HT200 GB/T 9439 with 0.4 S_ut; structural steel ANSYS
#: Engineering Data with Shigley's 0.5 S_ut; steel_7801 assumed equal to structural steel; 7075-T6, A356-T6 ASM
#: Handbook Vol. 2 (R.R. Moore, 5e8); EN-GJS-400-15 EN 1563 Table 3 and Annex E; 6082-T6 EN 1999-1-1 Table 3.2b
#: with 0.4 S_ut; S235, S355 EN 10025-2, 42CrMo4 EN 10083-3, 316 ASTM A240, each with 0.5 S_ut.
MATERIAL_CURVES = {
    "316": (515 * MPa, 257.5 * MPa, 1e6),
    "42CrMo4-QT": (1000 * MPa, 500 * MPa, 1e6),
    "6082-T6": (290 * MPa, 116 * MPa, 5e8),
    "7075-T6": (572 * MPa, 159 * MPa, 5e8),
    "A356-T6": (290 * MPa, 90 * MPa, 5e8),
    "EN-GJS-400-15": (400 * MPa, 200 * MPa, 1e6),
    "S235": (360 * MPa, 180 * MPa, 1e6),
    "S355": (470 * MPa, 235 * MPa, 1e6),
    "304": (515 * MPa, 257.5 * MPa, 1e6),
    "6061-O": (124 * MPa, 62 * MPa, 5e8),
    "6061-T6": (310 * MPa, 96.5 * MPa, 5e8),
    "HT200": (200 * MPa, 80 * MPa, 1e6),
    "structural_steel": (460 * MPa, 230 * MPa, 1e6),
    "steel_7801": (460 * MPa, 230 * MPa, 1e6),
}


def _uniaxial_sine(amplitude, n=64) -> np.ndarray:
    """One period of sigma_xx = amplitude sin(wt), its peaks on samples: (n, 6) [Pa]."""
    s = np.zeros((n, 6))
    s[:, 0] = amplitude * np.sin(2 * np.pi * np.arange(n) / n)
    return s


def case_astm_e1049(quick: bool = False) -> list[dict]:
    """Rainflow counting (``rainflow_cycles(..., periodic=False)``, the history counted as a one-off as in the
    standard's example) of the ASTM E1049-85 (2011) Fig. 6 history: the cycle count of every range."""
    c = rainflow_cycles(ASTM_E1049_HISTORY, periodic=False)
    rows = [_row("astm_e1049", f"cycles of range {r:g} (ASTM E1049-85 Fig. 6)", n, c.count[c.range == r].sum(), 0.0)
            for r, n in ASTM_E1049_COUNTS.items()]
    rows.append(_row("astm_e1049", "total cycles counted", sum(ASTM_E1049_COUNTS.values()), c.count.sum(), 0.0))
    return rows


def case_sn_constant_amplitude(quick: bool = False) -> list[dict]:
    """A fully reversed uniaxial sine on every shipped material curve, at the amplitude whose life the curve's
    defining line puts at 1e5 cycles: S_a = 0.9 S_ut (1e5 / 1e3)^(-1/m), m = log(N / 1e3) / log(0.9 S_ut / S_N)
    (:data:`MATERIAL_CURVES`); computed: ``fatigue_life`` (critical plane, no mean stress)."""
    rows = []
    for name, (S_ut, S_N, N) in MATERIAL_CURVES.items():
        m = np.log10(N / 1e3) / np.log10(0.9 * S_ut / S_N)
        S_a = 0.9 * S_ut * (1e5 / 1e3) ** (-1 / m)
        life = fatigue_life(_uniaxial_sine(S_a), name, mean_stress="none").life_cycles[0]
        rows.append(_row("sn_constant_amplitude", f"{name}: life [cycles] at S_a = {S_a / MPa:.1f} MPa, "
                                                  f"line 0.9 S_ut at 1e3 to {S_N / MPa:g} MPa at {N:.0e}",
                         1e5, life, 1e-9))
    return rows


def case_weld_detail(quick: bool = False) -> list[dict]:
    """EN 1993-1-9:2005 Fig. 7.1, detail category 71 (stress ranges, no mean-stress correction): a constant-amplitude
    range of 100 MPa on the m = 3 branch, N = 2e6 (71 / 100)^3, and of 45 MPa below the constant-amplitude fatigue
    limit dsigma_D = (2/5)^(1/3) 71 MPa at 5e6 cycles, on the m = 5 branch: N = 5e6 (dsigma_D / 45)^5."""
    rows = []
    D = (2 / 5) ** (1 / 3) * 71 * MPa
    for dsigma, ref in ((100 * MPa, 2e6 * (71 / 100) ** 3), (45 * MPa, 5e6 * (D / (45 * MPa)) ** 5)):
        life = fatigue_life(_uniaxial_sine(dsigma / 2) + 30 * MPa, "EC3-71").life_cycles[0]
        rows.append(_row("weld_detail", f"EC3-71: life [cycles] at a range of {dsigma / MPa:g} MPa (mean 30 MPa)",
                         ref, life, 1e-9))
    return rows


def _fibonacci_hemisphere(n: int) -> np.ndarray:
    k = np.arange(n) + 0.5
    z = k / n
    r, phi = np.sqrt(1 - z * z), np.pi * (1 + 5 ** 0.5) * k
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def brute_force_worst_range(S: np.ndarray, n: int = 20_000) -> float:
    """Largest range over time [Pa] of the normal stress n.S(t).n over all planes of a history S (n_t, 3, 3): n
    directions of a Fibonacci hemisphere (about 1 deg apart), then around the best 4 a square of 21 x 21 directions
    in spherical coordinates, shrunk 5 times around the best of each by a factor of 4 (from +-2 deg)."""
    def rng(d):
        h = np.einsum("pi,tij,pj->tp", d, S, d, optimize=True)
        return h.max(0) - h.min(0)

    d = _fibonacci_hemisphere(n)
    v = rng(d)
    best = float(v.max())
    u = np.linspace(-1.0, 1.0, 21)
    for start in d[np.argsort(-v)[:4]]:
        theta, phi, half = np.arccos(np.clip(start[2], -1, 1)), np.arctan2(start[1], start[0]), np.radians(2.0)
        for _ in range(6):
            tt, pp = np.meshgrid(theta + half * u, phi + half * u / max(np.sin(theta), 0.05))
            cand = np.column_stack([np.sin(tt.ravel()) * np.cos(pp.ravel()), np.sin(tt.ravel()) * np.sin(pp.ravel()),
                                    np.cos(tt.ravel())])
            vc = rng(cand)
            k = int(np.argmax(vc))
            best = max(best, float(vc[k]))
            theta, phi, half = tt.ravel()[k], pp.ravel()[k], half / 4
    return best


def case_pure_shear_plane(quick: bool = False) -> list[dict]:
    """Pure shear tau sin(wt) (tau = 300 MPa, 304) in 10 random orientations (seeded): the worst plane's amplitude is
    tau (Mohr's circle: the normal stress on the planes at 45 deg to the shear), which the brute force
    (:func:`brute_force_worst_range`) and ``fatigue_life``'s refined critical plane must find; lives against the
    S-N line at the brute force's amplitude (the grid of 206 planes alone loses up to 3 % of the amplitude,
    about 40 % of the life, on this curve)."""
    c = "pure_shear_plane"
    tau, n_t = 300 * MPa, 128
    S_ut, S_N, N = MATERIAL_CURVES["304"]
    m = np.log10(N / 1e3) / np.log10(0.9 * S_ut / S_N)
    q, r = np.linalg.qr(np.random.default_rng(20).normal(size=(10, 3, 3)))
    shear = np.zeros((n_t, 3, 3))
    shear[:, 0, 1] = shear[:, 1, 0] = tau * np.sin(2 * np.pi * np.arange(n_t) / n_t)
    rows, worst_amp, worst_life = [], 0.0, 0.0
    for R in q:
        S = np.einsum("ij,tjk,lk->til", R, shear, R)
        brute = brute_force_worst_range(S) / 2
        worst_amp = max(worst_amp, abs(brute / tau - 1))
        res = fatigue_life(S[:, [0, 1, 2, 1, 0, 0], [0, 1, 2, 2, 2, 1]], "304", mean_stress="none")
        ref_life = 1e3 * (0.9 * S_ut / brute) ** m
        err = abs(res.life_cycles[0] / ref_life - 1)
        if err >= worst_life:
            worst = (brute, res, ref_life)
        worst_life = max(worst_life, err)
    brute, res, ref_life = worst
    rows.append(_row(c, "brute-force worst amplitude / tau, worst of 10 orientations", 1.0, 1.0 + worst_amp, 1e-4))
    rows.append(_row(c, "counted amplitude on the governing plane [Pa], worst orientation", brute,
                     res.governing_cycles.range.max() / 2, 1e-3))
    rows.append(_row(c, "life [cycles] vs S-N line at the brute-force amplitude, worst orientation", ref_life,
                     res.life_cycles[0], 0.02))
    return rows
