"""`structcheck worst-pose`: exit status by the verdict at the worst pose, one line for bad input, its files."""
import json

import pytest

from helpers import SMALL_H, SMALL_L, write_small_study
from structcheck.cli import main

G = 9.81


def test_worst_pose_command(tmp_path, capsys):
    script = write_small_study(tmp_path)
    out = tmp_path / "wp"
    args = ["worst-pose", str(script), "--points", "7", "--set", "gravity_z=-9.81", "--set", "payload_kg=2.0",
            "--out", str(out), "--quiet"]
    assert main(args) == 0
    s = json.loads((out / "worst_pose.json").read_text())
    # one joint about y, a 2 kg payload at the tip of a steel bar: the worst holding torque is horizontal
    rho = 7850.0  # structural_steel [kg/m^3] (structcheck.model.materials)
    m_bar = rho * SMALL_L * SMALL_H ** 2
    tau = (2.0 * SMALL_L + m_bar * SMALL_L / 2) * G
    w = s["holding_torques"]["joint1"]
    assert abs(w["value_n_m"]) == pytest.approx(tau, rel=1e-9)
    assert abs(w["pose"]["joint1"]) < 1e-6
    assert s["governing_link"] == "beam" and (out / "check" / "summary.json").is_file()
    # the same pose against an impossible safety factor: the check fails
    assert main(args + ["--set", "required_safety_factor=1e6", "--no-check"]) == 0
    assert main(args + ["--set", "required_safety_factor=1e6"]) == 1
    capsys.readouterr()
    assert main(args + ["--range", "joint1=-5,0"]) == 2
    err = capsys.readouterr().err
    assert "leaves its limits" in err and len(err.strip().splitlines()) == 1
    assert main(args + ["--range", "joint1=a"]) == 2
