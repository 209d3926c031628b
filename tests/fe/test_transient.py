"""The fast FE path against independent references: the exact modal integrator against the closed-form ramp
response, assembly against scikit-fem's own quadrature assembly, element stresses against an exactly
representable quadratic displacement field, modes against a dense eigensolver, the blocked peak/envelope
reduction against a brute-force evaluation of every element node at every time, and the mode-acceleration
path against direct Newmark integration."""
import numpy as np
import pytest
import scipy.linalg as sla

from helpers import beam as beam_along_x

L, B, H = 0.3, 0.04, 0.03  # beam along x [m]


def _beam(n_len=8, distort=0.0, seed=0):
    """A 6061-O P2 tet beam with end faces 'root' (x = 0) and 'tip' (x = L), interior vertices moved randomly by up
    to ``distort`` times the spacing so that no element is axis-aligned."""
    return beam_along_x(L, B, H, n_len, "6061-O", distort=distort, seed=seed)


@pytest.fixture(scope="module")
def beam():
    return _beam(distort=0.2)


@pytest.fixture(scope="module")
def short_beam():
    return _beam(n_len=4, distort=0.2)


@pytest.fixture(scope="module")
def beam_basis(beam):
    from structcheck.fe.response import build_basis

    F = np.hstack([beam.body_load_basis()[:, [2, 5]], beam.wrench_basis("tip", [L, 0, 0])])  # 8 unit loads
    return build_basis(beam, F, ["root"], n_modes=6)


# ---------------------------------------------------------------------------------------- modal integration
def _ramp_response(t, w, z):
    """Closed-form response of eta'' + 2 z w eta' + w^2 eta = t (unit ramp) from rest."""
    wd = w * np.sqrt(1 - z * z)
    t = np.maximum(t, 0.0)
    return (t - 2 * z / w + np.exp(-z * w * t) * (2 * z / w * np.cos(wd * t)
                                                    + (2 * z * z - 1) / wd * np.sin(wd * t))) / w ** 2


def test_modal_response_ramp_and_hold_matches_closed_form():
    """A load ramping to 1 over T then held, sampled with three different steps (the breakpoint on a sample):
    the piecewise-linear integration is exact, so it equals the superposed closed-form ramp responses."""
    from structcheck.fe.transient import modal_response

    w, z, T = np.array([40.0, 250.0, 900.0]), np.array([0.0, 0.02, 0.3]), 0.05
    t = np.unique(np.r_[np.linspace(0, T, 26), np.linspace(T, 0.2, 31), np.linspace(0.2, 0.5, 7)])
    q = np.minimum(t / T, 1.0)[:, None] * np.ones(3)
    eta, _ = modal_response(t, q, w, z)
    exact = (_ramp_response(t[:, None], w, z) - _ramp_response(t[:, None] - T, w, z)) / T
    np.testing.assert_allclose(eta, exact, rtol=0, atol=1e-12 * np.abs(exact).max())


def _expm_maps(w, z, h):
    """Phi, g0, g1 of one mode and step from scipy's expm of the augmented state matrix (the reference)."""
    aug = np.zeros((4, 4))
    aug[0, 1], aug[1, 0], aug[1, 1], aug[1, 2], aug[2, 3] = 1.0, -w * w, -2 * z * w, 1.0, 1.0
    E = sla.expm(aug * h)
    return E[:2, :2], E[:2, 2] - E[:2, 3] / h, E[:2, 3] / h


