"""``structcheck info STUDY``: what a study is before it runs: its degrees of freedom, every link's material, mass,
mesh and first frequency (held at home under gravity, the per-link model), and the arm's lowest modes (the arm
model at home and its first frequency over the motion's poses), or the per-link model's estimate of the arm's
lowest mode where the study runs the per-link model."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from tqdm.auto import tqdm

from .errors import InputError
from .fe.solvers import single_thread_blas
from .flex.assembly import assemble_arm, reduce_links
from .flex.modes import FirstModeAlongMotion, first_mode_along_motion
from .flex.stage import check_arm_inputs, payload_masses
from .progress import without_run_header
from .rigid.stage import as_chain
from .study import model_note, prepare, rigid_stage, run


def study_info(study, progress: bool = True) -> list[str]:
    """The lines ``structcheck info`` prints for ``study``."""
    chain = as_chain(study.robot)  # an open robot's driven joints are all its movable ones
    lines = [f"study {study.name}: {chain.n_dof} degrees of freedom {list(chain.independent)}, t_end {study.t_end} s",
             *f"structural model: {model_note(study)}".splitlines()]  # the study's, not the helper run's below
    # the robot held at home under gravity alone: link modes and the arm's mode from the chained compliances
    # (per-link model: the arm model's frequencies follow from arm_info without a transient run; no fatigue: info
    # prints none, and a constant stress history makes fatigue count every point, minutes on paper 004)
    at_home = replace(study, motion={}, point_forces=(), t_end=1.0, n_frames=2, n_modes=1, quasi_static=False,
                      flexibility="link", fatigue=None)
    with without_run_header():  # its header would name the per-link model, which the study may not run
        summary = run(at_home, progress=progress, write=False).summary
    lines.append(f"{'link':<12} {'material':<8} {'mass kg':>9} {'nodes':>7} {'elements':>8} {'f1 Hz':>9}")
    for name, L in summary.links.items():
        f1 = L.lowest_frequency_hz if L.lowest_frequency_hz is not None else float("nan")
        lines.append(f"{name:<12} {L.material:<8} {L.mass_kg:9.3f} {L.n_nodes:7d} {L.n_elements:8d} {f1:9.1f}")
    # one lowest-mode figure, from the model the study runs: the arm model's assembled modes, else the per-link
    # model's estimate (two different figures one after the other read as a contradiction)
    arm = arm_info(study, progress=progress) if study.flexibility == "arm" else None
    estimate = summary.arm_lowest_mode_hz
    if arm is None and estimate is not None:
        lines.append(f"arm's lowest mode at home, per-link model's estimate (Rayleigh quotient of the chained link "
                     f"compliances, payload included): {estimate:.1f} Hz")
    if arm is not None:
        lines.append(f"arm model at home (links as superelements, {study.n_modes} fixed-interface modes each, payload "
                     f"{'masses included' if study.payloads else 'forces carry no mass'}): "
                     + ", ".join(f"{f:.1f}" for f in arm.home_hz) + " Hz")
        a = arm.along
        lines.append(f"arm model over the motion ({len(a.t)} poses, re-assembled every {study.arm.max_joint_change:g} "
                     f"rad or m of joint motion): first frequency {a.frequency_hz.min():.1f} to "
                     f"{a.frequency_hz.max():.1f} Hz, lowest at t = {a.t[a.i_min]:.3f} s ({arm.pose_text(a.q[a.i_min])})")
    return lines


@dataclass(frozen=True)
class ArmInfo:
    """The assembled arm's frequencies for ``structcheck info``: ``home_hz`` (n,) [Hz] the lowest at the home pose
    and ``along`` (:class:`~structcheck.flex.modes.FirstModeAlongMotion`) the first at every frozen pose of the
    study's motion on its analysis grid; ``dof_names`` the joints of its q, ``prismatic`` (n_dof,) which are
    prismatic [m] (the others [rad])."""

    home_hz: np.ndarray
    along: FirstModeAlongMotion
    dof_names: tuple
    prismatic: np.ndarray

    def pose_text(self, q) -> str:
        """Joint values q (n_dof,) as 'name value unit' (degrees, mm)."""
        return ", ".join(f"{n} {v * 1e3:.1f} mm" if p else f"{n} {np.degrees(v):.1f} deg"
                         for n, v, p in zip(self.dof_names, q, self.prismatic))


def arm_info(study, n: int = 6, progress: bool = False) -> ArmInfo | None:
    """Lowest ``n`` natural frequencies [Hz] of the assembled arm at the home pose, and its first frequency at the
    frozen poses of the motion (``study.arm.max_joint_change`` on the study's analysis grid, before the refinement
    a run adds where links ring), the links reduced once with ``study.n_modes`` fixed-interface modes and
    body-load residual vectors, ``study.arm.joint_stiffness``, payloads given as masses included, links without a Part
    rigid, a closed chain's passive joints free about their axes. None where the arm model does not apply (no parts,
    a cut joint between two links without a Part). A run's ``arm_modes_hz`` can differ slightly: its superelements
    carry residual vectors of all its loads (point-force patches too). ``progress``: a bar counting the links'
    reductions and the poses."""
    prep = prepare(replace(study, flexibility="link", fatigue=None))
    chain, tree = prep.chain, prep.chain.tree
    if not study.parts:
        return None  # no structure: rigid-body dynamics only
    try:
        check_arm_inputs(chain, study.parts, study.arm.joint_stiffness)
    except InputError:
        return None
    attached = payload_masses(tree, study.payloads, study.parts)
    with tqdm(total=len(study.parts), desc="arm model: superelements", disable=not progress) as bar:
        ses = reduce_links(chain, dict(study.parts), study.n_modes, attached, on_done=lambda _: bar.update())
    js = dict(study.arm.joint_stiffness)
    body = rigid_stage(study, prep, prep.grid.t).body
    inert = body.dynamics.inertials
    q_home = np.array([tree.joint(j).home for j in tree.dof_names])
    with single_thread_blas():
        home = assemble_arm(chain, ses, q_home, js, attached, inert).modes(n)[0]
    with tqdm(desc="arm model: poses of the motion", unit="pose", disable=not progress) as bar:
        along = first_mode_along_motion(chain, ses, prep.grid.t, body.q, study.arm.max_joint_change, js, attached,
                                        inert, on_pose=lambda n: (setattr(bar, "total", n), bar.update()))
    return ArmInfo(home_hz=home, along=along, dof_names=tuple(tree.dof_names),
                   prismatic=np.array([tree.joint(j).type == "prismatic" for j in tree.dof_names]))
