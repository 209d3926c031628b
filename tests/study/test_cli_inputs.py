"""Every input named, nothing leaking from Python (issue 20): `structcheck run/info` in-process on the tiny study
(tests/helpers.py) with NaN, infinite, negative, empty and wrong-type values for study parameters, motion laws,
payloads and mesh paths: exit 2, one line naming the input, no traceback, and an earlier results folder left as it
was. Every bad value here is refused before any FE work (each case takes milliseconds).

The property tests are derandomized with few examples, so the default suite stays deterministic and fast."""
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structcheck.cli import main
from structcheck.errors import InputError, require_array, require_number

from helpers import write_small_study

ROOT = Path(__file__).resolve().parents[2]
# capsys is function-scoped, but refused() reads (and so empties) it on every example
COMMON = dict(deadline=None, derandomize=True, max_examples=30,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
EARLIER = {"summary.json": '{"passed": true, "earlier": 1}\n', "links.csv": "link,max\nbeam,1\n"}


@pytest.fixture(scope="module")
def where(tmp_path_factory):
    """(study script, an earlier results folder with files in it, a folder that is not a mesh file)."""
    folder = tmp_path_factory.mktemp("inputs")
    out = folder / "earlier"
    out.mkdir()
    for name, text in EARLIER.items():
        (out / name).write_text(text)
    (folder / "a_folder").mkdir()
    return write_small_study(folder), out, folder


def refused(capsys, where, *args, command="run") -> str:
    """``structcheck <command> STUDY *args`` (run: into the earlier results folder): assert exit 2, one line,
    no traceback and the earlier folder untouched; return the line."""
    study, out, _ = where
    argv = [command, str(study), *args] + (["--out", str(out), "--quiet", "--no-vtk"] if command == "run" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("structcheck: error:") and "\n" not in err and "Traceback" not in err, err
    assert {p.name: p.read_text() for p in out.iterdir()} == EARLIER
    return err


# ------------------------------------------------------------------------------------------ the examples
def test_nan_for_a_number_names_the_parameter(capsys, where):
    err = refused(capsys, where, "--set", "side_mm=nan")
    assert "build() parameter side_mm = nan: give a finite number (mm); build()'s default is 20.0" in err, err
    # a parameter without a numeric default (payload_kg=None) is caught where the value enters: Payload
    err = refused(capsys, where, "--set", "payload_kg=nan")
    assert "with payload_kg='nan' failed: payload at 'tip': mass = 'nan': give a finite number > 0 (kg)" in err, err
    err = refused(capsys, where, "--set", "payload_kg=NaN")  # JSON's NaN is a float
    assert "payload_kg = nan: give a finite number (kg)" in err, err


def test_nan_as_a_law_is_not_an_unknown_name():
    """The issue's "unknown name 'nan' ... in motion law 'nan'": a force or motion law 'nan' or 'inf' says it is
    not a finite number, naming the force or joint."""
    from structcheck.study import PointForce

    with pytest.raises(InputError, match=r"^point force at 'tip': magnitude: nan is not a finite number"):
        PointForce("tip", "nan")
    with pytest.raises(InputError, match=r"^point force at 'tip': magnitude = inf: give a finite number \(N\)"):
        PointForce("tip", float("inf"))
    with pytest.raises(InputError, match=r"^point force at 'tip': direction = \(0, 0, 0\) is zero"):
        PointForce("tip", 1.0, (0, 0, 0))


def test_text_for_a_number_says_what_to_give(capsys, where):
    err = refused(capsys, where, "--set", "side_mm=abc")
    assert "side_mm = 'abc': give a finite number (mm), not str" in err and "unsupported operand" not in err, err
    err = refused(capsys, where, "--set", "n_frames=2.5")
    assert "n_frames = 2.5: give a whole number; build()'s default is 3" in err, err


def test_unknown_parameter_lists_builds_parameters(capsys, where):
    err = refused(capsys, where, "--set", "sidemm=5")
    assert "build() has no parameter sidemm; its parameters are tip_force_n, required_safety_factor" in err, err


@pytest.mark.parametrize("command", ["info", "run"])
def test_a_urdf_is_not_a_study_script(capsys, where, command):
    urdf = ROOT / "tests" / "data" / "urdf" / "ur5.urdf"
    study, out, _ = where
    argv = [command, str(urdf)] + (["--out", str(out)] if command == "run" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "NoneType" not in err and "loader" not in err, err
    assert f"{str(urdf)!r} is not a study script (a robot model: a study script reads it with " \
           f"structcheck.Robot.from_urdf)" in err
    assert "a study script is a Python file (.py) that defines `study = Study(...)`" in err


def test_missing_script_and_a_script_without_a_study(capsys, where, tmp_path):
    assert main(["info", str(tmp_path / "nope.py")]) == 2
    err = capsys.readouterr().err
    assert "does not exist; a study script is a Python file (.py)" in err
    (tmp_path / "plain.py").write_text("x = 1\n")
    assert main(["info", str(tmp_path / "plain.py")]) == 2
    assert "defines no `study = Study(...)` at module level" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "plain.py"), "--set", "a=1", "--out", str(tmp_path / "o")]) == 2
    assert "has no build(**params) function to take ['a']" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_script_defining_a_dataclass_loads(tmp_path):
    """A study script is imported as a module registered in sys.modules, as @dataclass needs (it failed with
    "'NoneType' object has no attribute '__dict__'")."""
    from structcheck.script import load_study
    from structcheck.study import Study

    from helpers import SMALL_STUDY

    path = tmp_path / "with_dataclass.py"
    path.write_text("from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Options:\n"
                    "    side_mm: float = 20.0\n" + SMALL_STUDY)
    assert isinstance(load_study(path), Study)


