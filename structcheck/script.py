"""Study scripts: a Python file that defines ``study = Study(...)`` at module level, or ``def build(**params) ->
Study`` for parameters (``--set NAME=VALUE``). Imported (the user's own trusted Python), never parsed; every
failure is an InputError naming the script."""
from __future__ import annotations

import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from .errors import InputError, is_number, require_number
from .study import Study

STUDY_SCRIPT = ("a study script is a Python file (.py) that defines `study = Study(...)` at module level, or "
                "`def build(**params) -> Study` for --set NAME=VALUE")



def load_study(path: str | Path, **params) -> Study:
    """Import a study script and return its ``study`` (or ``build(**params)`` when parameters are given).

    The script is the user's own trusted Python: it is imported, not parsed. Errors name the file. ``params`` are
    checked against build()'s signature first (:func:`build_params`)."""
    return script_study(import_script(path), path, params)


def import_script(path: str | Path):
    """Import the study script ``path`` (the user's own trusted Python) and return its module; InputError naming
    the file when it is missing, not a .py file or fails to import."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"study script {str(path)!r} does not exist; {STUDY_SCRIPT}")
    if path.suffix != ".py":
        robot = " (a robot model: a study script reads it with structcheck.Robot.from_urdf)" \
            if path.suffix.lower() == ".urdf" else ""
        raise InputError(f"{str(path)!r} is not a study script{robot}; {STUDY_SCRIPT}")
    spec = importlib.util.spec_from_file_location(f"structcheck_study_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    sys.modules[spec.name] = module  # as an import does: a @dataclass in the script looks its module up there
    try:
        spec.loader.exec_module(module)
    except InputError:
        raise
    except Exception as exc:
        raise InputError(f"study script {str(path)!r} failed to import: {type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(str(path.parent))
    return module


def script_study(module, path: str | Path, params: Mapping[str, Any]) -> Study:
    """The study of an imported script ``module``: its ``study``, or ``build(**params)`` (checked by
    :func:`build_params`) when ``params`` are given."""
    path = Path(path)
    if params:
        build = getattr(module, "build", None)
        if not callable(build):
            raise InputError(f"study script {str(path)!r} has no build(**params) function to take {sorted(params)}; "
                             f"{STUDY_SCRIPT}")
        params = build_params(build, params, str(path))
        try:
            study = build(**params)
        except TypeError as exc:
            raise InputError(f"study script {str(path)!r}: build() rejected parameters {params}: {exc}") from None
    else:
        study = getattr(module, "study", None)
    if not isinstance(study, Study):
        got = "build() returned" if params else "its `study` is"
        raise InputError(f"study script {str(path)!r} defines no `study = Study(...)` at module level"
                         if study is None and not params else
                         f"study script {str(path)!r}: {got} {type(study).__name__}, not a Study; {STUDY_SCRIPT}")
    return study


# a build() parameter's unit from the end of its name (wall_mm -> mm), for the messages of build_params
_UNITS = {"mm": "mm", "m": "m", "kg": "kg", "n": "N", "nm": "N m", "s": "s", "hz": "Hz", "pa": "Pa", "mpa": "MPa",
          "deg": "degrees", "rad": "rad"}


def build_params(build: Callable, params: Mapping[str, Any], script: str) -> dict:
    """``params`` for ``build(**params)``, checked against its signature: every name a parameter of build();
    a value for a parameter whose default is a number made a finite number (text from the command line read as
    one), for a True/False default a bool ('true'/'false' read as one), for a text default text (a number read as
    its text); a NaN or infinity refused for any parameter. InputError naming the script, the parameter and its
    default."""
    sig = inspect.signature(build).parameters
    named = [n for n, p in sig.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = sorted(set(params) - set(named))
    if unknown and not any(p.kind is p.VAR_KEYWORD for p in sig.values()):
        raise InputError(f"study script {script!r}: build() has no parameter {', '.join(unknown)}; its parameters "
                         f"are {', '.join(named) or 'none'}")
    out = {}
    for name, value in params.items():
        default = sig[name].default if name in sig else None
        try:
            out[name] = _typed(name, value, default)
        except InputError as exc:
            shown = "" if default is inspect.Parameter.empty else f"; build()'s default is {default!r}"
            raise InputError(f"study script {script!r}: build() parameter {exc}{shown}") from None
    return out


def _typed(name: str, value, default):
    """``value`` for the build() parameter ``name`` whose default is ``default`` (see :func:`build_params`)."""
    unit = _UNITS.get(name.rsplit("_", 1)[-1].lower(), "") if "_" in name else ""
    if isinstance(default, bool):
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        if not isinstance(value, (bool, np.bool_)):
            raise InputError(f"{name} = {value!r}: give true or false")
        return value
    if is_number(default):
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                pass
        number = require_number(name, value, unit, whole=isinstance(default, int))
        return number if isinstance(default, int) else value
    if isinstance(value, float):
        require_number(name, value, unit)
    if isinstance(default, str) and not isinstance(value, str):
        if not is_number(value):
            raise InputError(f"{name} = {value!r}: give text")
        return str(value)  # e.g. a folder named 5
    return value


def with_params(params: dict) -> str:
    """The parameters ``params`` for a message, as " with a=1, b='x'" (empty without any)."""
    return " with " + ", ".join(f"{k}={v!r}" for k, v in params.items()) if params else ""


def build_study(path: str | Path, params: dict | None = None, *, debug: bool = False, with_module: bool = False,
                quick: bool = False):
    """Import the study script ``path`` and return its ``study`` (or ``build(**params)``), with the ``params``
    whose name is dotted (``fatigue.design_life_hours``) set on the Study's parts
    (:func:`structcheck.settings.with_overrides`) instead of passed to build(); with ``with_module``,
    (script module, study); with ``quick``, its quick look (:func:`structcheck.quick.quick_study`).

    The script is the user's own Python: any exception it raises while being imported or built (a bad parameter
    value, a missing file, a bug in the script) becomes an InputError naming the script, the parameters and the
    exception, so the command line can report it in one line. ``debug`` lets the original exception through.
    """
    from .quick import quick_study
    from .settings import with_overrides

    params = dict(params or {})
    overrides = {k: params.pop(k) for k in list(params) if "." in k}  # part.field: set on the built Study
    try:
        module = import_script(path)
        study = (quick_study(module, lambda: script_study(module, path, params)) if quick else
                 script_study(module, path, params))
    except (Exception, SystemExit) as exc:  # SystemExit: a script that parses sys.argv or exits at import
        err = _build_error(exc, path, params, debug)
        if err is exc:
            raise
        raise err from exc
    study = with_overrides(study, overrides)  # its own errors name the setting
    return (module, study) if with_module else study


def _build_error(exc: BaseException, path, params: dict, debug: bool) -> BaseException:
    """The error to raise for ``exc`` raised while importing or building the study script ``path``: ``exc`` itself
    with ``debug`` or when it already names the script, else an InputError naming the script and the parameters."""
    if debug or (isinstance(exc, InputError) and str(Path(path)) in str(exc)):
        return exc
    if isinstance(exc, SystemExit):
        detail = (f"it called sys.exit({exc.code!r}); a study script parses its command line only under "
                  f"`if __name__ == \"__main__\":`")
    else:
        detail = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
    return InputError(f"building {path}{with_params(params)} failed: {detail}")
