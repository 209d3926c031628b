"""docs/drivetrain.md's TOML and Python blocks run as written."""
import re
from pathlib import Path

import numpy as np

from structcheck.drives import load_catalogue

DOC = (Path(__file__).resolve().parents[2] / "docs" / "drivetrain.md").read_text()
TOML, = re.findall(r"```toml\n(.*?)```", DOC, re.S)
PYTHON = re.findall(r"```python\n(.*?)```", DOC, re.S)


def test_the_documented_catalogue_file_loads(tmp_path):
    f = tmp_path / "my_drives.toml"
    f.write_text(TOML)
    cat = load_catalogue(f)
    assert set(cat.reducers) >= {"My-RV", "RV-80E"} and cat.get("bearing", "My-CRB").load_factor == 1.2
    assert cat.bearing_of(cat.get("reducer", "My-RV")).name == "CHA-40A"


def test_the_documented_python_runs(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_drives.toml").write_text(TOML)
    monkeypatch.chdir(tmp_path)
    t = np.linspace(0.0, 2.0, 201)
    qd = np.sin(np.pi * t)
    namespace = dict(t=t, qd=qd, qdd=np.pi * np.cos(np.pi * t), tau=300 + 100 * qd,
                     F=np.tile([2000.0, 0.0, 500.0], (201, 1)), M=np.tile([50.0, 0.0, 0.0], (201, 1)))
    for block in PYTHON:
        exec(compile(block, "docs/drivetrain.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "reducer average torque (reducer My-RV)" in out and "motor RMS torque" in out
    assert set(namespace["k"]) == {"joint2", "joint5"}
