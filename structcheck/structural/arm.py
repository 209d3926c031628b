"""The arm model (``Study(flexibility="arm")``, the default): the links as Craig-Bampton superelements assembled
along the chain (:mod:`structcheck.flex`), integrated along the motion or solved quasi-statically, stresses
recovered in every link; the per-link model's numbers beside it only when the study asks
(``Study.arm.compare_link_model``)."""
from __future__ import annotations

import numpy as np

from ..checks import ToolPointChecks, arm_basis_warnings
from ..flex.stage import ArmOptions, arm_stage, check_arm_inputs, link_reducers, payload_masses
from ..progress import progress_bar
from .joints import RigidJoints, arm_rigid_joints
from .link import equilibrium_error, link_basis, link_model_peaks, links_in_threads
from .result import LinkReductions, StructuralResult


def arm_options(study) -> ArmOptions:
    """The arm model's inputs from a ``study.Study``."""
    return ArmOptions(n_modes=study.n_modes, damping_ratio=study.damping_ratio, quasi_static=study.quasi_static,
                      joint_stiffness=dict(study.arm.joint_stiffness), max_joint_change=study.arm.max_joint_change,
                      gravity=tuple(study.gravity), tool_point=study.tool_point, payloads=tuple(study.payloads))


class ArmModel:
    """The arm model as a :class:`~structcheck.structural.result.StructuralModel`."""

    name = "arm"

    def check(self, study, chain) -> None:
        check_arm_inputs(chain, study.parts, study.arm.joint_stiffness)

    def reduce(self, study, prep, loads, clock, progress) -> LinkReductions:
        """Per link, in one pass: its per-link basis (its stresses only for the per-link model's peaks beside the
        arm model's; none without ringing samples or the per-link model), then its superelement, which reuses the
        basis's factorization and modes where it holds the same dofs (a link whose only interface is its support, as
        a tool link with point forces on it)."""
        parts = {n: study.parts[n] for n in loads}
        reducers = link_reducers(prep.chain, parts, loads, study.n_modes,
                                 payload_masses(prep.chain.tree, study.payloads, parts))

        # the per-link clamped bases serve the ringing samples and the per-link model beside the arm model only
        need_bases = study.ringing_samples or study.arm.compare_link_model

        def reduce(name):
            kept = []
            basis = (link_basis(study, name, loads[name], stresses=study.arm.compare_link_model, factored=kept.append)
                     if need_bases else None)
            interfaces, superelement = reducers[name]
            # the basis's factor serves the superelement only where it holds the same surfaces; else it goes now,
            # before the superelement's own (two at once per thread would raise the run's peak memory)
            clamped = kept.pop() if kept and set(interfaces) == set(loads[name].support) else None
            kept.clear()
            se = superelement(clamped=clamped)
            parts[name].release_matrices()  # K and M are not used once the link is reduced
            return basis, se

        out = links_in_threads(parts, loads, reduce, "fe_bases",
                               "FE bases and superelements (factorizations, unit loads, modes)", clock, progress)
        return LinkReductions(bases={n: b for n, (b, _) in out.items() if b is not None},
                              superelements={n: se for n, (_, se) in out.items()})

    def note(self, study) -> str:
        how = "quasi-static" if study.quasi_static else "transient"
        beside = ("the per-link model runs beside it for comparison" if study.arm.compare_link_model else
                  "the per-link model's peaks beside it on request: arm=ArmSettings(compare_link_model=True) or --link-model")
        return (f"arm (flexibility='arm': links as superelements assembled along the chain, {how}; links without a "
                f"Part rigid; {beside})")

    def rigid_joints(self, study) -> RigidJoints:
        return arm_rigid_joints(study)

    def solve(self, study, prep, rigid, loads, reduced, frames, clock, progress, finish=None) -> StructuralResult:
        t, body = rigid.t, rigid.body
        companion = (link_model_peaks(study, reduced.bases, loads, t, clock, progress) if study.arm.compare_link_model
                     else None)
        reduced.bases.clear()  # the per-link bases have served (refinement, the companion): release them
        errors = {n: equilibrium_error(study.parts[n], ld) for n, ld in loads.items()}
        with progress_bar(progress, 1, "arm model (superelements, segments, stresses)") as bar, clock("arm"):
            arm = arm_stage(prep.chain, study.parts, body, loads, errors, t, arm_options(study), rigid.point_forces,
                            bar if progress else None, superelements=reduced.superelements, finish=finish,
                            rest=rigid.rest)
        arm_mode = (float(arm.modes_hz[0]), arm.modes_time_s)
        tool = ToolPointChecks(arm.tool_deflection, *arm_mode) if study.tool_point else None
        # the arm model carries the loops' loads through the links' compliance and counts their stiffness: the
        # per-link model's warnings about the minimum-norm split and the tree-only tool deflection do not apply
        warnings = [] if study.quasi_static else arm_basis_warnings(arm.cutoff_hz, prep.grid.shortest_ramp)
        return StructuralResult(
            solutions=arm.solutions, tool=tool, arm_mode=arm_mode, undetermined=np.zeros_like(body.undetermined),
            tree_only_tool_deflection=False, arm_dynamics="not captured" if study.quasi_static else "integrated",
            warnings=warnings, arm=arm, link_model=companion)