def test_info_refuses_bad_values_too(capsys, where):
    err = refused(capsys, where, "--set", "tip_force_n=inf", command="info")
    assert "tip_force_n = inf: give a finite number (N)" in err


def test_helper_messages():
    """The one shared check: the message names the input, the bound and the unit; text and bools are not
    numbers; arrays are shown on one line."""
    assert require_number("n", 3.0, whole=True, at_least=2) == 3
    for value, msg in ((float("nan"), "payload_kg = nan: give a finite number > 0 (kg)"),
                       ("2", "payload_kg = '2': give a finite number > 0 (kg), not str"),
                       (True, "payload_kg = True: give a finite number > 0 (kg), not bool"),
                       (-1, "payload_kg = -1: give a finite number > 0 (kg)")):
        with pytest.raises(InputError) as err:
            require_number("payload_kg", value, "kg", above=0)
        assert str(err.value) == msg
    with pytest.raises(InputError, match=r"^gravity = \[0.0, 0.0, inf\]: give 3 finite numbers \(m/s\^2\)$"):
        require_array("gravity", __import__("numpy").array([0, 0, float("inf")]), (3,), "m/s^2")


# ------------------------------------------------------------------------------------------ property tests
NON_FINITE = st.sampled_from(["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-Infinity", "INF", "1e999",
                              "-1e400"])
TEXT = st.text(string.ascii_letters + "_/ ", min_size=1, max_size=8).filter(lambda s: s.strip())
EMPTY = st.sampled_from(["", " ", "  \t"])
WRONG_TYPE = st.sampled_from(["true", "false", "[1, 2]", '{"a": 1}', "[NaN]", '"x"'])  # and null: None
BAD_NUMBER = st.one_of(NON_FINITE, TEXT, EMPTY, WRONG_TYPE, st.just("null"))
NUMBERS = ["tip_force_n", "side_mm", "required_safety_factor", "gravity_z", "t_end", "n_frames"]


@settings(**COMMON)
@given(name=st.sampled_from(NUMBERS), raw=BAD_NUMBER)
def test_bad_study_numbers_exit_2_naming_the_parameter(capsys, where, name, raw):
    err = refused(capsys, where, "--set", f"{name}={raw}")
    assert f"build() parameter {name} = " in err, err


@settings(**COMMON)
@given(name=st.sampled_from(["t_end", "n_frames", "required_safety_factor", "payload_kg"]),
       value=st.one_of(st.just(0.0), st.floats(max_value=-1e-12, allow_nan=False, allow_infinity=False),
                       st.integers(max_value=0)))
