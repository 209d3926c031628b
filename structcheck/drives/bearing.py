"""Output bearing checks over a joint's duty: L10 life, static safety factor, tilting moment.

The joint's reaction force F and moment M (joint frame, z the axis) are moved to the bearing centre on the axis;
there Fr = |(Fx, Fy)|, Fa = |Fz|, M = |(Mx, My)| (the tilting moment). Per sample (HD SE SHG manual, doc 1021387,
pp.42-44; HD LLC CSF/CSG catalogue p.34; IKO and THK crossed roller bearings):

    Pc = X (Fr + 2 M / dp) + Y Fa,  X = 1, Y = 0.45 if Fa / (Fr + 2 M / dp) <= 1.5, else X = Y = 0.67
    P0 = Fr + 2 M / dp + 0.44 Fa,   fs = C0 / max P0
    L10 = 10^6 / (60 n_av) (C / (fw P))^B  [h],  B = 10/3 crossed roller, 3 four-point contact

with P the B-power mean of Pc over the revolutions turned, P = (int |n| Pc^B dt / int |n| dt)^(1/B): ISO 281's
mean load for a fluctuating load (Palmgren-Miner over revolutions). Harmonic Drive averages Fr and Fa first
(Fr_av = (sum n t |Fr|^(10/3) / sum n t)^(3/10)) and then forms Pc; the two agree for a constant load and for loads
that scale together. Counting revolutions as the angle turned (int |n| dt) also covers oscillating motion: HD LLC's
10^6 / (60 n1) (90 / theta) and HD SE's 10^6 / (60 n1) (180 / phi) are this count with their angle definitions.
"""
from __future__ import annotations

import math

import numpy as np

from .catalogue import Bearing
from .duty import JointDuty
from .result import CheckResult, compare, missing_fields, not_checked

SOURCE = ("Harmonic Drive SE, SHG manual (doc 1021387) pp.42-44; Harmonic Drive LLC, CSF/CSG catalogue p.34; "
          "ISO 281:2007")
FS_NORMAL = 1.5  # required static safety factor for normal operation (HD LLC CSF/CSG catalogue p.34)


