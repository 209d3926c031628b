"""`structcheck converge`: every link re-meshed finer and re-solved, its peak with a Richardson error estimate.

Physics: the tiny cantilever study (helpers.SMALL_STUDY, clamped at joint1, 100 N at the tip) re-meshed by a
mesh_part hook. Its peak sits on the clamped root's edge, where the held Poisson contraction makes the stress
singular: the peak grows with every refinement and is not converged (exit 1), while the peak outside the 10 mm
support band is beam theory's 6 P (L - x) / h^3 at x = 10 mm. The verdict logic (converged, may flip) is checked on
closed-form peak sequences phi_0 + c h^2.
"""
import json
from dataclasses import replace as dataclasses_replace

import numpy as np
import pytest

from helpers import SMALL_H, SMALL_L, SMALL_STUDY, beam
from structcheck import converge as cv
from structcheck.cli import main

MESH_PART = '''

def mesh_part(link, size_factor):
    """The beam re-meshed with every element size times ``size_factor`` (2 / size_factor elements across)."""
    global mesh
    coarse, k = mesh, round(2 / size_factor)
    mesh = lambda side_m=H: MeshTet.init_tensor(np.linspace(0, L, 20 * k + 1),
                                                np.linspace(-side_m / 2, side_m / 2, k + 1),
                                                np.linspace(-side_m / 2, side_m / 2, k + 1))
    try:
        return build().parts[link]
    finally:
        mesh = coarse
'''


@pytest.fixture(scope="module")
def clamped(tmp_path_factory):
    """exit code, printed report and JSON of `structcheck converge` on the tiny cantilever, 2, 3 and 4 elements
    across (size factors 1, 0.667, 0.5)."""
    folder = tmp_path_factory.mktemp("converge")
    script = folder / "tiny_remesh.py"
    script.write_text(SMALL_STUDY + MESH_PART)
    out = folder / "converge.json"
    import contextlib
    import io

    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(["converge", str(script), "--factors", "1", "0.667", "0.5", "--json", str(out), "--quiet"])
    return code, text.getvalue(), json.loads(out.read_text())


def test_clamped_root_peak_is_a_support_singularity_judged_away_from_the_clamp(clamped):
    """The root's peak climbs with every refinement inside the support band (no mesh converges it); the peak away
    from the band is beam theory (next test) and converged: the link is a support singularity, judged on the away
    peak, and the table says so."""
    code, text, report = clamped
    beam_ = report["links"]["beam"]
    peaks = [lv["peak_pa"] for lv in beam_["levels"]]
    sigma_root = 6 * 100.0 * SMALL_L / SMALL_H ** 3  # beam theory at the root's outer fibres
    assert all(p > sigma_root for p in peaks)  # the singular edge stands above beam theory ...
    assert np.all(np.diff(peaks) > 0)  # ... and climbs with every refinement
    peak = beam_["peak"]
    # values finest first
    assert peak["status"] == "not converging" or peak["error_pa"] > 0.03 * peak["values_pa"][0], peak
    # at the clamp: the peak one element from the root (the root face's nodes are held), inside the 10 mm band
    assert all(lv["peak_in_support_band"] and lv["location_link_m"][0] <= 0.01 for lv in beam_["levels"])
    assert beam_["status"] == "support singularity: converged away from the support"
    assert beam_["judged"] == "away_from_support" and beam_["converged"] and not beam_["may_flip"]
    assert code == 0 and report["ok"] is True
    assert "support singularity: converged away from the support (the peak, in the support band, " in text
    assert f"error {100 * peak['error_pa'] / peak['values_pa'][0]:.1f}%; judged on the peak away from the band, " \
           f"error {100 * beam_['away_from_support']['error_pa'] / beam_['away_from_support']['values_pa'][0]:.2f}%)" \
           in text
    assert "judged on the peak away from the support band (the peak a support singularity): beam" in text
    assert [lv["n_nodes"] for lv in beam_["levels"]] == sorted(lv["n_nodes"] for lv in beam_["levels"])


@pytest.mark.parametrize("in_band, away, converged", [
    (True, (50e6, 50.5e6, 50.2e6), True),  # in the band, away converged: a support singularity
    (False, (50e6, 50.5e6, 50.2e6), False),  # a climbing peak away from the support (a sharp corner): not converged
    (True, (40e6, 45e6, 50e6), False),  # in the band, but the away peak climbs too
])
def test_a_support_singularity_needs_the_peak_in_the_band_and_the_away_peak_converged(in_band, away, converged):
    factors = cv.level_factors(3)
    peaks = (100e6, 110e6, 125e6)  # climbing: not converging
    levels = tuple(dataclasses_replace(level(f, p), peak_away_from_support_pa=a, peak_in_support_band=in_band)
                   for f, p, a in zip(factors, peaks, away))
    c = cv.LinkConvergence("beam", levels, cv.richardson(factors, peaks), cv.richardson(factors, away), 1.5,
                           cv.TOLERANCE)
    assert c.peak.status == "not converging"
    assert c.support_singularity is converged and c.converged is converged
    assert (c.judged is c.away) is converged
    assert c.status == ("support singularity: converged away from the support" if converged
                        else "NOT converged (not converging)")


