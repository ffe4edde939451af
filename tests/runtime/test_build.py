"""`triton.runtime.build`: C source → a Python extension (imported) or a shared object,
built with the system compiler and cached; a cached object that does not load is rebuilt;
a compile error says what failed."""
import ctypes
import random
import shutil

import pytest

from tritium.runtime import build

pytestmark = [pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                 reason="needs a C compiler"),
              pytest.mark.usefixtures("private_cache")]

EXT = """
#include <Python.h>
static PyObject* add(PyObject* self, PyObject* args) {
    long a, b;
    if (!PyArg_ParseTuple(args, "ll", &a, &b)) return NULL;
    return PyLong_FromLong(a + b + OFFSET);
}
static PyMethodDef M[] = {{"add", add, METH_VARARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef D = {PyModuleDef_HEAD_INIT, "NAME", NULL, -1, M};
PyMODINIT_FUNC PyInit_NAME(void) { return PyModule_Create(&D); }
"""


def _src(name, offset):
    return EXT.replace("NAME", name).replace("OFFSET", str(offset))


def test_module_builds_runs_and_is_cached():
    offset = random.randrange(1000)
    name = f"tritium_build_{offset}"
    mod = build.compile_module_from_src(_src(name, offset), name)
    a, b = random.randrange(-10**6, 10**6), random.randrange(-10**6, 10**6)
    assert mod.add(a, b) == a + b + offset
    with pytest.raises(TypeError):
        mod.add("x", b)
    again = build.compile_module_from_src(_src(name, offset), name)
    assert again.__file__ == mod.__file__            # from the cache
    other = build.compile_module_from_src(_src(name, offset + 1), name)
    assert other.__file__ != mod.__file__            # another source, another entry


def test_a_cached_object_that_does_not_load_is_rebuilt():
    name = "tritium_build_corrupt"
    path = build.compile_so_from_src(_src(name, 3), name)   # cached, not loaded
    with open(path, "wb") as f:
        f.write(b"not a shared object")
    rebuilt = build.compile_module_from_src(_src(name, 3), name)
    assert rebuilt.add(1, 2) == 6


def test_shared_object_and_compile_errors():
    so = build.compile_so_from_src("int twice(int x) { return 2 * x; }", "tritium_twice")
    lib = ctypes.CDLL(so)
    assert lib.twice(21) == 42
    with pytest.raises(RuntimeError, match="building tritium_bad failed"):
        build.compile_so_from_src("int f( { }", "tritium_bad")
    with pytest.raises(ValueError, match="Unexpected language"):
        build.compile_so_from_src("", "x", language="fortran")
