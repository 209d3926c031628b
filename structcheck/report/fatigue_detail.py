"""The report's fatigue detail at each link's governing node: the rainflow matrix of its counted history (range x
mean histogram), the Haigh diagram (each cycle's mean and amplitude against the allowable line of the mean-stress
correction used, at the design life), and the S-N curve used with its parameters, knock-down factor and source.

Everything is recomputed from the results folder, by the same functions the run used: the governing history is
``fatigue.csv``'s ``<link>_governing_stress_pa`` (the quantity counted there: normal stress on the critical plane,
or signed von Mises), counted as one period of the repeated duty cycle (:func:`structcheck.fatigue.rainflow_cycles`);
the curve is ``inputs.parts.<link>.sn_curves.<region>`` of summary.json whose name is the link's
``fatigue_curve`` (the curve at the governing node); the correction is the study's (``fatigue.mean_stress_
correction``: the one named for material curves, none for a detail category's stress ranges).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..fatigue.counting import Cycles, rainflow_cycles
from ..fatigue.meanstress import equivalent_amplitude
from ..fatigue.sn import SNCurve
from .view import MPA, number

MATRIX_BINS = 10  # bins of the rainflow matrix along range and along mean
MAX_CYCLES_SHOWN = 300  # Haigh diagram: the most damaging cycles (largest equivalent amplitude) drawn


def rainflow_matrix(cycles: Cycles, bins: int = MATRIX_BINS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts (n_mean_bins, n_range_bins) of ``cycles`` (full cycles 1, half cycles 0.5) binned by mean and range,
    with the range edges (from 0 to the largest range) and the mean edges (smallest to largest mean) [units of the
    cycles]; an extent under 1e-3 of the largest range or mean (one mean) is widened to that, about its middle."""
    def edges(lo, hi, least):  # an extent below ``least`` (rounding of one value) widened to it about its middle
        mid, half = 0.5 * (lo + hi), 0.5 * max(hi - lo, least)
        return np.linspace(mid - half, mid + half, bins + 1)

    if len(cycles) == 0:
        return np.zeros((bins, bins)), edges(0.0, 1.0, 1.0), edges(0.0, 0.0, 1.0)
    top = float(cycles.range.max())
    least = 1e-3 * max(top, float(np.abs(cycles.mean).max())) or 1.0
    r_edges = np.linspace(0.0, max(top, least), bins + 1)
    m_edges = edges(float(cycles.mean.min()), float(cycles.mean.max()), least)
    counts, _, _ = np.histogram2d(cycles.mean, cycles.range, bins=(m_edges, r_edges), weights=cycles.count)
    return counts, r_edges, m_edges


def allowable_amplitude(mean, strength: float, ultimate: float, method: str) -> np.ndarray:
    """The amplitude [Pa] whose cycle at ``mean`` [Pa] has the equivalent fully reversed amplitude ``strength``
    [Pa] under the correction ``method`` (the Haigh diagram's allowable line: Goodman ``strength (1 - S_m / S_u)``
    for a tensile mean), by bisection on :func:`structcheck.fatigue.meanstress.equivalent_amplitude`, which grows
    with the amplitude for every method; 0 where the mean reaches ``ultimate``."""
    Sm = np.asarray(mean, float)
    lo, hi = np.zeros_like(Sm), np.full_like(Sm, float(strength))
    for _ in range(60):  # SWT allows more than ``strength`` under a compressive mean: widen the bracket to hold it
        short = (equivalent_amplitude(hi, Sm, ultimate, method) < strength) & (Sm < ultimate)
        if not short.any():
            break
        hi = np.where(short, 2 * hi, hi)
    for _ in range(80):  # halves the bracket to 1e-24 of it
        mid = 0.5 * (lo + hi)
        over = equivalent_amplitude(mid, Sm, ultimate, method) > strength
        lo, hi = np.where(over, lo, mid), np.where(over, mid, hi)
    return np.where(Sm >= ultimate, 0.0, 0.5 * (lo + hi))


