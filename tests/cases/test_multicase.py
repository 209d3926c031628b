"""Several load cases in one study (``Study.cases``), against independent references: the tiny cantilever of
tests/fatigue/test_study_fatigue.py (a tip force alternating -F -> +F -> -F once per duty cycle, beam theory's
bending stress sigma = F (L - x) z / I, EN 1993-1-9 detail category 71: N = 2e6 (71 MPa / dsigma)^3 above the
knee) with two duty cases of different force and share and an accidental overload. The combined damage is
checked against Basquin + Miner by hand (sum share_i / N_i), the envelope against the cases run separately, and
a study of one case against the same study without cases."""
import dataclasses
import json

import numpy as np
import pytest

from helpers import SMALL_H, SMALL_L, SMALL_STUDY, beam, write_small_study
from structcheck.cases.case import Case
from structcheck.cli import main
from structcheck.errors import InputError
from structcheck.script import load_study
from structcheck.settings import Fatigue
from structcheck.study import PointForce, run
from structcheck.structural.link import LinkModel

MPa = 1e6
F_LIGHT, F_HEAVY, F_CRASH = 200.0, 300.0, 2000.0  # N
SHARES = {"light": 0.7, "heavy": 0.3}


def alternating(f):
    """-f -> +f -> -f over the 1 s duty cycle (one full cycle of range 2 f)."""
    return (PointForce("tip", f"STEP(time, 0, -{f}, 0.25, {f}) + STEP(time, 0.5, 0, 0.75, {-2 * f})", (0, 0, -1)),)


def base_study(tmp_path):
    """The per-link cantilever on a 20-element beam with EC3-71 fatigue, 100 cycles an hour, 1e4 cycles life."""
    study = load_study(write_small_study(tmp_path))
    part = beam(SMALL_L, SMALL_H, SMALL_H, 20, ends=("joint1", "tip"), n_side=2)
    return dataclasses.replace(study, flexibility="link", parts={"beam": part}, point_forces=alternating(F_LIGHT),
                               fatigue=Fatigue(details={"beam": "EC3-71"}, cycles_per_hour=100.0,
                                               design_life_cycles=1e4))


CASES = (Case("light", share=SHARES["light"]),
         Case("heavy", share=SHARES["heavy"], changes={"point_forces": alternating(F_HEAVY)}),
         Case("crash", role="accidental", required_safety_factor=1.0,
              changes={"point_forces": (PointForce("tip", F_CRASH, (0, 0, -1)),), "t_end": 0.5}))


@pytest.fixture(scope="module")
def cases_run(tmp_path_factory):
    """The three cases in one run (written), and each case's study run alone (not written)."""
    tmp = tmp_path_factory.mktemp("multicase")
    study = base_study(tmp)
    alone = {"light": study, "heavy": dataclasses.replace(study, point_forces=alternating(F_HEAVY)),
             "crash": dataclasses.replace(study, point_forces=(PointForce("tip", F_CRASH, (0, 0, -1)),), t_end=0.5,
                                          fatigue=None, required_safety_factor=1.0)}
    separate = {k: run(s, None, progress=False, write=False) for k, s in alone.items()}
    out = tmp / "run"
    result = run(dataclasses.replace(study, cases=CASES), out, progress=False, plots=False)
    return result, separate, out


def ec3_71_life(dsigma):
    return 2e6 * (71 * MPa / dsigma) ** 3


def test_combined_damage_is_miner_over_the_duty_cases_by_their_shares(cases_run):
    import pyvista as pv

    _, separate, out = cases_run
    env = pv.read(out / "vtk" / "beam_envelope.vtu")
    x, y, z = env.points.T
    for xi in (0.05, 0.09, 0.15):  # mid-side nodes away from clamp and tip (0.3 % in stress there: see the
        node = np.flatnonzero(np.isclose(x, xi) & np.isclose(z, SMALL_H / 2) & np.isclose(y, 0))[0]  # fatigue test)
        by_hand = sum(SHARES[k] / ec3_71_life(2 * f * (SMALL_L - xi) * (SMALL_H / 2) / (SMALL_H ** 4 / 12))
                      for k, f in (("light", F_LIGHT), ("heavy", F_HEAVY)))
        assert env["fatigue_damage"][node] == pytest.approx(by_hand, rel=0.01)  # N ~ dsigma^-3: 1 % for 0.3 %
        assert env["fatigue_life_cycles"][node] == pytest.approx(1 / by_hand, rel=0.01)
    # and exactly the shares' sum of the cases' own damage fields, the accidental case left out
    own = {k: separate[k].links["beam"].envelope["fatigue_damage"] for k in SHARES}
    np.testing.assert_allclose(env["fatigue_damage"], sum(SHARES[k] * own[k] for k in SHARES), rtol=1e-12)
    s = json.loads((out / "summary.json").read_text())["links"]["beam"]
    total = sum(SHARES[k] * own[k] for k in SHARES)
    assert s["fatigue_damage_per_cycle"] == pytest.approx(total.max(), rel=1e-12)
    assert s["min_fatigue_life_cycles"] == pytest.approx(1 / total.max(), rel=1e-12)
    assert s["min_fatigue_life_hours"] == pytest.approx(s["min_fatigue_life_cycles"] / 100.0, rel=1e-12)
    # the factor given is the smaller case's own (a lower bound of the combined one)
    assert s["fatigue_safety_factor"] == min(separate[k].summary.links["beam"].fatigue_safety_factor for k in SHARES)


