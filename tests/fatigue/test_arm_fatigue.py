"""Fatigue in the arm model (the default flexibility) against a hand calculation: Basquin + Goodman + Miner on a
stress history known in closed form.

The arm: one steel beam link 'beam' (L = 0.4 m along x, h = 20 mm square section) on the revolute joint 'joint1'
at x = 0, held still (no motion law: the joint is rigid), so the link is a Craig-Bampton superelement clamped at
its flange. The load: a force F(t) along +x (the beam's axis) at the robot point 'tip' = (L, 0, E) in the link
frame, an eccentricity E above the axis, spread over the end face by the interface's linear traction field. Every
section then carries the same axial force N = F and bending moment M_y = F E (no shear), so away from the clamped
flange the stress is uniaxial, the same at every x:

    sigma_xx(z) = F / A + F E z / I,   A = h^2, I = h^4 / 12,

largest on the top face z = h/2. A linear stress field is a quadratic displacement field, which the P2 tets
represent exactly. F(t) rises from 0 to F_MAX and back (cubic STEP ramps of T = 0.25 s): one duty cycle is one
cycle of amplitude = mean = sigma_top(F_MAX) / 2.

The S-N curve of a band of the top face ('gauge', 0.12 <= x <= 0.28 m, six section heights from the flange) is a
Basquin law without cut-off, S_a = S_f (2 N)^b, with Goodman's mean-stress correction on S_u; the rest of the
link keeps structural steel's curve, whose endurance limit (230 MPa amplitude) no cycle reaches (the largest
Goodman amplitude on the link, at the flange, is below 60 MPa), so the gauge band governs the link's life and
fatigue safety factor, and the hand values are:

    S_ar = S_a / (1 - S_m / S_u)                     (Goodman)
    N = (S_ar / S_f)^(1 / b) / 2                     (Basquin)
    damage per duty cycle = 1 / N                    (Miner, one cycle per duty cycle)
    safety factor x: x S_a / (1 - x S_m / S_u) = S_f (2 N_design)^b  (the history scaled until N = N_design)

Error budget (relative, on the gauge band's stress), run twice:
- quasi-static (no elastic inertia): discretization 0 beyond round-off (the field is in the P2 space on
  straight-sided tets); the clamped flange's disturbance decays like exp(-pi x / h) (Saint-Venant), below 1e-8 at
  x = 6 h; the end face's traction is the linear field itself, so no end disturbance. Held to 1e-6.
- transient (the default): the same plus the ringing of the first bending mode (f1 = 1.875^2 / (2 pi L^2)
  sqrt(E I / (rho A)) = 102.6 Hz, Euler-Bernoulli) that the ramps leave: the load reaches the structure
  piecewise-linear between the study's time samples (2.4-62 ms apart here, omega dt up to 40: the kinks, not
  the smooth ramp's 6 / (omega T)^2 = 2.3e-4, dominate). The test integrates that mode's modal equation
  y'' + 2 zeta w y' + w^2 y = w^2 F(t) on the run's own grid (scipy, independently of structcheck's exact
  piecewise-linear integration) and bounds the stress error by max |y - F| / F_MAX: mode 1 carries 93% of the
  static bending stress at x = 0.12 m under a tip moment (Euler-Bernoulli modal expansion) and less further out,
  the bound takes 100%; a range (max - min) takes the ringing twice; the next bending mode (6.27 f1) rings
  (6.27)^-2 = 1/39 as much and is covered by a further 10%.
Life: N ~ S_ar^(1/b) with 1/b = -6.67 and S_ar's sensitivity to the stress 1 / (1 - S_m / S_u) = 1.09, so the
life's tolerance is 7.3 times the stress's; the safety factor is linear in the stress: the stress's.
"""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from skfem import MeshTet

from structcheck.fatigue import SNCurve
from structcheck.fe.part import Part
from structcheck.model.robot import Joint, Link, Robot
from structcheck.settings import Fatigue
from structcheck.study import PointForce, Study, run

