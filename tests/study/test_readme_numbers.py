"""Regression guards, and beside them the paper's numbers with the stated gap.

REGRESSION GUARDS (the tests named ``test_regression_guard_*``): the paper-004 numbers of README.md (its headline
table) and docs/paper004.md (the whole comparison) are the study's: each is parsed out of the text and compared, to
the digits printed, with the run of the study (the session's ``paper004_run``). They hold the project to its own
earlier output (GOLDEN_SOURCE): a README that drifts from the code, or code that drifts from the README, fails
here; they say nothing about whether the numbers are right.

INDEPENDENT CHECKS (``test_paper004_*``, each paired with the guard of the same quantity): paper 004's own results
(PAPER004, copied from the paper) with the gap the README states and why, and the closed forms the numbers must
obey whatever the geometry. The fatigue numbers have no paper counterpart (the paper states no duty); their
independent checks are the hand calculations of tests/fatigue/test_arm_fatigue.py (arm model) and
tests/fatigue/test_study_fatigue.py (per-link model)."""
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

# Where the golden (README/docs) numbers came from: the headline run after the gripper's claw edges were rounded,
# commit 851469b (2026-11-27), `python studies/loading_unloading_6dof.py --out results/loading_unloading_6dof
# --link-model` (the arm model with the per-link model beside it, as the session's paper004_run runs it).
GOLDEN_SOURCE = "851469b: python studies/loading_unloading_6dof.py --out results/loading_unloading_6dof --link-model"

# Paper 004 (Xu et al. 2025, Mech. Sci. 16, 391-402), copied: the abstract and sect. 5 (conclusions) give the
# maximum stress 10.241 MPa, strain 0.00014501 and deformation 0.025272 mm; sect. 4.2 repeats the stress and the
# deformation and gives the strain as 0.00014531; Table 2: 6061 E = 69 GPa, yield >= 55.2 MPa; 304 E = 193 GPa,
# yield >= 205 MPa. Its mesh: 8802 elements, 17 109 nodes (sect. 4.1).
PAPER004 = {"max_von_mises_pa": 10.241e6, "max_equivalent_strain": 1.4501e-4, "max_equivalent_strain_sect42": 1.4531e-4,
            "max_deformation_m": 0.025272e-3, "E_6061_pa": 69e9, "yield_6061_pa": 55.2e6, "yield_304_pa": 205e6}


def paper004_section() -> str:
    """The README's headline section, then docs/paper004.md, with line breaks and repeated blanks folded to
    single spaces (the README's table is found first)."""
    text = README.read_text()
    start = text.index("## The headline: paper 004")
    end = text.index("\n## ", start + 1)
    return " ".join((text[start:end] + "\n" + (ROOT / "docs" / "paper004.md").read_text()).split())


def find(pattern: str) -> re.Match:
    m = re.search(pattern, paper004_section())
    assert m, f"README.md's paper-004 section no longer says {pattern!r}"
    return m


def table_cell(quantity: str) -> str:
    """The structcheck column of the paper-004 table's row ``quantity``."""
    return find(r"\| " + re.escape(quantity) + r" \|[^|]*\|([^|]*)\|").group(1).strip()


def printed(value: float, text: str) -> bool:
    """``value`` written with as many decimals as ``text`` (e.g. '9.82', '1.424e-4', '+1.35', '1,980') is
    ``text``."""
    text = text.replace(",", "")
    mantissa, _, exponent = text.partition("e")
    decimals = len(mantissa.partition(".")[2])
    scale = 10.0 ** int(exponent) if exponent else 1.0
    return round(value / scale, decimals) == float(mantissa)


def test_printed_helper():
    assert printed(9.8244, "9.82") and not printed(9.8264, "9.82")
    assert printed(1.42382e-4, "1.424e-4") and not printed(1.4256e-4, "1.424e-4")
    assert printed(1980, "1,980") and printed(1.35, "+1.35") and printed(-0.004, "-0.00")


