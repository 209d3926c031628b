"""``structcheck import-cad``: a STEP assembly into link meshes and a starter study script that runs.

    structcheck import-cad ARM.step --robot ROBOT.urdf|STUDY.py --links LINKS.toml --out DIR [--units mm]
                           [--mesh-size M] [--order 2] [--quiet]

LINKS.toml names each link's solids and materials, and optionally the pose of the file::

    [links]                 # link = the names of its solids in the file (a part's, or a sub-assembly's)
    upper = ["upper_tube", "elbow_boss"]
    fore = "fore_tube"

    [materials]             # link = material; `default` for the others
    default = "6061-T6"

    [pose]                  # joint = value (rad or m) where the file is not at the robot's home
    elbow = 0.5

DIR receives ``<link>.msh``, ``surfaces.vtm`` (the named surfaces, for ParaView), ``import_report.txt`` and
``study.py``: the robot, the parts, a small motion of every joint under gravity, ready to edit and run with
``structcheck run DIR/study.py``. The folder is written whole or not at all.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np

from ..errors import InputError, require_number
from .step import UNITS

#: the starter motion: every revolute joint turns this far [rad] (prismatic: STARTER_STROKE [m]) over 1 s
STARTER_TURN = np.radians(10.0)
STARTER_STROKE = 0.01


def add_parser(sub, parents) -> None:
    """Add ``import-cad`` to the ``structcheck`` subcommands ``sub`` (argparse)."""
    c = sub.add_parser("import-cad", parents=parents, help="link meshes and a starter study from a STEP assembly",
                       description="Read a STEP assembly (every solid placed in one frame) into link meshes with "
                                   "their joint faces named, and write a starter study script that runs. See "
                                   "docs/your_own_cad.md.")
    c.add_argument("assembly", help="STEP file (AP203, AP214, AP242), every solid placed in one frame")
    c.add_argument("--robot", required=True, help="the robot: a URDF file, or a study script whose robot to use")
    c.add_argument("--links", required=True, help="TOML file: [links] link = solid names, [materials], [pose]")
    c.add_argument("--out", required=True, help="new folder for the meshes, the report and study.py")
    c.add_argument("--units", default="mm", choices=sorted(UNITS), help="length unit of the file's numbers (default mm)")
    c.add_argument("--mesh-size", type=float, help="element size [m] (default: each part's diagonal / 30)")
    c.add_argument("--order", type=int, choices=(1, 2), default=2, help="2: curved 10-node tets (default), 1: linear")
    c.add_argument("--quiet", action="store_true", help="print only the warnings")
    c.set_defaults(func=run_import_cad)


def run_import_cad(args) -> int:
    """The ``import-cad`` command; 0 done, InputError (exit 2) for bad input."""
    import warnings

    from .assembly import CadWarning, read_assembly

    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"--out {str(out)!r} exists and is not an empty folder; give a new folder")
    robot, robot_path = load_robot(args.robot)
    spec = read_links(args.links, robot)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CadWarning)  # printed with the report below
            result = read_assembly(args.assembly, robot, spec["links"], materials=spec["materials"], q=spec["q"],
                                   units=args.units, mesh_size=args.mesh_size, order=args.order, out=tmp,
                                   progress=None if args.quiet else _progress)
        (tmp / "study.py").write_text(starter_script(robot, robot_path, spec, Path(args.assembly), out, {
            "units": args.units, "mesh_size": args.mesh_size, "order": args.order}))
        report = result.report().replace(str(tmp), str(out))
        (tmp / "import_report.txt").write_text(report + "\n")
        if out.exists():
            out.rmdir()
        tmp.replace(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines = report.splitlines() if not args.quiet else [ln for ln in report.splitlines() if ln.startswith("warning")]
    print("\n".join(lines))
    if not args.quiet:
        print(f"meshes and a starter study written to {out}; run it: structcheck run {out / 'study.py'}")
    return 0


def _progress(k: int, n: int, link: str, elapsed: float) -> None:
    left = elapsed / k * (n - k)
    print(f"meshed {link} ({k}/{n}), {elapsed:.0f} s" + (f", about {left:.0f} s left" if k < n else ""), flush=True)


def load_robot(source: str):
    """(Robot, its file's absolute path) from a URDF file or a study script."""
    from ..model.robot import Robot

    path = Path(source).resolve()
    if path.suffix.lower() == ".urdf":
        return Robot.from_urdf(path), path
    if path.suffix == ".py":
        from ..script import build_study

        return build_study(path).robot, path
    raise InputError(f"--robot {source!r}: give a URDF file (.urdf) or a study script (.py)")


def relative_to(path: Path, folder: Path) -> str:
    """``path`` relative to ``folder`` (POSIX separators, ``..`` where needed): a generated study names the files
    it reads from its own folder, so the two can move together (a repository, another machine)."""
    import os

    try:
        return Path(os.path.relpath(Path(path).resolve(), Path(folder).resolve())).as_posix()
    except ValueError:  # another drive (Windows): no relative path exists
        raise InputError(f"{str(path)!r} and --out {str(folder)!r} are on different drives; put them on one drive "
                         f"so the study can name the file relative to its folder") from None


def read_links(path, robot) -> dict:
    """The LINKS.toml at ``path``: {'links': link -> names, 'materials': link -> material, 'q': (n_dof,) pose}."""
    import tomllib

    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"--links {str(path)!r}: cannot read it as TOML ({exc})") from None
    unknown = sorted(set(data) - {"links", "materials", "pose"})
    if unknown or not isinstance(data.get("links"), dict) or not data["links"]:
        raise InputError(f"{path}: give a [links] table (link = solid names) and optionally [materials] and "
                         f"[pose]" + (f"; unknown tables {unknown}" if unknown else ""))
    links = data["links"]
    given = dict(data.get("materials", {}))
    default = given.pop("default", None)
    missing = [n for n in links if n not in given and default is None]
    if missing:
        raise InputError(f"{path}: [materials] gives no material for links {missing}; add `default = \"6061-T6\"` "
                         f"or one line per link")
    materials = {n: given.get(n, default) for n in links}
    q = np.array(robot.home, float)
    for joint, value in data.get("pose", {}).items():
        if joint not in robot.dof_names:
            raise InputError(f"{path}: [pose] names {joint!r}, which is no moving joint; they are "
                             f"{list(robot.dof_names)}")
        q[robot.dof_names.index(joint)] = require_number(f"{path}: [pose] {joint}", value, "rad or m")
    return {"links": links, "materials": materials, "q": q}


