"""A part held during part of the motion, carried by the stops triggered then (structcheck.cases.held,
``StopSpec.held``), against closed forms.

A bar turning about a vertical axis (gravity along the axis: no gravity torque; I_BAR about the pivot) carries a
part at radius R: in the study a point force straight down at the tip (no moment about the axis), in the stop a
rigid part of mass MP at the tip held from 0.1 to 0.4 s. Motion q = 0.4 (1 - cos(2 pi t)): speed
w0 = 0.8 pi sin(2 pi t0). A category-0 stop (brake T_b after t_d) stops in t_d + I w0 / T_b through
w0 t_d + I w0^2 / (2 T_b), with I = I_BAR + MP R^2 + I_zz (the part's own inertia about its centre) while the part
is held and I = I_BAR outside the window. A solid block of mass m and edges a, b (x, y) gripped at two points
+-d along x about its centre at R adds m R^2 + m (a^2 + b^2) / 12 (textbook block about its centre, parallel
axis). Error budget: DOP853 with TIGHT tolerances integrates the quadratics exactly, events to round-off
(tests/cases/test_stop.py): 1e-9 relative.
"""
import numpy as np
import pytest

from structcheck.cases.case import Case, case_study
from structcheck.cases.held import HeldPart, block_payloads
from structcheck.cases.iso import iso_table
from structcheck.cases.stop import JointStop, StopSpec, stop_from, sweep_triggers
from structcheck.cases.stopcase import stop_case
from structcheck.errors import InputError
from structcheck.model.robot import Joint, Link, Robot
from structcheck.rigid.simulate import Tolerance
from structcheck.study import Payload, PointForce, Study, prepare

TIGHT = Tolerance(rtol=1e-10, atol=1e-12)
M, LC, IC = 2.0, 0.5, 0.01
I_BAR = IC + M * LC ** 2
R, MP, IZZ = 0.8, 1.5, 0.02  # part radius [m], mass [kg], own inertia about the vertical [kg m^2]
TB, TD = 4.0, 0.02
START, END = 0.1, 0.4


def study(**kw):
    robot = Robot([Link("ground"), Link("bar", M, (LC, 0, 0), np.diag([IC, IC, IC]))],
                  [Joint("j", "revolute", "ground", "bar", np.eye(4), np.array((0.0, 0.0, 1.0)))],
                  points={"tip": ("bar", (R, 0.0, 0.0)), "mid": ("bar", (0.4, 0.0, 0.0)),
                          "a": ("bar", (R + 0.05, 0.0, 0.0)), "b": ("bar", (R - 0.05, 0.0, 0.0))})
    forces = (PointForce("tip", MP * 9.81, (0, 0, -1)), PointForce("mid", 5.0, (0, 0, -1)))
    return Study("held", robot, {"j": "0.4*(1-COS(2*PI*time))"}, {}, t_end=0.5, inertia_from_meshes=False,
                 point_forces=forces, **kw)


def part():
    return HeldPart((Payload("tip", MP, np.diag([0.01, 0.01, IZZ])),), start=START, end=END)


def spec(held=None):
    return StopSpec(0, {"j": JointStop(TB, delay=TD)}, held=held)


def closed_form(t0, inertia):
    w0 = 0.8 * np.pi * np.sin(2 * np.pi * t0)
    return TD + inertia * w0 / TB, w0 * TD + inertia * w0 ** 2 / (2 * TB)


@pytest.mark.parametrize("t0, inertia", [(0.25, I_BAR + MP * R ** 2 + IZZ), (0.3, I_BAR + MP * R ** 2 + IZZ),
                                         (0.45, I_BAR), (0.05, I_BAR), (0.4, I_BAR)])
def test_a_stop_carries_the_part_only_while_it_is_held(t0, inertia):
    s = study()
    r = stop_from(s, prepare(s), spec(part()), t0, TIGHT)
    t_ref, a_ref = closed_form(t0, inertia)
    assert r.stop_time[0] == pytest.approx(t_ref, rel=1e-9)
    assert r.stop_distance[0] == pytest.approx(a_ref, rel=1e-9)


def test_the_trigger_sweep_sees_the_part_inside_its_window_only():
    s = study()
    sweep = sweep_triggers(s, prepare(s), spec(part()), 0.05)
    held = (sweep.triggers >= START) & (sweep.triggers < END)
    inertia = np.where(held, I_BAR + MP * R ** 2 + IZZ, I_BAR)
    t_ref, a_ref = closed_form(sweep.triggers, inertia)
    moving = np.abs(np.sin(2 * np.pi * sweep.triggers)) > 1e-9  # a trigger at rest stops at once
    assert np.allclose(sweep.stop_time[moving, 0], t_ref[moving], rtol=1e-9)
    assert np.allclose(sweep.stop_distance[moving, 0], a_ref[moving], rtol=1e-9)
    assert held.any() and (~held & moving).any()


def test_a_held_block_adds_its_textbook_inertia():
    a, b, c, m = 0.1, 0.16, 0.15, 3.0  # gripped on its faces 0.1 apart: b, c >= sqrt(2) a
    points = {"a": (R + 0.05, 0.0, 0.0), "b": (R - 0.05, 0.0, 0.0)}
    payloads = block_payloads(points, m, (a, b, c))
    assert [p.mass for p in payloads] == [m / 2, m / 2]
    s = study()
    held = HeldPart(payloads, replaces=("tip",))
    r = stop_from(s, prepare(s), spec(held), 0.25, TIGHT)
    t_ref, a_ref = closed_form(0.25, I_BAR + m * R ** 2 + m * (a ** 2 + b ** 2) / 12)
    assert r.stop_time[0] == pytest.approx(t_ref, rel=1e-9)
    assert r.stop_distance[0] == pytest.approx(a_ref, rel=1e-9)
    with pytest.raises(InputError, match="more inertia"):
        block_payloads(points, m, (a, 0.06, c))  # two point masses 0.1 apart have more I_zz than this block


