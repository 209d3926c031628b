"""structcheck.isolated: a call in a fresh process returns what the call returns, raises what it raises, and a
process that dies (a native abort, as gmsh's curved-element optimization did in a suite worker) is a Crash naming
the signal, not the caller's death."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap

import pytest

from structcheck import isolated


def test_a_call_returns_its_result_and_raises_its_exception():
    assert isolated.call(math.hypot, 3.0, 4.0) == 5.0
    assert isolated.call(sorted, [3, 1, 2], reverse=True) == [3, 2, 1]
    with pytest.raises(ValueError, match="invalid literal"):
        isolated.call(int, "x")


def test_an_abort_in_the_child_is_a_crash_naming_the_signal():
    with pytest.raises(isolated.Crash) as crash:
        isolated.call(os.abort)
    assert crash.value.returncode == -6 and str(crash.value) == "killed by SIGABRT"
    assert "Fatal Python error: Aborted" in crash.value.stderr  # the child's stack, for the message


def test_native_output_on_stdout_does_not_spoil_the_answer():
    """OpenCASCADE prints its transfer statistics on file descriptor 1, where the answer would go."""
    assert isolated.call(os.system, "echo noise on fd 1") == 0


def test_a_call_that_cannot_reach_the_child_is_unreadable():
    with pytest.raises(isolated.Unreadable):
        isolated.call(lambda: 1)
    script = textwrap.dedent("""
        from structcheck import isolated

        def local():  # defined in __main__: pickles here, but the child's __main__ has no such function
            return 1

        try:
            isolated.call(local)
        except isolated.Unreadable:
            print("unreadable")
        """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "unreadable"


def _structcheck_file() -> str:
    import structcheck

    return structcheck.__file__


def test_the_child_imports_structcheck_from_where_the_caller_does():
    """The caller's sys.path goes to the child (a checkout run in place, beside an installed copy)."""
    import structcheck

    assert isolated.call(_structcheck_file) == structcheck.__file__
