"""The per-link model (``Study(flexibility="link")``): each link solved alone in its own moving frame, supported at
its proximal joint, loaded by its body loads and its distal joints' reaction wrenches; the tool point's deflection
chains the links' interface compliances, the arm's lowest mode is estimated from them.

Also the per-link bases every run builds (one factorization, the unit-load solutions and the lowest modes per link:
they say where the links ring, :func:`structcheck.study.refine`), and the per-link model's numbers beside another
model's when a study asks (:func:`link_model_peaks`)."""
from __future__ import annotations

import numpy as np

from .. import loads as linkloads
from ..checks import LinkSolution, tool_point_checks
from ..fe import response as fe
from ..pool import map_in_threads
from ..progress import progress_bar
from .joints import RigidJoints, link_rigid_joints
from .result import LinkModelPeaks, LinkReductions, StructuralResult


def links_in_threads(parts: dict, names, work, stage: str, desc: str, clock, progress: bool) -> dict:
    """``{name: work(name)}`` for the FE links ``names``, as many at a time as the process has cores
    (:func:`structcheck.pool.map_in_threads`, heaviest of ``parts`` first), each timed as ``fe_<link>`` (so those
    wall times overlap) and the whole as ``stage``, with a progress bar ``desc``."""
    def timed(name):
        with clock(f"fe_{name}"):
            return work(name)

    names = list(names)
    with progress_bar(progress, len(names), desc) as bar, clock(stage):
        out = map_in_threads(timed, names, weight=lambda n: parts[n].n_dofs, on_done=lambda n: bar.update())
    return dict(zip(names, out))


def link_bases(study, loads: dict, clock, progress: bool = False) -> dict[str, fe.LinkBasis]:
    """Every FE link's basis (:func:`link_basis`), the links as many at a time as the process has cores
    (:func:`links_in_threads`), so their ``fe_<link>`` wall times overlap; ``fe_bases`` is the whole stage's."""
    def basis(name):
        out = link_basis(study, name, loads[name])
        study.parts[name].release_matrices()  # K and M are not used once the link is reduced
        return out

    return links_in_threads(study.parts, loads, basis, "fe_bases", "FE bases (factorization, unit loads, modes)",
                            clock, progress)


def link_basis(study, name: str, loads: linkloads.LinkLoads, stresses: bool = True, factored=None) -> fe.LinkBasis:
    """Link ``name``'s basis clamped at its support: one factorization, the unit-load solutions and the lowest
    modes (none when quasi-static), with their stress basis when ``stresses`` (the per-link model reads them; the
    arm model needs only where the links ring); ``factored`` as in ``fe.response.build_basis``."""
    return fe.build_basis(study.parts[name], loads.F, list(loads.support), 0 if study.quasi_static else study.n_modes,
                          stresses=stresses, factored=factored)


def equilibrium_error(part, loads: linkloads.LinkLoads) -> float:
    """The relative residual of a link's FE loads against its support's wrench (``loads.equilibrium_residual``,
    relative to the link's size [m] for the moments)."""
    size = float(np.ptp(part.points, axis=0).max())
    return linkloads.equilibrium_residual(fe.load_resultants(part, loads.F), loads, size)


def link_solution(study, name: str, basis: fe.LinkBasis, loads: linkloads.LinkLoads,
                  t: np.ndarray, full_response: bool = True) -> LinkSolution:
    """One link's transient response on the samples ``t`` (mode acceleration from the static equilibrium at rest
    before the motion, ``loads.rest``, or of the first sample moving with the loads for a motion under way), its
    quasi-static peak and the equilibrium residual of its loads. Without ``full_response``
    (the per-link model beside the arm model, which needs only its peak: :func:`link_model_peak`) the response
    (histories, envelopes) is not formed: ``response`` is None."""
    part = study.parts[name]
    modal = (np.zeros((len(t), 0)) if study.quasi_static else
             fe.modal_coefficients(basis, t, loads.coeff, study.damping_ratio, from_equilibrium=True,
                                   rest=loads.rest))
    response = fe.respond(part, basis, loads.coeff, modal, brittle=part.material.criterion == "max_principal") \
        if full_response else None
    qs_max = float("nan")
    if not study.quasi_static and basis.phi.shape[1]:
        qs_max = fe.peak_von_mises(basis, loads.coeff)  # the static part alone, at the element nodes
    return LinkSolution(name=name, part=part, loads=loads, basis=basis, response=response, modal=modal,
                        quasi_static_max_von_mises_pa=qs_max, equilibrium_error=equilibrium_error(part, loads))


