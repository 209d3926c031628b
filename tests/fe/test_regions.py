"""Regions with their own material: the EN 1999-1-1 heat-affected zone, the weakest-material rule at nodes, a
bar in tension whose HAZ fails where the same bar without it passes (safety factor against the zone's reduced
yield by hand), and a region's own S-N curve in fatigue."""
import dataclasses

import numpy as np
import pytest

from helpers import beam, write_small_study
from structcheck.errors import InputError
from structcheck.fatigue import get_sn_curve
from structcheck.fatigue.links import FatigueSettings, _region_of_nodes, check_settings
from structcheck.fe.regions import Region, haz_material, node_materials, safety_factor, with_regions
from structcheck.model import MATERIALS
from structcheck.script import load_study
from structcheck.study import PointForce, run

MPa = 1e6
L, H, N_LEN = 0.2, 0.02, 20  # bar [m], 20 elements of 10 mm along x (tensor mesh: 6 tets per cube cell)


def bar(material="6082-T6"):
    return beam(L, H, H, N_LEN, material=material, ends=("joint1", "tip"), n_side=2)


def middle_elements(part, lo=0.08, hi=0.12):
    x = part.points[part.cells].mean(axis=1)[:, 0]
    return tuple(np.flatnonzero((x > lo) & (x < hi)))


def test_haz_material_has_en_1999_1_1_reduced_strengths():
    # EN 1999-1-1:2007 Table 3.2b, EN AW-6082 T6 extrusion t <= 5 mm: f_o = 250, f_u = 290; HAZ (MIG):
    # f_o,haz = 125, f_u,haz = 185 MPa, rho_o,haz = 0.50, rho_u,haz = 0.64
    h = haz_material("6082-T6")
    assert (h.strength, h.tensile_strength) == (125 * MPa, 185 * MPa)
    assert h.strength / MATERIALS["6082-T6"].strength == pytest.approx(0.50)  # rho_o,haz
    assert h.tensile_strength / MATERIALS["6082-T6"].tensile_strength == pytest.approx(0.64, abs=0.005)  # rho_u,haz
    base = MATERIALS["6082-T6"]
    assert (h.E, h.nu, h.density, h.name) == (base.E, base.nu, base.density, "6082-T6 HAZ")
    # 6061-T6 extrusions: f_o,haz = 115, f_u,haz = 175 MPa (rho 0.48 and 0.67 of the EN minimums 240, 260), not
    # 0.48 x the library's typical 276 MPa
    assert (haz_material("6061-T6").strength, haz_material("6061-T6").tensile_strength) == (115 * MPa, 175 * MPa)
    own = haz_material("7075-T6", rho_o=0.8, rho_u=0.9)  # factors of a table row given by the caller
    assert (own.strength, own.tensile_strength) == pytest.approx((0.8 * 503 * MPa, 0.9 * 572 * MPa), rel=1e-12)
    with pytest.raises(InputError, match="no HAZ strengths for '7075-T6'"):
        haz_material("7075-T6")


def test_a_node_takes_the_weakest_material_of_its_elements():
    part = with_regions(bar(), Region("haz", haz_material("6082-T6"), elements=middle_elements(bar())))
    mats, node = node_materials(part)
    in_haz = np.zeros(len(part.points), bool)
    in_haz[part.cells[list(part.regions[0].elements)].ravel()] = True
    np.testing.assert_array_equal(node == 1, in_haz)  # every node of a HAZ element, boundary nodes included
    vm = np.full(len(part.points), 100 * MPa)
    sf = safety_factor(part, vm)
    np.testing.assert_allclose(sf[in_haz], 125 / 100)
    np.testing.assert_allclose(sf[~in_haz], 250 / 100)


def test_a_region_near_a_surface_takes_the_elements_within_the_distance():
    part = with_regions(bar(), Region("toe", haz_material("6082-T6"), near="tip", within=0.015))
    x = part.points[part.cells][:, :, 0]
    # an element is in when its nearest node is within 15 mm of the tip face (x >= 0.185 m)
    np.testing.assert_array_equal(part.regions[0].element_mask(part), (L - x.max(axis=1)) <= 0.015 + 1e-12)


