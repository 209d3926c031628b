"""``structcheck import-adams`` and ``structcheck export-adams``: an ADAMS dataset into a starter study, a study
into an ADAMS dataset.

    structcheck import-adams MODEL.adm --links LINKS.toml --out DIR [--t-end S]
    structcheck export-adams STUDY.py -o MODEL.adm [--set NAME=VALUE ...]

LINKS.toml names each link's mesh (a .adm has no geometry) and material::

    [links]                 # link (PART's adams_view_name, else PART_id) = mesh file, relative to LINKS.toml
    upper_arm = "meshes/upper_arm.msh"

    [materials]             # link = material; `default` for the others
    default = "6061-T6"

DIR receives ``model.adm`` (a copy), ``meshes/`` (copies of the meshes) and ``study.py``, which reads the model
with :func:`structcheck.model.adams.read_adm` at run time: no absolute path, the folder can move.
"""
from __future__ import annotations

import shutil
import tempfile
import tomllib
from pathlib import Path

from ...errors import InputError
from .read import read_adm


def add_parser(sub, parents) -> None:
    """Add ``import-adams`` and ``export-adams`` to the ``structcheck`` subcommands ``sub`` (argparse)."""
    c = sub.add_parser("import-adams", parents=parents, help="a starter study from an ADAMS dataset (.adm)",
                       description="Read an ADAMS/Solver dataset (parts, markers, joints, motions, forces, gravity) "
                                   "and write a starter study script with the link meshes LINKS.toml names. See "
                                   "docs/from_adams.md.")
    c.add_argument("model", help="the ADAMS/Solver dataset (.adm)")
    c.add_argument("--links", required=True, help="TOML file: [links] link = mesh file, [materials]")
    c.add_argument("--out", required=True, help="new folder for model.adm, meshes/ and study.py")
    c.add_argument("--t-end", type=float, help="the motion's duration [s] (default: the laws' last breakpoint, "
                                               "else 1 s; a .adm holds no simulation time)")
    c.set_defaults(func=run_import)
    e = sub.add_parser("export-adams", parents=parents, help="write a study's robot, motion and loads as .adm",
                       description="Write a study's robot (parts with mass, CM and IP, markers, joints), motion "
                                   "(MOTIONs), point forces, payloads, joint stiffness and gravity as an "
                                   "ADAMS/Solver dataset. See docs/from_adams.md.")
    e.add_argument("study", help="a study script (.py)")
    e.add_argument("-o", "--output", required=True, help="the dataset to write (.adm)")
    e.add_argument("--set", action="append", metavar="NAME=VALUE", help="a build() parameter of the script")
    e.set_defaults(func=run_export)


def run_export(args) -> int:
    """The ``export-adams`` command; 0 done, InputError (exit 2) for bad input."""
    from ...scripthelp import json_or_str
    from ...script import build_study
    from .write import write_adm

    study = build_study(args.study, _sets(args.set or [], json_or_str))
    path = write_adm(study, args.output)
    print(f"wrote {path} (study {study.name!r}, SI units); check it in ADAMS, or read it back: "
          f"structcheck import-adams {path} --links LINKS.toml --out DIR")
    return 0


def _sets(items: list[str], value) -> dict:
    """--set name=value pairs (values as JSON numbers, booleans or text: ``value``)."""
    out = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise InputError(f"--set expects name=value with a build() parameter's name, e.g. wall_mm=5; got {item!r}")
        out[key.strip()] = value(raw)
    return out


def read_links(path, model) -> dict:
    """LINKS.toml: {'links': link -> mesh path (absolute), 'materials': link -> material}; InputError naming
    the file and the entry for a link the model lacks or a mesh that is missing."""
    path = Path(path)
    try:
        spec = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read --links {str(path)!r}: {exc}") from None
    unknown = sorted(set(spec) - {"links", "materials"})
    if unknown:
        raise InputError(f"{path}: unknown tables {unknown}; give [links] and [materials]")
    links = dict(spec.get("links", {}))
    names = model.robot.link_names
    for link, mesh in links.items():
        if link not in names:
            raise InputError(f"{path}: [links] {link!r} is not a part of the model; its links are {list(names)}")
        if not isinstance(mesh, str) or not (path.parent / mesh).is_file():
            raise InputError(f"{path}: [links] {link} = {mesh!r} is not a mesh file (paths are relative to "
                             f"{path.name})")
    materials = dict(spec.get("materials", {}))
    default = materials.pop("default", None)
    missing = [n for n in links if n not in materials and default is None]
    if missing:
        raise InputError(f"{path}: [materials] gives no material for {missing}; add them or `default = \"...\"`")
    return {"links": {n: (path.parent / m).resolve() for n, m in links.items()},
            "materials": {n: materials.get(n, default) for n in links}}


