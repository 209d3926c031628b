"""Batch inverse dynamics per sample: structcheck's vectorized recursive Newton-Euler against Pinocchio's
per-sample ``pin.rnea`` loop (when ``pinocchio`` is importable: ``pip install -e .[bench]``).

Two robots: paper 004's 6-DOF arm (random q, qd, qdd, seeded) and the DOBOT MG400 of paper 002 (studies/mg400.py:
ten moving parts, three parallelograms closed by cut joints), moving through its palletizing cycle (quintic plan)
on the samples. Pinocchio has no cut joints, so on the MG400 it computes the spanning tree's generalized forces
from the loop-closed tree coordinates, which is the first step of our closed-chain inverse dynamics
(``ClosedChainDynamics.tree.tau``); the whole closed-chain step (tree RNEA, actuator torques, cut-joint
multipliers, all joint wrenches) is timed beside it. Before timing, the torques of both libraries must agree to
1e-9 relative (maximum difference over the largest torque).

Our functions return every joint's 6-component reaction wrench in child and world axes and the links' kinematics
too; ``pin.rnea`` returns the torques only (its ``data.f`` holds the joint forces of the last sample).
"""
from __future__ import annotations

import sys
import time

import numpy as np

from _common import ROOT, paper004_robot, timed

AGREE_RTOL = 1e-9


def pinocchio():
    """The pinocchio module, or None when it is not installed."""
    try:
        import pinocchio as pin
    except ImportError:
        return None
    return pin


def pin_model(robot, pin):
    """A Pinocchio model of the tree ``robot`` (fixed joints folded into their parent body), gravity
    (0, 0, -9.81) m/s^2, and the permutation ``perm`` such that ``q_pin = q[:, perm]`` (q in ``dof_names``
    order)."""
    from structcheck.rigid.dynamics import link_inertials

    if any(j.mimic is not None for j in robot.joints):
        raise ValueError(f"robot {robot.name!r} has mimic joints, which this Pinocchio model does not couple")
    inert = link_inertials(robot)
    model = pin.Model()
    model.gravity.linear = np.array([0.0, 0.0, -9.81])
    where = {robot.base: (0, pin.SE3.Identity())}  # link -> (pinocchio joint, link frame in that joint's frame)
    for j in robot.ordered_joints:
        jid, M_pj = where[j.parent]
        placement = M_pj * pin.SE3(j.origin[:3, :3].copy(), j.origin[:3, 3].copy())
        if j.movable:
            kind = pin.JointModelPrismaticUnaligned if j.type == "prismatic" else pin.JointModelRevoluteUnaligned
            jid = model.addJoint(jid, kind(np.asarray(j.axis, float)), placement, j.name)
            placement = pin.SE3.Identity()
        where[j.child] = (jid, placement)
        k = robot.link_names.index(j.child)
        body = pin.Inertia(float(inert.mass[k]), inert.com[k].copy(), inert.inertia[k].copy())
        model.appendBodyToJoint(jid, body, placement)
    perm = np.empty(model.nq, int)
    for n, name in enumerate(robot.dof_names):
        perm[model.joints[model.getJointId(name)].idx_q] = n
    return model, perm


def pin_loop(pin, model, data, q, qd, qdd):
    """``pin.rnea`` sample by sample: torques (n_t, nv) in Pinocchio's order."""
    tau = np.empty_like(qd)
    for k in range(len(q)):
        tau[k] = pin.rnea(model, data, q[k], qd[k], qdd[k])
    return tau


def _compare(pin, robot, q, qd, qdd, tau_ours, repeats):
    """Pinocchio on the same samples: agreement (raises if worse than AGREE_RTOL) and time per sample."""
    model, perm = pin_model(robot, pin)
    data = model.createData()
    args = (pin, model, data, *(np.ascontiguousarray(x[:, perm]) for x in (q, qd, qdd)))
    tau_pin = pin_loop(*args)[:, np.argsort(perm)]
    rel = float(np.abs(tau_pin - tau_ours).max() / np.abs(tau_ours).max())
    if not rel <= AGREE_RTOL:
        raise RuntimeError(f"{robot.name}: Pinocchio's torques differ from ours by {rel:.3g} (relative), more than "
                           f"{AGREE_RTOL:g}: the comparison is not of the same model")
    best, median, _ = timed(pin_loop, args, repeats)
    n = len(q)
    return {"pinocchio_us_per_sample_best": best / n * 1e6, "pinocchio_us_per_sample_median": median / n * 1e6,
            "torque_rel_diff": rel}


