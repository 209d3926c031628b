"""The files of a parameter sweep (:mod:`structcheck.sweep`): ``sweep.csv``, one row per variant (the parameters,
then :data:`COLUMNS`: status, verdict, metrics, run time, error, load cases), read back by :func:`read_sweep_csv`, and
``sweep.png``, each metric against each parameter.

Imports nothing heavy at the top (matplotlib only in :func:`plot_sweep`)."""
from __future__ import annotations

import csv
import math
import os
import re
from pathlib import Path

METRICS = ("max_von_mises_pa", "min_safety_factor", "max_deformation_m", "tool_point_deflection_m", "mass_kg")
COLUMNS = ("variant", "status", "verdict", *METRICS, "run_time_s", "error", "cases")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_INT = re.compile(r"[+-]?\d+")


def parse_value(text: str) -> int | float | str:
    """A value from the command line (``--param``) or a sweep.csv cell: an int or a float when it looks like a
    decimal number, else the string (never evaluated; ``nan``, ``inf``, ``true`` stay strings)."""
    text = text.strip()
    if _INT.fullmatch(text):
        return int(text)
    if _NUMBER.fullmatch(text):
        return float(text)
    return text


def cases_cell(summary) -> str | None:
    """A variant's load cases in one sweep.csv cell, each case's highest utilisation and verdict (``light 0.424
    pass; crash 1.39 FAIL``); None for a study without cases. Its metrics are the cases' envelope."""
    return None if not summary.cases else "; ".join(
        f"{n} {c.utilisation:.3g} {'pass' if c.passed else 'FAIL'}" for n, c in summary.cases.items())


def write_sweep_csv(rows: list[dict], names: list[str], path: Path) -> Path:
    """sweep.csv: the parameter columns, then :data:`COLUMNS`; floats with all their digits (``repr``), empty
    cells for missing values. Written to a temporary file and moved into place."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([*names, *COLUMNS])
        for r in rows:
            w.writerow(["" if r.get(c) is None else repr(r[c]) if isinstance(r[c], float) else r[c]
                        for c in (*names, *COLUMNS)])
    os.replace(tmp, path)
    return path


def read_sweep_csv(path: str | Path) -> list[dict]:
    """sweep.csv back as rows: numbers parsed as by :func:`parse_value`, empty cells as None."""
    with open(path, newline="") as f:
        return [{k: (None if v == "" else parse_value(v) if k not in ("variant", "error") else v)
                 for k, v in r.items()} for r in csv.DictReader(f)]


def sweep_lines(rows: list[dict], names: list[str], name: str) -> tuple[list, bool, list[tuple]]:
    """The lines of a sweep plot against parameter ``name``: its values in order, whether they are numbers, and
    per combination of the other parameters (label, its rows that ran, sorted along ``name``, their x: the value,
    or its position among the values when they are not numbers)."""
    values = list(dict.fromkeys(r[name] for r in rows))
    numeric = all(isinstance(v, (int, float)) for v in values)
    others = [n for n in names if n != name]
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["status"] != "failed":
            groups.setdefault(tuple(r[n] for n in others), []).append(r)
    lines = []
    for key, grp in groups.items():
        grp = sorted(grp, key=lambda r: r[name] if numeric else values.index(r[name]))
        lines.append((", ".join(f"{n}={v}" for n, v in zip(others, key)) or None, grp,
                      [r[name] if numeric else values.index(r[name]) for r in grp]))
    return values, numeric, lines


def plot_sweep(rows: list[dict], names: list[str], path: Path) -> Path | None:
    """One PNG: a panel per metric (rows) and parameter (columns), the metric against the parameter's values with
    a line per combination of the other parameters; filled markers pass, hollow ones fail. None if no variant
    has results."""
    ok = [r for r in rows if r["status"] != "failed"]
    if not ok or not names:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metrics = [m for m in METRICS if any(r[m] is not None for r in ok)]
    fig, axes = plt.subplots(len(metrics), len(names), figsize=(4.2 * len(names), 2.6 * len(metrics)),
                             squeeze=False, constrained_layout=True)
    for j, name in enumerate(names):
        values, numeric, groups = sweep_lines(rows, names, name)
        for k, metric in enumerate(metrics):
            ax = axes[k, j]
            for label, grp, x in groups:
                y = [math.nan if r[metric] is None else r[metric] for r in grp]
                line, = ax.plot(x, y, "-", lw=1, label=label)
                for xi, yi, r in zip(x, y, grp):
                    ax.plot(xi, yi, "o", color=line.get_color(),
                            mfc=line.get_color() if r["verdict"] == "pass" else "none")
            if not numeric:
                ax.set_xticks(range(len(values)), [str(v) for v in values])
            ax.set_xlabel(name)
            ax.set_ylabel(metric)
            ax.grid(alpha=0.3)
            if k == 0 and len(names) > 1 and len(groups) <= 8:
                ax.legend(fontsize=7)
    fig.suptitle("sweep: filled markers pass, hollow ones fail")
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    fig.savefig(tmp, dpi=90)
    plt.close(fig)
    os.replace(tmp, path)
    return path