@pytest.mark.parametrize("zeta", [0.0, 0.02, 0.7, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 1.3, 5.0])
def test_step_maps_equal_expm_of_the_state_matrix(zeta):
    """The closed-form maps of random steps and modes (w h from 1e-4 to 30, w -> 0 included) against expm.
    Compared in the scaled state (s eta, eta') with s = max(w, 1/h), where every entry is O(1): a relative
    error there is what the response loses; expm's own error grows with w h, so w h stays below 30."""
    from structcheck.fe.transient import step_maps

    rng = np.random.default_rng(7)
    h = 10 ** rng.uniform(-5, -1, 12)
    w = np.r_[0.0, 1e-8, 10 ** rng.uniform(0, 4, 16)]
    Phi, g0, g1 = step_maps(w, zeta, h)
    assert Phi.shape == (12, 18, 2, 2) and g0.shape == g1.shape == (12, 18, 2)
    n_checked = 0
    for i, hh in enumerate(h):
        for j, ww in enumerate(w):
            if ww * hh > 30:
                continue
            s = np.array([max(ww, 1 / hh), 1.0])
            P_ref, g0_ref, g1_ref = _expm_maps(ww, zeta, hh)
            scaled = [(Phi[i, j] * s[:, None] / s, P_ref * s[:, None] / s), (g0[i, j] * s, g0_ref * s),
                      (g1[i, j] * s, g1_ref * s)]
            for got, ref in scaled:
                np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
            n_checked += 1
    assert n_checked > 150


def test_modal_response_any_damping_does_not_depend_on_the_sampling():
    """Over-, critically and under-damped modes and w = 0 (a free mass) under a smooth load sampled on an
    irregular grid: the exact response does not depend on where the samples are, so the same load linear
    between the samples of a grid and of its refinement (every step split in three, the load interpolated)
    gives the same response at the common samples."""
    from structcheck.fe.transient import modal_response

    rng = np.random.default_rng(3)
    t = np.r_[0.0, np.cumsum(rng.uniform(1e-4, 3e-3, 400))]
    w = np.array([0.0, 30.0, 300.0, 3000.0, 60.0])
    z = np.array([0.0, 2.0, 1.0, 0.05, 0.999999])
    q = np.sin(np.outer(t, [3.0, 17.0, 40.0, 5.0, 11.0])) + 1.0
    fine = np.sort(np.r_[t, t[:-1] + np.diff(t) / 3, t[:-1] + 2 * np.diff(t) / 3])
    q_fine = np.column_stack([np.interp(fine, t, q[:, i]) for i in range(5)])
    eta, etad = modal_response(t, q, w, z, eta0=np.full(5, 1e-3), etad0=np.full(5, -2e-2))
    eta_f, etad_f = modal_response(fine, q_fine, w, z, eta0=np.full(5, 1e-3), etad0=np.full(5, -2e-2))
    at = np.searchsorted(fine, t)
    # each mode relative to its own largest value
    assert np.max(np.abs(eta_f[at] - eta) / np.abs(eta).max(axis=0)) < 1e-11
    assert np.max(np.abs(etad_f[at] - etad) / np.abs(etad).max(axis=0)) < 1e-11
    # the free mass (w = 0, no damping): eta' = etad0 + int q, exact for the trapezoid rule on a linear q
    np.testing.assert_allclose(etad[:, 0], -2e-2 + np.r_[0, np.cumsum(np.diff(t) * (q[1:, 0] + q[:-1, 0]) / 2)],
                               rtol=1e-12)


def test_from_equilibrium_keeps_a_constant_load_static(beam_basis):
    """Under loads constant in time, a link started in its static equilibrium stays there (zero correction);
    started from rest it oscillates about it with up to twice the static deflection (undamped step)."""
    from structcheck.fe.response import modal_coefficients

    t = np.linspace(0, 0.05, 501)
    coeff = np.tile(np.r_[9.81, 0, 0, 0, 0, -50.0, 0, 0], (len(t), 1))  # gravity and a tip force
    q0 = coeff[0] @ (beam_basis.phi.T @ beam_basis.F).T / beam_basis.omega ** 2  # static modal deflection
    eq = modal_coefficients(beam_basis, t, coeff, 0.0, from_equilibrium=True)
    assert np.abs(eq).max() <= 1e-9 * np.abs(q0).max()
    rest = modal_coefficients(beam_basis, t, coeff, 0.0)
    np.testing.assert_allclose(rest[0], -q0, rtol=1e-12)  # undeformed at t = 0
    np.testing.assert_allclose(np.abs(rest).max(axis=0), np.abs(q0), rtol=2e-2)  # -q0 .. +q0


