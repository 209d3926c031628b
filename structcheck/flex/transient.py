"""Transient response of the assembled reduced arm along a motion (floating frame of reference, small deformation).

The rigid motion q(t) is prescribed; the global coordinates x of :class:`~structcheck.flex.assembly.ArmModel`
(world-frame motion of the joint nodes, released joint rotations, every link's modal and residual coordinates) are
the elastic deformation about it, with the base clamped:

    M(q) x'' + C x' + K(q) x = sum_links L(q)^T Psi^T F coeff(t),

where F (n_dof, k) and coeff (n_t, k) are a link's loads in link axes as the per-link stage builds them (inertial
body loads of the rigid motion with gravity, point forces, payloads: :mod:`structcheck.loads`) without the joint
wrenches, which are internal forces of the assembly. The superelements are pose-invariant; K, M and L depend on q
only through the link rotations.

Frozen poses: the samples are cut into segments over which no joint moves more than ``max_joint_change`` [rad or
m] from the segment's first sample; each segment uses the model assembled at the joint values of its middle sample
(in time). At a segment boundary the dynamic part of the state (x - K^-1 f, x' - K^-1 f') is carried over with
every link's strain kept (:func:`carried_state`): the new segment starts at its own static solution plus that
dynamic part, so the jump of pose between two frozen models moves the quasi-static deflection without exciting the
arm (carrying x itself would ring at every boundary). A smaller ``max_joint_change`` converges to the continuously
updated model (tests/flex/test_arm_transient.py).

Damping: modal, on the modes of the ASSEMBLED system (all of them: the reduced system is small), ratio ``zeta`` per
mode (a number, or a function of omega [rad/s] such as Rayleigh's (a / omega + b omega) / 2). Each segment's modal
equations are integrated exactly for loads linear between the samples with the step maps and prefix scan of
:func:`structcheck.fe.transient.modal_response`; the first segment starts from the static equilibrium of the first
sample's loads: at rest under the loads that held before the motion (``rest``: a jump at t[0] rings as the same
jump later does), or, for a motion already under way, moving with the loads' initial rate, as the per-link model
does (:func:`structcheck.fe.transient.modal_states_of_loads`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import scipy.linalg as sla

from ..errors import InputError
from ..fe.solvers import single_thread_blas
from ..fe.transient import modal_response
from .assembly import assemble_arm
from .mechanism import check_held, check_resolvable


@dataclass(frozen=True)
class ArmTransient:
    """The arm's elastic response on the samples ``t`` (n_t,) [s].

    ``z`` link -> reduced coordinates (n_t, n_red) of that link's superelement (interface node motion in link
    axes [m, rad], modal and residual coordinates): recover displacements and stresses with the superelement; for
    a rigid link (no Part) the motion (d, theta) (n_t, 6) of its frame origin, link axes.
    ``x`` (n_t, n) global coordinates (their meaning per :attr:`ArmModel.labels`; interface nodes in the world
    axes of the frozen pose of each sample's segment). ``segments`` (n_seg + 1,) sample indices where the frozen
    segments start (the last entry n_t - 1 ends the last one; boundaries belong to both neighbours); ``q_ref``
    (n_seg, n_dof) the joint values each segment is assembled at; ``frequency_hz`` (n_seg, n_freq) the lowest
    natural frequencies of each segment's assembled model. ``z_static`` link -> (n_t, n_red): the quasi-static part
    K^-1 f(t) of each superelement's coordinates (equal to ``z`` for :func:`arm_static`), for the arm-level dynamic
    amplification."""

    t: np.ndarray
    z: dict
    x: np.ndarray
    segments: np.ndarray
    q_ref: np.ndarray
    frequency_hz: np.ndarray
    z_static: dict | None = None


def frozen_segments(q: np.ndarray, max_joint_change: float) -> np.ndarray:
    """Segment starts (n_seg + 1,) into samples of joint values q (n_t, n_dof): the samples before the joints first
    move (when more than one) are the first segment; then each segment runs from its start while no joint differs
    from its value at the start by more than ``max_joint_change``; the last entry is n_t - 1. One vectorized
    search per segment (no loop over samples)."""
    q = np.atleast_2d(np.asarray(q, float))
    if not max_joint_change > 0:
        raise InputError(f"max_joint_change must be > 0 (rad or m), got {max_joint_change}")
    n_t = len(q)
    # the arm standing still before it moves is a segment of its own: its pose is the start's whatever its length,
    # and the motion's segments then fall where they fall when the same motion starts at t = 0 (delay invariance)
    moved = np.flatnonzero(np.any(q != q[0], axis=1)) if q.shape[1] else np.zeros(0, int)
    still = int(moved[0]) - 1 if len(moved) else 0
    starts = [0, still] if still > 0 else [0]
    while n_t > 1:
        a = starts[-1]
        dev = np.abs(q[a + 1:] - q[a]).max(axis=1) if q.shape[1] else np.zeros(n_t - a - 1)
        over = np.flatnonzero(dev > max_joint_change)
        if not len(over):
            break
        starts.append(a + max(int(over[0]), 1))  # the last sample still within the limit (at least one step)
    if starts[-1] != n_t - 1 or n_t == 1:
        starts.append(n_t - 1)
    return np.asarray(starts)


def _zeta(damping, omega: np.ndarray) -> np.ndarray:
    zeta = damping(omega) if callable(damping) else np.full_like(omega, float(damping))
    zeta = np.broadcast_to(np.asarray(zeta, float), omega.shape)
    if np.any(zeta < 0) or not np.all(np.isfinite(zeta)):
        raise InputError(f"damping ratios must be finite and >= 0, got {zeta}")
    return zeta


def reduced_loads(superelements: dict, loads: dict) -> dict:
    """Per link, its loads projected on its basis: link -> (Psi^T F (n_red, k) [N per unit coefficient],
    coeff (n_t, k)). ``loads``: link -> (F (n_dof, k) [N], coeff (n_t, k)), link axes. A link without a
    superelement (rigid) takes F (6, k): the wrench (force [N], moment about its frame origin [N m], link axes) per
    unit coefficient."""
    out = {}
    for name, (F, coeff) in loads.items():
        F = np.asarray(F, float)
        coeff = np.atleast_2d(np.asarray(coeff, float))
        n = superelements[name].Psi.shape[0] if name in superelements else 6
        if F.shape[0] != n or F.shape[1] != coeff.shape[1]:
            raise InputError(f"link {name!r}: loads F {F.shape} and coeff {coeff.shape} do not match the part's "
                             f"{n} dofs (6 for a rigid link) or each other's columns")
        out[name] = (superelements[name].Psi.T @ F if name in superelements else F, coeff)
    return out


def arm_transient(robot, superelements: dict, t, q, loads: dict, damping=0.02, joint_stiffness: dict | None = None,
                  attached=(), max_joint_change: float = 0.05, n_frequencies: int = 6,
                  rigid_inertials=None, on_segment=None, rest: dict | None = None) -> ArmTransient:
    """Elastic response of the assembled arm along the motion (module doc).

    ``robot`` a Robot or a ClosedChain; ``t`` (n_t,) [s] increasing; ``q`` (n_t, n_coords) the tree's joint
    values (forward-kinematics order); ``loads`` link -> (F (n_dof_link, k) [N], coeff (n_t, k)) in link axes (no
    joint wrenches; a rigid link's F is (6, k), see :func:`reduced_loads`); ``damping`` modal ratio of the
    assembled modes, a number or a function of omega (m,) [rad/s]; ``joint_stiffness``, ``attached``,
    ``rigid_inertials`` as for :func:`~structcheck.flex.assembly.assemble_arm`; ``max_joint_change`` [rad or m]
    the frozen-pose criterion; ``on_segment(n_segments)`` is called as each frozen segment is done (progress).
    ``rest`` link -> (k,) the coefficients of each link's loads before t[0] (every link of ``loads``): the arm
    starts at rest in static equilibrium under them; None: the motion is already under way at t[0] (the
    quasi-static state of the loads at t[0], moving with their initial rate)."""
    assemble = partial(assemble_arm, robot, superelements, joint_stiffness=joint_stiffness, attached=attached,
                       rigid_inertials=rigid_inertials)
    return _along_motion(assemble, superelements, t, q, loads, damping, max_joint_change, n_frequencies, False,
                         on_segment, rest)


def arm_static(robot, superelements: dict, t, q, loads: dict, joint_stiffness: dict | None = None, attached=(),
               max_joint_change: float = 0.05, n_frequencies: int = 6, rigid_inertials=None,
               on_segment=None) -> ArmTransient:
    """Quasi-static response of the assembled arm along the motion (no elastic inertia): K(q) x = f(t) at every
    sample, f the same loads as :func:`arm_transient` takes (the rigid motion's inertial body loads included:
    d'Alembert), K at the frozen poses of ``max_joint_change``. One Cholesky factorization per frozen pose solves
    all the samples of its segment at once. ``frequency_hz`` still holds each frozen pose's lowest natural
    frequencies (to judge whether quasi-static is justified). Arguments as for :func:`arm_transient`."""
    assemble = partial(assemble_arm, robot, superelements, joint_stiffness=joint_stiffness, attached=attached,
                       rigid_inertials=rigid_inertials)
    return _along_motion(assemble, superelements, t, q, loads, 0.0, max_joint_change, n_frequencies, True,
                         on_segment)


def _along_motion(assemble, superelements, t, q, loads, damping, max_joint_change, n_frequencies,
                  static, on_segment=None, rest=None) -> ArmTransient:
    """The segment loop of :func:`arm_transient` and :func:`arm_static`; ``assemble(q)`` the ArmModel at q."""
    t = np.asarray(t, float)
    q = np.atleast_2d(np.asarray(q, float))
    if len(q) != len(t):
        raise InputError(f"len(t) = {len(t)}, but q has {len(q)} samples")
    red = reduced_loads(superelements, loads)
    for name, (_, c) in red.items():
        if len(c) != len(t):
            raise InputError(f"link {name!r}: len(t) = {len(t)}, but its load coefficients have {len(c)} samples")
    if rest is not None:
        if set(rest) != set(red):
            raise InputError(f"rest loads are given for links {sorted(rest)}, the loads for {sorted(red)}")
        rest = {n: (P, np.reshape(np.asarray(rest[n], float), (1, -1))) for n, (P, _) in red.items()}
    starts = off_jumps(frozen_segments(q, max_joint_change), t)
    mids = [segment_middle(t, a, b) for a, b in zip(starts[:-1], starts[1:])]
    z = {n: np.empty((len(t), se.n_red)) for n, se in superelements.items()}
    z_static = z if static else {n: np.empty((len(t), se.n_red)) for n, se in superelements.items()}
    x_all, q_ref, freqs, state = None, [], [], None
    with single_thread_blas():  # small dense matrices: BLAS threads only wait on each other (100x slower loaded)
        models, previous = frozen_models(assemble, q[mids]), None
        for k, (a, b) in enumerate(zip(starts[:-1], starts[1:])):
            model = next(models)
            if k and state is not None:
                state = carried_state(state, previous, model)
            x, state, q_mid, omega = _run_segment(model, t, q[mids[k]], red, a, b, damping,
                                                  state if k else rest, z, z_static, n_frequencies if static else None)
            previous = model
            if x_all is None:
                x_all = np.empty((len(t), x.shape[1]))
            x_all[a:b + 1] = x
            q_ref.append(q_mid)
            freqs.append(omega[:n_frequencies] / (2 * np.pi))
            if on_segment is not None:
                on_segment(len(starts) - 1)
    return ArmTransient(t=t, z=z, x=x_all, segments=starts, q_ref=np.array(q_ref), frequency_hz=np.array(freqs),
                        z_static=z_static)


def carried_state(state: tuple, old, new) -> tuple:
    """The dynamic state (x, x') (each (n,)) of the arm model ``old`` expressed in the coordinates of ``new``, the
    next frozen pose's model.

    The links' modal coordinates and the joints' released motions keep their meaning from pose to pose, but a
    world node's (d, theta) are in WORLD axes. Displacements: every link keeps its strain. The new x is the one whose
    links' coordinates in link axes come nearest the old ones in each link's stiffness norm (and the joints' springs
    theirs): K_new x_new = sum_links L_new^T K_link L_old x + k_spring x_spring, the old elastic forces of every link,
    in its own axes, on the new pose. A link's rigid-body motion carries no strain, so the nodes' shares of the
    arm's deflection are rearranged compatibly, and a pose that does not change carries x unchanged. Each node's
    vectors turned with the link that owns it (the earlier rule) turned the deflection a node shares with the link
    beyond a rolling joint by another rotation than that link's other node: the headline's emergency stop without the
    part's mass (the wrist rolling 3 deg a segment) gained 750 times the wrist's strain energy at one boundary and
    read the gripper 85% high (23.0 against 12.4 MPa; with this rule 0.05 and 0.01 rad agree within 0.9%).
    Velocities: each node's vectors turned with its owner, R_new R_old^T (``ArmModel.nodes``, ``R_world_link``; the
    kinetic energy was kept within 0.1% there)."""
    x, v = (np.array(a, float) for a in state)
    for i, owner in new.nodes:
        turn = new.R_world_link[owner] @ old.R_world_link[owner].T
        for part in (slice(i, i + 3), slice(i + 3, i + 6)):
            v[part] = turn @ v[part]
    forces = np.zeros_like(x)
    for name, L in new.maps.items():
        forces += L.T @ (new.superelements[name].K @ (old.maps[name] @ x))
    for i, k in new.springs:
        forces[i] += k * x[i]
    return sla.solve(new.K, forces, assume_a="pos"), v


def off_jumps(starts: np.ndarray, t: np.ndarray, shortest: float = 1e-6) -> np.ndarray:
    """Segment starts (n_seg + 1,) moved one sample earlier where the step before them is shorter than
    ``shortest`` [s]: the grid's sample just before a breakpoint (:data:`structcheck.motion.grid.JUMP_S`), across
    which the loads jump. The state carried over a boundary subtracts the old pose's quasi-static rate K^-1 f' and
    adds the new pose's, f' the load rate over the step before it: over a jump that rate is the jump / 1e-7 s, and
    the two poses' difference times it would start the new segment with a spurious velocity. One sample earlier
    the jump falls inside a segment, where the modal integration takes it exactly."""
    starts = np.array(starts)
    inner = np.arange(1, len(starts) - 1)
    move = inner[(t[starts[inner]] - t[starts[inner] - 1] < shortest) & (starts[inner] - 1 > starts[inner - 1])]
    starts[move] -= 1
    return starts


def frozen_models(assemble, q: np.ndarray, chunk: int = 8):
    """The models ``assemble(q)`` at the poses q (n_poses, n_coords), one by one, assembled ``chunk`` poses at a
    time: one pass of numpy's stacked products per chunk instead of one Python pass per pose (bit-identical). Small
    chunks keep the stacked K and M in cache: on paper 004's 160 poses (n = 196) 8 poses a chunk took 0.33 s CPU,
    one at a time 0.56 s, all at once 0.5-1.0 s."""
    for c in range(0, len(q), chunk):
        models = assemble(q[c:c + chunk])
        for k in range(len(models.K)):
            yield models.at(k)


def segment_middle(t: np.ndarray, a: int, b: int) -> int:
    """The sample of a..b nearest the middle of t[a]..t[b] in time [s] (a frozen segment's reference pose)."""
    return a + int(np.argmin(np.abs(t[a:b + 1] - 0.5 * (t[a] + t[b]))))


def _run_segment(model, t, q_mid, red, a, b, damping, state, z, z_static, static_frequencies=None):
    """Samples a..b (inclusive) on ``model``, the arm assembled at the segment's middle sample (joint values
    ``q_mid``), from ``state`` (see :func:`_segment`): fills z[link][a:b + 1] and its quasi-static part
    z_static[link][a:b + 1];
    returns x (n_seg, n), the end state (dynamic parts, see :func:`_segment`), the reference q and the assembled
    omega (n,) [rad/s]. ``static_frequencies`` (a count): quasi-static, with that many lowest omega. The first
    segment's model is checked for mechanisms (:func:`~structcheck.flex.mechanism.check_held`), every segment's for
    a first mode too low to resolve (:func:`~structcheck.flex.mechanism.check_resolvable`)."""
    seg = slice(a, b + 1)
    what = f" at t = {t[segment_middle(t, a, b)]:.4g} s"
    if a == 0:
        check_held(model, what)
    if static_frequencies is None:
        x, x_static, end_state, omega = _segment(model, red, t, a, b, damping, state, what)
    else:
        omega = _lowest_omega(model, static_frequencies)
        check_resolvable(model, omega[0] ** 2, what)
        x, end_state = _static_segment(model, red, a, b), None
        x_static = x
    for name, L in model.maps.items():
        z[name][seg] = x @ L.T
        z_static[name][seg] = x_static @ L.T
    for name, L in model.rigid_maps.items():  # a rigid link's origin motion (d, theta), link axes
        z.setdefault(name, np.full((len(t), 6), np.nan))[seg] = x @ L.T
    return x, end_state, q_mid, omega


def _segment_loads(model, red: dict, lo: int, b: int) -> np.ndarray:
    """Global loads f (b + 1 - lo, n) on the samples lo..b of ``red`` (link -> (Psi^T F, coeff)): sum over links of
    L^T Psi^T F c(t)."""
    f = np.zeros((b + 1 - lo, len(model.K)))
    for name, (P, coeff) in red.items():
        L = model.maps[name] if name in model.maps else model.rigid_maps.get(name)
        if L is None:
            raise InputError(f"loads given for link {name!r}, which is neither a superelement nor a rigid link of "
                             f"the arm (the ground carries its own loads); links: {sorted(model.maps)}")
        f += coeff[lo:b + 1] @ (L.T @ P).T
    return f


def _static_segment(model, red: dict, a: int, b: int) -> np.ndarray:
    """x (n_seg, n) = K^-1 f(t) on the samples a..b: one factorization, all samples as right-hand sides."""
    f = _segment_loads(model, red, a, b)
    return sla.cho_solve(sla.cho_factor(model.K), f.T).T


def _lowest_omega(model, n: int) -> np.ndarray:
    """The ``n`` lowest natural circular frequencies (n,) [rad/s] of the assembled model."""
    w2 = sla.eigh(model.K, model.M, eigvals_only=True, subset_by_index=[0, min(n, len(model.K)) - 1])
    return np.sqrt(np.maximum(w2, 0.0))


def _segment(model, red: dict, t: np.ndarray, a: int, b: int, damping, state, what: str = ""):
    """x (n_seg, n) of one frozen segment on the samples a..b of t, its quasi-static part K^-1 f (n_seg, n), the end
    state and omega (n,) [rad/s].

    The state carried between segments is the dynamic part (x - K^-1 f, x' - K^-1 f'), f' the load rate over the
    step before the boundary: the new segment starts at its own static solution plus that dynamic part, so a
    change of pose moves the quasi-static deflection without ringing, while a change of load rate at the boundary
    still rings as it does inside a segment. The first segment starts from a static equilibrium: ``state`` a dict
    (link -> (Psi^T F, coeff (1, k))): at rest under those loads, that held before t[a] (a jump from them to the
    loads at t[a] rings); ``state`` None: under the loads of sample a, moving with their rate over its first step
    (a motion already under way). ``what`` names the segment in errors (" at t = ... s")."""
    first = state is None or isinstance(state, dict)
    lo = a if first else a - 1  # the step before the boundary gives the left-sided rate
    f = _segment_loads(model, red, lo, b)  # L^T Psi^T F c(t)
    w2, X = sla.eigh(model.K, model.M)  # all modes, mass-normalized
    check_resolvable(model, w2[0], what)
    omega = np.sqrt(w2)
    zeta = _zeta(damping, omega)
    Qf = f @ X  # modal loads on every sample given (n_f, n)
    ts = t[lo:b + 1]
    # initial modal state: quasi-static part Q / w^2 (and its rate) plus the carried dynamic part
    if isinstance(state, dict):  # at rest before t[a]
        eta0, etad0 = _segment_loads(model, state, 0, 0)[0] @ X / w2, np.zeros_like(w2)
    elif state is None:
        eta0 = Qf[0] / w2
        etad0 = (Qf[1] - Qf[0]) / (ts[1] - ts[0]) / w2 if len(ts) > 1 else np.zeros_like(w2)
    else:
        MX = model.M @ X
        eta0 = Qf[1] / w2 + state[0] @ MX
        etad0 = (Qf[1] - Qf[0]) / (ts[1] - ts[0]) / w2 + state[1] @ MX
        f, Qf, ts = f[1:], Qf[1:], ts[1:]
    eta, etad = modal_response(ts, Qf, omega, zeta, eta0, etad0) if len(ts) > 1 else (eta0[None], etad0[None])
    # mode-acceleration form: the static part through a solve with K keeps the digits that the eigenvectors of
    # the mixed-unit (m, rad, modal) system lose; with all modes kept it equals X eta exactly in exact arithmetic
    dyn = (eta - Qf / w2) @ X.T
    x_static = sla.cho_solve(sla.cho_factor(model.K), f.T).T
    x = x_static + dyn
    end_rate = (Qf[-1] - Qf[-2]) / (ts[-1] - ts[-2]) / w2 if len(ts) > 1 else np.zeros_like(w2)
    end_state = (dyn[-1], (etad[-1] - end_rate) @ X.T)
    return x, x_static, end_state, omega


def external_loads(link_loads: dict) -> dict:
    """The arm model's loads from the per-link stage's :class:`~structcheck.loads.LinkLoads` (link -> LinkLoads):
    link -> (F (n_dof, k), coeff (n_t, k)) of every column but the joint wrenches, which the assembly carries
    itself (body loads of the rigid motion and gravity, point forces, payloads, non-structural masses)."""
    keep = {name: _external(ld) for name, ld in link_loads.items()}
    return {name: (ld.F[:, keep[name]], ld.coeff[:, keep[name]]) for name, ld in link_loads.items()}


def external_rest(link_loads: dict) -> dict | None:
    """The coefficients (k,) of :func:`external_loads`' columns at rest before the motion (``LinkLoads.rest``),
    link -> (k,); None when the loads have none (a motion already under way)."""
    if any(ld.rest is None for ld in link_loads.values()):
        return None
    return {name: ld.rest[_external(ld)] for name, ld in link_loads.items()}


def _external(ld) -> np.ndarray:
    """Which of a LinkLoads' columns the arm model applies (k,) bool: all but the joint wrenches."""
    return np.array([c.kind != "interface" for c in ld.columns], bool)
