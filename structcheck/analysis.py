"""Transient stress analysis of one link under a load history given as unit loads times time coefficients.

The load vector at time t is ``F @ coeff[t]`` (F: (n_dof, k) unit loads, coeff: (n_t, k)). One factorization
of the supported stiffness gives the unit-load solutions and the lowest modes; the mode-acceleration method
adds the elastic-inertia correction ``phi @ modal[t]``. Every response is then a product of a fixed basis with
the coefficient history, so the stress history of every element node costs one matrix product per time chunk.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import InputError
from .solvers import factorize
from .stress import von_mises


@dataclass(frozen=True)
class LinkBasis:
    """Unit-load and modal solutions of one supported link.

    ``U`` (n_dof, k) static solutions of the unit loads, ``phi`` (n_dof, m) mass-normalized modes,
    ``omega`` (m,) rad/s, ``S`` (k + m, n_elem * n_loc, 6) unaveraged stresses at the element nodes of every
    basis column [Pa per unit coefficient], ``F`` (n_dof, k) the unit loads.
    """

    F: np.ndarray
    U: np.ndarray
    phi: np.ndarray
    omega: np.ndarray
    S: np.ndarray


@dataclass(frozen=True)
class LinkResponse:
    """Peaks and fields of a link over the fine time grid (all stresses in Pa, lengths in m, link axes).

    ``vm_history`` (n_t,) is the link's maximum von Mises at each time; ``vm_envelope_nodes`` (n_nodes,) the
    max over time at each node (max over the elements sharing it of the unaveraged values);
    ``deformation_envelope`` (n_nodes,) the max over time of |u|; ``principal_envelope`` (n_nodes,) the max over
    time of the max principal stress (brittle materials only, else None).
    """

    max_von_mises: float
    i_time_max: int
    node_max: int
    vm_history: np.ndarray
    vm_envelope_nodes: np.ndarray
    deformation_history: np.ndarray
    deformation_envelope: np.ndarray
    max_deformation: float
    i_time_max_deformation: int
    principal_history: np.ndarray | None
    principal_envelope: np.ndarray | None
    modal_coeff: np.ndarray


def build_basis(part, F: np.ndarray, fixed: list[str], n_modes: int, progress=None) -> LinkBasis:
    """Solve every unit load and the lowest ``n_modes`` modes of ``part`` clamped on the ``fixed`` surfaces."""
    from .transient import modes as compute_modes

    free = part.free_dofs(fixed)
    K = part.stiffness[free][:, free]
    fact = factorize(K)
    U = np.zeros_like(F)
    U[free] = fact.solve(F[free])
    phi = np.zeros((F.shape[0], 0))
    omega = np.zeros(0)
    if n_modes > 0:
        M = part.mass_matrix[free][:, free]
        m = compute_modes(K, M, n_modes, factorization=fact)
        phi = np.zeros((F.shape[0], len(m.omega)))
        phi[free] = m.phi
        omega = m.omega
    S = part.element_node_stress(np.hstack([U, phi]))  # (k+m, n_elem, n_loc, 6)
    S = S.reshape(S.shape[0], -1, 6)
    return LinkBasis(F=F, U=U, phi=phi, omega=omega, S=S)


def modal_coefficients(basis: LinkBasis, t: np.ndarray, coeff: np.ndarray, damping_ratio: float) -> np.ndarray:
    """Mode-acceleration corrections (n_t, m): u(t) = U @ coeff[t] + phi @ result[t]."""
    from .transient import modal_response

    if basis.phi.shape[1] == 0:
        return np.zeros((len(t), 0))
    q = coeff @ (basis.phi.T @ basis.F).T  # modal loads (n_t, m)
    eta, _ = modal_response(t, q, basis.omega, np.full(len(basis.omega), damping_ratio))
    return eta - q / basis.omega ** 2


def _node_reducer(cells: np.ndarray, n_nodes: int):
    """Return f(values (..., n_elem*n_loc)) -> (..., n_nodes) taking the max over element nodes sharing a node."""
    flat = cells.ravel()
    order = np.argsort(flat, kind="stable")
    starts = np.searchsorted(flat[order], np.arange(n_nodes))
    if np.any(np.diff(np.r_[starts, len(flat)]) == 0):
        raise InputError("mesh has nodes that belong to no element; remove unused points")

    def reduce_max(values: np.ndarray) -> np.ndarray:
        return np.maximum.reduceat(values[..., order], starts, axis=-1)

    return reduce_max


def respond(part, basis: LinkBasis, coeff: np.ndarray, modal: np.ndarray, *, brittle: bool = False,
            chunk_bytes: float = 2e8) -> LinkResponse:
    """Stress and deformation history on the fine grid, reduced to peaks and envelopes.

    ``coeff`` (n_t, k), ``modal`` (n_t, m). Memory is bounded by processing time chunks of about
    ``chunk_bytes`` of stress.
    """
    from .stress import principal_stresses

    C = np.hstack([coeff, modal])  # (n_t, k+m)
    n_t = len(C)
    S = basis.S
    n_b, n_pts, _ = S.shape
    S2 = S.reshape(n_b, n_pts * 6)
    node_dofs = part.node_dofs  # (n_nodes, 3)
    D = np.hstack([basis.U, basis.phi])[node_dofs.ravel()]  # (n_nodes*3, k+m)
    n_nodes = len(node_dofs)
    cells = part.cells
    reduce_max = _node_reducer(cells, n_nodes)

    vm_hist = np.empty(n_t)
    arg_hist = np.empty(n_t, dtype=np.int64)
    vm_env_pts = np.zeros(n_pts)
    p1_hist = np.empty(n_t) if brittle else None
    p1_env_pts = np.full(n_pts, -np.inf) if brittle else None
    def_hist = np.empty(n_t)
    def_env = np.zeros(n_nodes)
    step = max(1, int(chunk_bytes // (n_pts * 6 * 8)))
    for a in range(0, n_t, step):
        b = min(n_t, a + step)
        s = (C[a:b] @ S2).reshape(b - a, n_pts, 6)
        vm = von_mises(s)
        arg_hist[a:b] = np.argmax(vm, axis=1)
        vm_hist[a:b] = vm[np.arange(b - a), arg_hist[a:b]]
        np.maximum(vm_env_pts, vm.max(axis=0), out=vm_env_pts)
        if brittle:
            p1 = principal_stresses(s)[..., 0]
            p1_hist[a:b] = p1.max(axis=1)
            np.maximum(p1_env_pts, p1.max(axis=0), out=p1_env_pts)
        u = (C[a:b] @ D.T).reshape(b - a, n_nodes, 3)
        mag = np.linalg.norm(u, axis=2)
        def_hist[a:b] = mag.max(axis=1)
        np.maximum(def_env, mag.max(axis=0), out=def_env)
    i_max = int(np.argmax(vm_hist))
    node_max = int(cells.ravel()[arg_hist[i_max]])
    i_def = int(np.argmax(def_hist))
    return LinkResponse(
        max_von_mises=float(vm_hist[i_max]), i_time_max=i_max, node_max=node_max, vm_history=vm_hist,
        vm_envelope_nodes=reduce_max(vm_env_pts), deformation_history=def_hist, deformation_envelope=def_env,
        max_deformation=float(def_hist[i_def]), i_time_max_deformation=i_def, principal_history=p1_hist,
        principal_envelope=reduce_max(p1_env_pts) if brittle else None, modal_coeff=modal)


def frame_fields(part, basis: LinkBasis, coeff_frames: np.ndarray, modal_frames: np.ndarray,
                 brittle: bool = False) -> dict[str, np.ndarray]:
    """Point fields at the output frames: displacement (n_f, n_nodes, 3) in link axes, von_mises and max
    principal (n_f, n_nodes) as the max over the elements sharing each node of the unaveraged values."""
    from .stress import principal_stresses

    C = np.hstack([coeff_frames, modal_frames])
    n_b, n_pts, _ = basis.S.shape
    s = (C @ basis.S.reshape(n_b, n_pts * 6)).reshape(len(C), n_pts, 6)
    reduce_max = _node_reducer(part.cells, len(part.node_dofs))
    D = np.hstack([basis.U, basis.phi])[part.node_dofs.ravel()]
    out = {
        "displacement": (C @ D.T).reshape(len(C), -1, 3),
        "von_mises": reduce_max(von_mises(s)),
    }
    if brittle:
        out["max_principal"] = reduce_max(principal_stresses(s)[..., 0])
    return out


def load_resultants(part, F: np.ndarray) -> np.ndarray:
    """Resultant force and moment about the link-frame origin of each unit load: (6, k)."""
    nd = part.node_dofs
    x = part.points
    f = F[nd]  # (n_nodes, 3, k)
    force = f.sum(axis=0)
    moment = np.einsum("ijk,nj,nkc->ic", _levi_civita(), x, f)
    return np.vstack([force, moment])


def _levi_civita() -> np.ndarray:
    e = np.zeros((3, 3, 3))
    e[0, 1, 2] = e[1, 2, 0] = e[2, 0, 1] = 1.0
    e[0, 2, 1] = e[2, 1, 0] = e[1, 0, 2] = -1.0
    return e


def rigid_fit_operator(part, surface: str, point: np.ndarray) -> np.ndarray:
    """Operator P (6, n_dof): [d; theta] = P @ u is the least-squares rigid motion of the surface's nodes
    (translation d of ``point`` and small rotation theta, link axes)."""
    nodes = part.surface_nodes(surface)
    r = part.points[nodes] - point
    n = len(nodes)
    A = np.zeros((3 * n, 6))
    A[:, :3] = np.tile(np.eye(3), (n, 1))
    # u = d + theta x r  ->  u = d - [r]x theta
    skew = np.zeros((n, 3, 3))
    skew[:, 0, 1], skew[:, 0, 2] = -r[:, 2], r[:, 1]
    skew[:, 1, 0], skew[:, 1, 2] = r[:, 2], -r[:, 0]
    skew[:, 2, 0], skew[:, 2, 1] = -r[:, 1], r[:, 0]
    A[:, 3:] = -skew.reshape(3 * n, 3)
    pinv = np.linalg.pinv(A)  # (6, 3n)
    P = np.zeros((6, part.n_dofs))
    P[:, part.node_dofs[nodes].ravel()] = pinv
    return P
