"""A workspace map of the static loads: over a 2-D slice of two joints (the others held at a given pose), one
joint's holding torque and one link's static peak von Mises at every pose of the slice, as a PNG.

The stress per pose is exact: :func:`pose_peaks` evaluates the points with the largest bounds for every pose and
widens that set until each pose's value is at least the bound of every point left out (the screening of
:func:`structcheck.fe.response.peak_von_mises`, per pose instead of over all of them)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from ..errors import InputError
from ..fe.screening import squared_norms
from ..fe.stress import VON_MISES_MATRIX
from .pose import holding_torques, point_norms, static_coefficients

#: Element points evaluated exactly at first (times 4 until every pose is proven).
FIRST_CANDIDATES = 4096


def pose_peaks(basis, coeff: np.ndarray) -> np.ndarray:
    """The largest von Mises [Pa] over the link's element points of each static response ``U @ coeff[i]``
    (``coeff`` (n, k)): (n,). A pose's value at point p is at most sum_j |c_j| |T s_j(p)|; the candidates are the
    points of largest bound over all poses, and a pose is proven when its value over them is at least
    sum_j |c_j| max over the other points of |T s_j(p)|."""
    k = coeff.shape[1]
    S = basis.S[:k]
    n_e = S.shape[3]
    N = point_norms(S)
    C = np.asarray(coeff, float)
    order = np.argsort(-(np.abs(C).max(axis=0) @ N), kind="stable")
    n_c = FIRST_CANDIDATES
    while True:
        idx = order[:n_c]
        v, e = np.divmod(idx, n_e)
        op = np.einsum("cs,ksp->kcp", VON_MISES_MATRIX, S[:, :, v, e]).reshape(k, -1)
        vals = np.empty(len(C))
        for a in range(0, len(C), 256):
            vals[a:a + 256] = np.sqrt(squared_norms((C[a:a + 256] @ op).reshape(-1, 5, len(idx))).max(axis=1))
        rest = N[:, order[n_c:]].max(axis=1) if n_c < len(order) else np.zeros(k)
        if n_c >= len(order) or np.all(vals >= np.abs(C) @ rest):
            return vals
        n_c *= 4


@dataclass(frozen=True)
class SliceMap:
    """The slice: ``joints`` (x, y) names and their values ``x`` (n_x,), ``y`` (n_y,) [rad or m]; ``torque``
    (n_y, n_x) the holding torque [N m or N] of ``joint``; ``stress`` (n_y, n_x) the static peak von Mises [Pa]
    of ``link`` (None: no link)."""

    joints: tuple[str, str]
    x: np.ndarray
    y: np.ndarray
    joint: str
    torque: np.ndarray
    link: str | None
    stress: np.ndarray | None


def slice_map(chain, ranges: Mapping, at: Mapping[str, float], joints: tuple[str, str], joint: str, gravity,
              payloads, links: Mapping | None = None, link: str | None = None, points: int = 41,
              forces: Mapping | None = None) -> SliceMap:
    """:class:`SliceMap` over ``joints`` (each over its range, ``points`` values), the other coordinates at
    ``at`` (joint -> value); ``links`` the :func:`.pose.static_links` (for ``link``'s stress); ``forces`` held
    point forces as in :func:`.pose.static_bodies`."""
    names = list(ranges)
    for j in (*joints, joint):
        if j not in names:
            raise InputError(f"map joint {j!r} is not a driven joint; the robot's are {names}")
    if joints[0] == joints[1]:
        raise InputError(f"map joints {joints}: give two different joints")
    x, y = (np.linspace(*ranges[j], points) for j in joints)
    X, Y = np.meshgrid(x, y)
    Q = np.tile([at[n] for n in names], (X.size, 1))
    Q[:, names.index(joints[0])], Q[:, names.index(joints[1])] = X.ravel(), Y.ravel()
    tau = holding_torques(chain, Q, gravity, payloads, forces)[:, names.index(joint)].reshape(X.shape)
    stress = None
    if link is not None:
        coeff = static_coefficients(chain, {link: links[link]}, Q, gravity, payloads, forces)[link]
        stress = pose_peaks(links[link].basis, coeff).reshape(X.shape)
    return SliceMap(tuple(joints), x, y, joint, tau, link, stress)


def plot_map(m: SliceMap, path: Path, marks: Mapping[str, tuple[float, float]] | None = None) -> Path:
    """Write the map as a PNG at ``path`` (one panel per quantity; the axes in the joints' own units, rad or m);
    ``marks`` label -> (x, y) points drawn on it (the worst poses)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [(np.abs(m.torque), f"|holding torque| of {m.joint} [N m]")]
    if m.stress is not None:
        panels.append((m.stress / 1e6, f"static peak von Mises of {m.link} [MPa]"))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.2), squeeze=False)
    for ax, (Z, title) in zip(axes[0], panels):
        c = ax.contourf(m.x, m.y, Z, levels=20, cmap="viridis")
        fig.colorbar(c, ax=ax)
        for label, (px, py) in (marks or {}).items():
            ax.plot(px, py, "r*", ms=10)
            ax.annotate(label, (px, py), color="r", fontsize=7, xytext=(4, 4), textcoords="offset points")
        ax.set_xlabel(f"{m.joints[0]} [rad or m]")
        ax.set_ylabel(f"{m.joints[1]} [rad or m]")
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