# ---------------------------------------------------------------------------------------- assembly
def test_assembly_equals_scikit_fem_quadrature(beam):
    """K (2nd-order rule), M (4th order) and the 12 body loads equal scikit-fem's own assembly to round-off."""
    from skfem import Basis, BilinearForm, ElementTetP2, ElementVector, LinearForm, asm
    from skfem.helpers import dot
    from skfem.models.elasticity import lame_parameters, linear_elasticity

    rho, E, nu = beam.material.density, beam.material.E, beam.material.nu
    b2 = Basis(beam.mesh, ElementVector(ElementTetP2()), intorder=2)
    b4 = Basis(beam.mesh, ElementVector(ElementTetP2()), intorder=4)
    K0 = asm(linear_elasticity(*lame_parameters(E, nu)), b2)
    M0 = asm(BilinearForm(lambda u, v, _: rho * dot(u, v)), b4)
    assert abs(beam.stiffness - K0).max() <= 1e-13 * abs(K0).max()
    assert abs(beam.mass_matrix - M0).max() <= 1e-13 * abs(M0).max()
    cols = [LinearForm(lambda v, w, i=i: rho * v[i]).assemble(b4) for i in range(3)]
    cols += [LinearForm(lambda v, w, i=i, j=j: rho * w.x[j] * v[i]).assemble(b4) for i in range(3) for j in range(3)]
    F0 = np.column_stack(cols)
    np.testing.assert_allclose(beam.body_load_basis(), F0, rtol=0, atol=1e-13 * np.abs(F0).max())


def test_submatrix_equals_fancy_indexing(beam):
    from structcheck.fe.supports import submatrix

    free = beam.free_dofs(["root"])
    A = submatrix(beam.stiffness, free)
    assert abs(A - beam.stiffness[free][:, free]).max() == 0.0 and A.has_sorted_indices


# ---------------------------------------------------------------------------------------- stresses
def test_element_node_stress_of_a_quadratic_field_is_exact(beam):
    """u quadratic in x is exactly representable by P2: the stress at every element node is the closed form."""
    from structcheck.fe.assembly import lame

    rng = np.random.default_rng(1)
    A, Bq = rng.standard_normal((3, 3)) * 1e-4, rng.standard_normal((3, 3, 3)) * 1e-3  # u = A x + x^T B x
    Bq = (Bq + Bq.transpose(0, 2, 1)) / 2
    x = beam.points
    u = x @ A.T + np.einsum("cij,ni,nj->nc", Bq, x, x)
    U = np.zeros(beam.n_dofs)
    U[beam.node_dofs] = u
    S = beam.element_node_stress(U)[0]  # (n_elem, 10, 6)
    xe = x[beam.cells]  # (n_elem, 10, 3)
    grad = A[None, None] + 2 * np.einsum("cij,enj->enci", Bq, xe)  # du_c/dx_i
    eps = (grad + np.swapaxes(grad, -1, -2)) / 2
    lam, mu = lame(beam.material)
    s = 2 * mu * eps + lam * np.trace(eps, axis1=-2, axis2=-1)[..., None, None] * np.eye(3)
    ref = np.stack([s[..., 0, 0], s[..., 1, 1], s[..., 2, 2], s[..., 1, 2], s[..., 0, 2], s[..., 0, 1]], -1)
    np.testing.assert_allclose(S, ref, rtol=0, atol=1e-9 * np.abs(ref).max())


def test_von_mises_as_a_norm(rng):
    from structcheck.fe.stress import VON_MISES_MATRIX, von_mises

    s = rng.standard_normal((500, 6)) * 1e8
    np.testing.assert_allclose(np.linalg.norm(s @ VON_MISES_MATRIX.T, axis=1), von_mises(s), rtol=1e-13)


