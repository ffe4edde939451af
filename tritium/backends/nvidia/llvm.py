"""LLVM IR text -> PTX, through llvmlite's NVPTX backend.

One call does what upstream's `make_llir` tail and `make_ptx` do: parse the
module, link libdevice when the kernel calls `__nv_*` math, run O3, emit PTX
for e.g. `sm_90a` and fix up the `.version` / `.target` header for the ptxas
that will assemble it.

Speed notes (measured with llvmlite 0.50 / LLVM 22):
* Linking the whole of libdevice (575 functions) and then running O3 costs
  ~0.09 s of optimisation on code we immediately delete. We instead keep, per
  libdevice function, a trimmed bitcode module holding just that function and
  what it calls; a kernel links only those. After the first use of a function
  a compile with libdevice costs about as much as one without.
* Parsing libdevice.10.bc takes ~30 ms (and trimming it ~10 ms more; 2-3x both on
  a GPU host). Each function's trimmed bitcode is kept in the cache directory as well,
  so a later process (a compile worker, the next run) reads a few kB instead. Where
  it must parse, a process does so once for the common math functions (`_COMMON`,
  kept as one small bitcode module), once more per new set of rarer ones, and never
  for kernels that call no `__nv_` function.
"""
from __future__ import annotations

import hashlib
import os
import re
import threading
from typing import Dict, Iterable, List, Optional, Set

from ..._files import write_atomically

__all__ = ["llir_to_ptx", "find_libdevice", "llvm_max_ptx_version", "choose_ptx_version",
           "written_ptx_version",
           "kernel_names", "libdevice_calls", "stats"]

TRIPLE = "nvptx64-nvidia-cuda"

# Highest `+ptxNN` feature each LLVM major version knows. An unknown feature is
# ignored with a warning (and the PTX silently drops to the arch's default), so
# this table errs low; tests check the entry of the installed LLVM.
_LLVM_MAX_PTX = {17: 82, 18: 83, 19: 85, 20: 86, 21: 87, 22: 90}

# Lowest PTX ISA each arch exists in. LLVM aborts the whole process (not an
# exception) when asked for an older one, so we must never pass one.
_ARCH_MIN_PTX = {
    "sm_70": 60, "sm_72": 61, "sm_75": 63, "sm_80": 70, "sm_86": 71, "sm_87": 74,
    "sm_89": 78, "sm_90": 78, "sm_90a": 80, "sm_100": 86, "sm_100a": 86, "sm_101": 86,
    "sm_101a": 86, "sm_103": 88, "sm_103a": 88, "sm_120": 87, "sm_120a": 87,
}

_lock = threading.RLock()   # LLVM command-line options are process-global state
_state: Dict[str, object] = {"init": False, "fma": None}
_target_machines: Dict[tuple, object] = {}
_libdevice_bytes: Dict[str, bytes] = {}
_libdevice_defined: Dict[str, Set[str]] = {}
_libdevice_bc: Dict[tuple, bytes] = {}      # (path, function) -> trimmed bitcode
_libdevice_disk: Dict[str, Optional[str]] = {}  # path -> its functions' cache key (None: none)
stats = {"libdevice_parses": 0, "libdevice_links": 0}


def _llvm():
    import llvmlite.binding as llvm
    if not _state["init"]:
        with _lock:
            if not _state["init"]:
                _init(llvm)
    return llvm


def _init(llvm) -> None:
    import warnings
    # llvmlite < 0.45 needs initialize(); newer versions warn that it is a no-op.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            llvm.initialize()
        except Exception:
            pass
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    # Same codegen flags as upstream: 32-bit pointers for shared/const/local
    # address spaces (cheaper address arithmetic) and wide mad for addressing.
    llvm.set_option("tritium", "-nvptx-short-ptr")
    llvm.set_option("tritium", "-nvptx-mad-wide-opt")
    _state["extra"] = os.environ.get("TRITIUM_LLVM_OPTIONS", "").strip()
    for option in _state["extra"].split():
        llvm.set_option("tritium", option)
    _state["init"] = True


def llvm_major() -> int:
    return _llvm().llvm_version_info[0]


