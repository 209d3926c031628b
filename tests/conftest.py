import fcntl
import importlib.util
import json
import os
import platform
import sys
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

# Under xdist each worker gets its share of the cores (its BLAS, MKL and structcheck's own thread pools), as a local
# sweep's workers do (structcheck.pool.limit_threads): two workers on two cores each starting a thread per core
# would contend for them. Set before numpy loads OpenBLAS; a user's own settings are kept. The paper-004 run takes
# every core (all_cores).
if os.environ.get("PYTEST_XDIST_WORKER"):
    _share = str(max(1, (os.cpu_count() or 1) // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))))
    for _var in ("STRUCTCHECK_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, _share)

import numpy as np  # noqa: E402
import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PAPER004_STUDY = ROOT / "studies" / "loading_unloading_6dof.py"


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def in_ci() -> bool:
    """True under CI: the environment variable CI set (CI=true, as CI services and .ci/run's callers set it)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require(available: bool, what: str, install: str, installable: bool = True) -> None:
    """For a test that needs a required tool: on a developer's machine without it the test skips, saying what to
    install; under CI (:func:`in_ci`) it fails, so a CI machine that lacks a tool never passes with its tests unrun
    (.ci/run installs them all). ``installable`` False: the tool has no build for this machine (a skip, also in CI).
    The required tools: Debian's chromium (the report pages' browser tests), Dask distributed (the test extra), MKL
    PARDISO (pypardiso) and ISA-L (isal) where they have wheels (pyproject's markers: x86-64; isal also arm64).
    Optional, never required: CHOLMOD (scikit-sparse; its solver tests run where it is installed)."""
    if available:
        return
    if not installable:
        pytest.skip(f"{what} has no build for this machine ({platform.machine()})")
    if in_ci():
        pytest.fail(f"{what} is missing on this CI machine, which must run every test: {install}", pytrace=False)
    pytest.skip(f"{what} is not installed: {install}")


def require_pardiso() -> None:
    """MKL PARDISO, the default sparse solver where MKL has wheels (x86-64 Linux, Windows, macOS)."""
    from structcheck.fe.solvers import available_backends

    require("pardiso" in available_backends(), "MKL PARDISO (pypardiso)", "pip install pypardiso (a dependency "
            "where MKL has wheels)", installable=platform.machine() in ("x86_64", "AMD64")
            and sys.platform in ("linux", "win32", "darwin"))


def importable(module: str) -> bool:
    """Whether ``module`` imports (a dotted name: its parent packages too)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def load_paper004_module():
    """The paper-004 study script imported as a module (its ``study`` and ``build``)."""
    spec = importlib.util.spec_from_file_location("paper004_study", PAPER004_STUDY)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@dataclass(frozen=True)
class Paper004Run:
    """The paper-004 study run once with its defaults and the per-link model beside the arm model
    (``ArmSettings(compare_link_model=True)``, as ``--link-model`` runs it: the README and docs quote the per-link model's peaks
    beside the arm model's, which it leaves unchanged: tests/flex/test_arm_study.py): the script ``module``, the
    results folder ``out``, its ``summary`` (summary.json) and ``joints`` (joints.csv columns)."""

    module: object
    out: Path
    summary: dict
    joints: dict


@contextmanager
def all_cores():
    """Within the block this worker's BLAS and structcheck's thread pools use every core, as a run on its own does
    (the suite's longest piece of work, on which the tests of its group wait; the other worker goes on beside it
    on its one thread)."""
    from threadpoolctl import threadpool_limits

    n = os.cpu_count() or 1
    old = os.environ.get("STRUCTCHECK_THREADS")
    os.environ["STRUCTCHECK_THREADS"] = str(n)
    try:
        with threadpool_limits(limits=n, user_api="blas"):
            yield
    finally:
        if old is None:
            os.environ.pop("STRUCTCHECK_THREADS", None)
        else:
            os.environ["STRUCTCHECK_THREADS"] = old


@pytest.fixture(scope="session")
def paper004_run(tmp_path_factory) -> Paper004Run:
    """Runs the full paper-004 study once per test session, into a folder shared by the xdist workers (the first
    worker to get the lock runs it; the others read its folder, which appears whole, moved into place)."""
    from structcheck.results import read_csv
    from structcheck.settings import ArmSettings
    from structcheck.study import run

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the session's folder, common to all workers
    out = root / "paper004_run"
    mod = load_paper004_module()
    with open(root / "paper004_run.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (out / "summary.json").is_file():
            with all_cores():
                run(replace(mod.study, arm=ArmSettings(compare_link_model=True)), out, progress=False)
    return Paper004Run(module=mod, out=out, summary=json.loads((out / "summary.json").read_text()),
                       joints=read_csv(out / "joints.csv"))


# The xdist groups that take longest, longest first (their tests' CPU seconds, user + sys of the worker and of the
# processes it started, summed per group over `python -m pytest -q -n 2` on the shared 2-core machine, 2026-11-28,
# branch suite: a per-test CPU record, as wall times there swell with the other sessions' load; docs/speed.md).
# They start first and the short groups fill in after them, so the two workers finish together instead of one
# starting a long group late. Groups not listed (each under 5 CPU seconds) follow in collection order. Refresh
# when a module grows long.
LONG_GROUPS = ("tests/study/test_sweep.py", "tests/study/test_initial_state.py", "tests/adams/test_adams_roundtrip.py",
               "template", "tests/study/test_pipeline.py", "tests/study/test_events.py",
               "tests/report/test_peak_instant.py", "tests/study/test_cli_run.py", "tests/study/test_template_study.py",
               "tests/rigid/test_forward.py", "tests/study/test_kr500_study.py", "tests/fatigue/test_fatigue.py",
               "tests/study/test_rerun.py", "tests/cases/test_multicase.py", "tests/motion/test_properties_motion.py",
               "tests/fe/test_curved_study.py", "tests/fe/test_averaged_peaks.py", "tests/study/test_pool.py",
               "tests/fe/test_verify.py", "tests/study/test_pr1300_study.py", "tests/study/test_mg400_study.py",
               "tests/flex/test_arm_mechanism.py", "tests/cases/test_pose.py", "tests/drives/test_study_drives.py",
               "tests/study/test_paper004_mesh_dir.py", "tests/flex/test_arm_study.py",
               "tests/drives/test_case_drives.py", "tests/cad/test_import_cad_cli.py",
               "tests/study/test_cli_paper004_inputs.py", "tests/flex/test_superelement.py",
               "tests/study/test_reproducible.py", "tests/study/test_converge.py")


def _group(item) -> str:
    """The name of ``item``'s xdist group (``xdist_group("name")`` or ``xdist_group(name="name")``)."""
    mark = item.get_closest_marker("xdist_group")
    return str(mark.kwargs.get("name", mark.args[0] if mark.args else ""))


@pytest.hookimpl(tryfirst=True)  # before the mark plugin deselects by `-m` and before xdist reads the group marks
def pytest_collection_modifyitems(config, items):
    """The tests of the paper-004 run (the suite's longest piece of work, the headline with the per-link model
    beside: 2-3 min on 2 cores) are slow: CI's slow stage makes that run for its own tests (the thinner wall, the
    headline on CAD parts) and they go with them, to one xdist worker together (``--dist loadgroup``, pyproject's
    addopts). Every other test goes with the tests of its module: a module-scoped fixture (a study loaded, a mesh
    made, a run) is then made once, not once on each worker that gets one of its tests. The groups start longest
    first (LONG_GROUPS; pyproject's ``--no-loadscope-reorder`` keeps this order, where xdist would sort the groups
    by their number of tests)."""
    for it in items:
        if "paper004_run" in getattr(it, "fixturenames", ()):
            it.add_marker(pytest.mark.slow)
            it.add_marker(pytest.mark.xdist_group("paper004_run"))
        elif it.get_closest_marker("xdist_group") is None:
            it.add_marker(pytest.mark.xdist_group(it.nodeid.split("::")[0]))
    # the paper-004 run's group first (in the slow stage), then the long groups, longest first; sorted() is stable
    rank = {g: k for k, g in enumerate(("paper004_run",) + LONG_GROUPS)}
    items[:] = sorted(items, key=lambda it: rank.get(_group(it), len(rank)))


# the README's first-study block, as template_run runs it
TEMPLATE_COMMANDS = [["cp", "studies/two_link_arm.py", "my_arm.py"], ["structcheck", "run", "my_arm.py", "--out",
                                                                      "results/arm"]]


@pytest.fixture(scope="session")
def template_run(tmp_path_factory):
    """The README's first study: studies/two_link_arm.py copied alone into an empty folder as my_arm.py and run there
    by `structcheck run my_arm.py --out results/arm` (TEMPLATE_COMMANDS); that folder, shared by the template's,
    the quick look's and the README's tests."""
    import shutil

    from structcheck.cli import main

    folder = tmp_path_factory.mktemp("template")
    shutil.copy(Path(__file__).resolve().parents[1] / "studies" / "two_link_arm.py", folder / "my_arm.py")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        assert main(["run", "my_arm.py", "--out", "results/arm", "--quiet"]) == 0
    finally:
        os.chdir(cwd)
    return folder


@pytest.fixture(scope="session")
def browser():
    """Headless Debian chromium (one per test process), for the report pages (tests/report); where it is missing the
    tests that need it skip on a developer's machine and fail under CI (:func:`require`)."""
    from browser_pages import CHROMIUM, INSTALL_CHROMIUM, LAUNCH_ARGS  # tests/report, on the path once collected

    require(CHROMIUM is not None, "Debian's chromium", INSTALL_CHROMIUM)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def _close_browser_pages(request):
    """Close the pages a test opened: an open review page keeps software WebGL busy (measured: 11% of a core for
    the headline page, 0.8% closed), which every later test in the session pays for."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()
