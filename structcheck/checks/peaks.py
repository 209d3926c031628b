"""Whether a link's reported peak stress is converged: the warning a run gives when the elements sharing the peak's
node disagree (the stress-discontinuity indicator of ``fe.response.LinkResponse``)."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..notes import Note
from .solution import LinkSolution

#: Indicator above which a peak is flagged: unaveraged / nodal-averaged von Mises - 1 at the peak's node and time.
DISCONTINUITY_LIMIT = 0.10
NOT_CONVERGED_ADVICE = ("where a peak may not be converged: refine there and compare, or the peak is a support "
                        "singularity (a clamped edge or sharp re-entrant corner, whose stress grows without bound "
                        "with refinement)")


def nearest_surface(part, x: np.ndarray) -> tuple[str, float] | None:
    """The named surface of ``part`` nearest the point x (3,) [m, link frame] and its distance [m] (to the
    surface's nearest node); None when the part has no named surfaces."""
    best = None
    for name in part.surfaces:
        d = float(np.linalg.norm(part.points[part.surface_nodes(name)] - x, axis=1).min())
        if best is None or d < best[1]:
            best = (name, d)
    return best


def discontinuity_warnings(solutions: Mapping[str, LinkSolution], limit: float = DISCONTINUITY_LIMIT) -> list[Note]:
    """One warning per link whose stress-discontinuity indicator exceeds ``limit``, naming the link, the peak's
    location (link frame, mm) and the nearest named surface."""
    warnings = []
    for name, sol in solutions.items():
        r = sol.response
        indicator = r.stress_discontinuity
        if not indicator > limit:
            continue
        x = sol.part.points[r.node_max]
        where = f"({', '.join(f'{v:g}' for v in np.round(x * 1e3, 2) + 0.0)}) mm in the link frame"  # no -0
        near = nearest_surface(sol.part, x)
        if near is not None:
            where += f", {near[1] * 1e3:.3g} mm from surface {near[0]!r}"
        warnings.append(Note(
            f"link {name!r}: its peak von Mises {r.max_von_mises * 1e-6:.4g} MPa at {where} is "
            f"{100 * indicator:.0f}% above the nodal average", subject=name, advice=NOT_CONVERGED_ADVICE,
            detail=f"the nodal average of the elements sharing that node is {r.von_mises_averaged_at_max * 1e-6:.4g} "
                   f"MPa (the link's nodal-averaged peak {r.max_von_mises_averaged * 1e-6:.4g} MPa): the elements "
                   f"disagree there, so the peak may not be converged"))
    return warnings