def llvm_max_ptx_version() -> int:
    major = llvm_major()
    if major in _LLVM_MAX_PTX:
        return _LLVM_MAX_PTX[major]
    known = [v for k, v in _LLVM_MAX_PTX.items() if k <= major]
    return max(known) if known else min(_LLVM_MAX_PTX.values())


def _default_target_ptx() -> Optional[int]:
    """PTX version the consumer of our PTX accepts: ptxas if found, else the driver's JIT."""
    from . import toolchain
    from .toolchain import ptx_version_for
    v = toolchain.ptxas_version()
    if v is not None:
        return ptx_version_for(v)
    try:
        from . import driver
        if driver.is_available():
            return ptx_version_for(driver.cuda_version())
    except Exception:
        pass
    return None


def choose_ptx_version(arch: str, ptx_version: Optional[int] = None):
    """(feature version given to LLVM, version written into `.version` or None)."""
    target = ptx_version if ptx_version is not None else _default_target_ptx()
    feature = llvm_max_ptx_version()
    if target is not None:
        feature = min(feature, target)
    need = _ARCH_MIN_PTX.get(arch, 0)
    if need > feature:
        if need > llvm_max_ptx_version():
            raise ValueError(f"{arch} needs PTX {need // 10}.{need % 10}, newer than this LLVM "
                             f"({llvm_major()}) can emit")
        if target is not None and need > target:
            raise ValueError(f"{arch} needs PTX {need // 10}.{need % 10} but the target PTX version is "
                             f"{target // 10}.{target % 10} (ptxas or driver too old?)")
        feature = need
    return feature, target


def written_ptx_version(arch: str, ptx_version: Optional[int] = None) -> int:
    """The `.version` llir_to_ptx writes for these arguments (what ptxas reads)."""
    feature, target = choose_ptx_version(arch, ptx_version)
    return target if target is not None else feature


def _target_machine(arch: str, feature: int):
    key = (arch, feature)
    tm = _target_machines.get(key)
    if tm is None:
        llvm = _llvm()
        target = llvm.Target.from_triple(TRIPLE)
        tm = target.create_target_machine(cpu=arch, features=f"+ptx{feature}", opt=3)
        _target_machines[key] = tm
    return tm


def extra_options() -> str:
    """`TRITIUM_LLVM_OPTIONS`: LLVM command-line options (space-separated, e.g.
    `-max-speculation-depth=0`) for tritium's LLVM, part of the backend hash. LLVM's options
    are process-wide and cannot be unset, so the variable is read once, when LLVM is first
    used in the process (compile workers read their own at start, from the same
    environment)."""
    if _state["init"]:
        return _state["extra"]
    return os.environ.get("TRITIUM_LLVM_OPTIONS", "").strip()


def _set_fma(enable: bool) -> None:
    # LLVM's NVPTX backend fuses fmul+fadd only for `contract` instructions
    # unless the target options say otherwise; llvmlite cannot set target
    # options, but this backend flag, once given, overrides them both ways.
    level = 1 if enable else 0
    if _state["fma"] != level:
        _llvm().set_option("tritium", f"-nvptx-fma-level={level}")
        _state["fma"] = level


# ---------------------------------------------------------------------------
# text-level helpers

_RE_PTX_KERNEL = re.compile(r"^define\b[^\n@]*\bptx_kernel\b[^\n@]*@(\"[^\"]+\"|[\w.$]+)\s*\(", re.M)
_RE_ANNOT_KERNEL = re.compile(r"!\{\s*ptr\s+@(\"[^\"]+\"|[\w.$]+)\s*,\s*!\"kernel\"\s*,\s*i32\s+1\s*\}")
_RE_NV_DECL = re.compile(r"^declare\b[^\n@]*@(__nv_\w+)\s*\(", re.M)
_RE_MD_ID = re.compile(r"^!(\d+)\s*=", re.M)
_RE_FLAGS = re.compile(r"^!llvm\.module\.flags\s*=\s*!\{(.*)\}\s*$", re.M)


