"""Wall-clock phases and progress bars of a run: :class:`Clock` times named phases, :func:`progress_bar` counts
work on stderr (silent when ``progress`` is off); :func:`without_run_header` keeps a helper run's header off it."""
from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar

#: a run prints its header (solver, structural model, rigid joints) with its progress; False within
#: :func:`without_run_header`
RUN_HEADER: ContextVar[bool] = ContextVar("run_header", default=True)


class Clock:
    """Wall time [s] since creation (``elapsed``) and per named phase (``timings``, summed over repeats):
    ``with clock("fe_bases"): ...``."""

    def __init__(self):
        self.t0 = time.perf_counter()
        self.timings: dict[str, float] = {}

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0

    @contextmanager
    def __call__(self, name: str):
        t1 = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t1


def progress_bar(progress: bool, total: int, desc: str):
    """A tqdm bar of ``total`` steps named ``desc`` (disabled when not ``progress``), to use as a context manager."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not progress, leave=True)


@contextmanager
def without_run_header():
    """Runs within print no header: a helper run (``structcheck info``'s per-link run at home) whose model is not
    the study's, which the caller names itself."""
    token = RUN_HEADER.set(False)
    try:
        yield
    finally:
        RUN_HEADER.reset(token)