def starter_motion(robot) -> dict:
    """dof -> an ADAMS STEP law moving it :data:`STARTER_TURN` (or :data:`STARTER_STROKE`) over 1 s from home,
    towards its farther limit and at most half the way there."""
    motion = {}
    for name, home in zip(robot.dof_names, robot.home):
        j = robot.joint(name)
        room_up, room_down = j.upper - home, home - j.lower
        step = STARTER_STROKE if j.type == "prismatic" else STARTER_TURN
        amount = min(step, 0.5 * max(room_up, room_down)) * (1 if room_up >= room_down else -1)
        value = f"{amount:.4g}" if j.type == "prismatic" else f"{np.degrees(amount):.4g}d"  # ADAMS's degrees
        motion[name] = f"STEP(time, 0, 0, 1, {value})"
    return motion


def starter_script(robot, robot_path: Path, spec: dict, assembly: Path, out: Path, options: dict) -> str:
    """The text of study.py, to be written into ``out``: the robot (from ``robot_path``, a URDF or a study
    script), the parts imported from ``assembly`` (``options``: its ``units``, ``mesh_size``, ``order``), the
    starter motion under gravity, and ``mesh_part`` re-importing a link finer for ``structcheck converge``. Every
    file is named relative to the study's folder: no absolute path."""
    materials = {n: str(getattr(m, "name", m)) for n, m in spec["materials"].items()}
    motion = starter_motion(robot)
    from_script = robot_path.suffix == ".py"
    source = (f"build_study(HERE / {relative_to(robot_path, out)!r}).robot" if from_script else
              f"sc.Robot.from_urdf(HERE / {relative_to(robot_path, out)!r})")
    lines = [
        f'"""Starter study of robot {robot.name!r} with the link parts imported from {assembly.name} by',
        "`structcheck import-cad` (see import_report.txt and surfaces.vtm beside it). The motion is a small move of",
        "every joint under gravity: replace it, add payloads, point forces and a tool point (docs/writing_a_study.md).",
        "`structcheck converge study.py` checks the peaks' meshes: mesh_part re-imports a link with finer elements.",
        '"""',
        "import functools",
        "import sys",
        "from pathlib import Path",
        "",
        "import structcheck as sc",
        "from structcheck.cli import " + ("build_study, main_for_study" if from_script else "main_for_study"),
        "from structcheck.geometry import MeshSizing, import_assembly",
        "from structcheck.study import Study, lazy_study",
        "",
        "HERE = Path(__file__).resolve().parent",
        f"ASSEMBLY = HERE / {relative_to(assembly, out)!r}  # the STEP file, relative to this folder",
        f"LINKS = {dict(spec['links'])!r}",
        f"MATERIALS = {materials!r}",
        f"POSE = {[float(x) for x in spec['q']]!r}  # the file's joint values [rad, m]",
        f"MESH = {{'units': {options['units']!r}, 'size': {options['mesh_size']!r}, 'order': {options['order']!r}}}",
        "MOTION = {  # offsets from home: ADAMS STEP laws (d: degrees)",
        *(f"    {k!r}: {v!r}," for k, v in motion.items()),
        "}",
        "",
        "",
        "def robot() -> sc.Robot:",
        f"    return {source}",
        "",
        "",
        "def build() -> Study:",
        '    parts = {link: sc.Part.from_mesh(HERE / f"{link}.msh", material=m) for link, m in MATERIALS.items()}',
        f"    return Study(name={robot.name + '_cad'!r}, robot=robot(), parts=parts, motion=MOTION, t_end=1.5, "
        "n_frames=16)",
        "",
        "",
        "def mesh_part(link: str, size_factor: float, study=None) -> sc.Part:",
        '    """For `structcheck converge` and `--quick`: the part of ``link`` with every element size times',
        '    ``size_factor``, from the assembly re-imported (once per factor)."""',
        "    return _imported(float(size_factor))[link]",
        "",
        "",
        "@functools.lru_cache(maxsize=1)",
        "def _imported(size_factor: float) -> dict:",
        "    return import_assembly(ASSEMBLY, robot(), LINKS, materials=MATERIALS, q=POSE, units=MESH['units'],",
        "                           mesh_size=MeshSizing(MESH['size'], factor=size_factor), order=MESH['order'])",
        "",
        "",
        "__getattr__ = lazy_study(build)",
        "",
        'if __name__ == "__main__":',
        "    sys.exit(main_for_study(build))",
    ]
    return "\n".join(lines) + "\n"