def test_envelope_is_the_max_of_the_cases_run_separately(cases_run):
    import pyvista as pv

    result, separate, out = cases_run
    env = pv.read(out / "vtk" / "beam_envelope.vtu")
    for field in ("von_mises", "equivalent_strain", "displacement_magnitude"):
        np.testing.assert_array_equal(env[field], np.max([r.links["beam"].envelope[field]
                                                          for r in separate.values()], axis=0))
    np.testing.assert_array_equal(env["safety_factor"], np.min([r.links["beam"].envelope["safety_factor"]
                                                                for r in separate.values()], axis=0))
    # the crash (10x the light force, required 1.0) governs every node: its utilisation is the highest
    assert set(env["governing_case"]) == {2.0}
    s = result.summary
    crash = separate["crash"].summary
    assert s.links["beam"].governing_case == "crash"
    assert s.links["beam"].max_von_mises_pa == crash.links["beam"].max_von_mises_pa
    assert s.links["beam"].utilisation == pytest.approx(1.0 / crash.links["beam"].min_safety_factor, rel=1e-14)
    assert s.max_von_mises_pa == max(r.summary.max_von_mises_pa for r in separate.values())
    assert s.tool_point_deflection_m == max(r.summary.tool_point_deflection_m for r in separate.values())
    # per joint: the largest over the cases, named
    j = s.joints["joint1"]
    assert j.max_reaction_moment_nm == max(r.summary.joints["joint1"].max_reaction_moment_nm
                                           for r in separate.values())
    assert j.governing_case["max_reaction_moment_nm"] == "crash"
    # each case's own numbers in its section and its folder, equal to the case run alone
    for name, r in separate.items():
        assert s.cases[name].max_von_mises_pa == r.summary.max_von_mises_pa
        own = json.loads((out / "cases" / name / "summary.json").read_text())
        assert own["links"]["beam"]["max_von_mises_pa"] == r.summary.links["beam"].max_von_mises_pa
    assert s.cases["crash"].links["beam"].governs and not s.cases["light"].links["beam"].governs


def test_an_accidental_case_below_its_safety_factor_fails_naming_the_case(cases_run):
    result, separate, _ = cases_run
    s = result.summary
    # 2000 N: sigma = F L (h/2) / I = 600 MPa at the root by beam theory against 250 MPa yield: SF < 1
    assert separate["crash"].summary.links["beam"].min_safety_factor < 1.0
    assert not s.passed and not s.cases["crash"].passed and s.cases["light"].passed and s.cases["heavy"].passed
    assert len(s.failures) == 1 and s.failures[0].startswith("case 'crash' (accidental): link 'beam': safety factor")
    assert "fatigue" not in s.failures[0]


def test_a_study_of_one_case_gives_the_numbers_of_the_study(tmp_path):
    study = base_study(tmp_path)
    plain = run(study, None, progress=False, write=False).summary
    one = run(dataclasses.replace(study, cases=(Case("duty"),)), None, progress=False, write=False).summary
    for field in ("links", "joints"):
        a, b = getattr(plain, field), getattr(one, field)
        for name in a:
            mine = b[name].to_dict()
            mine.pop("governing_case")
            mine.pop("utilisation", None)
            assert mine == a[name].to_dict(), (field, name)
    assert one.passed == plain.passed and one.fatigue.to_dict() == plain.fatigue.to_dict()
    assert one.tool_point_deflection_m == plain.tool_point_deflection_m


