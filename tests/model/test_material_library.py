"""The material library's numbers as its cited standards and handbooks give them (typed here, not read from
structcheck/model/data/materials.toml; which of them were checked against a public text, with the page:
tests/data/material_sources.csv and tests/model/test_material_sources.py), its S-N curves and estimates, and a
user's material file."""
import numpy as np
import pytest

from structcheck.errors import InputError
from structcheck.fatigue import get_sn_curve
from structcheck.model import MATERIALS
from structcheck.model.materials import load_materials

MPa, GPa = 1e6, 1e9

# name: density [kg/m^3], E [GPa], nu, yield (0.2 % proof) [MPa], tensile [MPa], elongation A [%]
SOURCES = {
    # paper 004 Table 2 (density, E, nu, yield); ASM Handbook Vol. 2 typical 6061-O: Rm 124 MPa, A 25 %
    "6061-O": (2750, 69, 0.33, 55.2, 124, 25),
    # ASM Handbook Vol. 2 typical 6061-T6: Rp0.2 276, Rm 310 MPa, A 12 %, E 68.9 GPa, 2700 kg/m^3
    "6061-T6": (2700, 68.9, 0.33, 276, 310, 12),
    # EN 1999-1-1 Table 3.2b EN AW-6082 T6 extrusion t <= 5 mm: f_o 250, f_u 290, A 8 %; sec. 3.2.5: E 70 GPa,
    # nu 0.3, 2700 kg/m^3
    "6082-T6": (2700, 70, 0.3, 250, 290, 8),
    # ASM Handbook Vol. 2 typical 7075-T6: Rp0.2 503, Rm 572 MPa, A 11 %, E 71.7 GPa, 2810 kg/m^3
    "7075-T6": (2810, 71.7, 0.33, 503, 572, 11),
    # EN 1706 Table 3 EN AC-42100 T6 chill cast: Rp0.2 210, Rm 290, A 4 %; ASM A356.0-T6: E 72.4 GPa, 2.68 g/cm^3
    "A356-T6": (2680, 72.4, 0.33, 210, 290, 4),
    # EN 1563 Table 3 (t <= 30 mm): Rm 400, Rp0.2 250, A 15 %; Annex E Table E.1: E 169 GPa, nu 0.275, 7.1 kg/dm^3
    "EN-GJS-400-15": (7100, 169, 0.275, 250, 400, 15),
    # EN 10025-2 Table 7 (t <= 16 mm): ReH 235, Rm >= 360, A 26 %; EN 1993-1-1 3.2.6: E 210 GPa, nu 0.3, 7850
    "S235": (7850, 210, 0.3, 235, 360, 26),
    # EN 10025-2 Table 7 (t <= 16 mm): ReH 355, Rm >= 470, A 22 %
    "S355": (7850, 210, 0.3, 355, 470, 22),
    # EN 10083-3 Table 7, 42CrMo4 +QT, 16 < d <= 40 mm: Re 750, Rm >= 1000, A 11 %
    "42CrMo4-QT": (7850, 210, 0.3, 750, 1000, 11),
    # paper 004 Table 2 (density, E, nu, yield); ASTM A240 Table 2 annealed 304: Rm 515 MPa, A 40 %
    "304": (7930, 193, 0.29, 205, 515, 40),
    # ASTM A240 Table 2 annealed 316: Rp0.2 205, Rm 515 MPa, A 40 %; ASM: E 193 GPa, 8.0 g/cm^3; EN 1993-1-4: nu 0.3
    "316": (8000, 193, 0.3, 205, 515, 40),
}

