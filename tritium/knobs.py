"""`triton.knobs`: every setting tritium reads, grouped as upstream groups them.

Each knob is a descriptor on its group's class. Reading it gives the value assigned in Python
if there is one, else the environment variable's (read at every access, so tests and users can
flip it), else the default. Assigning a value also writes the environment variable (unless
`propagate_env` is False), so child processes see it; assigning `knobs.env` or deleting the
attribute returns the knob to the environment. This module is the single source of truth:
`tritium.runtime.knobs` and every other reader go through it.
"""
from __future__ import annotations

import functools
import importlib
import os
import re
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Dict, Generic, List, Optional, TypeVar


class Env:
    """Assign `knobs.env` to a knob to drop its Python value and read the environment again."""


env = Env()
propagate_env: bool = True

_TRUE = ("1", "true", "on", "yes", "y")
_FALSE = ("0", "false", "off", "no", "n")
_UNSET = object()


def setenv(key: str, value: Optional[str]) -> None:
    if not propagate_env:
        return
    if value is not None:
        os.environ[key] = value
    else:
        os.environ.pop(key, None)


def toenv(value: Any):
    """The environment string for a Python value, as a 1-tuple; None when it has none."""
    if value is None:
        return (None,)
    if type(value) is bool:
        return ("1" if value else "0",)
    if type(value) in (str, int):
        return (str(value),)
    return None


def getenv(key: str, default: Optional[str] = None) -> Optional[str]:
    value = os.environ.get(key)
    return default if value is None else value


def parse_bool(key: str, text: Optional[str], default):
    """`text` read as a boolean; an unknown spelling names the knob and what it accepts."""
    if text is None or text.strip() == "":
        return default
    low = text.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise ValueError(f"{key}={text!r} is not a boolean: use one of "
                     f"{', '.join(_TRUE)} (on) or {', '.join(_FALSE)} (off)")


T = TypeVar("T")


class env_base(Generic[T]):
    def __init__(self, key: str) -> None:
        self.key = key

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__.get(self.name, _UNSET)
        if value is _UNSET:
            return self.get()
        return self.transform(value)

    def __set__(self, obj, value) -> None:
        if isinstance(value, Env):
            obj.__dict__.pop(self.name, None)
            return
        self.check(value)
        obj.__dict__[self.name] = value
        text = toenv(value)
        if text is not None:
            setenv(self.key, text[0])

    def __delete__(self, obj) -> None:
        obj.__dict__.pop(self.name, None)

    def get(self):
        raise NotImplementedError

    def check(self, value) -> None:
        """Reject a Python value the knob cannot hold, naming the knob."""

    def transform(self, value):
        return value


class env_str(env_base[str]):
    def __init__(self, key: str, default: str) -> None:
        super().__init__(key)
        self.default = default

    def get(self) -> str:
        return getenv(self.key, self.default)


class env_str_callable_default(env_base[str]):
    def __init__(self, key: str, default_factory: Callable[[], str]) -> None:
        super().__init__(key)
        self.default_factory = default_factory

    def get(self) -> str:
        value = getenv(self.key)
        return value if value else self.default_factory()  # empty means unset, for paths


class env_opt_str(env_base[Optional[str]]):
    def get(self) -> Optional[str]:
        return getenv(self.key)


class env_bool(env_base[bool]):
    def __init__(self, key: str, default: bool = False) -> None:
        super().__init__(key)
        self.default = default

    def get(self) -> bool:
        return parse_bool(self.key, getenv(self.key), self.default)

    def check(self, value) -> None:
        if not isinstance(value, (bool, int)) or isinstance(value, int) and value not in (0, 1):
            raise ValueError(f"knob {self.name} ({self.key}) takes True or False, got {value!r}")


class env_opt_bool(env_bool):
    def __init__(self, key: str) -> None:
        super().__init__(key, None)

    def check(self, value) -> None:
        if value is not None:
            super().check(value)


class env_int(env_base[int]):
    def __init__(self, key: str, default: int = 0) -> None:
        super().__init__(key)
        self.default = default

    def get(self) -> int:
        value = getenv(self.key)
        if value is None or value.strip() == "":
            return self.default
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"{self.key}={value!r} is not an integer") from None

    def check(self, value) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"knob {self.name} ({self.key}) takes an int, got {value!r}")


