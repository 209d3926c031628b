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

    def figure(name, rows, size, ylabels, legend_labels, log=False):
        """One figure of ``rows`` (n_t, n) series stacked as subplots sharing time; the first carries the legend."""
        fig, axes = plt.subplots(len(rows), 1, figsize=size, sharex=True, squeeze=False)
        axes = axes[:, 0]
        for i, (ax, columns, ylabel) in enumerate(zip(axes, rows, ylabels)):
            for k in range(columns.shape[1]):
                ax.plot(t, columns[:, k], label=legend_labels[k] if i == 0 else None)
            ax.set_ylabel(ylabel)
            if log:
                ax.set_yscale("log")
        axes[-1].set_xlabel("time [s]")
        axes[0].legend(fontsize=7, ncol=3)
        save(fig, name)

    figure("joint_motion.png", [np.degrees(run.q), np.degrees(run.qd), np.degrees(run.qdd)], (8, 8),
           ["q [deg]", "qd [deg/s]", "qdd [deg/s²]"], run.dof_names)
    figure("joint_torques.png", [run.tau], (8, 4), ["joint torque [N m]"], run.dof_names)
    W = run.joint_wrenches
    figure("joint_reactions.png", [np.linalg.norm(W[..., :3], axis=2), np.linalg.norm(W[..., 3:], axis=2)], (8, 7),
           ["|reaction force| [N]", "|reaction moment| [N m]"], run.joint_names)
    figure("stress_history.png", [np.column_stack([L.history["max_von_mises"] * 1e-6 for L in run.links.values()])],
           (8, 4), ["max von Mises [MPa]"], list(run.links), log=True)
    return paths