# name: unnotched R = -1 fatigue strength [MPa] at cycles, and whether it is an ESTIMATE by a named rule
FATIGUE = {
    "6061-O": (62, 5e8, False),       # ASM Vol. 2 typical, R.R. Moore at 5e8
    "6061-T6": (96.5, 5e8, False),    # ASM Vol. 2 typical, R.R. Moore at 5e8
    "7075-T6": (159, 5e8, False),     # ASM Vol. 2 typical, R.R. Moore at 5e8
    "A356-T6": (90, 5e8, False),      # ASM Vol. 2 typical, A356.0-T6 permanent mould
    "EN-GJS-400-15": (200, 1e6, False),  # EN 1563 Annex E Table E.1 fatigue limit, rotating bending unnotched
    "6082-T6": (0.4 * 290, 5e8, True),  # Juvinall & Marshek: wrought aluminium ~0.4 S_ut at 5e8
    "S235": (0.5 * 360, 1e6, True),   # Shigley: S_e' = 0.5 S_ut for steels up to 1400 MPa
    "S355": (0.5 * 470, 1e6, True),
    "42CrMo4-QT": (0.5 * 1000, 1e6, True),
    "304": (0.5 * 515, 1e6, True),
    "316": (0.5 * 515, 1e6, True),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_library_values_match_their_cited_sources(name):
    rho, E, nu, fy, fu, A = SOURCES[name]
    m = MATERIALS[name]
    assert (m.density, m.E, m.nu, m.strength, m.tensile_strength, m.elongation) == pytest.approx(
        (rho, E * GPa, nu, fy * MPa, fu * MPa, A), rel=1e-12)
    assert m.criterion == "von_mises" and m.source


@pytest.mark.parametrize("name", sorted(FATIGUE))
def test_library_sn_curves_pass_through_their_sources_point_and_say_when_estimated(name):
    S, N, estimated = FATIGUE[name]
    curve = get_sn_curve(name)
    fu = SOURCES[name][4] * MPa
    # Juvinall-Marshek line: 0.9 S_ut at 1e3 cycles, the source's fatigue strength at N, infinite life below it
    np.testing.assert_allclose(curve.strength([1e3, N]), [0.9 * fu, S * MPa], rtol=1e-12)
    assert curve.limit == pytest.approx(S * MPa, rel=1e-12) and curve.life(0.99 * S * MPa) == np.inf
    assert curve.ultimate_strength == fu and curve.source.startswith("ESTIMATE") == estimated


def test_a_users_file_adds_materials_and_one_without_fatigue_says_what_to_add(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('["7075-T73"]\ndensity_kg_m3 = 2810\nE_GPa = 72\nnu = 0.33\nyield_MPa = 435\ntensile_MPa = 505\n'
                 'source = "ASM Vol. 2"\n["7075-T73".fatigue]\nstrength_MPa = 150\ncycles = 5e8\n'
                 '[bare]\ndensity_kg_m3 = 1000\nE_GPa = 1\nnu = 0.3\nyield_MPa = 10\n')
    mats = load_materials(f)
    m = mats["7075-T73"]
    assert (m.E, m.strength, m.tensile_strength, m.fatigue_strength) == (72e9, 435e6, 505e6, 150e6)
    assert get_sn_curve(m).limit == pytest.approx(150e6)
    with pytest.raises(InputError) as err:
        get_sn_curve(mats["bare"])
    msg = str(err.value)
    assert "\n" not in msg and "no fatigue (S-N) data for material 'bare'" in msg
    assert "tensile_MPa" in msg and "[\"bare\".fatigue]" in msg and "strength_MPa, cycles" in msg


@pytest.mark.parametrize("text, needle", [
    ("[x]\nE_GPa = 1\n", "material 'x': missing ['density_kg_m3', 'nu', 'yield_MPa']"),
    ("[x]\ndensity_kg_m3 = 1\nE_GPa = 1\nnu = 0.3\nyield_MPa = 1\nyield = 3\n", "unknown key(s) ['yield']"),
    ("[x]\ndensity_kg_m3 = 1\nE_GPa = 1\nnu = 0.7\nyield_MPa = 1\n", "nu = 0.7: give a finite number"),
    ("[x]\ndensity_kg_m3 = 1\nE_GPa = '70'\nnu = 0.3\nyield_MPa = 1\n", "E_GPa = '70': give a number"),
    ("[x]\ndensity_kg_m3 = 1\nE_GPa = 1\nnu = 0.3\nyield_MPa = 1\n[x.fatigue]\ncycles = 1e6\n", "needs strength_MPa"),
    ("[x\n", "not valid TOML"),
    ("", "no materials"),
])
def test_a_bad_material_file_gives_one_line_naming_the_file(tmp_path, text, needle):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(InputError) as err:
        load_materials(f)
    assert needle in str(err.value) and "bad.toml" in str(err.value) and "\n" not in str(err.value)


def test_structcheck_materials_lists_the_library_and_a_users_file(tmp_path, capsys):
    from structcheck.cli import main

    f = tmp_path / "mine.toml"
    f.write_text('["7075-T73"]\ndensity_kg_m3 = 2810\nE_GPa = 72\nnu = 0.33\nyield_MPa = 435\n')
    assert main(["materials", "--file", str(f)]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split() for line in out if line.split() and line.split()[0] in
            set(MATERIALS) | {"7075-T73"}}
    assert set(rows) == set(MATERIALS) | {"7075-T73"}
    # columns: E, nu, rho, yield, UTS, A, values checked against a public text / values with a source, S-N curve
    assert rows["S355"][1:8] == ["210", "0.3", "7850", "355", "470", "22", "6/8"] and rows["S355"][8] == "estimated,"
    assert rows["7075-T6"][7:9] == ["7/8", "published,"] and "ASM" in " ".join(rows["7075-T6"])
    assert rows["EN-GJS-400-15"][8:11] == ["published", "(not", "verified),"]  # EN 1563 Annex E: not checked
    assert rows["7075-T73"][1:9] == ["72", "0.33", "2810", "435", "-", "-", "-", "none"]  # a file without sources
    text = "\n".join(out)
    # the weld detail categories beside the materials: steel EN 1993-1-9 and aluminium EN 1999-1-3
    assert "EC3-<dsigma_C>" in text and "EN 1993-1-9" in text and "m1 = 3, m2 = 5" in text
    assert "EC9-<dsigma_C>-<m1>-<m2>" in text and "EN 1999-1-3" in text and "no category shipped" in text
    assert "gamma_Ff" in text and "gamma_Mf" in text


def test_structcheck_materials_with_a_bad_file_exits_2_with_one_line(tmp_path, capsys):
    from structcheck.cli import main

    f = tmp_path / "bad.toml"
    f.write_text('[x]\nE_GPa = 1\n')
    assert main(["materials", "--file", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "material 'x': missing ['density_kg_m3', 'nu', 'yield_MPa']" in err
