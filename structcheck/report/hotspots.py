"""The report's hot-spot tables: each link's most stressed places (summary.json ``links.<name>.hot_spots``,
:mod:`structcheck.results.hotspots`) with their place in the link frame, time, unaveraged and nodal-averaged von
Mises, the discontinuity indicator, and whether they sit at a joint face (a clamped or coupled face, where the
stress may be a singularity of the model). Every number is a tagged :class:`.view.Number`."""
from __future__ import annotations

from typing import Mapping

from .view import MM, MPA, number


def hot_spot_rows(summary: Mapping) -> list[dict]:
    """Per link with hot spots: its name, the band [mm] within which a spot counts as at a joint face, and one row
    per spot (most stressed first)."""
    out = []
    for link, L in summary.get("links", {}).items():
        spots = L.get("hot_spots") or []
        if not spots:
            continue
        rows = []
        for k, h in enumerate(spots):
            key = ("links", link, "hot_spots", k)
            face = h.get("nearest_joint_face")
            rows.append({"rank": k + 1, "where": "(" + ", ".join(f"{v * MM:.4g}" for v in h["location_link_m"]) + ")",
                         "time": number(summary, (*key, "time_s"), unit="s"),
                         "vm": number(summary, (*key, "von_mises_pa"), MPA, "MPa"),
                         "avg": number(summary, (*key, "von_mises_averaged_pa"), MPA, "MPa"),
                         "disc": number(summary, (*key, "stress_discontinuity"), 100.0, "%", digits=3,
                                        none_text="inf"),
                         "face": face or "-",
                         "distance": number(summary, (*key, "distance_to_joint_face_m"), MM, "mm"),
                         "singular": bool(h.get("at_joint_face"))})
        out.append({"link": link, "band": number(summary, ("links", link, "support_band_m"), MM, "mm"),
                    "rows": rows})
    return out
