"""Mesh convergence of a study's peaks: every link re-meshed finer and re-solved under the same loads, its peak
extrapolated (Richardson, :mod:`structcheck.checks.convergence`) with an estimated discretisation error, and
whether its verdict could flip within that error.

    structcheck converge STUDY [--set NAME=VALUE] [--levels 3] [--factors 1 0.8 0.667] [--link NAME]
                               [--refine global|peak]

Levels: mesh size factors f_k = 1 / (1 + k / 4), k = 0 .. levels - 1 (1, 0.8, 0.667, 0.571, ...); level 0 is the
study's own mesh. Each link is solved alone, in the per-link model (``flexibility='link'``: the link supported at
its proximal joint, loaded by the rigid-body stage's joint wrenches, body loads and forces; its own ringing
samples added; the finer levels are solved on the first level's samples), so a link's levels differ only in
its mesh; fatigue is not run. Its other links keep their meshes
(they enter only through their mass properties).

Where the finer meshes come from. A study script that can re-mesh its parts defines

    def mesh_part(link: str, size_factor: float) -> structcheck.Part

(optionally with a keyword ``study``: the study being checked, e.g. for its ``parameters``) returning the link's
part meshed with every element size (global and local: fillets, refinement balls) times ``size_factor``; a gmsh
generator passes the factor on (``PartBuilder(..., local_size_factor=f)``, as ``meshes/make_paper004_meshes.py``
and ``write_part_meshes`` do), so a fillet meshed at five elements across its quarter circle stays resolved in
proportion. Without ``mesh_part``, a straight-sided part (a linear tet mesh: skfem ``MeshTet``) is
refined uniformly, every tet split into 8 (h halves per level: f = 1, 1/2, 1/4, ..., so at most three levels are
practical; its named surfaces follow their facets), and a curved (tetra10) part is an error: splitting would keep
the coarse mesh's quadratic approximation of the CAD surfaces (the fillet's facets) instead of the CAD geometry,
and it is the geometry a fillet's peak depends on.

``--refine peak`` (:attr:`Refinement.PEAK`) refines only where the peak is: each finer level re-runs the study's
``build()`` with a gmsh Ball size field around the link's peak on its first mesh (``PEAK_BALL_ELEMENTS`` element
sizes h of that mesh in radius, f h inside, growing to the part's own sizes over as much again), so a part of
100,000 nodes is checked at the cost of a few thousand more per level. The link's part must be built there by a
``PartBuilder`` named after the link (as the template study's are). The error estimate is then that of the peak's
neighbourhood: the rest of the mesh stays as it was.

The peak studied is the verdict's: the link's unaveraged max von Mises over its mesh and the analysis grid, with
its safety factor. A link's verdict *may flip* when its required safety factor lies between the safety factors of
the finest peak plus and minus its estimated error. A link is *converged* when that error (the GCI, or without a
monotone trend the scatter of its levels) is within ``tolerance`` (relative); a peak that keeps growing (``not
converging``) sits on a singularity (a clamped edge, a sharp re-entrant corner): its peak away from the support
band is reported beside it. When that peak lies inside the support band (within the study's ``support_band_m`` of
the link's support surfaces) and the away peak is converged, the link's status is *support singularity: converged
away from the support* and its convergence is judged on the away peak (the table says which peak was judged); a
peak that is not converged elsewhere (a sharp corner of the part itself) stays not converged.
"""
from __future__ import annotations

import inspect
import sys
import time
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, Callable

import numpy as np

from .checks.convergence import Convergence, richardson
from .errors import InputError
from .fe.regions import safety_factor as node_safety_factor, with_regions

#: relative error within which a peak counts as converged (the issue's and the README's 3%)
TOLERANCE = 0.03
#: radius of the refined ball around a link's peak, in element sizes of its first mesh there
PEAK_BALL_ELEMENTS = 4.0


class Refinement(Enum):
    """How a link's finer meshes are made: ``GLOBAL``, every element size times f (the script's
    ``mesh_part(link, size_factor)``, else every tet split into 8); ``PEAK``, the link's part re-built by the
    study's ``build()`` with its elements within a ball around its first mesh's peak at f times their size
    there (a gmsh size field: :func:`structcheck.fe.geometry.refined_around`), the rest of the part unchanged."""

    GLOBAL = "global"
    PEAK = "peak"