def _top_level(llir: str, prefix: str) -> str:
    """The lines of `llir` that start with `prefix` (`define`, `declare`, `!`: the module's
    top level), found by `str.find` hops: a big kernel is megabytes of instruction lines,
    which a multi-line regex would try at every offset (~6 ms a scan for flex attention's
    1.8 MB, five scans per compile)."""
    lines = []
    if llir.startswith(prefix):
        i = 0
    else:
        k = llir.find("\n" + prefix)
        i = k + 1 if k >= 0 else -1
    while i >= 0:
        j = llir.find("\n", i)
        if j < 0:
            lines.append(llir[i:])
            break
        lines.append(llir[i:j])
        k = llir.find("\n" + prefix, j)
        i = k + 1 if k >= 0 else -1
    return "\n".join(lines)


def _next_metadata_id(llir: str) -> int:
    """A metadata number `!N` the module does not use yet."""
    return max((int(i) for i in _RE_MD_ID.findall(_top_level(llir, "!"))), default=-1) + 1


def kernel_names(llir: str) -> List[str]:
    """Entry points: `ptx_kernel` functions and old-style `nvvm.annotations` kernels."""
    names = [m.strip('"') for m in _RE_PTX_KERNEL.findall(_top_level(llir, "define"))]
    names += [m.strip('"') for m in _RE_ANNOT_KERNEL.findall(_top_level(llir, "!"))
              if m.strip('"') not in names]
    return names


def libdevice_calls(llir: str) -> List[str]:
    """`__nv_*` functions the module declares (and so needs from libdevice)."""
    return sorted(set(_RE_NV_DECL.findall(_top_level(llir, "declare"))))


_RE_DECL = re.compile(r'^declare\b[^@\n]*@("[^"]+"|[\w.$]+)\(', re.M)
_extern_defined: Dict[str, Set[str]] = {}   # bitcode path -> functions it defines


def extern_calls(llir: str) -> List[str]:
    """Functions the module declares that neither LLVM (`llvm.*` intrinsics), the CUDA
    runtime (`vprintf`, `__assertfail`) nor libdevice (`__nv_*`) supplies: what an
    `extern_libs` library may define."""
    names = (m.strip('"') for m in _RE_DECL.findall(_top_level(llir, "declare")))
    return sorted({n for n in names if not n.startswith(("llvm.", "__nv_", "__nvvm_"))
                   and n not in ("vprintf", "__assertfail")})


def _link_extern_libs(llvm, mod, wanted: List[str], libs, data_layout: str) -> None:
    """Link each `extern_libs` bitcode file (other than libdevice, linked per function
    above) that defines a function the kernel calls, as upstream links its extern libs;
    O3 then drops what the kernel does not use."""
    for name, path in libs:
        if name == "libdevice" or not wanted:
            continue
        defined = _extern_defined.get(path)
        lib = None
        if defined is None:
            lib = llvm.parse_bitcode(_read_libdevice(path))
            defined = _extern_defined[path] = {f.name for f in lib.functions
                                               if not f.is_declaration}
        if not defined.intersection(wanted):
            continue
        lib = lib or llvm.parse_bitcode(_read_libdevice(path))
        lib.triple, lib.data_layout = TRIPLE, data_layout
        mod.link_in(lib)
        wanted = [w for w in wanted if w not in defined]


def _add_reflect_ftz_flag(llir: str, ftz: bool = True) -> str:
    """Add `nvvm-reflect-ftz = 1` (override) like upstream, so libdevice's
    `__nvvm_reflect("__CUDA_FTZ")` folds to the flush-to-zero variants (0: the IEEE
    ones, upstream's `enable_reflect_ftz=False`)."""
    if "nvvm-reflect-ftz" in llir:
        return llir
    new = _next_metadata_id(llir)
    node = f'!{new} = !{{i32 4, !"nvvm-reflect-ftz", i32 {int(bool(ftz))}}}\n'
    at = llir.find("!llvm.module.flags")  # (the regex from there: a line-anchored match)
    m = _RE_FLAGS.search(llir, max(at - 1, 0)) if at >= 0 else None
    if m:
        inner = m.group(1).strip()
        repl = f"!llvm.module.flags = !{{{inner + ', ' if inner else ''}!{new}}}"
        return llir[:m.start()] + repl + llir[m.end():] + "\n" + node
    return llir + f"\n!llvm.module.flags = !{{!{new}}}\n" + node


