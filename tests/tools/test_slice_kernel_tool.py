"""`triton_to_gluon_translator.slice_kernel`: a kernel and what it uses as one file.

Sliced files are written out, imported fresh and run, so a wrong copy, a missed dependency
or a bad rename shows up as a wrong value or a NameError, not only as a text mismatch."""
import ast
import importlib
import os
import subprocess
import sys
import textwrap
import uuid

import numpy as np
import pytest

import tritium

from tritium.tools.triton_to_gluon_translator.slice_kernel import get_reference, main, slice_kernel
from tritium.tools.triton_to_gluon_translator import slice_kernel as sk


@pytest.fixture
def make_package(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(tmp_path)] + sys.path)
    made = []

    def make(files):
        pkg = f"sk_{uuid.uuid4().hex[:12]}"
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "__init__.py").write_text("")
        for name, src in files.items():
            (tmp_path / pkg / name).write_text(textwrap.dedent(src).lstrip())
        importlib.invalidate_caches()
        made.append(pkg)
        return pkg

    yield make
    for name in [m for m in sys.modules if m.split(".")[0] in made or m.startswith("sliced_")]:
        del sys.modules[name]


def load_output(tmp_path, text):
    name = f"sliced_{uuid.uuid4().hex[:12]}"
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


KERNEL_FILES = {
    "consts.py": "BLOCK = 64\n",
    "ops.py": """
        import tritium
        import tritium.language as tl

        @tritium.jit
        def scale(x, factor):
            return x * factor
    """,
    "kern.py": """
        import math
        import tritium
        import tritium.language as tl
        from .consts import BLOCK
        from .ops import scale as _scale

        FACTOR = tl.constexpr(math.sqrt(2.0))

        @tritium.jit
        def add_scaled(X, Y, Z, n, B: tl.constexpr):
            offs = tl.program_id(0) * B + tl.arange(0, B)
            mask = offs < n
            x = tl.load(X + offs, mask=mask)
            y = tl.load(Y + offs, mask=mask)
            tl.store(Z + offs, _scale(x, FACTOR) + y, mask=mask)

        def launch(x, y, z):
            add_scaled[(tritium.cdiv(x.size, BLOCK),)](x, y, z, x.size, B=BLOCK)
    """,
}


@pytest.mark.parametrize("n", [1, 63, 64, 200])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sliced_kernel_runs_and_matches_numpy(make_package, tmp_path, n, dtype):
    pkg = make_package(KERNEL_FILES)
    text = slice_kernel([f"{pkg}.kern:launch"], ["tritium", "torch"])
    assert pkg not in text                  # standalone: nothing imported from the package
    # tritium's modules are spelled `triton.*` once compat is installed (other tests do).
    spelled = "triton" if "triton" in sys.modules else "tritium"
    assert f"import {spelled}.language as tl" in text and "import math" in text
    assert "BLOCK = 64" in text and "FACTOR = tl.constexpr(math.sqrt(2.0))" in text
    # Dependencies first: each definition after everything it uses.
    assert text.index("def scale") < text.index("def add_scaled") < text.index("def launch")
    module = load_output(tmp_path, text)
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    z = np.full(n, np.nan, dtype)
    module.launch(x, y, z)
    np.testing.assert_allclose(z, x * np.sqrt(2.0) + y, rtol=1e-5, atol=1e-6)


def test_clashing_names_get_module_prefixes_and_still_resolve(make_package, tmp_path):
    pkg = make_package({
        "a.py": "def f():\n    return 1\n",
        "b.py": "def f():\n    return 20\n",
        "c.py": """
            from . import a
            from .b import f as g

            def f():
                return 300

            def root():
                return f() + a.f() + g()
        """,
    })
    text = slice_kernel([f"{pkg}.c:root"], [])
    names = [n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]
    assert sorted(names) == ["a_f", "b_f", "f", "root"]
    assert load_output(tmp_path, text).root() == 321


def test_mutual_recursion_keeps_source_order(make_package, tmp_path):
    pkg = make_package({"m.py": """
        def is_even(n):
            return True if n == 0 else is_odd(n - 1)

        def is_odd(n):
            return False if n == 0 else is_even(n - 1)

        def root(n):
            return is_odd(n)
    """})
    text = slice_kernel([f"{pkg}.m:root"], [])
    assert text.index("def is_even") < text.index("def is_odd") < text.index("def root")
    module = load_output(tmp_path, text)
    assert [module.root(i) for i in range(5)] == [False, True, False, True, False]


