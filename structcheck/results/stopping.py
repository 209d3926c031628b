"""Writers of the stopping tables (:class:`structcheck.cases.iso.IsoTable`): a CSV table and a PNG plot.
Imports nothing heavy at the top (matplotlib only in :func:`plot_stopping`)."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

__all__ = ["plot_stopping", "write_stopping_csv"]

HEADER = ("category", "joint", "speed_percent", "payload_percent", "stop_time_s", "stop_distance_deg",
          "worst_trigger_time_s", "worst_trigger_distance_s", "trigger_step_s")


def write_stopping_csv(table, path: Path) -> Path:
    """One row per joint, speed and payload fraction: stopping time [s] and distance [deg] (the worst over the
    triggers), the triggers where they occur [s] and the trigger spacing at that speed [s]."""
    path = Path(path)
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        for k, joint in enumerate(table.joints):
            for i, s in enumerate(table.speed):
                for j, p in enumerate(table.payload):
                    w.writerow((table.category, joint, f"{100 * s:.0f}", f"{100 * p:.0f}",
                                f"{table.stop_time[i, j, k]:.6g}", f"{np.degrees(table.stop_distance[i, j, k]):.6g}",
                                f"{table.worst_trigger_time[i, j, k]:.6g}",
                                f"{table.worst_trigger_distance[i, j, k]:.6g}", f"{table.step / s:.6g}"))
    return path


def plot_stopping(table, path: Path) -> Path:
    """Stopping time and distance against speed [%], one line per joint and payload fraction (ISO 10218-1
    style), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    speed = 100 * np.asarray(table.speed)
    for k, joint in enumerate(table.joints):
        for j, p in enumerate(table.payload):
            label = f"{joint}, payload {100 * p:.0f} %"
            axes[0].plot(speed, table.stop_time[:, j, k], "o-", label=label)
            axes[1].plot(speed, np.degrees(table.stop_distance[:, j, k]), "o-", label=label)
    for ax, what in zip(axes, ("stopping time [s]", "stopping distance [deg]")):
        ax.set_xlabel("speed [% of the motion's]")
        ax.set_ylabel(what)
        ax.grid(True, alpha=0.3)
    axes[1].legend(fontsize=7)
    fig.suptitle(f"Stop category {table.category}: worst trigger over the motion (grid {table.step:g} s at 100 %)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
