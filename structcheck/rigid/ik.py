"""Inverse kinematics: batch damped least squares for any robot.

Numerical IK (:func:`solve_ik`) drives a named robot point to target positions and, optionally, a tool axis of its
link to target directions or the link frame to target orientations. The task has the dimension of what is asked:

=========================  ====  ===================================================================
targets given              rows  residual (world axes)
=========================  ====  ===================================================================
position                   3     p_target - p [m]
position + axis            5     rotation vector turning the tool axis onto the target axis, its two
                                 components normal to the target axis [rad]
position + rotation        6     rotation vector of R_target R^T [rad]
=========================  ====  ===================================================================

All targets are solved together: every Levenberg-Marquardt iteration is one batched forward kinematics, one
batched Jacobian and one batched SVD over the samples still iterating (no Python loop over samples).

The closed forms of the seed robots are in :mod:`structcheck.rigid.closedform`.

Angles in rad, lengths in m; arrays are sample-first.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..spatial import perpendicular_basis
from .kinematics import forward_kinematics, point_jacobian, resolve_point

LIMIT_MODES = ("respect", "report")


class UnreachableError(InputError):
    """IK found no solution for some targets. ``index`` is the first failing target, ``residual`` its
    (position error [m], angle error [rad]), ``result`` the full :class:`IKResult` (closest configurations)."""

    def __init__(self, message, index=None, residual=None, result=None):
        super().__init__(message)
        self.index = index
        self.residual = residual
        self.result = result


@dataclass(frozen=True)
class IKResult:
    """Batch IK result. ``q`` (n, n_dof) absolute joint values (the closest found where not converged);
    ``converged`` (n,); ``position_error`` (n,) [m]; ``angle_error`` (n,) [rad] (0 for a position task);
    ``iterations`` (n,); ``within_limits`` (n,); ``rank`` (n,) rank of the task Jacobian over the free joints
    at ``q``; ``task`` 'position', 'position+axis' or 'pose'."""

    q: np.ndarray
    converged: np.ndarray
    position_error: np.ndarray
    angle_error: np.ndarray
    iterations: np.ndarray
    within_limits: np.ndarray
    rank: np.ndarray
    task: str


# ------------------------------------------------------------------------------------------ task definition


def as_vectors(x, n, what):
    """(n, 3) from (3,) or (n, 3); n = None takes the count from x."""
    a = np.asarray(x, float)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != 3 or (n is not None and a.shape[0] not in (1, n)):
        want = "(3,) or (n, 3)" if n is None else f"(3,) or ({n}, 3)"
        raise InputError(f"{what} must have shape {want}, got {np.shape(x)}")
    if not np.all(np.isfinite(a)):
        k = int(np.argmax(~np.all(np.isfinite(a), axis=1)))
        raise InputError(f"{what} of target {k} is not finite (NaN or inf)")
    return a if n is None or a.shape[0] == n else np.repeat(a, n, axis=0)


def unit_rows(a, what):
    norm = np.linalg.norm(a, axis=1)
    if np.any(norm < 1e-12):
        k = int(np.argmax(norm < 1e-12))
        raise InputError(f"{what} of target {k} is a zero vector; give a direction")
    return a / norm[:, None]


def _rotvec(R):
    """Rotation vectors (n, 3) of rotation matrices (n, 3, 3), through the quaternion (Shepperd's method: the
    largest of the four candidate pivots, so it is accurate at every angle up to and including pi)."""
    R = np.asarray(R, float)
    r00, r11, r22 = R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]
    piv = np.stack([r00 + r11 + r22, r00, r11, r22], axis=1)
    k = np.argmax(np.stack([piv[:, 0], r00 - r11 - r22, r11 - r00 - r22, r22 - r00 - r11], axis=1), axis=1)
    d21, d02, d10 = R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0], R[:, 1, 0] - R[:, 0, 1]
    s01, s02, s12 = R[:, 0, 1] + R[:, 1, 0], R[:, 0, 2] + R[:, 2, 0], R[:, 1, 2] + R[:, 2, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        w0 = np.sqrt(np.maximum(1 + r00 + r11 + r22, 0)) / 2
        x1 = np.sqrt(np.maximum(1 + r00 - r11 - r22, 0)) / 2
        y2 = np.sqrt(np.maximum(1 - r00 + r11 - r22, 0)) / 2
        z3 = np.sqrt(np.maximum(1 - r00 - r11 + r22, 0)) / 2
        cands = np.stack([
            np.stack([w0, d21 / (4 * w0), d02 / (4 * w0), d10 / (4 * w0)], axis=1),
            np.stack([d21 / (4 * x1), x1, s01 / (4 * x1), s02 / (4 * x1)], axis=1),
            np.stack([d02 / (4 * y2), s01 / (4 * y2), y2, s12 / (4 * y2)], axis=1),
            np.stack([d10 / (4 * z3), s02 / (4 * z3), s12 / (4 * z3), z3], axis=1)], axis=1)
    quat = cands[np.arange(len(k)), k]
    quat *= np.where(quat[:, :1] < 0, -1.0, 1.0)
    v = quat[:, 1:]
    sv = np.linalg.norm(v, axis=1)
    angle = 2 * np.arctan2(sv, quat[:, 0])
    # angle / sin(angle / 2) -> 2 as the angle -> 0
    scale = np.where(sv > 1e-12, angle / np.maximum(sv, 1e-300), 2.0 / np.maximum(quat[:, 0], 1e-300))
    return v * scale[:, None]


class IKTask:
    """Residual and Jacobian of one IK task for all targets (rows of the arrays): robot ``point`` (a name or
    (link name, xyz)) to ``position`` (n, 3) [m, world], optionally the link's ``tool_axis`` onto ``axis`` (n, 3)
    or the link frame onto ``rotation`` (n, 3, 3); see :func:`solve_ik`. Validates every target."""

    def __init__(self, robot, point, position, axis=None, rotation=None, tool_axis=(0.0, 0.0, 1.0)):
        if axis is not None and rotation is not None:
            raise InputError("give either axis= (tool axis direction, 5-D task) or rotation= (full orientation, "
                             "6-D task), not both")
        self.robot = robot
        self.name, self.link, self.xyz = resolve_point(robot, point)
        self.li = robot.link_names.index(self.link)
        self.p = as_vectors(position, None, "target position")
        n = self.p.shape[0]
        self.kind, self.rows = "position", 3
        if axis is not None:
            self.kind, self.rows = "position+axis", 5
            self.a = unit_rows(as_vectors(axis, n, "target axis"), "target axis")
            self.basis = perpendicular_basis(self.a)
            ta = np.asarray(tool_axis, float).reshape(-1)
            if ta.shape != (3,) or not np.linalg.norm(ta) > 0:
                raise InputError(f"tool_axis must be a nonzero (3,) vector in the link frame, got {tool_axis!r}")
            self.tool_axis = ta / np.linalg.norm(ta)
        if rotation is not None:
            self.kind, self.rows = "pose", 6
            R = np.asarray(rotation, float)
            if R.ndim == 2:
                R = R[None]
            if R.ndim != 3 or R.shape[1:] != (3, 3) or R.shape[0] not in (1, n):
                raise InputError(f"target rotation must have shape (3, 3) or ({n}, 3, 3), got {np.shape(rotation)}")
            R = np.broadcast_to(R, (n, 3, 3))
            dev = np.abs(np.einsum("nji,njk->nik", R, R) - np.eye(3)).max(axis=(1, 2))
            bad = ~(dev < 1e-6) | ~(np.linalg.det(R) > 0)
            if bad.any():
                k = int(np.argmax(bad))
                raise InputError(f"target rotation {k} is not a rotation matrix (R^T R - I up to {dev[k]:.2g}, "
                                 f"det {np.linalg.det(R[k]):.4g})")
            self.R = R
        self.n = n

    def subset(self, idx):
        """Target arrays of the samples ``idx``."""
        out = {"p": self.p[idx]}
        if self.kind == "position+axis":
            out.update(a=self.a[idx], basis=self.basis[idx])
        elif self.kind == "pose":
            out["R"] = self.R[idx]
        return out

    def evaluate(self, q, tgt):
        """Residual r (n, rows), Jacobian (n, rows, n_dof), position error [m] and angle error [rad]."""
        Tall = forward_kinematics(self.robot, q)
        T = Tall[:, self.li]
        R = T[:, :3, :3]
        p = R @ self.xyz + T[:, :3, 3]
        J = point_jacobian(self.robot, Tall, (self.link, self.xyz))
        dp = tgt["p"] - p
        pos_err = np.linalg.norm(dp, axis=1)
        if self.kind == "position":
            return dp, J[:, :3], pos_err, np.zeros_like(pos_err)
        if self.kind == "position+axis":
            a = R @ self.tool_axis
            at = tgt["a"]
            c = np.cross(a, at)
            s = np.linalg.norm(c, axis=1)
            ang = np.arctan2(s, np.einsum("ni,ni->n", a, at))
            # rotation vector turning a onto at; for at = -a any normal axis will do
            u = np.where(s[:, None] > 1e-300, c / np.maximum(s, 1e-300)[:, None], tgt["basis"][:, 0])
            e = ang[:, None] * u
            B = tgt["basis"]
            r = np.concatenate([dp, np.einsum("nki,ni->nk", B, e)], axis=1)
            Jt = np.concatenate([J[:, :3], np.einsum("nki,nij->nkj", B, J[:, 3:])], axis=1)
            return r, Jt, pos_err, ang
        e = _rotvec(np.einsum("nij,nkj->nik", tgt["R"], R))
        return np.concatenate([dp, e], axis=1), J, pos_err, np.linalg.norm(e, axis=1)


# ------------------------------------------------------------------------------------------ joint limits


def _limit_arrays(robot):
    lower, upper = robot.lower.copy(), robot.upper.copy()
    revolute = np.array([robot.joint(n).type in ("revolute", "continuous") for n in robot.dof_names])
    return lower, upper, revolute


def wrap_to_limits(q, lower, upper, revolute=None):
    """Shift revolute angles by whole turns into [lower, upper] where a turn fits (others unchanged).

    ``q`` (n, n_dof) [rad or m]; ``lower``, ``upper`` (n_dof,) absolute limits; ``revolute`` (n_dof,) bool mask
    (default all). Returns a new array; values with no equivalent inside the limits are left as they are."""
    q = np.array(q, float)
    lower = np.broadcast_to(np.asarray(lower, float), q.shape)
    upper = np.broadcast_to(np.asarray(upper, float), q.shape)
    rev = np.ones(q.shape[-1], bool) if revolute is None else np.asarray(revolute, bool)
    two_pi = 2 * np.pi
    with np.errstate(invalid="ignore"):
        up = lower + np.mod(q - lower, two_pi)  # the smallest equivalent >= lower
        fits_low = np.isfinite(lower) & (up <= upper)
        down = upper - np.mod(upper - q, two_pi)  # the largest equivalent <= upper
        fits_high = ~np.isfinite(lower) & np.isfinite(upper)
    inside = (q >= lower) & (q <= upper)
    new = np.where(fits_low & ~inside, up, np.where(fits_high & ~inside, down, q))
    return np.where(rev, new, q)


def _project(q, lower, upper, revolute):
    return np.clip(wrap_to_limits(q, lower, upper, revolute), lower, upper)


# ------------------------------------------------------------------------------------------ numerical IK


def solve_ik(robot, point, position, *, axis=None, rotation=None, tool_axis=(0.0, 0.0, 1.0), seed=None,
             locked=(), limits: str = "respect", tol: float = 1e-12, angle_tol: float = 1e-12,
             max_iter: int = 200, damping: float = 1e-6, raise_on_failure: bool = True,
             times=None) -> IKResult:
    """Joint values that bring robot ``point`` to ``position`` (n, 3) or (3,) [m, world], optionally turning the
    link's ``tool_axis`` (link frame, default z) onto ``axis`` (n, 3) or (3,) (5-D task), or the link frame onto
    ``rotation`` (n, 3, 3) or (3, 3) (6-D task).

    Batch Levenberg-Marquardt: ``dq = V diag(s / (s^2 + lambda^2)) U^T r`` from the SVD of the task Jacobian over
    the free joints, lambda adapted per target (divided by 3 after a step that lowers |r|, multiplied by 10 and
    the step retried otherwise), starting from ``damping``. Singular values below 1e-10 of the largest are
    dropped, so a task of lower rank than its row count (paper 004's coaxial wrist) still converges for reachable
    targets. ``seed`` (n_dof,) or (n, n_dof) absolute start values (default: home); ``locked`` joint names held
    at their seed values (e.g. to fix how a redundant arm splits a motion). ``limits='respect'`` keeps every
    iterate inside the joint limits (revolute joints wrapped by whole turns first); ``'report'`` leaves them free
    and reports ``within_limits``. Converged when the position error <= ``tol`` [m] and the angle error <=
    ``angle_tol`` [rad]. With ``raise_on_failure`` an :class:`UnreachableError` names the first target that did
    not converge (``times`` (n,) [s] adds its time to the message); otherwise inspect ``result.converged``.
    """
    if limits not in LIMIT_MODES:
        raise InputError(f"limits must be one of {LIMIT_MODES}, got {limits!r}")
    if not (tol > 0 and angle_tol > 0 and max_iter >= 1):
        raise InputError(f"tol and angle_tol must be > 0 and max_iter >= 1, got {tol}, {angle_tol}, {max_iter}")
    task = IKTask(robot, point, position, axis, rotation, tool_axis)
    n = task.n
    free = free_mask(robot, locked)
    q = _seed_values(robot, seed, n)
    if times is not None:
        times = np.asarray(times, float).reshape(-1)
        if times.shape != (n,):
            raise InputError(f"times must have one value per target ({n}), got {times.shape[0]}")
    lower, upper, revolute = _limit_arrays(robot)
    respect = limits == "respect"
    if respect:
        q = _project(q, lower, upper, revolute)

    everything = np.arange(n)
    r, J, pe, ae = task.evaluate(q, task.subset(everything))
    cost = np.einsum("ni,ni->n", r, r)
    lam = np.full(n, float(damping))
    iters = np.zeros(n, int)
    failed = np.zeros(n, bool)
    for _ in range(max_iter):
        done = (pe <= tol) & (ae <= angle_tol)
        act = np.nonzero(~done & ~failed)[0]
        if not len(act):
            break
        dq = _dls_step(J[act][:, :, free], r[act], lam[act])
        q_try = q[act].copy()
        q_try[:, free] += dq
        if respect:
            q_try = _project(q_try, lower, upper, revolute)
        r_t, J_t, pe_t, ae_t = task.evaluate(q_try, task.subset(act))
        c_t = np.einsum("ni,ni->n", r_t, r_t)
        better = c_t < cost[act]
        acc = act[better]
        q[acc], r[acc], J[acc], pe[acc], ae[acc], cost[acc] = (q_try[better], r_t[better], J_t[better],
                                                              pe_t[better], ae_t[better], c_t[better])
        lam[acc] = np.maximum(lam[acc] / 3.0, 1e-12)
        rej = act[~better]
        lam[rej] *= 10.0
        iters[act] += 1
        # no step of any damping lowers |r|: a local minimum of the residual (or a limit) -- stop trying
        failed |= lam > 1e8
    converged = (pe <= tol) & (ae <= angle_tol)
    s = np.linalg.svd(J[:, :, free], compute_uv=False)
    rank = np.sum(s > 1e-10 * s[:, :1], axis=1) if s.shape[1] else np.zeros(n, int)
    within = np.all((q >= lower - 1e-12) & (q <= upper + 1e-12), axis=1)
    result = IKResult(q=q, converged=converged, position_error=pe, angle_error=ae, iterations=iters,
                      within_limits=within, rank=rank, task=task.kind)
    if raise_on_failure and not converged.all():
        raise _failure(robot, task, result, times, lower, upper, respect)
    return result


def _seed_values(robot, seed, n) -> np.ndarray:
    """Start values (n, n_dof) from ``seed`` (n_dof,) or (n, n_dof) [rad, m], or home when None (a new array)."""
    nd = robot.n_dof
    if seed is None:
        return np.tile(robot.home, (n, 1))
    s = np.asarray(seed, float)
    if s.ndim == 1:
        s = s[None, :]
    if s.ndim != 2 or s.shape[1] != nd or s.shape[0] not in (1, n):
        raise InputError(f"seed must have shape ({nd},) or ({n}, {nd}) for joints {list(robot.dof_names)}, "
                         f"got {np.shape(seed)}")
    if not np.all(np.isfinite(s)):
        raise InputError("seed contains NaN or inf")
    return np.array(np.broadcast_to(s, (n, nd)))


def free_mask(robot, locked) -> np.ndarray:
    """Bool mask (n_dof,) of the joints IK may move: all but the ``locked`` names (InputError for unknown names
    or when nothing is left to move)."""
    if isinstance(locked, str):
        locked = (locked,)
    unknown = [j for j in locked if j not in robot.dof_names]
    if unknown:
        raise InputError(f"locked names unknown joints {unknown}; the robot's movable joints are "
                         f"{list(robot.dof_names)}")
    free = np.array([n not in locked for n in robot.dof_names])
    if not free.any():
        raise InputError("every joint is locked: nothing left for IK to move")
    return free


def _dls_step(J, r, lam):
    """Damped least-squares steps (n, n_free) for Jacobians J (n, m, n_free) and residuals r (n, m)."""
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    keep = s > 1e-10 * s[:, :1]
    f = np.where(keep, s / (s * s + lam[:, None] ** 2), 0.0)
    return np.einsum("nki,nk->ni", Vt, f * np.einsum("nmk,nm->nk", U, r))


def _failure(robot, task, res, times, lower, upper, respect):
    bad = np.nonzero(~res.converged)[0]
    k = int(bad[0])
    when = f"target {k}" + (f" (time {times[k]:g} s)" if times is not None else "")
    what = f"the point {task.name!r} stays {res.position_error[k]:.3g} m from its target position"
    if task.kind != "position":
        what += f" and the {'tool axis' if task.kind == 'position+axis' else 'orientation'} " \
                f"{math.degrees(res.angle_error[k]):.3g} deg off"
    at_limit = [robot.dof_names[i] for i in range(robot.n_dof)
                if respect and (abs(res.q[k, i] - lower[i]) < 1e-9 or abs(res.q[k, i] - upper[i]) < 1e-9)]
    lim = (f"; joints {at_limit} end at their limits (solutions may exist only beyond them)" if at_limit else "")
    msg = (f"IK found no solution for {len(bad)} of {task.n} targets; first: {when}: {what} after "
           f"{res.iterations[k]} iterations (task {task.kind}, Jacobian rank {res.rank[k]}){lim}. The target is "
           f"out of reach, or the iteration stalled far from the seed: check the target or give a closer seed")
    return UnreachableError(msg, index=k, residual=(float(res.position_error[k]), float(res.angle_error[k])),
                            result=res)
