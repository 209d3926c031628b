"""Study(flexibility="arm"): the arm model wired into a run, and where it must agree with the per-link model.

The two-beam arm (steel, 0.4 m + 0.3 m, 20 x 20 mm, joints about y) under gravity and a tool force. Under a slow
load both models carry the same loads: the joint reactions of the arm model (the interface forces of its
superelements, K_r z - Psi^T f on the interface rows) equal the rigid-body joint wrenches, and the stresses away
from the flanges agree. Near link1's distal flange they differ by construction: the per-link model spreads the
joint2 wrench over the flange as a linear traction field (RBE3-like) on a link clamped at joint1, while the arm
model joins the two links through rigid flanges.
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers import two_beam_parts, two_beam_robot

from structcheck.errors import InputError
from structcheck.settings import ArmSettings
from structcheck.results.tables import read_csv
from structcheck.study import PointForce, Study, run


@pytest.fixture(scope="module")
def parts():
    return two_beam_parts(24, 18)


def _study(parts, **kw):
    base = dict(name="arm", robot=two_beam_robot(), parts=parts, t_end=2.0, n_frames=6, motion={}, n_modes=4,
                tool_point="tool", point_forces=(PointForce("tool", "STEP(time,0,0,2,50)", (0, 0.6, -0.8)),))
    return Study(**{**base, **kw})


@pytest.fixture(scope="module")
def slow(parts, tmp_path_factory):
    out = tmp_path_factory.mktemp("arm_run")
    arm = run(_study(parts, flexibility="arm"), out, progress=False, vtk=False, plots=False)
    link = run(_study(parts, flexibility="link"), progress=False, write=False)
    return arm, link, out


COMPANION_KEYS = {"max_von_mises_link_model_pa", "quasi_static_max_von_mises_link_model_pa",
                  "lowest_frequency_link_model_hz"}


def _without_timings(summary: dict) -> dict:
    """The summary without its wall times (which differ from run to run)."""
    out = {k: v for k, v in summary.items() if k != "timings_s"}
    out["analysis"] = {k: v for k, v in summary["analysis"].items() if k != "arm_timings_s"}
    return out


def test_the_per_link_model_runs_beside_the_arm_model_only_when_asked(slow, parts):
    """By default an arm run has none of the per-link model's numbers; with compare_link_model=True it has them,
    equal to a per-link run's own, and every other number of its summary is the default run's, bit for bit."""
    arm, link, _ = slow
    arm_s, link_s = arm.summary.to_dict(), link.summary.to_dict()  # summary.json's documents
    assert not any(COMPANION_KEYS & set(entry) for entry in arm_s["links"].values())
    both = run(_study(parts, flexibility="arm", arm=ArmSettings(compare_link_model=True)), progress=False,
               write=False).summary.to_dict()
    for name, entry in both["links"].items():
        mine = link_s["links"][name]
        assert entry["max_von_mises_link_model_pa"] == pytest.approx(mine["max_von_mises_pa"], rel=1e-12)
        assert entry["lowest_frequency_link_model_hz"] == pytest.approx(mine["lowest_frequency_hz"], rel=1e-12)
        assert entry["quasi_static_max_von_mises_link_model_pa"] == pytest.approx(
            mine["quasi_static_max_von_mises_pa"], rel=1e-12)
        assert set(entry) - set(arm_s["links"][name]) == COMPANION_KEYS
    both["links"] = {n: {k: v for k, v in e.items() if k not in COMPANION_KEYS} for n, e in both["links"].items()}
    # the recorded inputs differ in the one setting that asked for the companion, and nowhere else
    settings = both["inputs"]["settings"], arm_s["inputs"]["settings"]
    assert settings[0].pop("arm.compare_link_model")["value"] is True
    assert settings[1].pop("arm.compare_link_model")["value"] is False
    assert _without_timings(both) == _without_timings(arm_s)


def test_summary_and_csv_of_an_arm_run(slow):
    arm, link, out = slow
    s = arm.summary
    assert s.flexibility == "arm" and link.summary.flexibility == "link"
    assert link.summary.arm_modes_hz is None and link.summary.max_total_deformation_m is None
    f = np.array(s.arm_modes_hz)
    assert f.shape == (6,) and np.all(np.diff(f) >= 0) and f[0] > 0
    assert s.arm_lowest_mode_hz == pytest.approx(f[0])
    # total deformation relative to the ground: the tool end of the arm, at least the tool point's deflection
    assert s.max_total_deformation_m >= 0.99 * s.tool_point_deflection_m
    csv = read_csv(out / "links.csv")
    d = np.c_[csv["tool_point_deflection_x_m"], csv["tool_point_deflection_y_m"], csv["tool_point_deflection_z_m"]]
    assert np.allclose(d, arm.tool_point_deflection)
    assert np.linalg.norm(d, axis=1).max() == pytest.approx(s.tool_point_deflection_m)
    assert not any("arm-level dynamics" in w for w in s.warnings)


def test_slow_load_agrees_with_the_link_model(slow):
    """Tool deflection (the per-link model chains the links' interface compliances), and the link stresses:
    link2 (the tool link, clamped at its rigid flange in both models) everywhere; link1 away from its flanges.
    Measured with the 2 s ramp: tool -0.06%, peaks +0.012% (link1), +0.010% (link2). With a 0.5 s ramp the two
    differ by 0.14-0.28%, falling as 1/T^2: the arm's 33 Hz mode (the per-link links' own modes are higher)
    responds dynamically to the ramp's acceleration jumps."""
    arm, link, _ = slow
    d_arm = np.linalg.norm(arm.tool_point_deflection, axis=1)
    d_link = np.linalg.norm(link.tool_point_deflection, axis=1)
    assert d_arm.max() == pytest.approx(d_link.max(), rel=0.003)
    a2, l2 = arm.links["link2"], link.links["link2"]
    assert a2.max_von_mises_pa == pytest.approx(l2.max_von_mises_pa, rel=1e-3)
    part = two_beam_parts(24, 18)["link1"]
    away = part.distance_to_surfaces(["joint1", "joint2"]) > 0.05
    va, vl = arm.links["link1"].envelope["von_mises"][away], link.links["link1"].envelope["von_mises"][away]
    assert va.max() == pytest.approx(vl.max(), rel=2e-3)


