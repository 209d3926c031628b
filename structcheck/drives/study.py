"""A study's drives: each joint's reducer, output bearing, motor and brake named from the catalogue
(:class:`Drive`), checked over the run's joint histories (:func:`drive_results`), and the reducer's torsional
curve as the joint's stiffness in the arm model (:func:`with_drive_stiffness`).

    Study(..., drives={"joint2": Drive(reducer="RV-80E", motor="1FT7064-1AF7", catalogue=("mine.toml",))})

The duty is the study's own motion: the joint's speed, acceleration and torque histories and its reaction (joint
wrench, parent on child at the joint origin) turned into a frame whose z is the joint axis. The brake is held
against the larger of the worst static pose over the joint ranges and the motion's own poses at rest
(:mod:`structcheck.drives.holding`; its check's note gives both). The joint's stiffness in the arm model: the
reducer's torsional curve linearised at the duty's load level about the axis and, where the output bearing's entry
gives one, its tilting stiffness about the two axes normal to it (``(k, k_tilt)``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Mapping

import numpy as np

from ..errors import InputError, require_number
from .catalogue import Catalogue, load_catalogue
from .duty import RPM_PER_RAD_S, JointDuty
from .holding import HoldingTorque, holding_torque, motion_holding, worst_poses
from .motor import motor_torque
from .result import CheckResult, not_checked
from .selection import drive_checks
from .stiffness import StiffnessChoice, joint_stiffness


class LoadLevel(Enum):
    """The torque at which the reducer's torsional curve is linearised for the arm model: the duty's ``rms``
    torque (the level the joint mostly sits at) or its ``peak`` |torque| (the level of the largest deflection)."""

    RMS = "rms"
    PEAK = "peak"

    def of(self, duty: JointDuty) -> float:
        """The load level [N m] of ``duty``."""
        if self is LoadLevel.PEAK:
            return float(np.abs(duty.tau).max())
        return math.sqrt(duty.integral(duty.tau ** 2) / duty.cycle_time)


@dataclass(frozen=True)
class Drive:
    """One joint's drive, by catalogue names: ``reducer`` (required), its output ``bearing`` (None: the one the
    reducer's entry names, if any), ``motor`` and ``brake`` (None: not checked). ``catalogue``: TOML files of
    your own read beside the shipped one (docs/drivetrain.md). ``design_life_h`` [h] the life the reducer and the
    bearing must reach (None: life reported, not checked). ``stiffness``: how the reducer's torsional curve is
    linearised for the arm model ('secant' or 'tangent'; None: the drive adds no stiffness) at ``load_level``
    ('rms' or 'peak' torque of the duty), with the output bearing's catalogue tilting stiffness (when its
    entry gives one) as the tilt stiffness; an explicit ``ArmSettings.joint_stiffness`` of the joint wins.
    ``bearing_z_m`` [m]: the bearing centre's place on the joint axis from the joint origin (None: at it)."""

    reducer: str
    bearing: str | None = None
    motor: str | None = None
    brake: str | None = None
    catalogue: tuple = ()
    design_life_h: float | None = None
    stiffness: StiffnessChoice | None = StiffnessChoice.SECANT
    load_level: LoadLevel = LoadLevel.RMS
    bearing_z_m: float | None = None

    def __post_init__(self):
        files = (self.catalogue,) if isinstance(self.catalogue, (str, bytes)) or hasattr(self.catalogue,
                                                                                          "__fspath__") \
            else tuple(self.catalogue)
        object.__setattr__(self, "catalogue", files)
        for name, kind in (("stiffness", StiffnessChoice), ("load_level", LoadLevel)):
            value = getattr(self, name)
            if value is not None or name == "load_level":
                try:
                    object.__setattr__(self, name, kind(value))
                except ValueError:
                    raise InputError(f"Drive {name} = {value!r}: choose one of {[m.value for m in kind]}"
                                     + (" or None" if name == "stiffness" else "")) from None
        for name in ("design_life_h", "bearing_z_m"):
            if getattr(self, name) is not None:
                require_number(f"Drive {name}", getattr(self, name), "h" if name == "design_life_h" else "m",
                               **({"above": 0} if name == "design_life_h" else {}))
        cat: Catalogue = load_catalogue(*files)
        reducer = cat.get("reducer", self.reducer)
        bearing = cat.get("bearing", self.bearing) if self.bearing is not None else cat.bearing_of(reducer)
        parts = dict(reducer=reducer, bearing=bearing,
                     motor=None if self.motor is None else cat.get("motor", self.motor),
                     brake=None if self.brake is None else cat.get("brake", self.brake))
        if self.stiffness is not None and reducer.torsion is None:
            raise InputError(f"Drive reducer {reducer.name!r}: its catalogue entry gives no torsional stiffness; "
                             f"give Drive(stiffness=None) or an entry with one")
        object.__setattr__(self, "_parts", parts)  # not a field: the inputs summary lists the names, not the entries

    @property
    def parts(self) -> dict:
        """The catalogue entries: 'reducer', 'bearing', 'motor', 'brake' -> entry (None: not given)."""
        return self._parts


