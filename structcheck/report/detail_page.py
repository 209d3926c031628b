"""The review detail of a run's page: boundary conditions and loads drawn on each link with its mesh and mesh
quality (:mod:`.boundary_view`), the top hot spots per link (:mod:`.hotspots`) and the fatigue detail at each
link's governing node (:mod:`.fatigue_detail`). Templates: ``_boundary.html.j2``, ``_hotspots.html.j2``,
``_fatigue_detail.html.j2``."""
from __future__ import annotations

from typing import Mapping

from . import boundary_view, fatigue_detail, inputs_view
from .hotspots import hot_spot_rows
from .page import figure_html
from .view import MM, noise_floored, number


def boundary_rows(summary: Mapping) -> list[dict]:
    """Per link: one row per face it is held or loaded on: surface, role, centre [mm, link frame; round-off below
    1 nm shown as 0], the force on the link there at its peak instant [N, link axes] and the largest over the
    motion [N]."""
    out = []
    for link, L in summary.get("links", {}).items():
        rows = []
        for k, b in enumerate(L.get("boundary_conditions") or []):
            key = ("links", link, "boundary_conditions", k)
            rows.append({"surface": b["surface"], "role": boundary_view.ROLE_LABELS.get(b["role"], b["role"]),
                         "centre": "(" + ", ".join(f"{round(v * MM, 6):.4g}" for v in b["centre_link_m"]) + ")",
                         "force": [number(summary, (*key, "force_at_peak_n", i), unit="N") for i in range(3)],
                         "max": number(summary, (*key, "max_force_n"), unit="N")})
        forces = noise_floored([f for r in rows for f in r["force"]])  # one quantity: round-off shown as 0
        for k, r in enumerate(rows):
            r["force"] = forces[3 * k:3 * k + 3]
        if rows:
            out.append({"link": link, "time": number(summary, ("links", link, "time_of_max_s"), unit="s"),
                        "rows": rows})
    return out


def detail_context(res, summary: Mapping, renders: bool = True) -> dict:
    """What the three review sections show of results ``res`` (summary ``summary``); ``renders``: with the pyvista
    figures of the links."""
    return dict(
        link_figures=dict(boundary_view.link_figures(res, summary)) if renders else {},
        boundaries=boundary_rows(summary), mesh=inputs_view.part_rows(summary) if summary.get("inputs") else [],
        mesh_cols=inputs_view.MESH_COLUMNS, hot_spots=hot_spot_rows(summary),
        fatigue=[{**d, "figure": figure_html(d["figure"], f"fatigue-detail-{d['link']}")}
                 for d in fatigue_detail.details(summary, res.fatigue)])