def test_locals_shadowing_globals_are_not_copied(make_package, tmp_path):
    pkg = make_package({"m.py": """
        x = 1
        y = 2
        z = 3
        w = 4
        v = 5
        counter = 10

        def root(v):
            total = sum([x for x in range(3)])          # comprehension variable
            total += (lambda y: y)(4)                   # lambda parameter
            for z in range(2):                          # loop target, local everywhere
                pass
            def w():
                return 7
            global counter
            return total + z + w() + v + counter
    """})
    text = slice_kernel([f"{pkg}.m:root"], [])
    for absent in ("x = 1", "y = 2", "z = 3", "w = 4", "v = 5"):
        assert absent not in text
    assert "counter = 10" in text          # declared global: still the module's
    assert load_output(tmp_path, text).root(100) == 3 + 4 + 1 + 7 + 100 + 10


def test_leaf_paths_and_include_below(make_package, tmp_path):
    pkg = make_package({
        "lib.py": "def keep():\n    return 5\n\ndef copied():\n    return 6\n",
        "m.py": "from .lib import keep, copied\n\ndef root():\n    return keep() + copied()\n",
    })
    text = slice_kernel([f"{pkg}.m:root"], [], leaf_paths=[f"{pkg}.lib:keep"])
    assert f"import {pkg}.lib" in text and f"{pkg}.lib.keep()" in text and "def copied" in text
    # A leaf package, parts of which are still copied from.
    text = slice_kernel([f"{pkg}.m:root"], [pkg], include_below=[f"{pkg}.m"])
    assert "def root" in text and "def keep" not in text and f"{pkg}.lib.copied()" in text
    text = slice_kernel([f"{pkg}.m:root"], [pkg], include_below=[f"{pkg}.m", f"{pkg}.lib"])
    assert "def keep" in text and "def copied" in text and "import" not in text
    text = slice_kernel([f"{pkg}.m:root"], [pkg])        # the root itself is then a leaf
    assert "def root" not in text
    assert load_output(tmp_path, slice_kernel([f"{pkg}.m:root"], [], leaf_paths=[f"{pkg}.lib:keep"])).root() == 11


def test_decorator_matcher_drops_it_and_those_above(make_package):
    pkg = make_package({"m.py": """
        def launcher(fn=None, **kw):
            return fn if fn is not None else (lambda f: f)

        def tag():
            return lambda f: f

        def setting():
            return 3

        @launcher
        @tag()
        def top():
            pass

        @tag()
        @launcher(n=setting())
        def bottom():
            pass
    """})
    module = importlib.import_module(f"{pkg}.m")

    def matcher(context, cur_module, deco):
        ref = get_reference(context, cur_module, deco.func if isinstance(deco, ast.Call) else deco)
        return ref is not None and ref[0] is module.launcher

    top = slice_kernel([f"{pkg}.m:top"], [], ignored_decorator_matchers=[matcher])
    assert "@tag()" in top and "def tag" in top and "launcher" not in top
    bottom = slice_kernel([f"{pkg}.m:bottom"], [], rewrite_spec=sk.RewriteSpec([matcher]))
    # Neither kept nor scanned: what only the dropped decorators used is not copied.
    assert "@" not in bottom and "def tag" not in bottom and "def setting" not in bottom
    assert "@launcher" in slice_kernel([f"{pkg}.m:top"], [])


def test_get_reference(make_package):
    pkg = make_package({"m.py": "import math\nVALUE = 3\n"})
    module = importlib.import_module(f"{pkg}.m")
    scopes = sk.Scopes(module.__dict__)
    expr = lambda s: ast.parse(s, mode="eval").body
    assert get_reference(scopes, module, expr("VALUE")) == (3, module, "VALUE")
    assert get_reference(scopes, module, expr("math.prod")) == (module.math.prod, module.math, "prod")
    assert get_reference(scopes, module, expr("missing")) is None
    assert get_reference(scopes, module, expr("VALUE.real")) is None     # not a module's attribute
    assert get_reference(scopes, module, expr("f()")) is None
    with scopes.scope({"VALUE": sk.LOCAL}):
        assert get_reference(scopes, module, expr("VALUE")) is None
    assert "VALUE" not in sk.Scopes({})


def test_bad_input_names_the_parameter(make_package):
    pkg = make_package({"m.py": "def root():\n    pass\n"})
    with pytest.raises(ValueError, match="root_paths entry 'm.root'.*module.path:name"):
        slice_kernel(["m.root"], [])
    with pytest.raises(ValueError, match=f"root_paths entry '{pkg}.m:nope'.*has no 'nope'"):
        slice_kernel([f"{pkg}.m:nope"], [])
    with pytest.raises(ValueError, match="leaf_paths entry"):
        slice_kernel([f"{pkg}.m:root"], [], leaf_paths=["bad"])
    with pytest.raises(TypeError, match="lists of strings"):
        slice_kernel(f"{pkg}.m:root", [])
    with pytest.raises(NotImplementedError, match="AMD target 'gfx950'"):
        slice_kernel([f"{pkg}.m:root"], [], translate_to_gluon=True, target="gfx950")