def test_peak_away_from_the_clamp_is_beam_theory(clamped):
    _, _, report = clamped
    band = 0.01  # the study's support_band_m
    sigma = 6 * 100.0 * (SMALL_L - band) / SMALL_H ** 3
    away = report["links"]["beam"]["away_from_support"]["values_pa"]
    # within 2% on every mesh: Saint-Venant's clamp disturbance half a section depth from the root, and P2 error
    np.testing.assert_allclose(away, sigma, rtol=0.02)


def level(f, peak, sf_strength=250e6):
    return cv.LinkLevel(size_factor=f, n_nodes=int(1000 / f ** 3), peak_pa=peak, time_s=1.0,
                        location_link_m=(0.0, 0.0, 0.0), safety_factor=sf_strength / peak, averaged_peak_pa=peak,
                        stress_discontinuity=0.0, peak_away_from_support_pa=peak, seconds=0.0)


@pytest.mark.parametrize("phi0, c, required, converged, flips", [
    (100e6, 2e6, 1.5, True, False),  # 2% from the limit: converged, SF 2.4 far from 1.5
    (100e6, 2e6, 2.49, True, True),  # SF 2.478 at the finest, its band 2.451-2.506 straddles 2.49
    (100e6, 40e6, 1.5, False, False),  # converging, but its error is far above 3%
])
def test_verdict_logic_on_closed_form_peaks(monkeypatch, tmp_path, phi0, c, required, converged, flips):
    """Peaks phi_0 + c f^2 (f the size factor) fed through the command line in place of the FE solve."""
    factors = cv.level_factors(3)  # the default: 1, 0.8, 0.667
    peaks = {f: phi0 + c * f ** 2 for f in factors}
    script = tmp_path / "tiny.py"
    script.write_text(SMALL_STUDY.replace("required_safety_factor=1.5", f"required_safety_factor={required}"))
    monkeypatch.setattr(cv, "solve_link", lambda study, name, t=None: (level(1.0, peaks[_factor_of(study)]),
                                                                        np.linspace(0.0, 1.0, 5)))
    monkeypatch.setattr(cv, "refined_parts", lambda study, name, fs, hook: (
        (_tagged(study.parts[name], f) for f in fs), "closed form"))
    code = main(["converge", str(script), "--quiet", "--json", str(tmp_path / "r.json")])
    report = json.loads((tmp_path / "r.json").read_text())["links"]["beam"]
    assert report["converged"] is converged and report["may_flip"] is flips
    assert code == (0 if converged and not flips else 1)
    if converged:  # Richardson recovers phi_0 from an exact power law
        assert report["peak"]["extrapolated_pa"] == pytest.approx(phi0, rel=1e-9)


@pytest.mark.parametrize("peaks, converged", [
    ((100e6, 101e6, 100.5e6, 101.5e6), True),  # oscillating within 1.5% of the finest: its scatter is the error
    ((100e6, 104e6, 100.5e6, 101.5e6), True),  # the farthest level 2.5% from the finest: within 3%
    ((97e6, 105e6, 100.5e6, 101.5e6), False),  # the first level 4.4% below the finest
])
def test_without_a_monotone_trend_the_scatter_decides(peaks, converged):
    factors = cv.level_factors(4)
    levels = tuple(level(f, p) for f, p in zip(factors, peaks))
    c = cv.LinkConvergence("beam", levels, cv.richardson(factors, peaks), None, 1.5, cv.TOLERANCE)
    assert c.peak.status == "no monotone trend"
    assert c.peak.scatter == pytest.approx(max(abs(p - peaks[-1]) for p in peaks) / peaks[-1])
    assert c.converged is converged


class _Tagged:
    """A part carrying its size factor, for the closed-form test."""

    def __init__(self, part, f):
        self.part, self.f = part, f

    def __getattr__(self, key):
        return getattr(self.part, key)


def _tagged(part, f):
    return _Tagged(part, f)


def _factor_of(study):
    return next(p.f for p in study.parts.values() if isinstance(p, _Tagged))