def test_negative_or_zero_where_a_positive_number_belongs(capsys, where, name, value):
    err = refused(capsys, where, "--set", f"{name}={value!r}")
    shown = {"payload_kg": "payload at 'tip': mass", "t_end": "t_end", "n_frames": "n_frames",
             "required_safety_factor": "required_safety_factor"}[name]
    assert f"{shown} = " in err and ": give a " in err, err  # n_frames = 0.0 reaches build() as the whole 0


@settings(**COMMON)
@given(raw=st.one_of(NON_FINITE, TEXT, EMPTY, WRONG_TYPE, st.floats(max_value=0, allow_nan=False,
                                                                     allow_infinity=False).map(repr)))
def test_bad_payloads_exit_2_naming_the_payload(capsys, where, raw):
    err = refused(capsys, where, "--set", f"payload_kg={raw}")
    assert "payload at 'tip': mass = " in err or "build() parameter payload_kg = " in err, err


VALID_LAW = st.sampled_from(["STEP(time,0,0,1,30d)", "0.1*SIN(2*PI*time)", "STEP5(time,0.2,0,0.8,-10d)", "0"])
BAD_PART = st.sampled_from(["nan", "inf", "1e999", "SIN(", "STEP(time,0,0)", "@", "time time", ")", "1/0",
                            "STEP(time,1,0,1,5)", "time**time", "foo(1)", "STEP(SIN(time),0,0,1,1)", "2 +"])


@settings(**COMMON)
@given(law=st.one_of(BAD_PART, EMPTY, st.builds(lambda a, op, b: f"{a} {op} {b}", VALID_LAW,
                                                 st.sampled_from("+-*/"), BAD_PART)))
def test_bad_motion_laws_exit_2_naming_the_joint(capsys, where, law):
    err = refused(capsys, where, "--set", f"law={law}")
    assert "motion of joint 'joint1'" in err or "build() parameter law = " in err, err


@settings(**COMMON)
@given(path=st.one_of(EMPTY, st.sampled_from(["5", "true", "[1]", "a_folder", "tiny_study.py", "Infinity"]),
                      st.text(string.ascii_letters + string.digits, min_size=1, max_size=10).map(
                          lambda s: f"missing_{s}.msh")))
