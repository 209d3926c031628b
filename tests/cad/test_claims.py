"""structcheck.cad.claims, called directly (no STEP file, no gmsh): which solids each link claims, the unit check
of an assembly against the robot's joint spacing, and the links' materials."""
from types import SimpleNamespace

import numpy as np
import pytest

from helpers import L1, two_beam_robot
from structcheck.cad.claims import SCALE_RANGE, check_scale, claim_solids, link_materials
from structcheck.cad.step import Solid
from structcheck.errors import InputError

SOLIDS = [Solid(1, ("tube", "upper_asm")), Solid(2, ("boss", "upper_asm")), Solid(3, ("tube", "fore_asm")),
          Solid(4, ("bolt",))]


def test_claims_by_solid_and_by_sub_assembly():
    robot = two_beam_robot()
    claims, notes = claim_solids(SOLIDS, {"link1": "upper_asm", "link2": ["fore_asm"]}, robot, "arm.step")
    assert claims == {"link1": [1, 2], "link2": [3]}
    assert notes == ["arm.step: solids no link claims are left out: ['bolt']"]
    # a name shared by two solids claims both, each once
    claims, _ = claim_solids(SOLIDS, {"link1": ["tube", "tube"], "link2": "bolt"}, robot, "arm.step")
    assert claims == {"link1": [1, 3], "link2": [4]}


@pytest.mark.parametrize("links, match", [
    ({"link1": "tube", "link2": "fore_asm"}, r"solid 'tube' is claimed by links 'link1' and 'link2'"),
    ({"link1": "shaft"}, r"no solid named 'shaft' \(claimed by link 'link1'\); the file holds \['bolt', 'boss', "
                         r"'tube'\]"),
    ({"link9": "tube"}, r"links names 'link9', which is no link of robot"),
    ({"link1": ""}, r"links\['link1'\] = '': give the name of a solid"),
    ({}, "links must map each link name"),
])
def test_bad_claims_name_the_input(links, match):
    with pytest.raises(InputError, match=match):
        claim_solids(SOLIDS, links, two_beam_robot(), "arm.step")


def _gmsh_with_box(diagonal):
    """A stand-in for gmsh whose every volume has a bounding box (0, 0, 0)-(d, 0, 0)."""
    return SimpleNamespace(model=SimpleNamespace(getBoundingBox=lambda dim, tag: (0, 0, 0, diagonal, 0, 0)))


def test_scale_check_finds_the_unit_that_fits():
    """The robot's joints span L1 = 400 mm (model units mm, s = 1e-3 m). An assembly 450 mm long passes; the same
    numbers written in metres (0.45) and read as mm are 1000x too small, beyond SCALE_RANGE, and the unit that
    fits is m; written in inches (17.7) and read as mm, 25.4x too small: inches."""
    robot = two_beam_robot()
    T = {"ground": np.eye(4), "link1": np.eye(4), "link2": np.eye(4)}
    T["link2"][0, 3] = L1 * 1e3  # mm
    claims = {"link1": [1], "link2": [2]}
    check_scale(_gmsh_with_box(450.0), claims, robot, T, 1e-3, "mm", "arm.step")
    with pytest.raises(InputError, match=r"looks? to be in m: pass units='m' \(--units m\)"):
        check_scale(_gmsh_with_box(0.45), claims, robot, T, 1e-3, "mm", "arm.step")
    with pytest.raises(InputError, match=r"in in: pass units='in'"):
        check_scale(_gmsh_with_box(450.0 / 25.4), claims, robot, T, 1e-3, "mm", "arm.step")
    # at the edge of the range it still passes: a unit mistake is a factor of 10 to 1000, beyond it
    check_scale(_gmsh_with_box(400.0 / (0.99 * SCALE_RANGE)), claims, robot, T, 1e-3, "mm", "arm.step")


def test_link_materials_one_for_all_or_per_link():
    links = {"link1": "a", "link2": "b"}
    one = link_materials(None, links, "structural_steel")
    assert {n: m.name for n, m in one.items()} == {"link1": "structural_steel", "link2": "structural_steel"}
    per = link_materials(None, links, {"link1": "structural_steel", "link2": "HT200"})
    assert per["link2"].name == "HT200" and per["link2"].criterion == "max_principal"
    with pytest.raises(InputError, match=r"no material for links \['link2'\]"):
        link_materials(None, links, {"link1": "structural_steel"})
    with pytest.raises(InputError, match="give a material name"):
        link_materials(None, links, 5)
