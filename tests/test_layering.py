"""Layering of the package, read from the source (no import is run): no import circle between structcheck's modules,
counting imports inside functions (a function-level import hides a circle from Python's loader, not from a reader);
the libraries (flex/, fe/) import no stage above them (study, cli, results, sweep).

Imports under ``if TYPE_CHECKING:`` are left out: they are annotations for a type checker, never executed."""
from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "structcheck"


def module_names() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's __init__) for every module of structcheck."""
    out = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        parts = list(f.relative_to(PACKAGE.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (f, is_package)
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def imports_of(name: str, file: Path, is_package: bool, modules) -> set[str]:
    """The structcheck modules that module ``name`` imports anywhere in its source (module level or inside
    functions), each resolved to the module that is loaded: ``from .fe import response`` -> structcheck.fe.response,
    ``from .fe import build_basis`` -> structcheck.fe (its __init__)."""
    tree = ast.parse(file.read_text())
    skip = _type_checking_nodes(tree)
    package = name.split(".") if is_package else name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
    out = set()
    for target in found:
        while target and target not in modules:  # structcheck.fe.response.build_basis -> structcheck.fe.response
            target = target.rpartition(".")[0]
        if target and target != name:
            out.add(target)
    return out


@cache
def import_graph() -> dict[str, set[str]]:
    """Module -> the structcheck modules it imports (:func:`imports_of`), read once."""
    modules = module_names()
    return {name: imports_of(name, f, pkg, modules) for name, (f, pkg) in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm): each holds an import
    circle."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_circle_finder_finds_a_circle_and_only_circles():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_function_level_and_relative_imports_are_read(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("from typing import TYPE_CHECKING\nfrom .fe import response\nif TYPE_CHECKING:\n"
                   "    from .study import Study\n\ndef f():\n    from ..cli import main\n")
    modules = {"structcheck.flex.m": None, "structcheck.flex": None, "structcheck.flex.fe": None,
               "structcheck.flex.fe.response": None, "structcheck.cli": None, "structcheck.flex.study": None}
    assert imports_of("structcheck.flex.m", src, False, modules) == {"structcheck.flex.fe.response",
                                                                      "structcheck.cli"}


def test_no_import_circle():
    found = circles(import_graph())
    assert not found, f"import circles (imports inside functions counted): {found}"


@pytest.mark.parametrize("library", ["flex", "fe"])
def test_libraries_import_no_stage_above_them(library):
    above = ("structcheck.study", "structcheck.cli", "structcheck.results", "structcheck.sweep",
             "structcheck.script", "structcheck.structural")
    graph = import_graph()
    bad = {m: sorted(t for t in targets if t.startswith(above)) for m, targets in graph.items()
           if m.startswith(f"structcheck.{library}")}
    assert not {m: t for m, t in bad.items() if t}, bad


#: the issue's size limits (issue 21, item 6): a module a reader takes in, a function that fits a screen or two
MODULE_LINES, FUNCTION_LINES = 500, 80


def sizes(source: str) -> tuple[int, dict[str, int]]:
    """A module's line count and its functions' (methods' and nested ones' too) lengths in lines, decorators left
    out."""
    tree = ast.parse(source)
    funcs = {f"{node.name}:{node.lineno}": node.end_lineno - node.lineno + 1 for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return source.count("\n"), funcs


def test_the_size_reader_counts_lines_and_nested_functions():
    lines, funcs = sizes("def f():\n    def g():\n        return 1\n    return g\n\n\nclass A:\n    def m(self):\n"
                         "        pass\n")
    assert lines == 9 and funcs == {"f:1": 4, "g:2": 2, "m:8": 2}


def test_modules_and_functions_are_within_the_size_limits():
    too_long = {}
    for name, (path, _) in module_names().items():
        lines, funcs = sizes(path.read_text())
        if lines > MODULE_LINES:
            too_long[name] = lines
        too_long.update({f"{name}.{f}": n for f, n in funcs.items() if n > FUNCTION_LINES})
    assert not too_long, f"over {MODULE_LINES} lines a module or {FUNCTION_LINES} a function: {too_long}"