def level_factors(levels: int) -> tuple[float, ...]:
    """Mesh size factors of ``levels`` levels: 1 / (1 + k / 4), k = 0 .. levels - 1."""
    if not (isinstance(levels, (int, np.integer)) and levels >= 3):
        raise InputError(f"levels must be a whole number of at least 3 (Richardson needs three meshes), got {levels!r}")
    return tuple(1.0 / (1.0 + k / 4) for k in range(int(levels)))


@dataclass(frozen=True)
class LinkLevel:
    """One link solved on one mesh: ``size_factor`` (element size / the study's), ``n_nodes``, the unaveraged
    ``peak_pa`` [Pa] (max von Mises) at ``time_s`` [s] and ``location_link_m`` (3,) [m, link frame], the
    ``safety_factor`` there (strength / governing stress), the nodal-averaged peak ``averaged_peak_pa``, the
    ``stress_discontinuity`` indicator, the peak outside the support band ``peak_away_from_support_pa`` and whether
    the peak lies inside that band (``peak_in_support_band``: within the study's ``support_band_m`` of the link's
    support surfaces); ``seconds`` the solve's wall time."""

    size_factor: float
    n_nodes: int
    peak_pa: float
    time_s: float
    location_link_m: tuple[float, float, float]
    safety_factor: float
    averaged_peak_pa: float
    stress_discontinuity: float
    peak_away_from_support_pa: float
    seconds: float
    peak_in_support_band: bool = False


@dataclass(frozen=True)
class LinkConvergence:
    """A link's ``levels`` (finest last, as solved), the Richardson analysis of its unaveraged ``peak`` and of its
    ``away`` peak (outside the support band), the ``required_safety_factor``, and the verdicts.

    A peak that is not converged, lies inside the support band on the finest mesh, while the peak away from the band
    is converged, is a *support singularity* (a clamped edge's held Poisson contraction: its stress grows without
    bound as the mesh is refined, so no mesh converges it; docs/peaks.md's cantilever): the link is then judged
    converged on its away peak (:attr:`judged`), and its status says so. Whether its verdict may flip is still
    judged on the peak itself, the one the study's verdict uses."""

    name: str
    levels: tuple[LinkLevel, ...]
    peak: Convergence
    away: Convergence | None
    required_safety_factor: float
    tolerance: float

    @property
    def safety_factor_band(self) -> tuple[float, float]:
        """Safety factors of the finest peak plus and minus its estimated error (lowest, highest)."""
        sf = self.levels[-1].safety_factor * self.levels[-1].peak_pa  # = strength for the governing stress
        hi_stress, lo_stress = self.peak.finest + self.peak.error, max(self.peak.finest - self.peak.error, 0.0)
        return sf / hi_stress, (sf / lo_stress if lo_stress > 0 else float("inf"))

    @property
    def passes(self) -> bool:
        return self.levels[-1].safety_factor >= self.required_safety_factor

    @property
    def may_flip(self) -> bool:
        lo, hi = self.safety_factor_band
        return lo < self.required_safety_factor <= hi

    def _within(self, c: Convergence) -> bool:
        return c.status != "not converging" and c.relative_error <= self.tolerance

    @property
    def support_singularity(self) -> bool:
        """The peak not converged, inside the support band on the finest mesh, the peak away from it converged."""
        return (not self._within(self.peak) and self.levels[-1].peak_in_support_band and self.away is not None
                and self._within(self.away))

    @property
    def judged(self) -> Convergence:
        """The peak the convergence verdict is judged on: the away peak for a support singularity, else the peak."""
        return self.away if self.support_singularity else self.peak

    @property
    def judged_name(self) -> str:
        """Which peak :attr:`judged` is, as the JSON reports name it: 'away_from_support' or 'peak'."""
        return "away_from_support" if self.support_singularity else "peak"

    @property
    def converged(self) -> bool:
        return self._within(self.judged)

    @property
    def status(self) -> str:
        """'converged', 'support singularity: converged away from the support', or 'NOT converged (why)'."""
        if self.support_singularity:
            return "support singularity: converged away from the support"
        if self.converged:
            return "converged"
        return "NOT converged (" + (f"error above {100 * self.tolerance:g}%" if self.peak.status != "not converging"
                                    else self.peak.status) + ")"