def test_regression_guard_table_numbers(paper004_run):
    s = paper004_run.summary
    assert s["flexibility"] == "arm"  # the README's numbers are the default (arm) model's
    vm, link, t_peak, vm_link_model = re.match(
        r"([\d.]+) MPa \((\w+) claw root, t = ([\d.]+) s[^)]*\); per-link model ([\d.]+) MPa",
        table_cell("max von Mises stress")).groups()
    assert printed(s["max_von_mises_pa"] * 1e-6, vm), (s["max_von_mises_pa"], vm)
    assert s["max_von_mises_link"] == link
    assert printed(s["links"][link]["time_of_max_s"], t_peak)
    assert printed(max(L["max_von_mises_link_model_pa"] for L in s["links"].values()) * 1e-6, vm_link_model)
    avg, avg_link, t_avg, indicator = re.match(
        r"([\d.]+) MPa \((\w+), t = ([\d.]+) s\); stress-discontinuity indicator (\d+)% at the unaveraged peak",
        table_cell("max von Mises stress, nodal-averaged")).groups()
    top = max(s["links"].values(), key=lambda L: L["max_von_mises_averaged_pa"])
    assert top is s["links"][avg_link] and printed(top["max_von_mises_averaged_pa"] * 1e-6, avg)
    assert printed(top["time_of_max_averaged_s"], t_avg)
    assert printed(100 * s["links"][link]["stress_discontinuity"], indicator)
    strain = table_cell("max equivalent strain")
    assert printed(s["max_equivalent_strain"], strain), (s["max_equivalent_strain"], strain)
    # No paper check beside these two: paper 004's 0.025272 mm is the largest displacement of an ANSYS assembly
    # whose link shapes, joint modelling and supports are unpublished; a displacement (unlike a peak stress, which
    # the local section sets) sums the compliance of every link and joint along the 0.8 m reach, so no band could be
    # justified (ours is 21x the paper's; docs/paper004.md says why). The deflection's independent checks are
    # tests/flex (the arm against the same arm meshed as one body, the tip-mass cantilever).
    tool, total = re.match(r"([\d.]+) mm tool-point deflection; ([\d.]+) mm total deformation",
                           table_cell("max deformation")).groups()
    assert printed(s["tool_point_deflection_m"] * 1e3, tool), (s["tool_point_deflection_m"], tool)
    assert printed(s["max_total_deformation_m"] * 1e3, total), (s["max_total_deformation_m"], total)
    sf, sf_link = re.match(r"min safety factor ([\d.]+) \((\w+),", table_cell("max stress vs yield")).groups()
    assert printed(s["links"][sf_link]["min_safety_factor"], sf)
    assert min(L["min_safety_factor"] for L in s["links"].values()) == s["links"][sf_link]["min_safety_factor"]
    assert "passes the required 1.5" in paper004_section() and s["passed"] and s["required_safety_factor"] == 1.5


# Paper 004 publishes no link geometry; ours is our own design of the same arm (same D-H table, loads, materials and
# payload). "Same order" (README) is held as a factor of 2 either way, and that band is not fitted to our number:
# both peaks sit where a bending stress concentrates on the end effector (the paper's Fig. 8 names the shoulder,
# elbow and end effector; ours is the claw root), and a bending stress goes as the inverse square of the section's
# depth, so a factor 2 in the peak is a factor sqrt(2) = 1.41 in the claw's thickness: the latitude two designers
# have in sizing a claw for the same 98 N. Outside it our design would not be "similar sizing" and the README's
# claim would be false. Both the unaveraged and the nodal-averaged peaks are held to it (ANSYS displays nodal
# averages by default, so the averaged one is the like-for-like number).
SAME_ORDER = 2.0