def test_cli_writes_the_slice(make_package, tmp_path):
    pkg = make_package({"m.py": "def helper():\n    return 2\n\ndef root():\n    return helper()\n"})
    out = tmp_path / "out.py"
    main([f"{pkg}.m:root", "--output-path", str(out)])
    assert load_output(tmp_path, out.read_text()).root() == 2


def test_under_compat_names_resolve_and_output_says_triton(tmp_path):
    # A fresh interpreter: compat's `triton` must not leak into this one.
    (tmp_path / "kmod.py").write_text(textwrap.dedent("""
        import triton
        import triton.language as tl

        @triton.jit
        def k(X, B: tl.constexpr):
            tl.store(X + tl.arange(0, B), tl.arange(0, B))
    """))
    code = textwrap.dedent("""
        import sys
        import tritium.compat
        tritium.compat.install()
        import triton.tools.triton_to_gluon_translator as pkg
        from triton.tools.triton_to_gluon_translator.slice_kernel import slice_kernel
        from triton.tools.triton_to_gluon_translator.stable_toposort import stable_toposort
        import tritium.tools.triton_to_gluon_translator.stable_toposort as ours
        assert stable_toposort is ours.stable_toposort
        assert not any(m.endswith("translator.translator") for m in sys.modules)  # not needed
        print(slice_kernel(["kmod:k"], ["triton", "torch"]))
    """)
    repo = os.path.dirname(os.path.dirname(tritium.__file__))
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": f"{tmp_path}:{repo}"})
    assert res.returncode == 0, res.stderr
    assert "import triton.language as tl" in res.stdout and "@triton.jit" in res.stdout
    assert "tritium" not in res.stdout


def test_translate_to_gluon_slices_host_and_kernel(make_package, tmp_path, rng):
    """Host code and the kernel it launches, translated together and run on the CPU."""
    import torch
    pkg = make_package({
        "k.py": """
            import torch
            import tritium
            import tritium.language as tl
            from tritium.tools.tensor_descriptor import TensorDescriptor

            SCALE = tl.constexpr(3)

            @tritium.jit
            def scaled_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                mask = offs < n
                x = tl.load(x_ptr + offs, mask=mask)
                tl.store(out_ptr + offs, x * SCALE + tl.load(y_ptr + offs, mask=mask), mask=mask)

            def run(x, y):
                out = torch.empty_like(x)
                scaled_add[(tritium.cdiv(x.numel(), 64), )](x, y, out, x.numel(), BLOCK=64)
                return out

            def descriptors(t):
                return TensorDescriptor.from_tensor(t, [16, 16]), convert_host_descriptor(TensorDescriptor(
                    t, t.shape, t.stride(), [16, 16]))

            def convert_host_descriptor(desc):
                return desc
        """})
    text = slice_kernel([f"{pkg}.k:run", f"{pkg}.k:descriptors"], ["tritium", "torch"], translate_to_gluon=True)
    assert "@gluon.jit\ndef scaled_add(" in text and "SCALE = gl.constexpr(3)" in text
    # Made descriptors are converted for Gluon; one the code already converts is not wrapped
    # twice (the user's own convert_host_descriptor keeps its place, under another name).
    assert "convert_host_descriptor(TensorDescriptor.from_tensor(t, [16, 16]))" in text
    assert "k_convert_host_descriptor(TensorDescriptor(t, t.shape, t.stride(), [16, 16]))" in text
    assert "def convert_host_descriptor(desc):" in text and "def k_convert_host_descriptor(desc):" in text
    torch.manual_seed(int(rng.integers(2**31)))
    x, y = torch.randn(1000), torch.randn(1000)
    torch.testing.assert_close(load_output(tmp_path, text).run(x, y), x * 3 + y, atol=0, rtol=0)


def test_cli_translates_to_gluon(make_package, tmp_path):
    pkg = make_package({"m.py": """
        import tritium
        import tritium.language as tl

        @tritium.jit
        def k(X, B: tl.constexpr):
            tl.store(X + tl.arange(0, B), tl.arange(0, B))
    """})
    out = tmp_path / "out.py"
    main([f"{pkg}.m:k", "--translate-to-gluon", "--output-path", str(out)])
    text = out.read_text()
    assert "@gluon.jit\ndef k(X, B: gl.constexpr):" in text and "gl.store(X + tl_arange(0, B), tl_arange(0, B))" in text
