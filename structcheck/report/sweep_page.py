"""The sweep page (``sweep.html`` beside ``sweep.csv``): the table of variants with a link to each variant's
report, and each metric against each parameter in MPa and mm with the required safety factor drawn."""
from __future__ import annotations

import os
from pathlib import Path

from .page import figure_html, render, write_page

# (sweep.csv column, panel title, scale, unit)
SWEEP_METRICS = (("max_von_mises_pa", "peak von Mises", 1e-6, "MPa"),
                 ("min_safety_factor", "min safety factor", 1.0, "-"),
                 ("max_deformation_m", "largest link deformation", 1e3, "mm"),
                 ("tool_point_deflection_m", "tool-point deflection", 1e3, "mm"),
                 ("mass_kg", "mass", 1.0, "kg"))


def sweep_figure(rows: list[dict], names: list[str], required_sf: float | None):
    """A panel per metric (rows) and parameter (columns): the metric against the parameter with a line per
    combination of the others; filled markers pass, open ones fail; the required safety factor dashed."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from ..results.sweep import sweep_lines

    metrics = [m for m in SWEEP_METRICS if any(r[m[0]] is not None for r in rows if r["status"] != "failed")]
    fig = make_subplots(rows=len(metrics), cols=len(names), vertical_spacing=0.06, horizontal_spacing=0.08)
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
    for j, name in enumerate(names):
        values, numeric, lines = sweep_lines(rows, names, name)
        for k, (key, title, scale, unit) in enumerate(metrics):
            for i, (label, grp, x) in enumerate(lines):
                y = [None if r[key] is None else r[key] * scale for r in grp]
                fig.add_trace(go.Scatter(
                    x=x, y=y, mode="lines+markers", name=label or "variants", legendgroup=str(label),
                    showlegend=j == 0 and k == 0, line=dict(color=palette[i % 8], width=1.3),
                    marker=dict(size=9, symbol=["circle" if r["verdict"] == "pass" else "circle-open" for r in grp]),
                    text=[r["variant"] for r in grp], hovertemplate="%{text}<br>%{y:.4g} " + unit + "<extra></extra>"),
                    k + 1, j + 1)
            if key == "min_safety_factor" and required_sf:
                fig.add_hline(y=required_sf, line=dict(dash="dash", color="#c62828"), row=k + 1, col=j + 1,
                              annotation_text=f"required {required_sf:g}", annotation_position="top left")
            fig.update_yaxes(title_text=f"{title} [{unit}]", row=k + 1, col=j + 1)
            fig.update_xaxes(title_text=name, row=k + 1, col=j + 1,
                             **({} if numeric else dict(tickvals=list(range(len(values))),
                                                        ticktext=[str(v) for v in values])))
    fig.update_layout(height=260 * len(metrics) + 120, template="plotly_white", title="Each metric against each "
                      "parameter (filled markers pass, open ones fail)", margin=dict(l=70, r=20, t=70, b=40))
    return fig


def sweep_context(folder: Path) -> dict:
    from .. import __version__
    from ..results import read_summary
    from ..results.sweep import COLUMNS, read_sweep_csv

    rows = read_sweep_csv(folder / "sweep.csv")
    with open(folder / "sweep.csv") as f:
        names = [c for c in f.readline().strip().split(",") if c not in COLUMNS]
    required = None
    for r in rows:
        r["report"] = f"{r['variant']}/report.html" if (folder / r["variant"] / "report.html").is_file() else None
        if required is None and r["status"] != "failed" and (folder / r["variant"] / "summary.json").is_file():
            required = read_summary(folder / r["variant"]).required_safety_factor
    ran = [r for r in rows if r["status"] != "failed"]
    fig = sweep_figure(rows, names, required) if ran and names else None
    return dict(version=__version__, folder=folder.name, names=names, rows=rows, metrics=SWEEP_METRICS,
                required=required, figure=figure_html(fig, "sweep-plot") if fig is not None else None)


def write_sweep_report(folder: str | os.PathLike) -> Path:
    """Write ``sweep.html`` into the sweep folder ``folder`` (which holds sweep.csv); return its path."""
    folder = Path(folder)
    return write_page(render("sweep.html.j2", **sweep_context(folder)), folder / "sweep.html")
