"""A closed chain through the whole pipeline: a planar parallelogram of beams (crank, coupler, rocker) whose loop
is closed by a cut joint. The rocker is a two-force member, so hand statics give its axial stress; the loop's
out-of-plane load split is statically indeterminate and the run says so."""
import numpy as np
import pytest

import helpers

from structcheck.rigid.closedchain import ClosedChain, CutJoint
from structcheck.model.robot import Joint, Link, Robot
from structcheck.study import PointForce, Study, run

L, D, S = 0.30, 0.20, 0.02  # crank/rocker length, pivot spacing (coupler length), square section [m]


def T(x=0.0, z=0.0):
    M = np.eye(4)
    M[:3, 3] = (x, 0.0, z)
    return M


def beam(axis, length, n, ends, patch=None):
    """Steel beam of section S x S from 0 to +-length along x (axis 0) or z (axis 2), end faces ``ends``;
    ``patch`` = (name, z_center) names facets on the x = -S/2 side around z_center."""
    part = helpers.beam(length, S, S, n, ends=ends, axis=axis)
    if patch:
        name, zc = patch
        part = part.with_surfaces({**{k: part.surface_facets(k) for k in part.surfaces},
                                   name: part.select_facets(lambda x: np.isclose(x[0], -S / 2)
                                                            & (np.abs(x[2] - zc) < 0.021))})
    return part


def parallelogram(h):
    y = np.array([0.0, 1.0, 0.0])
    links = [Link("ground"), Link("crank"), Link("coupler"), Link("rocker")]
    joints = [Joint("joint1", "revolute", "ground", "crank", T(), y, -2, 2),
              Joint("joint2", "revolute", "crank", "coupler", T(x=L), y, -2, 2),
              Joint("joint3", "revolute", "ground", "rocker", T(z=-D), y, -2, 2)]
    tree = Robot(links, joints, points={"load": ("coupler", (0.0, 0.0, -h))}, name="parallelogram")
    cut = CutJoint("cut", "revolute", "coupler", "rocker", origin=T(z=-D), child_origin=T(x=L), axis=y)
    return ClosedChain(tree, [cut], independent=["joint1"])


@pytest.fixture(scope="module")
def parts():
    h = 0.1
    return h, {"crank": beam(0, L, 30, ("joint1", "joint2")),
               "coupler": beam(2, -D, 20, ("joint2", "cut"), patch=("load", -h)),
               "rocker": beam(0, L, 30, ("joint3", "cut"))}


def test_two_force_rocker_stress_and_indeterminate_components(parts):
    """Horizontal force Hf at depth h on the coupler (no gravity): moments about the coupler's upper pin give the
    rocker's axial force Hf h / D, so its stress away from the ends is Hf h / (D S^2)."""
    h, p = parts
    Hf, V = 200.0, 150.0
    force = float(np.hypot(Hf, V))
    study = Study(name="parallelogram", robot=parallelogram(h), parts=p, motion={}, t_end=1.0, n_frames=3,
                  flexibility="link", gravity=(0, 0, 0), quasi_static=True, support_band_m=0.04,
                  point_forces=(PointForce("load", force, (Hf, 0.0, -V)),))
    summary = run(study, progress=False, write=False).summary
    sigma = Hf * h / (D * S ** 2)
    rocker = summary.links["rocker"]
    assert rocker.max_von_mises_away_from_support_pa == pytest.approx(sigma, rel=0.01)
    # the vertical load goes through the crank's torque: V L about joint 1 (hand statics)
    assert summary.joints["joint1"].max_abs_torque == pytest.approx(V * L, rel=1e-9)
    assert summary.checks.equilibrium_rel_error < 1e-9
    for name in ("joint1", "joint2", "joint3", "cut"):
        assert summary.joints[name].undetermined_components == ["Fy", "Mx", "Mz"]
    assert any("statically indeterminate" in w for w in summary.warnings)


def test_moving_parallelogram_balances(parts):
    h, p = parts
    study = Study(name="parallelogram_motion", robot=parallelogram(h), parts=p, t_end=1.0, n_frames=5,
                  flexibility="link", motion={"joint1": "STEP(time,0,0,1,30d)"}, n_modes=3,
                  point_forces=(PointForce("load", 50.0, (1.0, 0.0, 0.0)),))
    res = run(study, progress=False, write=False)
    q = res.q
    names = list(res.dof_names)
    # the coupler translates: joint2 = -joint1, and the rocker follows the crank
    np.testing.assert_allclose(q[:, names.index("joint2")], -q[:, names.index("joint1")], atol=1e-10)
    np.testing.assert_allclose(q[:, names.index("joint3")], q[:, names.index("joint1")], atol=1e-10)
    checks = res.summary.checks
    assert checks.power_balance_rel_error < 1e-8
    assert checks.equilibrium_rel_error < 1e-8
    assert checks.rigid_body_equilibrium_rel_error < 1e-10
    assert 0.0 <= checks.loop_closure_residual < 1e-10  # [m], the cut joint's gap over the motion
    # passive joints carry no actuator torque
    assert np.all(res.tau[:, names.index("joint2")] == 0) and np.all(res.tau[:, names.index("joint3")] == 0)