def test_max_principal_closed_form_matches_eigvalsh(rng):
    from structcheck.fe.stress import max_principal, principal_stresses

    s = rng.standard_normal((2000, 6)) * 1e8
    special = np.array([[1, 1, 1, 0, 0, 0], [2, 0, 0, 0, 0, 0], [1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0],
                        [-1, -1, 3, 0, 0, 0], [0, 0, 0, 1, 0, 0], [5, 5, -2, 0, 0, 1e-9]]) * 1e8
    s = np.vstack([s, special])
    ref = principal_stresses(s)[:, 0]
    # the trigonometric solution loses ~sqrt(eps) where the two largest principal stresses coincide
    np.testing.assert_allclose(max_principal(s), ref, rtol=0, atol=1e-7 * 1e8)


# ---------------------------------------------------------------------------------------- modes
def test_modes_match_dense_generalized_eigensolver(short_beam):
    from structcheck.fe.supports import submatrix
    from structcheck.fe.transient import modes

    beam = short_beam
    free = beam.free_dofs(["root"])
    K, M = submatrix(beam.stiffness, free), submatrix(beam.mass_matrix, free)
    md = modes(K, M, 6)
    w2, V = sla.eigh(K.toarray(), M.toarray(), subset_by_index=[0, 5])
    # the lowest six (none missed); the dense solver's own error on the lowest is ~1e-9 (cond(K) eps)
    np.testing.assert_allclose(md.omega ** 2, w2, rtol=1e-8)
    Kphi = K @ md.phi
    res = np.linalg.norm(Kphi - (M @ md.phi) * md.omega ** 2, axis=0) / np.linalg.norm(Kphi, axis=0)
    assert res.max() < 1e-9
    np.testing.assert_allclose(md.phi.T @ (M @ md.phi), np.eye(6), atol=1e-10)
    cos = np.abs(np.einsum("im,im->m", V, M @ md.phi))  # both M-normalized: |cos| = 1 for the same mode
    np.testing.assert_allclose(cos, 1.0, atol=1e-8)


# ---------------------------------------------------------------------------------------- peaks and envelopes
def _brute_force(part, basis, C):
    """Every element node at every time, straight from element_node_stress (the reference)."""
    from structcheck.fe.stress import principal_stresses, von_mises

    X = np.hstack([basis.U, basis.phi])
    s = part.element_node_stress(X @ C.T)  # (n_t, n_elem, 10, 6)
    vm = von_mises(s).reshape(len(C), -1)
    p1 = principal_stresses(s)[..., 0].reshape(len(C), -1)
    nodes = part.cells.ravel()
    env = np.zeros(len(part.points))
    np.maximum.at(env, nodes, vm.max(axis=0))
    penv = np.full(len(part.points), -np.inf)
    np.maximum.at(penv, nodes, p1.max(axis=0))
    u = (X @ C.T)[part.node_dofs]  # (n_nodes, 3, n_t)
    mag = np.linalg.norm(u, axis=1).T
    return vm, env, p1, penv, mag, nodes