def check_drives(drives: Any, joint_names) -> dict[str, Drive]:
    """``Study.drives`` checked: a mapping joint name -> :class:`Drive` whose joints are the robot's."""
    if not isinstance(drives, Mapping) or not all(isinstance(d, Drive) for d in drives.values()):
        raise InputError(f"drives = {drives!r}: give a mapping joint name -> structcheck.Drive(...)")
    unknown = [j for j in drives if j not in joint_names]
    if unknown:
        raise InputError(f"drives: no joint {unknown[0]!r} in the robot; joints: {', '.join(joint_names)}")
    return dict(drives)


@dataclass(frozen=True)
class JointDrive:
    """One joint's drive over the run: the ``drive``, its ``duty``, its ``checks``, the motor-side torque
    ``motor_torque_nm`` and speed ``motor_speed_rpm`` (n_t,) (None without a motor or a ratio), the arm model's
    ``stiffness_nm_per_rad`` about the axis with how it was chosen (``stiffness_note``; None: no stiffness from this
    drive) and ``tilt_stiffness_nm_per_rad`` (None: rigid in tilt), and the brake's static ``holding`` torque
    (None: no brake)."""

    joint: str
    drive: Drive
    duty: JointDuty
    checks: tuple[CheckResult, ...]
    motor_torque_nm: np.ndarray | None
    motor_speed_rpm: np.ndarray | None
    stiffness_nm_per_rad: float | None
    stiffness_note: str
    tilt_stiffness_nm_per_rad: float | None = None
    holding: HoldingTorque | None = None

    @property
    def arm_stiffness(self):
        """What ``ArmSettings.joint_stiffness`` takes for this joint: k, (k, k_tilt), or None."""
        if self.stiffness_nm_per_rad is None:
            return None
        if self.tilt_stiffness_nm_per_rad is None:
            return self.stiffness_nm_per_rad
        return self.stiffness_nm_per_rad, self.tilt_stiffness_nm_per_rad


def joint_duty(body, tree, joint: str, t: np.ndarray) -> JointDuty:
    """The duty of ``joint`` from a rigid stage's ``body`` (``RigidBody``) on the samples ``t`` [s]: its reaction
    turned from the child's axes into a frame whose z is the joint axis."""
    k = tree.dof_names.index(joint)
    w = body.dynamics.joint_wrenches[:, list(body.dynamics.joint_names).index(joint), :]
    R = _axis_frame(np.asarray(tree.joint(joint).axis, float))
    return JointDuty(t=t, qd=body.qd[:, k], tau=body.tau[:, k], qdd=body.qdd[:, k], force=w[:, :3] @ R.T,
                     moment=w[:, 3:] @ R.T)


def _axis_frame(axis: np.ndarray) -> np.ndarray:
    """A rotation (3, 3) whose rows are the new axes in the child's axes, the third along ``axis``."""
    z = axis / np.linalg.norm(axis)
    a = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(a, z)
    x /= np.linalg.norm(x)
    return np.array([x, np.cross(z, x), z])


def _stiffness(study, joint: str, drive: Drive, duty: JointDuty) -> tuple[float | None, float | None, str]:
    """(k about the axis, k_tilt or None, how they were chosen) [N m/rad] for the arm model."""
    explicit = dict(study.arm.joint_stiffness).get(joint)
    if explicit is not None:
        return None, None, f"the study's explicit arm.joint_stiffness ({explicit!r}) wins over the drive's"
    if drive.stiffness is None:
        return None, None, "none: the drive gives no stiffness to the arm model (Drive(stiffness=None))"
    level = drive.load_level.of(duty)
    bearing = drive.parts["bearing"]
    k = joint_stiffness(drive.parts["reducer"], level, drive.stiffness, bearing)
    k, k_tilt = k if isinstance(k, tuple) else (k, None)
    note = (f"{drive.stiffness.value} stiffness of the {drive.reducer} torsional curve at the duty's "
            f"{drive.load_level.value} torque {level:.4g} N m")
    if k_tilt is not None:
        note += f"; tilt {k_tilt:.4g} N m/rad: output bearing {bearing.name}'s catalogue tilting stiffness"
    else:
        note += "; rigid in tilt" + (f" (output bearing {bearing.name}'s entry gives no tilting stiffness)"
                                     if bearing is not None else " (no output bearing)")
    return k, k_tilt, note


