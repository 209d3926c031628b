"""Parameter sweeps: every combination of a study's ``build()`` parameters, each run into its own results folder.

    out/
        sweep.csv                          one row per variant: parameters, status, verdict, metrics, run time, error
        sweep.png                          each metric against each parameter
        sweep.html                         the table with a link to each variant's report.html, and the plots
        <name>=<value>__<name>=<value>/    a results folder per variant (``structcheck.study.run``), with
            inputs.json                    what it was run from, written last, only after the run succeeded

A variant is run by any ``concurrent.futures.Executor``: a local process pool by default, a Dask cluster through
``distributed.Client(address).get_executor()``. Study scripts, their mesh files and ``out`` must be reachable under
the same paths from every worker. In a worker (:mod:`structcheck.pool`), BLAS and structcheck's own thread pools
keep to the worker's share of the cores (``OMP_NUM_THREADS``: cores / workers in the local pool, 1 in a Dask
worker), and a variant's large temporaries reuse heap memory even where a Dask nanny's environment
(``MALLOC_TRIM_THRESHOLD_``) would map each afresh.

A rerun skips a variant whose folder has a ``summary.json`` and an ``inputs.json`` that still matches: the same
structcheck version, study script bytes (SHA-256), parameters, run options (``vtk``, ``plots``) and every file the
study read while being built (SHA-256 of each: meshes, URDFs, modules it imported from outside the Python
installation and structcheck). Those files are recorded in the worker by an audit hook (``sys.addaudithook``)
watching the files opened while ``load_study`` builds the variant, so the check needs no rebuild.

``sweep.csv`` and ``sweep.png`` are written by :mod:`structcheck.results.sweep`; its ``METRICS``, ``COLUMNS``,
``parse_value``, ``write_sweep_csv``, ``read_sweep_csv`` and ``plot_sweep`` are also reachable from here.

This module imports nothing heavy at the top: a spawned worker sets its thread limits before numpy loads. Hence
the names above are imported on first use (``structcheck.results`` loads numpy), not at the top.
"""
from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import hashlib
import inspect
import itertools
import json
import os
import re
import shutil
import site
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from . import __version__
from .errors import InputError
from .pool import heap_reuse, local_executor
from .scripthelp import build_signature

INPUTS_FILE = "inputs.json"
_SAFE = re.compile(r"[^A-Za-z0-9._+-]")
_RESULTS_NAMES = ("METRICS", "COLUMNS", "parse_value", "write_sweep_csv", "read_sweep_csv", "plot_sweep")


