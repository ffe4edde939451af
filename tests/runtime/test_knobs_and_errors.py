"""Run-time errors (messages, pickling), launch-grid checks and environment knobs."""
import copy
import os
import pickle

import numpy as np
import pytest

from tritium.runtime import errors, knobs
from tritium.runtime.errors import InterpreterError, OutOfResources, PTXASError, TritonError
from tritium.runtime.errors_launch import check_grid

# ---------------------------------------------------------------------------------------
# errors

OOR_MESSAGE = ("out of resource: shared memory, Required: 233472, Hardware limit: 232448. "
               "Reducing block sizes or `num_stages` may help.")


def test_out_of_resources_message_and_fields():
    e = OutOfResources(233472, 232448, "shared memory")
    assert str(e) == OOR_MESSAGE
    assert (e.required, e.limit, e.name) == (233472, 232448, "shared memory")
    assert e.args == (233472, 232448, "shared memory")
    assert isinstance(e, TritonError) and isinstance(e, Exception)
    with pytest.raises(OutOfResources, match=r"out of resource: shared memory.*num_stages"):
        raise e


def test_out_of_resources_other_resources():
    assert str(OutOfResources(300, 255, "registers")).startswith(
        "out of resource: registers, Required: 300, Hardware limit: 255.")


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_out_of_resources_pickles(protocol):
    e = OutOfResources(233472, 232448, "shared memory")
    back = pickle.loads(pickle.dumps(e, protocol=protocol))
    assert type(back) is OutOfResources
    assert (back.required, back.limit, back.name) == (233472, 232448, "shared memory")
    assert str(back) == OOR_MESSAGE and back.args == e.args


def test_out_of_resources_copies():
    e = OutOfResources(1, 2, "shared memory")
    for c in (copy.copy(e), copy.deepcopy(e)):
        assert type(c) is OutOfResources and str(c) == str(e)


class _MyOutOfResources(OutOfResources):
    pass


def test_out_of_resources_subclass_pickles_as_itself():
    back = pickle.loads(pickle.dumps(_MyOutOfResources(3, 2, "x")))
    assert type(back) is _MyOutOfResources and back.required == 3


@pytest.mark.parametrize("make,text", [
    (lambda: PTXASError("ptxas fatal"), "PTXAS error: ptxas fatal"),
    (lambda: PTXASError(), "PTXAS error: "),
    (lambda: InterpreterError("index out of bounds"), "index out of bounds"),
    (lambda: InterpreterError(), ""),
])
def test_other_errors_message_and_pickling(make, text):
    e = make()
    assert str(e) == text and isinstance(e, TritonError)
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is type(e) and str(back) == text
    assert back.error_message == e.error_message


def test_errors_reexported_under_upstream_names():
    import tritium
    import tritium.runtime
    assert tritium.OutOfResources is OutOfResources
    assert tritium.runtime.OutOfResources is OutOfResources
    assert tritium.runtime.PTXASError is PTXASError
    assert set(errors.__all__) >= {"TritonError", "OutOfResources", "PTXASError", "InterpreterError"}


def test_out_of_resources_crosses_processes():
    # multiprocessing sends exceptions by pickling them; the fields must survive.
    import concurrent.futures
    import multiprocessing
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as ex:
        with pytest.raises(OutOfResources) as info:
            ex.submit(_raise_oor).result(timeout=60)
    assert info.value.required == 99 and str(info.value).startswith("out of resource: shared memory")


def _raise_oor():
    raise OutOfResources(99, 98, "shared memory")


# ---------------------------------------------------------------------------------------
# check_grid


class _Index:
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


@pytest.mark.parametrize("grid,expected", [
    ((4,), (4, 1, 1)),
    ((4, 5), (4, 5, 1)),
    ((4, 5, 6), (4, 5, 6)),
    ([4], (4, 1, 1)),
    ([4, 5, 6], (4, 5, 6)),
    (7, (7, 1, 1)),
    ((0,), (0, 1, 1)),  # an empty grid launches nothing, but is not an error
    ((0, 0, 0), (0, 0, 0)),
    ((np.int64(3), np.int32(2)), (3, 2, 1)),
    (np.int64(9), (9, 1, 1)),
    ((_Index(2), 3), (2, 3, 1)),
    (_Index(5), (5, 1, 1)),
    ((2 ** 31 - 1, 65535, 65535), (2 ** 31 - 1, 65535, 65535)),
])
def test_check_grid_accepts(grid, expected):
    out = check_grid(grid)
    assert out == expected
    assert type(out) is tuple and all(type(g) is int for g in out)


def test_check_grid_returns_a_well_formed_tuple_unchanged():
    g = (1, 2, 3)
    assert check_grid(g) is g