def drive_results(study, chain, body, t: np.ndarray,
                  holding: Mapping[str, HoldingTorque] | None = None) -> dict[str, JointDrive]:
    """Each of ``study.drives`` checked over the rigid ``body`` (``RigidBody``) on samples ``t`` [s]; ``holding``
    joint -> the brake's static holding torque (a braked joint missing: its brake not checked)."""
    tree, out, holding = chain.tree, {}, dict(holding or {})
    for joint, drive in dict(study.drives).items():
        duty = joint_duty(body, tree, joint, t)
        p = drive.parts
        held = holding.get(joint) if p["brake"] is not None else None
        checks = drive_checks(duty, p["reducer"], p["bearing"], p["motor"], p["brake"],
                              design_life_h=drive.design_life_h,
                              static_torque_nm=None if held is None else held.held,
                              bearing_z_m=drive.bearing_z_m, static_basis="" if held is None else held.basis)
        if p["brake"] is not None and (held is None or held.held is None):
            checks.append(replace(not_checked("brake holding torque", f"brake {p['brake'].name}", p["brake"].name),
                                  note="not checked: no static holding torque" + (f" ({held.basis})" if held else "")))
        r = p["reducer"]
        tau_m = speed_m = None
        if r.ratio is not None:
            speed_m = r.ratio * duty.qd * RPM_PER_RAD_S
            if p["motor"] is not None and r.efficiency is not None and p["motor"].rotor_inertia_kgm2 is not None:
                tau_m = motor_torque(duty, r.ratio, r.efficiency, p["motor"].rotor_inertia_kgm2)
        k, k_tilt, note = _stiffness(study, joint, drive, duty)
        out[joint] = JointDrive(joint, drive, duty, tuple(checks), tau_m, speed_m, k, note, k_tilt, held)
    return out


def with_drive_stiffness(study, drives: Mapping[str, JointDrive]):
    """``study`` with each drive's stiffness added to ``arm.joint_stiffness`` (explicit ones kept)."""
    extra = {j: d.arm_stiffness for j, d in drives.items() if d.arm_stiffness is not None}
    if not extra:
        return study
    return replace(study, arm=replace(study.arm, joint_stiffness={**extra, **dict(study.arm.joint_stiffness)}))


def drive_failures(drives: Mapping[str, JointDrive]) -> list[str]:
    """One line per failed drive check: ``joint 'joint2' drive: reducer repeated peak torque (reducer RV-80E):
    1200 <= 784 N m, utilisation 1.53, FAIL``."""
    return [f"joint {j!r} drive: {c.line()}" for j, d in drives.items() for c in d.checks if c.passed is False]


def study_drives(study, prep, rigid, stiffness_from: Mapping[str, JointDrive] | None = None) -> dict[str, JointDrive]:
    """:func:`drive_results` of a run's ``prep`` (``study.Prepared``) and rigid stage ``rigid`` (``RigidStage``),
    the brakes against :func:`brake_holding`. ``stiffness_from``: an earlier result of the same run whose
    stiffness (given to the arm model before the run refined its samples) and worst static poses are kept."""
    if not study.drives:
        return {}
    check_drives(study.drives, prep.chain.tree.dof_names)
    earlier = dict(stiffness_from or {})
    holding = brake_holding(study, prep, rigid, {j: d.holding for j, d in earlier.items()})
    out = drive_results(study, prep.chain, rigid.body, rigid.t, holding)
    if earlier:
        out = {j: replace(d, stiffness_nm_per_rad=earlier[j].stiffness_nm_per_rad,
                          tilt_stiffness_nm_per_rad=earlier[j].tilt_stiffness_nm_per_rad,
                          stiffness_note=earlier[j].stiffness_note) for j, d in out.items()}
    return out


def brake_holding(study, prep, rigid, earlier: Mapping[str, HoldingTorque | None] | None = None
                  ) -> dict[str, HoldingTorque]:
    """Each braked joint's static holding torque: the worst static pose over the joint ranges (searched once per
    run: taken from ``earlier`` when it has every braked joint's) and the motion's own samples at rest (an open
    tree only; a closed chain's are not computed)."""
    braked = [j for j, d in study.drives.items() if d.brake is not None]
    if not braked:
        return {}
    earlier = {j: h for j, h in dict(earlier or {}).items() if h is not None}
    chain, tree = prep.chain, prep.chain.tree
    if all(j in earlier for j in braked):
        worst = {j: (earlier[j].worst, earlier[j].pose) for j in braked if earlier[j].worst is not None}
        why_worst = {j: earlier[j].why_not_worst for j in braked}
    else:
        worst, reason = worst_poses(chain, braked, study.gravity, prep.payloads)
        why_worst = {j: reason or "not an actuated joint of the chain" for j in braked}
    motion, why_motion = None, "a closed chain: its loops' static torques at the motion's poses are not computed"
    if not chain.cuts:
        motion = motion_holding(tree, rigid.body.q, study.gravity, rigid.point_forces, prep.payloads)
    most = {j: None if motion is None else float(motion[:, tree.dof_names.index(j)].max()) for j in braked}
    return {j: holding_torque(worst.get(j), most[j], why_worst[j], why_motion) for j in braked}
