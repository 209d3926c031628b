"""A run's warnings: short on the console, whole in summary.json.

Every warning is a :class:`Note`: ``text`` says what and where in one console line (at most ``MAX_CONSOLE``
characters), ``advice`` says what to do and is shared by the notes of one kind (the console prints each advice once,
after the notes), ``detail`` explains more. ``str(note)`` is the whole warning, as summary.json keeps it."""
from __future__ import annotations

from dataclasses import dataclass

MAX_CONSOLE = 200  # characters of a console line, PREFIX included
PREFIX = "warning: "


@dataclass(frozen=True)
class Note:
    """One warning: ``text`` (one line, at most ``MAX_CONSOLE`` characters with its "warning: "), ``advice`` (what
    to do; the same string for notes of one kind), ``detail`` (further explanation, summary.json only) and
    ``subject`` (the link it is about, if any: the console gives a link one line)."""

    text: str
    advice: str = ""
    detail: str = ""
    subject: str = ""

    def __str__(self) -> str:
        return ". ".join(s for s in (self.text, self.detail, self.advice) if s)


def console_lines(notes, where: str = "summary.json") -> list[str]:
    """The console's warning lines for ``notes`` (Note or plain str): one ``warning:`` line per note (the notes of
    one link joined into one line), each advice once (``  -> ...``), and one line pointing to ``where`` for the
    whole text when anything was shortened. No line is longer than ``MAX_CONSOLE``."""
    notes = [n if isinstance(n, Note) else Note(str(n)) for n in notes]
    texts: dict = {}
    for k, n in enumerate(notes):
        texts.setdefault(n.subject or k, []).append(n.text)
    lines = [_fit(PREFIX + "; ".join(t)) for t in texts.values()]
    advice = list(dict.fromkeys(n.advice for n in notes if n.advice))
    lines += [_fit(f"  -> {a}") for a in advice]
    if any(n.detail or len(PREFIX + n.text) > MAX_CONSOLE for n in notes) or any(len(t) > 1 for t in texts.values()):
        lines.append(f"  (the whole warnings: 'warnings' in {where})")
    return lines


def _fit(line: str) -> str:
    return line if len(line) <= MAX_CONSOLE else line[:MAX_CONSOLE - 3].rstrip() + "..."
