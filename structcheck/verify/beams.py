"""Beam cases: cantilever deflection, stress, convergence and linear-tet locking; cantilever bending frequencies
against the Timoshenko frequency equation; mode acceleration against direct Newmark."""
from __future__ import annotations

import numpy as np

from ..model.materials import get_material
from .references import _bound_row, _row, beam_part, richardson, timoshenko_frequencies, timoshenko_tip_deflection


def _p1_tip_compliance(part, P: float) -> float:
    """f.u / P of the same mesh with linear (4-node) tets: clamped root, uniform shear P along z on the tip."""
    from skfem import Basis, ElementTetP1, ElementVector, FacetBasis, LinearForm, asm
    from skfem.models.elasticity import lame_parameters, linear_elasticity

    from ..fe.solvers import factorize

    e = ElementVector(ElementTetP1())
    basis = Basis(part.mesh, e, intorder=2)
    K = asm(linear_elasticity(*lame_parameters(part.material.E, part.material.nu)), basis).tocsr()
    A = part.surface_geometry("tip")[0]

    @LinearForm
    def shear(v, w):
        return P / A * v[2]

    f = shear.assemble(FacetBasis(part.mesh, e, facets=part.surface_facets("tip"), intorder=2))
    free = basis.complement_dofs(basis.get_dofs(part.surface_facets("root")))
    u = np.zeros(basis.N)
    u[free] = factorize(K[free][:, free]).solve(f[free])
    return float(f @ u / P)


# ---------------------------------------------------------------------------------------------- cases
def case_cantilever(quick: bool = False) -> list[dict]:
    """Cantilever 0.4 x 0.02 x 0.02 m (L/h = 20) under an end shear spread uniformly over the tip face."""
    c = "cantilever"
    L, b, h, P = 0.4, 0.02, 0.02, 100.0
    mat = get_material("structural_steel")
    E, nu = mat.E, mat.nu
    d_ref = timoshenko_tip_deflection(P, L, E, nu, b, h)
    I = b * h ** 3 / 12
    seq = [(10, 1), (20, 2), (40, 4)] + ([] if quick else [(80, 8)])
    comp, dofs = [], []
    for n_len, n_sec in seq:
        part = beam_part(L, b, h, n_len, n_sec, mat)
        f = part.patch_force_basis("tip")[:, 2] * P
        u = part.solve_unit_loads(f, ["root"])
        comp.append(f @ u / P)
        dofs.append(part.n_dofs)
    # mid-span extreme fibres (the last, finest mesh)
    S = part.element_node_stress(u)[0]
    sxx = part.nodal_average(S[..., 0])
    x = part.points
    mid = np.isclose(x[:, 0], L / 2, atol=1e-9 * L)
    top, bot = mid & np.isclose(x[:, 2], h / 2, atol=1e-9), mid & np.isclose(x[:, 2], -h / 2, atol=1e-9)
    s_ref = P * (L / 2) * (h / 2) / I
    # the worst node of both fibre lines, signed so that tension is positive for the comparison
    cand = np.r_[sxx[bot], -sxx[top]]
    s_fe = cand[np.argmax(np.abs(cand - s_ref))]
    limit, order = richardson([1 / n for n, _ in seq], comp)
    rows = [
        _row(c, f"tip deflection f.u/P [m], P2 tets, {dofs[-1]} dof, vs Timoshenko (Cowper kappa)",
             d_ref, comp[-1], 0.01),
        _row(c, "bending stress sigma_xx at mid-span extreme fibre [Pa], worst node", s_ref, s_fe, 0.02),
        _bound_row(c, f"observed convergence order of f.u/P vs Richardson limit ({len(seq)} meshes)", 1.5, order,
                   ">= 1.5", order >= 1.5),
        _row(c, "Richardson limit of f.u/P [m] vs Timoshenko", d_ref, limit, 0.01),
    ]
    # linear tets on the same mesh lock in bending; a conforming displacement model under force loading
    # underestimates the compliance, and P1 is a subspace of P2, so f.u(P1) <= f.u(P2) must hold
    p1 = _p1_tip_compliance(part, P)
    rows.append(_bound_row(c, f"locking (info): linear tets' f.u/P ratio to Timoshenko, same mesh "
                              f"(P2: {comp[-1] / d_ref:.4f})", 1.0, p1 / d_ref, "P1 <= P2 (theorem)",
                           p1 <= comp[-1] * (1 + 1e-12)))
    # an averaged-motion root (RBE3) holds the section's mean translation and rotation, which is the
    # Timoshenko beam's clamp: it matches the beam closed form more closely than a fully clamped face
    part = beam_part(L, b, h, *seq[-2], mat)
    f = part.patch_force_basis("tip")[:, 2] * P
    ua = part.solve_unit_loads(f, ["root"], support="averaged")
    rows.append(_row(c, f"tip deflection f.u/P [m], {part.n_dofs} dof, averaged-motion (RBE3) root support", d_ref,
                     f @ ua / P, 0.01))
    return rows


