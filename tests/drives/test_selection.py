"""Selection picks the smallest entry that passes, on a made-up catalogue where the answer is reasoned by hand."""
import textwrap

import pytest

from structcheck.drives import JointDuty, drive_checks, load_catalogue, select_reducer

CATALOGUE = """
[reducer.A]
kind = "cycloidal_rv"
rated_torque_nm = 100
repeated_peak_torque_nm = 250
average_torque_limit_nm = 80
source = "made up for a test"

[reducer.B]
kind = "cycloidal_rv"
rated_torque_nm = 200
repeated_peak_torque_nm = 500
average_torque_limit_nm = 120
source = "made up for a test"

[reducer.C]
kind = "cycloidal_rv"
rated_torque_nm = 400
repeated_peak_torque_nm = 1000
average_torque_limit_nm = 240
bearing = "CB"
source = "made up for a test"

[reducer.D]
kind = "strain_wave"
rated_torque_nm = 150
repeated_peak_torque_nm = 2000
average_torque_limit_nm = 2000
source = "made up for a test"

[bearing.CB]
type = "crossed_roller"
allowable_moment_nm = 1000
source = "made up for a test"
"""

# 150 N m for 1 s and 300 N m for 0.1 s, both at 10 rpm: the 10/3-power mean is
# T_av = ((150^(10/3) x 1 + 300^(10/3) x 0.1) / 1.1)^(3/10) = 179.7 N m; the peak is 300 N m.
TAV = ((150 ** (10 / 3) + 300 ** (10 / 3) * 0.1) / 1.1) ** 0.3


@pytest.fixture
def cat(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text(textwrap.dedent(CATALOGUE))
    return load_catalogue(f, shipped=False)


def _duty():
    return JointDuty.from_segments([150.0, 300.0], [10.0, 10.0], [1.0, 0.1])


def test_selection_picks_the_smallest_passing_rv(cat):
    """A (100 N m) fails the peak (300 > 250) and the average (179.7 > 80; the more utilised); B (200 N m) passes
    the peak (0.6) but fails the average (179.7 > 120); C (400 N m) passes: average 179.7 / 240 = 0.749 governs
    over the peak 0.3. Its bearing has no dp, C or C0: those checks are listed as not made."""
    sel = select_reducer(cat, _duty(), kind="cycloidal_rv")
    assert sel.reducer == "C"
    assert sel.governing.check == "reducer average torque"
    assert sel.governing.utilisation == pytest.approx(TAV / 240)
    assert [(name, r.check) for name, r in sel.rejected] == [("A", "reducer average torque"),
                                                             ("B", "reducer average torque")]
    assert sel.rejected[0][1].utilisation == pytest.approx(TAV / 80)
    assert "bearing tilting moment" in [r.check for r in sel.not_checked]  # the duty gives no reaction loads


def test_any_kind_picks_the_smaller_passing_strain_wave_gear(cat):
    """Without a kind, D (150 N m rated) is smaller than B and C and passes; its average torque takes the
    strain-wave exponent 3: ((150^3 + 300^3 x 0.1) / 1.1)^(1/3) = 176.1 N m, 0.088 of 2000 N m, so the peak
    (300 / 2000 = 0.15) governs."""
    sel = select_reducer(cat, _duty())
    assert sel.reducer == "D" and [n for n, _ in sel.rejected] == ["A"]
    results = {r.check: r for r in sel.results}
    assert results["reducer average torque"].value == pytest.approx(((150**3 + 300**3 * 0.1) / 1.1) ** (1 / 3))
    assert sel.governing.check == "reducer repeated peak torque" and sel.governing.utilisation == pytest.approx(0.15)


def test_nothing_passes(cat):
    sel = select_reducer(cat, JointDuty.from_segments([3000.0], [10.0], [1.0]), kind="cycloidal_rv")
    assert sel.reducer is None and [n for n, _ in sel.rejected] == ["A", "B", "C"]


def test_drive_checks_lists_every_part(cat):
    results = drive_checks(_duty(), cat.get("reducer", "C"), cat.get("bearing", "CB"), design_life_h=20_000)
    parts = {r.part for r in results}
    assert parts == {"reducer C", "output bearing CB"}
    assert all(r.line() for r in results)


def test_require_all_checked_passes_over_entries_with_missing_values(cat):
    """C passes its made checks but cannot make its life (no rating) or its bearing's checks (no dp, C, C0, no
    reaction loads): asked for every check, the selection passes it over, naming a check it could not make."""
    sel = select_reducer(cat, _duty(), kind="cycloidal_rv", require_all_checked=True)
    assert sel.reducer is None and [n for n, _ in sel.rejected] == ["A", "B", "C"]
    assert sel.rejected[2][1].passed is None and sel.rejected[2][1].note.startswith("not checked")