def test_finer_levels_are_solved_on_the_first_levels_samples(monkeypatch, tmp_path):
    """Each level's own ringing samples would move a peak on a 10 ms ramp by about 1% (docs/peaks.md): the finer
    meshes are solved on the samples the first level was solved on."""
    seen = []

    def solve(study, name, t=None):
        f = _factor_of(study)
        seen.append((f, None if t is None else t.tolist()))
        return level(1.0, 100e6), np.array([0.0, 0.5, 1.0 + f])  # samples that would differ per mesh

    monkeypatch.setattr(cv, "solve_link", solve)
    monkeypatch.setattr(cv, "refined_parts", lambda study, name, fs, hook: (
        (_tagged(study.parts[name], f) for f in fs), "closed form"))
    script = tmp_path / "tiny.py"
    script.write_text(SMALL_STUDY)
    assert main(["converge", str(script), "--quiet"]) == 0
    assert seen == [(1.0, None), (0.8, [0.0, 0.5, 2.0]), (2 / 3, [0.0, 0.5, 2.0])]


def test_solve_link_on_given_samples_repeats_its_own_run(tmp_path):
    """solve_link on the samples it returned gives the same peak; on other samples it uses those."""
    import dataclasses

    from helpers import write_small_study
    from structcheck.script import load_study

    study = dataclasses.replace(load_study(write_small_study(tmp_path)), quasi_static=False)
    first, t = cv.solve_link(study, "beam")
    again, t2 = cv.solve_link(study, "beam", t)
    np.testing.assert_array_equal(t2, t)
    assert again.peak_pa == pytest.approx(first.peak_pa, rel=1e-12) and again.time_s == first.time_s
    other = np.linspace(0.0, study.t_end, 7)
    np.testing.assert_array_equal(cv.solve_link(study, "beam", other)[1], other)


def test_split_part_keeps_volume_and_surfaces():
    part = beam(0.1, 0.02, 0.01, 5, n_side=2, ends=("root", "tip"), distort=0.0)
    fine = cv.split_part(part, 2)
    assert len(fine.cells) == 64 * len(part.cells)
    assert fine.mass_properties().mass == pytest.approx(part.mass_properties().mass, rel=1e-12)
    for name in ("root", "tip"):
        assert len(fine.surface_facets(name)) == 16 * len(part.surface_facets(name))
        x = fine.points[fine.surface_nodes(name)][:, 0]
        np.testing.assert_allclose(x, 0.0 if name == "root" else 0.1, atol=1e-15)
        # the surface's area: 0.02 x 0.01 (resultant of a unit pressure)
        f = fine.pressure_load(name, 1.0)
        assert np.linalg.norm(fine.resultant(f)[:3]) == pytest.approx(0.02 * 0.01, rel=1e-12)


