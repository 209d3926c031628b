"""Every command and Python block of README.md runs as written: the two first commands are the ones CI and the
headline run use, and the rest run here, in order, in an empty folder holding only the repository's studies (the
first study, the results loaded in Python, the command line). A README edit that breaks a command fails here."""
from __future__ import annotations

import re
import runpy
import shlex
import shutil
from pathlib import Path

import pytest

from structcheck.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(bash|python)\n(.*?)```", README, re.S)
HEADLINE = "pip install -e . && python studies/loading_unloading_6dof.py --out results/loading_unloading_6dof"
# the commands whose exit status is not 0: the thinner wall regresses against the baseline
EXPECTED_EXIT = {"compare": 1}


def commands(block: str) -> list[list[str]]:
    """The commands of a bash block, each as its words (comments dropped)."""
    return [words for line in block.splitlines() if (words := shlex.split(line, comments=True))]


def test_the_first_two_commands_are_the_headline_run_and_ci_test_command():
    assert README.index("```bash") < README.index("## "), "the two commands come first"
    (k1, install_run), (k2, install_test) = BLOCKS[:2]
    assert (k1, install_run.strip()) == ("bash", HEADLINE)
    ci = (ROOT / ".ci" / "run").read_text()
    assert k2 == "bash" and install_test.strip() in ci.splitlines()


def test_ci_runs_the_slow_tests_and_needs_every_required_tool():
    """.ci/run: CI=true (a missing required tool fails the tests: conftest.require), chromium installed with the
    other required packages where a failure stops the run (no `|| true`) and checked, and after the README's
    command a second stage of the slow tests."""
    lines = [x.strip() for x in (ROOT / ".ci" / "run").read_text().splitlines()]
    readme = lines.index(BLOCKS[1][1].strip())
    slow = next(k for k, x in enumerate(lines) if x.startswith("python -m pytest -q -m slow "))
    assert "export CI=true" in lines[:readme] and slow > readme
    install = next(k for k, x in enumerate(lines) if x.startswith("apt-get install") and "libgl1" in x)
    assert lines[install + 1].startswith("chromium") and "||" not in lines[install] + lines[install + 1]
    assert "if ! command -v chromium >/dev/null 2>&1; then" in lines[:readme]


def test_the_headline_command_is_the_study_run_the_suite_checks(paper004_run):
    """The first command runs the study script, whose main() runs ``study`` into --out: the run that
    tests/study/test_readme_numbers.py holds the README's numbers against."""
    script = (ROOT / "studies" / "loading_unloading_6dof.py").read_text()
    assert "main_for_study(build)" in script and "lazy_study(build)" in script
    assert paper004_run.summary["study"] == "loading_unloading_6dof"


# slow: three study runs end to end (the thinner wall, its rerun, the first study's; 105 s of the default suite's
# 2,008 test-seconds on the loaded machine, its longest test), which the README's commands fix: CI's slow stage runs it
@pytest.mark.slow
@pytest.mark.xdist_group("template")  # on the worker that has made the template run
def test_every_later_block_runs_in_order(template_run, tmp_path, monkeypatch, capsys):
    """The first study's block is what the shared template run did (conftest.TEMPLATE_COMMANDS): the later blocks go
    on from a copy of its folder."""
    from conftest import TEMPLATE_COMMANDS

    (kind, first), *later = BLOCKS[2:]
    assert kind == "bash" and commands(first) == TEMPLATE_COMMANDS
    folder = tmp_path / "work"
    shutil.copytree(template_run, folder)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("STRUCTCHECK_CACHE", str(tmp_path / "cache"))
    (folder / "studies").symlink_to(ROOT / "studies")
    ran = 2
    for kind, block in later:
        if kind == "python":
            path = folder / f"block{ran}.py"
            path.write_text(block)
            runpy.run_path(str(path), run_name="__main__")
            ran += 1
            continue
        for words in commands(block):
            if words[0] == "cp":
                shutil.copy(words[1], words[2])
            else:
                assert words[0] == "structcheck", f"README command the test cannot run: {words}"
                assert main(words[1:]) == EXPECTED_EXIT.get(words[1], 0), words
            ran += 1
    out = capsys.readouterr().out
    assert ran >= 8 and "REGRESSED" in out and "MPa" in out
    assert (folder / "results" / "thin" / "summary.json").is_file()


LINKS = re.findall(r"\]\(([^)#]+)\)", README)


@pytest.mark.parametrize("link", [x for x in LINKS if not x.startswith("http")])  # web links: the tests run offline
def test_every_link_of_the_readme_exists(link):
    assert (ROOT / link).exists(), link