def __getattr__(name: str):
    """The sweep's file names of :mod:`structcheck.results.sweep` (``_RESULTS_NAMES``), imported on first use."""
    if name in _RESULTS_NAMES:
        from .results import sweep as sweep_files

        return getattr(sweep_files, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------------------------------- parameters
def parse_param(item: str) -> tuple[str, list]:
    """``NAME=v1,v2,...`` -> (name, [values]); InputError on bad syntax, an empty list or repeated values."""
    from .results.sweep import parse_value

    name, sep, raw = item.partition("=")
    name = name.strip()
    if not sep or not all(p.isidentifier() for p in name.split(".")):
        raise InputError(f"--param expects NAME=v1,v2,... with a Python name (a build() parameter) or part.field "
                         f"(a Study setting), e.g. --param wall_mm=4,5,6; got {item!r}")
    parts = [p.strip() for p in raw.split(",")] if raw.strip() else []
    if not parts or any(not p for p in parts):
        raise InputError(f"--param {name}: empty value in {raw!r}; give a comma-separated list, e.g. {name}=1,2")
    values = [parse_value(p) for p in parts]
    _check_values(name, values)
    return name, values


def parse_params(items: Sequence[str]) -> dict[str, list]:
    """Several ``--param`` items -> {name: values}, in the order given; InputError if a name repeats."""
    out: dict[str, list] = {}
    for item in items:
        name, values = parse_param(item)
        if name in out:
            raise InputError(f"--param {name} given twice; list all its values in one: {name}=v1,v2,...")
        out[name] = values
    return out


def _check_values(name: str, values: Sequence) -> None:
    if not values:
        raise InputError(f"parameter {name!r} has no values; give at least one")
    seen = [json.dumps(v, sort_keys=True) for v in values]
    if len(set(seen)) != len(seen):
        raise InputError(f"parameter {name!r} lists a value twice: {list(values)}")


def variants(params: Mapping[str, Sequence]) -> list[dict]:
    """Every combination of ``params`` (name -> values), the first name varying slowest."""
    names = list(params)
    return [dict(zip(names, combo)) for combo in itertools.product(*(params[n] for n in names))]


def check_study(study_path: str | Path, names: Sequence[str], values: Mapping[str, Sequence] | None = None) -> Path:
    """InputError unless ``study_path`` is a study script whose ``build()`` takes every name in ``names`` and, for
    the parameters whose default is a literal, every one of their ``values`` (name -> values) as ``--set`` would."""
    path = Path(study_path)
    if not path.is_file():
        raise InputError(f"study script {str(path)!r} does not exist")
    from .settings import check_setting
    from .study import Study

    for name in names:  # part.field: a Study setting, set after build()
        if "." in name:
            check_setting(name, (values or {}).get(name, ()), {f.name for f in dataclasses.fields(Study) if f.init})
    names = [n for n in names if "." not in n]
    if not names:
        return path
    sig = build_signature(path)
    if sig is None:
        if not re.search(rb"\bbuild\b", path.read_bytes()):
            raise InputError(f"study script {str(path)!r} has no build(**params) function to take {list(names)}")
        return path  # `build` comes from elsewhere: the variants report it if it rejects a parameter
    accepted = [p.name for p in sig.parameters]
    unknown = [n for n in names if n not in accepted]
    if unknown and not sig.any_kwarg:
        raise InputError(f"study script {str(path)!r}: build() has no parameter {', '.join(map(repr, unknown))}; "
                         f"its parameters are {accepted}")
    from .script import build_params

    for name, values in (values or {}).items():  # each value as --set would take it: refused before any variant
        if name in sig.literal_defaults:
            for v in values:
                build_params(_signature_of(sig.literal_defaults), {name: v}, str(path))
    return path


def _signature_of(defaults: Mapping[str, Any]):
    """A stand-in ``build(**defaults)`` for :func:`structcheck.study.build_params` (which reads its signature)."""
    def build(**kwargs):
        return None
    build.__signature__ = inspect.Signature([inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
                                             for n, d in defaults.items()])
    return build


def variant_name(params: Mapping[str, Any]) -> str:
    """The folder name of a variant: ``name=value__name=value`` (characters other than letters, digits and
    ``._+-`` replaced by ``_``); ``variant-<hash>`` when that would be long."""
    name = "__".join(f"{k}={_SAFE.sub('_', str(v))}" for k, v in params.items()) or "defaults"
    if len(name) > 120:
        name = "variant-" + _digest(params)[:16]
    return name


def _variant_names(combos: list[dict]) -> list[str]:
    names = [variant_name(c) for c in combos]
    clash = {n for n in names if names.count(n) > 1}  # e.g. 'a b' and 'a_b' once cleaned
    return [f"{n}-{_digest(c)[:8]}" if n in clash else n for n, c in zip(names, combos)]


# ------------------------------------------------------------------------------------------------- input hash
def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def file_sha256(path: str | Path) -> str | None:
    """SHA-256 of a file's bytes (hex); None if it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def _key(study_sha: str, params: Mapping, options: Mapping) -> dict:
    return {"structcheck_version": __version__, "study_sha256": study_sha, "parameters": dict(params),
            "options": dict(options)}


def inputs_record(study_path: Path, params: Mapping, options: Mapping, files: Mapping[str, str]) -> dict:
    """What ``inputs.json`` holds: the key (structcheck version, study SHA-256, parameters, options), the files
    the study read with their SHA-256, and ``hash``, the SHA-256 of all of it."""
    record = {**_key(file_sha256(study_path), params, options), "study": str(Path(study_path).resolve()),
              "files": dict(sorted(files.items()))}
    return {**record, "hash": _digest({k: v for k, v in record.items() if k != "study"})}


def is_up_to_date(folder: Path, study_sha: str, params: Mapping, options: Mapping) -> bool:
    """Whether ``folder`` holds a complete run of these inputs: a readable summary.json and an inputs.json with
    the same key and the same bytes in every file it lists."""
    from .results import read_summary

    try:
        record = json.loads((folder / INPUTS_FILE).read_text())
        read_summary(folder)
    except (OSError, ValueError):  # missing, corrupt (json and InputError are ValueErrors)
        return False
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict):
        return False
    if any(record.get(k) != v for k, v in json.loads(json.dumps(_key(study_sha, params, options))).items()):
        return False
    if record.get("hash") != _digest({k: v for k, v in record.items() if k not in ("study", "hash")}):
        return False
    return all(file_sha256(p) == sha for p, sha in record["files"].items())


# audit hook: the files a study opens for reading while it is built, per thread
_watch = threading.local()
_hook_lock = threading.Lock()
_hook_installed = False
_study_modules: dict[str, set[str]] = {}  # study path -> module files it imported in this process (cached later)


def _audit(event: str, args) -> None:
    if event != "open":
        return
    files = getattr(_watch, "files", None)
    if files is None:
        return
    path, mode, flags = args
    if isinstance(path, int) or path is None:
        return
    if isinstance(mode, str):
        if any(c in mode for c in "wax+"):
            return
    elif isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR):
        return
    try:
        files.add(os.path.abspath(os.fsdecode(path)))
    except Exception:  # an audit hook must never raise
        pass


def _install_hook() -> None:
    global _hook_installed
    with _hook_lock:
        if not _hook_installed:
            sys.addaudithook(_audit)  # stays for the life of the process; idle unless a thread is watching
            _hook_installed = True


def _excluded_roots() -> tuple[str, ...]:
    import structcheck

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(structcheck.__file__),
             *site.getsitepackages(), site.getusersitepackages(), "/proc", "/dev", "/sys"}
    return tuple(os.path.join(os.path.realpath(r), "") for r in roots if r)


def _dependency_files(opened: set[str], study_path: Path, new_modules: list[str]) -> dict[str, str]:
    """The files a study read (``opened`` and the modules it imported in this process), with their SHA-256,
    leaving out the study script, Python's and structcheck's own files and compiled caches' sources' twins."""
    from importlib.util import source_from_cache

    known = _study_modules.setdefault(str(study_path), set())
    known.update(new_modules)
    roots = _excluded_roots()
    study = os.path.realpath(study_path)
    out = {}
    for p in opened | known:
        if p.endswith(".pyc"):
            try:
                p = source_from_cache(p)
            except ValueError:
                continue
        real = os.path.realpath(p)
        if real == study or real.startswith(roots) or not os.path.isfile(real):
            continue
        sha = file_sha256(real)
        if sha is not None:
            out[real] = sha
    return out


def _build_watched(study_path: Path, params: Mapping):
    """``script.build_study(study_path, params)`` and the files the study read meanwhile ({path: sha256})."""
    from .script import build_study

    _install_hook()
    before = set(sys.modules)
    _watch.files = set()
    try:
        study = build_study(study_path, dict(params))
        opened = _watch.files
    finally:
        _watch.files = None
    new = [getattr(sys.modules[m], "__file__", None) for m in set(sys.modules) - before]
    return study, _dependency_files(opened, study_path, [f for f in new if f])


# ------------------------------------------------------------------------------------------------- one variant
def run_variant(study_path: str, params: dict, folder: str, options: dict) -> dict:
    """Build and run one variant into ``folder`` (in a worker); then write its inputs.json.

    Returns {"status": "ran" | "failed", "error": one line or None, "wall_s": seconds, "worker": host:pid};
    a failure to build or run is returned, not raised (KeyboardInterrupt is raised). ``options`` holds ``vtk``,
    ``plots`` and ``report`` for ``structcheck.study.run``."""
    import socket

    from .study import run

    t0 = time.perf_counter()
    where = f"{socket.gethostname()}:{os.getpid()}"
    try:
        Path(folder, INPUTS_FILE).unlink(missing_ok=True)  # a stale record must not outlive a rerun cut short
        with heap_reuse():  # a Dask worker's environment maps every large temporary afresh
            study, files = _build_watched(Path(study_path), params)
            run(study, folder, progress=False, vtk=options["vtk"], plots=options["plots"],
                report=options.get("report", False))
        record = inputs_record(Path(study_path), params, options, files)
        tmp = Path(folder) / f".{INPUTS_FILE}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(record, indent=2) + "\n")
        os.replace(tmp, Path(folder) / INPUTS_FILE)  # last: its presence means the folder is complete
    except Exception as exc:
        detail = str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
        return {"status": "failed", "error": " ".join(detail.split()), "wall_s": time.perf_counter() - t0,
                "worker": where}
    return {"status": "ran", "error": None, "wall_s": time.perf_counter() - t0, "worker": where}


# ------------------------------------------------------------------------------------------------- the sweep
@dataclass(frozen=True)
class SweepResult:
    """A finished sweep: ``rows`` (one dict per variant, keys: the parameters, then
    :data:`structcheck.results.sweep.COLUMNS`), the ``csv``, ``plot`` and ``html`` paths (``plot`` None when no
    variant ran, ``html`` None when the sweep writes no pages), the parameter ``names``."""

    out: Path
    names: list[str]
    rows: list[dict]
    csv: Path
    plot: Path | None = None
    html: Path | None = None
    wall_s: float = 0.0
    counts: dict = field(default_factory=dict)

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.rows if r["status"] == "failed"]


def sweep(study_path: str | Path, params: Mapping[str, Sequence], out: str | Path, executor: cf.Executor | None = None,
          *, workers: int | None = None, vtk: bool = False, plots: bool = True, progress: bool = True,
          report: Callable[[dict], None] | None = None, html: bool = True) -> SweepResult:
    """Run the study script ``study_path`` for every combination of ``params`` (``build()`` parameter name ->
    values) into ``out/<variant>/``; write ``out/sweep.csv`` and ``out/sweep.png``; return the SweepResult.

    ``executor``: any ``concurrent.futures.Executor`` (its workers must import structcheck and see the same
    paths); None: a local process pool of ``workers`` processes (default: the number of cores), shut down at
    the end. ``vtk``: also the ParaView files of every variant (``run`` has no peak-frame-only switch, so none
    are written otherwise); ``plots``: each variant's plots; ``html``: each variant's report.html and the sweep's
    sweep.html (:mod:`structcheck.report`). Variants whose folder is up to date are skipped
    (not submitted). A variant that fails to build or run gets status "failed" and its error in its row; the
    others go on. ``report(row)`` is called as each variant finishes (e.g. to print failures).
    On KeyboardInterrupt, pending variants are cancelled; the running ones stop (local pool: they get the
    Ctrl-C too) or finish (another executor); ``run`` moves only finished folders into place and inputs.json
    is written after it, so every variant folder left is complete and none is taken as up to date wrongly.

    Raises InputError (before running anything) for an empty value list, repeated values, a parameter that the
    script's ``build()`` does not take, or a missing script.
    """
    t0 = time.perf_counter()
    params = {k: list(v) for k, v in params.items()}
    for name, values in params.items():
        _check_values(name, values)
    study_path = check_study(study_path, list(params)).resolve()
    from .results import prepare_output
    from .results.sweep import plot_sweep, write_sweep_csv

    out = prepare_output(out)
    out.mkdir(exist_ok=True)
    options = {"vtk": bool(vtk), "plots": bool(plots), "report": bool(html)}
    study_sha = file_sha256(study_path)
    combos = variants(params)
    names = _variant_names(combos)
    status: dict[int, dict] = {}
    todo = []
    for i, (combo, name) in enumerate(zip(combos, names)):
        if is_up_to_date(out / name, study_sha, combo, options):
            status[i] = {"status": "skipped", "error": None}
        else:
            todo.append(i)

    from tqdm.auto import tqdm

    bar = tqdm(total=len(combos), initial=len(combos) - len(todo), desc="variants", unit="variant",
               disable=not progress, file=sys.stderr)

    def finished(i, outcome):
        status[i] = outcome
        bar.update()
        if report is not None:
            report({**combos[i], "variant": names[i], **outcome})

    with bar:
        _run_pending(todo, lambda i: (run_variant, str(study_path), combos[i], str(out / names[i]), options),
                     out, executor, workers, finished)
    rows = [_row(out / name, combo, name, status[i]) for i, (combo, name) in enumerate(zip(combos, names))]
    csv_path = write_sweep_csv(rows, list(params), out / "sweep.csv")
    plot = plot_sweep(rows, list(params), out / "sweep.png")
    page = None
    if html:
        from .report import write_sweep_report

        page = write_sweep_report(out)
    counts = {s: sum(r["status"] == s for r in rows) for s in ("ran", "skipped", "failed")}
    return SweepResult(out=out, names=list(params), rows=rows, csv=csv_path, plot=plot, html=page,
                       wall_s=time.perf_counter() - t0, counts=counts)


def _run_pending(todo: list[int], call: Callable[[int], tuple], out: Path, executor: cf.Executor | None,
                 workers: int | None, finished: Callable[[int, dict], None]) -> None:
    """Submit the variants ``todo`` (``call(i)``: the function and arguments of variant i) and call
    ``finished(i, outcome)`` as each ends. ``executor`` None: a local pool of ``workers`` processes, shut down at
    the end. On any exception (a Ctrl-C) the pending variants are cancelled and the exception raised again."""
    own = executor is None and bool(todo)
    if own:
        workers = min(workers or os.cpu_count() or 1, len(todo))
        executor = local_executor(workers)
    # our pool gets one variant per worker at a time, so that a Ctrl-C has only those to wait for (a process
    # pool marks queued calls as running: they could no longer be cancelled); another executor gets them all
    limit = workers if own else len(todo)
    waiting, running = list(todo), {}

    def broken(exc):  # the worker died (e.g. killed for memory) or the executor failed, not the study
        return {"status": "failed", "error": " ".join(f"{type(exc).__name__}: {exc}".split())}

    def submit():
        while waiting and len(running) < limit:
            i = waiting.pop(0)
            try:
                running[executor.submit(*call(i))] = i
            except Exception as exc:  # a broken pool refuses new work: the rest are reported, not raised
                finished(i, broken(exc))

    try:
        submit()
        while running:
            done, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                i = running.pop(fut)
                try:
                    outcome = fut.result()
                except Exception as exc:
                    outcome = broken(exc)
                finished(i, outcome)
            submit()
    except BaseException:
        for fut in running:
            fut.cancel()
        if own:  # our workers got the Ctrl-C too: each removes its unfinished temporary folder; wait for them
            executor.shutdown(wait=True, cancel_futures=True)
            own = False
            _remove_partials(out)  # left by a worker that was killed; none is running any more
        raise
    finally:
        if own:
            executor.shutdown(wait=True)


def _remove_partials(out: Path) -> None:
    """Remove the temporary folders of runs that were interrupted (``.<variant>.partial-*``)."""
    for tmp in out.glob(".*.partial-*"):
        shutil.rmtree(tmp, ignore_errors=True)


def _row(folder: Path, params: dict, name: str, outcome: dict) -> dict:
    """A sweep.csv row: the parameters, status and error, and the metrics read from the variant's summary.json
    (empty for a failed variant)."""
    from .results import read_summary
    from .results.sweep import METRICS, cases_cell

    row = {**params, "variant": name, "status": outcome["status"], "verdict": None,
           **{m: None for m in METRICS}, "run_time_s": None, "error": outcome.get("error")}
    if outcome["status"] == "failed":
        return row
    try:
        s = read_summary(folder)
    except InputError as exc:  # removed or damaged since it ran
        return {**row, "status": "failed", "error": " ".join(str(exc).split())}
    links = s.links.values()
    sf = [L.min_safety_factor for L in links if L.min_safety_factor is not None]
    timings = s.timings_s or {}
    row.update(verdict="pass" if s.passed else "fail", max_von_mises_pa=s.max_von_mises_pa,
               min_safety_factor=min(sf) if sf else None, max_deformation_m=s.max_deformation_m,
               tool_point_deflection_m=s.tool_point_deflection_m,
               mass_kg=sum(L.mass_kg for L in links), cases=cases_cell(s),
               run_time_s=timings.get("total", 0.0) + timings.get("write", 0.0))
    return row
