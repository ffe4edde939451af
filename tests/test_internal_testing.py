"""tritium._internal_testing.run_in_process: upstream's test helper that runs a function in a
fresh interpreter with extra environment variables and hands back what it raised."""
import os

import pytest

from tritium._internal_testing import run_in_process


def _raise_if_env(name, expected):
    value = os.environ.get(name)
    if value != expected:
        raise ValueError(f"{name}={value!r}")
    raise KeyError(f"seen {value}")


def _return_quietly(pid_of_parent):
    if os.getpid() == pid_of_parent:
        raise AssertionError("ran in the parent process")


class _Unpicklable(Exception):
    def __reduce__(self):
        raise TypeError("no pickling")


def _raise_unpicklable():
    raise _Unpicklable("cannot travel")


@pytest.mark.slow
def test_run_in_process_env_args_and_exceptions():
    # The env reaches the child (KeyError carries its value), args arrive intact.
    result = run_in_process(_raise_if_env, ("TRITIUM_RIP_PROBE", "42"), env={"TRITIUM_RIP_PROBE": 42})
    assert isinstance(result.exc, KeyError) and "seen 42" in str(result.exc)
    assert "TRITIUM_RIP_PROBE" not in os.environ          # the parent's env is untouched
    result = run_in_process(_raise_if_env, ("TRITIUM_RIP_PROBE", "42"))
    assert isinstance(result.exc, ValueError) and "None" in str(result.exc)
    # A function that returns gives exc None; it ran in another process.
    assert run_in_process(_return_quietly, (os.getpid(), )).exc is None
    # An exception that cannot be pickled comes back as a RuntimeError with its text.
    result = run_in_process(_raise_unpicklable)
    assert isinstance(result.exc, RuntimeError) and "cannot travel" in str(result.exc)