def test_arm_inputs_are_checked(parts):
    with pytest.raises(InputError, match="flexibility"):
        run(_study(parts, flexibility="chain"), progress=False, write=False)
    with pytest.raises(InputError, match="joint_stiffness names unknown joint"):
        run(_study(parts, flexibility="arm", arm=ArmSettings(joint_stiffness={"joint9": 1e4})), progress=False,
            write=False)


def test_info_prints_arm_frequencies_at_home(tmp_path, capsys):
    """`structcheck info` on the tiny cantilever study: one link clamped at joint1 is the whole arm, so the arm
    model's first two frequencies (bending about y and z of the square section) are the link's own first
    frequency, and both are Euler-Bernoulli's 1.875^2 / (2 pi L^2) sqrt(E I / (rho A)) within 2% (shear, rotary
    inertia and the coarse section mesh, as the per-link line is held in tests/study/test_api.py)."""
    from helpers import SMALL_H as H, SMALL_L as L, write_small_study

    from structcheck.cli import main
    from structcheck.model.materials import get_material

    assert main(["info", str(write_small_study(tmp_path))]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("arm model at home"))
    assert "estimate" not in out  # one lowest-mode figure, the arm model's
    hz = [float(v) for v in line.split(":")[1].replace("Hz", "").split(",")]
    f1_link = float(next(ln for ln in out.splitlines() if ln.startswith("beam ")).split()[-1])
    steel = get_material("structural_steel")
    f_eb = 1.8751 ** 2 / (2 * np.pi * L ** 2) * np.sqrt(steel.E * H ** 4 / 12 / (steel.density * H ** 2))
    assert len(hz) == 6
    assert hz[0] == pytest.approx(f1_link, rel=2e-3)  # printed to 0.1 Hz
    assert hz[0] == pytest.approx(f_eb, rel=0.02) and hz[1] == pytest.approx(f_eb, rel=0.02)


