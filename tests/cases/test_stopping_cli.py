"""``structcheck stopping``: exit codes, the files written, and the table's numbers against the closed form of a
bar braked in a horizontal plane (see test_iso.py: peak speed 0.8 pi s at 0.25 / s, distance w t_d + I w^2 / 2 T_b;
a trigger grid of 0.125 s contains the peak, as the default t_end / 50 = 0.01 s does: the table is the closed form
on either grid, and the coarser one runs 5 stops per cell instead of 51)."""
import csv
import textwrap

import numpy as np
import pytest

from structcheck.cli import main

SCRIPT = textwrap.dedent("""
    import numpy as np
    from structcheck.model.robot import Joint, Link, Robot
    from structcheck.study import Study

    robot = Robot([Link("ground"), Link("bar", 2.0, (0.5, 0, 0), np.diag([0.01, 0.01, 0.01]))],
                  [Joint("j", "revolute", "ground", "bar", np.eye(4), np.array((0.0, 0.0, 1.0)))])
    study = Study("bar", robot, {"j": "0.4*(1-COS(2*PI*time))"}, {}, t_end=0.5, inertia_from_meshes=False)
""")


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "bar.py"
    path.write_text(SCRIPT)
    return path


def test_stopping_writes_csv_and_png(script, tmp_path, capsys):
    out = tmp_path / "stops"
    assert main(["stopping", str(script), "--brake", "4", "--delay", "j=0.02", "--trigger-step", "0.125", "--out",
                 str(out)]) == 0
    rows = list(csv.DictReader((out / "stopping.csv").open()))
    full = next(r for r in rows if r["speed_percent"] == "100" and r["payload_percent"] == "100")
    w, inertia = 0.8 * np.pi, 0.01 + 2.0 * 0.25
    assert float(full["stop_distance_deg"]) == pytest.approx(np.degrees(w * 0.02 + inertia * w ** 2 / 8), rel=1e-5)
    assert float(full["worst_trigger_distance_s"]) == pytest.approx(0.25, abs=1e-9)
    assert (out / "stopping.png").read_bytes()[:4] == b"\x89PNG"
    assert "stop category 0, triggers every 0.125 s" in capsys.readouterr().out


def test_default_trigger_grid_is_t_end_over_50(script, tmp_path, capsys, monkeypatch):
    """Without --trigger-step the triggers come every t_end / 50 = 0.01 s at full speed (the grid is handed to
    iso_table, here a stand-in that records it; the table's numbers: the test above)."""
    import structcheck.cases.iso as iso

    real, steps = iso.iso_table, []

    def one_cell(study, spec, step, **kwargs):
        steps.append(step)
        return real(study, spec, 0.125, speeds=(1.0,), payloads=(1.0,), **kwargs)

    monkeypatch.setattr(iso, "iso_table", one_cell)
    assert main(["stopping", str(script), "--brake", "4", "--out", str(tmp_path / "o")]) == 0
    assert steps == [pytest.approx(0.01, rel=1e-12)]
    assert "triggers every 0.01 s" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    ([], "no stop data"),
    (["--brake", "k=4"], "unknown joint 'k'"),
    (["--brake", "four"], "give a number"),
    (["--brake", "4", "--trigger-step", "0"], "--trigger-step"),
    (["--torque-limit", "5", "--category", "1", "--brake", "-1"], "brake"),
])
def test_bad_input_exits_2_with_one_line(script, tmp_path, capsys, argv, message):
    assert main(["stopping", str(script), "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
