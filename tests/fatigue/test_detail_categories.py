"""Eurocode detail categories through their one dispatch (structcheck.fatigue.details): the EN 1999-1-3 aluminium
curve's knee, slopes and cut-off against its defining formulas, worked examples computed by hand, the partial
factors, the names' errors, and a welded 6082-T6 study failing on its weld category (exit 1, naming the region and
the category).

No EN 1999-1-3 category row could be checked against the standard (docs/fatigue.md), so the aluminium detail here
is a row written as the user writes one, EC9-<dsigma_C>-<m1>-<m2> = EC9-40-4.3-6.3: the test checks the curve
that row defines, not the standard's table."""
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from structcheck.errors import InputError
from structcheck.fatigue import DetailCategory, DetailStandard, detail_category, get_sn_curve, parse_detail

MPa = 1e6
N_C, N_D, N_L = 2e6, 5e6, 1e8  # EN 1999-1-3 / EN 1993-1-9: reference, knee, cut-off [cycles]


def test_aluminium_curve_has_the_knee_slopes_and_cut_off_of_its_defining_formulas():
    c = get_sn_curve("EC9-40-4.3-6.3")
    assert (c.name, c.quantity, c.ultimate_strength) == ("EC9-40-4.3-6.3", "range", None)
    D = 40 * MPa * (N_C / N_D) ** (1 / 4.3)  # constant-amplitude fatigue limit dsigma_D at N_D
    Lc = D * (N_D / N_L) ** (1 / 6.3)  # cut-off limit dsigma_L at N_L
    assert_allclose(c.strength([N_C, N_D, N_L]), [40 * MPa, D, Lc], rtol=1e-12)
    assert_allclose(c.limit, Lc, rtol=1e-12)
    # slopes: d log N / d log S = -m1 above the knee, -m2 between the knee and the cut-off
    for lo, hi, m in ((1.1 * D, 3.0 * D, 4.3), (1.01 * Lc, 0.99 * D, 6.3)):
        N = c.life([lo, hi])
        assert -np.log(N[1] / N[0]) / np.log(hi / lo) == pytest.approx(m, rel=1e-12)
    # continuous at the knee, infinite life below the cut-off
    assert_allclose(c.life([D * (1 + 1e-12), D * (1 - 1e-12)]), N_D, rtol=1e-9)
    assert c.life(0.999 * Lc) == np.inf and c.life(1.001 * Lc) < N_L


def test_worked_examples_by_hand():
    # 1. EC9-40-4.3-6.3 with gamma_Ff = 1, gamma_Mf = 1.2, a range of 50 MPa: the design category
    #    40 / 1.2 = 33.333 MPa; its knee 33.333 (2/5)^(1/4.3) = 26.94 MPa < 50, so the m1 line:
    #    N = 2e6 (33.333 / 50)^4.3; log10(2/3) = -0.176091, x 4.3 = -0.757193, 10^-0.757193 = 0.174907:
    #    N = 3.4981e5 cycles (5 digits: the hand rounding)
    c = detail_category("EC9-40-4.3-6.3", gamma_Ff=1.0, gamma_Mf=1.2)
    assert c.life(50 * MPa) == pytest.approx(3.4981e5, rel=1e-4)
    assert c.name == "EC9-40-4.3-6.3 (gamma_Ff 1, gamma_Mf 1.2)" and "gamma_Mf = 1.2" in c.source
    # 2. the same row without factors at 25 MPa: dsigma_D = 40 x 0.4^(1/4.3); log10 0.4 = -0.397940, / 4.3 =
    #    -0.092544, 10^ = 0.80808: 32.323 MPa > 25, so the m2 line from the knee:
    #    N = 5e6 (32.323 / 25)^6.3; log10 1.29292 = 0.111573, x 6.3 = 0.702911, 10^ = 5.0457: N = 2.5229e7
    assert get_sn_curve("EC9-40-4.3-6.3").life(25 * MPa) == pytest.approx(2.5229e7, rel=2e-4)
    # 3. partial factors on a steel category: gamma_Ff gamma_Mf = 1.1 x 1.35 = 1.485; EC3-71 at 100 MPa:
    #    N = 2e6 (71 / (1.485 x 100))^3 = 2e6 x 0.478114^3 = 2e6 x 0.109294 = 2.1859e5
    assert detail_category("EC3-71", 1.1, 1.35).life(100 * MPa) == pytest.approx(2.1859e5, rel=1e-4)


def test_one_dispatch_for_steel_and_aluminium_details():
    assert DetailStandard.of("EC3-71") is DetailStandard.EC3
    assert DetailStandard.of("ec9-40-4.3-6.3") is DetailStandard.EC9
    assert DetailStandard.of("6061-T6") is None and DetailStandard.of("304") is None  # materials, not details
    steel = parse_detail("EC3-71")
    assert (steel.dsigma_C, steel.m1, steel.m2) == (71, 3, 5)  # EN 1993-1-9 Fig. 7.1: m = 3 then 5
    d = DetailCategory(DetailStandard.EC9, 40, 4.3, 6.3, gamma_Mf=1.2)
    assert get_sn_curve(d) == d.curve() == detail_category("EC9-40-4.3-6.3", gamma_Mf=1.2)


