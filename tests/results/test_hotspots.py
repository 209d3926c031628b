"""Each link's hot spots and faces in summary.json (structcheck.results.hotspots, .boundary), on the tiny cantilever
study (L = 0.4 m, 20 mm square section, 100 N down at the tip, clamped at joint1), in both structural models:

- the first hot spot is the link's peak as the response stage found it (another code path: blocked, screened
  element-node maxima and the averaged basis), to round-off;
- the others lie along the top and bottom edges at least the hot-spot radius apart, and their stress is beam
  theory's 6 P (L - x) / h^3 within 4% (docs/peaks.md: the unaveraged stress of a 2-elements-across mesh is within
  3.6% of beam theory away from the root);
- only the one at the clamped face is flagged as at a joint face;
- the faces: the tip's force is the applied 100 N down, the support's the reaction, 100 N up (equilibrium).
"""
from __future__ import annotations

import dataclasses
import json
from itertools import combinations

import numpy as np
import pytest

from helpers import SMALL_H, SMALL_L, write_small_study
from structcheck.fe.assembly import p2_edges
from structcheck.results.hotspots import hot_spot_radius, node_histories, pick_nodes
from structcheck.script import load_study
from structcheck.study import run

P = 100.0  # the tiny study's tip force [N]


@pytest.fixture(scope="module", params=["arm", "link"])
def summary(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"hotspots_{request.param}")
    study = dataclasses.replace(load_study(write_small_study(tmp)), flexibility=request.param)
    run(study, tmp / "out", progress=False, vtk=False)
    return json.loads((tmp / "out" / "summary.json").read_text())


def test_first_hot_spot_is_the_links_peak(summary):
    L = summary["links"]["beam"]
    first = L["hot_spots"][0]
    assert first["von_mises_pa"] == pytest.approx(L["max_von_mises_pa"], rel=1e-12)
    assert first["location_link_m"] == pytest.approx(L["location_of_max_link_m"], abs=1e-12)
    assert first["time_s"] == L["time_of_max_s"]
    assert first["von_mises_averaged_pa"] == pytest.approx(L["von_mises_averaged_at_max_pa"], rel=1e-12)
    assert first["stress_discontinuity"] == pytest.approx(L["stress_discontinuity"], rel=1e-9)


def test_hot_spots_follow_beam_theory_and_only_the_clamped_one_is_flagged(summary):
    L = summary["links"]["beam"]
    spots = L["hot_spots"]
    assert len(spots) == 5
    vm = [h["von_mises_pa"] for h in spots]
    assert vm == sorted(vm, reverse=True)
    radius = 0.1 * np.sqrt(SMALL_L ** 2 + 2 * SMALL_H ** 2)  # 10% of the beam's box diagonal (> the 10 mm band)
    for a, b in combinations(spots, 2):
        assert np.linalg.norm(np.subtract(a["location_link_m"], b["location_link_m"])) > radius
    for h in spots[1:]:
        x, y, z = h["location_link_m"]
        assert abs(z) == pytest.approx(SMALL_H / 2)  # on the top or bottom face, where bending stress is largest
        assert h["von_mises_pa"] == pytest.approx(6 * P * (SMALL_L - x) / SMALL_H ** 3, rel=0.04)
        assert h["von_mises_averaged_pa"] <= h["von_mises_pa"]  # the norm of a mean is at most the largest norm
    assert [h["at_joint_face"] for h in spots] == [True, False, False, False, False]
    assert spots[0]["nearest_joint_face"] == "joint1"
    assert spots[1]["distance_to_joint_face_m"] == pytest.approx(spots[1]["location_link_m"][0])


def test_faces_and_their_forces(summary):
    faces = {b["surface"]: b for b in summary["links"]["beam"]["boundary_conditions"]}
    assert faces["joint1"]["role"] == "support" and faces["tip"]["role"] == "point"
    assert faces["tip"]["force_at_peak_n"] == pytest.approx([0.0, 0.0, -P], abs=1e-9)
    assert faces["joint1"]["force_at_peak_n"] == pytest.approx([0.0, 0.0, P], abs=1e-9 * P)
    assert faces["tip"]["max_force_n"] == pytest.approx(P)
    assert faces["tip"]["centre_link_m"] == pytest.approx([SMALL_L, 0.0, 0.0], abs=1e-12)
    assert faces["joint1"]["centre_link_m"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)


def test_pick_nodes_is_greedy_with_a_separation():
    x = np.linspace(0.0, 1.0, 101)
    points = np.c_[x, np.zeros_like(x), np.zeros_like(x)]
    envelope = (1.0 + np.cos(6 * np.pi * x)) * (2.0 - x)  # peaks near x = 0, 1/3, 2/3, 1, falling in that order
    picked = pick_nodes(points, envelope, radius=0.1, n=4)
    assert [x[i] for i in picked] == pytest.approx([0, 1 / 3, 2 / 3, 1], abs=0.011)  # within a grid step
    assert [envelope[i] for i in picked] == [envelope[np.abs(x - c) < 0.1].max() for c in (0, 1 / 3, 2 / 3, 1)]
    assert pick_nodes(points, np.zeros_like(x), radius=0.1) == []  # an unloaded link has no hot spot
    assert hot_spot_radius(points, support_band_m=0.5) == 0.5


def test_mid_node_of_a_straight_element_takes_its_edges_mean():
    """The 4-vertex stress basis of straight elements gives at a mid-side node the mean of its edge's two vertex
    values: the same as a 10-node basis holding those means (curved elements' layout)."""
    rng = np.random.default_rng(0)
    cells = np.array([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 10, 5, 11, 12, 13, 14, 15]])
    S4 = rng.standard_normal((3, 6, 4, 2))
    S10 = np.concatenate([S4, 0.5 * (S4[:, :, p2_edges()[:, 0]] + S4[:, :, p2_edges()[:, 1]])], axis=2)
    C = rng.standard_normal((7, 3))
    for node in (1, 5, 9, 15):  # vertices and mid nodes, shared or not
        np.testing.assert_allclose(node_histories(S4, cells, C, node), node_histories(S10, cells, C, node),
                                   rtol=1e-13, atol=1e-13)
    assert node_histories(S4, cells, C, 5).shape == (7, 2, 6)  # node 5 is mid node of both elements