@dataclass(frozen=True)
class ConvergenceReport:
    """Every link's :class:`LinkConvergence` of a study, its ``size_factors``, how each link's meshes were made,
    and the links whose finer mesh could not be made or read (``failed``: link -> why)."""

    study_name: str
    size_factors: tuple[float, ...]
    links: dict[str, LinkConvergence]
    refinement: dict[str, str]
    failed: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed and all(c.converged and not c.may_flip for c in self.links.values())

    def to_dict(self) -> dict:
        """A JSON-ready summary."""
        return {"study": self.study_name, "size_factors": list(self.size_factors), "ok": self.ok, "failed": self.failed,
                "links": {n: {"refinement": self.refinement[n], "levels": [vars(lv) for lv in c.levels],
                              "peak": convergence_dict(c.peak), "away_from_support": convergence_dict(c.away),
                              "required_safety_factor": c.required_safety_factor, "passes": c.passes,
                              "may_flip": c.may_flip, "converged": c.converged, "status": c.status,
                              "judged": c.judged_name,
                              "safety_factor_band": list(c.safety_factor_band)}
                          for n, c in self.links.items()}}


def convergence_dict(c: Convergence | None) -> dict | None:
    """A :class:`~structcheck.checks.convergence.Convergence` as JSON (None stays None)."""
    if c is None:
        return None
    return {"h": c.h.tolist(), "values_pa": c.values.tolist(), "status": c.status, "monotone": c.monotone,
            "order": c.order, "extrapolated_pa": c.extrapolated, "gci": c.gci, "scatter": c.scatter,
            "error_pa": c.error}


def solve_link(study, name: str, t: np.ndarray | None = None) -> tuple[LinkLevel, np.ndarray]:
    """The per-link model's response of the link ``name`` alone, without fatigue, and the samples ``t`` [s] it was
    solved on: the given ones, else the study's analysis grid plus the link's own ringing samples (a finer mesh is
    solved on its coarsest level's samples, so that the levels' peaks are compared at the same instants, not
    moved by a sample more or less on a 10 ms load ramp); the level's size factor is left 1."""
    from . import study as st
    from .structural.link import link_basis, link_solution

    t0 = time.perf_counter()
    study = replace(study, flexibility="link", fatigue=None)
    prep = st.prepare(study)
    if name not in prep.fe_links:
        raise InputError(f"link {name!r} has no part; the study's FE links are {list(prep.fe_links)}")
    prep = replace(prep, fe_links=(name,))
    rigid = st.rigid_stage(study, prep, prep.grid.t if t is None else np.asarray(t, float))
    loads = st.link_loads(study, prep, rigid)
    ld = loads[name]
    bases = {name: link_basis(study, name, ld)}
    if t is None:
        rigid, loads, _ = st.refine(study, prep, bases, rigid, loads)
    sol = link_solution(study, name, bases[name], loads[name], rigid.t)
    part, r = sol.part, sol.response
    sf = node_safety_factor(part, r.vm_envelope_nodes, r.principal_envelope)
    away = part.distance_to_surfaces(list(ld.support)) > study.support_band_m  # (n_nodes,)
    return LinkLevel(
        size_factor=1.0, n_nodes=int(len(part.points)), peak_pa=float(r.max_von_mises),
        time_s=float(rigid.t[r.i_time_max]), location_link_m=tuple(map(float, part.points[r.node_max])),
        safety_factor=float(sf.min()), averaged_peak_pa=float(r.max_von_mises_averaged),
        stress_discontinuity=float(r.stress_discontinuity),
        peak_away_from_support_pa=float(r.vm_envelope_nodes[away].max()) if away.any() else float("nan"),
        seconds=time.perf_counter() - t0, peak_in_support_band=not bool(away[r.node_max])), rigid.t


