"""structcheck.report.commands, called directly: the ``report`` subcommand reads its folder and ``-o`` whole from
a shell command line (paths with spaces quoted as a shell quotes them), writes the page where asked and says the
run's verdict; ``compare --html`` writes the comparison page only when asked. Folders written by hand, no run."""
from __future__ import annotations

import argparse
import shlex
from types import SimpleNamespace

import pytest
from test_run_page import summary, write_folder

from structcheck.errors import InputError
from structcheck.report.commands import add_report_command, cmd_report, write_compare_html
from structcheck.results.compare import compare


def parser():
    p = argparse.ArgumentParser(prog="structcheck")
    add_report_command(p.add_subparsers(dest="command", required=True), parents=[])
    return p


def test_paths_with_spaces_survive_the_shell_quoting(tmp_path):
    results, out = tmp_path / "my results" / "run 1", tmp_path / "page's dir" / "r e.html"
    line = shlex.join(["report", str(results), "-o", str(out), "--no-renders"])
    args = parser().parse_args(shlex.split(line))
    assert (args.results, args.out, args.no_renders, args.func) == (str(results), str(out), True, cmd_report)
    args = parser().parse_args(["report", str(results)])
    assert (args.out, args.no_renders) == (None, False)


@pytest.mark.parametrize("passed", [True, False])
def test_report_writes_the_page_and_says_the_verdict(tmp_path, capsys, passed):
    folder = write_folder(tmp_path / "my results", summary(passed=passed))
    out = tmp_path / "pages here" / "again.html"
    args = parser().parse_args(shlex.split(shlex.join(["report", str(folder), "-o", str(out), "--no-renders"])))
    assert args.func(args) == 0  # writing the page succeeds whatever the design's verdict
    said = capsys.readouterr().out.strip()
    assert said == f"{summary()['study']}: {'PASSED' if passed else 'FAILED'}; report written to {out}"
    assert out.is_file() and not (folder / "report.html").exists()
    assert 'data-verdict="' + ("pass" if passed else "fail") + '"' in out.read_text()


def test_report_of_a_folder_that_is_not_a_results_folder(tmp_path):
    for folder, says in ((tmp_path / "missing", "does not exist"), (tmp_path, "no summary.json")):
        args = parser().parse_args(["report", str(folder)])
        with pytest.raises(InputError, match=says):
            args.func(args)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_compare_page_only_when_asked(tmp_path, capsys):
    a = write_folder(tmp_path / "base line", summary())
    s = summary()
    s["links"]["upper"]["max_von_mises_pa"] *= 1.5
    b = write_folder(tmp_path / "candi date", s)
    cmp = compare(str(a), str(b))
    write_compare_html(SimpleNamespace(html=None, baseline=str(a), candidate=str(b)), cmp)
    assert capsys.readouterr().out == "" and sorted(p.name for p in tmp_path.iterdir()) == ["base line", "candi date"]
    page = tmp_path / "the page.html"
    write_compare_html(SimpleNamespace(html=str(page), baseline=str(a), candidate=str(b)), cmp)
    assert capsys.readouterr().out == f"comparison page written to {page}\n"
    html = page.read_text()
    # the change: 12.345678 MPa -> 18.518517 MPa, +50 %
    assert "12.3457" in html and "18.5185" in html and "+50.00%" in html
    assert "<script>alert(1)" not in html  # the study's name stays text there too
