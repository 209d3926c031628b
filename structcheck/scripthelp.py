"""A study script's parameters without running it: its ``build()`` signature and docstrings read from the source
(Python's ``ast``; nothing of the script is executed), so ``structcheck run STUDY --help`` answers at once even
for a study that builds its meshes at import."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError


@dataclass(frozen=True)
class Parameter:
    """A ``build()`` parameter: ``name``, its ``default`` as written in the script, and the default's ``type`` name
    (``--set`` reads a value as that type)."""

    name: str
    default: str
    type: str


def script_parameters(path: str | Path) -> tuple[str, str, list[Parameter]]:
    """(the script's docstring, build()'s docstring, build()'s parameters) of the study script ``path``; no build()
    gives no parameters. InputError when the file is missing or is not Python."""
    path = Path(path)
    try:
        tree = ast.parse(path.read_text(), filename=str(path))
    except FileNotFoundError:
        raise InputError(f"study script {str(path)!r} does not exist") from None
    except (SyntaxError, UnicodeDecodeError, IsADirectoryError) as exc:
        raise InputError(f"{path} is not a Python study script ({type(exc).__name__}); give the study's .py "
                         f"file") from None
    build = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "build"), None)
    params = []
    if build is not None:
        a = build.args
        positional = a.posonlyargs + a.args
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        for arg, d in [*zip(positional, defaults), *zip(a.kwonlyargs, a.kw_defaults)]:
            params.append(Parameter(arg.arg, "(required)" if d is None else ast.unparse(d), _type_name(d)))
    return ast.get_docstring(tree) or "", (ast.get_docstring(build) or "") if build else "", params


def _type_name(node) -> str:
    if node is None:
        return "-"
    try:
        return type(ast.literal_eval(node)).__name__
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return "expression"


def parameters_help(path: str | Path) -> str:
    """The text that ``--help`` adds for a study script: its description and its parameters with defaults and
    types."""
    doc, build_doc, params = script_parameters(path)
    doc, build_doc = doc.replace("``", ""), build_doc.replace("``", "")
    lines = [f"study {Path(path).name}:"]
    if doc:
        lines.append("  " + doc.split("\n\n")[0].replace("\n", "\n  "))
    if not params:
        lines.append("  no build() parameters (the script defines `study = Study(...)`)")
        return "\n".join(lines)
    if build_doc:
        lines.append("  build(): " + build_doc.split("\n\n")[0].replace("\n", " "))
    lines.append("  parameters (--set NAME=VALUE):")
    width = max(len(p.name) for p in params)
    lines += [f"    {p.name:<{width}}  default {p.default}  ({p.type})" for p in params]
    return "\n".join(lines)
