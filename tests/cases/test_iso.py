"""ISO 10218-1 style stopping tables (structcheck.cases.iso, results.stopping) against closed forms.

A bar turning in a horizontal plane (I_bar about the pivot) with a point payload m_p at L = 1 m on it, motion
q = 0.4 (1 - cos(2 pi t)) over t_end = 0.5 s: the speed peaks at 0.8 pi at t = 0.25 s. At speed fraction s the
peak is w = 0.8 pi s at 0.25 / s; a category-0 stop with brake T_b after delay t_d from w covers
w t_d + (I_bar + p m_p L^2) w^2 / (2 T_b) in t_d + (I_bar + p m_p L^2) w / T_b, rising with s and with the payload
fraction p. The trigger grid (0.125 s at full speed, 0.125 / s at s: 5 triggers per cell) contains the peak instant
(its third trigger), so the table is the closed form to the integrator's error (rel 1e-8, the grid's 2 * step / s
lying within round-off of the peak).
"""
import csv

import numpy as np
import pytest

from structcheck.cases.iso import iso_table
from structcheck.cases.stop import JointStop, StopSpec
from structcheck.model.robot import Joint, Link, Robot
from structcheck.results.stopping import plot_stopping, write_stopping_csv
from structcheck.study import Payload, Study

M, LC, IC, MP, TB, TD = 2.0, 0.5, 0.01, 1.5, 4.0, 0.02
I_BAR = IC + M * LC ** 2


def study():
    robot = Robot([Link("ground"), Link("bar", M, (LC, 0, 0), np.diag([IC, IC, IC]))],
                  [Joint("j", "revolute", "ground", "bar", np.eye(4), np.array((0.0, 0.0, 1.0)))],
                  points={"tool": ("bar", (1.0, 0.0, 0.0))})
    return Study("iso", robot, {"j": "0.4*(1-COS(2*PI*time))"}, {}, t_end=0.5, inertia_from_meshes=False,
                 payloads=(Payload("tool", MP),))


@pytest.fixture(scope="module")
def table():
    return iso_table(study(), StopSpec(0, {"j": JointStop(TB, delay=TD)}), step=0.125)


def test_iso_table_is_the_closed_form_and_monotone(table):
    s = np.asarray(table.speed)[:, None]
    p = np.asarray(table.payload)[None, :]
    w = 0.8 * np.pi * s
    inertia = I_BAR + p * MP
    assert np.allclose(table.stop_distance[..., 0], w * TD + inertia * w ** 2 / (2 * TB), rtol=1e-8)
    assert np.allclose(table.stop_time[..., 0], TD + inertia * w / TB, rtol=1e-8)
    assert np.allclose(table.worst_trigger_distance[..., 0], 0.25 / s, rtol=1e-8)
    for q in (table.stop_time[..., 0], table.stop_distance[..., 0]):
        assert np.all(np.diff(q, axis=0) > 0) and np.all(np.diff(q, axis=1) > 0)


def test_csv_and_png_written(table, tmp_path):
    rows = list(csv.DictReader(write_stopping_csv(table, tmp_path / "stopping.csv").open()))
    assert len(rows) == 9
    full = next(r for r in rows if r["speed_percent"] == "100" and r["payload_percent"] == "100")
    assert float(full["stop_distance_deg"]) == pytest.approx(np.degrees(table.stop_distance[-1, -1, 0]), rel=1e-5)
    png = plot_stopping(table, tmp_path / "stopping.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
