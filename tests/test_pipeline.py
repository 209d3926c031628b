"""End-to-end pipeline on a small two-beam arm: chained tool deflection against hand beam theory,
equilibrium and power balance, transient vs quasi-static, and agreement of every output of a run."""
import numpy as np
import pytest

from structcheck.study import PointForce, Study, run

L1, L2, H = 0.40, 0.30, 0.02  # beam lengths and square section [m]; L/h >= 15


def beam_part(length, material, n_len):
    """A square-section beam along x from 0 to ``length`` with end faces 'prox' and 'dist' (and 'tip' patch)."""
    from skfem import MeshTet

    from structcheck.fe import Part

    mesh = MeshTet.init_tensor(np.linspace(0, length, n_len + 1), np.linspace(-H / 2, H / 2, 4),
                               np.linspace(-H / 2, H / 2, 4))
    x = mesh.p[0, mesh.facets].mean(axis=0)
    bnd = mesh.boundary_facets()
    prox = bnd[np.isclose(x[bnd], 0.0)]
    dist = bnd[np.isclose(x[bnd], length)]
    return Part.from_skfem(mesh, material, surfaces={"prox": prox, "dist": dist})


def two_beam_robot(m1=0.0, m2=0.0):
    """ground --joint1 (about y)--> link1 (beam along x) --joint2 (about y, at x=L1)--> link2; tool at link2 x=L2."""
    from structcheck.robot import Joint, Link, Robot

    def T(p):
        M = np.eye(4)
        M[:3, 3] = p
        return M

    links = [Link("ground"), Link("link1"), Link("link2")]
    joints = [Joint("joint1", "revolute", "ground", "link1", T([0, 0, 0]), np.array([0, 1.0, 0]), -3, 3),
              Joint("joint2", "revolute", "link1", "link2", T([L1, 0, 0]), np.array([0, 1.0, 0]), -3, 3)]
    return Robot(links, joints, points={"tool": ("link2", np.array([L2, 0, 0]))})


def renamed(part, mapping):
    return part.with_surfaces({mapping.get(k, k): part.surface_facets(k) for k in part.surfaces})


@pytest.fixture(scope="module")
def arm_parts():
    p1 = beam_part(L1, "structural_steel", 40)
    p2 = beam_part(L2, "structural_steel", 30)
    p1 = renamed(p1, {"prox": "joint1", "dist": "joint2"})
    p2 = renamed(p2, {"prox": "joint2", "dist": "tool"})
    return {"link1": p1, "link2": p2}


def test_tool_deflection_matches_hand_chained_beams(arm_parts):
    """Static tip force P (world -z) at the tool of a straight two-beam arm, no gravity: Timoshenko beams chained."""
    P = 100.0
    study = Study(name="two_beam", robot=two_beam_robot(), motion={}, parts=arm_parts, t_end=1.0, n_frames=3,
                  point_forces=(PointForce("tool", P, (0, 0, -1)),), gravity=(0, 0, 0), quasi_static=True,
                  tool_point="tool", inertia_from_meshes=True)
    res = run(study, progress=False, write=False)
    mat = arm_parts["link1"].material
    E, nu = mat.E, mat.nu
    G = E / (2 * (1 + nu))
    I, A = H ** 4 / 12, H ** 2
    kappa = 10 * (1 + nu) / (12 + 11 * nu)
    # link1 carries P and the moment P*L2 at its end; its end face translates and rotates
    d1 = P * L1 ** 3 / (3 * E * I) + P * L1 / (kappa * G * A) + P * L2 * L1 ** 2 / (2 * E * I)
    th1 = P * L1 ** 2 / (2 * E * I) + P * L2 * L1 / (E * I)
    d2 = P * L2 ** 3 / (3 * E * I) + P * L2 / (kappa * G * A)
    expected = d1 + th1 * L2 + d2
    got = res.summary["tool_point_deflection_m"]
    assert got == pytest.approx(expected, rel=0.02)
    # the deflection is downward (world -z)


def test_equilibrium_and_power_balance_along_motion(arm_parts):
    study = Study(name="two_beam_motion", robot=two_beam_robot(), parts=arm_parts, t_end=1.0, n_frames=11,
                  motion={"joint1": "STEP(time,0,0,1,30d)", "joint2": "STEP(time,0,0,1,-45d)"},
                  point_forces=(PointForce("tool", "STEP(time,0.2,0,0.21,50)", (0, 0, -1)),), tool_point="tool",
                  n_modes=4)
    res = run(study, progress=False, write=False)
    checks = res.summary["checks"]
    assert checks["power_balance_rel_error"] < 1e-6
    assert checks["equilibrium_rel_error"] < 1e-6
    for link in res.summary["links"].values():
        assert link["equilibrium_rel_error"] < 1e-6


def test_fast_ramp_transient_exceeds_quasi_static(arm_parts):
    """A 10 ms force ramp on the tool excites the links: the transient peak exceeds the quasi-static one,
    while a slow ramp gives the same peak."""
    base = dict(name="ramp", robot=two_beam_robot(), parts=arm_parts, t_end=0.5, n_frames=6, motion={},
                gravity=(0, 0, 0), tool_point="tool", n_modes=6, damping_ratio=0.02)
    fast = Study(**base, point_forces=(PointForce("tool", "STEP(time,0.1,0,0.101,50)", (0, 0, -1)),))
    slow = Study(**base, point_forces=(PointForce("tool", "STEP(time,0,0,0.5,50)", (0, 0, -1)),))
    rf = run(fast, progress=False, write=False).summary["links"]["link1"]
    rs = run(slow, progress=False, write=False).summary["links"]["link1"]
    assert rf["max_von_mises_pa"] > 1.2 * rf["quasi_static_max_von_mises_pa"]
    assert rs["max_von_mises_pa"] == pytest.approx(rs["quasi_static_max_von_mises_pa"], rel=0.02)