def test_payload_mass_swings_on_the_flexible_chain(parts):
    """A rigid payload (mu = m / (rho A L) = 1) held at the tool of the straight two-beam arm (0.7 m, 20 x 20 mm
    steel): the assembled arm's first two frequencies (bending about y and z, equal for the square section) are
    those of a cantilever with a tip mass, b^2 sqrt(E I / (rho A L^4)) / (2 pi) with b the first root of
    1 + cos b cosh b + mu b (cos b sinh b - sin b cosh b) = 0 (Blevins, Table 8-8), within 1% (the mesh, two rigid
    flanges, shear at L/h = 35; measured +0.24%, +0.25%)."""
    from helpers import H, L1, L2

    from structcheck.model.materials import get_material
    from structcheck.study import Payload
    from structcheck.verify.arm import tip_mass_roots

    steel = get_material("structural_steel")
    A, I, L = H * H, H ** 4 / 12, L1 + L2
    m = steel.density * A * L
    s = run(_study(parts, flexibility="arm", payloads=(Payload("tool", m),), t_end=0.2, n_frames=3),
            progress=False, write=False).summary
    b = tip_mass_roots(1.0, 1)[0]
    f_ref = b ** 2 * np.sqrt(steel.E * I / (steel.density * A * L ** 4)) / (2 * np.pi)
    assert s.arm_modes_hz[0] == pytest.approx(f_ref, rel=0.01)
    assert s.arm_modes_hz[1] == pytest.approx(f_ref, rel=0.01)


def test_the_arm_stage_counts_its_links_and_segments(capsys):
    """The arm model's progress bar counts each link's superelement, each frozen segment and each link's stress
    history (the two-beam arm swinging 0.3 rad: 0.3 / 0.05 = 6 segments at least), so it never sits at 0/1."""
    study = Study(name="swing", robot=two_beam_robot(), parts=two_beam_parts(8, 6), t_end=0.5, n_frames=3,
                  motion={"joint1": "STEP(time,0,0,0.5,0.3)"}, n_modes=2, quasi_static=True)
    run(study, progress=True, write=False)
    bar = [ln for ln in capsys.readouterr().err.replace("\r", "\n").splitlines() if ln.startswith("arm model")][-1]
    done, total = map(int, bar.split("|")[2].split()[0].split("/"))
    assert done == total >= 2 * 2 + 6


def test_without_ringing_samples_the_arm_model_forms_no_per_link_bases(parts, monkeypatch):
    """A 10 ms force ramp rings the links: by default samples are added after it; with ringing_samples=False
    (a quick look's setting) the analysis grid is the motion's own and the arm model forms no per-link clamped
    basis (the factorization and eigen-solve per link that only the ringing samples need)."""
    import structcheck.structural.arm as arm_model
    from structcheck.study import prepare

    fast = dict(t_end=0.3, point_forces=(PointForce("tool", "STEP(time,0.05,0,0.06,50)", (0, 0.6, -0.8)),))
    ringing = run(_study(parts, **fast), progress=False, write=False).summary
    study = _study(parts, ringing_samples=False, **fast)

    def refused(*args, **kwargs):
        raise AssertionError("a per-link basis was formed")

    monkeypatch.setattr(arm_model, "link_basis", refused)
    plain = run(study, progress=False, write=False).summary
    assert plain.analysis.n_time_samples == len(prepare(study).grid.t) < ringing.analysis.n_time_samples
    # the peak of ringing read at the motion's own samples only: lower (here 22%), as a quick look says it may be
    assert plain.links["link1"].max_von_mises_pa < ringing.links["link1"].max_von_mises_pa
    with pytest.raises(InputError, match="ringing_samples"):
        _study(parts, ringing_samples="no")