def bearing_loads(duty: JointDuty, bearing_z_m: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Radial force Fr, axial force Fa [N] and tilting moment M [N m], each (n_t,), at the bearing centre, which
    sits at z = ``bearing_z_m`` [m] on the joint axis of the frame the duty's force and moment are given in
    (M_bearing = M + r x F with r = (0, 0, -z) the way from the bearing centre to that point)."""
    F, M = duty.force, duty.moment
    r_cross_F = -bearing_z_m * np.stack([-F[:, 1], F[:, 0], np.zeros(len(F))], axis=1)  # (0, 0, -z) x F
    Mb = M + r_cross_F
    return np.hypot(F[:, 0], F[:, 1]), np.abs(F[:, 2]), np.hypot(Mb[:, 0], Mb[:, 1])


def equivalent_load(Fr, Fa, M, dp: float) -> np.ndarray:
    """The dynamic equivalent load Pc [N] per sample, X and Y by the ratio Fa / (Fr + 2 M / dp) against 1.5."""
    Fr, Fa, M = (np.asarray(a, float) for a in (Fr, Fa, M))
    radial = Fr + 2.0 * M / dp
    small_axial = Fa <= 1.5 * radial  # the ratio <= 1.5, without dividing by a zero radial load
    return np.where(small_axial, radial + 0.45 * Fa, 0.67 * radial + 0.67 * Fa)


def static_equivalent_load(Fr, Fa, M, dp: float) -> np.ndarray:
    """The static equivalent load P0 = Fr + 2 M / dp + 0.44 Fa [N] per sample."""
    return np.asarray(Fr, float) + 2.0 * np.asarray(M, float) / dp + 0.44 * np.asarray(Fa, float)


def l10_hours(C: float, P: float, fw: float, B: float, n_av_rpm: float) -> float:
    """L10 = 10^6 / (60 n_av) (C / (fw P))^B [h]; inf for no load or no turning."""
    if P <= 0 or n_av_rpm <= 0:
        return math.inf
    return 1e6 / (60.0 * n_av_rpm) * (C / (fw * P)) ** B


def _loads_or_reason(bearing: Bearing, duty: JointDuty, bearing_z_m: float | None):
    """(Fr, Fa, M) at the bearing centre, or the reason they cannot be had (a missing field or load)."""
    if duty.force is None or duty.moment is None:
        return "the duty gives no reaction force and moment"
    if bearing_z_m is None:
        if bearing.offset_m is None:
            return "offset_m"
        bearing_z_m = -bearing.offset_m  # loads at the output flange, z out of the reducer: the centre R inside
    return bearing_loads(duty, bearing_z_m)


def bearing_checks(bearing: Bearing, duty: JointDuty, design_life_h: float | None = None, fw: float | None = None,
                   fs_required: float = FS_NORMAL, bearing_z_m: float | None = None) -> list[CheckResult]:
    """L10 life against ``design_life_h`` [h], static safety factor against ``fs_required``, largest tilting
    moment against the allowable. ``fw`` the load factor (None: the entry's); ``bearing_z_m`` [m] the bearing
    centre on the axis of the duty's load frame (None: -offset_m, the loads being given at the output flange)."""
    part, entry = f"output bearing {bearing.name}", bearing.name
    names = ("bearing L10 life", "bearing static safety factor", "bearing tilting moment")
    loads = _loads_or_reason(bearing, duty, bearing_z_m)
    if isinstance(loads, str):
        if loads == "offset_m":
            return [not_checked(n, part, entry, "offset_m") for n in names]
        return [CheckResult(n, part, None, None, "", None, None, "", SOURCE, note=f"not checked: {loads}")
                for n in names]
    Fr, Fa, M = loads
    return [_life(bearing, duty, Fr, Fa, M, design_life_h, fw), _static(bearing, Fr, Fa, M, fs_required),
            _tilting(bearing, M)]


def _life(bearing, duty, Fr, Fa, M, design_life_h, fw) -> CheckResult:
    part, name = f"output bearing {bearing.name}", "bearing L10 life"
    B = bearing.type.life_exponent
    formula = f"L10 = 10^6 / (60 n_av) (C / (fw P))^{'10/3' if B > 3 else '3'}, P the mean of Pc over revolutions"
    fw = bearing.load_factor if fw is None else fw
    missing = missing_fields(bearing, "pitch_diameter_m", "dynamic_load_rating_n")
    if fw is None:
        missing.append("load_factor")
    if missing:
        return not_checked(name, part, bearing.name, *missing, formula=formula)
    Pc = equivalent_load(Fr, Fa, M, bearing.pitch_diameter_m)
    P = duty.speed_weighted_mean(Pc, B)
    life = l10_hours(bearing.dynamic_load_rating_n, 0.0 if math.isnan(P) else P, fw, B, duty.mean_speed_rpm())
    if design_life_h is None:
        return CheckResult(name, part, life, None, "h", None, None, formula, SOURCE,
                           note="not checked: no design life given")
    return compare(name, part, life, design_life_h, "h", formula, SOURCE, at_least=True, note=f"fw = {fw:g}")


def _static(bearing, Fr, Fa, M, fs_required) -> CheckResult:
    part, name = f"output bearing {bearing.name}", "bearing static safety factor"
    formula = "fs = C0 / max(Fr + 2 M / dp + 0.44 Fa)"
    missing = missing_fields(bearing, "pitch_diameter_m", "static_load_rating_n")
    if missing:
        return not_checked(name, part, bearing.name, *missing, formula=formula)
    P0 = float(static_equivalent_load(Fr, Fa, M, bearing.pitch_diameter_m).max())
    fs = math.inf if P0 <= 0 else bearing.static_load_rating_n / P0
    return compare(name, part, fs, fs_required, "-", formula, SOURCE, at_least=True)


def _tilting(bearing, M) -> CheckResult:
    part, name = f"output bearing {bearing.name}", "bearing tilting moment"
    formula = "max M <= Mc (tilting moment at the bearing centre)"
    if bearing.allowable_moment_nm is None:
        return not_checked(name, part, bearing.name, "allowable_moment_nm", formula=formula)
    return compare(name, part, float(np.max(M)), bearing.allowable_moment_nm, "N m", formula, SOURCE)
