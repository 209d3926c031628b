"""A study script's parameters without running it: its ``build()`` signature and docstrings read from the source
(Python's ``ast``; nothing of the script is executed), so ``structcheck run STUDY --help`` answers at once even
for a study that builds its meshes at import."""
from __future__ import annotations

import argparse
import ast
import inspect
import json
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


@dataclass(frozen=True)
class BuildSignature:
    """A study script's ``build()`` as written: its ``parameters``, whether it takes ``**kwargs`` (``any_kwarg``),
    its docstring and the script's (``doc``, ``build_doc``), and each default as a Python value where it is a
    literal (``literal_defaults``: name -> value)."""

    parameters: list
    any_kwarg: bool
    doc: str
    build_doc: str
    literal_defaults: dict


def build_signature(path: str | Path) -> BuildSignature | None:
    """The top-level ``def build(...)`` of the study script ``path`` (the last one, as when the module runs), read
    from its source; None when the script defines none (it may still import one). InputError when the file is
    missing or is not Python."""
    path = Path(path)
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except FileNotFoundError:
        raise InputError(f"study script {str(path)!r} does not exist") from None
    except SyntaxError as exc:
        raise InputError(f"study script {str(path)!r} has a syntax error on line {exc.lineno}: {exc.msg}") from None
    except (ValueError, IsADirectoryError) as exc:
        raise InputError(f"{path} is not a Python study script ({type(exc).__name__}); give the study's .py "
                         f"file") from None
    build = None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "build":
            build = node
    if build is None:
        return None
    a = build.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    params, literal = [], {}
    for arg, d in [*zip(positional, defaults), *zip(a.kwonlyargs, a.kw_defaults)]:
        params.append(Parameter(arg.arg, "(required)" if d is None else ast.unparse(d), _type_name(d)))
        if d is not None and params[-1].type != "expression":
            literal[arg.arg] = ast.literal_eval(d)
    return BuildSignature(params, a.kwarg is not None, ast.get_docstring(tree) or "", ast.get_docstring(build) or "",
                          literal)


def script_parameters(path: str | Path) -> tuple[str, str, list[Parameter]]:
    """(the script's docstring, build()'s docstring, build()'s parameters) of the study script ``path``; no build()
    gives no parameters."""
    sig = build_signature(path)
    if sig is None:
        path = Path(path)
        return ast.get_docstring(ast.parse(path.read_bytes())) or "", "", []
    return sig.doc, sig.build_doc, sig.parameters


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


def json_or_str(raw: str):
    """A JSON number/boolean/list from the command line, else the string itself."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def build_options(ap, build) -> dict:
    """Add an option per keyword parameter of ``build`` to ``ap`` (``wall_mm=8.0`` -> ``--wall-mm 8.0``, typed
    like its default; booleans as --x/--no-x); return parameter name -> default (None where it has none)."""
    defaults = {}
    for name, par in inspect.signature(build).parameters.items():
        if par.kind not in (par.POSITIONAL_OR_KEYWORD, par.KEYWORD_ONLY):
            continue
        d = None if par.default is par.empty else par.default
        defaults[name] = d
        opt = "--" + name.replace("_", "-")
        if isinstance(d, bool):
            ap.add_argument(opt, dest=name, action=argparse.BooleanOptionalAction, default=d)
        else:
            kind = type(d) if isinstance(d, (int, float, str)) else json_or_str
            shown = type(d).__name__ if d is not None else "JSON or text"
            ap.add_argument(opt, dest=name, type=kind, default=d, required=par.default is par.empty,
                            metavar=name.upper(), help=f"build() parameter {name} (default {d!r}, {shown})")
    return defaults
