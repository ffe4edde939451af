"""Upstream's per-device cache objects and ahead-of-launch loading of a JIT kernel:
`JITFunction.device_caches[device]` is `(kernel_cache, kernel_key_cache, target, backend,
binder)` for a device (`"cpu"`, or a GPU's index as `torch.cuda.current_device()` gives
it), and `JITFunction.preload(specialization_data)` compiles (or loads from the disk cache)
the specialisation that `knobs.runtime.jit_cache_hook` was shown as JSON, so a process can
warm its caches from a list saved by an earlier one, as torch's tooling does."""
from __future__ import annotations

import json
from typing import Any, Dict

# "module:qualname" -> @jit function, so a serialised JITFunction constant can be found again
jit_function_registry: Dict[str, Any] = {}


class KernelCache(dict):
    """One device's compiled kernels by key. Emptying it (what upstream's tests do to force
    a compile) also empties the JIT's fast lookup table, which would otherwise still
    answer for the kernels removed here."""

    def __init__(self, fast_cache: dict):
        super().__init__()
        self._fast = fast_cache

    def clear(self):
        self._fast.clear()
        super().clear()

    def __delitem__(self, key):
        self._fast.clear()
        super().__delitem__(key)

    def pop(self, *args):
        self._fast.clear()
        return super().pop(*args)

    def popitem(self):
        self._fast.clear()
        return super().popitem()


def public_device(key):
    """The device id users and hooks see (`"cpu"`, a GPU index) for a JIT cache key."""
    if isinstance(key, tuple) and len(key) == 2 and key[0] == "cuda":
        return key[1]
    return key


def _device_for(device):
    """The `runtime.dispatch.Device` of a public device id."""
    from ..runtime import dispatch
    if device == "cpu":
        return dispatch.cpu_backend()
    if isinstance(device, tuple) and device[0] == "active":
        return dispatch._user_device()
    current = dispatch._GPU.current()
    if device not in (current.key, current.key[1]):
        raise ValueError(f"device_caches: device {device!r} is not the current device "
                         f"({current.key[1]}); switch to it first")
    return current


class DeviceCaches:
    """`JITFunction.device_caches`: a mapping over the devices the kernel was compiled for
    (an entry is made on first access, as upstream's defaultdict does)."""

    def __init__(self, jit_fn):
        self._jit = jit_fn

    def _internal(self, device):
        for key in self._jit.cache:
            if public_device(key) == device or key == device:
                return key
        return _device_for(device).key

    def __getitem__(self, device):
        from ..compiler import make_backend
        key = self._internal(device)
        dev = _device_for(public_device(key))
        return (self._jit.cache[key], {}, dev.target, make_backend(dev.target), self._jit.bind)

    def __contains__(self, device):
        return any(public_device(k) == device or k == device for k in self._jit.cache)

    def keys(self):
        return [public_device(k) for k in self._jit.cache]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self._jit.cache)

    def values(self):
        return [self[d] for d in self.keys()]

    def items(self):
        return [(d, self[d]) for d in self.keys()]

    def clear(self):
        """Forget every device's compiled kernels (upstream's tests do this to compile
        again, or to reach the disk cache)."""
        for cache in self._jit.cache.values():
            cache.clear()
        self._jit.cache.clear()


def preload(jit_fn, specialization_data: str):
    """Compile the specialisation `specialization_data` (upstream's JSON) describes for the
    current device and put it in the kernel cache; returns the `CompiledKernel`."""
    from ..compiler import ASTSource
    from ..language.dtypes import dtype
    from ..runtime import dispatch
    data = json.loads(specialization_data)
    if data["name"] != jit_fn._fn_name:
        raise RuntimeError(f"Specialization data is for {data['name']} but trying to preload "
                           f"for {jit_fn._fn_name}")
    # The current device: the CPU under TRITON_INTERPRET, a driver user code chose, else
    # the CPU or the current GPU as the data's target says (launches decide by arguments).
    device = dispatch.cpu_backend() if jit_fn.interpret else dispatch._user_device()
    if device is None:
        device = dispatch.cpu_backend() if data["target"].get("backend") == "cpu" else \
            dispatch._GPU.current()
    if device.target.__dict__ != data["target"]:
        raise RuntimeError(f"Specialization data is for {data['target']} but trying to "
                           f"preload for {device.target}")

    def decode(value):
        if isinstance(value, str) and dtype.is_dtype(value):
            return dtype(value)
        if isinstance(value, dict):
            if "constexpr" in value:
                return as_tuples(value["constexpr"])
            if "jit_function" in value:
                found = jit_function_registry.get(value["jit_function"])
                if found is None:
                    raise RuntimeError(f"Unable to resolve JITFunction {value['jit_function']} "
                                       "for preload")
                return found
        return as_tuples(value)

    constants = {tuple(k): decode(v) for k, v in zip(data["constant_keys"],
                                                      data["constant_vals"])}
    attrs = {tuple(k): v for k, v in zip(data["attrs_keys"], data["attrs_vals"])}
    signature = {k: as_tuples(v) for k, v in data["signature"].items()}
    src = ASTSource(jit_fn, signature, constants, attrs)
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in data["options"].items()}
    return jit_fn._compile_for(device, tuple(src.specialization()), options, data["key"],
                               warmup=True)


def as_tuples(value):
    """JSON gives lists where the data had tuples (kernel signatures accept no lists)."""
    if isinstance(value, list):
        return tuple(as_tuples(v) for v in value)
    return value


def serialize_specialization_data(name, signature, constants, attrs, options, key, target):
    """Upstream's JSON: what `preload` needs to compile the same specialisation again."""
    def encode(value):
        from ..language.dtypes import dtype
        if isinstance(value, dtype):
            return str(value)
        if hasattr(value, "fn") and hasattr(value, "arg_names"):   # a @jit function
            return {"jit_function": f"{value.module}:{value.fn.__qualname__}"}
        if isinstance(value, tuple):
            return {"constexpr": value}
        return value
    obj = {"name": name, "signature": signature,
           "constant_keys": [list(k) for k in constants],
           "constant_vals": [encode(v) for v in constants.values()],
           "attrs_keys": [list(k) for k in attrs], "attrs_vals": list(attrs.values()),
           "options": dict(options.__dict__), "key": key, "target": dict(target.__dict__)}
    return json.dumps(obj, default=str)
