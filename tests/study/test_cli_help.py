"""The command line talks: --version, plain-text help with examples and exit codes, and the mesh cache shown and
cleared."""
from __future__ import annotations

import pytest

import structcheck
from structcheck.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        from structcheck.cli import build_parser

        build_parser().parse_args(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"structcheck {structcheck.__version__}"
    assert main(["--version"]) == 0


def test_help_is_plain_text_with_examples_and_exit_codes(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "``" not in out and ":func:" not in out
    assert "examples:" in out and "structcheck run" in out and "exit status: 0 pass, 1" in out
    for command in ("run", "sweep", "compare", "verify", "info", "cache"):
        assert command in out


def test_cache_lists_and_clears(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STRUCTCHECK_CACHE", str(tmp_path))
    (tmp_path / "paper004-wall5mm-abc").mkdir()
    (tmp_path / "paper004-wall5mm-abc" / "base.msh").write_bytes(b"x" * 2_000_000)
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert f"mesh cache {tmp_path}: 1 entries, 2.0 MB" in out and "paper004-wall5mm-abc" in out
    assert main(["cache", "--clear"]) == 0
    assert "removed 2.0 MB" in capsys.readouterr().out and list(tmp_path.iterdir()) == []


SCRIPT = '''"""A study that must not be run to show its help: its parameters are read from the source.

More about it."""
raise RuntimeError("imported")


def build(side_mm=20.0, payload_kg=60, name="arm", flexible=True, *, mesh_dir=""):
    """The arm of ``side_mm`` [mm] square section carrying ``payload_kg`` [kg], a sentence that goes on past the
    first line of the docstring."""
'''


@pytest.mark.parametrize("command", ["run", "info"])
def test_study_help_lists_parameters_without_running_the_script(tmp_path, capsys, command):
    path = tmp_path / "arm.py"
    path.write_text(SCRIPT)
    assert main([command, str(path), "--help"]) == 0
    out = capsys.readouterr().out
    assert "A study that must not be run to show its help" in out and "More about it" not in out
    assert "build(): The arm of side_mm [mm] square section carrying payload_kg [kg], a sentence that goes on " \
           "past the first line of the docstring." in out
    for line in ("side_mm     default 20.0  (float)", "payload_kg  default 60  (int)", "name        default 'arm'  (str)",
                 "flexible    default True  (bool)", "mesh_dir    default ''  (str)"):
        assert line in out


def test_study_script_help_epilog_is_the_whole_first_paragraph(capsys):
    from structcheck.cli import main_for_study

    def build(wall_mm=3.0):
        """The arm with walls of ``wall_mm`` [mm], a sentence long enough to go on
        past its first line."""

    assert main_for_study(build, ["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "build(): The arm with walls of wall_mm [mm], a sentence long enough to go on past its first line." in out
    assert "--wall-mm WALL_MM build() parameter wall_mm (default 3.0, float)" in out


@pytest.mark.parametrize("name", ["two_link_arm", "loading_unloading_6dof", "hydraulic_arm", "mg400",
                                  "pr1300_palletizer", "cad_arm"])
def test_a_shipped_study_builds_nothing_when_imported(name, monkeypatch):
    """`python STUDY.py --help` imports the script and answers: the study is built on first use only
    (study.lazy_study), once; the template is built here to show it."""
    import importlib.util
    from pathlib import Path

    from structcheck.study import Study

    path = Path(__file__).resolve().parents[2] / "studies" / f"{name}.py"
    monkeypatch.syspath_prepend(str(path.parent))
    spec = importlib.util.spec_from_file_location(f"lazy_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert "study" not in vars(module)  # nothing built at import
    with pytest.raises(AttributeError):
        module.no_such_name
    if name == "two_link_arm":
        assert isinstance(module.study, Study) and module.study is module.study  # built once, on first use