def correction_for(fatigue: Mapping, quantity: str) -> str:
    """The mean-stress correction a curve of ``quantity`` took in the run, from summary.json's ``fatigue`` entry
    (``'goodman (material curves), none (detail categories)'`` or one method's name): none for ranges."""
    return "none" if quantity == "range" else str(fatigue.get("mean_stress_correction", "none")).split()[0]


def governing_curve(summary: Mapping, link: str) -> tuple[str, dict] | None:
    """(region, summary.json entry) of the S-N curve at ``link``'s governing node: the link's ``fatigue_region``
    when the run recorded it, else the region whose curve is named the link's ``fatigue_curve``; None when nothing
    was counted."""
    name, region = summary["links"][link].get("fatigue_curve"), summary["links"][link].get("fatigue_region")
    curves = (((summary.get("inputs") or {}).get("parts") or {}).get(link) or {}).get("sn_curves") or {}
    if region in curves and curves[region]["name"] == name:  # the run named the region (two may share a curve)
        return region, curves[region]
    return next(((r, c) for r, c in curves.items() if c["name"] == name), None)


def sn_curve(entry: Mapping) -> SNCurve:
    """The :class:`SNCurve` of a summary.json ``sn_curves`` entry."""
    cutoff = entry["N_cutoff_cycles"]
    return SNCurve(entry["name"], entry["S_ref_pa"], entry["N_ref_cycles"], tuple(entry["m"]),
                   tuple(entry["N_knee_cycles"]), np.inf if cutoff is None else cutoff, entry["quantity"],
                   entry["ultimate_strength_pa"], entry["source"])


def allowable_strength(curve: SNCurve, design_life: float | None) -> tuple[float, str]:
    """The curve's stress [Pa] the allowable line stands on, and what it is: at the design life [cycles] when the
    study has one (the endurance limit beyond the cut-off), else the endurance limit or cut-off (0: none)."""
    if design_life is not None:
        return float(curve.strength(design_life)), f"S-N strength at the design life {design_life:.3g} cycles"
    return float(curve.limit), "endurance limit / cut-off"


def link_detail(summary: Mapping, fatigue_csv: Mapping, link: str) -> dict | None:
    """What the report shows of ``link``'s governing node: facts (label, value) with tagged numbers, and the
    figure; None when the link has no governing history or curve."""
    column = fatigue_csv.get(f"{link}_governing_stress_pa")
    found = governing_curve(summary, link)
    if column is None or found is None:
        return None
    region, entry = found
    curve = sn_curve(entry)
    fat = summary.get("fatigue") or {}
    method = correction_for(fat, curve.quantity)
    strength, basis = allowable_strength(curve, fat.get("design_life_cycles"))
    cycles = rainflow_cycles(np.asarray(column, float))
    key = ("inputs", "parts", link, "sn_curves", region)
    facts = [("curve", f"{entry['name']} ({entry['quantity']}s; region {region or 'the material'})"),
             ("N = N_ref (S_ref / S)^m: S_ref", number(summary, (*key, "S_ref_pa"), MPA, "MPa")),
             ("N_ref", number(summary, (*key, "N_ref_cycles"), unit="cycles")),
             ("m (per segment)", ", ".join(f"{m:.4g}" for m in entry["m"])),
             ("knees", ", ".join(f"{n:.3g}" for n in entry["N_knee_cycles"]) or "none"),
             ("cut-off", number(summary, (*key, "N_cutoff_cycles"), unit="cycles", none_text="none")),
             ("endurance limit", number(summary, (*key, "endurance_limit_pa"), MPA, "MPa")),
             ("ultimate strength", number(summary, (*key, "ultimate_strength_pa"), MPA, "MPa", none_text="-")),
             ("knock-down (surface) factor", number(summary, ("fatigue", "surface_factor"))),
             ("mean-stress correction", method),
             ("allowable line on", f"{strength * MPA:.4g} MPa, {basis}"),
             ("governing node (link frame)", _mm(summary["links"][link].get("location_of_min_life_m"))),
             ("cycles counted (one duty cycle)", f"{cycles.count.sum():g}"),
             ("largest cycle: mean, amplitude", _largest(cycles)),
             ("fatigue safety factor (on the whole history)",
              number(summary, ("links", link, "fatigue_safety_factor"), digits=3, none_text="inf")),
             ("source", entry["source"])]
    return {"link": link, "facts": facts, "figure": detail_figure(link, cycles, curve, method, strength,
                                                                   fat.get("design_life_cycles"))}