@pytest.mark.parametrize("grid,exc,match", [
    ((-1,), ValueError, r"grid\[0\] must be non-negative, got -1"),
    ((1, -2), ValueError, r"grid\[1\]"),
    ((1, 1, -3), ValueError, r"grid\[2\]"),
    (-5, ValueError, r"grid\[0\]"),
    ((np.int64(-1),), ValueError, r"grid\[0\]"),
    ((), TypeError, r"1 to 3 integers"),
    ([], TypeError, r"1 to 3 integers"),
    ((1, 2, 3, 4), TypeError, r"1 to 3 integers"),
    (None, TypeError, r"got None"),
    (2.0, TypeError, r"1 to 3 integers"),
    ("4", TypeError, r"1 to 3 integers"),
    ({"x": 1}, TypeError, r"1 to 3 integers"),
    ((2.0,), TypeError, r"grid\[0\] must be an integer, got float 2.0"),
    ((1, 2.5), TypeError, r"grid\[1\] must be an integer, got float"),
    ((1, "2"), TypeError, r"grid\[1\] must be an integer, got str"),
    ((1, None, 1), TypeError, r"grid\[1\]"),
    (True, TypeError, r"grid\[0\] must be an integer, got bool"),
    ((True,), TypeError, r"grid\[0\].*bool"),
    ((1, 2, False), TypeError, r"grid\[2\].*bool"),
    (((1, 2),), TypeError, r"grid\[0\]"),
    ((np.float32(1.0),), TypeError, r"grid\[0\]"),
])
def test_check_grid_rejects(grid, exc, match):
    with pytest.raises(exc, match=match):
        check_grid(grid)


# ---------------------------------------------------------------------------------------
# knobs


@pytest.fixture
def env(monkeypatch):
    for k in list(os.environ):
        if k.startswith(("TRITON_", "TRITIUM_")) or k == "MLIR_ENABLE_DUMP":
            monkeypatch.delenv(k)
    return monkeypatch


FLAGS = [
    (knobs.interpret, "TRITON_INTERPRET"),
    (knobs.kernel_dump, "TRITON_KERNEL_DUMP"),
    (knobs.always_compile, "TRITON_ALWAYS_COMPILE"),
    (knobs.front_end_debugging, "TRITON_FRONT_END_DEBUGGING"),
    (knobs.log_recompiles, "TRITIUM_LOG_RECOMPILES"),
    (knobs.log_recompiles, "TRITON_LOG_RECOMPILES"),
    (knobs.debug, "TRITON_DEBUG"),
]


@pytest.mark.parametrize("knob,var", FLAGS, ids=[v for _, v in FLAGS])
@pytest.mark.parametrize("value,on", [("1", True), ("true", True), ("True", True), ("TRUE", True),
                                      ("on", True), ("yes", True), ("0", False), ("false", False),
                                      ("off", False), ("no", False), ("", False)])
def test_boolean_knobs(env, knob, var, value, on):
    assert knob() is False  # unset
    env.setenv(var, value)
    assert knob() is on


@pytest.mark.parametrize("knob,var", FLAGS, ids=[v for _, v in FLAGS])
def test_unknown_boolean_value_names_the_knob(env, knob, var):
    env.setenv(var, "2")
    with pytest.raises(ValueError, match=f"{var}='2' is not a boolean: use one of 1, true"):
        knob()


def test_knobs_are_read_when_used_not_at_import(env):
    assert not knobs.always_compile()
    env.setenv("TRITON_ALWAYS_COMPILE", "1")
    assert knobs.always_compile()
    env.setenv("TRITON_ALWAYS_COMPILE", "0")
    assert not knobs.always_compile()


@pytest.mark.parametrize("value,expected", [(None, None), ("0", None), ("", None), ("1", "1"),
                                            ("my_kernel", "my_kernel")])
def test_mlir_dump(env, value, expected):
    if value is not None:
        env.setenv("MLIR_ENABLE_DUMP", value)
    assert knobs.mlir_dump() == expected


def test_directories_default_under_home(env, tmp_path):
    env.setenv("HOME", str(tmp_path / "user"))
    assert knobs.home_dir() == os.path.join(str(tmp_path / "user"), "")  # "~/", as upstream
    assert knobs.cache_dir() == str(tmp_path / "user" / ".triton" / "cache")
    assert knobs.dump_dir() == str(tmp_path / "user" / ".triton" / "dump")


def test_directories_follow_triton_home(env, tmp_path):
    env.setenv("HOME", str(tmp_path / "user"))
    env.setenv("TRITON_HOME", str(tmp_path / "th"))
    assert knobs.home_dir() == str(tmp_path / "th")
    assert knobs.cache_dir() == str(tmp_path / "th" / ".triton" / "cache")
    assert knobs.dump_dir() == str(tmp_path / "th" / ".triton" / "dump")


def test_explicit_directories_win(env, tmp_path):
    env.setenv("TRITON_HOME", str(tmp_path / "th"))
    env.setenv("TRITON_CACHE_DIR", str(tmp_path / "c"))
    env.setenv("TRITON_DUMP_DIR", str(tmp_path / "d"))
    assert knobs.cache_dir() == str(tmp_path / "c")
    assert knobs.dump_dir() == str(tmp_path / "d")


def test_empty_directory_variables_mean_unset(env, tmp_path):
    env.setenv("HOME", str(tmp_path / "user"))
    env.setenv("TRITON_HOME", "")
    env.setenv("TRITON_CACHE_DIR", "")
    env.setenv("TRITON_DUMP_DIR", "")
    assert knobs.cache_dir() == str(tmp_path / "user" / ".triton" / "cache")
    assert knobs.dump_dir() == str(tmp_path / "user" / ".triton" / "dump")
