"""A study: robot + motion + loads + FE settings -> verdict. This module only wires the stages together.

    robot ──> motion ──> inverse dynamics ──> link loads ──> structural model ──> checks, verdict ──> results

Each stage is a function from dataclasses to a dataclass: :func:`prepare` (inputs checked, mesh inertials, laws,
time grid) -> :func:`rigid_stage` (``rigid.stage.RigidBody``) -> :func:`link_loads` (``loads.LinkLoads`` per link)
-> the structural model the study names (:mod:`structcheck.structural`: per-link or arm, chosen once), its
``reduce`` (``structural.LinkReductions``: each link's per-link modes, the arm model's superelements) ->
:func:`refine` (samples where the links ring) -> its ``solve`` (``structural.StructuralResult``; each link's
fatigue and results formed as its solution comes) -> ``checks`` (verdict, warnings) -> ``results`` (summary,
files). Study scripts are imported by :mod:`structcheck.script`.

A study script builds a :class:`Study` at module level (so ``structcheck run`` can import it) and writes files
only under ``if __name__ == "__main__":``.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from . import loads as linkloads
from .cases.case import Case, check_cases, study_fields  # noqa: F401 (structcheck.study.Case)
from .checks import LinkSolution, failures, run_warnings
from .drives.study import Drive, drive_failures, study_drives, with_drive_stiffness
from .errors import InputError, named_input, require_array, require_number
from .notes import Note
from .fatigue.duty import Duty
from .fatigue.study_inputs import fatigue_inputs, solution_fatigue
from .fe import response as fe
from .motion import TimeGrid, as_law, time_grid
from .results import RunResult, link_result, prepare_output, write_results
from .results.steps import with_peak_steps
from .results.drivetrain_schema import drivetrain_summary
from .results.summary import merge_summary, run_summary
from .pool import return_free_memory
from .progress import RUN_HEADER, Clock, progress_bar
from .rigid.stage import RigidBody, as_chain, rest_body, rigid_body, starts_still
from .settings import ArmSettings, Fatigue, Flexibility, InitialState, SignOff, choice
from .structural import rigid_joints, structural_model
from .user_loads import Payload, PointForce, check_law  # noqa: F401 (structcheck.study.PointForce, Payload)
from .cases.event_loads import EventLoads, check_events, event_loads


@dataclass(frozen=True)
class Study:
    """Everything a run needs.

    ``robot`` is a ``structcheck.Robot`` or a ``structcheck.ClosedChain`` (loops closed by cut
    joints; its independent coordinates are then the driven joints, and each cut joint's interface is a named
    surface on both links it joins). ``motion`` maps joint name -> law (ADAMS expression string, number or law object) giving the offset from
    home [rad or m]; joints not named stay at home. ``parts`` maps link name -> a ``structcheck.Part`` (its mesh
    in the link frame). ``inertia_from_meshes``: link mass properties come from the meshes and densities (the
    robot's own values are replaced, so that the FE loads are in equilibrium). ``damping_ratio`` is the modal
    damping of every mode; ``n_modes`` per link; ``quasi_static`` drops elastic inertia. ``tool_point`` names
    the robot point whose deflection is reported; ``payloads`` are rigid masses held at named points (their
    inertia enters the dynamics and the FE loads); ``payload_mass_kg`` is used only for the arm's lowest-mode
    estimate when the payload is given as a force instead (paper 004: 196 N = 20 kg). The analysis grid holds
    every breakpoint of the laws, ``min_ramp_samples`` samples across every ramp, equal steps of at most
    ``max_step_s`` [s] between breakpoints (default: a quarter of the frame spacing over the time after the arm
    first moves, so that the same study delayed gets the same samples, shifted; :func:`.motion.time_grid`), the
    output frames (the samples nearest ``n_frames`` uniform times), and samples added wherever a
    link's modes ring after a fast load change (``analysis.ringing_samples``) unless ``ringing_samples`` is False
    (the arm model then needs no per-link clamped modes: a factorization and an eigen-solve fewer per link; a quick
    look goes without them). The ParaView files hold the ``n_frames`` frames and each link's peak instant, and with
    ``peak_window_s`` [s] every analysis sample that near each peak (the ringing around it: :mod:`.results.steps`).

    Study-specific results (a paper's own tables, identification errors, ...) come from two optional hooks:
    ``summary_extra(result)`` returns a mapping merged into ``summary.json`` (nested mappings key by key, e.g.
    ``{"checks": {"fk_table_max_error_mm": 1e-12}}``; a key the run already wrote is an error), and
    ``write_extra(result, folder)`` writes further files into the results folder while it is being written (so
    they are part of the same atomic folder). ``result`` is the run's ``RunResult``.

    Durability: ``fatigue`` a :class:`~structcheck.settings.Fatigue` (the duty, the design life and the method;
    None: no fatigue). ``flexibility`` (a :class:`~structcheck.settings.Flexibility` or its name): ``"arm"``
    (default: the links as superelements assembled along the chain and a closed chain's cut joints, integrated along
    the motion or solved quasi-statically: payload swinging on the flexible chain, total deformation relative to
    the ground; links without a Part are rigid; in a closed chain only the actuated joints hold load along their
    axes: :mod:`structcheck.structural.arm`; its options in ``arm``, a :class:`~structcheck.settings.ArmSettings`:
    joint stiffness, re-assembly step, the per-link model beside it) or ``"link"`` (each link solved alone in its
    own frame, supported at its proximal joint: :mod:`structcheck.structural.link`). In the arm model ``payloads``
    are attached masses (their elastic inertia swings on the chain); a payload given as a point force has no mass
    there (``payload_mass_kg`` serves the per-link model's estimate only).

    ``initial_state`` (a :class:`~structcheck.settings.InitialState` or its name): ``"rest"`` (default) the robot
    stands still in its t = 0 pose before the motion, in static equilibrium under gravity and the loads present
    then, so that a jump at t = 0 (a STEP law starts with an acceleration) rings as it would later; ``"moving"``
    the motion is already under way at t = 0 (a segment cut from a longer one): the structure starts in the
    quasi-static state of the loads at t = 0, moving with them.

    ``drives``: joint name -> :class:`~structcheck.drives.study.Drive` (reducer, output bearing, motor, brake from
    the drivetrain catalogue), checked over the motion and in the verdict; the reducer's stiffness goes into the
    arm model unless ``arm.joint_stiffness`` gives the joint's (docs/drivetrain.md).

    ``metadata``: a :class:`~structcheck.settings.SignOff` (project, revision, author, checker, date), shown in the
    report's sign-off block (empty fields as blanks to fill in by hand).

    ``events``: accidental events during the motion (:mod:`structcheck.cases.events`): a ``Collision`` (a
    half-sine force pulse at a point), a ``PayloadRelease`` or ``PayloadPickup`` (a payload's weight and inertia
    leave or load the arm at a given time) (docs/events.md).

    ``cases``: named load cases (:class:`~structcheck.cases.case.Case`: duty or accidental, each a variant of this
    study), run in one go and enveloped into one verdict (:mod:`structcheck.cases.multi`, docs/load_cases.md);
    none: the study is its one case.
    """

    name: str
    robot: Any
    motion: Mapping[str, Any]
    parts: Mapping[str, Any]
    t_end: float
    point_forces: tuple[PointForce, ...] = ()
    payloads: tuple[Payload, ...] = ()
    n_frames: int = 101
    gravity: tuple[float, float, float] = (0.0, 0.0, -9.81)
    damping_ratio: float = 0.02
    n_modes: int = 10
    quasi_static: bool = False
    required_safety_factor: float = 1.5
    deflection_limit_m: float | None = None
    tool_point: str | None = None
    payload_mass_kg: float = 0.0
    inertia_from_meshes: bool = True
    support_band_m: float = 0.01
    min_ramp_samples: int = 10
    max_step_s: float | None = None
    ringing_samples: bool = True
    peak_window_s: float = 0.0
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    metadata: SignOff = SignOff()  # project, revision, author, checker, date: the report's sign-off block
    summary_extra: Callable[[RunResult], Mapping[str, Any]] | None = None
    write_extra: Callable[[RunResult, Path], Any] | None = None
    flexibility: Flexibility = Flexibility.ARM
    arm: ArmSettings = ArmSettings()
    fatigue: Fatigue | None = None
    initial_state: InitialState = InitialState.REST
    drives: Mapping[str, Drive] = field(default_factory=dict)  # joint -> Drive (structcheck.drives.study)
    events: tuple = ()  # Collision, PayloadRelease, PayloadPickup (structcheck.cases.events)
    cases: tuple[Case, ...] = ()

    def __post_init__(self):
        if not (isinstance(self.name, str) and self.name.strip()):
            raise InputError(f"Study name = {self.name!r}: give a non-empty text (it names the results folder)")
        for name, (unit, bounds) in _NUMBERS.items():
            value = getattr(self, name)
            if value is not None or name not in _OPTIONAL:
                require_number(name, value, unit, **bounds)
        for name, kind in (("flexibility", Flexibility), ("initial_state", InitialState)):
            object.__setattr__(self, name, choice(kind, name, getattr(self, name)))
        for name, part in (("arm", ArmSettings), ("fatigue", Fatigue), ("metadata", SignOff)):
            value = getattr(self, name)
            if not (isinstance(value, part) or (name == "fatigue" and value is None)):
                raise InputError(f"{name} = {value!r}: give a structcheck.{part.__name__}(...)"
                                 + (" or None" if name == "fatigue" else ""))
        for name in ("quasi_static", "inertia_from_meshes", "ringing_samples"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise InputError(f"{name} = {getattr(self, name)!r}: give True or False")
        require_array("gravity", self.gravity, (3,), "m/s^2")
        for joint, law in dict(self.motion).items():
            check_law(f"motion of joint {joint!r}", law, "rad or m")
        for what, items, kind in (("point_forces", self.point_forces, PointForce),
                                  ("payloads", self.payloads, Payload)):
            if not all(isinstance(x, kind) for x in items):
                raise InputError(f"{what} = {items!r}: give a tuple of {kind.__name__}(...)")
        check_events(self.events)
        check_cases(self.cases, study_fields(self), self.fatigue is not None)


# Study's numbers: field -> (unit, bounds for require_number); _OPTIONAL may be None. The parts check their own
# (structcheck.settings); how the duty's numbers go together is checked by structcheck.fatigue.duty.
_NUMBERS = {"t_end": ("s", dict(above=0)), "n_frames": ("", dict(whole=True, at_least=2)),
            "damping_ratio": ("", dict(at_least=0)), "n_modes": ("", dict(whole=True, at_least=0)),
            "required_safety_factor": ("", dict(above=0)), "deflection_limit_m": ("m", dict(above=0)),
            "payload_mass_kg": ("kg", dict(at_least=0)), "support_band_m": ("m", dict(at_least=0)),
            "min_ramp_samples": ("", dict(whole=True, at_least=1)), "max_step_s": ("s", dict(above=0)),
            "peak_window_s": ("s", dict(at_least=0))}
_OPTIONAL = ("deflection_limit_m", "max_step_s")


def lazy_study(build: Callable[[], Study]) -> Callable[[str], Study]:
    """A study script's module ``__getattr__`` giving its ``study`` as ``build()``, built on first use and kept:
    ``__getattr__ = lazy_study(build)``. Importing the script (``--help``, ``structcheck run STUDY --help``) then
    builds nothing; ``structcheck run`` and ``module.study`` build it once."""
    built = []

    def __getattr__(name: str) -> Study:
        if name != "study":
            raise AttributeError(f"study script has no attribute {name!r}")
        if not built:
            built.append(build())
        return built[0]

    return __getattr__


MAX_RINGING_SAMPLES = 200_000  # samples a run may add to follow the links' elastic ringing


@dataclass(frozen=True)
class Prepared:
    """A study's inputs made ready: the ``chain`` (``ClosedChain``; an open robot has no cuts) whose tree carries
    the link inertials the run uses, the driven ``laws`` (joint name -> law, offsets from home), the point forces'
    magnitude ``force_laws`` (in ``study.point_forces`` order), the ``payloads`` as the dynamics takes them, the
    analysis ``grid``, the links with a part, in the robot's order (``fe_links``), and the ``duty`` (None: no
    fatigue) with each FE link's fatigue (settings, S-N curves per region) in ``fatigue``."""

    chain: Any
    laws: dict
    force_laws: tuple
    payloads: dict
    grid: TimeGrid
    fe_links: tuple[str, ...]
    duty: Duty | None = None
    fatigue: dict = field(default_factory=dict)
    events: EventLoads = EventLoads()


@dataclass(frozen=True)
class RigidStage:
    """The rigid-body stage on the samples ``t`` (n_t,) [s]: the point forces applied (point name -> (n_t, 3)
    world [N]) and the ``body`` (``RigidBody``: motion, torques, joint wrenches, checks); ``rest`` the same of the
    robot standing still in its first pose before t[0] (one sample), None for a motion already under way."""

    t: np.ndarray
    point_forces: dict
    body: RigidBody
    rest: RigidStage | None = None


def prepare(study: Study) -> Prepared:
    """Check the study's names against its robot and its meshes' placement, take the link inertials from the
    meshes (``inertia_from_meshes``), and build the laws and the analysis grid. InputError names what is wrong."""
    chain = as_chain(study.robot)
    tree = chain.tree
    unknown = sorted(set(study.motion) - set(chain.independent))
    if unknown:
        raise InputError(f"motion names unknown joints {unknown}; the robot's driven joints are "
                         f"{list(chain.independent)}")
    unknown = sorted(set(study.parts) - set(tree.link_names))
    if unknown:
        raise InputError(f"parts name unknown links {unknown}; the robot's links are {tree.link_names}")
    for pf in study.point_forces:
        if pf.point not in tree.points:
            raise InputError(f"point force at unknown point {pf.point!r}; the robot's points are "
                             f"{sorted(tree.points)}")
    structural_model(study).check(study, chain)
    payloads = linkloads.payload_table(study.payloads, tree)
    linkloads.check_part_placement(tree, study.parts, chain.cuts)
    if study.inertia_from_meshes:
        for name, part in study.parts.items():
            mp = part.mass_properties()
            tree = tree.with_link(name, mass=mp.mass, com=mp.com, inertia=mp.inertia_com)
    laws = {j: as_law(study.motion.get(j, 0.0)) for j in chain.independent}
    force_laws = tuple(as_law(pf.magnitude) for pf in study.point_forces)
    events = event_loads(study.events, tree, study.t_end, study.payloads)
    grid = time_grid(list(laws.values()) + list(force_laws) + events.laws, study.t_end, n_frames=study.n_frames,
                     min_ramp_samples=study.min_ramp_samples, max_dt=study.max_step_s)
    fe_links = tuple(n for n in tree.link_names if n in study.parts)
    duty, fatigue = fatigue_inputs(study, fe_links)
    return Prepared(chain=chain.with_tree(tree), laws=laws, force_laws=force_laws, payloads=payloads, grid=grid,
                    fe_links=fe_links, duty=duty, fatigue=fatigue, events=events)


def rigid_stage(study: Study, prep: Prepared, t: np.ndarray) -> RigidStage:
    """Driven motion, point forces and the rigid-body dynamics on the samples ``t``: accelerations are
    right-sided at breakpoints, left-sided at the last sample."""
    side = np.where(t < t[-1], 1, -1)
    driven = prep.chain.independent
    home = np.array([prep.chain.tree.joint(j).home for j in driven])

    def history(j):  # (value, velocity, acceleration) of joint j's law; an error in it names the joint
        law = prep.laws[j]
        with named_input(f"motion of joint {j!r}"):
            return (law.value(t), law.velocity(t),
                    np.where(side > 0, law.acceleration(t, side=1), law.acceleration(t, side=-1)))

    q, qd, qdd = (np.column_stack(x) for x in zip(*map(history, driven)))
    q = home + q
    forces = prep.events.add_forces(linkloads.point_force_histories(study.point_forces, prep.force_laws, t), t)
    body = rigid_body(prep.chain, t, q, qd, qdd, study.gravity, forces, prep.payloads)
    point_forces = forces
    if prep.events.payloads:  # payloads that leave or arrive: their wrench from the motion's kinematics, as a load
        point_forces = prep.events.payload_wrenches(forces, prep.chain.tree, body.dynamics.kinematics, study.gravity, t)
        body = rigid_body(prep.chain, t, q, qd, qdd, study.gravity, point_forces, prep.payloads)
    rest = None
    if study.initial_state is InitialState.REST:
        starts_still(driven, qd)
        forces0 = prep.events.rest_wrenches({p: f[0] for p, f in forces.items()}, prep.chain.tree, study.gravity, t[0])
        rest = RigidStage(t[:1], forces0, rest_body(prep.chain, t[0], q[0], study.gravity, forces0, prep.payloads))
    return RigidStage(t=t, point_forces=point_forces, body=body, rest=rest)


def link_loads(study: Study, prep: Prepared, rigid: RigidStage,
               previous: dict | None = None) -> dict[str, linkloads.LinkLoads]:
    """Every FE link's unit loads and coefficient histories on the rigid stage's samples, with their coefficients
    at rest before t[0] (``LinkLoads.rest``) when the stage has a rest state. The unit loads do not depend on time:
    those of ``previous`` (the loads of the same study on other samples) are reused."""
    previous = previous or {}

    def loads(n, stage, F):
        return linkloads.link_loads(prep.chain, stage.body.dynamics, n, study.parts[n], study.gravity,
                                    stage.point_forces, prep.payloads, unit_loads=F)

    out = {n: loads(n, rigid, previous[n].F if n in previous else None) for n in prep.fe_links}
    if rigid.rest is None:
        return out
    return {n: replace(ld, rest=loads(n, rigid.rest, ld.F).coeff[0]) for n, ld in out.items()}


def refine(study: Study, prep: Prepared, bases: dict, rigid: RigidStage,
           loads: dict) -> tuple[RigidStage, dict, list[Note]]:
    """Add samples where a link's modes ring after a fast load change (at most ``MAX_RINGING_SAMPLES``, evenly
    among those wanted) and redo the rigid stage and the loads on them; returns (rigid stage, loads, notes)."""
    if study.quasi_static or not study.ringing_samples:
        return rigid, loads, []
    extra = np.unique(np.concatenate([
        fe.ringing_samples(bases[n], rigid.t, loads[n].coeff, study.damping_ratio, rest=loads[n].rest)
        for n in prep.fe_links]))
    notes = []
    if len(extra) > MAX_RINGING_SAMPLES:  # e.g. undamped stiff links ringing all along a long motion
        notes.append(Note(f"the links' ringing after fast load changes wants {len(extra)} more samples; "
                          f"{MAX_RINGING_SAMPLES} were added, evenly among them, so peaks of that ringing may read low",
                          advice="for the ringing's peaks: raise damping_ratio, lower n_modes, or set max_step_s"))
        extra = extra[np.linspace(0, len(extra) - 1, MAX_RINGING_SAMPLES).astype(int)]
    if not len(extra):
        return rigid, loads, notes
    fine = rigid_stage(study, prep, np.union1d(rigid.t, extra))
    return fine, link_loads(study, prep, fine, previous=loads), notes


def output_frames(grid: TimeGrid, t: np.ndarray) -> np.ndarray:
    """Indices into ``t`` of the output frames: the grid's uniform frames, as many as the study asks for (kept
    exactly when samples were added); the results store each link's peak sample beside them (:mod:`.results.steps`)."""
    return np.searchsorted(t, grid.t[grid.frame_index]).astype(int)


#: free heap [bytes] worth returning to the OS between the late stages (a large run's; a small one's stays)
FREE_TO_RETURN = 256 << 20


def run(study: Study, out: str | Path | None = None, *, progress: bool = True, write: bool = True,
        vtk: bool = True, plots: bool = True, vtk_format: str = "hdf", quick: bool = False,
        report: bool = False) -> RunResult:
    """Run ``study``; write the results folder to ``out`` (if ``write``); return the RunResult. ``vtk_format``:
    'hdf' (one VTKHDF time series per link) or 'pvd' (.pvd/.vtu frames); ``quick``: the study is a quick look
    (:mod:`structcheck.quick`), said in summary.json; ``report``: also the folder's report.html
    (:mod:`structcheck.report`; the command line writes it unless --no-report). Large arrays reuse the heap's
    freed memory meanwhile (:func:`structcheck.pool.heap_reuse`). A study with ``cases`` returns their
    ``cases.multi.CasesResult`` (its summary the envelope, each case's RunResult in ``cases``)."""
    from .cases.multi import run_cases
    from .pool import heap_reuse

    options = dict(progress=progress, write=write, vtk=vtk, plots=plots, vtk_format=vtk_format, quick=quick,
                   report=report)
    with heap_reuse():  # several load cases: a CasesResult (its summary the envelope), each case's run as below
        return run_cases(study, out, _run, prepare, **options) if study.cases else _run(study, out, **options)


def _run(study: Study, out, *, progress, write, vtk, plots, vtk_format, quick=False, report=False,
         reuse=None) -> RunResult:
    """One run of ``study``; ``reuse``: the links' reductions from a cache (``cases.multi.ReductionCache``)."""
    if out is not None and write:
        prepare_output(out)
    if progress and RUN_HEADER.get():
        _header(study)
    clock = Clock()
    with clock("dynamics"):
        prep = prepare(study)
        with progress_bar(progress, 1, "dynamics") as bar:
            rigid = rigid_stage(study, prep, prep.grid.t)
            bar.update()
        drives = study_drives(study, prep, rigid)
        given, study = study, with_drive_stiffness(study, drives)  # the drives' stiffness in the arm model
    with clock("loads"):
        loads = link_loads(study, prep, rigid)
    model = structural_model(study)
    reduced = (reuse or _reduce)(model, study, prep, loads, clock, progress)
    return_free_memory()  # what the reductions freed (K, M, factors) goes back: the stages after are other threads
    with clock("refine"):
        rigid, loads, notes = refine(study, prep, reduced.bases, rigid, loads)
    t, body = rigid.t, rigid.body
    frames = output_frames(prep.grid, t)
    tree, kin = prep.chain.tree, body.dynamics.kinematics
    links, fatigue = {}, {}

    def finish(sol: LinkSolution) -> LinkSolution:
        """A link's fatigue and results as soon as its solution exists (in the structural stage's threads), then
        the solution without its stress basis: the largest array of a run, not kept for every link at once."""
        check_finite(study, sol)
        with clock("fatigue"):
            fatigue[sol.name] = solution_fatigue(study, prep, sol)
        links[sol.name] = link_result(sol, kin.T_world_link[:, tree.link_names.index(sol.name)], t, frames,
                                      study.required_safety_factor, study.support_band_m, fatigue[sol.name], prep.duty,
                                      applied=loads.get(sol.name))
        return sol.without_stresses()

    structure = model.solve(study, prep, rigid, loads, reduced, frames, clock, progress, finish)
    del reduced  # the links' bases and superelements: the solutions keep what they need
    return_free_memory(FREE_TO_RETURN)  # the recovery's freed stress bases go back before the results are written
    links, steps = with_peak_steps({n: links[n] for n in structure.solutions}, structure.solutions, t, frames,
                                   study.peak_window_s)  # in the robot's order, each at every link's peak too
    tool = structure.tool
    warnings = [*body.warnings, *notes, *run_warnings(
        structure.solutions, tree, body.dynamics.joint_names, structure.undetermined,
        structure.tree_only_tool_deflection, study.tool_point, structure.arm_mode, prep.grid.shortest_ramp,
        structure.arm_dynamics), *structure.warnings]
    tool_max = float(np.linalg.norm(tool.deflection, axis=1).max()) if tool else None
    drives = study_drives(study, prep, rigid, drives)  # checked on the refined samples
    failed = [*failures(links, study.required_safety_factor, tool_max, study.deflection_limit_m),
              *drive_failures(drives)]
    summary = replace(run_summary(given, prep.chain, body, links, structure, failed, warnings,
                                  {**clock.timings, "total": clock.elapsed()}, t, len(frames), prep.duty, quick),
                      drivetrain=drivetrain_summary(drives))
    result = RunResult(
        study_name=study.name, t=t, frame_times=t[steps.index], joint_names=list(body.dynamics.joint_names),
        dof_names=list(tree.dof_names), q=body.q, qd=body.qd, qdd=body.qdd, tau=body.tau,
        joint_wrenches=body.dynamics.joint_wrenches, link_names=list(tree.link_names),
        T_world_link_frames=kin.T_world_link[steps.index], links=links, summary=summary, steps=steps,
        tool_point_deflection=tool.deflection if tool else None, arm_modes=structure.mode_shapes,
        arm_frequencies=structure.arm.frequency_history(t) if structure.arm else None, notes=tuple(warnings),
        drives=drives)
    return _finish(study, result, out if write else None, vtk=vtk, plots=plots, progress=progress,
                   vtk_format=vtk_format, after_summary=(partial(_write_report, renders=not quick) if report else None))


def _reduce(model, *args):
    return model.reduce(*args)


def _header(study: Study) -> None:
    """The run header on stderr: which sparse solver, element geometry and structural model this run's numbers
    come from."""
    from tqdm.auto import tqdm

    from .fe.solvers import default_backend
    from .results.data import element_geometry_note

    tqdm.write(f"study {study.name!r}: sparse solver {default_backend()}; {element_geometry_note(study.parts)}",
               file=sys.stderr)
    tqdm.write(f"structural model: {model_note(study)}", file=sys.stderr)


def _write_report(folder: Path, renders: bool = True) -> None:
    """The review page of a results folder being written (:mod:`structcheck.report`), as `structcheck report`;
    ``renders``: with the static renders for printing (a quick look's page goes without: 5 of its 9 s)."""
    from .report import write_report

    return_free_memory(FREE_TO_RETURN)  # the writers' freed buffers go back before the page's renders take theirs
    write_report(folder, folder / "report.html", renders=renders)


def _finish(study: Study, result: RunResult, out, **write_options) -> RunResult:
    """``result`` with the study's ``summary_extra`` merged in, its results folder written to ``out`` (None: not
    written) with the study's ``write_extra`` files."""
    if study.summary_extra is not None:
        extra = _study_hook(study, "summary_extra", result)
        result = replace(result, summary=merge_summary(result.summary, extra, study.name))
    if out is not None:
        extra_files = None if study.write_extra is None else \
            (lambda res, folder: _study_hook(study, "write_extra", res, folder))
        write_results(result, out, extra_files=extra_files, **write_options)
    return result


def check_finite(study: Study, sol: LinkSolution) -> None:
    """InputError (before any file is written) when a link's stresses overflowed: finite inputs of absurd size (e.g.
    a motion lasting 1e300 s) make the numbers NaN or inf, never a verdict."""
    if not np.isfinite(sol.response.max_von_mises):
        raise InputError(f"study {study.name!r}: the stresses of link {sol.name!r} are not finite (NaN or inf): "
                         f"numbers of absurd size overflowed (t_end = {study.t_end:g} s, or a force, mass or "
                         f"speed); check the study's values and their units")


def model_note(study: Study) -> str:
    """The run header's lines on the structural model: which runs, what it does, and the joints it holds rigid."""
    if not study.parts:
        return "none (the study has no parts: rigid-body dynamics only)"
    return f"{structural_model(study).note(study)}\n{rigid_joints(study).header()}"


def _study_hook(study: Study, name: str, *args):
    """Call the study's hook ``name``; an exception in it is reported as an InputError naming study and hook."""
    try:
        return getattr(study, name)(*args)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"study {study.name!r}: its {name} hook failed: {type(exc).__name__}: {exc}") from exc
