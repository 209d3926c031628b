"""PNG plots of a run: joint motion, torques, reaction forces/moments, stress history per link."""
from __future__ import annotations

from pathlib import Path

import numpy as np


def write_plots(run, folder: Path) -> list[Path]:
    """Write the standard plots of a RunResult into ``folder``; return the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    t = run.t
    paths = []

    def save(fig, name):
        fig.tight_layout()
        p = folder / name
        fig.savefig(p, dpi=110)
        plt.close(fig)
        paths.append(p)

    fig, ax = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    for j, name in enumerate(run.dof_names):
        ax[0].plot(t, np.degrees(run.q[:, j]), label=name)
        ax[1].plot(t, np.degrees(run.qd[:, j]))
        ax[2].plot(t, np.degrees(run.qdd[:, j]))
    ax[0].set_ylabel("q [deg]")
    ax[1].set_ylabel("qd [deg/s]")
    ax[2].set_ylabel("qdd [deg/s²]")
    ax[2].set_xlabel("time [s]")
    ax[0].legend(fontsize=7, ncol=3)
    save(fig, "joint_motion.png")

    fig, ax = plt.subplots(figsize=(8, 4))
    for j, name in enumerate(run.dof_names):
        ax.plot(t, run.tau[:, j], label=name)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("joint torque [N m]")
    ax.legend(fontsize=7, ncol=3)
    save(fig, "joint_torques.png")

    fig, ax = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    for k, name in enumerate(run.joint_names):
        ax[0].plot(t, np.linalg.norm(run.joint_wrenches[:, k, :3], axis=1), label=name)
        ax[1].plot(t, np.linalg.norm(run.joint_wrenches[:, k, 3:], axis=1))
    ax[0].set_ylabel("|reaction force| [N]")
    ax[1].set_ylabel("|reaction moment| [N m]")
    ax[1].set_xlabel("time [s]")
    ax[0].legend(fontsize=7, ncol=3)
    save(fig, "joint_reactions.png")

    fig, ax = plt.subplots(figsize=(8, 4))
    for name, link in run.links.items():
        ax.plot(t, link.history["max_von_mises"] * 1e-6, label=name)
    ax.set_xlabel("time [s]")
    ax.set_ylabel("max von Mises [MPa]")
    ax.set_yscale("log")
    ax.legend(fontsize=7, ncol=3)
    save(fig, "stress_history.png")
    return paths
