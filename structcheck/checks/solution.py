"""One link's finite-element solution along a run: what the checks (verdict, tool chain) read."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..fe.response import LinkBasis, LinkResponse
from ..loads import LinkLoads


@dataclass(frozen=True)
class LinkSolution:
    """Link ``name``'s ``part`` (mesh and material, link frame), its ``loads``, FE ``basis`` and ``response``
    on the analysis grid; ``modal`` (n_t, n_modes) the mode-acceleration coefficients (no columns when
    quasi-static); ``quasi_static_max_von_mises_pa`` the peak without elastic inertia (NaN when the run is
    quasi-static or the link has no modes); ``equilibrium_error`` the relative residual of its FE loads against
    its support's wrench (``loads.equilibrium_residual``)."""

    name: str
    part: Any
    loads: LinkLoads
    basis: LinkBasis
    response: LinkResponse
    modal: np.ndarray
    quasi_static_max_von_mises_pa: float
    equilibrium_error: float

    def without_stresses(self) -> "LinkSolution":
        """The solution without its basis's stress basis (``basis.S`` None): what the checks read once the link's
        results and fatigue are formed (the stress basis is the largest array of a run)."""
        return replace(self, basis=replace(self.basis, S=None))