@pytest.mark.parametrize("region, needle", [
    (Region("insert", "A356-T6", elements=(0,)), "has other elastic constants"),
    (Region("haz", haz_material("6082-T6"), near="weld", within=0.01), "has no surface or line 'weld'"),
    (Region("haz", haz_material("6082-T6"), elements=(10 ** 6,)), "element indices must be in 0.."),
    (Region("tip", haz_material("6082-T6"), elements=(0,)), "has the name of a surface"),
])
def test_bad_regions_are_refused_in_one_line(region, needle):
    with pytest.raises(InputError) as err:
        with_regions(bar(), region)
    assert needle in str(err.value) and "\n" not in str(err.value)


def tension_study(tmp_path, part, force):
    base = load_study(write_small_study(tmp_path))
    return dataclasses.replace(base, flexibility="link", parts={"beam": part}, required_safety_factor=1.5,
                               point_forces=(PointForce("tip", force, (1, 0, 0)),))


def test_a_bar_with_a_haz_fails_where_the_same_bar_without_passes(tmp_path):
    force = 100 * MPa * H * H  # sigma = F / A = 100 MPa along the bar, uniform away from its ends
    plain = run(tension_study(tmp_path, bar(), force), tmp_path / "plain", progress=False, vtk=False, plots=False)
    part = with_regions(bar(), Region("haz", haz_material("6082-T6"), elements=middle_elements(bar())))
    welded = run(tension_study(tmp_path, part, force), tmp_path / "haz", progress=False, vtk=False, plots=False)
    p, w = plain.links["beam"], welded.links["beam"]
    assert p.passed and not w.passed
    # mid-bar: uniaxial sigma_xx = F / A = 100 MPa (St Venant: the clamp's disturbance decays within ~ H);
    # P2 tets reproduce a uniform stress exactly, so the HAZ nodes read f_o,haz / sigma = 125 / 100
    mid = np.abs(p.points[:, 0] - L / 2) < 0.02
    np.testing.assert_allclose(p.envelope["von_mises"][mid], 100 * MPa, rtol=2e-3)
    assert w.min_safety_factor == pytest.approx(125 / 100, rel=2e-3)
    assert p.min_safety_factor > 1.5  # the clamp corners on 250 MPa yield, not the HAZ


def test_a_regions_own_sn_curve_is_used_on_its_nodes():
    part = with_regions(bar("structural_steel"), Region("weld", "structural_steel", elements=middle_elements(bar()),
                                                        fatigue="EC3-36"))
    curves = check_settings(FatigueSettings(1e4, surface_factor=0.8), part, "beam")
    assert list(curves) == ["", "weld"]
    assert curves["weld"] == get_sn_curve("EC3-36")  # a named curve: no surface factor on a detail category
    assert curves[""].limit == pytest.approx(0.8 * 230 * MPa)
    group = _region_of_nodes(part, curves)
    in_weld = np.zeros(len(part.points), bool)
    in_weld[part.cells[list(part.regions[0].elements)].ravel()] = True
    np.testing.assert_array_equal(group == 1, in_weld)


def test_a_region_material_without_sn_data_says_what_to_add():
    part = with_regions(bar(), Region("haz", haz_material("6082-T6"), elements=middle_elements(bar())))
    with pytest.raises(InputError) as err:
        check_settings(FatigueSettings(1e4), part, "beam")
    msg = str(err.value)
    assert "\n" not in msg and "region 'haz'" in msg and "no fatigue (S-N) data for material '6082-T6 HAZ'" in msg
    assert "Region(fatigue=...)" in msg


