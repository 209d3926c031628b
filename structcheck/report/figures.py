"""The time-history plots of a run's report (plotly figures) from its results folder
(:class:`structcheck.results.Results`): joint motion, torques and reaction components, each link's peak stress
with its strength and allowable stress, the tool point's deflection, the arm's lowest frequencies along the motion
and the fatigue-governing histories.

Arrays go to the page as float32 (plotly writes them base64-encoded): 7 significant digits, more than a plot shows.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

MPA, MM = 1e-6, 1e3
_AXES = ("x", "y", "z")


def _f32(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


#: a plotted line keeps at most this many points (twice the buckets of :func:`min_max_points`): a page's plots
#: hold every extreme of a history without the tens of thousands of samples a ringing study adds
MAX_POINTS = 2000


def min_max_points(x: np.ndarray, y: np.ndarray, max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) (each (n,)) thinned to at most ``max_points`` points for plotting: the samples are cut into
    max_points / 2 buckets of consecutive samples and each keeps its smallest and largest y, in time order, so the
    line drawn passes through every bucket's extremes (the history's maximum and minimum among them) and a peak
    shown on the page is the history's own. Unchanged when it has no more points than that."""
    x, y = np.asarray(x), np.asarray(y)
    n = len(y)
    if n <= max_points or y.ndim != 1:
        return x, y
    edges = np.linspace(0, n, max_points // 2 + 1).astype(np.int64)
    starts = edges[:-1]
    bucket = np.repeat(np.arange(len(starts)), np.diff(edges))
    index = np.arange(n)
    keep = np.zeros(n + 1, bool)  # the last entry catches buckets whose extreme is NaN (nothing kept for it)
    for extreme in (np.fmin, np.fmax):  # the first sample of each bucket at its smallest, then at its largest y
        at = extreme.reduceat(y, starts)[bucket] == y
        keep[np.minimum.reduceat(np.where(at, index, n), starts)] = True
    keep = keep[:n]
    return x[keep], y[keep]


def grid(panels: list[dict], cols: int = 1, row_height: int = 230, title: str = ""):
    """A figure of ``panels`` sharing the time axis: each panel a dict with ``title``, ``ylabel``, ``lines``
    (name -> (x, y)), optional ``hlines`` (name -> y: a level drawn across, named in the legend) and ``log``
    (logarithmic y)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    rows = -(-len(panels) // cols)
    fig = make_subplots(rows=rows, cols=cols, shared_xaxes=True, subplot_titles=[p["title"] for p in panels],
                        vertical_spacing=min(0.08, 0.3 / rows), horizontal_spacing=0.08)
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f"]
    seen = set()
    for k, p in enumerate(panels):
        r, c = k // cols + 1, k % cols + 1
        for i, (name, (x, y)) in enumerate(p["lines"].items()):
            x, y = min_max_points(x, y)
            fig.add_trace(go.Scatter(x=_f32(x), y=_f32(y), name=name, mode="lines", legendgroup=name,
                                     showlegend=name not in seen, line=dict(width=1.3, color=palette[i % 9])), r, c)
            seen.add(name)
        for i, (name, y) in enumerate(p.get("hlines", {}).items()):  # traces, not shapes: right on log axes too
            x = next(iter(p["lines"].values()))[0]
            label = name.split(" ")[0]  # one legend entry per kind of level; the value in its hover text
            fig.add_trace(go.Scatter(x=[x[0], x[-1]], y=[y, y], name=label, legendgroup=label, mode="lines",
                                     showlegend=label not in seen, hovertemplate=name + "<extra></extra>",
                                     line=dict(dash="dash" if i else "dot", width=1.5, color="#333")), r, c)
            seen.add(label)
        fig.update_yaxes(title_text=p["ylabel"], type="log" if p.get("log") else "linear", row=r, col=c)
    for c in range(1, cols + 1):
        fig.update_xaxes(title_text="time [s]", row=rows, col=c)
    fig.update_layout(height=max(320, rows * row_height + 140), title=title, template="plotly_white",
                      margin=dict(l=70, r=20, t=70, b=50))
    return fig


def joint_motion(joints: Mapping[str, np.ndarray]):
    """q, qd, qdd of every joint coordinate (joints.csv), in rad (m for a prismatic joint) and their rates."""
    t = joints["time_s"]
    dofs = [c[2:] for c in joints if c.startswith("q_")]
    labels = (("q", "position [rad, or m if prismatic]"), ("qd", "velocity [rad/s or m/s]"),
              ("qdd", "acceleration [rad/s², m/s²]"))
    return grid([{"title": f"joint {lab.split(' ')[0]}", "ylabel": lab,
                  "lines": {d: (t, joints[f"{key}_{d}"]) for d in dofs}} for key, lab in labels],
                title="Joint motion")


def joint_torques(joints: Mapping[str, np.ndarray]):
    """The actuator torque (force for a prismatic joint) of every joint coordinate [N m or N]."""
    t = joints["time_s"]
    dofs = [c[4:] for c in joints if c.startswith("tau_")]
    return grid([{"title": "actuator torque", "ylabel": "torque [N m] (force [N] if prismatic)",
                  "lines": {d: (t, joints[f"tau_{d}"]) for d in dofs}}], title="Joint torques")


def joint_reactions(joints: Mapping[str, np.ndarray], joint_names: list[str]):
    """Every joint's reaction force [N] and moment [N m] components in the child's joint frame (the parent on the
    child), a row per joint."""
    t = joints["time_s"]
    panels = []
    for j in joint_names:
        if f"{j}_Fx_N" not in joints:
            continue
        panels.append({"title": f"{j}: force", "ylabel": "[N]",
                       "lines": {f"F{a}, M{a}": (t, joints[f"{j}_F{a}_N"]) for a in _AXES}})
        panels.append({"title": f"{j}: moment", "ylabel": "[N m]",
                       "lines": {f"F{a}, M{a}": (t, joints[f"{j}_M{a}_Nm"]) for a in _AXES}})
    return grid(panels, cols=2, row_height=170,
                title="Joint reactions (parent on child, child's joint frame): x, y, z components")


def link_stress(links: Mapping[str, np.ndarray], summary: Mapping) -> object:
    """Each link's peak von Mises over time (unaveraged and nodal-averaged) [MPa] with its strength and the
    allowable stress (strength / required safety factor), on a log scale (the lines are often far above)."""
    t = links["time_s"]
    req = summary["required_safety_factor"]
    panels = []
    for name, L in summary["links"].items():
        lines = {"peak von Mises (unaveraged)": (t, links[f"{name}_max_von_mises_pa"] * MPA)}
        if f"{name}_max_von_mises_averaged_pa" in links:
            lines["nodal-averaged"] = (t, links[f"{name}_max_von_mises_averaged_pa"] * MPA)
        s = L["yield_strength_pa"] * MPA
        panels.append({"title": f"{name} ({L['material']})", "ylabel": "[MPa]", "log": True, "lines": lines,
                       "hlines": {f"strength {s:.4g} MPa": s,
                                  f"allowable {s / req:.4g} MPa = strength / {req:g}": s / req}})
    return grid(panels, cols=2, row_height=220, title="Peak stress of each link over time (log scale)")


def tool_deflection(links: Mapping[str, np.ndarray], summary: Mapping):
    """The tool point's deflection [mm] in world axes and its magnitude, with the study's limit; None without a
    tool point."""
    if "tool_point_deflection_x_m" not in links:
        return None
    t = links["time_s"]
    d = np.column_stack([links[f"tool_point_deflection_{a}_m"] for a in _AXES]) * MM
    lines = {f"{a}": (t, d[:, i]) for i, a in enumerate(_AXES)}
    lines["magnitude"] = (t, np.linalg.norm(d, axis=1))
    limit = summary.get("deflection_limit_m")
    return grid([{"title": f"tool point {summary.get('tool_point')}", "ylabel": "deflection [mm]", "lines": lines,
                  "hlines": {f"limit {limit * MM:.4g} mm": limit * MM} if limit else {}}],
                title="Tool-point deflection (world axes)")


def arm_frequencies(freq: Mapping[str, np.ndarray]):
    """The assembled arm's lowest natural frequencies [Hz] at each frozen pose along the motion (arm model);
    None without them."""
    if not freq:
        return None
    t = freq["time_s"]
    fig = grid([{"title": "lowest natural frequencies of the assembled arm", "ylabel": "frequency [Hz]", "log": True,
                 "lines": {c.replace("_hz", ""): (t, freq[c]) for c in freq if c.endswith("_hz")}}],
               title="Arm frequencies along the motion (one point per frozen pose)")
    fig.update_traces(mode="lines+markers", marker=dict(size=3))
    return fig


def fatigue_histories(fatigue: Mapping[str, np.ndarray]):
    """Each link's fatigue-governing stress over one duty cycle [MPa] (the quantity rainflow-counted at the
    governing node); None without fatigue."""
    if not fatigue:
        return None
    t = fatigue["time_s"]
    cols = [c for c in fatigue if c.endswith("_governing_stress_pa")]
    return grid([{"title": c.removesuffix("_governing_stress_pa"), "ylabel": "[MPa]",
                  "lines": {"governing stress": (t, fatigue[c] * MPA)}} for c in cols], cols=2, row_height=180,
                title="Fatigue-governing stress history at each link's governing node (one duty cycle)")
