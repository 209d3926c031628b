"""Paper 004 (Xu et al. 2025, Mech. Sci. 16): the 6-DOF loading/unloading robot, ADAMS -> ANSYS in one run.

Robot: modified D-H table of Table 1 (d1 = 250, a2 = 385, a3 = 392, d6 = 188 mm), home pose 90/90/90/-90/0/0 deg,
joint ranges of Table 1 read as offsets from home. Motion: the STEP laws of section 3.1, verbatim, over 10 s.
Payload: 196 N (a 20 kg part) as two 98 N forces straight down on the claws, applied over 10 ms at 2 s and
released at 8 s; the cycle repeats 360 times an hour for a 20-year, two-shift design life (fatigue). Materials
(Table 2): base and waist 304 stainless, all other links 6061-O (Table 2 gives 6061 with a 55.2 MPa yield: the
annealed 6061-O temper, not the 276 MPa of 6061-T6). Link geometry is our own (the paper does not give it),
sized like a real 20 kg-payload arm of this reach: see meshes/paper004/README.md. ``wall_mm`` changes the upper-arm wall;
``mesh_dir`` reads the parts from another folder (e.g. finer meshes made by
``python meshes/make_paper004_meshes.py --out DIR --size-factor 0.5``). Structural model: ``flexibility`` 'arm'
(default: the links as superelements assembled along the chain, the payload ramps' arm-level dynamics included)
or 'link' (each link alone, supported at its proximal joint; see docs/flex.md).

    python studies/loading_unloading_6dof.py [--out DIR] [--wall-mm 8] [--mesh-dir DIR] [--flexibility arm|link]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import structcheck as sc
from structcheck.study import PointForce, Study, lazy_study

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "meshes"))
import make_paper004_meshes as meshes  # noqa: E402  (the mesh script: shipped meshes + regeneration)

LINKS = ["base", "waist", "upper_arm", "forearm", "wrist", "wrist_roll", "gripper"]
JOINTS = ["joint1", "joint2", "joint3", "joint4", "joint5", "joint6"]
# Table 1, modified D-H rows (alpha_{i-1} [rad], a_{i-1} [m], d_i [m])
DH = [(0.0, 0.0, 0.250), (np.pi / 2, 0.0, 0.0), (0.0, 0.385, 0.0),
      (0.0, 0.392, 0.0), (-np.pi / 2, 0.0, 0.0), (0.0, 0.0, 0.188)]
HOME = np.radians([90, 90, 90, -90, 0, 0])
RANGE = np.radians([(-160, 160), (-90, 90), (-225, 45), (-135, 135), (-160, 160), (-160, 160)])
# Table 2: 304 stainless and "6061" with a 55.2 MPa yield, which is the annealed temper 6061-O (6061-T6: 276 MPa)
MATERIAL = {"base": "304", "waist": "304", **dict.fromkeys(LINKS[2:], "6061-O")}

MOTION = {  # section 3.1, verbatim (joints 4-6 are 0)
    "joint1": "STEP(time,3,0,5,90d) + STEP(time,8,0,10,-90d)",
    "joint2": "STEP(time,0,0,2,75d) + STEP(time,2,0,5,-75d) + STEP(time,5,0,8,75d) + STEP(time,8,0,10,-75d)",
    "joint3": "STEP(time,0,0,2,-75d) + STEP(time,2,0,5,75d) + STEP(time,5,0,8,-75d) + STEP(time,8,0,10,75d)",
}
CLAW_FORCE = "STEP(time, 1.99, 0, 2, 98) + STEP(time, 7.99, 0, 8, -98)"  # N on each claw
# Duty (our choice; the paper states none): the 10 s cycle back to back, 360 cycles an hour, two 8-hour shifts on
# 250 days a year for 20 years = 80,000 h, i.e. 2.88e7 duty cycles.
CYCLES_PER_HOUR = 3600.0 / 10.0
DESIGN_LIFE_HOURS = 2 * 8 * 250 * 20
# Drives (our choice; the paper names none): joints 1-3, the ones that move, strain-wave gears of ratio 100 (size 32
# at the waist, 50 at the shoulder, 40 at the elbow: the smallest of these sizes whose L10 life reaches the 80,000 h
# design life; a size 40 at the shoulder gives 7.8e4 h) and 1 kW motors, with assumed values
# (loading_unloading_drives.toml). By default they are checked, not put in the arm model (stiffness=None): the
# joints stay rigid, as in the paper's model, so the stress, strain and deflection numbers are those of the study
# without drives; `--set drive_stiffness=secant` (or tangent) gives the arm model the reducers' torsional stiffness
# (docs/drivetrain.md: what it moves).


def drives(stiffness: str | None = None) -> dict[str, sc.Drive]:
    """The three drives; ``stiffness`` None: checked only, else 'secant'/'tangent' (docs/drivetrain.md)."""
    return {j: sc.Drive(reducer=f"SW-{size}-100 (assumed)", motor="servo-1kW (assumed)", stiffness=stiffness,
                        design_life_h=DESIGN_LIFE_HOURS,
                        catalogue=(Path(__file__).resolve().parent / "loading_unloading_drives.toml",))
            for j, size in (("joint1", 32), ("joint2", 50), ("joint3", 40))}


DRIVES = drives()


def build(wall_mm: float = meshes.DEFAULT_WALL_MM, mesh_dir: str | Path = "", flexibility: str = "arm",
          drive_stiffness: str = "none") -> Study:
    """The study with the upper arm's wall thickness ``wall_mm`` [mm] (other dimensions as documented); the
    parts' meshes are read from ``mesh_dir`` when given (meshes made for ``wall_mm``); ``flexibility`` the
    structural model: 'arm' (the links assembled as superelements) or 'link' (each link alone);
    ``drive_stiffness`` 'none' (the joints rigid, as the paper's model), 'secant' or 'tangent' (the drives'
    torsional stiffness in the arm model)."""
    # the shipped meshes, or regenerated once for another wall, or the caller's folder
    folder = mesh_folder(mesh_dir) if mesh_dir else meshes.mesh_folder(wall_mm)
    robot = sc.Robot.from_modified_dh(
        DH, home=HOME, limits=HOME[:, None] + RANGE, link_names=LINKS, joint_names=JOINTS, name="paper004")
    robot = robot.with_points(meshes.POINTS)  # claw_left, claw_right, tcp on the gripper (frame 6)
    parts = {name: sc.Part.from_mesh(folder / f"{name}.msh", material=MATERIAL[name])
             for name in LINKS}
    return Study(
        name="loading_unloading_6dof", robot=robot, motion=MOTION, parts=parts, t_end=10.0, n_frames=101,
        point_forces=(PointForce("claw_left", CLAW_FORCE, (0, 0, -1)),
                      PointForce("claw_right", CLAW_FORCE, (0, 0, -1))),
        damping_ratio=0.02, n_modes=10, required_safety_factor=1.5, tool_point="tcp", payload_mass_kg=20.0,
        fatigue=sc.Fatigue(cycles_per_hour=CYCLES_PER_HOUR, design_life_hours=DESIGN_LIFE_HOURS),
        flexibility=flexibility, drives=DRIVES if drive_stiffness == "none" else drives(drive_stiffness),
        description="Paper 004 loading/unloading robot, STEP motion laws of section 3.1, 2 x 98 N claw forces",
        parameters={"wall_mm": wall_mm, **({"mesh_dir": str(folder)} if mesh_dir else {})})


def mesh_folder(mesh_dir: str | Path) -> Path:
    """``mesh_dir`` as a folder holding ``<link>.msh`` for every link; InputError naming what is missing."""
    folder = Path(mesh_dir).expanduser()
    missing = [f"{name}.msh" for name in LINKS if not (folder / f"{name}.msh").is_file()]
    if missing:
        raise sc.InputError(f"mesh_dir {str(folder)!r} lacks {missing}; make the meshes with "
                            f"'python meshes/make_paper004_meshes.py --out {folder}' (add --size-factor F to refine)")
    return folder


def mesh_part(link: str, size_factor: float, study: Study | None = None) -> sc.Part:
    """For ``structcheck converge``: the part of ``link`` re-meshed by the mesh script with every element size, its
    fillets' too, times ``size_factor`` (for the ``study``'s upper-arm wall; made once into ~/.cache/structcheck)."""
    wall_mm = (study.parameters if study is not None else {}).get("wall_mm", meshes.DEFAULT_WALL_MM)
    return sc.Part.from_mesh(meshes.part_mesh(link, size_factor, wall_mm), material=MATERIAL[link])


__getattr__ = lazy_study(build)  # `study`, built on first use: `--help` answers at once

if __name__ == "__main__":  # --out DIR, --wall-mm MM (build's parameter); exit 0 pass, 1 fail, 2 bad input
    from structcheck.cli import main_for_study

    sys.exit(main_for_study(build))
