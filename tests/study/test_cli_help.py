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
