"""Warnings that help: on the console at most one line per link of at most 200 characters, each piece of shared
advice once and one line pointing to summary.json, which keeps every warning whole."""
from __future__ import annotations

from structcheck.notes import MAX_CONSOLE, Note, console_lines

ADVICE = "where a peak may not be converged: refine there and compare"


def test_one_line_per_link_advice_once_and_a_pointer():
    notes = [Note(f"link 'l{i}': its peak is {10 + i}% above the nodal average", advice=ADVICE, subject=f"l{i}",
                  detail="the elements disagree there") for i in range(7)]
    notes += [Note("link 'l3': its FE loads do not balance", subject="l3", advice="use inertia_from_meshes=True"),
              "a plain warning " + "x" * 300]
    lines = console_lines(notes, "out/summary.json")
    assert all(len(line) <= MAX_CONSOLE for line in lines)
    warning_lines = [line for line in lines if line.startswith("warning: ")]
    assert len(warning_lines) == 8  # seven links (l3's two notes on one line) and the plain warning
    assert [line for line in warning_lines if "'l3'" in line] == [
        "warning: link 'l3': its peak is 13% above the nodal average; link 'l3': its FE loads do not balance"]
    assert warning_lines[-1].endswith("...")
    assert lines.count(f"  -> {ADVICE}") == 1 and lines.count("  -> use inertia_from_meshes=True") == 1
    assert lines[-1] == "  (the whole warnings: 'warnings' in out/summary.json)"


def test_the_whole_text_keeps_every_part():
    n = Note("what and where", advice="what to do", detail="why")
    assert str(n) == "what and where. why. what to do"
    assert console_lines([Note("short")]) == ["warning: short"]
