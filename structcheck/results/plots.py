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
        _margins(fig)
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
    for name, L in run.links.items():
        fat = L.fatigue_result
        if fat is not None and fat.governing_history is not None:
            fatigue_plot(plt, t, name, L, fat)
            save(plt.gcf(), f"fatigue_{name}.png")
    return paths


def _margins(fig) -> None:
    """Fixed margins [in]: room for the y tick labels and label (left), the x label (bottom), a title or an axis's
    offset text (top) and, side by side, the right plot's y label. Not ``tight_layout``, which lays out every
    text of the figure to find them and took a third of the plotting time (0.5 s of 1.8 s for paper 004's 11
    figures; plots are most of a small sweep variant's writing)."""
    w, h = fig.get_size_inches()
    top = 0.55 if fig._suptitle is not None else 0.3
    fig.subplots_adjust(left=1.0 / w, right=1 - 0.25 / w, bottom=0.6 / h, top=1 - top / h, hspace=0.15,
                        wspace=0.3)


def fatigue_plot(plt, t, name, link, fat):
    """The governing node's counted stress history over one duty cycle (left) and its rainflow cycles as
    range against mean (right, marker area ~ count), with the life and the curve in the title."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2, 1]})
    what = ("normal stress on n = (" + ", ".join(f"{v:.2f}" for v in fat.governing_normal) + ")"
            if fat.governing_normal is not None else "signed von Mises")
    a.plot(t, fat.governing_history * 1e-6, lw=0.8)
    a.set_xlabel("time [s] (one duty cycle)")
    a.set_ylabel(f"{what} [MPa]")
    c = fat.governing_cycles
    b.scatter(c.mean * 1e-6, c.range * 1e-6, s=30 * c.count, alpha=0.7)
    b.set_xlabel("cycle mean [MPa]")
    b.set_ylabel("cycle range [MPa]")
    life = link.fatigue.get("min_fatigue_life_cycles", float("inf"))
    fig.suptitle(f"{name}: governing node {fat.governing_node}, {len(c)} rainflow cycles per duty cycle, "
                 f"life {life:.3g} duty cycles ({fat.curve.name})", fontsize=9)
    return fig