MPa = 1e6
L, H, N_LEN, N_SIDE = 0.40, 0.02, 20, 2  # beam length, section side [m]; hexahedra along and across
A, I, C = H * H, H ** 4 / 12, H / 2  # section area [m^2], second moment [m^4], top fibre [m]
ECC = 0.05  # eccentricity of the axial force above the axis [m]
F_MAX = 2000.0  # N
RAMP = 0.25  # s
FORCE = f"STEP(time, 0, 0, {RAMP}, {F_MAX}) + STEP(time, 0.5, 0, {0.5 + RAMP}, {-F_MAX})"  # 0 -> F_MAX -> 0
GAUGE = (0.12, 0.28)  # x range of the gauge band [m]
S_F, B, S_U = 600 * MPa, -0.15, 500 * MPa  # the gauge band's Basquin coefficient, exponent, ultimate strength
BASQUIN = SNCurve.from_basquin("gauge Basquin", S_F, B, ultimate_strength=S_U, source="test values")
DESIGN_LIFE = 1e6  # duty cycles
CYCLES_PER_HOUR = 100.0


def sigma_top(force):
    """Closed-form sigma_xx [Pa] on the top face z = h/2 under the eccentric axial force ``force`` [N]."""
    return force / A + force * ECC * C / I


def hand_values():
    """(amplitude, mean, life [cycles], damage per cycle, fatigue safety factor) of the gauge band by hand."""
    a = m = sigma_top(F_MAX) / 2
    s_ar = a / (1 - m / S_U)
    life = (s_ar / S_F) ** (1 / B) / 2
    s_design = S_F * (2 * DESIGN_LIFE) ** B
    return a, m, life, 1 / life, s_design / (a + s_design * m / S_U)


def beam_with_gauge() -> Part:
    """The P2 tet beam with its end faces 'joint1' (x = 0) and 'tip' (x = L) and the top-face band 'gauge'."""
    mesh = MeshTet.init_tensor(np.linspace(0, L, N_LEN + 1), np.linspace(-H / 2, H / 2, N_SIDE + 1),
                               np.linspace(-H / 2, H / 2, N_SIDE + 1))
    mid = mesh.p[:, mesh.facets].mean(axis=1)  # (3, n_facets) facet centroids
    bnd = mesh.boundary_facets()
    x, z = mid[0, bnd], mid[2, bnd]
    gauge = bnd[np.isclose(z, H / 2) & (x > GAUGE[0]) & (x < GAUGE[1])]
    return Part.from_skfem(mesh, "structural_steel", surfaces={"joint1": bnd[np.isclose(x, 0.0)],
                                                              "tip": bnd[np.isclose(x, L)], "gauge": gauge})


def arm_study() -> Study:
    robot = Robot([Link("ground"), Link("beam")],
                  [Joint("joint1", "revolute", "ground", "beam", np.eye(4), np.array([0, 1.0, 0]), -3, 3)],
                  points={"tip": ("beam", np.array([L, 0.0, ECC]))})
    return Study(name="arm_fatigue", robot=robot, motion={}, parts={"beam": beam_with_gauge()}, t_end=1.0,
                 n_frames=5, point_forces=(PointForce("tip", FORCE, (1, 0, 0)),), gravity=(0, 0, 0),
                 tool_point="tip", flexibility="arm",
                 fatigue=Fatigue(cycles_per_hour=CYCLES_PER_HOUR, design_life_cycles=DESIGN_LIFE,
                                 mean_stress_correction="goodman", details={"beam": {"gauge": BASQUIN}}))


def cubic_step(t, t0, t1):
    """ADAMS STEP(t, t0, 0, t1, 1): 0 before t0, 1 after t1, 3 D^2 - 2 D^3 between."""
    D = np.clip((t - t0) / (t1 - t0), 0.0, 1.0)
    return D * D * (3 - 2 * D)


def ringing_bound(t_grid) -> float:
    """Relative stress error bound of the transient run (module docstring): max |y - F| / F_MAX of the first
    bending mode driven by F(t) interpolated linearly between the samples ``t_grid`` [s], integrated by scipy
    (DOP853, steps well inside every sample interval), times 2 (a range) and 1.1 (the higher modes)."""
    from scipy.integrate import solve_ivp

    rho, E, zeta = 7850.0, 200e9, 0.02  # structural_steel; Study's default damping ratio
    w = 1.875104 ** 2 / L ** 2 * np.sqrt(E * I / (rho * A))
    F_grid = F_MAX * (cubic_step(t_grid, 0, RAMP) - cubic_step(t_grid, 0.5, 0.5 + RAMP))

    def rhs(t, s):
        return [s[1], w * w * (np.interp(t, t_grid, F_grid) - s[0]) - 2 * zeta * w * s[1]]

    t = np.linspace(0, t_grid[-1], 40001)
    y = solve_ivp(rhs, (0, t_grid[-1]), [0.0, 0.0], method="DOP853", t_eval=t, rtol=1e-10, atol=1e-8,
                  max_step=2e-4).y[0]
    return 2 * 1.1 * np.abs(y - np.interp(t, t_grid, F_grid)).max() / F_MAX