def test_the_links_are_reduced_once_for_every_case(tmp_path, monkeypatch):
    calls = []
    reduce = LinkModel.reduce
    monkeypatch.setattr(LinkModel, "reduce", lambda self, *a: calls.append(1) or reduce(self, *a))
    study = dataclasses.replace(base_study(tmp_path), fatigue=None, cases=(
        Case("a"), Case("b", role="accidental", changes={"point_forces": alternating(F_HEAVY)})))
    result = run(study, None, progress=False, write=False)
    assert len(calls) == 1
    alone = run(dataclasses.replace(study, cases=(), point_forces=alternating(F_HEAVY)), None, progress=False,
                write=False)
    assert result.cases["b"].summary.links["beam"].max_von_mises_pa == alone.summary.links["beam"].max_von_mises_pa


def test_reused_arm_superelements_give_the_case_run_alone(tmp_path):
    """The arm model (its superelements and clamped bases made once, for the first case) with elastic inertia: a
    second case, another force step, gives the samples, peak and tool deflection of its study run alone, to the
    bit."""
    base = dataclasses.replace(load_study(write_small_study(tmp_path)), quasi_static=False, t_end=0.3,
                               point_forces=(PointForce("tip", "STEP(time, 0.1, 0, 0.102, 100)", (0, 0, -1)),))
    other = (PointForce("tip", "STEP(time, 0.1, 0, 0.101, 1000)", (0, 0, -1)),)
    both = run(dataclasses.replace(base, cases=(Case("a"), Case("b", role="accidental", changes={
        "point_forces": other}))), None, progress=False, write=False).cases["b"].summary
    alone = run(dataclasses.replace(base, point_forces=other), None, progress=False, write=False).summary
    assert both.flexibility == "arm" and both.analysis.n_time_samples == alone.analysis.n_time_samples
    assert both.links["beam"].max_von_mises_pa == alone.links["beam"].max_von_mises_pa
    assert both.tool_point_deflection_m == alone.tool_point_deflection_m


@pytest.mark.parametrize("cases, match", [
    ((Case("a", share=0.5), Case("b", share=0.4)), r"^cases: the duty cases' shares add up to 0.9, not 1"),
    ((Case("a", share=0.5), Case("b")), r"^cases: the duty cases \['b'\] have no share"),
    ((Case("a"), Case("a", role="accidental")), r"^cases: the names \['a'\] are given more than once"),
    ((Case("a", changes={"fatigue": None}),), r"^case 'a': changes \['fatigue'\], which a case cannot set"),
    ((Case("a", changes={"t_end": -1.0}),), r"^case 'a': t_end = -1.0: give a finite number > 0"),
    ((Case("x", role="accidental"),), r"^cases: the study asks for fatigue but has no duty case"),
])
def test_bad_cases_are_refused_in_one_line(tmp_path, cases, match):
    with pytest.raises(InputError, match=match) as err:
        run(dataclasses.replace(base_study(tmp_path), cases=cases), None, progress=False, write=False)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("kwargs, match", [
    (dict(share=1.5), r"^case 'a': share = 1.5: give the case's fraction"),
    (dict(share=0.0), r"^case 'a': share = 0.0: give a finite number > 0"),
    (dict(role="accidental", share=0.5), r"^case 'a': share is for duty cases"),
    (dict(required_safety_factor=1.2), r"^case 'a': required_safety_factor is for accidental cases"),
    (dict(role="rare"), r"^case 'a': role = 'rare': choose one of \['duty', 'accidental'\]"),
])
def test_bad_case_fields_are_refused(kwargs, match):
    with pytest.raises(InputError, match=match):
        Case("a", **kwargs)


CLI_CASES = '''
import dataclasses
from structcheck import Case
study = dataclasses.replace(study, cases=(
    Case("duty"),
    Case("crash", role="accidental", required_safety_factor={sf}, changes={{"point_forces": (
        PointForce("tip", 1000.0, (0, 0, -1)),)}}),{extra}))
'''


@pytest.mark.parametrize("sf, extra, code, says", [
    (1.0, "", 1, "case 'crash' (accidental): link 'beam': safety factor"),  # 1000 N: 300 MPa by beam theory
    (0.5, "", 0, "results written to"),
    (1.0, ' Case("duty2", share=0.5)', 2, "failed: cases: the duty cases ['duty'] have no share"),
])
def test_command_line_exit_status(tmp_path, capsys, sf, extra, code, says):
    script = tmp_path / "cases_study.py"
    script.write_text(SMALL_STUDY + CLI_CASES.format(sf=sf, extra=extra))
    out = tmp_path / "out"
    assert main(["run", str(script), "--out", str(out), "--no-vtk", "--no-report", "--quiet"]) == code
    text = capsys.readouterr()
    assert says in text.out + text.err
    if code == 2:
        assert len(text.err.strip().splitlines()) == 1 and not out.exists()
    else:
        assert (out / "cases" / "crash" / "summary.json").is_file()


