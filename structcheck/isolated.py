"""A function call in a fresh Python process of its own, for native code that can abort the whole interpreter.

gmsh's curved-element optimization (``mesh.optimize("HighOrder")``) aborted the Python process twice while
meshing an imported part with B-spline fillets in a CI worker: its error is thrown inside an OpenMP region, where it
cannot unwind, and its result varies from run to run, so the abort came now and then
(:func:`structcheck.fe.high_order.curve_elements` now turns that error off). In a process of its own an abort costs
only that process: the caller learns which call died and of which signal, and can run it again.

The child is ``python -m structcheck.isolated`` (not :mod:`multiprocessing`): it never imports the caller's
``__main__``, so a user's study script that imports a CAD assembly at its top level, without an
``if __name__ == "__main__"`` guard, is not run again in the child. The function and its arguments go by pickle
on stdin, the result (or the exception raised) comes back on stdout.
"""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys

#: the child's BLAS/OpenMP threads: the callers run one child per core
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: the child's own failure to read the call (the function or an argument lives in the caller's __main__)
_UNREADABLE = 3


class Crash(RuntimeError):
    """The child died without an answer: ``returncode`` (negative: killed by that signal) and the end of what it
    wrote on stderr."""

    def __init__(self, returncode: int, stderr: str = ""):
        super().__init__(returncode, stderr)
        self.returncode, self.stderr = int(returncode), stderr

    def __str__(self) -> str:
        if self.returncode < 0:
            try:
                how = f"killed by {signal.Signals(-self.returncode).name}"
            except ValueError:
                how = f"killed by signal {-self.returncode}"
        else:
            how = f"exit code {self.returncode}"
        return how


class Unreadable(RuntimeError):
    """The child could not unpickle the call (a function or argument defined in the caller's ``__main__``, or
    one that cannot be pickled at all): the caller runs it in its own process instead."""


def call(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` in a fresh Python process; returns its result or raises the exception it raised.
    Raises :class:`Crash` if the process dies without an answer (an abort, a segfault, killed), and
    :class:`Unreadable` if the call cannot go to another process. The child's ``sys.path`` is this one's, and its
    BLAS uses one thread unless the environment says otherwise."""
    try:
        job = pickle.dumps((fn, args, kwargs))
    except Exception as exc:  # noqa: BLE001 (whatever pickling raises: not for another process)
        raise Unreadable(str(exc)) from None
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p or os.getcwd() for p in sys.path)  # '': the current folder
    for var in _THREAD_VARS:
        env.setdefault(var, "1")
    done = subprocess.run([sys.executable, "-m", "structcheck.isolated"], input=job, capture_output=True, env=env)
    if done.returncode == _UNREADABLE:
        raise Unreadable((done.stderr.decode(errors="replace").strip().splitlines() or [""])[-1])
    if done.returncode != 0 or not done.stdout:
        tail = "\n".join(done.stderr.decode(errors="replace").strip().splitlines()[-20:])
        raise Crash(done.returncode or 1, tail)
    ok, value = pickle.loads(done.stdout)
    if ok:
        return value
    raise value


def _serve() -> int:
    """The child: one call from stdin, its (ok, result or exception) pickled to stdout."""
    import faulthandler

    faulthandler.enable()  # a native abort leaves the Python stack on stderr for Crash.stderr
    # the answer goes on a copy of stdout; native code's prints (OpenCASCADE's transfer statistics) go to stderr
    answer_fd = os.dup(1)
    os.dup2(2, 1)
    data = sys.stdin.buffer.read()
    try:
        fn, args, kwargs = pickle.loads(data)
    except Exception as exc:  # noqa: BLE001 (the caller runs the call itself)
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return _UNREADABLE
    try:
        answer = (True, fn(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 (goes back to the caller, raised there)
        answer = (False, exc)
    try:
        out = pickle.dumps(answer)
    except Exception as exc:  # noqa: BLE001 (an exception or result that cannot be pickled)
        out = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc} (in an isolated call of "
                                                f"{getattr(fn, '__qualname__', fn)!r})")))
    with os.fdopen(answer_fd, "wb") as answer_file:
        answer_file.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(_serve())
