"""The paper-004 numbers of README.md (its headline table) and docs/paper004.md (the whole comparison) are the
study's: each is parsed out of the text and compared, to the digits printed, with the run of the study (the
session's ``paper004_run``). A README that drifts from the code, or code that drifts from the README, fails here."""
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


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


def test_table_numbers(paper004_run):
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
    tool, total = re.match(r"([\d.]+) mm tool-point deflection; ([\d.]+) mm total deformation",
                           table_cell("max deformation")).groups()
    assert printed(s["tool_point_deflection_m"] * 1e3, tool), (s["tool_point_deflection_m"], tool)
    assert printed(s["max_total_deformation_m"] * 1e3, total), (s["max_total_deformation_m"], total)
    sf, sf_link = re.match(r"min safety factor ([\d.]+) \((\w+),", table_cell("max stress vs yield")).groups()
    assert printed(s["links"][sf_link]["min_safety_factor"], sf)
    assert min(L["min_safety_factor"] for L in s["links"].values()) == s["links"][sf_link]["min_safety_factor"]
    assert "passes the required 1.5" in paper004_section() and s["passed"] and s["required_safety_factor"] == 1.5


def test_text_numbers(paper004_run):
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


def test_samples_count(paper004_run):
    text = (ROOT / "docs" / "how_it_works.md").read_text()
    samples = re.search(r"paper 004: ([\d,]+) samples", " ".join(text.split())).group(1)
    assert printed(paper004_run.summary["analysis"]["n_time_samples"], samples)


def test_durability_numbers(paper004_run):
    """The durability paragraph: the duty, every link's fatigue safety factor in the order printed, the
    governing location, infinite lives."""
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
