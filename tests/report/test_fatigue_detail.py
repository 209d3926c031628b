"""The fatigue detail's numbers (structcheck.report.fatigue_detail) against references worked by hand:

- the rainflow matrix of ASTM E1049-85's worked example (sec. 5.4.4, Fig. 6: -2, 1, -3, 5, -1, 3, -4, 4, -2),
  counted by hand with the three-point rules: ranges 3 (0.5 cycle, mean -0.5), 4 (0.5, mean -1; 1.0, mean 1),
  6 (0.5, mean 1), 8 (0.5, mean 1; 0.5, mean 0), 9 (0.5, mean 0.5) - the standard's Table: range 3: 0.5,
  4: 1.5, 6: 0.5, 8: 1.0, 9: 0.5;
- the Haigh diagram's allowable line against the closed forms of each correction (Shigley sec. 6-12): Goodman
  S_N (1 - S_m / S_u), Gerber S_N (1 - (S_m / S_u)^2), flat for a compressive mean, SWT's root of
  (S_m + S_a) S_a = S_N^2; and a cycle on the line lives exactly the design life (Miner, one cycle);
- the S-N curve read back from summary.json's entry is the library's curve.
"""
from __future__ import annotations

import numpy as np
import pytest

from structcheck.fatigue.counting import rainflow_cycles
from structcheck.fatigue.damage import miner_damage
from structcheck.fatigue.counting import Cycles
from structcheck.fatigue.sn import material_sn_curve
from structcheck.model.materials import get_material
from structcheck.report.fatigue_detail import (allowable_amplitude, allowable_strength, correction_for,
                                               rainflow_matrix, sn_curve)

ASTM_EXAMPLE = [-2.0, 1.0, -3.0, 5.0, -1.0, 3.0, -4.0, 4.0, -2.0]
MPa = 1e6


def test_rainflow_matrix_of_the_astm_example_counted_by_hand():
    counts, r_edges, m_edges = rainflow_matrix(rainflow_cycles(ASTM_EXAMPLE, periodic=False), bins=10)
    np.testing.assert_allclose(r_edges, np.linspace(0, 9, 11))  # 0 to the largest range, 9
    np.testing.assert_allclose(m_edges, np.linspace(-1, 1, 11))  # the smallest to the largest mean
    # ranges 3, 4, 6, 8, 9 fall in the bins [2.7, 3.6), [3.6, 4.5), [5.4, 6.3), [7.2, 8.1), [8.1, 9]
    np.testing.assert_allclose(counts.sum(axis=0), [0, 0, 0, 0.5, 1.5, 0, 0.5, 0, 1.0, 0.5])
    # means -1, -0.5, 0, 0.5, 1 fall in the bins starting at -1, -0.6, 0, 0.4 and the last [0.8, 1]
    np.testing.assert_allclose(counts.sum(axis=1), [0.5, 0, 0.5, 0, 0, 0.5, 0, 0.5, 0, 2.0])
    assert counts[9, 4] == 1.0 and counts[0, 4] == 0.5  # range 4: the full cycle at mean 1, the half at -1


def test_rainflow_matrix_of_one_cycle_and_of_none():
    counts, r_edges, m_edges = rainflow_matrix(Cycles(np.array([200.0]), np.array([50.0]), np.array([1.0])))
    assert counts.sum() == 1.0 and r_edges[-1] == 200.0 and m_edges[0] < 50.0 < m_edges[-1]
    counts, _, _ = rainflow_matrix(rainflow_cycles(np.full(5, 3.0)))
    assert counts.sum() == 0.0


@pytest.mark.parametrize("method, closed_form", [
    ("goodman", lambda sm, S, Su: S * (1 - np.clip(sm, 0, None) / Su)),
    ("gerber", lambda sm, S, Su: S * (1 - (np.clip(sm, 0, None) / Su) ** 2)),
    ("swt", lambda sm, S, Su: (-sm + np.sqrt(sm ** 2 + 4 * S ** 2)) / 2),
    ("none", lambda sm, S, Su: np.full_like(sm, S))])
def test_allowable_line_is_the_corrections_closed_form(method, closed_form):
    S, Su = 230 * MPa, 460 * MPa
    sm = np.linspace(-0.9 * Su, 0.99 * Su, 40)
    np.testing.assert_allclose(allowable_amplitude(sm, S, Su, method), closed_form(sm, S, Su), rtol=1e-12,
                               atol=1e-6)


def test_a_cycle_on_the_goodman_line_lives_the_design_life():
    curve = material_sn_curve(get_material("structural_steel"))
    life = 2e5  # on the sloped part of the curve (knee at 1e6)
    S_N, _ = allowable_strength(curve, life)
    mean = 150 * MPa
    amp = float(allowable_amplitude(mean, S_N, curve.ultimate_strength, "goodman"))
    assert amp == pytest.approx(S_N * (1 - mean / curve.ultimate_strength), rel=1e-12)
    one = Cycles(np.array([2 * amp]), np.array([mean]), np.array([1.0]))
    assert 1 / miner_damage(one, curve, "goodman") == pytest.approx(life, rel=1e-9)
    # beyond the cut-off the line stands on the endurance limit; without a design life too
    assert allowable_strength(curve, 1e9)[0] == pytest.approx(curve.limit)
    assert allowable_strength(curve, None)[0] == curve.limit


def test_the_curve_read_back_from_summary_is_the_librarys():
    curve = material_sn_curve(get_material("6061-T6"))
    entry = {"name": curve.name, "quantity": curve.quantity, "S_ref_pa": curve.S_ref, "N_ref_cycles": curve.N_ref,
             "m": list(curve.m), "N_knee_cycles": list(curve.N_knee),
             "N_cutoff_cycles": None if np.isinf(curve.N_cutoff) else curve.N_cutoff,
             "endurance_limit_pa": curve.limit, "ultimate_strength_pa": curve.ultimate_strength,
             "source": curve.source}
    back = sn_curve(entry)
    S = np.geomspace(0.5 * curve.limit, curve.S_ref, 30)
    np.testing.assert_array_equal(back.life(S), curve.life(S))
    assert back.limit == curve.limit


def test_correction_of_each_kind_of_curve():
    both = {"mean_stress_correction": "goodman (material curves), none (detail categories)"}
    assert correction_for(both, "amplitude") == "goodman" and correction_for(both, "range") == "none"
    assert correction_for({"mean_stress_correction": "gerber"}, "amplitude") == "gerber"
