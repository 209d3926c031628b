"""Motor checks over a joint's duty: RMS torque against rated, peak torque against maximum, speed against maximum.

The motor's torque from the joint's (Parker NK manual p.14; Fanuc alpha B-65142E; Yaskawa's Tp = 2 pi N (JM + JL)
/ (60 ta) + TL):

    tau_m = tau / (i eta) + J_rotor i qdd     when the motor drives (joint power tau qd >= 0)
    tau_m = tau eta / i + J_rotor i qdd       when it brakes (power flows back through the reducer)
    T_rms = sqrt(int tau_m^2 dt / t_cycle) <= rated torque;  max |tau_m| <= peak torque;  i max |qd| <= max speed

The joint torque tau comes from the arm's inverse dynamics, which leave the rotors out; the rotor term adds their
inertia through the ratio. A motor rated by power P at speed n gets T_rated = P / (2 pi n / 60), said in the check.
"""
from __future__ import annotations

import math

import numpy as np

from .catalogue import Motor, Reducer
from .duty import RPM_PER_RAD_S, JointDuty
from .result import CheckResult, compare, missing_fields, not_checked

SOURCE = "Parker NK servo motor manual p.14; Fanuc alpha motors B-65142E; Omron M1 (RMS torque over the cycle)"


def motor_torque(duty: JointDuty, ratio: float, efficiency: float, rotor_inertia_kgm2: float) -> np.ndarray:
    """The motor's torque (n_t,) [N m]: ``duty.tau`` [N m] through ``ratio`` and ``efficiency`` (inverted when the
    joint power is negative) plus the rotor's inertia [kg m^2] times ratio times ``duty.qdd``."""
    driving = duty.tau * duty.qd >= 0
    through = np.where(driving, duty.tau / (ratio * efficiency), duty.tau * efficiency / ratio)
    return through + rotor_inertia_kgm2 * ratio * duty.qdd


def rated_torque(motor: Motor) -> tuple[float | None, str]:
    """The rated torque [N m] and how it was had (the datasheet's, or rated power / rated speed)."""
    if motor.rated_torque_nm is not None:
        return motor.rated_torque_nm, ""
    if motor.rated_power_w is not None and motor.rated_speed_rpm is not None:
        return motor.rated_power_w / (motor.rated_speed_rpm / RPM_PER_RAD_S), "; T_rated = P_rated / omega_rated"
    return None, ""


def motor_checks(motor: Motor, reducer: Reducer, duty: JointDuty) -> list[CheckResult]:
    """RMS torque, peak torque and speed of ``motor`` driving the joint through ``reducer`` over ``duty``."""
    part = f"motor {motor.name}"
    names = ("motor RMS torque", "motor peak torque")
    missing_reducer = missing_fields(reducer, "ratio", "efficiency")
    missing_motor = missing_fields(motor, "rotor_inertia_kgm2")
    if missing_reducer or missing_motor:
        entry, fields = (reducer.name, missing_reducer) if missing_reducer else (motor.name, missing_motor)
        torque_checks = [not_checked(n, part, entry, *fields) for n in names]
    elif duty.qdd is None:
        torque_checks = [CheckResult(n, part, None, None, "", None, None, "", SOURCE,
                                     note="not checked: the duty gives no joint acceleration") for n in names]
    else:
        tau_m = motor_torque(duty, reducer.ratio, reducer.efficiency, motor.rotor_inertia_kgm2)
        torque_checks = [_rms(motor, duty, tau_m), _peak(motor, tau_m)]
    return torque_checks + [_speed(motor, reducer, duty)]


def _rms(motor: Motor, duty: JointDuty, tau_m: np.ndarray) -> CheckResult:
    part, name = f"motor {motor.name}", "motor RMS torque"
    rated, how = rated_torque(motor)
    formula = "T_rms = sqrt(int tau_m^2 dt / t_cycle), tau_m = tau / (i eta^+-1) + J i qdd" + how
    if rated is None:
        return not_checked(name, part, motor.name, "rated_torque_nm (or rated_power_w and rated_speed_rpm)",
                           formula=formula)
    t_rms = math.sqrt(duty.integral(tau_m ** 2) / duty.cycle_time)
    return compare(name, part, t_rms, rated, "N m", formula, SOURCE)


def _peak(motor: Motor, tau_m: np.ndarray) -> CheckResult:
    part, name, formula = f"motor {motor.name}", "motor peak torque", "max |tau_m| <= peak torque"
    if motor.peak_torque_nm is None:
        return not_checked(name, part, motor.name, "peak_torque_nm", formula=formula)
    return compare(name, part, float(np.abs(tau_m).max()), motor.peak_torque_nm, "N m", formula, SOURCE)


def _speed(motor: Motor, reducer: Reducer, duty: JointDuty) -> CheckResult:
    part, name, formula = f"motor {motor.name}", "motor speed", "n_m = i max |qd| <= maximum speed"
    if reducer.ratio is None:
        return not_checked(name, part, reducer.name, "ratio", formula=formula)
    if motor.max_speed_rpm is None:
        return not_checked(name, part, motor.name, "max_speed_rpm", formula=formula)
    return compare(name, part, reducer.ratio * float(duty.speed_rpm.max()), motor.max_speed_rpm, "rpm", formula,
                   SOURCE)
