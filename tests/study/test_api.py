"""The public names other tools rely on (issues #2, #3, #4) and `structcheck info`."""
from pathlib import Path

import numpy as np
import pytest

import structcheck

ROOT = Path(__file__).resolve().parents[2]


def test_motion_and_robot_interface(tmp_path):
    law = structcheck.MotionLaw("STEP(time,3,0,5,90d)")
    assert law.value(np.array([5.0]))[0] == pytest.approx(np.pi / 2)
    with pytest.raises(structcheck.InputError) as err:
        structcheck.MotionLaw("STEP(time,3,0,5")
    assert isinstance(err.value, ValueError) and "STEP(time,3,0,5" in str(err.value)
    urdf = tmp_path / "r.urdf"
    urdf.write_text("""<robot name="r"><link name="a"/><link name="b"><inertial><mass value="2"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="c"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
      <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <joint name="f" type="fixed"><parent link="b"/><child link="c"/></joint></robot>""")
    robot = structcheck.Robot.from_urdf(urdf)
    res = robot.inverse_dynamics(np.zeros((4, 1)), np.zeros((4, 1)), np.ones((4, 1)), gravity=(0, 0, -9.81))
    assert res.tau.shape == (4, 1) and res.joint_names == ("j", "f") and res.joint_wrenches.shape == (4, 2, 6)
    assert res.tau[0, 0] == pytest.approx(0.1)  # izz * qdd


def test_part_interface():
    # paper 004's wrist roll meshed coarse, with linear tets (make_paper004_meshes.wrist_roll through
    # write_part_meshes(size_factor=2.5, order=1)): the shipped curved mesh takes a minute for these five solves
    part = structcheck.Part.from_mesh(ROOT / "tests" / "data" / "wrist_roll_coarse.msh", material="6061-O", units="m")
    assert set(part.surfaces) == {"joint5", "joint6"}
    sol = part.solve_static(fixed=["joint5"], wrenches={"joint6": ((0, 100.0, 0), (0, 0, 0), (0, 0, 0.188))},
                            gravity=(0, 0, -9.81))
    n = len(sol.points)
    assert sol.displacement.shape == (n, 3) and sol.von_mises.shape == (n,)
    assert sol.max_von_mises >= sol.von_mises.max()  # unaveraged peak >= nodal averages
    # the support balances the 100 N at (0, 0, 0.188) and the part's weight at its centre of mass
    mp = part.mass_properties()
    weight = mp.mass * np.array([0, 0, -9.81])
    F, p = np.array([0, 100.0, 0]), np.array([0, 0, 0.188])
    applied = np.r_[F + weight, np.cross(p, F) + np.cross(mp.com, weight)]
    np.testing.assert_allclose(sol.reaction, -applied, rtol=0, atol=1e-8 * np.abs(applied).max())
    # linear elasticity: the force alone, doubled, doubles every displacement and stress
    one, two = (part.solve_static(fixed=["joint5"], wrenches={"joint6": ((0, f, 0), (0, 0, 0), (0, 0, 0.188))})
                for f in (100.0, 200.0))
    np.testing.assert_allclose(two.displacement, 2 * one.displacement, rtol=1e-9, atol=1e-20)
    assert two.max_von_mises == pytest.approx(2 * one.max_von_mises, rel=1e-9)
    # and with gravity the two add up (superposition)
    grav = part.solve_static(fixed=["joint5"], gravity=(0, 0, -9.81))
    np.testing.assert_allclose(sol.displacement, one.displacement + grav.displacement, rtol=0,
                               atol=1e-9 * np.abs(sol.displacement).max())
    # the 100 N bends the wrist roll sideways: the loaded face moves along +y, the clamped one does not
    tip, root = part.surface_nodes("joint6"), part.surface_nodes("joint5")
    assert one.displacement[tip, 1].mean() > 0 and np.abs(one.displacement[root]).max() == 0.0
    with pytest.raises(structcheck.InputError, match=r"no surface 'tip'.*\['joint5', 'joint6'\]"):
        part.solve_static(fixed=["joint5"], wrenches={"tip": ((0, 1, 0), (0, 0, 0), (0, 0, 0))})


def test_info_command(tmp_path, capsys):
    """`structcheck info` on the tiny cantilever study of test_cli_run: its numbers against independent values."""
    from helpers import SMALL_L as L, SMALL_H as H, N_LEN, N_SIDE, write_small_study

    from structcheck.cli import main
    from structcheck.model.materials import get_material

    assert main(["info", str(write_small_study(tmp_path))]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert out.startswith("study tiny_cantilever: 1 degrees of freedom ['joint1']")
    # the model the study runs (the arm model), not the per-link model of info's helper run at home
    assert out.splitlines()[1].startswith("structural model: arm (flexibility='arm'")
    assert out.splitlines()[2].startswith("joints held rigid: joint1: no arm.joint_stiffness given")
    assert "per-link (flexibility='link'" not in captured.out + captured.err
    header = next(line for line in out.splitlines() if line.startswith("link "))
    assert header.split() == ["link", "material", "mass", "kg", "nodes", "elements", "f1", "Hz"]
    name, material, mass, nodes, elements, f1 = next(ln for ln in out.splitlines() if ln.startswith("beam ")).split()
    assert (name, material) == ("beam", "structural_steel")
    steel = get_material("structural_steel")
    # a box: mass = rho L H^2 (printed to 1 g)
    assert float(mass) == pytest.approx(steel.density * L * H ** 2, abs=5e-4)
    # init_tensor splits each of the N_LEN x N_SIDE x N_SIDE hexahedra into 6 tetrahedra; quadratic nodes are
    # the vertices plus one per edge (counted here from the mesh's own tetrahedra)
    from skfem import MeshTet

    grid = [np.linspace(0, L, N_LEN + 1)] + [np.linspace(-H / 2, H / 2, N_SIDE + 1)] * 2
    t = MeshTet.init_tensor(*grid).t.T
    n_edges = len(np.unique(np.sort(t[:, [0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3]].reshape(-1, 2), axis=1), axis=0))
    n_vertices = (N_LEN + 1) * (N_SIDE + 1) ** 2
    assert int(elements) == len(t) == 6 * N_LEN * N_SIDE ** 2
    assert int(nodes) == n_vertices + n_edges
    # a slender (L/H = 20) cantilever clamped at joint1: Euler-Bernoulli's first bending mode
    # 1.875^2 / (2 pi L^2) sqrt(E I / (rho A)); 2 %: shear and rotary inertia (~0.3 %) and the coarse section mesh
    I, A = H ** 4 / 12, H ** 2
    f_eb = 1.8751 ** 2 / (2 * np.pi * L ** 2) * np.sqrt(steel.E * I / (steel.density * A))
    assert float(f1) == pytest.approx(f_eb, rel=0.02)
