"""Shared test structures: P2 tet beams with named end faces, small robots (a two-beam arm, a general 7-joint
chain, a branched tree with a mimic joint) and a tiny cantilever study script. Tests import these instead of
building their own copies or importing each other."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from structcheck.model.robot import Joint, Link, PointMass, Robot, rpy_matrix

# ------------------------------------------------------------------------------------------------- beams
L1, L2, H = 0.40, 0.30, 0.02  # the two-beam arm: link lengths and square section [m]; L/h >= 15


def beam(length, width, height, n_len, material="structural_steel", ends=("root", "tip"), axis=0, n_side=3,
         distort=0.0, seed=0):
    """A P2 tet beam (scikit-fem tensor mesh, ``n_len`` cells along, ``n_side`` across) along x (``axis`` 0) or
    z (``axis`` 2) from 0 to ``length`` [m] (negative: towards -x or -z), section ``width`` x ``height`` [m]
    centred on the axis, with the end faces at 0 and at ``length`` named ``ends``. ``distort`` moves the
    interior vertices randomly by up to that fraction of the spacing (seeded) so that no element is
    axis-aligned."""
    from skfem import MeshTet

    from structcheck.fe.part import Part

    along = np.linspace(0.0, length, n_len + 1) if length > 0 else np.linspace(length, 0.0, n_len + 1)
    wide, high = np.linspace(-width / 2, width / 2, n_side + 1), np.linspace(-height / 2, height / 2, n_side + 1)
    mesh = MeshTet.init_tensor(along, wide, high) if axis == 0 else MeshTet.init_tensor(wide, high, along)
    if distort:
        p = mesh.p.copy()
        inner = np.setdiff1d(np.arange(p.shape[1]), mesh.boundary_nodes())
        spacing = np.array([abs(length) / n_len, width / n_side, height / n_side])
        h = (spacing if axis == 0 else spacing[[1, 2, 0]])[:, None]
        p[:, inner] += distort * h * np.random.default_rng(seed).uniform(-1, 1, (3, len(inner)))
        mesh = MeshTet(p, mesh.t)
    mid = mesh.p[axis, mesh.facets].mean(axis=0)
    bnd = mesh.boundary_facets()
    return Part.from_skfem(mesh, material, surfaces={ends[0]: bnd[np.isclose(mid[bnd], 0.0)],
                                                      ends[1]: bnd[np.isclose(mid[bnd], length)]})


def two_beam_robot(m1=0.0, m2=0.0):
    """ground --joint1 (about y)--> link1 (beam along x) --joint2 (about y, at x = L1)--> link2; tool at link2
    x = L2."""
    def T(p):
        M = np.eye(4)
        M[:3, 3] = p
        return M

    links = [Link("ground"), Link("link1"), Link("link2")]
    joints = [Joint("joint1", "revolute", "ground", "link1", T([0, 0, 0]), np.array([0, 1.0, 0]), -3, 3),
              Joint("joint2", "revolute", "link1", "link2", T([L1, 0, 0]), np.array([0, 1.0, 0]), -3, 3)]
    return Robot(links, joints, points={"tool": ("link2", np.array([L2, 0, 0]))})


def two_beam_parts(n1=40, n2=30):
    """Steel beams for :func:`two_beam_robot`: link1 (L1, faces joint1/joint2), link2 (L2, faces joint2/tool)."""
    return {"link1": beam(L1, H, H, n1, ends=("joint1", "joint2")),
            "link2": beam(L2, H, H, n2, ends=("joint2", "tool"))}


# ------------------------------------------------------------------------------------------------- robots
def _random_inertia(rng):
    R = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    return R @ np.diag(rng.uniform(0.01, 0.1, 3)) @ R.T


def general_robot(rng):
    """7 joints: skewed axes, offsets, full inertia tensors, a prismatic joint, a fixed tool, point masses."""
    links = [Link("base")]
    joints = []
    types = ["revolute", "revolute", "prismatic", "revolute", "continuous", "revolute", "fixed"]
    for i, jt in enumerate(types):
        T = np.eye(4)
        T[:3, :3] = rpy_matrix(*rng.uniform(-1, 1, 3))
        T[:3, 3] = rng.uniform(-0.3, 0.3, 3)
        pms = (PointMass(f"motor{i}", 0.7, tuple(rng.uniform(-0.1, 0.1, 3))),) if i == 3 else ()
        links.append(Link(f"l{i}", rng.uniform(0.5, 3), tuple(rng.uniform(-0.2, 0.2, 3)), _random_inertia(rng), pms))
        joints.append(Joint(f"j{i}", jt, links[i].name, f"l{i}", T, rng.standard_normal(3), -10, 10))
    return Robot(links, joints, points={"tool": ("l6", (0.1, 0.05, 0.2))})


def branched_robot(rng, shuffle=False):
    """A tree: a 7-joint chain plus a side branch (revolute mimicking j1, prismatic), a fixed joint on the base,
    axes along +z, -y, +x and skewed; with ``shuffle`` the links and joints are listed in a scrambled order."""
    types = ["revolute", "revolute", "prismatic", "revolute", "continuous", "revolute", "fixed", "revolute",
             "prismatic", "fixed"]
    parents = [0, 1, 2, 3, 4, 5, 6, 3, 8, 0]
    axes = [(0, 0, 1), (0, -1, 0), (1, 0, 0), None, (0, 0, 1), None, (0, 0, 1), None, (0, 0, -1), (0, 1, 0)]
    links, joints = [Link("base")], []
    for i, jt in enumerate(types):
        T = np.eye(4)
        T[:3, :3] = rpy_matrix(*rng.uniform(-1, 1, 3))
        T[:3, 3] = rng.uniform(-0.3, 0.3, 3) if i != 4 else 0.0  # joint 4 sits at its parent's origin
        pms = (PointMass(f"motor{i}", 0.7, tuple(rng.uniform(-0.1, 0.1, 3))),) if i == 3 else ()
        mass = 0.0 if i == 5 else rng.uniform(0.5, 3)  # a massless link
        links.append(Link(f"l{i}", mass, tuple(rng.uniform(-0.2, 0.2, 3)),
                          _random_inertia(rng) if mass else np.zeros((3, 3)), pms))
        axis = rng.standard_normal(3) if axes[i] is None else axes[i]
        joints.append(Joint(f"j{i}", jt, links[parents[i]].name, f"l{i}", T, axis, -10, 10,
                            mimic=("j1", -1.7, 0.2) if i == 7 else None))
    if shuffle:
        links = [links[k] for k in (4, 0, 9, 2, 10, 1, 7, 3, 8, 6, 5)]
        joints = [joints[k] for k in (6, 2, 9, 0, 4, 8, 1, 7, 3, 5)]
    return Robot(links, joints, points={"tool": ("l6", (0.1, 0.05, 0.2)), "side": ("l8", (0.0, 0.1, 0.0)),
                                        "on_base": ("base", (0.1, 0.0, 0.0)), "fixed": ("l9", (0.2, 0.1, 0.0))})


# ------------------------------------------------------------------------------------------------- a study script
# One link 'beam' along x (L = 0.4 m, 20 mm square section, 40 x 2 x 2 hexahedra split into tetrahedra), on a
# revolute joint 'joint1' at x = 0 (its face the support) and a force at the 'tip' face; no gravity, so every
# output is linear in the force. build() also takes the section, time grid, a payload, a motion law and a mesh
# file, so that the command-line tests can feed every kind of input through `structcheck run --set`.
SMALL_L, SMALL_H, N_LEN, N_SIDE = 0.40, 0.02, 40, 2
SMALL_STUDY = f'''
"""A tiny cantilever study for the command-line tests."""
import numpy as np
from skfem import MeshTet

from structcheck.fe.part import Part
from structcheck.model.robot import Joint, Link, Robot
from structcheck.study import Payload, PointForce, Study

L, H = {SMALL_L!r}, {SMALL_H!r}


def mesh(side_m=H):
    return MeshTet.init_tensor(np.linspace(0, L, {N_LEN + 1}), np.linspace(-side_m / 2, side_m / 2, {N_SIDE + 1}),
                               np.linspace(-side_m / 2, side_m / 2, {N_SIDE + 1}))


def build(tip_force_n=100.0, required_safety_factor=1.5, gravity_z=0.0, side_mm=H * 1000, t_end=1.0, n_frames=3,
          payload_kg=None, law=None, mesh_file=None):
    """The cantilever; ``payload_kg`` a payload at the tip, ``law`` joint1's motion, ``mesh_file`` the beam's mesh
    (its faces at x = 0 and x = L named joint1 and tip) instead of the generated one: none by default."""
    if mesh_file is None:
        m = mesh(side_mm / 1000)
        x = m.p[0, m.facets].mean(axis=0)
        bnd = m.boundary_facets()
        part = Part.from_skfem(m, "structural_steel", surfaces={{"joint1": bnd[np.isclose(x[bnd], 0.0)],
                                                                "tip": bnd[np.isclose(x[bnd], L)]}})
    else:
        part = Part.from_mesh(mesh_file, "structural_steel")
    robot = Robot([Link("ground"), Link("beam")],
                  [Joint("joint1", "revolute", "ground", "beam", np.eye(4), np.array([0, 1.0, 0]), -3, 3)],
                  points={{"tip": ("beam", np.array([L, 0.0, 0.0]))}})
    return Study(name="tiny_cantilever", robot=robot, motion={{}} if law is None else {{"joint1": law}},
                 parts={{"beam": part}}, t_end=t_end, n_frames=n_frames,
                 point_forces=(PointForce("tip", tip_force_n, (0, 0, -1)),), gravity=(0, 0, gravity_z),
                 payloads=() if payload_kg is None else (Payload("tip", payload_kg),),
                 quasi_static=True, tool_point="tip", required_safety_factor=required_safety_factor,
                 parameters={{"tip_force_n": tip_force_n, "required_safety_factor": required_safety_factor}})


study = build()
'''


def write_small_study(folder: Path, name="tiny_study.py") -> Path:
    """Write the tiny cantilever study script into ``folder``; return its path."""
    path = Path(folder) / name
    path.write_text(SMALL_STUDY)
    return path


# ------------------------------------------------------------------------------------------------- a study delayed
def delayed(study, d: float):
    """``study`` with every law shifted later by ``d`` [s] (the ADAMS expressions' ``time`` replaced by
    ``(time - d)``: before d each law holds its value at 0, so the arm stands still), its events d later and t_end
    longer by d."""
    import re
    from dataclasses import replace

    def shift(law):
        return re.sub(r"\btime\b", f"(time - {d!r})", law, flags=re.IGNORECASE)

    return replace(study, motion={j: shift(law) for j, law in study.motion.items()},
                   point_forces=tuple(replace(p, magnitude=shift(p.magnitude)) for p in study.point_forces),
                   events=tuple(replace(e, t=e.t + d) for e in study.events), t_end=study.t_end + d)
