"""structcheck.fatigue.duty, called directly: a duty's cycles and hours from its own numbers, and the inputs it
refuses (paper 004's duty as the worked example: a 10 s cycle back to back, 360 an hour, 80,000 h)."""
from types import SimpleNamespace

import pytest

from structcheck.errors import InputError
from structcheck.fatigue.duty import Duty, study_duty, study_fatigue_settings
from structcheck.settings import Fatigue


def study(t_end=10.0, **fatigue):
    """The two fields study_duty reads from a Study."""
    return SimpleNamespace(t_end=t_end, fatigue=Fatigue(**fatigue))


def test_design_life_in_hours_counts_its_cycles():
    # paper 004's duty (docs/paper004.md): 2 shifts x 8 h x 250 days x 20 years = 80,000 h at 360 cycles/h
    d = study_duty(study(cycles_per_hour=360, design_life_hours=2 * 8 * 250 * 20))
    assert d == Duty(360.0, 2.88e7, 80_000.0, 10.0)
    assert d.hours(2.88e7) == 80_000.0 and d.hours(360) == 1.0


def test_design_life_in_cycles_gives_its_hours():
    d = study_duty(study(cycles_per_hour=100, design_life_cycles=1e6))
    assert d.design_life_hours == 1e4 and d.design_life_cycles == 1e6


def test_without_cycles_per_hour_lives_are_in_cycles_only():
    d = study_duty(study(design_life_cycles=5e5))
    assert d.cycles_per_hour is None and d.design_life_hours is None and d.hours(5e5) is None
    assert study_duty(SimpleNamespace(t_end=1.0, fatigue=None)) is None  # no fatigue asked


def test_back_to_back_cycles_fill_the_hour_exactly():
    assert study_duty(study(cycles_per_hour=360)).cycles_per_hour == 360.0  # 360 x 10 s = 3600 s
    with pytest.raises(InputError, match=r"cycles_per_hour = 361 .* take 3610 s, more than an hour: at most 360"):
        study_duty(study(cycles_per_hour=361))


def test_design_life_given_twice_is_refused():
    with pytest.raises(InputError, match="give the design life once"):
        study_duty(study(cycles_per_hour=1, design_life_hours=10, design_life_cycles=10))


def test_fatigue_settings_of_a_link():
    s = SimpleNamespace(t_end=1.0, fatigue=Fatigue(design_life_cycles=1e5, mean_stress_correction="gerber",
                                                   surface_factor=0.8,
                                                   details={"a": "EC3-71", "b": {"weld": "EC3-90"}}))
    d = study_duty(s)
    a, b, c = (study_fatigue_settings(s, d, link) for link in ("a", "b", "c"))
    assert a.details == {"*": "EC3-71"} and b.details == {"weld": "EC3-90"} and c.details == {}
    assert a.design_life_cycles == 1e5 and a.mean_stress == "gerber" and a.surface_factor == 0.8
    assert a.method == "critical_plane"  # Fatigue's default, as its value