def split_part(part, times: int = 1):
    """``part`` (straight-sided) with every tet split into 8, ``times`` times (h halves each time); its named
    surfaces follow their facets (each facet's 4 children). InputError for a curved part."""
    from skfem import MeshTet

    from .fe.part import Part

    if part.geometry_order != 1:
        raise InputError(f"part {part.name!r} is curved (tetra10): splitting its elements would keep the coarse "
                         f"mesh's approximation of its curved surfaces; give the study script a "
                         f"mesh_part(link, size_factor) that re-meshes it from its geometry")
    if part.edges:
        raise InputError(f"part {part.name!r} has named lines {list(part.edges)}, which uniform splitting does not "
                         f"carry over; give the study script a mesh_part(link, size_factor)")
    mesh, surfaces = part.mesh, {n: part.surface_facets(n) for n in part.surfaces}
    for _ in range(times):
        fine = MeshTet(mesh.p, mesh.t).refined()
        # the new vertex at the middle of an edge (a, b): found by its coordinates, whatever skfem's numbering
        at = {tuple(x): i for i, x in enumerate(np.round(fine.p.T, 12).tolist())}

        def middle(a, b):
            return np.array([at[tuple(x)] for x in np.round((mesh.p[:, a] + mesh.p[:, b]).T / 2, 12).tolist()])

        facet_of = {f: i for i, f in enumerate(map(tuple, np.sort(fine.facets.T, axis=1).tolist()))}
        new = {}
        for n, facets in surfaces.items():
            v0, v1, v2 = mesh.facets[:, facets]
            m01, m02, m12 = middle(v0, v1), middle(v0, v2), middle(v1, v2)
            kids = np.stack([np.stack(k, 1) for k in ((v0, m01, m02), (v1, m01, m12), (v2, m02, m12),
                                                       (m01, m02, m12))]).reshape(-1, 3)
            new[n] = np.sort([facet_of[tuple(k)] for k in np.sort(kids, axis=1).tolist()])
        mesh, surfaces = fine, new
    regions = getattr(part, "regions", ())
    if any(r.near is None for r in regions):  # element indices do not follow a refined mesh; a distance does
        raise InputError(f"part {part.name!r}: converge needs regions given by near=/within=, not element indices")
    fine_part = Part(mesh, part.material, surfaces, part.name)
    return with_regions(fine_part, regions) if regions else fine_part


def check_splittable(study, names, factors) -> None:
    """One InputError (one line: ``structcheck converge`` exits 2), naming the ``mesh_part`` to add to the study
    script, when the links ``names`` cannot be refined by splitting at the size ``factors``: a curved part or one
    with named lines, or a factor not 1/2^k."""
    times = np.log2(1.0 / np.asarray(factors))
    why = [f"{n} is curved (tetra10)" for n in names if study.parts[n].geometry_order != 1]
    why += [f"{n} has named lines" for n in names if study.parts[n].edges]
    if not np.allclose(times, np.round(times)):
        why.append(f"the size factors {[round(f, 4) for f in factors]} are not 1, 0.5, 0.25, ...")
    if why:
        raise InputError(f"study {study.name!r}: converge re-meshes each link finer: add to the study script "
                         f"`def mesh_part(link, size_factor, study=None)` returning the link's Part meshed with every "
                         f"element size times size_factor (as studies/two_link_arm.py does); splitting the elements "
                         f"instead cannot serve ({'; '.join(why)})")


def refined_parts(study, name: str, factors, mesh_part: Callable | None) -> tuple[Any, str]:
    """The link's parts at the size ``factors`` (the first 1: the study's own), made one at a time (an iterator),
    and a note on how: by the study's ``mesh_part`` hook, or by splitting (factors must then be 1, 1/2, 1/4,
    ...)."""
    if mesh_part is not None:
        extra = {"study": study} if "study" in inspect.signature(mesh_part).parameters else {}
        parts = (study.parts[name] if f == 1.0 else mesh_part(name, float(f), **extra) for f in factors)
        return parts, "the study's mesh_part(link, size_factor)"
    check_splittable(study, [name], factors)
    times = np.log2(1.0 / np.asarray(factors))
    return (split_part(study.parts[name], int(k)) for k in np.round(times)), "uniform splitting (tet into 8)"