def test_paper004_stress_beside_the_paper(paper004_run):
    """Pairs test_regression_guard_table_numbers' peak stresses: the paper's 10.241 MPa within SAME_ORDER (above),
    and the verdict the paper states ("far less than the yield strengths", Table 2: 55.2 and 205 MPa) by the
    closed form safety factor = yield / peak, which the guard's 4.9 must be."""
    s = paper004_run.summary
    ours = s["max_von_mises_pa"]
    averaged = max(L["max_von_mises_averaged_pa"] for L in s["links"].values())
    for value in (ours, averaged):
        assert 1 / SAME_ORDER < value / PAPER004["max_von_mises_pa"] < SAME_ORDER, (value, PAPER004)
    for name, L in s["links"].items():
        # the paper's two yields are the only ones in the run (base and waist 304, the rest 6061)
        assert L["yield_strength_pa"] in (PAPER004["yield_6061_pa"], PAPER004["yield_304_pa"]), name
        assert L["min_safety_factor"] == pytest.approx(L["yield_strength_pa"] / L["max_von_mises_pa"], rel=1e-12)
    peak = s["links"][s["max_von_mises_link"]]
    # the paper's "far below yield" for its own peak: 55.2 / 10.241 = 5.4 if it sits in 6061; ours passes 1.5
    assert PAPER004["yield_6061_pa"] / PAPER004["max_von_mises_pa"] > 5 and peak["min_safety_factor"] > 1.5


def test_paper004_strain_beside_the_paper(paper004_run):
    """Pairs the guard's 1.617e-4. The closed form: equivalent elastic strain = von Mises / E (ANSYS's, nu' = nu),
    so our peak strain is our peak stress over 6061's 69 GPa (Table 2) where the peak is in 6061. The paper's
    strain adds nothing beyond its stress except its own inconsistency: 10.241 MPa / 69 GPa = 1.4842e-4 against its
    1.4501e-4 (2.3% apart; its sect. 4.2 says 1.4531e-4). So our strain over the paper's is our stress over the
    paper's within that 2.4% (and within SAME_ORDER, as the stress)."""
    s = paper004_run.summary
    strain = s["max_equivalent_strain"]
    assert strain == pytest.approx(max(L["max_equivalent_strain"] for L in s["links"].values()), rel=1e-12)
    peak = s["links"][s["max_von_mises_link"]]
    assert peak["yield_strength_pa"] == PAPER004["yield_6061_pa"]  # in 6061: E = 69 GPa
    assert strain == pytest.approx(s["max_von_mises_pa"] / PAPER004["E_6061_pa"], rel=1e-6)
    paper_inconsistency = (PAPER004["max_von_mises_pa"] / PAPER004["E_6061_pa"]) / PAPER004["max_equivalent_strain"]
    assert paper_inconsistency == pytest.approx(1.0235, abs=5e-4)
    ratio = (strain / PAPER004["max_equivalent_strain"]) / (s["max_von_mises_pa"] / PAPER004["max_von_mises_pa"])
    assert ratio == pytest.approx(paper_inconsistency, rel=1e-6)  # i.e. the stress comparison, times 1.0235
    assert 1 / SAME_ORDER < strain / PAPER004["max_equivalent_strain"] < SAME_ORDER


