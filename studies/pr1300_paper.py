"""Paper 000 comparisons for the PR1300 study (studies/pr1300_palletizer.py): what its ``summary_extra`` adds to
summary.json and what its ``write_extra`` writes (the torque histories beside the paper's peaks, CSV and PNG).

Everything here is computed from a run's own results (``structcheck.results.RunResult``): the joint histories on
the analysis grid, the model's forward kinematics of the tool point, the link masses the run used. ``setup`` is
the study's :class:`PaperSetup` (the paper's path and peaks, the model's tree for its kinematics)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

PAPER = "Yu, Juanatas, Zheng 2024, Inverse dynamics analysis of 4-DOF stacking robot with closed chain structure"
NAMES = {"J2": "big_arm", "J2p": "forearm"}


@dataclass(frozen=True)
class PaperSetup:
    """What the comparisons need from the study: the ``chain`` (ClosedChain with the run's inertials) for the
    tool point's kinematics (link ``tool_link``, point ``tool_xyz`` (3,) [m] in it) and the torque split, the path
    ``p1``, ``p2`` (3,) [m, world], the paper's ``peaks`` (joint -> (torque [N m], time [s])), the ``driven``
    joints, the drives' point masses (name -> (link, mass [kg], position)), ``gravity`` (3,) [m/s^2], Table 3's
    ``drives`` (joint -> (motor, rotor inertia [kg m^2], reducer, ratio, output torque [N m])) and ``variants``
    (name -> ClosedChain with other inertials, e.g. Table 2 read literally) whose peak torques along the same
    motion are reported beside ours."""

    chain: Any
    tool_link: str
    tool_xyz: tuple
    p1: np.ndarray
    p2: np.ndarray
    peaks: dict
    driven: tuple
    drive_masses: dict
    gravity: tuple
    drives: dict
    variants: dict


def _columns(result, names):
    return np.column_stack([result.q[:, result.dof_names.index(n)] for n in names])


def torque_peaks(result, setup) -> dict:
    """Driven joint -> (max |tau| [N m], its time [s], tau there (signed) [N m]) on the run's analysis grid."""
    out = {}
    for j in setup.driven:
        tau = result.tau[:, result.dof_names.index(j)]
        k = int(np.argmax(np.abs(tau)))
        out[j] = (float(abs(tau[k])), float(result.t[k]), float(tau[k]))
    return out


def path_deviation_mm(result, setup) -> float:
    """Largest distance [mm] of the model's tool point (forward kinematics of the tree with the loops closed) from
    the straight line p1 -> p2."""
    tree = setup.chain.tree
    T = tree.forward_kinematics(result.q)[:, tree.link_names.index(setup.tool_link)]
    tcp = np.einsum("nij,j->ni", T[:, :3, :3], np.asarray(setup.tool_xyz, float)) + T[:, :3, 3]
    d = (setup.p2 - setup.p1) / np.linalg.norm(setup.p2 - setup.p1)
    rel = tcp - setup.p1
    return float(np.linalg.norm(rel - np.outer(rel @ d, d), axis=1).max() * 1e3)


def driven_torques(chain, result, setup, rates: bool = True) -> np.ndarray:
    """Torques (n_t, n_driven) [N m] of the driven joints of ``chain`` along the run's driven motion (the loops
    closed again on ``chain``); ``rates=False``: at rest in the same poses (the gravity part alone)."""
    from structcheck.rigid import closedchain as cc

    cols = [result.dof_names.index(j) for j in setup.driven]
    q = result.q[:, cols]
    qd, qdd = (result.qd[:, cols], result.qdd[:, cols]) if rates else (np.zeros_like(q), np.zeros_like(q))
    motion = cc.closed_chain_motion(chain, q, qd, qdd, result.t, q_guess=result.q[0])
    return cc.closed_chain_dynamics(chain, motion, setup.gravity).tau


def drive_check(result, setup, joint, peak) -> dict:
    """Table 3's drive of ``joint`` against the run: its reducer's output torque beside our peak ``peak``
    [N m], and the motor rotor's inertia seen at the joint (J N^2 [kg m^2], in neither the paper's model nor
    ours) with the torque it would add at the joint's largest acceleration [N m]."""
    motor, J, reducer, ratio, rated = setup.drives[joint]
    qdd = np.abs(result.qdd[:, result.dof_names.index(joint)]).max()
    return {"motor": motor, "reducer": reducer, "speed_ratio": ratio, "reducer_output_torque_nm": rated,
            "peak_over_reducer_output": peak / rated, "rotor_inertia_at_joint_kg_m2": J * ratio ** 2,
            "max_acceleration_rad_s2": float(qdd), "rotor_torque_at_max_acceleration_nm": float(J * ratio ** 2 * qdd)}


def fig1_relations_error(result) -> float:
    """Largest |error| [rad] of eq. (23) along the run: theta3 = theta2' - theta2 (J3), theta3' = theta2 -
    theta2' (J3p)."""
    t2, t3, t2p, t3p = _columns(result, ("J2", "J3", "J2p", "J3p")).T
    return float(max(np.abs(t3 - (t2p - t2)).max(), np.abs(t3p - (t2 - t2p)).max()))


def paper_summary(result, setup) -> dict:
    """The keys the study adds to summary.json: ``joints.<J>.max_torque_nm`` of the driven joints and ``paper000``
    (our peak torques and times beside the paper's, the path and eq. (23) checks, the masses used)."""
    peaks = torque_peaks(result, setup)
    link_mass = {n: float(L.mass_kg) for n, L in result.links.items()} if result.links else {}
    static = driven_torques(setup.chain, result, setup, rates=False)
    variants = {name: driven_torques(ch, result, setup) for name, ch in setup.variants.items()}
    compare = {}
    for j, label in NAMES.items():
        tau, t, signed = peaks[j]
        ref_tau, ref_t = setup.peaks[j]
        k, c = int(np.searchsorted(result.t, t)), setup.driven.index(j)
        compare[label] = {"joint": j, "max_torque_nm": tau, "signed_torque_at_peak_nm": signed,
                          "time_of_max_torque_s": t, "gravity_part_at_peak_nm": float(static[k, c]),
                          "motion_part_at_peak_nm": float(signed - static[k, c]),
                          "paper_max_torque_nm": ref_tau, "paper_time_s": ref_t, "ratio_to_paper": tau / ref_tau,
                          "table3": drive_check(result, setup, j, tau),
                          "variants": {name: {"max_torque_nm": float(np.abs(v[:, c]).max()),
                                              "time_of_max_torque_s": float(result.t[np.argmax(np.abs(v[:, c]))])}
                                       for name, v in variants.items()}}
    return {
        "joints": {j: {"max_torque_nm": peaks[j][0]} for j in setup.driven},
        "paper000": {
            "paper": PAPER, **compare,
            "path_deviation_max_mm": path_deviation_mm(result, setup),
            "fig1_relations_max_error_rad": fig1_relations_error(result),
            "line_duration_s": float(result.t[-1]),
            "link_masses_kg": link_mass,
            "drive_point_masses_kg": {k: v[1] for k, v in setup.drive_masses.items()},
            "gravity_m_s2": float(np.linalg.norm(setup.gravity)),
        },
    }


def write_paper_files(result, folder, setup) -> None:
    """``paper000_torques.csv`` (t, theta2, theta2', torques of J2 and J2p) and ``paper000_torques.png`` (the two
    torque histories with the paper's peaks marked)."""
    t2, t2p = _columns(result, ("J2", "J2p")).T
    tau = np.column_stack([result.tau[:, result.dof_names.index(j)] for j in ("J2", "J2p")])
    header = "t_s,theta2_deg,theta2p_deg,tau_J2_big_arm_nm,tau_J2p_forearm_nm"
    np.savetxt(folder / "paper000_torques.csv", np.column_stack([result.t, np.degrees(t2), np.degrees(t2p), tau]),
               delimiter=",", header=header, comments="", fmt="%.9g")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for k, (j, label) in enumerate(NAMES.items()):
        line, = ax.plot(result.t, tau[:, k], label=f"{label.replace('_', ' ')} ({j}), ours")
        ref_tau, ref_t = setup.peaks[j]
        ax.plot([ref_t], [np.sign(tau[np.argmax(np.abs(tau[:, k])), k]) * ref_tau], "o", color=line.get_color(),
                mfc="none", ms=9, label=f"{label.replace('_', ' ')}: paper's peak (about {ref_tau:g} N m at {ref_t} s)")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("joint torque [N m]")
    ax.set_title("PR1300, straight line p1 -> p2, modified trapezoid law")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(folder / "paper000_torques.png", dpi=120)
    plt.close(fig)