def local_size(part, point) -> float:
    """Mean edge length [m] of the elements of ``part`` around its vertex nearest to ``point`` (3,) [m]."""
    vertices = part.mesh.p[:, :part.mesh.nvertices]
    v = int(np.argmin(np.linalg.norm(vertices.T - np.asarray(point, float), axis=1)))
    tets = part.mesh.t[:4, np.any(part.mesh.t[:4] == v, axis=0)]  # (4, k) vertex indices
    x = vertices[:, tets]  # (3, 4, k)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    return float(np.mean([np.linalg.norm(x[:, a] - x[:, b], axis=0) for a, b in pairs]))


def peak_parts(study, name: str, factors, rebuild: Callable, levels: list):
    """The link's parts at the size ``factors`` (an iterator): first the study's own; then, once its first level
    is solved into ``levels``, the part re-built by ``rebuild()`` (the study script's build) with the elements
    within ``PEAK_BALL_ELEMENTS`` element sizes h of that level's peak at f h. InputError when the build makes no
    :class:`~structcheck.fe.geometry.PartBuilder` part named after the link."""
    from .fe.geometry import refined_around

    yield study.parts[name]
    point = levels[0].location_link_m
    h = local_size(study.parts[name], point)
    for f in factors[1:]:
        with refined_around(name, point, f * h, PEAK_BALL_ELEMENTS * h) as ball:
            part = rebuild().parts[name]
        if not ball.parts_built:
            raise InputError(f"link {name!r}: refining around its peak re-builds the study's parts with "
                             f"structcheck.geometry.PartBuilder, and its build() made no PartBuilder named "
                             f"{name!r}; name the link's PartBuilder after the link, or use --refine global")
        yield part


def converge(study, factors, mesh_part: Callable | None = None, links=None, tolerance: float = TOLERANCE,
             progress: bool = True, refine: Refinement = Refinement.GLOBAL,
             rebuild: Callable | None = None) -> ConvergenceReport:
    """Each link of ``links`` (default every FE link) of ``study`` solved on its meshes at the size ``factors``
    (first 1.0, decreasing), its peak analysed: see the module docstring. ``refine``: how the finer meshes are
    made (:class:`Refinement`; ``PEAK`` needs ``rebuild``, a callable building the study again). Progress
    (counts, elapsed and estimated time left, by nodes solved) on stderr unless ``progress`` is False."""
    if not isinstance(refine, Refinement):
        raise InputError(f"refine must be one of {[r.value for r in Refinement]}, got {refine!r}")
    if refine is Refinement.PEAK and rebuild is None:
        raise InputError("refining around the peaks needs the study script's build() to re-build the parts")
    factors = tuple(float(f) for f in factors)
    if len(factors) < 3 or factors[0] != 1.0 or any(b >= a for a, b in zip(factors, factors[1:])) or factors[-1] <= 0:
        raise InputError(f"size factors must start at 1 and decrease, at least three of them, got {list(factors)}")
    if not (isinstance(tolerance, (int, float)) and 0 < tolerance < 1):
        raise InputError(f"tolerance must be a fraction between 0 and 1 (0.03: 3%), got {tolerance!r}")
    names = list(study.parts) if links is None else list(links)
    unknown = sorted(set(names) - set(study.parts))
    if unknown:
        raise InputError(f"links {unknown} have no part; the study's FE links are {list(study.parts)}")
    if mesh_part is not None and "size_factor" not in inspect.signature(mesh_part).parameters:
        raise InputError("the study's mesh_part must take (link, size_factor)")
    # work estimate for the time left: a solve costs about its node count, ~ size_factor^-3 x the study's
    work = {(n, f): len(study.parts[n].points) * f ** -3 for n in names for f in factors}
    total, done, t0, count = sum(work.values()), 0.0, time.perf_counter(), 0
    out, notes, failed = {}, {}, {}
    for name in names:
        levels, samples = [], None
        if refine is Refinement.PEAK:
            parts, notes[name] = (peak_parts(study, name, factors, rebuild, levels),
                                  f"refined within {PEAK_BALL_ELEMENTS:g} elements of each link's peak")
        else:
            parts, notes[name] = refined_parts(study, name, factors, mesh_part)
        for f in factors:
            try:  # a finer mesh that cannot be made or read loses its link, not the others
                part = next(parts)
            except InputError as exc:
                failed[name] = f"size factor {f:.4g}: {exc}"
                if progress:
                    print(f"converge: {name} size factor {f:.3g}: mesh failed: {exc}", file=sys.stderr, flush=True)
                break
            level, t = solve_link(replace(study, parts={**study.parts, name: part}), name, samples)
            level, samples = replace(level, size_factor=f), t if samples is None else samples
            levels.append(level)
            count += 1
            done += work[name, f]
            if progress:
                elapsed = time.perf_counter() - t0
                left = elapsed * (total - done) / done
                print(f"converge: {count}/{len(work)} {name} size factor {f:.3g}: {level.n_nodes:,} nodes, peak "
                      f"{level.peak_pa * 1e-6:.4g} MPa ({level.seconds:.1f} s); {elapsed:.0f} s elapsed, about "
                      f"{left:.0f} s left", file=sys.stderr, flush=True)
        if name in failed:
            continue
        h = np.array(factors)
        peak = richardson(h, [lv.peak_pa for lv in levels])
        away_values = [lv.peak_away_from_support_pa for lv in levels]
        away = richardson(h, away_values) if np.all(np.isfinite(away_values)) else None
        out[name] = LinkConvergence(name=name, levels=tuple(levels), peak=peak, away=away,
                                    required_safety_factor=study.required_safety_factor, tolerance=tolerance)
    return ConvergenceReport(study_name=study.name, size_factors=factors, links=out, refinement=notes, failed=failed)