def _classify_modes(part, phi) -> tuple[np.ndarray, np.ndarray]:
    """Per mode (columns of phi): the fraction of the displacement that is a section-mean transverse motion
    (bending) and a section-mean axial motion. Torsion has neither. Needs nodes on planes x = const."""
    disp = phi[part.node_dofs]  # (n_nodes, 3, m)
    key = np.round(part.points[:, 0] / np.ptp(part.points[:, 0]) * 1e6).astype(np.int64)
    _, station = np.unique(key, return_inverse=True)
    count = np.bincount(station).astype(float)
    mean = np.zeros((len(count),) + disp.shape[1:])
    np.add.at(mean, station, disp)
    mean /= count[:, None, None]  # (n_stations, 3, m) section-mean displacement
    frac = np.einsum("s,scm->cm", count, mean ** 2) / np.einsum("ncm,ncm->m", disp, disp)
    return frac[1] + frac[2], frac[0]


def case_cantilever_modes(quick: bool = False) -> list[dict]:
    """Square cantilever 0.4 x 0.04 x 0.04 m (L/h = 10): first three bending frequencies against the Timoshenko
    frequency equation. The torsion and axial modes fall between the second and third bending pairs; bending
    modes are found by shape and each equal pair counts once."""
    from ..fe.supports import submatrix
    from ..fe.transient import modes

    c = "cantilever_modes"
    L, h = 0.4, 0.04
    mat = get_material("structural_steel")
    part = beam_part(L, h, h, *((24, 3) if quick else (40, 4)), mat)
    free = part.free_dofs(["root"])
    md = modes(submatrix(part.stiffness, free), submatrix(part.mass_matrix, free), 12)
    phi = np.zeros((part.n_dofs, len(md.omega)))
    phi[free] = md.phi
    bending, axial = _classify_modes(part, phi)
    f = md.frequency_hz
    is_b = bending > 0.5
    # equal pairs of a square section: consecutive bending modes within 1 %
    groups = []
    for k in np.nonzero(is_b)[0]:
        if groups and f[k] < f[groups[-1][-1]] * 1.01:
            groups[-1].append(k)
        else:
            groups.append([k])
    ref = timoshenko_frequencies(3, L, mat.E, mat.nu, mat.density, h, h)
    if len(groups) < 3:  # a failed identification is a failed check, not a crash
        return [_row(c, f"bending frequency {i + 1} [Hz]: only {len(groups)} bending groups in {len(f)} modes",
                     ref[i], np.nan, 0.01) for i in range(3)]
    f_bend = np.array([f[g].mean() for g in groups])
    rows = [_row(c, f"bending frequency {i + 1} [Hz] ({len(groups[i])} equal modes) vs Timoshenko", ref[i],
                 f_bend[i], 0.01) for i in range(3)]
    # the other modes below the third bending pair, identified by shape
    below = np.nonzero(~is_b & (f < f[groups[2][0]]))[0]
    kinds = ["axial" if axial[k] > 0.5 else "torsion" for k in below]
    rows.append(_bound_row(c, f"non-bending modes below bending 3, by shape: {', '.join(kinds)}", 2, len(below),
                           "1 torsion + 1 axial", sorted(kinds) == ["axial", "torsion"]))
    if "axial" in kinds:
        rows.append(_row(c, "axial mode [Hz] vs rod theory sqrt(E/rho)/(4L)", np.sqrt(mat.E / mat.density) / (4 * L),
                         f[below[kinds.index("axial")]], 0.01))
    if "torsion" in kinds:
        G = mat.E / (2 * (1 + mat.nu))
        # Saint-Venant torsion of a square: J_t = 0.140577 h^4, polar I_p = h^4 / 6; the clamp restrains
        # warping, which stiffens a stocky bar by a few tenths of a percent
        rows.append(_row(c, "torsion mode [Hz] vs Saint-Venant sqrt(G J_t/(rho I_p))/(4L)",
                         np.sqrt(G * 0.140577 * 6 / mat.density) / (4 * L), f[below[kinds.index("torsion")]], 0.03))
    return rows



