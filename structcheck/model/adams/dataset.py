"""ADAMS/Solver dataset (.adm) text into statements: the title line, ``!`` comments (Adams View's
``adams_view_name='...'`` comment names the statement after it), continuation lines (a line whose first non-blank
character is ``,``), ``NAME/id, KEY=v1,v2, FLAG, ...`` arguments, expression arguments (FUNCTION=, FX= ...: the text
up to a ``\\`` or the end of the statement), and ADAMS's abbreviations (a keyword may be shortened to any prefix
that no other keyword of its statement shares). Every statement keeps its line number for error messages.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import InputError

#: statement -> (keywords taking values, flags); expression keywords take the text up to '\' or the end
KEYWORDS = {
    "PART": ("MASS CM IM IP QG REULER ZG XG VX VY VZ WX WY WZ VM WM EXACT", "GROUND"),
    "MARKER": ("PART QP REULER ZP XP", "FLOATING"),
    "JOINT": ("I J IC ICTRAN ICROT", "REVOLUTE TRANSLATIONAL FIXED SPHERICAL CYLINDRICAL UNIVERSAL HOOKE PLANAR "
                                     "RACKPIN SCREW CONVEL"),
    "MOTION": ("JOINT I J FUNCTION ICDISP ICVEL", "ROTATION TRANSLATION DISPLACEMENT VELOCITY ACCELERATION "
                                                  "B1 B2 B3 X Y Z"),
    "SFORCE": ("I J FUNCTION", "TRANSLATION ROTATION ACTIONONLY"),
    "VFORCE": ("I JFLOAT RM FX FY FZ FUNCTION", ""),
    "GFORCE": ("I JFLOAT RM FX FY FZ TX TY TZ FUNCTION", ""),
    "SPRINGDAMPER": ("I J KT CT ANGLE TORQUE K C LENGTH FORCE", "ROTATION TRANSLATION"),
    "BUSHING": ("I J K C KT CT FORCE TORQUE", ""),
    "ACCGRAV": ("IGRAV JGRAV KGRAV", ""),
    "SPLINE": ("X Y Z FILE", "LINEAR_EXTRAPOLATE"),
    "VARIABLE": ("FUNCTION IC", ""),
    "UNITS": ("FORCE MASS LENGTH TIME SYSTEM UCF", ""),
    "REQUEST": ("", ""), "OUTPUT": ("", ""), "GRAPHICS": ("", ""), "RESULTS": ("", ""), "END": ("", ""),
}
SKIPPED = ("REQUEST", "OUTPUT", "GRAPHICS", "RESULTS")
EXPRESSIONS = {"FUNCTION", "FX", "FY", "FZ", "TX", "TY", "TZ"}
#: ADAMS statements this reader refuses (named so that an abbreviation of one is not taken for another)
REFUSED = ("ADAMS", "ARRAY", "BEAM", "CONTACT", "COUPLER", "CURVE", "CVCV", "DEBUG", "DIFF", "EQUILIBRIUM", "FEMDATA",
           "FIELD", "FLEX_BODY", "FRICTION", "GEAR", "GSE", "IC", "INTEGRATOR", "JPRIM", "KINEMATICS", "LSE", "MATRIX",
           "MREQUEST", "NFORCE", "PINPUT", "POINT_MASS", "POUTPUT", "PTCV", "SENSOR", "STRING", "SURFACE", "TFSISO",
           "UCON", "VTORQUE", "PREFERENCES", "LIST", "NOLIST", "CLEARANCE")


@dataclass
class Statement:
    """One statement: ``kind`` (full name, upper case), ``id`` (None for UNITS, ACCGRAV, ...), ``args`` (keyword ->
    list of value texts; an expression keyword -> [its text]), ``flags`` (set of full flag names), ``line`` (its
    first line, 1-based), ``text`` (as written, continuation lines joined) and ``name`` (Adams View's name)."""

    kind: str
    id: int | None
    args: dict = field(default_factory=dict)
    flags: set = field(default_factory=set)
    line: int = 0
    text: str = ""
    name: str | None = None

    def where(self, path) -> str:
        """'FILE line N (TEXT)' for messages."""
        short = self.text if len(self.text) <= 70 else self.text[:67] + "..."
        return f"{path} line {self.line} ({short.strip()})"


_VIEW_NAME = re.compile(r"adams_view_name\s*=\s*'([^']*)'", re.I)


def read_statements(path) -> tuple[list[Statement], str]:
    """The statements of the .adm file at ``path`` and its title (its first line); InputError naming the file
    and line for anything unreadable."""
    path = Path(path)
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read ADAMS dataset {str(path)!r}: {exc}") from None
    if not lines:
        raise InputError(f"{path}: empty file; an ADAMS dataset starts with a title line")
    raw, name = [], None   # (first line, text, view name)
    for k, line in enumerate(lines[1:], start=2):
        body, _, comment = line.partition("!")
        m = _VIEW_NAME.search(comment)
        if m:
            name = m.group(1)
        if not body.strip():
            continue
        if body.lstrip().startswith(","):
            if not raw:
                raise InputError(f"{path} line {k}: a continuation line (starting with ',') with no statement before")
            raw[-1][1] += _continued(raw[-1][1], body)
            continue
        raw.append([k, body, name])
        name = None
    out = []
    for k, text, name in raw:  # nothing after END is read
        out.append(_statement(path, k, text, name))
        if out[-1].kind == "END":
            break
    return out, lines[0].strip()


def _continued(text: str, line: str) -> str:
    """A continuation ``line`` (starting with ',') joined to the statement ``text``: an expression broken after an
    operator or inside parentheses (``FUNCTION = STEP(...) +`` then ``, STEP(...)``) continues without the comma."""
    tail = text.rstrip()
    if tail.count("(") > tail.count(")") or tail.endswith(("+", "-", "*", "/", "(", "=")):
        return " " + line.lstrip()[1:]
    return line


def match(word: str, choices, what: str, where: str) -> str:
    """The full name among ``choices`` that ``word`` abbreviates (exact match first); InputError otherwise."""
    w = word.strip().upper()
    if w in choices:
        return w
    found = [c for c in choices if c.startswith(w)] if w else []
    if len(found) == 1:
        return found[0]
    if found:
        raise InputError(f"{where}: {what} {word.strip()!r} is ambiguous ({', '.join(found)}); write more letters")
    raise InputError(f"{where}: unknown {what} {word.strip()!r}; this reader knows {', '.join(sorted(choices))}")


def _split(text: str) -> list[tuple[int, str]]:
    """``text`` split at top-level commas (outside parentheses): (start, piece) pairs."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append((start, text[start:i]))
            start = i + 1
    out.append((start, text[start:]))
    return out


def _statement(path, line: int, text: str, view_name) -> Statement:
    """A Statement from its joined text."""
    where = f"{path} line {line} ({text.strip()[:70]})"
    head, slash, body = text.partition("/")
    kind = match(head, tuple(KEYWORDS) + REFUSED, "statement", where)
    if kind in REFUSED:
        raise InputError(f"{where}: {kind} statements are not read by structcheck; remove it or model its effect "
                         f"with the statements docs/from_adams.md lists")
    st = Statement(kind, None, line=line, text=text, name=view_name)
    if kind in SKIPPED or kind == "END":
        return st
    values, flags = (KEYWORDS[kind][0].split(), KEYWORDS[kind][1].split())
    pieces, key, k = _split(body), None, 0
    if pieces and pieces[0][1].strip().lstrip("-").isdigit():
        st.id = int(pieces[0][1])
        k = 1
    while k < len(pieces):
        start, piece = pieces[k]
        word, eq, value = piece.partition("=")
        if eq:
            key = match(word, values + flags, "keyword", where)
            if key in flags:
                raise InputError(f"{where}: {key} takes no value")
            if key in EXPRESSIONS:  # the text to the next top-level '\\' or the end of the statement
                expr, bs, body = body[start + len(word) + 1:].partition("\\")
                st.args[key] = [expr.strip()]
                pieces, k, key = (_split(body) if bs else []), 0, None
                continue
            st.args[key] = [value.strip()]
        elif piece.strip() and key is not None and not piece.strip()[0].isalpha():
            st.args[key].append(piece.strip())
        elif piece.strip():
            st.flags.add(match(piece, flags or ["(none)"], "flag", where))
            key = None
        k += 1
    return st