def link_solutions(study, bases: dict, loads: dict, t: np.ndarray, full_response: bool, clock,
                   progress: bool = False, finish=None) -> dict[str, LinkSolution]:
    """:func:`link_solution` of every link of ``loads``, as many at a time as the process has cores (each link's
    stress history then on its share of them: the same results), so their ``fe_<link>`` wall times overlap;
    ``fe_response`` is the whole stage's; ``finish(solution) -> solution`` applied to each in its thread."""
    finish = finish or (lambda sol: sol)
    return links_in_threads(
        study.parts, loads,
        lambda n: finish(link_solution(study, n, bases[n], loads[n], t, full_response=full_response)),
        "fe_response", "FE transient response", clock, progress)


def link_model_peak(sol: LinkSolution) -> float:
    """The largest von Mises stress [Pa] of a link's transient response over its samples, as
    ``fe.respond(...).max_von_mises`` gives it (unaveraged, at the element nodes), found by bound-screened exact
    evaluation of the few nodes that can hold it (``fe.peak_von_mises`` on all the basis columns: unit loads, then
    modes)."""
    if sol.response is not None:
        return sol.response.max_von_mises
    return fe.peak_von_mises(sol.basis, np.hstack([sol.loads.coeff, sol.modal]))


def link_model_peaks(study, bases: dict, loads: dict, t: np.ndarray, clock, progress: bool = False) -> LinkModelPeaks:
    """The per-link model's peak, quasi-static peak and first frequency of every link of ``loads`` on the samples
    ``t``, for comparison beside another model (its response histories are not formed)."""
    sols = link_solutions(study, bases, loads, t, False, clock, progress)
    return LinkModelPeaks(
        max_von_mises_pa={n: link_model_peak(s) for n, s in sols.items()},
        quasi_static_max_von_mises_pa={n: s.quasi_static_max_von_mises_pa for n, s in sols.items()},
        lowest_frequency_hz={n: s.basis.omega[0] / (2 * np.pi) if len(s.basis.omega) else float("nan")
                             for n, s in sols.items()})


class LinkModel:
    """The per-link model as a :class:`~structcheck.structural.result.StructuralModel`."""

    name = "link"

    def check(self, study, chain) -> None:
        """The per-link model runs any study the run's other checks accept."""

    def reduce(self, study, prep, loads, clock, progress) -> LinkReductions:
        return LinkReductions(bases=link_bases(study, loads, clock, progress))

    def note(self, study) -> str:
        return "per-link (flexibility='link': each link alone, supported at its proximal joint)"

    def rigid_joints(self, study) -> RigidJoints:
        return link_rigid_joints(study)

    def solve(self, study, prep, rigid, loads, reduced, frames, clock, progress, finish=None) -> StructuralResult:
        t, body = rigid.t, rigid.body
        solutions = link_solutions(study, reduced.bases, loads, t, True, clock, progress, finish)
        tool = None if not study.tool_point else tool_point_checks(
            prep.chain.tree, body.dynamics.kinematics.T_world_link, solutions, study.tool_point, t, frames,
            study.payloads, study.payload_mass_kg, study.gravity)
        arm_mode = (tool.arm_mode_hz, tool.arm_mode_time_s) if tool else (float("nan"), float("nan"))
        return StructuralResult(solutions=solutions, tool=tool, arm_mode=arm_mode, undetermined=body.undetermined,
                                tree_only_tool_deflection=bool(prep.chain.cuts), arm_dynamics="not captured")
