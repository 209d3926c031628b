"""The headline study's durability: its stated duty (360 cycles an hour, 80,000 h) gives a fatigue life and safety
factor for every link. (Its cost against the rest of the run is a benchmark, not a test:
``python benchmarks/bench_study.py`` prints the ``fatigue`` phase beside the total.)"""
import pytest


def test_every_link_reports_its_fatigue_life(paper004_run):
    s = paper004_run.summary
    fat = s["fatigue"]
    # the duty: the 10 s cycle back to back, two 8-hour shifts, 250 days, 20 years
    assert fat["cycles_per_hour"] == 360 and fat["duty_cycle_s"] == 10.0
    assert fat["design_life_hours"] == 80_000 and fat["design_life_cycles"] == pytest.approx(2.88e7)
    assert fat["method"] == "critical_plane"
    for name, L in s["links"].items():
        assert L["fatigue_curve"] == ("304" if name in ("base", "waist") else "6061-O"), name
        assert L["fatigue_passed"] and L["passed"], name
        life, sf = L["min_fatigue_life_cycles"], L["fatigue_safety_factor"]
        # a finite life must reach the design life; an infinite one (null) has no damage at all
        assert (life is None and L["fatigue_infinite_life"] and L["fatigue_damage_per_cycle"] == 0) or \
            life >= fat["design_life_cycles"], name
        assert sf is not None and sf >= 1.0, name
        assert len(L["location_of_min_life_m"]) == 3
    assert s["passed"]

