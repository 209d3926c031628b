"""Brake check: the holding torque against the largest static holding torque the joint needs.

A brake on the motor shaft holds the joint torque through the ratio, T_brake = S max |T_static| / i; one on the
output holds S max |T_static|, S the required factor (1 unless the caller asks for more). No reducer efficiency is
credited: a back-driven reducer's losses would help the brake, but static friction at rest is not a datasheet
value, so the check leaves it out (conservative). ``T_static`` is the joint's static holding torque: in a study the
larger of the worst static pose over the joint ranges and the motion's own poses at rest
(:mod:`structcheck.drives.holding`), which the check's note names.
"""
from __future__ import annotations

import numpy as np

from ..errors import require_number
from .catalogue import Brake, BrakeSide, Reducer
from .result import CheckResult, compare, not_checked

SOURCE = "holding torque >= static load torque at the brake (brake datasheet's static holding torque)"


def brake_check(brake: Brake, reducer: Reducer | None, static_torque_nm, required_factor: float = 1.0,
                basis: str = "") -> CheckResult:
    """``brake``'s holding torque against ``required_factor`` times the largest |``static_torque_nm``| [N m]
    (a number or the (n,) torques of several poses) at the brake's shaft, through ``reducer``'s ratio when the
    brake sits on the motor; ``basis`` says where the static torque comes from (in the check's note)."""
    part, name = f"brake {brake.name}", "brake holding torque"
    factor = require_number("brake required_factor", required_factor, "-", at_least=1)
    held = float(np.max(np.abs(np.asarray(static_torque_nm, float))))
    formula = "S max |T_static|" + (" / i" if brake.side is BrakeSide.MOTOR else "") + " <= holding torque"
    if brake.holding_torque_nm is None:
        return not_checked(name, part, brake.name, "holding_torque_nm", formula=formula)
    if brake.side is BrakeSide.MOTOR:
        if reducer is None or reducer.ratio is None:
            return not_checked(name, part, reducer.name if reducer else "(no reducer)", "ratio", formula=formula)
        held /= reducer.ratio
    return compare(name, part, factor * held, brake.holding_torque_nm, "N m", formula, SOURCE,
                   note=f"S = {factor:g}" + (f"; {basis}" if basis else ""))
