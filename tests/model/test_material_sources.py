"""Every value of the material library against the public source it cites: tests/data/material_sources.csv holds
the values as those pages state them (typed from the pages, not from structcheck/model/data/materials.toml), one
row per value with its URL; a value without a row must say in the library that it was not verified."""
import csv
from pathlib import Path

import pytest

from structcheck.fe.regions import haz_material
from structcheck.model import MATERIALS

TABLE = Path(__file__).parents[1] / "data" / "material_sources.csv"
#: key of the material file -> (Material attribute, scale from SI to the key's unit)
KEYS = {"density_kg_m3": ("density", 1.0), "E_GPa": ("E", 1e-9), "nu": ("nu", 1.0), "yield_MPa": ("strength", 1e-6),
        "tensile_MPa": ("tensile_strength", 1e-6), "elongation_pct": ("elongation", 1.0),
        "fatigue_strength_MPa": ("fatigue_strength", 1e-6), "fatigue_cycles": ("fatigue_cycles", 1.0)}
NOT_VERIFIED = "(not verified against the text)"


def rows() -> list[dict]:
    with TABLE.open() as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def material(name: str):
    return haz_material(name.removesuffix(" HAZ")) if name.endswith(" HAZ") else MATERIALS[name]


def value(m, key: str):
    attr, scale = KEYS[key]
    v = getattr(m, attr)
    return None if v is None else v * scale


@pytest.mark.parametrize("row", rows(), ids=lambda r: f"{r['material']}:{r['key']}")
def test_library_value_equals_what_its_source_states(row):
    m = material(row["material"])
    # rel_tol: the source's own unit conversion (e.g. 10500 ksi for "72 GPa"); else the value as printed
    assert value(m, row["key"]) == pytest.approx(float(row["value"]), rel=float(row["rel_tol"]) or 1e-12)
    cited = dict(m.sources)[row["key"]]
    assert row["source"] in cited and NOT_VERIFIED not in cited.split(";")[0]  # the library cites the same page


@pytest.mark.parametrize("name", sorted(MATERIALS) + ["6061-T6 HAZ", "6082-T6 HAZ"])
def test_every_value_is_checked_against_a_source_or_labelled_not_verified(name):
    m, checked = material(name), {r["key"] for r in rows() if r["material"] == name}
    if name.endswith(" HAZ"):  # a heat-affected zone keeps its base's elastic constants and density
        checked |= {r["key"] for r in rows() if r["material"] == name.removesuffix(" HAZ")} & {"density_kg_m3",
                                                                                                 "E_GPa", "nu"}
    sources = dict(m.sources)
    for key in KEYS:
        if value(m, key) is None:
            continue
        assert key in sources, f"{name}: {key} has no source"
        assert key in checked or NOT_VERIFIED in sources[key], f"{name}: {key} neither checked nor labelled"


def test_the_table_is_typed_per_value_and_names_a_source_each():
    table = rows()
    assert len({(r["material"], r["key"]) for r in table}) == len(table)  # one row per value
    assert all(r["source"].startswith(("http", "paper 00")) and r["states"] for r in table)
    assert {r["material"] for r in table} >= {"6061-O", "6061-T6", "6082-T6", "7075-T6", "A356-T6", "EN-GJS-400-15",
                                              "S235", "S355", "42CrMo4-QT", "304", "316", "6061-T6 HAZ"}


def test_structcheck_materials_sources_prints_each_values_source(capsys):
    from structcheck.cli import main

    assert main(["materials", "--sources"]) == 0
    out = capsys.readouterr().out.splitlines()
    block = out[out.index(next(line for line in out if line.startswith("6061-T6: "))):][:9]
    assert any(line.startswith("  yield_MPa: checked: ") and "glemco.com" in line for line in block)
    assert any(line.startswith("  nu: from EN 1563") and NOT_VERIFIED in line for line in out)


def test_a_users_sources_table_is_read_and_a_bad_key_refused_in_one_line(tmp_path):
    from structcheck.errors import InputError
    from structcheck.model.materials import load_materials

    base = '["7075-T73"]\ndensity_kg_m3 = 2810\nE_GPa = 72\nnu = 0.33\nyield_MPa = 435\n["7075-T73".sources]\n'
    f = tmp_path / "mine.toml"
    f.write_text(base + 'yield_MPa = "supplier certificate 1234"\n')
    assert load_materials(f)["7075-T73"].sources == (("yield_MPa", "supplier certificate 1234"),)
    f.write_text(base + 'yeild_MPa = "typo"\n')
    with pytest.raises(InputError) as err:
        load_materials(f)
    assert "sources for unknown key(s) ['yeild_MPa']" in str(err.value) and "\n" not in str(err.value)