def _legacy_kernels(llir: str) -> str:
    """LLVM < 20 has no `ptx_kernel` calling convention: mark entries with
    `nvvm.annotations` instead (what LLVM 20+ auto-upgrades from)."""
    names = [m.strip('"') for m in _RE_PTX_KERNEL.findall(llir)]
    if not names:
        return llir
    llir = re.sub(r"^(define\b[^\n@]*?)\bptx_kernel\s+", r"\1", llir, flags=re.M)
    base = _next_metadata_id(llir)
    ids = ", ".join(f"!{base + i}" for i in range(len(names)))
    nodes = "".join(f'!{base + i} = !{{ptr @"{n}", !"kernel", i32 1}}\n' for i, n in enumerate(names))
    return llir + f"\n!nvvm.annotations = !{{{ids}}}\n" + nodes


# ---------------------------------------------------------------------------
# libdevice


def find_libdevice() -> Optional[str]:
    """Path of libdevice.10.bc: TRITON_LIBDEVICE_PATH, the nvidia-nvvm wheel,
    an installed upstream Triton, then CUDA_HOME / CUDA_PATH / /usr/local/cuda."""
    import tritium.knobs as knobs
    env = knobs.nvidia.libdevice_path
    if env:
        return env
    from .toolchain import _package_dirs
    cands = []
    for root in _package_dirs("nvidia"):
        for sub in ("cu13", "cuda_nvcc", "nvvm", "cu12"):
            cands += [os.path.join(root, sub, "nvvm", "libdevice", "libdevice.10.bc"),
                      os.path.join(root, sub, "libdevice", "libdevice.10.bc")]
    for root in _package_dirs("triton"):
        cands.append(os.path.join(root, "backends", "nvidia", "lib", "libdevice.10.bc"))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            cands.append(os.path.join(os.environ[var], "nvvm", "libdevice", "libdevice.10.bc"))
    cands.append("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc")
    return next((c for c in cands if os.path.isfile(c)), None)


def _read_libdevice(path: str) -> bytes:
    data = _libdevice_bytes.get(path)
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
        _libdevice_bytes[path] = data
    return data


def _trim(llvm, module, keep: Iterable[str], tm) -> None:
    """Internalize everything but `keep` and delete what became unreachable."""
    keep = set(keep)
    for fn in module.functions:
        if not fn.is_declaration and fn.name not in keep:
            fn.linkage = llvm.Linkage.internal
    for gv in module.global_variables:
        if not gv.is_declaration and gv.linkage == llvm.Linkage.external:
            gv.linkage = llvm.Linkage.internal
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0))
    mpm = llvm.create_new_module_pass_manager()
    mpm.add_global_dead_code_eliminate_pass()
    mpm.run(module, pb)


# The libdevice functions Inductor's and Triton's math reach for, float and double: the
# first kernel of a process that needs any of them parses libdevice once and keeps these
# (90 kB of bitcode, 3-5 ms to parse); each later new function is cut from that instead of
# from a fresh 28 ms parse of the whole library (+10 ms to trim it). A torch.compile first
# call of a small model paid that 40 ms (80-100 on the GPU host) for every new function.
_COMMON_BASES = (
    "rsqrt sqrt pow powi trunc floor ceil round rint nearbyint llrint tanh fast_tanh tan sinh "
    "cosh exp exp2 expm1 log log2 log10 log1p ldexp ilogb isnan isinf finite signbit copysign "
    "nextafter atan atan2 asin acos asinh acosh atanh sin cos hypot fmod erf erfc erfinv fabs "
    "fmin fmax fma").split()
_COMMON = frozenset(f"__nv_{b}{s}" for b in _COMMON_BASES for s in ("f", ""))
_libdevice_common: Dict[str, bytes] = {}    # path -> bitcode of the _COMMON functions it defines


