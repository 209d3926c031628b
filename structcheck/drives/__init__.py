"""Drivetrain: each joint's reducer (strain-wave or cycloidal/RV), output bearing, motor and brake, checked from the
joint's duty (torque, speed, acceleration and reaction histories), from a TOML catalogue of cited datasheet values
(docs/drivetrain.md).

    cat = load_catalogue("my_drives.toml")
    duty = JointDuty(t=t, qd=qd, tau=tau, qdd=qdd, force=F, moment=M)
    for r in drive_checks(duty, cat.get("reducer", "RV-80E"), motor=cat.get("motor", "1FT7064-1AF7")):
        print(r.line())
"""
from .bearing import bearing_checks, bearing_loads, equivalent_load, l10_hours, static_equivalent_load
from .brake import brake_check
from .catalogue import (Bearing, BearingType, Brake, BrakeSide, Catalogue, LifeBasis, MomentaryCountRule, Motor,
                        Reducer, ReducerKind, SpeedSide, load_catalogue, shipped_files)
from .duty import JointDuty
from .loadcases import DriveCase, case_drive_checks, combined_duty
from .motor import motor_checks, motor_torque
from .reducer import MomentaryEvent, average_torque, life_hours, reducer_checks
from .result import CheckResult
from .selection import Selection, drive_checks, select_reducer
from .stiffness import (LinearTorsion, StiffnessChoice, ThreeSegmentTorsion, TorsionCurve, arm_joint_stiffness,
                        joint_stiffness)

__all__ = ["Bearing", "BearingType", "Brake", "BrakeSide", "Catalogue", "CheckResult", "DriveCase", "JointDuty",
           "LifeBasis",
           "LinearTorsion", "MomentaryCountRule", "MomentaryEvent", "Motor", "Reducer", "ReducerKind", "Selection",
           "SpeedSide", "StiffnessChoice", "ThreeSegmentTorsion", "TorsionCurve", "arm_joint_stiffness",
           "average_torque", "bearing_checks", "bearing_loads", "brake_check", "drive_checks", "equivalent_load",
           "joint_stiffness", "l10_hours", "life_hours", "load_catalogue", "motor_checks", "motor_torque",
           "reducer_checks", "select_reducer", "shipped_files", "static_equivalent_load"]
