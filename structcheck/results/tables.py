"""The CSV tables of a results folder: ``joints.csv`` (time, q, qd, qdd, tau and six reaction components of every
joint, and each drive's motor-side torque and speed) and ``links.csv`` (time and every link's peak von Mises, strain
and deformation, and its peak nodal-averaged von Mises) on the analysis grid, ``fatigue.csv`` (each link's
fatigue-governing stress history over one duty cycle) and ``arm_frequencies.csv`` (the assembled arm's lowest
frequencies at each frozen pose along the motion), with repr-exact floats."""
from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np

from .data import RunResult


def write_joint_csv(run: RunResult, path: Path) -> None:
    cols = ["time_s"]
    data = [run.t[:, None]]
    for name, arr in (("q", run.q), ("qd", run.qd), ("qdd", run.qdd), ("tau", run.tau)):
        cols += [f"{name}_{j}" for j in run.dof_names]
        data.append(arr)
    comps = ("Fx_N", "Fy_N", "Fz_N", "Mx_Nm", "My_Nm", "Mz_Nm")
    for k, j in enumerate(run.joint_names):
        cols += [f"{j}_{c}" for c in comps]
        data.append(run.joint_wrenches[:, k, :])
    for j, d in run.drives.items():  # a drive's motor side: torque tau/(i eta^+-1) + J i qdd, speed i qd
        for col, arr in ((f"motor_tau_{j}_Nm", d.motor_torque_nm), (f"motor_speed_{j}_rpm", d.motor_speed_rpm)):
            if arr is not None:
                cols.append(col)
                data.append(arr[:, None])
    _write_csv(path, cols, np.hstack(data))


def write_link_csv(run: RunResult, path: Path) -> None:
    cols = ["time_s"]
    data = [run.t[:, None]]
    for name, link in run.links.items():
        for key, unit in (("max_von_mises", "pa"), ("max_equivalent_strain", ""), ("max_deformation", "m"),
                          ("max_von_mises_averaged", "pa")):
            if key in link.history:
                cols.append(f"{name}_{key}" + (f"_{unit}" if unit else ""))
                data.append(link.history[key][:, None])
    if run.tool_point_deflection is not None:  # the tool point's deflection history, world axes
        cols += [f"tool_point_deflection_{a}_m" for a in "xyz"]
        data.append(run.tool_point_deflection)
    _write_csv(path, cols, np.hstack(data))


def write_fatigue_csv(run: RunResult, path: Path) -> bool:
    """``fatigue.csv``: time_s and, per link with fatigue, ``<link>_governing_stress_pa``: the quantity counted at
    its governing node (normal stress on the critical plane, or signed von Mises) over one duty cycle [Pa].
    Writes nothing and returns False when no link has one."""
    hist = {n: L.fatigue_result.governing_history for n, L in run.links.items()
            if L.fatigue_result is not None and L.fatigue_result.governing_history is not None}
    if not hist:
        return False
    _write_csv(path, ["time_s", *(f"{n}_governing_stress_pa" for n in hist)],
               np.column_stack([run.t, *hist.values()]))
    return True


def write_arm_frequency_csv(run: RunResult, path: Path) -> bool:
    """``arm_frequencies.csv``: time_s of each frozen pose of the arm model and its lowest frequencies ``f1_hz``,
    ``f2_hz``, ... [Hz]. Writes nothing and returns False without the arm model."""
    if run.arm_frequencies is None:
        return False
    times, freq = run.arm_frequencies
    _write_csv(path, ["time_s", *(f"f{k + 1}_hz" for k in range(freq.shape[1]))], np.column_stack([times, freq]))
    return True


def _write_csv(path: Path, header: list[str], rows: np.ndarray) -> None:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        # repr-exact floats: a CSV that rounds would disagree with summary.json in the last digits; the csv module
        # writes a Python float as str(), which is its repr (shortest round-trip form), without a call per value
        w.writerows(np.asarray(rows, dtype=float).tolist())


def read_csv(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Read a CSV written here into column name -> array."""
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], np.array(rows[1:], dtype=float)
    return {h: body[:, i] for i, h in enumerate(header)}