def test_in_a_study_the_regions_nodes_take_its_curve_and_the_rest_the_materials(tmp_path):
    """The cantilever of tests/fatigue/test_study_fatigue.py (tip force alternating -F0 -> +F0, bending range
    dsigma = 2 F0 (L - x) (H / 2) / (H^4 / 12)) with a region x in (0.08, 0.12) m on EN 1993-1-9 category 36;
    the rest on structural steel's curve (endurance 230 MPa, far above these amplitudes: infinite life)."""
    from structcheck.settings import Fatigue

    F0, Lc = 200.0, 0.40
    force = f"STEP(time, 0, -{F0}, 0.25, {F0}) + STEP(time, 0.5, 0, 0.75, {-2 * F0})"
    plain = beam(Lc, H, H, 20, ends=("joint1", "tip"), n_side=2)
    part = with_regions(plain, Region("weld", "structural_steel", elements=middle_elements(plain), fatigue="EC3-36"))
    base = load_study(write_small_study(tmp_path))
    study = dataclasses.replace(base, flexibility="link", parts={"beam": part},
                                point_forces=(PointForce("tip", force, (0, 0, -1)),),
                                fatigue=Fatigue(cycles_per_hour=100.0, design_life_cycles=1e4))
    link = run(study, None, progress=False, write=False).links["beam"]
    life, x = link.envelope["fatigue_life_cycles"], link.points
    for xi, in_weld in ((0.09, True), (0.15, False)):
        node = np.flatnonzero(np.isclose(x[:, 0], xi) & np.isclose(x[:, 2], H / 2) & np.isclose(x[:, 1], 0))
        assert node.size == 1
        dsigma = 2 * F0 * (Lc - xi) * (H / 2) / (H ** 4 / 12)
        if in_weld:  # above the knee (0.737 x 36 MPa): N = 2e6 (36 / dsigma)^3; 0.3 % in stress is 1 % in life
            assert dsigma > 0.737 * 36 * MPa
            assert life[node[0]] == pytest.approx(2e6 * (36 * MPa / dsigma) ** 3, rel=0.01)
        else:
            assert dsigma / 2 < 230 * MPa and life[node[0]] == np.inf


def test_a_region_near_a_surface_follows_a_refined_mesh_and_element_indices_are_refused():
    from structcheck.converge import split_part

    near = with_regions(bar(), Region("toe", haz_material("6082-T6"), near="tip", within=0.015))
    fine = split_part(near)
    assert len(fine.cells) == 8 * len(near.cells) and [r.name for r in fine.regions] == ["toe"]
    # the documented rule by brute force: an element is in when a node of it is within 15 mm of a node of the face
    face = fine.points[fine.surface_nodes("tip")]
    d = np.sqrt(((fine.points[:, None, :] - face[None, :, :]) ** 2).sum(-1)).min(axis=1)
    np.testing.assert_array_equal(fine.regions[0].element_mask(fine), (d[fine.cells] <= 0.015).any(axis=1))
    by_index = with_regions(bar(), Region("haz", haz_material("6082-T6"), elements=middle_elements(bar())))
    with pytest.raises(InputError, match="converge needs regions given by near=/within=, not element indices"):
        split_part(by_index)


def test_a_gmsh_physical_volume_gives_a_regions_elements(tmp_path):
    import gmsh

    from structcheck.fe.part import Part
    from structcheck.fe.regions import volume_elements

    path = str(tmp_path / "two.msh")
    gmsh.initialize()
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        a = gmsh.model.occ.addBox(0, 0, 0, 0.1, 0.02, 0.02)
        b = gmsh.model.occ.addBox(0.1, 0, 0, 0.05, 0.02, 0.02)  # the "insert": x in (0.1, 0.15)
        gmsh.model.occ.fragment([(3, a)], [(3, b)])
        gmsh.model.occ.synchronize()
        gmsh.model.addPhysicalGroup(3, [a], name="body")
        gmsh.model.addPhysicalGroup(3, [b], name="insert")
        gmsh.option.setNumber("Mesh.MeshSizeMax", 0.01)
        gmsh.model.mesh.generate(3)
        n_insert = sum(len(t) for t in gmsh.model.mesh.getElements(3, b)[1])  # gmsh's own count
        gmsh.write(path)
    finally:
        gmsh.finalize()
    part = Part.from_mesh(path, "6082-T6")
    e = volume_elements(path, "insert")
    centroid_x = part.points[part.cells].mean(axis=1)[:, 0]
    assert len(e) == n_insert and np.all(centroid_x[list(e)] > 0.1)
    assert np.sum(centroid_x > 0.1) == n_insert  # and every element beyond x = 0.1 is in it
    with_regions(part, Region("insert", haz_material("6082-T6"), elements=e))
    with pytest.raises(InputError, match=r"has no physical volume 'insrt'; its volumes are \['body', 'insert'\]"):
        volume_elements(path, "insrt")
