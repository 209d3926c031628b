"""Every input recorded (issue 30 item 3): summary.json's ``inputs`` holds the study as it ran after ``--set``, each
value with where it came from, each joint's stiffness, each part's material, S-N curve and mesh, the damping and
the solver; ``compare`` lists the inputs that differ before the numbers.

The tiny cantilever study (tests/helpers.py: one 0.4 m steel beam of 20 mm square section, here 25 mm, on joint1,
100 N at the tip, quasi-static) is run by the command line, once with joint1 rigid and once with a torsional
spring and another damping ratio. Each recorded value is checked against where it came from: the command line's
values, the script's build() defaults and Study arguments, the material library's published constants, the mesh's
closed-form sizes; the spring against the deflection it adds, F L^2 / k."""
import dataclasses
import hashlib
import json
import math

import numpy as np
import pytest
from helpers import N_LEN, N_SIDE, SMALL_L as L, write_small_study

from structcheck.cli import main
from structcheck.results.compare import compare
from structcheck.results.inputs import damping_text, study_settings
from structcheck.settings import ArmSettings, SignOff
from structcheck.study import Study

SIDE = 0.025  # [m] the beam's section, given with --set side_mm=25
K = 2.0e4  # [N m/rad] joint1's torsional spring, given with --set
F = 100.0  # [N] the tip force: build()'s default


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(study script, results folders {'rigid', 'spring'}, their summaries)."""
    folder = tmp_path_factory.mktemp("inputs")
    script = write_small_study(folder)
    given = {"rigid": ["--set", "side_mm=25"],
             "spring": ["--set", "side_mm=25", "--set", f'arm.joint_stiffness={{"joint1": {K:g}}}',
                        "--set", "study.damping_ratio=0.05"]}
    outs = {}
    for name, args in given.items():
        outs[name] = folder / "results" / name
        assert main(["run", str(script), "--out", str(outs[name]), "--quiet", "--no-vtk", "--no-report",
                     *args]) == 0
    return script, outs, {n: json.loads((o / "summary.json").read_text()) for n, o in outs.items()}


def test_where_each_value_came_from(runs):
    script, outs, s = runs
    inputs = s["spring"]["inputs"]
    build = inputs["build_parameters"]
    assert build["side_mm"] == {"value": 25, "source": "--set"}
    assert build["tip_force_n"] == {"value": F, "source": "default"}  # build(tip_force_n=100.0, ...)
    assert build["n_frames"] == {"value": 3, "source": "default"}
    settings = inputs["settings"]
    assert settings["arm.joint_stiffness"] == {"value": {"joint1": K}, "source": "--set"}
    assert settings["damping_ratio"] == {"value": 0.05, "source": "--set"}
    assert settings["n_frames"] == {"value": 3, "source": "study"}  # build() passes 3; Study's default is 101
    assert settings["quasi_static"] == {"value": True, "source": "study"}
    assert settings["n_modes"] == {"value": 10, "source": "default"}
    assert settings["arm.max_joint_change"] == {"value": 0.05, "source": "default"}
    assert settings["point_forces"]["value"] == [{"point": "tip", "magnitude": F, "direction": [0, 0, -1]}]
    assert s["rigid"]["inputs"]["settings"]["damping_ratio"] == {"value": 0.02, "source": "default"}
    # every field of the Study is there, those of its parts field by field: a new field is recorded unasked
    for f in dataclasses.fields(Study):
        if f.name in ("arm", "metadata"):  # parts the study has (its fatigue is None: one value)
            part = ArmSettings if f.name == "arm" else SignOff
            assert {f"{f.name}.{g.name}" for g in dataclasses.fields(part)} <= set(settings)
        else:
            assert f.name in settings, f.name
    assert {e["source"] for e in settings.values()} <= {"default", "study", "--set"}


def test_the_script_is_recorded_to_be_found_again_and_no_absolute_path_is_written(runs, tmp_path):
    script, outs, s = runs
    rec = s["spring"]["inputs"]["script"]
    assert rec["name"] == script.name and rec["sha256"] == hashlib.sha256(script.read_bytes()).hexdigest()
    assert (outs["spring"] / rec["path"]).resolve() == script.resolve()
    assert rec["set"] == {"side_mm": 25, "arm.joint_stiffness": {"joint1": K}, "study.damping_ratio": 0.05}
    assert str(script.parent) not in json.dumps(s["spring"]), "an absolute path in summary.json"


def test_joint_stiffness_recorded_is_the_one_the_run_used(runs):
    """The spring adds the rigid rotation F L / k at the joint: the tool point moves F L^2 / k = 0.8 mm more
    (quasi-static and linear: superposition exact, but the deflection is a norm and the beam's tip also moves a
    little along x, which the norm counts: 5e-9 here, so 1e-6)."""
    _, _, s = runs
    spring, rigid = s["spring"]["inputs"]["joints"]["joint1"], s["rigid"]["inputs"]["joints"]["joint1"]
    assert spring == {"about_axis": "spring", "torsional_stiffness_nm_per_rad": K, "tilt": "rigid",
                      "tilt_stiffness_nm_per_rad": None, "source": "--set"}
    assert rigid["about_axis"] == "rigid" and rigid["torsional_stiffness_nm_per_rad"] is None
    assert rigid["source"] == "default" and s["rigid"]["rigid_joints"] == ["joint1"]
    added = s["spring"]["tool_point_deflection_m"] - s["rigid"]["tool_point_deflection_m"]
    assert added == pytest.approx(F * L ** 2 / K, rel=1e-6)


def test_material_constants_and_sn_curve_are_the_librarys(runs):
    """structural_steel as the library cites it: ANSYS Engineering Data 'Structural Steel' (rho 7850 kg/m^3, E 200
    GPa, nu 0.3, yield 250 MPa) and its S-N estimate (S_ut 460 MPa; a line from 0.9 S_ut at 1e3 cycles to S_e' =
    0.5 S_ut at 1e6, Shigley sec. 6-7)."""
    _, _, s = runs
    part = s["rigid"]["inputs"]["parts"]["beam"]
    assert (part["material"], part["criterion"]) == ("structural_steel", "von_mises")
    assert (part["density_kg_m3"], part["youngs_modulus_pa"], part["poisson_ratio"]) == (7850.0, 200e9, 0.3)
    assert (part["yield_strength_pa"], part["tensile_strength_pa"]) == (250e6, 460e6)
    assert "Structural Steel" in part["material_source"]
    curve = part["sn_curves"]["material"]
    assert curve["S_ref_pa"] == pytest.approx(0.9 * 460e6, rel=1e-15) and curve["N_ref_cycles"] == 1e3
    assert curve["m"] == [pytest.approx(math.log(1e6 / 1e3) / math.log(0.9 * 460 / 230), rel=1e-14)]
    assert curve["N_cutoff_cycles"] == 1e6 and curve["endurance_limit_pa"] == pytest.approx(230e6, rel=1e-12)
    assert curve["ultimate_strength_pa"] == 460e6 and "Shigley" in curve["source"]


def test_mesh_sizes_and_quality_are_the_meshs(runs):
    """The beam is N_LEN x N_SIDE x N_SIDE boxes (dx = L / N_LEN, dy = dz = SIDE / N_SIDE), each split into six
    tetrahedra about its diagonal d: shortest edge dx, longest d, every tetrahedron of volume dx dy dz / 6, so its
    shape quality 6 sqrt(2) V / d^3 = sqrt(2) dx dy dz / d^3."""
    _, _, s = runs
    mesh = s["rigid"]["inputs"]["parts"]["beam"]
    dx, dy = L / N_LEN, SIDE / N_SIDE
    d = math.sqrt(dx ** 2 + 2 * dy ** 2)
    n_vertices = (N_LEN + 1) * (N_SIDE + 1) ** 2
    assert mesh["n_elements"] == 6 * N_LEN * N_SIDE ** 2
    assert mesh["n_nodes"] > n_vertices and mesh["n_nodes"] == s["rigid"]["links"]["beam"]["n_nodes"]
    assert mesh["min_edge_m"] == pytest.approx(dx, rel=1e-12) and mesh["max_edge_m"] == pytest.approx(d, rel=1e-12)
    assert mesh["worst_shape_quality"] == pytest.approx(math.sqrt(2) * dx * dy * dy / d ** 3, rel=1e-12)
    assert mesh["worst_scaled_jacobian"] is None  # straight-sided elements
    assert mesh["mesh_sha256"] == s["spring"]["inputs"]["parts"]["beam"]["mesh_sha256"]  # the same mesh
    assert s["rigid"]["inputs"]["sparse_solver"] == s["rigid"]["versions"]["sparse_solver"]


def test_damping_as_applied(tmp_path):
    from structcheck.script import load_study

    study = dataclasses.replace(load_study(write_small_study(tmp_path)), quasi_static=False, damping_ratio=0.05)
    assert damping_text(study) == "modal damping ratio 0.05 on every mode of the assembled arm"
    assert "each link clamped" in damping_text(dataclasses.replace(study, flexibility="link"))
    assert damping_text(dataclasses.replace(study, quasi_static=True)).startswith("none: quasi-static")
    assert study_settings(study, {})["damping_ratio"].source == "study"
    assert study_settings(study, {"damping_ratio": 0.05})["damping_ratio"].source == "--set"


def test_compare_lists_the_inputs_that_differ_before_the_numbers(runs, capsys, tmp_path):
    _, outs, _ = runs
    cmp = compare(str(outs["rigid"]), str(outs["spring"]), 1.0)
    assert [c.name for c in cmp.inputs] == ["settings.damping_ratio", "settings.arm.joint_stiffness"]
    assert cmp.inputs[1].baseline == "{} (default)" and cmp.inputs[1].candidate == '{"joint1": 20000} (--set)'
    assert main(["compare", str(outs["rigid"]), str(outs["spring"]), "--html", str(tmp_path / "c.html")]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    first_metric = next(i for i, line in enumerate(lines) if line.startswith("beam "))
    changed = [i for i, line in enumerate(lines) if "settings.arm.joint_stiffness" in line]
    assert lines[0].startswith("inputs that differ (2)") and changed and changed[0] < first_metric
    html = (tmp_path / "c.html").read_text()
    assert html.index('id="input-changes"') < html.index('id="changes"')
    assert 'data-input="settings.arm.joint_stiffness"' in html
    assert compare(str(outs["rigid"]), str(outs["rigid"]), 1.0).inputs == []


def test_compare_says_when_a_folder_records_no_inputs(runs, tmp_path):
    _, outs, s = runs
    old = tmp_path / "old"
    old.mkdir()
    (old / "summary.json").write_text(json.dumps({k: v for k, v in s["rigid"].items() if k != "inputs"}))
    cmp = compare(str(old), str(outs["rigid"]), 1.0)
    assert cmp.unrecorded == [str(old)] and cmp.inputs == []
    from structcheck.results.compare import format_comparison

    assert format_comparison(cmp).startswith(f"inputs: not recorded in {str(old)!r}")
    assert np.isfinite(cmp.deltas[0].baseline)


def test_inputs_read_back_typed_key_for_key(runs):
    from structcheck.results import read_summary

    _, outs, s = runs
    typed = read_summary(outs["spring"])
    assert typed.to_dict() == s["spring"] and typed.inputs.extra == {}
    assert typed.inputs.joints["joint1"].torsional_stiffness_nm_per_rad == K
    assert typed.inputs.parts["beam"].sn_curves["material"].N_cutoff_cycles == 1e6


def test_curved_elements_with_straight_edges_have_a_scaled_jacobian_of_one():
    """A curved (isoparametric) element whose mid-side nodes sit at its edges' midpoints is an affine map: det J is
    the same at every point, so its scaled Jacobian is 1 (to round-off). One mid-side node moved along its edge
    (from a to b) by a fraction f of it makes det J = det J0 (1 + 4 f (lambda_a - lambda_b)), linear in the
    barycentric coordinates: its smallest over the largest is (1 - 4f) / (1 + 4f), reached at the two vertices."""
    from skfem import MeshTet

    from structcheck.fe.mesh import TetMesh
    from structcheck.fe.part import Part
    from structcheck.results.inputs import mesh_numbers

    m = MeshTet.init_tensor(*[np.linspace(0, 0.05, 3)] * 3)
    p, t = m.p.T, m.t.T
    edges = ((0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3))  # tetra10's mid-side node order
    midside = np.stack([0.5 * (p[t[:, a]] + p[t[:, b]]) for a, b in edges], 1)
    straight = mesh_numbers(Part.from_tetmesh(TetMesh(p, t, {}, midside=midside), "6061-T6"))
    assert straight["worst_scaled_jacobian"] == pytest.approx(1.0, abs=1e-12)
    f = 0.2
    bent = midside.copy()
    shared = np.all(np.isclose(midside, midside[0, 0], rtol=0, atol=1e-12), axis=-1)  # every element on that edge
    bent[shared] += f * (p[t[0, 1]] - p[t[0, 0]])
    worst = mesh_numbers(Part.from_tetmesh(TetMesh(p, t, {}, midside=bent), "6061-T6"))["worst_scaled_jacobian"]
    assert worst == pytest.approx((1 - 4 * f) / (1 + 4 * f), rel=1e-12)