@pytest.mark.parametrize("chunk_bytes", [1.6e7, 2e4])  # all times at once / chunks of time and small blocks
def test_respond_equals_brute_force(beam, beam_basis, rng, chunk_bytes):
    from structcheck.fe.response import respond

    n_t, k, m = 40, beam_basis.U.shape[1], beam_basis.phi.shape[1]
    coeff = rng.standard_normal((n_t, k)) * np.r_[1.0, 1.0, 1e3, 1e3, 1e3, 1e2, 1e2, 1e2]
    modal = rng.standard_normal((n_t, m)) * 1e-3
    r = respond(beam, beam_basis, coeff, modal, brittle=True, chunk_bytes=chunk_bytes)
    vm, env, p1, penv, mag, nodes = _brute_force(beam, beam_basis, np.hstack([coeff, modal]))
    tol = 1e-12
    np.testing.assert_allclose(r.vm_history, vm.max(axis=1), rtol=tol)
    assert r.i_time_max == np.argmax(vm.max(axis=1))
    assert r.max_von_mises == pytest.approx(vm.max(), rel=tol)
    # the node of the peak carries it (ties between nodes are legitimate)
    assert env[r.node_max] == pytest.approx(vm.max(), rel=tol)
    # round-off relative to the peak (a node with a small stress loses digits to cancellation)
    np.testing.assert_allclose(r.vm_envelope_nodes, env, rtol=0, atol=tol * env.max())
    np.testing.assert_allclose(r.principal_history, p1.max(axis=1), rtol=1e-7)
    np.testing.assert_allclose(r.principal_envelope, penv, rtol=0, atol=1e-7 * np.abs(penv).max())
    np.testing.assert_allclose(r.deformation_history, mag.max(axis=1), rtol=tol)
    np.testing.assert_allclose(r.deformation_envelope, mag.max(axis=0), rtol=0, atol=tol * mag.max())
    assert r.i_time_max_deformation == np.argmax(mag.max(axis=1))


def test_frame_fields_equal_brute_force(beam, beam_basis, rng):
    from structcheck.fe.response import frame_fields

    k, m = beam_basis.U.shape[1], beam_basis.phi.shape[1]
    coeff, modal = rng.standard_normal((5, k)) * 1e2, rng.standard_normal((5, m)) * 1e-3
    ff = frame_fields(beam, beam_basis, coeff, modal, brittle=True, chunk_bytes=5e4)
    vm, _, p1, _, _, nodes = _brute_force(beam, beam_basis, np.hstack([coeff, modal]))
    ref = np.zeros((5, len(beam.points)))
    pref = np.full((5, len(beam.points)), -np.inf)
    for i in range(5):
        np.maximum.at(ref[i], nodes, vm[i])
        np.maximum.at(pref[i], nodes, p1[i])
    np.testing.assert_allclose(ff["von_mises"], ref, rtol=0, atol=1e-12 * ref.max())
    np.testing.assert_allclose(ff["max_principal"], pref, rtol=0, atol=1e-7 * np.abs(pref).max())
    u = (np.hstack([beam_basis.U, beam_basis.phi]) @ np.hstack([coeff, modal]).T)[beam.node_dofs]
    np.testing.assert_allclose(ff["displacement"], u.transpose(2, 0, 1), rtol=0, atol=1e-13 * np.abs(u).max())


# ---------------------------------------------------------------------------------------- fast path vs Newmark
def test_mode_acceleration_matches_direct_newmark(beam, beam_basis):
    """Tip load stepped on over 2 ms (a few periods of the first mode) and held: 6 modes + the mode-acceleration
    static correction against average-acceleration Newmark on the full system with a step of 1/200 of the
    first period (its period error, ~(w dt)^2/12, is below 1e-4)."""
    from structcheck.fe.response import modal_coefficients
    from structcheck.fe.supports import submatrix
    from structcheck.fe.transient import newmark

    free = beam.free_dofs(["root"])
    K, M = submatrix(beam.stiffness, free), submatrix(beam.mass_matrix, free)
    T1 = 2 * np.pi / beam_basis.omega[0]
    t = np.arange(0, 3 * T1, T1 / 200)
    coeff = np.zeros((len(t), beam_basis.U.shape[1]))
    coeff[:, 4] = -200.0 * np.minimum(t / 2e-3, 1.0)  # Fz at the tip [N]
    modal = modal_coefficients(beam_basis, t, coeff, damping_ratio=0.0)
    u_fast = (np.hstack([beam_basis.U, beam_basis.phi]) @ np.hstack([coeff, modal]).T)[free].T
    u_ref = newmark(K, M, beam_basis.F[free], coeff, t)
    tip = np.argmax(np.abs(u_ref[-1]))
    np.testing.assert_allclose(u_fast[:, tip], u_ref[:, tip], rtol=0, atol=5e-3 * np.abs(u_ref[:, tip]).max())
