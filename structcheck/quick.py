"""A quick look at a study: the same robot, motion and loads on meshes twice as coarse, in a fraction of the time
(``structcheck run STUDY --quick``, ``python STUDY.py --quick``).

The coarser meshes come from the study's own generator: the script's ``mesh_part(link, size_factor, study)``
(as the paper-004 study has, for ``structcheck converge`` too), else every part its ``build()`` makes with
``structcheck.geometry.PartBuilder``, meshed with all element sizes times ``QUICK_SIZE_FACTOR``. A study whose meshes
come from files alone cannot be coarsened and is refused. At most ``QUICK_FRAMES`` output frames are written (the
peaks still come from every analysis sample), and no samples are added where the links ring after fast load
changes (``Study.ringing_samples``: the arm model then needs no per-link clamped modes). summary.json says
``"quick": true``, and ``structcheck compare`` refuses to set a quick run against a full one unless asked
(``--allow-quick``): their differences are the meshes' and the samples'.

How far a quick look is from the full run was measured on the headline study by ``python
benchmarks/bench_quick.py`` (``QUICK_ACCURACY``); the note a quick run prints (:func:`quick_note`) quotes it for that
study only (:data:`QUICK_MEASURED`) and says for any other that it was not measured there, and how to measure it."""
from __future__ import annotations

from dataclasses import replace

from .errors import InputError
from .fe.geometry import coarser_meshes
from .fe.part import deferred_mesh_reading

QUICK_SIZE_FACTOR = 2.0  # element sizes times this: 77,679 nodes instead of 177,883 on paper 004
QUICK_FRAMES = 26  # output frames written at most
# measured by `python benchmarks/bench_quick.py` on studies/loading_unloading_6dof.py
# (benchmarks/results/bench_quick.json, with the gripper's rounded claw edges: full run 142.4 s, quick look 33.5 s;
# peaks -10.8% (forearm) to +19.1% (gripper: its coarse edge rounds, at twice their size, read high where they meet
# the claw-root fillet), tool-point deflection -5.3%)
QUICK_ACCURACY = ("on the headline study a quick look's peaks per link were within 20% of the full run's, in 0.24 of "
                  "its time (`python benchmarks/bench_quick.py`)")
#: the Study fields a quick look sets (summary.json's inputs say so)
QUICK_FIELDS = ("parts", "n_frames", "ringing_samples")
#: study name -> how far its quick look was measured to be from its full run
QUICK_MEASURED = {"loading_unloading_6dof": QUICK_ACCURACY}


def quick_note(study_name: str) -> str:
    """The line a quick run prints after its table: what a quick look leaves out and how accurate it is, as far as
    that was measured for the study ``study_name`` (:data:`QUICK_MEASURED`)."""
    accuracy = QUICK_MEASURED.get(study_name, "its accuracy was not measured for this study: run it without --quick "
                                              "too and compare the two (structcheck compare FULL QUICK --allow-quick)")
    return (f"quick look: meshes {QUICK_SIZE_FACTOR:g}x coarser than the study's, no samples added where the links "
            f"ring; {accuracy}; run without --quick for a verdict to rely on")


def quick_study(module, build_study):
    """The quick study of an imported study script ``module`` whose full study ``build_study()`` returns: its
    parts re-meshed by ``module.mesh_part`` at ``QUICK_SIZE_FACTOR``, else built under :func:`coarser_meshes`;
    InputError when neither coarsens a part."""
    hook = getattr(module, "mesh_part", None) if module is not None else None
    if callable(hook):
        with deferred_mesh_reading():  # the study's own mesh files are replaced unread
            study = build_study()
        parts = {name: hook(name, QUICK_SIZE_FACTOR, study) for name in study.parts}
    else:
        with coarser_meshes(QUICK_SIZE_FACTOR) as coarsening:
            study = build_study()
        parts = study.parts
        if study.parts and not coarsening.parts_built:
            raise InputError(f"study {study.name!r}: --quick needs meshes from a generator, and this study reads its "
                             f"meshes from files: give the script a mesh_part(link, size_factor, study) function "
                             f"that meshes a link at a size factor, or build the parts with "
                             f"structcheck.geometry.PartBuilder in build()")
    return replace(study, parts=parts, n_frames=min(study.n_frames, QUICK_FRAMES), ringing_samples=False)