def mg400_motion(n: int):
    """The MG400 closed chain and its palletizing motion (quintic plan) on n samples over the cycle."""
    sys.path.insert(0, str(ROOT / "studies"))
    import mg400

    from structcheck.motion import as_law
    from structcheck.rigid import closedchain as cc

    chain = mg400.mechanism(mg400.start_pose())
    home = np.array([chain.tree.joint(j).home for j in mg400.DRIVEN])
    laws = {k: as_law(v) for k, v in mg400.planner_laws("quintic", home).items()}
    t = np.linspace(0.0, mg400.T_END, n)
    q = home + np.column_stack([laws[j].value(t) for j in mg400.DRIVEN])
    qd = np.column_stack([laws[j].velocity(t) for j in mg400.DRIVEN])
    # one-sided accelerations at the plan's breakpoints: right-sided, left-sided at the last sample
    qdd = np.column_stack([np.where(t < t[-1], laws[j].acceleration(t, side=1), laws[j].acceleration(t, side=-1))
                           for j in mg400.DRIVEN])
    t0 = time.perf_counter()
    motion = cc.closed_chain_motion(chain, q, qd, qdd, t)
    return chain, motion, time.perf_counter() - t0


def rnea_benchmark(n: int = 10_000, repeats: int = 20) -> dict:
    """Microseconds per sample on ``n`` samples (best and median of ``repeats`` timed calls) for both robots."""
    from structcheck.rigid import closedchain as cc
    from structcheck.rigid.dynamics import inverse_dynamics

    pin = pinocchio()
    out = {"n_samples": n, "repeats": repeats,
           "pinocchio": f"pinocchio {pin.__version__}" if pin else "not installed"}
    rng = np.random.default_rng(0)
    robot = paper004_robot()
    q, qd, qdd = (rng.uniform(-2.0, 2.0, (n, robot.n_dof)) for _ in range(3))
    best, median, _ = timed(inverse_dynamics, (robot, q, qd, qdd), repeats)
    row = {"robot": "paper 004 6-DOF arm (modified D-H, Table 1), random q, qd, qdd",
           "us_per_sample_best": best / n * 1e6, "us_per_sample_median": median / n * 1e6}
    if pin:
        row.update(_compare(pin, robot, q, qd, qdd, inverse_dynamics(robot, q, qd, qdd).tau, repeats))
    out["paper004_6dof"] = row

    chain, motion, t_closure = mg400_motion(n)
    tree = chain.tree
    mq = (motion.q, motion.qd, motion.qdd)
    best, median, _ = timed(inverse_dynamics, (tree, *mq), repeats)
    cbest, cmedian, _ = timed(cc.closed_chain_dynamics, (chain, motion), max(3, repeats // 4))
    row = {"robot": f"MG400 (paper 002): {len(tree.joints)} tree joints, {len(chain.cuts)} cut joints, "
                    f"{len(chain.independent)} driven, palletizing cycle (quintic)",
           "us_per_sample_best": best / n * 1e6, "us_per_sample_median": median / n * 1e6,
           "closed_chain_us_per_sample_best": cbest / n * 1e6, "closed_chain_us_per_sample_median": cmedian / n * 1e6,
           "loop_closure_us_per_sample": t_closure / n * 1e6,
           "note": "us_per_sample: the spanning tree's RNEA with all joint wrenches (what pin.rnea computes); "
                   "closed_chain: + actuator torques, cut-joint multipliers and corrected wrenches"}
    if pin:
        row.update(_compare(pin, tree, *mq, inverse_dynamics(tree, *mq).tau, repeats))
    out["mg400_closed_chain"] = row
    return out