def _largest(cycles: Cycles) -> str:
    """The cycle of largest amplitude: 'mean, amplitude' [MPa]."""
    if len(cycles) == 0:
        return "no cycle"
    k = int(np.argmax(cycles.range))
    return f"{cycles.mean[k] * MPA:.4g} MPa, {cycles.amplitude[k] * MPA:.4g} MPa"


def _mm(point) -> str:
    return "-" if point is None else "(" + ", ".join(f"{v * 1e3:.4g}" for v in point) + ") mm"


def details(summary: Mapping, fatigue_csv: Mapping) -> list[dict]:
    """:func:`link_detail` of every link that has one, in the summary's order."""
    out = [link_detail(summary, fatigue_csv, n) for n in summary.get("links", {})] if fatigue_csv else []
    return [d for d in out if d is not None]


def detail_figure(link: str, cycles: Cycles, curve: SNCurve, method: str, strength: float, design_life):
    """Three panels: the rainflow matrix, the Haigh diagram and the S-N curve [MPa, cycles]."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.09, subplot_titles=[
        "rainflow matrix [cycles per duty cycle]", f"Haigh diagram, {method}", "S-N curve"])
    counts, r_edges, m_edges = rainflow_matrix(cycles)
    fig.add_trace(go.Heatmap(x=_mid(r_edges) * MPA, y=_mid(m_edges) * MPA, z=np.where(counts > 0, counts, None),
                             colorscale="Blues", showscale=False, texttemplate="%{z:.3g}", name="rainflow matrix",
                             hovertemplate="range %{x:.4g} MPa<br>mean %{y:.4g} MPa<br>%{z:.3g} cycles<extra></extra>"),
                  1, 1)
    amp = cycles.amplitude if curve.quantity == "amplitude" else cycles.range
    order = np.argsort(-amp)[:MAX_CYCLES_SHOWN]
    fig.add_trace(go.Scatter(x=cycles.mean[order] * MPA, y=amp[order] * MPA, mode="markers", name="Haigh cycles",
                             marker=dict(size=6, color="#1f77b4")), 1, 2)
    Su = curve.ultimate_strength or max(float(np.abs(cycles.mean).max(initial=0.0)), strength) * 2
    sm = np.linspace(-Su, Su, 81)
    line = allowable_amplitude(sm, strength, Su, method) if curve.ultimate_strength else np.full_like(sm, strength)
    fig.add_trace(go.Scatter(x=sm * MPA, y=line * MPA, mode="lines", name="allowable",
                             line=dict(color="#c62828", dash="dash")), 1, 2)
    N = np.geomspace(1e3, max(1e8, 10 * (design_life or 0)), 60)
    fig.add_trace(go.Scatter(x=N, y=curve.strength(N) * MPA, mode="lines", name="S-N", line=dict(color="#333")),
                  1, 3)
    if design_life:
        fig.add_trace(go.Scatter(x=[design_life], y=[strength * MPA], mode="markers", name="design life",
                                 marker=dict(symbol="x", size=10, color="#c62828")), 1, 3)
    fig.update_xaxes(title_text="range [MPa]", row=1, col=1)
    fig.update_yaxes(title_text="mean [MPa]", row=1, col=1)
    fig.update_xaxes(title_text="mean [MPa]", row=1, col=2)
    fig.update_yaxes(title_text=f"{curve.quantity} [MPa]", rangemode="tozero", row=1, col=2)
    fig.update_xaxes(title_text="cycles", type="log", row=1, col=3)
    fig.update_yaxes(title_text=f"{curve.quantity} [MPa]", type="log", row=1, col=3)
    fig.update_layout(height=380, template="plotly_white", showlegend=False, title=f"{link}: governing node",
                      margin=dict(l=60, r=20, t=70, b=50))
    return fig


def _mid(edges: np.ndarray) -> np.ndarray:
    return 0.5 * (edges[1:] + edges[:-1])
