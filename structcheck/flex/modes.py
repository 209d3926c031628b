"""Mode shapes of the assembled arm at one pose, every link placed where the robot is (for ParaView), and the
lowest frequency of the arm along a motion (the frozen poses of the arm transient).

A mode's displacement of link i is Psi_i L_i X[:, k] (link axes), turned into world axes with R_world_link(q).
The global mode shapes X of :meth:`ArmModel.modes` are mass-normalized (X^T M X = I, units m / sqrt(kg) for
translations); the shapes here are scaled so that the largest nodal displacement magnitude over the whole arm is 1
(dimensionless: ParaView's Warp By Vector with a factor in metres shows the mode at that amplitude), and signed so
that the largest component of that node is positive. ``scale_to_mass_normalized`` gives the mass-normalized shape
back: u_mass_normalized = mode_shape * scale [m / sqrt(kg)].
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from ..fe.solvers import single_thread_blas
from .assembly import assemble_arm, chain_parts
from .transient import frozen_models, frozen_segments, segment_middle


@dataclass(frozen=True)
class ArmModeShapes:
    """The lowest modes of the assembled arm at the pose ``q`` (n_dof,) of time ``time_s`` [s].

    ``frequency_hz`` (n,); ``T_world_link`` link -> (4, 4) placement of each link with a superelement;
    ``shapes`` link -> (n, n_nodes, 3) displacement of every node of the link's mesh in world axes, max-normalized
    (module doc); ``scale_to_mass_normalized`` (n,) [m / sqrt(kg)]."""

    frequency_hz: np.ndarray
    time_s: float
    q: np.ndarray
    T_world_link: dict
    shapes: dict
    scale_to_mass_normalized: np.ndarray


def arm_mode_shapes(robot, superelements: dict, q, n: int = 6, joint_stiffness: dict | None = None, attached=(),
                    time_s: float = float("nan"), rigid_inertials=None) -> ArmModeShapes:
    """The lowest ``n`` modes of the arm assembled at joint values q (n_coords,) (see
    :func:`~structcheck.flex.assembly.assemble_arm` for ``robot``, ``joint_stiffness``, ``attached`` and
    ``rigid_inertials``), recovered on every node of every link with a superelement and placed in world axes;
    ``time_s`` [s] is only recorded."""
    from ..rigid.kinematics import forward_kinematics

    q = np.asarray(q, float)
    with single_thread_blas():  # small dense eigenproblem: BLAS threads only wait on each other
        model = assemble_arm(robot, superelements, q, joint_stiffness, attached, rigid_inertials)
        f, X = model.modes(n)
    tree = chain_parts(robot)[0]
    T = forward_kinematics(tree, q)[0]
    T_wl = {name: T[tree.link_names.index(name)] for name in superelements}
    shapes = {}
    for name, se in superelements.items():
        z = X.T @ model.maps[name].T  # (n, n_red)
        u = se.displacement(z)  # (n, n_nodes, 3), link axes
        shapes[name] = u @ T_wl[name][:3, :3].T
    # per mode: the node of largest |u| over the whole arm sets scale and sign
    peak = np.zeros(len(f))
    sign = np.ones(len(f))
    for u in shapes.values():
        mag = np.linalg.norm(u, axis=2)  # (n, n_nodes)
        i = mag.argmax(axis=1)
        better = mag.max(axis=1) > peak
        at = u[np.arange(len(f)), i]  # (n, 3): the node's displacement
        comp = at[np.arange(len(f)), np.abs(at).argmax(axis=1)]
        sign = np.where(better, np.sign(comp), sign)
        peak = np.maximum(peak, mag.max(axis=1))
    scale = peak * sign
    shapes = {name: u / scale[:, None, None] for name, u in shapes.items()}
    return ArmModeShapes(frequency_hz=f, time_s=float(time_s), q=q, T_world_link=T_wl, shapes=shapes,
                         scale_to_mass_normalized=np.abs(scale))


@dataclass(frozen=True)
class FirstModeAlongMotion:
    """The arm's lowest natural frequency at the frozen poses of a motion (the segments of the arm transient):
    ``t`` (n_seg,) [s] the time of each segment's reference pose, ``frequency_hz`` (n_seg,); ``i_min``/``i_max``
    the segments where it is lowest/highest."""

    t: np.ndarray
    q: np.ndarray
    frequency_hz: np.ndarray

    @property
    def i_min(self) -> int:
        return int(np.argmin(self.frequency_hz))

    @property
    def i_max(self) -> int:
        return int(np.argmax(self.frequency_hz))


def first_mode_along_motion(robot, superelements: dict, t, q, max_joint_change: float,
                            joint_stiffness: dict | None = None, attached=(),
                            rigid_inertials=None, on_pose=None) -> FirstModeAlongMotion:
    """Lowest frequency [Hz] of the arm at the reference pose of every frozen segment of the samples t (n_t,) [s],
    q (n_t, n_dof) (:func:`~structcheck.flex.transient.frozen_segments` with ``max_joint_change``, the reference
    pose the middle sample in time, as the arm transient assembles them); ``on_pose(n_poses)`` as each is done."""
    t = np.asarray(t, float)
    q = np.atleast_2d(np.asarray(q, float))
    starts = frozen_segments(q, max_joint_change)
    mids = [segment_middle(t, a, b) for a, b in zip(starts[:-1], starts[1:])]
    with single_thread_blas():
        assemble = partial(assemble_arm, robot, superelements, joint_stiffness=joint_stiffness, attached=attached,
                           rigid_inertials=rigid_inertials)
        f = []
        for model in frozen_models(assemble, q[mids]):
            f.append(model.modes(1)[0][0])
            if on_pose is not None:
                on_pose(len(mids))
    return FirstModeAlongMotion(t=t[mids], q=q[mids], frequency_hz=np.array(f))
