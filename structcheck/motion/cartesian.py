"""Cartesian straight-line motion of a named robot point, solved through inverse kinematics.

A :class:`CartesianLine` moves ``point`` from ``p0`` to ``p1`` (world, m) with the distance travelled along the line
given by a scalar path profile s(t) [m] (any law of structcheck.motion: ``ModifiedTrapezoidal(0, L, v_max,
a_max)`` as paper 000 uses, ``Trapezoidal``, ``Quintic``, an ADAMS expression, ...), optionally holding the tool
axis (``hold='axis'``) or the whole orientation (``hold='pose'``) of the point's link. For every time sample:

* ``q(t)``: IK of ``p0 + s(t) d`` (d the unit direction), Newton-polished to 1e-12 m / 1e-12 rad;
* ``qd = J^+ xd`` with the task Jacobian J over the free joints (rows: point velocity; plus the two components
  of the angular velocity normal to the held axis, or all three for a held pose) and ``xd = (s' d, 0)``;
* ``qdd = J^+ (xdd - Jd qd)`` with ``xdd = (s'' d, 0)``; the bias ``Jd qd`` is the point's acceleration and
  the link's angular acceleration at ``qdd = 0``, from the link kinematics (exact, no finite differences).

The joint motion must be determined by the task: the task Jacobian over the free joints has full column rank
(``locked`` joints are held at their seed values; e.g. paper 004's arm, whose joints 5 and 6 are coaxial, holds
a pose with ``locked=['joint5']`` and an axis with ``locked=['joint5', 'joint6']``).

Between samples nothing is interpolated: every call re-solves the IK at the requested times (seeded from a
cubic Hermite table q(s), q'(s) built along the line at construction by a vectorized continuation from the start
configuration), so value, velocity and acceleration are exact and mutually consistent at any t. Results of the
last few time arrays are cached, so ``Study`` asking each joint law for value, velocity and acceleration solves
once per time grid.

``line.joint_laws()`` gives joint name -> law (offset from home, ``value``/``velocity``/``acceleration(t,
side)``, ``breakpoints`` and ``ramps`` of the profile) to put in ``Study.motion``. Before and after the profile's
span the joints rest at the line's end configurations; a line that does not start at the home pose therefore
starts its study there at t = 0 (no approach motion from home is added).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from ..rigid.ik import IKTask, free_mask, solve_ik
from ..rigid.kinematics import forward_kinematics, jacobian, link_kinematics, resolve_point
from ..spatial import perpendicular_basis
from .laws import as_law

HOLD_MODES = (None, "axis", "pose")


def _vec3(x, what):
    a = np.asarray(x, float)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise InputError(f"{what} must be a finite (3,) vector [m, world], got {x!r}")
    return a


class CartesianLine:
    """Straight line of robot ``point`` from ``p0`` to ``p1`` [m, world] with path profile ``profile`` (distance
    along the line [m], from 0 at the start of its span to |p1 - p0| at its end).

    ``hold``: None (position only, 3 task rows), 'axis' (also keep the link's ``tool_axis`` (link frame) along
    ``axis`` (world), default the axis at the start configuration; 5 rows) or 'pose' (keep the link frame at
    ``rotation`` (3, 3), default its start orientation; 6 rows). ``seed`` (n_dof,) absolute joint values near the
    start configuration (default home): the IK at ``p0`` starts there and the branch found is followed along
    the line. ``locked`` joints stay at their seed values. ``t_end`` [s] is needed only if the profile has no
    breakpoints (its span is [min(breakpoints), max(breakpoints)]). ``node_spacing`` [m] is the spacing of the
    seed table along the line and ``max_step`` [m] the continuation step.

    Construction checks the whole span (``check_samples`` times plus the profile's breakpoints) and raises an
    InputError naming the time when the line leaves the robot's reach, when a joint leaves its limits (through
    ``Robot.check_limits``), or when the arm passes a singular configuration.
    """

    def __init__(self, robot, point, p0, p1, profile, *, hold=None, axis=None, rotation=None,
                 tool_axis=(0.0, 0.0, 1.0), seed=None, locked=(), t_end=None, check_samples=201,
                 node_spacing=0.005, max_step=0.02):
        self.robot = robot
        self.point, self.link, self.xyz = resolve_point(robot, point)
        self.li = robot.link_names.index(self.link)
        self.p0, self.p1 = _vec3(p0, "p0"), _vec3(p1, "p1")
        self.length = float(np.linalg.norm(self.p1 - self.p0))
        if not self.length > 1e-9:
            raise InputError(f"p0 and p1 coincide ({', '.join(f'{x:.6g}' for x in self.p0)} m): a line needs two "
                             f"distinct points")
        self.direction = (self.p1 - self.p0) / self.length
        self.profile = as_law(profile)
        if hold not in HOLD_MODES:
            raise InputError(f"hold must be one of {HOLD_MODES}, got {hold!r}")
        if hold != "axis" and axis is not None or hold != "pose" and rotation is not None:
            raise InputError("axis= goes with hold='axis' and rotation= with hold='pose'")
        self.hold = hold
        self.locked = tuple([locked] if isinstance(locked, str) else locked)
        self.free = free_mask(robot, self.locked)
        self.seed = robot.home if seed is None else robot.check_q(seed, "seed")[0]
        bps = sorted(float(b) for b in getattr(self.profile, "breakpoints", ()))
        if not bps and t_end is None:
            raise InputError("the profile has no breakpoints: give t_end= [s] for the span of the line")
        self.t_start = min(bps) if bps else 0.0
        self.t_stop = max(bps + ([float(t_end)] if t_end is not None else []))
        if not self.t_stop > self.t_start:
            raise InputError(f"the profile's span [{self.t_start:g}, {self.t_stop:g}] s is empty")
        self.breakpoints = tuple(bps)
        self.ramps = tuple(getattr(self.profile, "ramps", ()))

        self._set_held(point, hold, axis, rotation, tool_axis)

        # the profile must run from 0 to L over its span
        t_chk = np.unique(np.concatenate([np.linspace(self.t_start, self.t_stop, int(check_samples)), bps]))
        s_chk = np.asarray(self.profile.value(t_chk), float)
        tol = 1e-9 * self.length
        if abs(s_chk[0]) > tol or abs(s_chk[-1] - self.length) > tol or s_chk.min() < -tol or \
                s_chk.max() > self.length + tol:
            raise InputError(f"the profile must give the distance along the line [m] from 0 at t = {self.t_start:g} s"
                             f" to |p1 - p0| = {self.length:.6g} m at t = {self.t_stop:g} s, staying in between; it "
                             f"gives {s_chk[0]:.6g} to {s_chk[-1]:.6g} m (range {s_chk.min():.6g} to "
                             f"{s_chk.max():.6g} m)")
        self._t_chk, self._s_chk = t_chk, s_chk

        # start configuration and the task's rank there
        start = self._ik(np.zeros(1), self.seed, raise_on_failure=False)
        if not start.converged[0]:
            where = ", ".join(f"{x:.4g}" for x in self.p0)
            raise InputError(f"the start point p0 = ({where}) m (time {self.t_start:g} s) is out of reach of point "
                             f"{self.point!r}: IK from the seed stays {start.position_error[0]:.3g} m and "
                             f"{math.degrees(start.angle_error[0]):.3g} deg off")
        self.q_start = start.q[0]
        J = self._task_jacobian(start.q)[0]
        rank = int(np.sum(np.linalg.svd(J, compute_uv=False) > 1e-9 * np.abs(J).max()))
        n_free = int(self.free.sum())
        if rank < n_free:
            names = [n for n, f in zip(robot.dof_names, self.free) if f]
            raise InputError(f"the task ({self._kind}) fixes only {rank} joint coordinates at the start pose but "
                             f"{n_free} joints are free {names}: their motion along the line is not determined. "
                             f"Lock {n_free - rank} of them (locked=[...]) or hold more of the tool "
                             f"(hold='axis' or 'pose'), or start away from a singular configuration")
        self._build_table(node_spacing, max_step)
        self._cache = {}
        q, _ = self._positions_rates(t_chk)
        robot.check_limits(q, t_chk)

    def _set_held(self, point, hold, axis, rotation, tool_axis):
        """The tool axis and the held axis or orientation (from the seed unless given), validated."""
        R_seed = forward_kinematics(self.robot, self.seed)[0, self.li, :3, :3]
        ta = np.asarray(tool_axis, float).reshape(-1)
        if ta.shape != (3,) or not np.linalg.norm(ta) > 0:
            raise InputError(f"tool_axis must be a nonzero (3,) vector in the link frame, got {tool_axis!r}")
        self.tool_axis = ta / np.linalg.norm(ta)
        self.axis = self.rotation = None
        if hold == "axis":
            a = R_seed @ self.tool_axis if axis is None else _vec3(axis, "axis")
            if not np.linalg.norm(a) > 0:
                raise InputError("axis must be a nonzero vector")
            self.axis = a / np.linalg.norm(a)
            self._basis = perpendicular_basis(self.axis)
        elif hold == "pose":
            self.rotation = R_seed if rotation is None else np.asarray(rotation, float)
            IKTask(self.robot, point, self.p0, rotation=self.rotation)  # validates the matrix

    # ------------------------------------------------------------------ task pieces
    @property
    def _kind(self):
        return {None: "position", "axis": "position+axis", "pose": "pose"}[self.hold]

    def _ik(self, s, seed, raise_on_failure, tol=1e-12, max_iter=200):
        pos = self.p0 + np.outer(s, self.direction)
        kw = {}
        if self.hold == "axis":
            kw = dict(axis=self.axis, tool_axis=self.tool_axis)
        elif self.hold == "pose":
            kw = dict(rotation=self.rotation)
        return solve_ik(self.robot, (self.link, self.xyz), pos, seed=seed, locked=self.locked, limits="report",
                        tol=tol, angle_tol=tol, max_iter=max_iter, raise_on_failure=raise_on_failure, **kw)

    def _task_jacobian(self, q):
        """Task Jacobian over the free joints (n, rows, n_free)."""
        J = jacobian(self.robot, q, (self.link, self.xyz))
        if self.hold == "axis":
            J = np.concatenate([J[:, :3], np.einsum("ki,nij->nkj", self._basis, J[:, 3:])], axis=1)
        elif self.hold is None:
            J = J[:, :3]
        return J[:, :, self.free]

    def _task_vector(self, lin):
        """Task-space vector (n, rows) with ``lin`` (n,) along the line and zero orientation rows."""
        rows = {None: 3, "axis": 5, "pose": 6}[self.hold]
        x = np.zeros((len(lin), rows))
        x[:, :3] = lin[:, None] * self.direction
        return x

    def _time_of(self, s):
        """The first time of the check grid at which the profile reaches distance s."""
        k = int(np.argmax(self._s_chk >= s - 1e-12)) if np.any(self._s_chk >= s - 1e-12) else -1
        return float(self._t_chk[k])

    # ------------------------------------------------------------------ seed table along the line
    def _build_table(self, node_spacing, max_step):
        L = self.length
        n_nodes = max(9, int(math.ceil(L / node_spacing)) + 1)
        s = np.linspace(0.0, L, n_nodes)
        q = np.tile(self.q_start, (n_nodes, 1))
        # continuation: every node's target slides from p0 to its place in small steps, so each node follows
        # the start configuration's branch as long as the line itself stays clear of singularities
        n_stages = max(1, int(math.ceil(L / max_step)))
        for k in range(1, n_stages + 1):
            final = k == n_stages
            res = self._ik(s * k / n_stages, q, raise_on_failure=False, tol=1e-12 if final else 1e-7,
                           max_iter=200 if final else 30)
            q = res.q
        if not res.converged.all():
            j = int(np.argmax(~res.converged))
            lo = s[j - 1] if j else 0.0
            t0, t1 = self._time_of(lo), self._time_of(s[j])
            held = {None: "", "axis": " with its held tool axis", "pose": " with its held orientation"}[self.hold]
            near = ", ".join(f"{x:.4g}" for x in self.p0 + s[j] * self.direction)
            raise InputError(f"the line leaves the reach of point {self.point!r}{held} between {lo:.4g} and "
                             f"{s[j]:.4g} m along it, at time {t0:.4g} to {t1:.4g} s (near ({near}) m): IK stays "
                             f"{res.position_error[j]:.3g} m and {math.degrees(res.angle_error[j]):.3g} deg off there")
        qs = self._rates_from_line(q, np.ones(n_nodes), self._t_for(s))
        self._table = (s, q, qs)

    def _t_for(self, s):
        """Times (n,) at which the profile reaches distances s (n,) (for messages)."""
        return np.interp(s, np.maximum.accumulate(self._s_chk), self._t_chk)

    # ------------------------------------------------------------------ rates
    def _pinv_checked(self, q, t):
        J = self._task_jacobian(q)
        U, sv, Vt = np.linalg.svd(J, full_matrices=False)
        cond = sv[:, -1] / sv[:, 0]
        bad = cond < 1e-7
        if bad.any():
            k = int(np.argmax(bad))
            raise InputError(f"the line passes a singular configuration of the arm at time {t[k]:g} s (task "
                             f"Jacobian condition {1 / cond[k]:.3g}): joint rates would be unbounded; move the line")
        return J, np.einsum("nki,nk,nmk->nim", Vt, 1.0 / sv, U)

    def _rates_from_line(self, q, lin, t):
        """Free-joint rates solving J qd = (lin d, 0) exactly (checked), full (n, n_dof) with locked = 0."""
        J, Jp = self._pinv_checked(q, t)
        x = self._task_vector(lin)
        qf = np.einsum("nim,nm->ni", Jp, x)
        self._check_consistent(J, qf, x, t, "velocity")
        out = np.zeros((len(q), self.robot.n_dof))
        out[:, self.free] = qf
        return out

    def _check_consistent(self, J, qf, x, t, what):
        res = np.linalg.norm(np.einsum("nmi,ni->nm", J, qf) - x, axis=1)
        scale = np.linalg.norm(x, axis=1) + 1e-12
        bad = res > 1e-8 * scale
        if bad.any():
            k = int(np.argmax(bad))
            raise InputError(f"at time {t[k]:g} s the arm cannot follow the line's {what} with the held "
                             f"{'axis' if self.hold == 'axis' else 'orientation'} (least-squares residual "
                             f"{res[k]:.3g}); the task leaves the arm's reachable set there")

    # ------------------------------------------------------------------ evaluation
    def _positions_rates(self, t):
        """q and qd (n, n_dof) at times t (n,), cached with what qdd needs."""
        key = t.tobytes()
        if key in self._cache:
            c = self._cache[key]
            return c["q"], c["qd"]
        s = np.asarray(self.profile.value(t), float)
        sd = np.asarray(self.profile.velocity(t), float)
        tol = 1e-9 * self.length
        bad = (s < -tol) | (s > self.length + tol)
        if bad.any():
            k = int(np.argmax(bad))
            raise InputError(f"the profile gives {s[k]:.6g} m at time {t[k]:g} s, outside the line's 0 to "
                             f"{self.length:.6g} m")
        seed = _hermite(*self._table, np.clip(s, 0.0, self.length))
        seed[:, ~self.free] = self.q_start[~self.free]
        res = self._ik(s, seed, raise_on_failure=False)
        jump = np.abs(res.q - seed).max(axis=1)
        bad = ~res.converged | (jump > 0.05)
        if bad.any():
            k = int(np.argmax(bad))
            why = (f"IK stays {res.position_error[k]:.3g} m and {math.degrees(res.angle_error[k]):.3g} deg off"
                   if not res.converged[k] else f"the solution jumps {jump[k]:.3g} rad off the tracked branch")
            raise InputError(f"at time {t[k]:g} s ({s[k]:.4g} m along the line) point {self.point!r} cannot "
                             f"follow the line: {why}")
        q = res.q
        J, Jp = self._pinv_checked(q, t)
        x = self._task_vector(sd)
        qf = np.einsum("nim,nm->ni", Jp, x)
        self._check_consistent(J, qf, x, t, "velocity")
        qd = np.zeros_like(q)
        qd[:, self.free] = qf
        bias = self._bias(q, qd)
        if len(self._cache) >= 4:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = {"q": q, "qd": qd, "J": J, "Jp": Jp, "bias": bias}
        return q, qd

    def _bias(self, q, qd):
        """Jd qd (n, rows): the task acceleration at qdd = 0, from the link kinematics."""
        kin = link_kinematics(self.robot, q, qd, None)
        R = kin.T_world_link[:, self.li, :3, :3]
        w, al, ao = kin.omega[:, self.li], kin.alpha[:, self.li], kin.a_origin[:, self.li]
        r = np.broadcast_to(self.xyz, w.shape)
        a_p = np.einsum("nij,nj->ni", R, ao + np.cross(al, r) + np.cross(w, np.cross(w, r)))
        alpha = np.einsum("nij,nj->ni", R, al)
        if self.hold is None:
            return a_p
        if self.hold == "axis":
            return np.concatenate([a_p, alpha @ self._basis.T], axis=1)
        return np.concatenate([a_p, alpha], axis=1)

    def evaluate(self, t, side=1):
        """Absolute joint values, rates and accelerations (n, n_dof) at times ``t`` (n,) [s]; at a breakpoint of
        the profile ``side=+1`` gives the right-hand acceleration, ``-1`` the left-hand one. Joint limits are
        checked (InputError naming joint and time)."""
        t = _times(t)
        q, qd = self._positions_rates(t)
        c = self._cache[t.tobytes()]
        try:
            sdd = np.asarray(self.profile.acceleration(t, side=side), float)
        except TypeError:
            sdd = np.asarray(self.profile.acceleration(t), float)
        x = self._task_vector(sdd) - c["bias"]
        qf = np.einsum("nim,nm->ni", c["Jp"], x)
        self._check_consistent(c["J"], qf, x, t, "acceleration")
        qdd = np.zeros_like(q)
        qdd[:, self.free] = qf
        self.robot.check_limits(q, t)
        return q, qd, qdd

    def joint_laws(self) -> dict:
        """Joint name -> law of the joint's offset from home along the line, for ``Study.motion``."""
        return {name: LineJointLaw(self, k) for k, name in enumerate(self.robot.dof_names)}

    def __repr__(self):
        p0, p1 = (", ".join(f"{x:.4g}" for x in p) for p in (self.p0, self.p1))
        return (f"CartesianLine({self.point!r}, ({p0}) -> ({p1}) m, hold={self.hold!r}, "
                f"span {self.t_start:g}-{self.t_stop:g} s)")