def test_bad_mesh_paths_exit_2_naming_the_mesh_file(capsys, where, path):
    full = str(where[2] / path) if path in ("a_folder", "tiny_study.py") or path.startswith("missing_") else path
    err = refused(capsys, where, "--set", f"mesh_file={full}")
    assert "mesh file" in err or "build() parameter mesh_file = " in err, err


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_compare_tolerance_must_be_a_finite_percentage(capsys, tmp_path, value):
    """An infinite tolerance would pass every comparison: refused like a NaN or a negative one."""
    assert main(["compare", str(tmp_path), str(tmp_path), "--tolerance", value]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"structcheck: error: --tolerance = {float(value)!r}: give a finite number >= 0 (percent of the " \
                  f"baseline)", err


@pytest.mark.parametrize("field, value, message", [
    ("t_end", float("nan"), r"^t_end = nan: give a finite number > 0 \(s\)$"),
    ("n_frames", 1, r"^n_frames = 1: give a whole number >= 2$"),
    ("damping_ratio", "0.02", r"^damping_ratio = '0.02': give a finite number >= 0, not str$"),
    ("max_step_s", float("inf"), r"^max_step_s = inf: give a finite number > 0 \(s\)$"),
    ("quasi_static", "yes", r"^quasi_static = 'yes': give True or False$"),
    ("gravity", (0, 0, float("nan")), r"^gravity = \(0, 0, nan\): give 3 finite numbers \(m/s\^2\)$"),
    ("arm.joint_stiffness", {"joint1": (1e4, float("inf"))},
     r"^arm.joint_stiffness\['joint1'\] = inf: give a finite number"),
    ("arm.max_joint_change", 0, r"^arm.max_joint_change = 0.0: give a finite number > 0 \(rad or m\)$"),
    ("flexibility", "beam", r"^flexibility = 'beam': choose one of \['arm', 'link'\]$"),
    ("motion", {"joint1": float("nan")}, r"^motion of joint 'joint1' = nan: give a finite number \(rad or m\)$"),
    ("motion", {"joint1": "STEP(time,0,0,1"}, r"^motion of joint 'joint1': expected '\)', found end of text"),
    ("payloads", ("tip", 2.0), r"^payloads = \('tip', 2.0\): give a tuple of Payload\(...\)$"),
    ("name", "", r"^Study name = '': give a non-empty text"),
    ("fatigue.surface_factor", float("nan"), r"^fatigue.surface_factor = nan: give a finite number > 0$"),
    ("fatigue.cycles_per_hour", float("inf"),
     r"^fatigue.cycles_per_hour = inf: give a finite number > 0 \(duty cycles an hour\)$"),
    ("fatigue.design_life_hours", -1, r"^fatigue.design_life_hours = -1.0: give a finite number > 0 \(h\)$"),
    ("fatigue.method", "findley", r"^fatigue.method = 'findley': choose one of"),
    ("fatigue.life", 1, r"^--set fatigue.life: Fatigue has no field 'life'; fields: \['cycles_per_hour', "),
    ("duty.hours", 1, r"^--set duty.hours: Study has no part 'duty'; parts: \['arm', 'fatigue', 'metadata'\] \(and study.<field>"),
    ("study.n_frame", 5, r"^--set study.n_frame: Study has no field 'n_frame'; fields: "),
])
def test_study_fields_are_checked_where_they_enter(field, value, message):
    """Each field (and part.field, as --set names them) is checked by the Study or the part that holds it."""
    from helpers import SMALL_STUDY

    from structcheck.settings import with_overrides

    namespace = {}
    exec(SMALL_STUDY, namespace)
    with pytest.raises(InputError, match=message):
        with_overrides(namespace["study"], {field: value})


def test_masses_mesh_sizes_and_times_are_checked_where_they_enter():
    import numpy as np

    from structcheck.flex.assembly import AttachedMass
    from structcheck.geometry import PartBuilder
    from structcheck.model.robot import Joint, Link, PointMass, Robot
    from structcheck.motion import time_grid

    with pytest.raises(InputError, match=r"^link 'arm': mass = nan: give a finite number >= 0 \(kg\)$"):
        Link("arm", float("nan"))
    with pytest.raises(InputError, match=r"^link 'arm': inertia = .*: give 3 x 3 finite numbers \(kg m\^2\)$"):
        Link("arm", 1.0, inertia=np.full((3, 3), np.inf))
    with pytest.raises(InputError, match=r"^point mass 'motor': mass = -1.0: give a finite number >= 0 \(kg\)$"):
        PointMass("motor", -1.0, (0, 0, 0))
    with pytest.raises(InputError, match=r"^joint 'j': home = nan"):
        Robot([Link("a"), Link("b")], [Joint("j", "revolute", "a", "b", home=float("nan"))])
    with pytest.raises(InputError, match=r"^attached mass on 'l' surface 's': mass = inf"):
        AttachedMass("l", "s", float("inf"))
    with pytest.raises(InputError, match=r"^part 'p': mesh_size = nan: give a finite number > 0 \(m\)$"):
        PartBuilder("p", float("nan"))
    with pytest.raises(InputError, match=r"^t_end = inf: give a finite number > 0 \(s\)$"):
        time_grid([], float("inf"))


def test_build_params_follow_the_defaults_types():
    """--set text is read as the type of build()'s default: numbers, whole numbers, true/false, text."""
    from structcheck.script import build_params

    def build(flag=True, n=3, x_mm=1.0, folder="", free=None):
        pass

    got = build_params(build, {"flag": "False", "n": 4.0, "x_mm": "2.5", "folder": 5, "free": "abc"}, "s.py")
    assert got == {"flag": False, "n": 4, "x_mm": 2.5, "folder": "5", "free": "abc"}
    assert type(got["n"]) is int
    for params, message in (({"flag": "yes"}, "flag = 'yes': give true or false; build()'s default is True"),
                            ({"n": 2.5}, "n = 2.5: give a whole number; build()'s default is 3"),
                            ({"x_mm": [1]}, "x_mm = [1]: give a finite number (mm), not list"),
                            ({"folder": None}, "folder = None: give text; build()'s default is ''"),
                            ({"free": float("inf")}, "free = inf: give a finite number; build()'s default is None"),
                            ({"nope": 1}, "build() has no parameter nope; its parameters are flag, n, x_mm, folder")):
        with pytest.raises(InputError) as err:
            build_params(build, params, "s.py")
        assert str(err.value).startswith("study script 's.py': ") and message in str(err.value), str(err.value)


def test_finite_inputs_that_overflow_are_refused_before_writing(capsys, where):
    """A force of 1e306 N is finite, but the beam's stresses overflow: exit 2 naming the link, not a traceback
    from printing NaN nor a results folder of NaN (this one runs the FE model: about 2 s)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow warnings on the way
        err = refused(capsys, where, "--set", "tip_force_n=1e306")
    assert "the stresses of link 'beam' are not finite (NaN or inf)" in err, err


def test_motion_profiles_and_joint_limits_refuse_nan_naming_the_input():
    import numpy as np

    from structcheck.model.robot import Joint, Link, Robot
    from structcheck.motion import BSpline, Quintic, Trapezoidal

    with pytest.raises(InputError, match=r"^Quintic q1 = nan: give a finite number$"):
        Quintic(0.0, 1.0, 0.0, float("nan"))
    with pytest.raises(InputError, match=r"^Trapezoidal v_max = inf: give a finite number$"):
        Trapezoidal(0.0, 1.0, float("inf"), 1.0)
    with pytest.raises(InputError, match=r"^BSpline times = \[0.0, 1.0, 2.0\], waypoints = \[0.0, nan, 1.0\]: give "):
        BSpline((0, 1, 2), (0, float("nan"), 1))
    links = [Link("ground"), Link("arm")]
    for lower, upper, message in [(float("nan"), 1.0, r"lower limit = nan: give a number \(rad or m\), or -inf"),
                                  (1.0, -1.0, r"lower limit 1 > upper limit -1")]:
        with pytest.raises(InputError, match=rf"^joint 'j': {message}"):
            Robot(links, [Joint("j", "revolute", "ground", "arm", np.eye(4), np.array([0, 0, 1.0]), lower, upper)])
    Robot(links, [Joint("j", "revolute", "ground", "arm", np.eye(4), np.array([0, 0, 1.0]))])  # open limits: fine


def test_set_reaches_a_field_of_a_part_of_the_study(tmp_path):
    """--set part.field sets a Study setting after build(): fatigue switched on from the command line, with its
    duty in summary.json; a bad value names the field, exit 2, before anything is written.

    The verdict: the cantilever holds its 100 N tip force at rest, 6 F L / h^3 = 30 MPa at the root (34.7 MPa at
    the clamped edge) against structural steel's 250 MPa, a safety factor of about 7 > 1.5: it passes (exit 0).
    Its stress does not change over the duty cycle (no motion, a constant force), so there is no stress range to
    count: zero damage, an infinite life; and no design life is given, so fatigue gives no verdict."""
    import json

    from helpers import write_small_study

    from structcheck.cli import main

    script, out = write_small_study(tmp_path), tmp_path / "out"
    assert main(["run", str(script), "--out", str(out), "--quiet", "--no-vtk", "--set", "fatigue.cycles_per_hour=100",
                 "--set", "fatigue.method=signed_von_mises", "--set", "study.flexibility=link"]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["fatigue"]["cycles_per_hour"] == 100 and s["fatigue"]["method"] == "signed_von_mises"
    beam = s["links"]["beam"]
    assert s["flexibility"] == "link" and s["passed"] and 1.5 < beam["min_safety_factor"] < 250 / 30
    assert beam["fatigue_infinite_life"] is True and beam["fatigue_damage_per_cycle"] == 0.0
    assert beam["min_fatigue_life_cycles"] is None and s["fatigue"]["design_life_cycles"] is None
    bad = tmp_path / "bad"
    assert main(["run", str(script), "--out", str(bad), "--set", "fatigue.design_life_hours=-3"]) == 2
    assert not bad.exists()