def run_import(args) -> int:
    """The ``import-adams`` command; 0 done, InputError (exit 2) for bad input."""
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"--out {str(out)!r} exists and is not an empty folder; give a new folder")
    model = read_adm(args.model)
    spec = read_links(args.links, model)
    ends = [b for law in model.motion.values() for b in law.breakpoints] + \
        [b for pf in model.point_forces for b in pf.magnitude.breakpoints]
    t_end = args.t_end if args.t_end is not None else (max(ends) if ends and max(ends) > 0 else 1.0)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
    try:
        shutil.copyfile(args.model, tmp / "model.adm")
        (tmp / "meshes").mkdir()
        meshes = {}
        for link, mesh in spec["links"].items():
            target = f"meshes/{link}{mesh.suffix}"
            shutil.copyfile(mesh, tmp / target)
            meshes[link] = target
        (tmp / "study.py").write_text(starter_script(model, meshes, spec["materials"], t_end, Path(args.model).name))
        if out.exists():
            out.rmdir()
        tmp.replace(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for note in model.notes:
        print(f"note: {note}")
    print(f"starter study written to {out}; run it: structcheck run {out / 'study.py'}")
    return 0


def starter_script(model, meshes: dict, materials: dict, t_end: float, source: str) -> str:
    """The text of study.py: the model read from model.adm beside it, the parts from meshes/."""
    name = model.robot.name.replace("'", "")
    return f'''"""Starter study from the ADAMS dataset {source} (structcheck import-adams; see docs/from_adams.md).

The robot, the motion laws (MOTIONs, offsets from the assembled position), the point forces, gravity and joint
stiffness are read from model.adm beside this file at run time; the link parts are the meshes in meshes/. Links
with a part take their mass properties from the mesh (inertia_from_meshes), the others keep the dataset's.
Edit t_end, the materials and the checks, then: structcheck run study.py
"""
import sys
from pathlib import Path

import structcheck as sc
from structcheck.cli import main_for_study
from structcheck.model.adams import read_adm
from structcheck.study import Study, lazy_study

HERE = Path(__file__).resolve().parent
MESHES = {meshes!r}
MATERIALS = {materials!r}


def build(t_end: float = {t_end!r}) -> Study:
    """The dataset's robot and loads over ``t_end`` [s] (a .adm holds no simulation time)."""
    model = read_adm(HERE / "model.adm")
    parts = {{link: sc.Part.from_mesh(HERE / mesh, material=MATERIALS[link]) for link, mesh in MESHES.items()}}
    return Study(name={name!r}, robot=model.robot, motion=model.motion, parts=parts, t_end=t_end,
                 point_forces=model.point_forces, gravity=model.gravity,
                 arm=sc.ArmSettings(joint_stiffness=model.joint_stiffness), required_safety_factor=1.5,
                 description="imported from {source}")


def mesh_part(link: str, size_factor: float, study=None) -> sc.Part:
    """For `structcheck converge`: the part of ``link``; only the given mesh exists (size_factor 1): write finer
    meshes and point MESHES at them to check convergence."""
    if size_factor != 1.0:
        raise sc.InputError(f"{{link}}: only the imported mesh exists; make one {{size_factor:g}} times finer and "
                            f"point MESHES at it")
    return sc.Part.from_mesh(HERE / MESHES[link], material=MATERIALS[link])


__getattr__ = lazy_study(build)  # `study`, built on first use

if __name__ == "__main__":
    sys.exit(main_for_study(build))
'''
