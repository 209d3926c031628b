"""Joint loads of a study's rigid-body stage, for comparing a study with its ADAMS round trip."""
from __future__ import annotations

import numpy as np

from structcheck.study import Study, prepare, rigid_stage


def joint_loads(study: Study, t: np.ndarray) -> dict:
    """joint name -> (tau (n_t,) [N m or N] or None for a fixed joint, wrench (n_t, 6) world axes at the child
    frame's origin [N, N m]) from the rigid-body stage on the samples ``t``."""
    prep = prepare(study)
    body = rigid_stage(study, prep, t).body
    dyn, tree = body.dynamics, prep.chain.tree
    out = {}
    for k, name in enumerate(dyn.joint_names):
        tau = body.tau[:, tree.dof_names.index(name)] if name in tree.dof_names else None
        out[name] = (tau, dyn.joint_wrenches_world[:, k])
    return out


def imported_study(model, like: Study, moving: bool = False) -> Study:
    """A Study of the ADAMS model ``model`` (AdamsModel) with ``like``'s time span and initial state (a dataset
    has neither; ``moving``: under way at t = 0 whatever ``like``'s, for laws sampled into splines, whose end slopes
    are not exactly 0), no parts (rigid stage only)."""
    state = {"initial_state": "moving" if moving else like.initial_state} if hasattr(like, "initial_state") else {}
    return Study(name=like.name, robot=model.robot, motion=model.motion, parts={}, t_end=like.t_end,
                 point_forces=model.point_forces, gravity=model.gravity, inertia_from_meshes=False, **state)