def test_the_stop_case_holds_the_part_instead_of_the_forces_it_replaces():
    s = study()
    case = stop_case("estop", spec(part()), 0.25, required_safety_factor=1.0)
    stopped = case_study(study(cases=(Case("duty"), case), payload_mass_kg=MP), case)
    assert stopped.payload_mass_kg == 0.0  # the part given as a force is a mass now: not counted twice
    (held,) = stopped.payloads
    assert (held.point, held.mass) == ("tip", MP) and np.array_equal(held.inertia, part().payloads[0].inertia)
    assert [(pf.point, pf.magnitude) for pf in stopped.point_forces] == [("mid", 5.0)]  # the tip's force replaced
    assert stopped.t_end == pytest.approx(closed_form(0.25, I_BAR + MP * R ** 2 + IZZ)[0], rel=1e-3)
    outside = stop_case("late", spec(part()), 0.45)
    late = case_study(study(cases=(Case("duty"), outside), payload_mass_kg=MP), outside)
    assert late.payloads == () and late.payload_mass_kg == MP
    assert [pf.point for pf in late.point_forces] == ["tip", "mid"]
    assert late.point_forces[0].magnitude == pytest.approx(MP * 9.81)
    assert s.payloads == ()


def test_iso_table_scales_the_held_part():
    """At speed fraction s the motion's peak speed 0.8 pi s comes at 0.25 / s (a trigger of the grid), inside the
    hold window scaled with the motion's time ([0.1, 0.4) / s; unscaled, 0.5 s at s = 1/2 would lie outside it);
    the payload fraction p scales the part's mass and inertia: I = I_BAR + p (MP R^2 + I_zz)."""
    table = iso_table(study(), spec(part()), step=0.125, speeds=(0.5, 1.0), payloads=(0.5, 1.0))
    for i, s in enumerate((0.5, 1.0)):
        for k, p in enumerate((0.5, 1.0)):
            w, inertia = 0.8 * np.pi * s, I_BAR + p * (MP * R ** 2 + IZZ)
            assert table.stop_distance[i, k, 0] == pytest.approx(w * TD + inertia * w ** 2 / (2 * TB), rel=1e-8)
            assert table.worst_trigger_distance[i, k, 0] == pytest.approx(0.25 / s, rel=1e-8)


@pytest.mark.parametrize("make, match", [
    (lambda: HeldPart((Payload("nowhere", 1.0),)), "unknown point 'nowhere'"),
    (lambda: HeldPart((Payload("tip", 1.0),), replaces=("a",)), "does not have"),
    (lambda: HeldPart((Payload("tip", 0.0),)), "mass"),
    (lambda: HeldPart((Payload("tip", -2.0),)), "mass"),
    (lambda: HeldPart(()), "payloads"),
    (lambda: HeldPart((Payload("tip", 1.0),), start=0.3, end=0.2), "end"),
    (lambda: block_payloads({"a": (0, 0, 0)}, 0.0, (0.1, 0.1, 0.1)), "mass"),
])
def test_bad_held_part_is_one_line(make, match):
    s = study()
    with pytest.raises(InputError, match=match) as err:
        stop_from(s, prepare(s), spec(make()), 0.25)
    assert "\n" not in str(err.value)


CLI_SCRIPT = """
import numpy as np
from structcheck.cases.held import HeldPart
from structcheck.cases.stop import JointStop, StopSpec
from structcheck.model.robot import Joint, Link, Robot
from structcheck.study import Payload, PointForce, Study

robot = Robot([Link("ground"), Link("bar", {M}, ({LC}, 0, 0), np.diag([{IC}] * 3))],
              [Joint("j", "revolute", "ground", "bar", np.eye(4), np.array((0.0, 0.0, 1.0)))],
              points={{"tip": ("bar", ({R}, 0.0, 0.0))}})
study = Study("bar", robot, {{"j": "0.4*(1-COS(2*PI*time))"}}, {{}}, t_end=0.5, inertia_from_meshes=False,
              point_forces=(PointForce("tip", 14.7),))
stop_spec = StopSpec(0, {{"j": JointStop(1.0, delay={TD})}}, held=HeldPart((Payload({point!r}, {MP}),)))
"""


@pytest.mark.parametrize("point, code", [("tip", 0), ("nowhere", 2)])
def test_the_stopping_command_keeps_the_scripts_held_part(tmp_path, capsys, point, code):
    """``structcheck stopping`` with --brake over a script's stop_spec keeps its held part: the full-speed,
    full-payload cell is the bar's closed form with the part (peak speed 0.8 pi at 0.25 s, on the 0.125 s grid);
    a held part at an unknown point exits 2 with one line."""
    import csv

    from structcheck.cli import main

    script = tmp_path / "bar.py"
    script.write_text(CLI_SCRIPT.format(M=M, LC=LC, IC=IC, R=R, TD=TD, MP=MP, point=point))
    out = tmp_path / "o"
    assert main(["stopping", str(script), "--brake", str(TB), "--trigger-step", "0.125", "--out", str(out)]) == code
    if code:
        err = capsys.readouterr().err.strip()
        assert "unknown point 'nowhere'" in err and "\n" not in err
        return
    rows = list(csv.DictReader((out / "stopping.csv").open()))
    full = next(r for r in rows if r["speed_percent"] == "100" and r["payload_percent"] == "100")
    w, inertia = 0.8 * np.pi, I_BAR + MP * R ** 2
    assert float(full["stop_distance_deg"]) == pytest.approx(np.degrees(w * TD + inertia * w ** 2 / (2 * TB)),
                                                             rel=1e-5)