class env_class(env_base[Optional[type]]):
    """A class named `module:Class` in the environment, which must derive from `type_name`."""

    def __init__(self, key: str, type_name: str) -> None:
        super().__init__(key)
        self.type_name = type_name  # a name, not the class: the class's module imports this one

    def get(self) -> Optional[type]:
        value = getenv(self.key)
        if value is None or value == "":
            return None
        module, sep, name = value.partition(":")
        if not sep or not module or not name:
            raise ValueError(f"{self.key}={value!r}: expected MODULE:CLASS")
        try:
            cls = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as e:
            raise ValueError(f"{self.key}={value!r}: cannot load it ({e})") from None
        self._check_type(cls, value)
        return cls

    def check(self, value) -> None:
        if value is not None:
            self._check_type(value, repr(value))

    def _check_type(self, cls, shown) -> None:
        if not isinstance(cls, type) or self.type_name not in (c.__name__ for c in cls.mro()):
            raise ValueError(f"{self.key}: {shown} is not a subclass of {self.type_name}")


@dataclass
class NvidiaTool:
    path: str
    version: str

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def from_path(path: str) -> Optional["NvidiaTool"]:
        try:
            out = subprocess.check_output([path, "--version"], stderr=subprocess.STDOUT)
        except (OSError, subprocess.CalledProcessError):
            return None
        found = re.search(r"release (\d+\.\d+)", out.decode("utf-8", "replace"))
        return NvidiaTool(path, found.group(1)) if found else None