def test_regression_guard_text_numbers(paper004_run):
    s = paper004_run.summary
    nodes = find(r"([\d,]+) quadratic-tetrahedron nodes").group(1)
    assert printed(s["analysis"]["total_nodes"], nodes)
    links = s["links"]
    arm = find(r"largest: waist ([+-][\d.]+)%, upper arm ([+-][\d.]+)%, base ([+-][\d.]+)%, forearm ([+-][\d.]+)%\)"
               ).groups()
    named = ("waist", "upper_arm", "base", "forearm")
    for name, text in zip(named, arm):
        assert printed(100 * (links[name]["dynamic_amplification"] - 1), text), (name, text)
    # "largest": the four largest, in that order
    assert tuple(sorted(links, key=lambda n: -links[n]["dynamic_amplification"])[:4]) == named
    hz, t_mode = find(r"the arm's lowest mode \(([\d.]+) Hz, at the pose of t = ([\d.]+) s\)").groups()
    assert printed(s["arm_modes_hz"][0], hz) and printed(s["time_of_arm_modes_s"], t_mode)
    # the per-link model's own ringing: its peak over its quasi-static peak
    ua, fa, f_ua, f_fa = find(r"own modes \(upper arm ([+-][\d.]+)%, forearm ([+-][\d.]+)%: first modes at "
                              r"(\d+) and (\d+) Hz").groups()
    for name, text in (("upper_arm", ua), ("forearm", fa)):
        L = links[name]
        assert printed(100 * (L["max_von_mises_link_model_pa"] / L["quasi_static_max_von_mises_link_model_pa"] - 1),
                       text), (name, text)
    assert printed(links["upper_arm"]["lowest_frequency_link_model_hz"], f_ua)
    assert printed(links["forearm"]["lowest_frequency_link_model_hz"], f_fa)
    assert not any("estimated lowest mode" in w for w in s["warnings"])  # the arm model integrates that mode


def test_check_residuals_are_as_small_as_the_readme_says(paper004_run):
    """The residuals are round-off: the README gives their order of magnitude, which they must not exceed
    (their last digit moves with the BLAS and summation order, so they are not pinned to it)."""
    checks, base = paper004_run.summary["checks"], paper004_run.summary["links"]["base"]
    power = find(r"power balance `sum tau qd = dE/dt` \(([\d.]+e-\d+) relative\)").group(1)
    links_eq, base_eq = find(r"reaction wrench \(([\d.]+e-\d+); the base against the ground reaction from the "
                             r"whole robot's momentum balance, ([\d.]+e-\d+)\)").groups()
    assert checks["power_balance_rel_error"] < 10 * float(power)
    assert checks["equilibrium_rel_error"] < 10 * float(links_eq)
    assert base["equilibrium_rel_error"] < 10 * float(base_eq)


def test_regression_guard_samples_count(paper004_run):
    text = (ROOT / "docs" / "how_it_works.md").read_text()
    samples = re.search(r"paper 004: ([\d,]+) samples", " ".join(text.split())).group(1)
    assert printed(paper004_run.summary["analysis"]["n_time_samples"], samples)


def test_regression_guard_durability_numbers(paper004_run):
    """Regression guard (no paper counterpart: paper 004 states no duty and no fatigue; the fatigue chain's
    independent checks are tests/fatigue/test_arm_fatigue.py and test_study_fatigue.py). The durability
    paragraph: the duty, every link's fatigue safety factor in the order printed, the governing location, infinite
    lives."""
    s = paper004_run.summary
    links = s["links"]
    first, sf_first, where = find(r"smallest on the (\w+), ([\d.]+), at its claw root \(([-\d., ]+)\) mm").groups()
    rest = re.findall(r"(\w+(?: arm)?) ([\d.]+)", find(r"mm in the link frame; then ([^.]+\.\d+(?:, [^,.]+\.?\d*)*)")
                      .group(1))
    named = [(first, sf_first)] + [(n.replace(" ", "_"), v) for n, v in rest]
    assert [n for n, _ in named] == sorted(links, key=lambda n: links[n]["fatigue_safety_factor"])
    for name, value in named:
        assert printed(links[name]["fatigue_safety_factor"], value), (name, links[name]["fatigue_safety_factor"])
    x = [float(v) for v in where.split(",")]
    assert np.allclose(np.array(links[first]["location_of_min_life_m"]) * 1e3, x, atol=0.05)
    assert all(L["min_fatigue_life_cycles"] is None or np.isinf(L["min_fatigue_life_cycles"]) for L in links.values())
    assert "Every link has infinite life" in paper004_section()
    duty = s["fatigue"]
    assert duty["cycles_per_hour"] == 360 and duty["design_life_hours"] == 80_000
    assert duty["design_life_cycles"] == 2.88e7 and duty["duty_cycle_s"] == 10.0