def test_compare_sweep_and_report_read_the_cases(cases_run, tmp_path, capsys):
    from html.parser import HTMLParser

    from structcheck.results.compare import compare
    from structcheck.results.schema import read_summary
    from structcheck.results.sweep import cases_cell

    result, _, out = cases_run
    same = compare(str(out), str(out))
    rows = {(d.link, d.metric): d for d in same.deltas}
    assert rows[("beam [crash]", "utilisation")].change_pct == 0 and not same.regressions
    assert ("beam [heavy]", "fatigue_damage_per_cycle") in rows and ("beam [crash]", "fatigue_damage_per_cycle") \
        not in rows  # an accidental case has no fatigue
    worse = json.loads((out / "summary.json").read_text())
    worse["cases"]["heavy"]["links"]["beam"]["utilisation"] *= 1.1  # a case worsens, the envelope does not
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "summary.json").write_text(json.dumps(worse))
    cmp = compare(str(out), str(tmp_path / "b"), 5.0)
    assert [(d.link, d.metric) for d in cmp.regressions] == [("beam [heavy]", "utilisation")]
    del worse["cases"]["crash"]
    (tmp_path / "b" / "summary.json").write_text(json.dumps(worse))
    with pytest.raises(InputError, match="different load cases"):
        compare(str(out), str(tmp_path / "b"))
    # sweep.csv's cell: each case's highest utilisation and verdict, in the study's order
    s = read_summary(out)
    u = {n: c.utilisation for n, c in s.cases.items()}
    assert cases_cell(s) == f"light {u['light']:.3g} pass; heavy {u['heavy']:.3g} pass; crash {u['crash']:.3g} FAIL"
    # structcheck report on the folder: the load-case page, the governing case marked in the matrix
    assert main(["report", str(out), "-o", str(tmp_path / "r.html")]) == 0
    governs = []

    class Cells(HTMLParser):
        case = None

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            self.case = a.get("data-case", self.case)
            if tag == "td" and "data-governs" in a:
                governs.append(self.case)

    Cells().feed((tmp_path / "r.html").read_text())
    assert governs == ["crash"]


def test_an_emergency_stop_as_an_accidental_case_stops_as_the_braked_bar_closed_form(tmp_path):
    """The cantilever swinging about its horizontal joint (no gravity, no tip force), braked at t0 = 0.25 s with a
    20 N m brake and no delay: it stops after I w0 / T_b with travel I w0^2 / (2 T_b) (I = m (L^2/3 + h^2/12), the
    beam's inertia about the joint), and during the stop the joint carries the brake torque."""
    from structcheck.cases.case import case_study
    from structcheck.cases.stop import JointStop, StopSpec
    from structcheck.cases.stopcase import stop_case
    from structcheck.script import load_study

    path = write_small_study(tmp_path)
    study = load_study(path, tip_force_n=0.0, law="0.5*(1-COS(2*PI*time))")
    T_b, t0 = 20.0, 0.25
    case = stop_case("stop", StopSpec(0, {"joint1": JointStop(T_b)}), t0, required_safety_factor=1.0)
    study = dataclasses.replace(study, cases=(Case("duty"), case))
    m = 7850.0 * SMALL_L * SMALL_H ** 2  # structural steel
    inertia, w0 = m * (SMALL_L ** 2 / 3 + SMALL_H ** 2 / 12), 0.5 * 2 * np.pi * np.sin(2 * np.pi * t0)
    stopped = case_study(study, case)
    law = stopped.motion["joint1"]
    # to the stop simulator's default tolerances (its event location and integration)
    assert stopped.t_end == pytest.approx(inertia * w0 / T_b, rel=1e-3)
    assert law.value(stopped.t_end) - law.value(0.0) == pytest.approx(inertia * w0 ** 2 / (2 * T_b), rel=1e-3)
    result = run(study, None, progress=False, write=False)
    s = result.summary
    assert s.cases["stop"].role == "accidental" and s.cases["stop"].t_end_s == stopped.t_end
    torque = result.cases["stop"].summary.joints["joint1"].max_abs_torque
    assert torque == pytest.approx(T_b, rel=1e-3)
    assert s.joints["joint1"].governing_case["max_abs_torque"] == "stop"
