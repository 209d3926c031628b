"""Mode-acceleration (exact modal integration) against direct Newmark time-marching on one link.

The link is paper 004's upper arm (the shipped mesh by default, or one meshed to about ``dofs`` DOF), clamped on
its shoulder flange and loaded by bench_fe's history (_common.load_coefficients; 18 unit loads) over the window
of the grip: from 1.48 s, when the arm rests after its swing (constant loads: gravity and a 30 kg forearm +
payload at the elbow), through the 196 N grip applied over 10 ms at 1.5 s and the ringing after it, to 1.58 s.
Both start in static equilibrium under the loads at the window's start and run undamped, so that they integrate
the same equations on the same samples: the fast path (``n_modes`` modes + the static response of every unit
load, mode acceleration) exactly for piecewise-linear loads, Newmark (average acceleration, the full system)
with the sample step. The step, 0.1 ms, resolves the link's lowest mode (300 Hz on the shipped mesh: 33 steps
per period, period error (w dt)^2 / 12 = 0.3%); at bench_fe's 2 ms step over its whole history Newmark read the peak
von Mises 5% above the fast path (measured).

Timed: the fast path's transient phase (``modal_coefficients`` + ``respond``: the stress and deformation history
of every element vertex on the samples, reduced to peaks) against Newmark's marching (its factorization and one
back-substitution per step, without any stress: the speed-up is a lower bound). Compared, after the timing: the
peak von Mises over all element vertices and samples and the peak displacement magnitude (Newmark's stresses
are recovered from its displacements afterwards, in blocks of samples).
"""
from __future__ import annotations

import time

import numpy as np

from _common import ROOT, load_coefficients, mesh_link, upper_arm_part

WINDOW = (1.48, 1.58)  # [s]: at rest after the swing, the grip at 1.5 s, its ringing


def _peaks(part, u: np.ndarray, block: int = 25) -> tuple[float, float]:
    """Peak von Mises [Pa] over element vertices and samples, and peak |u| [m], of displacements u (n_t, n_dof)."""
    from structcheck.fe.stress import von_mises

    vm = 0.0
    for a in range(0, len(u), block):
        s = part.vertex_stress(u[a:a + block].T)  # (k, 6, 4, n_elem)
        vm = max(vm, float(von_mises(np.moveaxis(s, 1, -1)).max()))
    disp = float(np.sqrt((u[:, part.node_dofs] ** 2).sum(axis=-1)).max())
    return vm, disp


def modal_vs_newmark(dofs: int | None = None, n_modes: int = 20, n_steps: int = 1000) -> dict:
    """Speed-up of the fast path over Newmark and the relative differences of their peaks (see the module)."""
    from structcheck.fe.response import build_basis, modal_coefficients, respond
    from structcheck.fe.supports import submatrix
    from structcheck.fe.transient import newmark

    path = ROOT / "meshes" / "paper004" / "upper_arm.msh" if dofs is None else mesh_link(dofs)[0]
    part, F = upper_arm_part(path)
    t = np.linspace(*WINDOW, n_steps + 1)
    coeff = load_coefficients(t)
    support = ["joint2"]
    t0 = time.perf_counter()
    basis = build_basis(part, F, support, n_modes)
    t_basis = time.perf_counter() - t0

    t0 = time.perf_counter()
    modal = modal_coefficients(basis, t, coeff, 0.0, from_equilibrium=True)
    resp = respond(part, basis, coeff, modal)
    t_fast = time.perf_counter() - t0

    free = part.free_dofs(support)
    K, M = submatrix(part.stiffness, free), submatrix(part.mass_matrix, free)
    u0 = basis.U[free] @ coeff[0]  # static equilibrium under the loads of t = 0, at rest (as from_equilibrium)
    t0 = time.perf_counter()
    u_free = newmark(K, M, F[free], coeff, t, u0=u0)
    t_newmark = time.perf_counter() - t0
    u = np.zeros((len(t), part.n_dofs))
    u[:, free] = u_free
    del u_free
    vm_nm, disp_nm = _peaks(part, u)
    return {
        "link": "paper 004 upper arm (hollow box beam, 8 mm walls), clamped at joint2", "mesh": str(path),
        "dofs": int(part.n_dofs), "unit_loads": int(F.shape[1]), "modes": len(basis.omega),
        "lowest_hz": float(basis.omega[0] / 2 / np.pi), "highest_mode_hz": float(basis.omega[-1] / 2 / np.pi),
        "window_s": list(WINDOW), "steps": n_steps, "dt_s": float(t[1] - t[0]), "damping": "none (both)",
        "basis_s": t_basis, "fast_transient_s": t_fast, "newmark_s": t_newmark,
        "speedup": t_newmark / t_fast,
        "speedup_with_basis": t_newmark / (t_fast + t_basis),
        "peak_von_mises_mpa": {"modal": resp.max_von_mises / 1e6, "newmark": vm_nm / 1e6},
        "peak_rel_diff": abs(resp.max_von_mises - vm_nm) / vm_nm,
        "peak_deformation_mm": {"modal": resp.max_deformation * 1e3, "newmark": disp_nm * 1e3},
        "deformation_rel_diff": abs(resp.max_deformation - disp_nm) / disp_nm,
        "note": "Newmark timed without stresses (lower bound of the speed-up); basis_s (factorization, unit loads, "
                "modes, stress basis) is shared with a static analysis and reported apart; speedup_with_basis "
                "charges it to the fast path",
    }