def case_transient(quick: bool = False) -> list[dict]:
    """Cantilever 0.32 x 0.02 x 0.02 m (first mode about 160 Hz) under a tip force ramped 0 -> 100 N in 10 ms
    and held: mode acceleration with 4 modes against direct average-acceleration Newmark on the full system,
    both with the same Rayleigh damping (2 % at modes 1 and 3); and a 1 s ramp against the static solution."""
    from ..fe.response import build_basis, respond
    from ..fe.stress import von_mises
    from ..fe.supports import submatrix
    from ..fe.transient import Modes, mode_acceleration, newmark, rayleigh_zeta

    c = "transient"
    L, h, P, t_ramp = 0.32, 0.02, 100.0, 0.01
    part = beam_part(L, h, h, *((16, 2) if quick else (32, 4)), get_material("structural_steel"))
    F = part.patch_force_basis("tip")[:, 2:3] * P
    basis = build_basis(part, F, ["root"], n_modes=4)
    w = basis.omega
    z = 0.02
    a, b = 2 * z * w[0] * w[2] / (w[0] + w[2]), 2 * z / (w[0] + w[2])
    zeta = rayleigh_zeta(w, a, b)
    dt = 2 * np.pi / w[-1] / 25  # 25 steps per period of the highest kept mode
    t = np.unique(np.r_[np.arange(0.0, 0.04 + dt / 2, dt), t_ramp])
    coeff = np.clip(t / t_ramp, 0.0, 1.0)[:, None]
    ma = mode_acceleration(t, coeff, F, Modes(w, basis.phi), zeta)
    vm_modal = respond(part, basis, ma.static_coeff, ma.modal_coeff).max_von_mises
    free = part.free_dofs(["root"])
    K, M = submatrix(part.stiffness, free), submatrix(part.mass_matrix, free)
    u = newmark(K, M, F[free], coeff, t, C=a * M + b * K)
    U = np.zeros((part.n_dofs, len(t)))
    U[free] = u.T
    vm_newmark = max(float(von_mises(part.element_node_stress(U[:, i:i + 100])).max())
                     for i in range(0, len(t), 100))
    static = part.solve_static(["root"], patch_forces={"tip": (0.0, 0.0, P)}).max_von_mises
    t_slow = np.arange(0.0, 1.2 + 2.5e-4, 5e-4)
    c_slow = np.clip(t_slow / 1.0, 0.0, 1.0)[:, None]
    ma_slow = mode_acceleration(t_slow, c_slow, F, Modes(w, basis.phi), zeta)
    vm_slow = respond(part, basis, ma_slow.static_coeff, ma_slow.modal_coeff).max_von_mises
    return [
        _row(c, f"peak von Mises [Pa], 10 ms ramp: mode acceleration (4 modes) vs Newmark (dt {dt * 1e6:.0f} us, "
                f"{len(t)} steps; dynamic/static {vm_newmark / static:.3f})", vm_newmark, vm_modal, 0.01),
        _row(c, "peak von Mises [Pa], 1 s ramp (mode acceleration) vs static solution", static, vm_slow, 0.01),
    ]
