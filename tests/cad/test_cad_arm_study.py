"""studies/cad_arm.py builds from the shipped assembly (meshes/cad_example/arm.step) without a guess: every joint
face found by contact (the study turns CadWarning into an error), the base's two solids and the forearm's two
joined, and the tool face given."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_cad_arm_study_builds_its_parts_from_the_shipped_assembly():
    spec = importlib.util.spec_from_file_location("cad_arm", ROOT / "studies" / "cad_arm.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    study = mod.build()
    assert {n: sorted(p.surfaces) for n, p in study.parts.items()} == {
        "base": ["ground", "shoulder"], "upper": ["elbow", "shoulder"], "fore": ["elbow", "tool"]}
    # the elbow: the upper arm's hub face and the forearm's, 50 mm discs
    for link in ("upper", "fore"):
        assert study.parts[link].surface_geometry("elbow")[0] == pytest.approx(3.14159265 * 0.025 ** 2, rel=2e-3)


def test_the_shipped_assembly_is_what_its_script_makes(tmp_path):
    """meshes/cad_example/arm.step against a fresh run of meshes/make_cad_example.py: the same named solids with
    the same volumes and centres (the files differ in their time stamps)."""
    import sys

    import numpy as np

    from structcheck.cad.step import import_solids
    from structcheck.geometry import PartBuilder

    sys.path.insert(0, str(ROOT / "meshes"))
    import make_cad_example

    fresh = make_cad_example.build_assembly(tmp_path)
    found = []
    for path in (make_cad_example.SHIPPED / "arm.step", fresh):
        with PartBuilder("check") as b:
            found.append(sorted((s.name, round(b.occ.getMass(3, s.tag), 3),
                                 tuple(np.round(b.occ.getCenterOfMass(3, s.tag), 6)))
                                for s in import_solids(b.gmsh, path, "mm")))
    assert found[0] == found[1]
    assert [n for n, *_ in found[0]] == sorted(make_cad_example.SOLIDS)