def _libdevice_source(llvm, path: str, missing: List[str], tm, data_layout: str):
    """A parsed module defining every name in `missing` (and maybe more)."""
    common = _libdevice_common.get(path)
    if common is not None and all(n in _COMMON for n in missing):
        module = llvm.parse_bitcode(common)
    else:
        module = llvm.parse_bitcode(_read_libdevice(path))
        stats["libdevice_parses"] += 1
        module.triple = TRIPLE
        module.data_layout = data_layout
        defined = _libdevice_defined.setdefault(
            path, {f.name for f in module.functions if not f.is_declaration})
        unknown = [n for n in missing if n not in defined]
        if unknown:
            raise ValueError(f"not in libdevice ({path}): {', '.join(unknown)}")
        if common is None and all(n in _COMMON for n in missing):
            _trim(llvm, module, _COMMON & defined, tm)
            _libdevice_common[path] = module.as_bitcode()
    return module


def _disk_dir(llvm, path: str) -> Optional[str]:
    """Cache-directory folder of `path`'s trimmed functions, named by what they are derived
    from: that file, this LLVM's bitcode and this module's code (which trims them)."""
    key = _libdevice_disk.get(path, "")
    if key == "":
        try:
            st = os.stat(path)
            with open(__file__, "rb") as f:
                code = f.read()
            parts = (os.path.abspath(path), st.st_size, st.st_mtime_ns, llvm.llvm_version_info,
                     hashlib.sha256(code).hexdigest())
            key = "libdevice-" + hashlib.sha256(repr(parts).encode()).hexdigest()[:40]
        except Exception:  # noqa: BLE001  (no cache: every process parses, as before)
            key = None
        _libdevice_disk[path] = key
    if key is None:
        return None
    import tritium.knobs as knobs
    return os.path.join(knobs.cache.dir, key)


def _load_from_disk(llvm, path: str, names: List[str]) -> None:
    folder = _disk_dir(llvm, path)
    for n in names if folder else ():
        try:
            with open(os.path.join(folder, f"{n}.bc"), "rb") as f:
                data = f.read()
            llvm.parse_bitcode(data)  # (a truncated or foreign file is cut again)
        except (OSError, RuntimeError):
            continue
        _libdevice_bc[(path, n)] = data


def _store_on_disk(llvm, path: str, names: List[str]) -> None:
    """Best effort (compile workers store the same functions at once)."""
    folder = _disk_dir(llvm, path)
    for n in names if folder else ():
        write_atomically(folder, f"{n}.bc", _libdevice_bc[(path, n)])


def _libdevice_modules(llvm, names: List[str], path: str, tm, data_layout: str) -> List[bytes]:
    missing = [n for n in names if (path, n) not in _libdevice_bc]
    if missing:
        _load_from_disk(llvm, path, missing)
        missing = [n for n in missing if (path, n) not in _libdevice_bc]
    if missing:
        full = _libdevice_source(llvm, path, missing, tm, data_layout)
        _trim(llvm, full, missing, tm)
        if len(missing) == 1:
            _libdevice_bc[(path, missing[0])] = _pin_special_value_fmas(llvm, full)
        else:
            for n in missing:   # split per function so other kernels reuse each one
                part = full.clone()
                _trim(llvm, part, [n], tm)
                _libdevice_bc[(path, n)] = _pin_special_value_fmas(llvm, part)
        _store_on_disk(llvm, path, missing)
    return [_libdevice_bc[(path, n)] for n in names]


_INF_BITS = re.compile(r"(%[\w.]+) = bitcast i32 2139095040 to float")
_NVVM_FMA = re.compile(r"call float @llvm\.nvvm\.fma\.rn(\.ftz)?\.f\("
                       r"float (%[\w.]+), float (%[\w.]+), float (%[\w.]+)\)")


def _pin_special_value_fmas(llvm, module) -> bytes:
    """Bitcode of a libdevice function whose `fma(x, +inf, +inf)` calls — the branch that
    `logf`, `exp2f`, `tanhf`... take for an infinite or NaN argument — are inline asm of
    the same instruction. LLVM 22 marks the NVVM fma intrinsic speculatable, so O3 computes
    that branch for every element and selects (upstream's LLVM keeps the branch): one big
    basic block in which ptxas hoists every load of a loop, e.g. Liger's `_kldiv_kernel_forward`
    at 82 registers against upstream's 32, `_jsd_kernel` at 105 against 94. An asm call is
    never speculated, so the branch stays; the arithmetic is unchanged."""
    text = str(module)
    infs = set(_INF_BITS.findall(text))
    if not infs:
        return module.as_bitcode()

    def pin(m):
        ftz, x, a, b = m.groups()
        if a not in infs or b not in infs:
            return m.group(0)
        return (f'call float asm "fma.rn{ftz or ""}.f32 $0, $1, $2, $3;", "=f,f,f,f"'
                f"(float {x}, float {a}, float {b})")
    pinned = _NVVM_FMA.sub(pin, text)
    if pinned == text:
        return module.as_bitcode()
    return llvm.parse_assembly(pinned).as_bitcode()