class env_nvidia_tool(env_base[NvidiaTool]):
    """`TRITON_<TOOL>_PATH`, else the tool tritium finds (CUDA wheels, CUDA_HOME, PATH)."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        super().__init__(f"TRITON_{binary.upper()}_PATH")

    def get(self) -> NvidiaTool:
        return self.transform(getenv(self.key))

    def setting(self, obj) -> Optional[str]:
        """The path the user chose (assigned, else the variable), without running the tool."""
        return obj.__dict__.get(self.name) or getenv(self.key) or None

    def transform(self, path: Optional[str]) -> NvidiaTool:
        from .backends.nvidia.toolchain import _search
        candidates = [path] if path else []
        found = _search(self.binary, None)
        if found:
            candidates.append(found)
        for candidate in candidates:
            tool = NvidiaTool.from_path(candidate)
            if tool is not None:
                return tool
        raise RuntimeError(f"Cannot find {self.binary} (set {self.key} to its path)")


# Launches test `hooks_maybe_set[0]` (one load) to stay on their fast path; it turns True
# once any launch hook is added or assigned and then the full check runs.
hooks_maybe_set = [False]
# Turns True (for good) once `runtime.add_stages_inspection_hook` is assigned: from then on
# launches leave the JIT's fast path, which cannot see the hook's pipeline hash.
pipeline_hook_maybe_set = [False]


class HookChain:
    """Hooks of one kind, called in order (`reversed=True`: last added first)."""

    def __init__(self, reversed: bool = False) -> None:
        self.calls: List[Callable] = []
        self.reversed = reversed

    def add(self, func: Callable) -> None:
        if func not in self.calls:
            self.calls.append(func)
        hooks_maybe_set[0] = True

    def remove(self, func: Callable) -> None:
        if func in self.calls:
            self.calls.remove(func)
        hooks_maybe_set[0] = launch_hooks_set()

    def __call__(self, *args, **kwargs) -> None:
        for call in (reversed(self.calls) if self.reversed else list(self.calls)):
            call(*args, **kwargs)


def _hook_set(hook) -> bool:
    if hook is None:
        return False
    calls = getattr(hook, "calls", None)
    return bool(calls) if calls is not None else callable(hook)


def launch_hooks_set() -> bool:
    """Whether a launch enter/exit hook is set (the launch path's slow check)."""
    return _hook_set(runtime.launch_enter_hook) or _hook_set(runtime.launch_exit_hook)


@dataclass(frozen=True)
class CompileTimes:
    """What a compilation spent where, in microseconds (given to `compilation.listener`)."""
    ir_initialization: int
    lowering_stages: List[tuple]
    store_results: int

    @property
    def total_lowering(self) -> int:
        return sum(t for _, t in self.lowering_stages)

    @property
    def total(self) -> int:
        return self.ir_initialization + self.total_lowering + self.store_results


class base_knobs:
    @property
    def knob_descriptors(self) -> Dict[str, env_base]:
        return {k: v for k, v in type(self).__dict__.items() if isinstance(v, env_base)}

    @property
    def knobs(self) -> Dict[str, Any]:
        return {k: getattr(self, k) for k in self.knob_descriptors}

    def copy(self):
        other = type(self)()
        other.__dict__.update(self.__dict__)
        return other

    def reset(self):
        for name in self.knob_descriptors:
            delattr(self, name)
        return self

    @contextmanager
    def scope(self):
        """Knob values and their environment variables are restored on exit."""
        saved_env = {d.key: os.environ.get(d.key) for d in self.knob_descriptors.values()}
        saved = dict(self.__dict__)
        try:
            yield
        finally:
            self.__dict__.clear()
            self.__dict__.update(saved)
            for key, value in saved_env.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


class build_knobs(base_knobs):
    cc = env_opt_str("CC")
    cudacrt_path = env_opt_str("TRITON_CUDACRT_PATH")
    cudart_path = env_opt_str("TRITON_CUDART_PATH")
    impl = None

    @property
    def backend_dirs(self) -> set:
        return {p for p in (self.cudacrt_path, self.cudart_path) if p is not None}


class redis_knobs(base_knobs):
    key_format = env_str("TRITON_REDIS_KEY_FORMAT", "triton:{key}:{filename}")
    host = env_str("TRITON_REDIS_HOST", "localhost")
    port = env_int("TRITON_REDIS_PORT", 6379)


class cache_knobs(base_knobs):
    # Upstream's default, "~/" expanded (with its trailing slash), but at each read.
    home_dir = env_str_callable_default("TRITON_HOME", lambda: os.path.expanduser("~/"))
    dump_dir = env_str_callable_default("TRITON_DUMP_DIR", lambda: cache.get_triton_dir("dump"))
    override_dir = env_str_callable_default("TRITON_OVERRIDE_DIR",
                                            lambda: cache.get_triton_dir("override"))
    dir = env_str_callable_default("TRITON_CACHE_DIR", lambda: cache.get_triton_dir("cache"))
    manager_class = env_class("TRITON_CACHE_MANAGER", "CacheManager")
    remote_manager_class = env_class("TRITON_REMOTE_CACHE_BACKEND", "RemoteCacheBackend")

    def get_triton_dir(self, dirname: str) -> str:
        return os.path.join(self.home_dir, ".triton", dirname)


class compilation_knobs(base_knobs):
    override = env_bool("TRITON_KERNEL_OVERRIDE")
    dump_ir = env_bool("TRITON_KERNEL_DUMP")
    store_binary_only = env_bool("TRITON_STORE_BINARY_ONLY")
    always_compile = env_bool("TRITON_ALWAYS_COMPILE")
    use_ir_loc = env_opt_str("USE_IR_LOC")
    enable_asan = env_bool("TRITON_ENABLE_ASAN")
    disable_line_info = env_bool("TRITON_DISABLE_LINE_INFO")
    front_end_debugging = env_bool("TRITON_FRONT_END_DEBUGGING")
    allow_non_constexpr_globals = env_bool("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS")
    enable_experimental_consan = env_bool("TRITON_ENABLE_EXPERIMENTAL_CONSAN")
    # tritium's own: worker processes that run a compile's stages after TTIR while this
    # process already runs two (compiler/workers.py); -1: the cores less two, 0: none.
    compile_workers = env_int("TRITIUM_COMPILE_WORKERS", -1)
    # Called after every compilation (and cache hit): listener(src=, metadata=,
    # metadata_group=, times=CompileTimes, cache_hit=).
    listener = None


class autotuning_knobs(base_knobs):
    # tritium keeps autotuning results on disk unless told not to (=0): a second process
    # then does not benchmark again. Upstream's default is off.
    cache = env_bool("TRITON_CACHE_AUTOTUNING", True)
    print = env_bool("TRITON_PRINT_AUTOTUNING")
    # tritium's own: the progress line on stderr (unset: only when stderr is a terminal).
    progress = env_opt_bool("TRITIUM_AUTOTUNE_PROGRESS")


class runtime_knobs(base_knobs):
    interpret = env_bool("TRITON_INTERPRET")
    debug = env_bool("TRITON_DEBUG")
    override_arch = env_opt_str("TRITON_OVERRIDE_ARCH")
    launch_enter_hook = HookChain()
    launch_exit_hook = HookChain(reversed=True)
    kernel_load_start_hook = HookChain()
    kernel_load_end_hook = HookChain(reversed=True)
    kernel_unload_hook = HookChain()
    jit_cache_hook = None
    jit_post_compile_hook = None
    add_stages_inspection_hook = None
    # tritium's own: say which argument's specialisation changed on every recompile.
    log_recompiles = env_bool("TRITON_LOG_RECOMPILES")

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name.startswith("launch_"):  # e.g. a plain function assigned, as before 3.4
            hooks_maybe_set[0] = launch_hooks_set() or _hook_set(value)
        if name == "add_stages_inspection_hook" and value is not None:
            pipeline_hook_maybe_set[0] = True


class language_knobs(base_knobs):
    fp32_default = env_opt_str("TRITON_F32_DEFAULT")
    default_fp_fusion = env_bool("TRITON_DEFAULT_FP_FUSION", True)


class cpu_knobs(base_knobs):
    # tritium's own: how kernels on CPU tensors run. Compiled by LLVM for this machine
    # (the default) or on the numpy evaluator of TTIR (TRITIUM_CPU_PATH=evaluator, and always
    # under TRITON_INTERPRET=1, for its bounds checks).
    path = env_str("TRITIUM_CPU_PATH", "native")
    max_threads = env_int("TRITON_CPU_MAX_THREADS", 0)  # 0: every core
    native_strict = env_bool("TRITIUM_CPU_NATIVE_STRICT")  # no fallback: a lowering gap raises
    # Bytes one launch stores through one op from which the compiled code writes past the
    # caches (non-temporal stores); 0: the last-level cache's size, -1: never.
    stream_bytes = env_int("TRITIUM_CPU_STREAM_BYTES", 0)
    # LLVM's remarks on loops it could not vectorise at the width the lowering asked for,
    # printed on stderr (else kept from the user: they are the lowering's to act on).
    llvm_remarks = env_bool("TRITIUM_CPU_LLVM_REMARKS")

    def compiled(self) -> bool:
        """Whether kernels on CPU tensors run compiled (else on the evaluator)."""
        return not runtime.interpret and \
            self.path.lower() not in ("evaluator", "eval", "interpret", "numpy")


class nvidia_knobs(base_knobs):
    cuobjdump = env_nvidia_tool("cuobjdump")
    nvdisasm = env_nvidia_tool("nvdisasm")
    ptxas = env_nvidia_tool("ptxas")
    dump_nvptx = env_bool("NVPTX_ENABLE_DUMP")
    disable_ptxas_opt = env_bool("DISABLE_PTXAS_OPT")
    ptxas_options = env_opt_str("PTXAS_OPTIONS")
    mock_ptx_version = env_opt_str("TRITON_MOCK_PTX_VERSION")
    dump_ptxas_log = env_bool("TRITON_DUMP_PTXAS_LOG")
    libdevice_path = env_opt_str("TRITON_LIBDEVICE_PATH")
    libcuda_path = env_opt_str("TRITON_LIBCUDA_PATH")


def nvidia_tool_setting(tool: str) -> Optional[str]:
    """The path chosen for `tool` ("ptxas", "cuobjdump", "nvdisasm"), or None to search."""
    return type(nvidia).__dict__[tool].setting(nvidia)


class amd_knobs(base_knobs):
    use_buffer_ops = env_bool("AMDGCN_USE_BUFFER_OPS", True)
    use_buffer_atomics = env_bool("AMDGCN_USE_BUFFER_ATOMICS", True)
    dump_amdgcn = env_bool("AMDGCN_ENABLE_DUMP")
    libhip_path = env_opt_str("TRITON_LIBHIP_PATH")
    use_block_pingpong = env_opt_bool("TRITON_HIP_USE_BLOCK_PINGPONG")
    use_in_thread_transpose = env_opt_bool("TRITON_HIP_USE_IN_THREAD_TRANSPOSE")
    global_prefetch = env_int("TRITON_HIP_GLOBAL_PREFETCH")
    local_prefetch = env_int("TRITON_HIP_LOCAL_PREFETCH")
    use_async_copy = env_bool("TRITON_HIP_USE_ASYNC_COPY")
    scalarize_packed_fops = env_bool("AMDGCN_SCALARIZE_PACKED_FOPS")


class proton_knobs(base_knobs):
    cupti_lib_dir = env_opt_str("TRITON_CUPTI_LIB_PATH")
    enable_nvtx = env_bool("TRITON_ENABLE_NVTX", True)


build = build_knobs()
redis = redis_knobs()
cache = cache_knobs()
compilation = compilation_knobs()
autotuning = autotuning_knobs()
runtime = runtime_knobs()
language = language_knobs()
cpu = cpu_knobs()
nvidia = nvidia_knobs()
amd = amd_knobs()
proton = proton_knobs()


def python_values_in_env() -> bool:
    """Whether every knob given a value in Python has it in its environment variable too
    (so a fresh process sees the same settings): not when `propagate_env` is off or the
    value has no text form (a class, an `NvidiaTool`)."""
    for group in (build, redis, cache, compilation, autotuning, runtime, language, cpu,
                  nvidia, amd, proton):
        for name, desc in group.knob_descriptors.items():
            if name in group.__dict__:
                text = toenv(group.__dict__[name])
                if text is None or os.environ.get(desc.key) != text[0]:
                    return False
    return True


def refresh_knobs() -> None:
    """Upstream re-reads TRITON_DEBUG here; tritium reads every knob at each access."""
