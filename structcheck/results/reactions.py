"""The joints' reactions as a bearing and its bolts take them: each joint's reaction wrench split along and across
its axis, and the peak of each part over the motion with its time (``joints.<name>.max_axial_force_n``, ...).

The reaction of joint j is the force F and moment M the parent exerts on the child at the joint origin, in the
joint frame's axes (a tree joint: the child's link frame; a cut joint: the frame on its link B), where the joint's
unit axis a is the one the model gives (:attr:`structcheck.model.links.Joint.axis`, ``CutJoint.axis``; a fixed
joint's is its stored axis, z unless given). Then per sample

    axial force Fa = F . a,   radial force Fr = |F - Fa a|,   tilting moment Mt = |M - (M . a) a|,   torque Mz = M . a

Fa and Mz are signed (along +a); their peaks are of the magnitudes. Fr and Mt are what a crossed-roller or angular
contact bearing is rated for beside Fa; Mz is the actuator's torque for an actuated revolute joint (the bearing
carries it for a prismatic joint). The moments are about the joint origin: a bearing centred elsewhere on the axis
sees Mt + |r x F| (docs/drivetrain.md moves it there for the drive checks).
"""
from __future__ import annotations

import numpy as np

#: (field stem, what) of the four parts, in the order of the reactions table
PARTS = (("axial_force_n", "axial force |F . a|"), ("radial_force_n", "radial force |F x a|"),
         ("tilting_moment_nm", "tilting (bending) moment |M x a|"), ("axis_moment_nm", "torque about the axis |M . a|"))


def bearing_components(wrench: np.ndarray, axis) -> dict[str, np.ndarray]:
    """The four parts of ``wrench`` (n_t, 6) [Fx, Fy, Fz, Mx, My, Mz] [N, N m] about joint axis ``axis`` (3,) in the
    same axes (normalised here): ``axial_force_n`` and ``axis_moment_nm`` signed along the axis, ``radial_force_n``
    and ``tilting_moment_nm`` magnitudes across it; each (n_t,)."""
    W = np.asarray(wrench, float).reshape(-1, 6)
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    F, M = W[:, :3], W[:, 3:]
    Fa, Ma = F @ a, M @ a
    # the square of the part across the axis, from the whole and the part along it; clipped at 0 (round-off)
    return {"axial_force_n": Fa, "radial_force_n": np.linalg.norm(F - Fa[:, None] * a, axis=1),
            "tilting_moment_nm": np.linalg.norm(M - Ma[:, None] * a, axis=1), "axis_moment_nm": Ma}


def reaction_peaks(wrench: np.ndarray, axis, t: np.ndarray) -> dict[str, float]:
    """Per part of :func:`bearing_components` the largest magnitude over the samples ``t`` (n_t,) [s] and the first
    time it is reached: ``max_<part>`` and ``time_of_max_<part without its unit>_s`` (``max_axial_force_n``,
    ``time_of_max_axial_force_s``)."""
    out = {}
    for stem, values in bearing_components(wrench, axis).items():
        mag = np.abs(values)
        k = int(np.argmax(mag))
        out[f"max_{stem}"] = float(mag[k])
        out[f"time_of_max_{stem.rsplit('_', 1)[0]}_s"] = float(t[k])
    return out


def joint_axes(chain) -> dict[str, np.ndarray]:
    """Joint name -> its axis (3,) in its joint frame, for the tree's joints and a closed chain's cut joints."""
    axes = {j.name: np.asarray(j.axis, float) for j in chain.tree.ordered_joints}
    axes.update({c.name: np.asarray(c.axis, float) for c in chain.cuts})
    return axes
