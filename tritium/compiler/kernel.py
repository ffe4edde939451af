"""`CompiledKernel`: one compiled specialisation, on every backend (upstream's class).

    k = triton.compile(src, target=...)      # or kernel.warmup(..., grid=...)
    k.asm["ptx"], k.metadata.shared, k.metadata.num_warps
    k._init_handles(); k.n_regs, k.n_spills  # loads the binary on the device
    k[(n, 1, 1)](*args)                      # launches (constexpr args are skipped)

Loading is lazy: a kernel compiled for a GPU on a machine without one can be inspected,
saved or assembled, and is loaded only when launched.
"""
from __future__ import annotations

from typing import Any, Dict, Optional

import tritium.knobs as knobs  # the module: its groups may be replaced at run time
from ..backends.compiler import GPUTarget
from ..knobs import _hook_set, hooks_maybe_set, launch_hooks_set
from ..runtime.launch_hooks import LazyDict


class KernelMetadata(dict):
    """The kernel's metadata: attribute access as upstream's namedtuple (`m.shared`), item
    access and `get` as a dict."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"kernel metadata has no field {name!r} "
                                 f"(fields: {', '.join(sorted(self))})") from None

    def _asdict(self) -> Dict[str, Any]:
        return dict(self)


def as_kernel_metadata(metadata) -> KernelMetadata:
    if isinstance(metadata, KernelMetadata):
        return metadata
    if hasattr(metadata, "_asdict"):  # a namedtuple
        metadata = metadata._asdict()
    metadata = KernelMetadata(metadata)
    metadata["target"] = _target_of(metadata["target"])
    return metadata


def _target_of(value) -> GPUTarget:
    if isinstance(value, GPUTarget):
        return value
    if isinstance(value, dict):
        return GPUTarget(value["backend"], value["arch"], value["warp_size"])
    return GPUTarget(*value)


class AsmDict(dict):
    """`kernel.asm`: each stage's text (binary stages as bytes). Products kept as objects
    (an IR module) are printed on first access; `sass` is disassembled on demand."""

    def __init__(self, items, backend=None):
        super().__init__(items)
        self._backend = backend

    def __getitem__(self, key):
        value = super().__getitem__(key)
        if not isinstance(value, (str, bytes)):
            from ..ir.printer import print_module
            value = print_module(value)
            self[key] = value
        return value

    def __missing__(self, key):
        disasm = getattr(self._backend, "disassemble", None)
        if disasm is not None:
            text = disasm(key, self)
            if text is not None:
                self[key] = text
                return text
        raise KeyError(key)

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def values(self):
        return [self[k] for k in self.keys()]

    def get(self, key, default=None):
        return self[key] if key in self else default


class CompiledKernel:

    def __init__(self, src, asm: Dict[str, Any], metadata: Dict[str, Any], backend,
                 used_global_vals=None, products: Optional[Dict[str, Any]] = None):
        metadata = KernelMetadata(metadata)
        metadata["target"] = _target_of(metadata["target"])
        if "cluster_dims" in metadata:
            metadata["cluster_dims"] = tuple(metadata["cluster_dims"])
        self.src = src
        self.metadata = metadata
        self.hash = metadata.get("hash")
        self.name = metadata["name"]
        self.asm = AsmDict(asm, backend)
        self.backend = backend
        self.packed_metadata = backend.pack_metadata(metadata)
        self.used_global_vals = used_global_vals or {}
        # The binary the driver loads; a backend may keep it as an object (the CPU keeps
        # the TTIR module) rather than text.
        products = products or {}
        ext = backend.binary_ext
        binary = getattr(backend, "binary", None)  # (a plugin's backend may lack it)
        self.kernel = binary(asm, products) if binary is not None \
            else products.get(ext, asm.get(ext))
        self.module = None
        self.function = None
        # Known from the assembler's report before any device is touched; loading the
        # binary replaces them with what the driver reports.
        self.n_regs = metadata.get("n_regs")
        self.n_spills = metadata.get("n_spills")
        self.n_max_threads = None
        self._run = None
        self._fast = None  # the launcher's `launch(grid, args, function)`, when it has one
        self._driver = None

    # -- loading -----------------------------------------------------------------------
    def __del__(self):
        # Upstream's unload hook (profilers pair it with the load hooks). The module itself
        # is left to the driver's context: a launcher may still hold its function.
        if getattr(self, "module", None) is None:
            return
        try:
            knobs.runtime.kernel_unload_hook(self.module, self.function, self.name,
                                             getattr(self, "metadata_group", None), self.hash)
        except Exception:  # noqa: BLE001  (during interpreter shutdown knobs may be gone)
            pass
        self.module, self._run, self._fast = None, None, None

    def _init_handles(self) -> None:
        if self._run is not None:
            return
        # Inductor pickles kernels from its compile workers with the metadata as a plain
        # namedtuple (upstream's type) and restores them bypassing __init__: make it ours again.
        self.metadata = as_kernel_metadata(self.metadata)
        from ..runtime.driver import driver_for_target
        drv = driver_for_target(self.metadata.target)
        device = drv.get_current_device()
        run = drv.launcher_cls(self.src, self.metadata)
        # Upstream's load hooks (profilers use them to map modules to kernels): the start
        # hook sees no module yet, the end hook the loaded one; both get the same hash.
        group = getattr(self, "metadata_group", None)
        knobs.runtime.kernel_load_start_hook(self.module, self.function, self.name, group, self.hash)
        self.module, self.function, self.n_regs, self.n_spills, self.n_max_threads = \
            drv.utils.load_binary(self.name, self.kernel, self.metadata.get("shared", 0), device)
        knobs.runtime.kernel_load_end_hook(self.module, self.function, self.name, group, self.hash)
        threads = self.metadata.get("num_warps", 1) * self.metadata.target.warp_size
        if self.n_max_threads is not None and threads > self.n_max_threads:
            from ..errors import OutOfResources
            raise OutOfResources(threads, self.n_max_threads, "threads")
        self._driver = drv
        self._fast = getattr(run, "launch", None)
        self._run = run

    @property
    def run(self):
        """The launcher, upstream's calling convention: `run(gridX, gridY, gridZ, stream,
        function, packed_metadata, launch_metadata, enter_hook, exit_hook, *args)`."""
        if self._run is None:
            self._init_handles()
        return self._run

    def launch_metadata(self, grid, stream, *args):
        """What the launch hooks get (a `LazyDict`: the user's `launch_metadata` function
        runs only if a hook asks), or None when no enter hook is set."""
        if _enter_hook() is None:
            return None
        self._init_handles()
        data = LazyDict({"name": self.name, "function": self.function, "stream": stream})
        fn = getattr(self.src, "fn", None)
        user = getattr(fn, "launch_metadata", None)
        if user is not None:
            data.add(user, (grid, self.metadata, dict(zip(fn.arg_names, args))))
        return data

    def __getitem__(self, grid):
        self._init_handles()
        grid = tuple(grid) + (1,) * (3 - len(tuple(grid)))

        def runner(*args, stream=None):
            if stream is None:
                stream = self._driver.get_current_stream(self._driver.get_current_device())
            meta = self.launch_metadata(grid, stream, *args)
            self.run(grid[0], grid[1], grid[2], stream, self.function, self.packed_metadata,
                     meta, _enter_hook(), _exit_hook(), *args)
        return runner

    # -- the JIT's launch path ---------------------------------------------------------
    def _jit_run(self, grid, args) -> None:
        """What `kernel[grid](...)` through `@jit` calls: the launcher's fast entry when it
        has one (tritium's) and no launch hook is set, else upstream's calling convention,
        which calls the hooks (and is what a plugin's launcher has)."""
        fast = self._fast
        if fast is not None and not hooks_maybe_set[0]:
            fast(grid, args, self.function)
            return
        if self._run is None:
            self._init_handles()
        if self._fast is not None and not launch_hooks_set():
            self._fast(grid, args, self.function)
            return
        stream = self._driver.get_current_stream(self._driver.get_current_device())
        meta = self.launch_metadata(grid, stream, *args)
        self._run(grid[0], grid[1], grid[2], stream, self.function, self.packed_metadata, meta,
                  _enter_hook(), _exit_hook(), *args)

    def __repr__(self) -> str:
        return f"CompiledKernel({self.name}, target={self.metadata.target})"


def _enter_hook():
    hook = knobs.runtime.launch_enter_hook
    return hook if _hook_set(hook) else None


def _exit_hook():
    hook = knobs.runtime.launch_exit_hook
    return hook if _hook_set(hook) else None