@pytest.mark.parametrize("argv, words", [
    (["--levels", "2"], "levels must be a whole number of at least 3"),
    (["--factors", "1", "0.5", "0.6"], "size factors must start at 1 and decrease"),
    (["--link", "nope"], "links ['nope'] have no part"),
    (["--factors", "1", "0.8", "0.667"], "add to the study script `def mesh_part(link, size_factor, study=None)`"),
    (["--factors", "1", "0.8", "0.667"], "the size factors [1.0, 0.8, 0.667] are not 1, 0.5, 0.25"),  # no hook
])
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, argv, words):
    script = tmp_path / "tiny.py"
    script.write_text(SMALL_STUDY)
    assert main(["converge", str(script), "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1


def test_curved_part_without_hook_is_bad_input():
    from skfem import MeshTet

    from structcheck.errors import InputError
    from structcheck.fe.part import Part, _curved_mesh

    straight = beam(0.1, 0.02, 0.02, 4, n_side=1)
    curved = Part(_curved_mesh(MeshTet(straight.mesh.p, straight.mesh.t), straight.points[straight.cells[:, 4:]]),
                  straight.material)
    with pytest.raises(InputError, match="curved"):
        cv.split_part(curved)


def test_a_mesh_that_fails_at_one_level_exits_2_naming_link_and_level(tmp_path, capsys):
    script = tmp_path / "tiny_failing.py"
    script.write_text(SMALL_STUDY + MESH_PART.replace('    """The beam re-meshed', '''    if size_factor < 0.6:
        raise InputError("gmsh left an inverted element")
    """The beam re-meshed''') + "\nfrom structcheck.errors import InputError\n")
    out = tmp_path / "r.json"
    assert main(["converge", str(script), "--factors", "1", "0.667", "0.5", "--quiet", "--json", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == ("structcheck: error: link 'beam': its mesh at size factor 0.5: gmsh left an "
                                    "inverted element")
    report = json.loads(out.read_text())
    assert report["failed"] == {"beam": "size factor 0.5: gmsh left an inverted element"} and not report["ok"]
    assert "beam         mesh failed at size factor 0.5" in captured.out


PEAK_STUDY = '''
"""The tiny cantilever with its beam meshed by gmsh (a PartBuilder named after the link)."""
import tempfile
from pathlib import Path

import numpy as np

from structcheck.fe.part import Part
from structcheck.geometry import PartBuilder, on_plane
from structcheck.model.robot import Joint, Link, Robot
from structcheck.study import PointForce, Study

L, H = {L!r}, {H!r}


def build():
    with tempfile.TemporaryDirectory() as tmp, PartBuilder("beam", mesh_size=0.01) as b:
        solid = b.box((0, -H / 2, -H / 2), (L, H / 2, H / 2))
        b.name_faces("joint1", on_plane(0, 0.0))
        b.name_faces("tip", on_plane(0, L))
        b.build(solid)
        part = Part.from_mesh(b.write(Path(tmp) / "beam.msh"), "structural_steel")
    robot = Robot([Link("ground"), Link("beam")],
                  [Joint("joint1", "revolute", "ground", "beam", np.eye(4), np.array([0, 1.0, 0]), -3, 3)],
                  points={{"tip": ("beam", np.array([L, 0.0, 0.0]))}})
    return Study(name="tiny_gmsh_cantilever", robot=robot, motion={{}}, parts={{"beam": part}}, t_end=1.0,
                 n_frames=3, point_forces=(PointForce("tip", 100.0, (0, 0, -1)),), gravity=(0, 0, 0),
                 quasi_static=True, tool_point="tip", required_safety_factor=1.5)


study = build()
'''.format(L=SMALL_L, H=SMALL_H)


def test_refining_around_the_peak(tmp_path, capsys):
    """--refine peak: only the elements around the first mesh's peak (the clamped root's singular edge) are
    refined, by the factor asked, the tip's stay as they were; the root's peak keeps climbing (not converged: a
    support singularity) while the peak 10 mm from the clamp is beam theory's 6 P (L - x) / h^3 on every mesh."""
    import structcheck.converge as cvm
    from structcheck.script import load_study

    script = tmp_path / "gmsh_beam.py"
    script.write_text(PEAK_STUDY)
    built = []

    def rebuild():
        built.append(load_study(script))
        return built[-1]

    study = load_study(script)
    factors = (1.0, 0.667, 0.5)
    report = cvm.converge(study, factors, refine=cvm.Refinement.PEAK, rebuild=rebuild, progress=False)
    c = report.links["beam"]
    peak_at = np.array(c.levels[0].location_link_m)
    assert peak_at[0] < 0.01  # at the clamped root, within its first element
    h0, tip = cvm.local_size(study.parts["beam"], peak_at), np.array([SMALL_L, 0.0, 0.0])
    for f, s in zip(factors[1:], built):
        part = s.parts["beam"]
        assert cvm.local_size(part, peak_at) == pytest.approx(f * h0, rel=0.35)  # gmsh meets sizes to ~30%
        # the tip, far from the refined peak, keeps the study's size: only gmsh's own scatter, half the above
        assert cvm.local_size(part, tip) == pytest.approx(cvm.local_size(study.parts["beam"], tip), rel=0.15)
    nodes = [lv.n_nodes for lv in c.levels]
    assert nodes[0] < nodes[1] < nodes[2] < 4 * nodes[0]  # global refinement by 2: about 8x
    peaks = [lv.peak_pa for lv in c.levels]
    assert np.all(np.diff(peaks) > 0) and c.peak.relative_error > cvm.TOLERANCE  # the root's peak: not converged
    assert c.support_singularity and c.judged is c.away  # in the band, the away peak converged
    sigma = 6 * 100.0 * (SMALL_L - 0.01) / SMALL_H ** 3
    np.testing.assert_allclose(c.away.values, sigma, rtol=0.02)
    assert "refined within 4 elements of each link's peak" in report.refinement["beam"]


def test_refining_around_the_peak_needs_a_partbuilder_named_after_the_link(tmp_path, capsys):
    script = tmp_path / "tiny.py"
    script.write_text(SMALL_STUDY)
    assert main(["converge", str(script), "--quiet", "--refine", "peak"]) == 2
    err = capsys.readouterr().err.strip()
    assert "made no PartBuilder named 'beam'" in err and len(err.splitlines()) == 1


def test_refine_choices_are_the_refinements():
    from structcheck.cli import REFINE_CHOICES

    assert REFINE_CHOICES == tuple(r.value for r in cv.Refinement)