# ---------------------------------------------------------------------------


def _fix_header(ptx: str, arch: str, version: Optional[int]) -> str:
    if version is not None:
        ptx = re.sub(r"^\.version \d+\.\d+", f".version {version // 10}.{version % 10}", ptx, count=1, flags=re.M)
    # `debug` in .target would make ptxas require DWARF sections we do not emit.
    ptx = re.sub(r"^\.target sm_\d+[af]?(,\s*debug)?", f".target {arch}", ptx, count=1, flags=re.M)
    return ptx


def llir_to_ptx(llir_text: str, arch: str = "sm_90a", ptx_version: Optional[int] = None,
                enable_fp_fusion: bool = True, libdevice_path: Optional[str] = None,
                extern_libs: Iterable = (), enable_reflect_ftz: bool = True) -> str:
    """Compile LLVM IR text (kernels declared `define ptx_kernel void @k(...)`) to PTX.
    `extern_libs`: upstream's option, `(name, path)` pairs of bitcode files; "libdevice"
    names the libdevice to use, the others are linked when they define a function the
    kernel calls."""
    extern_libs = tuple(extern_libs)
    libdevice_path = dict(extern_libs).get("libdevice") or libdevice_path
    llvm = _llvm()
    if llvm.llvm_version_info[0] < 17:
        # Older NVPTX backends do not know sm_90a and silently fall back to a
        # generic target; better to fail loudly here.
        raise RuntimeError(f"llvmlite's LLVM {llvm.llvm_version_info[0]} is too old for tritium; "
                           "install a newer llvmlite (tested with 0.50, LLVM 22)")
    feature, target = choose_ptx_version(arch, ptx_version)
    nv_funcs = libdevice_calls(llir_text)
    kernels = kernel_names(llir_text)
    text = llir_text
    if nv_funcs:
        text = _add_reflect_ftz_flag(text, enable_reflect_ftz)
    if llvm.llvm_version_info[0] < 20:
        text = _legacy_kernels(text)
    with _lock:
        tm = _target_machine(arch, feature)
        try:
            mod = llvm.parse_assembly(text)
        except RuntimeError as e:
            raise ValueError(f"invalid LLVM IR: {e}") from None
        mod.triple = TRIPLE
        data_layout = str(tm.target_data)
        mod.data_layout = data_layout
        if nv_funcs:
            path = libdevice_path or find_libdevice()
            if path is None:
                raise FileNotFoundError(
                    f"kernel calls {', '.join(nv_funcs)} but libdevice.10.bc was not found: "
                    "pip install nvidia-nvvm or set TRITON_LIBDEVICE_PATH")
            for bc in _libdevice_modules(llvm, nv_funcs, path, tm, data_layout):
                mod.link_in(llvm.parse_bitcode(bc))
            stats["libdevice_links"] += 1
        others = extern_calls(text) if len(extern_libs) > ("libdevice" in dict(extern_libs)) \
            else []
        _link_extern_libs(llvm, mod, others, extern_libs, data_layout)
        if kernels:
            # Helpers become internal so O3 may inline and delete them; only
            # entry points must survive with their names.
            for fn in mod.functions:
                if not fn.is_declaration and fn.name not in kernels:
                    fn.linkage = llvm.Linkage.internal
        try:
            mod.verify()
        except RuntimeError as e:
            raise ValueError(f"invalid LLVM IR: {e}") from None
        _set_fma(enable_fp_fusion)
        pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=3))
        pb.getModulePassManager().run(mod, pb)
        ptx = tm.emit_assembly(mod)
    return _fix_header(ptx, arch, target)