def format_report(report: ConvergenceReport) -> str:
    """The table ``structcheck converge`` prints: per link the peak at each level, the Richardson estimate with
    its error, the order, the status, the safety-factor band and what to conclude."""
    fs = report.size_factors
    head = (f"{'link':<12} " + " ".join(f"{'f=' + format(f, '.3g'):>9}" for f in fs)
            + f" {'extrap.':>9} {'error':>7} {'order':>5}  {'SF band':>13}  status")
    lines = ["peak von Mises [MPa] of each link on meshes with size factor f (per-link model)", head]
    for n, c in report.links.items():
        lo, hi = c.safety_factor_band
        ext = f"{c.peak.extrapolated * 1e-6:9.4g}" if np.isfinite(c.peak.extrapolated) else f"{'-':>9}"
        order = f"{c.peak.order:5.2f}" if np.isfinite(c.peak.order) else f"{'-':>5}"
        verdict = c.status
        if c.support_singularity:
            verdict += (f" (the peak, in the support band, {c.peak.status}, error {100 * c.peak.relative_error:.1f}%; "
                        f"judged on the peak away from the band, error {100 * c.away.relative_error:.2f}%)")
        if c.may_flip:
            verdict += f"; verdict MAY FLIP (required SF {c.required_safety_factor:g})"
        lines.append(f"{n:<12} " + " ".join(f"{lv.peak_pa * 1e-6:9.4g}" for lv in c.levels)
                     + f" {ext} {100 * c.peak.relative_error:6.2f}% {order}  {lo:6.3g}-{hi:<6.3g}  {verdict}")
        if (not c.converged or c.support_singularity) and c.away is not None:
            lines.append(f"{'':<12} away from the support band: " + " ".join(
                f"{v * 1e-6:.4g}" for v in c.away.values[::-1]) + f" MPa, {c.away.status}"
                + (f", extrapolated {c.away.extrapolated * 1e-6:.4g} MPa +- {100 * c.away.relative_error:.2f}%"
                   if c.away.status == "converging" else ""))
    lines += [f"{n:<12} mesh failed at {why}" for n, why in report.failed.items()]
    lines.append("error: Richardson/GCI (safety factor 1.25) when the trend is monotone, else the scatter of the "
                 "levels; meshes: " + "; ".join(sorted(set(report.refinement.values()))))
    return "\n".join(lines)