@pytest.fixture(scope="module", params=["quasi_static", "transient"])
def arm_run(request, tmp_path_factory):
    """(result, results folder, stress tolerance) of the arm-model study, quasi-static or transient."""
    out = tmp_path_factory.mktemp("arm_fatigue") / request.param
    study = dataclasses.replace(arm_study(), quasi_static=request.param == "quasi_static")
    result = run(study, out, progress=False, vtk=True, plots=False)
    return result, out, 1e-6 if study.quasi_static else ringing_bound(result.t)


def test_the_hand_values_are_in_the_basquin_branch_and_below_the_steel_endurance():
    """The hand calculation's own premises: a finite life on the gauge band, and no cycle on the rest of the link
    reaching steel's endurance limit even at 1.3x the nominal stress (the flange's local rise)."""
    a, m, life, _, sf = hand_values()
    assert a == pytest.approx(40 * MPa) and 1e5 < life < 1e9 and 1.2 < sf < 2.0
    steel = 230 * MPa  # structural_steel's S_e' (structcheck.fatigue.sn), amplitude at 1e6 cycles
    assert 1.3 * a / (1 - 1.3 * m / (460 * MPa)) < steel / 3


def test_arm_model_gauge_stress_is_the_closed_form(arm_run):
    import pyvista as pv

    result, out, tol = arm_run
    assert result.summary.flexibility == "arm"
    env = pv.read(out / "vtk" / "beam_envelope.vtu")
    x, z = env.points[:, 0], env.points[:, 2]
    top = np.flatnonzero(np.isclose(z, H / 2) & (x >= GAUGE[0] - 1e-9) & (x <= GAUGE[1] + 1e-9))
    n_x = 2 * round((GAUGE[1] - GAUGE[0]) / (L / N_LEN)) + 1  # vertex and mid-side positions along x
    assert len(top) == n_x * (2 * N_SIDE + 1)  # and across: vertices, edge and face-diagonal mid-side nodes
    # the envelope's von Mises of a uniaxial stress is |sigma_xx|: every node of the band, vertex or mid-side
    np.testing.assert_allclose(env["von_mises"][top], sigma_top(F_MAX), rtol=tol)


def test_arm_model_fatigue_is_basquin_goodman_miner_by_hand(arm_run):
    import pyvista as pv

    result, out, tol = arm_run
    _, _, life, damage, sf = hand_values()
    s = result.summary.links["beam"]
    assert s.min_fatigue_life_cycles == pytest.approx(life, rel=7.3 * tol)
    assert s.fatigue_damage_per_cycle == pytest.approx(damage, rel=7.3 * tol)
    assert s.min_fatigue_life_hours == pytest.approx(life / CYCLES_PER_HOUR, rel=7.3 * tol)
    assert s.fatigue_safety_factor == pytest.approx(sf, rel=tol)
    assert s.fatigue_passed and result.summary.passed  # life > design life, safety factor > 1
    x, _, z = s.location_of_min_life_m
    assert GAUGE[0] - 1e-9 <= x <= GAUGE[1] + 1e-9 and z == pytest.approx(H / 2)  # on the gauge band
    # per node (the envelope's fields): the whole band at the hand life, every other node infinite life
    env = pv.read(out / "vtk" / "beam_envelope.vtu")
    xs, zs = env.points[:, 0], env.points[:, 2]
    band = np.isclose(zs, H / 2) & (xs >= GAUGE[0] - 1e-9) & (xs <= GAUGE[1] + 1e-9)
    np.testing.assert_allclose(env["fatigue_damage"][band], damage, rtol=7.3 * tol)
    assert np.all(env["fatigue_damage"][~band] == 0)
    summary = json.loads((out / "summary.json").read_text())["links"]["beam"]
    assert summary["fatigue_safety_factor"] == pytest.approx(sf, rel=tol)
