"""The drivetrain catalogue: the shipped entries carry their sources' values, a user's file loads beside them, and
every bad entry is refused with one line naming the file, the entry and the field."""
import re
import textwrap

import pytest

from structcheck.drives import BearingType, LifeBasis, ReducerKind, load_catalogue, shipped_files
from structcheck.errors import InputError


def test_shipped_entries_cite_their_sources_and_paper000_table3():
    cat = load_catalogue()
    assert shipped_files() and all(f.suffix == ".toml" for f in shipped_files())
    for section in ("reducers", "bearings", "motors", "brakes"):
        for entry in getattr(cat, section).values():
            assert entry.source.strip()
    # paper 000 (Yu, Juanatas, Zheng 2024) Table 3: reducer, ratio, output torque; motor, rated power, inertia
    table3 = {"RV-400C": (209, 3752), "RV-450E": (192, 4410), "RV-320E": (189, 3136), "RV-80E": (121, 784)}
    for name, (ratio, torque) in table3.items():
        r = cat.get("reducer", name)
        assert (r.kind, r.ratio, r.rated_torque_nm) == (ReducerKind.CYCLOIDAL_RV, ratio, torque)
        assert r.repeated_peak_torque_nm is None and r.rated_life_h is None  # not in the paper: not invented
    motors = {"1FT7102-5AF7": (6280, 63.6e-4), "1FT7086-1AF7": (5650, 63.6e-4), "1FT7064-1AF7": (2390, 11.9e-4)}
    for name, (power, inertia) in motors.items():
        m = cat.get("motor", name)
        assert (m.rated_power_w, m.rated_speed_rpm, m.rotor_inertia_kgm2) == (power, 3000, inertia)
        assert m.rated_torque_nm is None and m.peak_torque_nm is None
    rv42n = cat.get("reducer", "RV-42N")  # Nabtesco RV-N rating table
    assert (rv42n.rated_torque_nm, rv42n.repeated_peak_torque_nm, rv42n.momentary_peak_torque_nm) == (412, 1029, 2058)
    hfuc = cat.get("reducer", "HFUC-32-100")
    assert hfuc.life_basis is LifeBasis.L50 and hfuc.rated_life_h == 35000
    assert cat.get("bearing", "CHA-25A").type is BearingType.CROSSED_ROLLER


def test_a_user_file_loads_beside_the_shipped_one(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text(textwrap.dedent("""
        [reducer."My-RV"]
        kind = "cycloidal_rv"
        ratio = 81
        rated_torque_nm = 500
        bearing = "CHA-40A"
        source = "my supplier's datasheet, p.3"
        """))
    cat = load_catalogue(f)
    assert cat.get("reducer", "My-RV").ratio == 81 and "RV-80E" in cat.reducers
    assert cat.bearing_of(cat.get("reducer", "My-RV")).name == "CHA-40A"
    assert cat.files[-1] == f


BAD = [
    ('[reducer.X]\nkind = "planetary"\nsource = "s"\n',
     "reducer 'X': kind = 'planetary': give one of 'strain_wave', 'cycloidal_rv'"),
    ('[reducer.X]\nkind = "strain_wave"\nratio = -3\nsource = "s"\n',
     "reducer 'X': ratio = -3: give a finite number >= 1"),
    ('[reducer.X]\nkind = "strain_wave"\nratio = "fifty"\nsource = "s"\n', "reducer 'X': ratio = 'fifty'"),
    ('[reducer.X]\nkind = "strain_wave"\n', "reducer 'X': source missing"),
    ('[reducer.X]\nkind = "strain_wave"\nsource = "s"\nratioo = 50\n', "reducer 'X': unknown field 'ratioo'"),
    ('[reducer.X]\nkind = "strain_wave"\nsource = "s"\nrated_life_h = 7000\n',
     "reducer 'X': rated_life_h is given without life_basis"),
    ('[reducer.X]\nkind = "strain_wave"\nsource = "s"\ntorsion_t1_nm = 29\n',
     "reducer 'X': three-segment torsion: torsion_t2_nm, torsion_k1_nm_per_rad"),
    ('[reducer.X]\nkind = "strain_wave"\nsource = "s"\nefficiency = 1.2\n', "reducer 'X': efficiency = 1.2"),
    ('[reducer.X]\nkind = "strain_wave"\nsource = "s"\nbearing = "nope"\n',
     "reducer 'X': bearing = 'nope' is not in the catalogue"),
    ('[bearing.B]\ntype = "crossed_roller"\nsource = "s"\npitch_diameter_m = nan\n',
     "bearing 'B': pitch_diameter_m = nan"),
    ('[bearing.B]\ntype = "crossed_roller"\nsource = "s"\ntilting_stiffness_nm_per_rad = 1e6\n'
     'tilting_stiffness_nm_per_arcmin = 300\n', "bearing 'B': give either tilting_stiffness_nm_per_rad or"),
    ('[gearbox.G]\nsource = "s"\n', "unknown table [gearbox]"),
    ('[reducer.X\nkind = 1\n', "not valid TOML"),
    ('[reducer."RV-80E"]\nkind = "cycloidal_rv"\nsource = "s"\n', "reducer 'RV-80E' is already in"),
]


@pytest.mark.parametrize("text, message", BAD, ids=[m[:40] for _, m in BAD])
def test_bad_entries_name_file_entry_and_field(tmp_path, text, message):
    f = tmp_path / "mine.toml"
    f.write_text(text)
    with pytest.raises(InputError) as info:
        load_catalogue(f)
    text = str(info.value)
    assert "\n" not in text and text.startswith(str(f)) and message in text


def test_missing_file_and_unknown_name():
    with pytest.raises(InputError, match="no such drivetrain catalogue file"):
        load_catalogue("/nonexistent/drives.toml")
    with pytest.raises(InputError, match=re.escape("no reducer 'RV-9000' in the drivetrain catalogue; reducers: ")):
        load_catalogue().get("reducer", "RV-9000")