def _hermite(x, y, dy, xi):
    """Piecewise cubic Hermite interpolation of y (n, m) with slopes dy (n, m) at nodes x (n,), at points xi."""
    k = np.clip(np.searchsorted(x, xi, side="right") - 1, 0, len(x) - 2)
    h = x[k + 1] - x[k]
    u = ((xi - x[k]) / h)[:, None]
    h = h[:, None]
    return ((1 + 2 * u) * (1 - u) ** 2 * y[k] + u * (1 - u) ** 2 * h * dy[k]
            + u * u * (3 - 2 * u) * y[k + 1] - u * u * (1 - u) * h * dy[k + 1])


def _times(t):
    t = np.asarray(t, float).reshape(-1)
    if not np.all(np.isfinite(t)):
        raise InputError("time values must be finite numbers (found NaN or inf)")
    return t


class LineJointLaw:
    """One joint's offset from home [rad or m] along a :class:`CartesianLine` (a motion law for ``Study.motion``):
    ``value(t)``, ``velocity(t)``, ``acceleration(t, side=+1)`` with the shape of t; ``breakpoints`` and
    ``ramps`` of the line's profile."""

    def __init__(self, line: CartesianLine, k: int):
        self.line, self.k = line, k
        self.joint = line.robot.dof_names[k]
        self.home = float(line.robot.home[k])
        self.breakpoints = line.breakpoints
        self.ramps = line.ramps

    def _get(self, t, what, side=1):
        shape = np.shape(t)
        q, qd, qdd = self.line.evaluate(t, side) if what == 2 else (*self.line._positions_rates(_times(t)), None)
        if what == 0:
            out = q[:, self.k] - self.home
        else:
            out = (qd, qdd)[what - 1][:, self.k]
        return out.reshape(shape)

    def value(self, t):
        """The joint's offset from its home value [rad or m] at times ``t`` [s] (scalar or array; same shape
        out), from the line's inverse kinematics."""
        return self._get(t, 0)

    def velocity(self, t):
        """The joint's rate [rad/s or m/s] at ``t`` [s] (same shape as t)."""
        return self._get(t, 1)

    def acceleration(self, t, side=1):
        """The joint's acceleration [rad/s^2 or m/s^2] at ``t`` [s] (same shape as t); at a breakpoint of the
        line's profile ``side=+1`` gives the right limit, ``side=-1`` the left one."""
        return self._get(t, 2, side)

    def __repr__(self):
        return f"LineJointLaw({self.joint!r} along {self.line!r})"
