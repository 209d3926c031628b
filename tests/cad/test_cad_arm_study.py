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