@pytest.mark.parametrize("name, needle", [
    ("EC9-40-4.3", "EC9-<dsigma_C>-<m1>-<m2>"),    # m2 missing: the user's row gives it
    ("EC9-40-6.3-4.3", "m2 >= m1"),
    ("EC9-40-x-6", "write it as EC9-<dsigma_C>-<m1>-<m2>"),
    ("EC3-70", "valid categories are"),
    ("EC5-40", "no fatigue (S-N) data for material 'EC5-40'"),  # no such standard: read as a material name
])
def test_bad_detail_names_give_one_line(name, needle):
    with pytest.raises(InputError) as err:
        get_sn_curve(name)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_partial_factors_below_one_are_refused():
    with pytest.raises(InputError, match="gamma_Mf = 0.9: give a partial factor >= 1"):
        detail_category("EC3-71", gamma_Mf=0.9)


def test_a_welded_aluminium_study_failing_on_its_weld_category_exits_1_naming_region_and_category(tmp_path, capsys):
    """A 6082-T6 cantilever (L = 0.4 m, 20 mm square) whose band x in (0.08, 0.12) m is a MIG weld's heat-affected
    zone on detail EC9-40-4.3-6.3; tip force alternating +-200 N: the band's bending range
    2 F0 (L - x) (H/2) / (H^4/12) = 84-96 MPa is above 40 MPa, so N ~ 2e6 (40/96)^4.3 ~ 5e4 < the design life
    1e6; the parent metal's amplitude (<= 60 MPa) is below its 116 MPa cut-off: only the weld fails. The static
    check passes (HAZ yield 125 MPa against <= 51 MPa there: 2.4 > 1.5)."""
    from structcheck.cli import main

    script = tmp_path / "welded_bar.py"
    script.write_text(WELDED_BAR)
    assert main(["run", str(script), "--out", str(tmp_path / "out"), "--no-vtk", "--quiet"]) == 1
    out = capsys.readouterr().out
    fail = [line for line in out.splitlines() if "fatigue life" in line and "< the design life" in line]
    assert len(fail) == 1 and "region 'weld_haz'" in fail[0] and "S-N curve EC9-40-4.3-6.3" in fail[0]
    assert "safety factor" not in fail[0]  # the static check passes
    beam = json.loads((tmp_path / "out" / "summary.json").read_text())["links"]["beam"]
    assert (beam["fatigue_region"], beam["fatigue_curve"], beam["fatigue_passed"]) == (
        "weld_haz", "EC9-40-4.3-6.3", False)
    assert 2e4 < beam["min_fatigue_life_cycles"] < 1e5 and beam["min_safety_factor"] > 1.5
    # the report's fatigue detail shows the weld's curve like a steel category's: name, region, slopes, source
    page = (tmp_path / "out" / "report.html").read_text()
    assert "EC9-40-4.3-6.3 (ranges; region weld_haz)" in page and "EN 1999-1-3:2007 sec. 6.2.1" in page


WELDED_BAR = '''
"""A welded 6082-T6 cantilever: a band x in (0.08, 0.12) m is a MIG weld's heat-affected zone (EN 1999-1-1) on an
aluminium weld detail category; the tip force alternates +-F0 each second."""
import numpy as np
from skfem import MeshTet

from structcheck.fe.part import Part
from structcheck.fe.regions import Region, haz_material, with_regions
from structcheck.model.robot import Joint, Link, Robot
from structcheck.settings import Fatigue
from structcheck.study import PointForce, Study

L, H, F0 = 0.40, 0.02, 200.0


def build(detail="EC9-40-4.3-6.3"):
    m = MeshTet.init_tensor(np.linspace(0, L, 41), np.linspace(-H / 2, H / 2, 3), np.linspace(-H / 2, H / 2, 3))
    x = m.p[0, m.facets].mean(axis=0)
    bnd = m.boundary_facets()
    part = Part.from_skfem(m, "6082-T6", surfaces={"joint1": bnd[np.isclose(x[bnd], 0.0)],
                                                   "tip": bnd[np.isclose(x[bnd], L)]})
    xc = m.p[0, m.t].mean(axis=0)
    band = tuple(np.flatnonzero((xc > 0.08) & (xc < 0.12)))
    part = with_regions(part, Region("weld_haz", haz_material("6082-T6"), elements=band, fatigue=detail))
    robot = Robot([Link("ground"), Link("beam")],
                  [Joint("joint1", "revolute", "ground", "beam", np.eye(4), np.array([0, 1.0, 0]), -3, 3)],
                  points={"tip": ("beam", np.array([L, 0.0, 0.0]))})
    force = f"STEP(time, 0, -{F0}, 0.25, {F0}) + STEP(time, 0.5, 0, 0.75, {-2 * F0})"
    return Study(name="welded_bar", robot=robot, motion={}, parts={"beam": part}, t_end=1.0, n_frames=3,
                 point_forces=(PointForce("tip", force, (0, 0, -1)),), gravity=(0, 0, 0), quasi_static=True,
                 tool_point="tip", flexibility="link", fatigue=Fatigue(cycles_per_hour=3600.0, design_life_cycles=1e6))


study = build()
'''
