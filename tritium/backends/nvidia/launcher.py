"""Per-signature kernel launchers, generated as Python source and exec'd once.

Upstream compiles a C extension per signature (tens of ms to tens of seconds
of cold start, and a C compiler at run time). Here the per-signature work is
done by generating a small Python function whose body is straight-line code
for exactly that signature: no loops over parameters, no per-launch type
dispatch, no allocation on the hot path.

What a launch costs, and how each part is kept small:
* argument conversion: pointer arguments go through a converter chosen once
  per Python class (`torch.Tensor.data_ptr`, `__cuda_array_interface__`,
  DLPack, int, None) and cached in a dict keyed by the class;
* host-memory check: cuPointerGetAttribute runs once per distinct address;
  the answer (the device address) is cached in a dict;
* packing: one ctypes Structure per launcher (and per extra thread, see
  below) holds every parameter at its C ABI offset; launches assign its
  fields in place. The same buffer serves the `kernelParams` form (an array
  of pointers into it, built once) and the `extra` /
  CU_LAUNCH_PARAM_BUFFER_POINTER form;
* the call: cuda-bindings' cuLaunchKernel with the CUfunction / CUstream
  objects cached per handle (building them is what its conversions cost) and
  kernelParams as a plain address. On an H100 host (bench/bench_launch.py)
  a cached one-store launch took 5.7 us this way against 7.4 us through
  ctypes (which converts 11 arguments through argtypes); the bare
  cuda-bindings call alone is 5.0 us, upstream Triton 3.6's kernel[grid]
  14.8 us. The ctypes flavour stays available (`flavor="ctypes"`).

Thread safety: cuda-bindings releases the GIL while the driver reads the
parameters, so two threads must never share a buffer. The thread that made
the launcher uses the main buffer; any other thread gets its own buffer
(threading.local), at the price of one `get_ident()` comparison per launch.
"""
from __future__ import annotations

import ctypes
import threading
from typing import Callable, Dict, Optional

from . import tensordesc_abi
from ..params import access_expr, jit_spelling, mark_constexprs, runtime_params
from .tensor_map import TensorMap, make_encoder
from ..._allocator import get_allocator

__all__ = ["make_launcher", "generate_source", "pointer_of", "PARAM_CTYPES", "CudaLauncher"]

# Kernel parameter type -> ctypes field type (matches how LLVM's NVPTX backend
# lays out `.param`s: i1 becomes .u8, half/bfloat travel as 16-bit patterns).
PARAM_CTYPES = {
    "i1": ctypes.c_uint8, "u1": ctypes.c_uint8,
    "i8": ctypes.c_int8, "u8": ctypes.c_uint8,
    "i16": ctypes.c_int16, "u16": ctypes.c_uint16,
    "i32": ctypes.c_int32, "u32": ctypes.c_uint32,
    "i64": ctypes.c_int64, "u64": ctypes.c_uint64,
    "fp16": ctypes.c_uint16, "bf16": ctypes.c_uint16,
    "fp32": ctypes.c_float, "f32": ctypes.c_float,
    "fp64": ctypes.c_double, "f64": ctypes.c_double,
}
_INT_RANGES = {
    "i8": (-(1 << 7), (1 << 7) - 1), "u8": (0, (1 << 8) - 1),
    "i16": (-(1 << 15), (1 << 15) - 1), "u16": (0, (1 << 16) - 1),
    "i32": (-(1 << 31), (1 << 31) - 1), "u32": (0, (1 << 32) - 1),
    "i64": (-(1 << 63), (1 << 63) - 1), "u64": (0, (1 << 64) - 1),
}
CU_LAUNCH_PARAM_END, CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE = 0, 1, 2
CUDA_ERROR_INVALID_CONTEXT = 201


# ---------------------------------------------------------------------------
# pointer arguments


def _dlpack_ptr(obj) -> int:
    """Data address of a DLPack producer.

    A non-CUDA producer's (host) address is returned as is: the host-memory
    check that follows rejects it with the parameter's name in the message.
    """
    capsule = obj.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    managed = get(capsule, b"dltensor")
    # DLManagedTensor starts with DLTensor: void* data; DLDevice (2 x i32); i32 ndim;
    # DLDataType (4 bytes); i64* shape; i64* strides; u64 byte_offset.
    data = ctypes.c_void_p.from_address(managed).value or 0
    byte_offset = ctypes.c_uint64.from_address(managed + 40).value
    # Dropping the unconsumed capsule runs its deleter; the producer object
    # still owns the memory, so the address stays valid.
    return data + byte_offset


def _ident(x):
    return x


def _null(x):
    return 0


def _cai_ptr(x):
    return x.__cuda_array_interface__["data"][0]


_converters: Dict[type, Callable] = {int: _ident, type(None): _null}


def _converter_for(obj, name: str, index: int) -> Callable:
    cls = type(obj)
    if hasattr(cls, "data_ptr"):
        conv = cls.data_ptr
    elif hasattr(obj, "__cuda_array_interface__"):
        conv = _cai_ptr
    elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        conv = _dlpack_ptr
    elif hasattr(cls, "__index__"):   # numpy integers and other int-likes
        conv = cls.__index__
    else:
        raise TypeError(
            f"pointer argument '{name}' (parameter {index}) must be an int, None, or an object with "
            f"data_ptr(), __cuda_array_interface__ or __dlpack__; got {cls.__module__}.{cls.__qualname__}")
    _converters[cls] = conv
    return conv


def pointer_of(obj, name: str = "?", index: int = 0) -> int:
    """Address of a pointer argument (not checked for host memory)."""
    conv = _converters.get(type(obj)) or _converter_for(obj, name, index)
    return conv(obj)


# ---------------------------------------------------------------------------
# source generation


def _tma_args(signature: Dict[str, str], tensordesc_meta) -> Dict[tuple, dict]:
    """{parameter path: its TMA metadata} of the descriptor arguments passed as tensor maps
    (the kernel's `tensordesc_meta` lists its descriptors in parameter order, tuple
    elements included)."""
    metas = list(tensordesc_meta or [])
    out, k = {}, 0
    for p in runtime_params(signature):
        if p.type.startswith("tensordesc"):
            if k < len(metas) and metas[k]:
                out[p.path] = metas[k]
            k += 1
    return out


def _param_fields(signature: Dict[str, str], global_scratch=None,
                  tma: Dict[tuple, dict] = None):
    """[(field name, ctypes type, param name, type string)] of the runtime parameters
    (a tuple argument's runtime leaves each, see backends/params.py)."""
    fields = []
    tma = tma or {}
    for p in runtime_params(signature):
        field, name, ty = _field_name(p.path), p.name, p.type
        if ty.startswith("tensordesc"):   # several parameters: see tensordesc_abi
            for j, (pname, pty, _) in enumerate(tensordesc_abi.expand(name, ty, p.path in tma)):
                ctype = TensorMap if pty == "tensormap" else \
                    ctypes.c_uint64 if pty.startswith("*") else PARAM_CTYPES[pty]
                fields.append((f"{field}_{j}", ctype, pname, pty))
        elif ty.startswith("*"):
            fields.append((field, ctypes.c_uint64, name, ty))
        elif ty in PARAM_CTYPES:
            fields.append((field, PARAM_CTYPES[ty], name, ty))
        else:
            raise NotImplementedError(f"launcher: parameter '{name}' has unsupported type {ty!r}")
    if global_scratch:   # the trailing pointer the lowering appends (global scratch)
        fields.append(("s0", ctypes.c_uint64, "<global scratch>", "*i8"))
    return fields


def generate_source(signature: Dict[str, str], mode: str = "params", global_scratch=None,
                    flavor: str = "bindings", tma: Dict[tuple, dict] = None) -> str:
    """Python source of `launch(gridX, gridY, gridZ, stream, function, num_warps, shared, *args)`.

    `flavor` "bindings": `_cu_launch` is cuda-bindings' cuLaunchKernel (takes
    CUfunction/CUstream objects, returns a tuple); "ctypes": a raw
    cuLaunchKernel-like callable taking ints and returning a CUresult int.
    """
    if mode not in ("params", "extra"):
        raise ValueError(f"mode must be 'params' or 'extra', not {mode!r}")
    if flavor not in ("bindings", "ctypes"):
        raise ValueError(f"flavor must be 'bindings' or 'ctypes', not {flavor!r}")
    args = [f"_{i}" for i in range(len(signature))]
    lines = [f"def launch(gridX, gridY, gridZ, stream, function, num_warps, shared{''.join(', ' + a for a in args)}):",
             "    if gridX <= 0 or gridY <= 0 or gridZ <= 0:",
             "        return",
             "    if _get_ident() == _owner:",
             "        b, kp = _main",
             "    else:",
             "        b, kp = _thread_state()"]
    for p in runtime_params(signature):
        i, name, ty = p.path[0], p.name, p.type
        a, field = access_expr(args[i], p.path), _field_name(p.path)
        if ty.startswith("tensordesc") and p.path in (tma or {}):
            # The tensor map, shape and strides as one block (see _tma_group), looked up
            # here in the encoder's cache by tensor_map.cache_key; the encoder on a miss.
            lines += [f"    t = {a}",
                      "    v = t.base",
                      f"    p = (_conv.get(v.__class__) or _conv_for(v, {name!r}, {i}))(v)",
                      "    d = _dev.get(p)",
                      "    if d is None:",
                      f"        d = _resolve(p, {name!r}, {i}, v)",
                      f"    v = _tmc_{field}.get((d, *t.shape, *t.strides, t.padding))",
                      "    if v is None:",
                      f"        v = _tm_{field}(t)",
                      f"    b.{_group_name(field)} = v"]
        elif ty.startswith("tensordesc"):
            for j, (pname, pty, expr) in enumerate(tensordesc_abi.expand(name, ty, False)):
                lines += _store_param(f"{field}_{j}", expr.format(d=a, tm=f"_tm_{field}"),
                                      pname, i, pty)
        else:
            lines += _store_param(field, a, name, i, ty)
    if global_scratch:
        # Upstream's protocol: the current `triton.set_allocator` allocator, asked per launch
        # for size x programs bytes; `sc` keeps its buffer alive until the launch is queued
        # (a stream-ordered allocator such as torch's may reuse it after that).
        size, align = global_scratch
        lines += [f"    sc = _get_allocator()({int(size)} * gridX * gridY * gridZ, {int(align)}, stream)",
                  "    b.s0 = _pointer_of(sc, '<global scratch>', -1)"]
    if flavor == "bindings":
        # cuda-bindings types `extra` as an integer address: 0, never None.
        tail = "kp, 0" if mode == "params" else "None, kp"
        call = f"f, gridX, gridY, gridZ, 32 * num_warps, 1, 1, shared, s, {tail}"
        lines += ["    f = _functions.get(function)",
                  "    if f is None:",
                  "        f = _function_object(function)",
                  "    s = _streams.get(stream)",
                  "    if s is None:",
                  "        s = _stream_object(stream)",
                  f"    r = _cu_launch({call})[0]"]
    else:
        tail = "kp, None" if mode == "params" else "None, kp"
        call = f"function, gridX, gridY, gridZ, 32 * num_warps, 1, 1, shared, stream, {tail}"
        lines += ["    try:",
                  f"        r = _cu_launch({call})",
                  "    except _ArgumentError:",
                  f"        r = _slow_launch({call})"]
    lines += ["    if r:",
              f"        _launch_failed(r, {call})"]
    return "\n".join(lines) + "\n"


def _store_param(field: str, a: str, name: str, i: int, ty: str) -> list:
    """Generated lines that convert the value of expression `a` to parameter type `ty` and
    store it into the buffer field `field`."""
    # A plain argument is a local name, used as is; a descriptor's part is an expression,
    # evaluated once into a local.
    pre = [] if a.isidentifier() else [f"    v = {a}"]
    a = a if a.isidentifier() else "v"
    if ty.startswith("*"):
        return pre + [f"    p = (_conv.get({a}.__class__) or _conv_for({a}, {name!r}, {i}))({a})",
                      "    d = _dev.get(p)",
                      "    if d is None:",
                      f"        d = _resolve(p, {name!r}, {i}, {a})",
                      f"    b.{field} = d"]
    if ty in ("fp16", "bf16"):
        return pre + [f"    b.{field} = _{ty}_bits({a})"]
    if ty in ("i1", "u1"):
        return pre + [f"    b.{field} = 1 if {a} else 0"]
    if ty in _INT_RANGES:
        lo, hi = _INT_RANGES[ty]
        # ctypes silently wraps out-of-range ints; a wrong index is worse than an error.
        return pre + [f"    if not {lo} <= {a} <= {hi}:",
                      f"        _range_error({a}, {name!r}, {i}, {ty!r})",
                      f"    b.{field} = {a}"]
    return pre + [f"    b.{field} = {a}"]


# ---------------------------------------------------------------------------
# helpers the generated code calls on its cold paths

_device_ptrs: Dict[int, int] = {0: 0}
_MAX_CACHED = 1 << 16


def _fp16_bits(x) -> int:
    import struct
    return struct.unpack("<H", struct.pack("<e", float(x)))[0]


def _bf16_bits(x) -> int:
    import struct
    bits = struct.unpack("<I", struct.pack("<f", float(x)))[0]
    if (bits & 0x7FFFFFFF) > 0x7F800000:
        return 0x7FC0          # NaN stays NaN
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF   # round to nearest even


def _range_error(value, name, index, ty):
    if not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"argument '{name}' (parameter {index}) of type {ty} must be an int, "
                        f"got {type(value).__name__}")
    raise OverflowError(f"argument '{name}' (parameter {index}) = {value!r} does not fit in {ty}")


def _make_resolver(device_pointer: Callable[[int], Optional[int]]):
    def resolve(ptr: int, name: str, index: int, obj=None) -> int:
        if not isinstance(ptr, int):
            ptr = int(ptr)
            if ptr in _device_ptrs:
                return _device_ptrs[ptr]
        dev = device_pointer(ptr)
        origin = getattr(obj, "_tensor", None)
        if dev is None and origin is not None:
            # A descriptor base moved outside its tensor (a ragged TMA descriptor wraps it
            # around 2**64): the tensor it came from is what must be on the GPU.
            start = pointer_of(origin, name, index)
            dev = device_pointer(start)
            if dev is not None:
                dev = (dev + ptr - start) % 2**64
        if dev is None:
            raise ValueError(
                f"pointer argument '{name}' (parameter {index}) points to 0x{ptr:x}, which the GPU cannot "
                f"access: it is host memory (a CPU tensor?). Move it to the GPU first.")
        if len(_device_ptrs) >= _MAX_CACHED:
            _device_ptrs.clear()
            _device_ptrs[0] = 0
        _device_ptrs[ptr] = dev
        return dev
    return resolve


def _make_failure_handler(launch_fn, ensure_context, check_error):
    def failed(r, *call):
        if int(r) == CUDA_ERROR_INVALID_CONTEXT and ensure_context is not None:
            # A thread with no current context (e.g. a new Python thread):
            # do what upstream does before each launch, but only when needed.
            ensure_context()
            r = launch_fn(*call)
            if isinstance(r, tuple):
                r = r[0]
            if not r:
                return
        if check_error is not None:
            check_error(r)
        raise RuntimeError(f"Triton Error [CUDA]: error {int(r)}")
    return failed


def _make_slow_launch(launch_fn):
    def slow(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        # Handles given as cuda-bindings objects (CUfunction, CUstream) rather than ints.
        return launch_fn(int(function), gx, gy, gz, bx, by, bz, shared, int(stream or 0), params, extra)
    return slow


def _handle_cache(make):
    """(cache dict, miss function) turning raw handles into cuda-bindings objects once."""
    cache: Dict[object, object] = {}

    def miss(handle):
        obj = make(handle)
        if len(cache) >= 4096:
            cache.clear()
        cache[handle] = obj
        return obj
    return cache, miss


TRAILING_NULLS = 2
_NULLS = (ctypes.c_uint64 * TRAILING_NULLS)()  # never written


def _new_state(Params, fields, mode):
    """A parameter buffer plus the address cuLaunchKernel gets for it."""
    buf = Params()
    base = ctypes.addressof(buf)
    # After the kernel's parameters, TRAILING_NULLS pointers to null: upstream's kernels end
    # with its global- and profile-scratch pointers (null when unused), so PTX that upstream
    # wrote (an `ir_override` or `IRSource` .ptx) launches here. The driver reads only the
    # parameters the kernel declares.
    ptrs = (ctypes.c_void_p * (len(fields) + TRAILING_NULLS))(
        *[base + getattr(Params, f).offset for f, *_ in fields],
        *[ctypes.addressof(_NULLS) + 8 * i for i in range(TRAILING_NULLS)])
    # The exact parameter bytes: the driver rejects a padded size (it reports
    # CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), so no trailing struct padding.
    last = fields[-1][0] if fields else None
    nbytes = getattr(Params, last).offset + getattr(Params, last).size if last else 0
    size = ctypes.c_size_t(nbytes)
    extra = (ctypes.c_void_p * 5)(CU_LAUNCH_PARAM_BUFFER_POINTER, base,
                                  CU_LAUNCH_PARAM_BUFFER_SIZE, ctypes.addressof(size), CU_LAUNCH_PARAM_END)
    if mode == "params":
        addr = ctypes.addressof(ptrs)
    else:
        addr = ctypes.addressof(extra) if fields else 0
    return buf, addr, (buf, ptrs, size, extra)


def _group_name(field: str) -> str:
    return f"tma_{field}"


def _params_type(fields):
    """The ctypes Structure of the parameter buffer. A TMA descriptor's parameters (the
    map, then shape and strides: fields `aK_0`, `aK_1`, ...) are one anonymous
    sub-structure `tma_aK`, so a launch assigns them with one copy of a block made once
    per descriptor value (`_tma_group`); the fields keep their names and offsets."""
    out, anonymous, k = [], [], 0
    while k < len(fields):
        f, t, _, pty = fields[k]
        if pty != "tensormap":
            out.append((f, t))
            k += 1
            continue
        prefix = f[:-len("_0")]
        members = [fields[k]]
        k += 1
        while k < len(fields) and fields[k][0].startswith(prefix + "_"):
            members.append(fields[k])
            k += 1
        group = type(_group_name(prefix), (ctypes.Structure,),
                     {"_fields_": [(m[0], m[1]) for m in members]})
        out.append((_group_name(prefix), group))
        anonymous.append(_group_name(prefix))
    return type("Params", (ctypes.Structure,), {"_fields_": out, "_anonymous_": anonymous})


def _tma_group(group, params, index: int):
    """`pack(tensor_map, desc)` -> the filled `group` block of one TMA descriptor argument
    (parameter `index`; `params`: its fields), with shape and strides checked against
    their parameter types as plain parameters are."""
    first = params[0][0]
    rank = (len(params) - 1) // 2
    rest = [(f, pname, pty) for f, _, pname, pty in params[1:]]

    def pack(tmap, desc):
        g = group()
        setattr(g, first, tmap)
        values = [desc.shape[i] for i in range(rank)] + [desc.strides[i] for i in range(rank)]
        for (f, pname, pty), v in zip(rest, values):
            lo, hi = _INT_RANGES[pty]
            if not lo <= v <= hi:
                _range_error(v, pname, index, pty)
            setattr(g, f, v)
        return g
    return pack


def _field_name(path) -> str:
    """Buffer field of the parameter at `path`: `a3` for argument 3, `a3t0t1` for element
    [0][1] of a tuple argument 3."""
    return "a" + "t".join(str(j) for j in path)


_cache: Dict[tuple, Callable] = {}


def make_launcher(signature: Dict[str, str], *, mode: str = "params", global_scratch=None,
                  flavor: Optional[str] = None, launch_fn: Optional[Callable] = None,
                  device_pointer: Optional[Callable[[int], Optional[int]]] = None,
                  cache: bool = True, tensordesc_meta=None,
                  tensor_map_encode: Optional[Callable] = None) -> Callable:
    """Build (or reuse) the launcher for a kernel signature.

    `signature` maps parameter names, in order, to type strings ("*fp32",
    "i32", "fp32", "u1", "constexpr", ...). The result is called as
    `launch(gridX, gridY, gridZ, stream, function, num_warps, shared, *args)`
    with every parameter, constexprs included (they are ignored); `function`
    and `stream` are raw handles (ints, as `driver.load_binary` and torch
    give them). `mode` picks the kernelParams ("params") or
    CU_LAUNCH_PARAM_BUFFER_POINTER ("extra") form; `flavor` the call path:
    "bindings" (default) or "ctypes". `launch_fn` (cuLaunchKernel-like over
    ints, returning a CUresult int; implies flavor "ctypes") and
    `device_pointer` (address -> device address, None for host memory)
    default to the real driver; tests pass fakes. `tensordesc_meta` (the kernel's metadata)
    says which descriptor arguments travel as TMA tensor maps (`tensor_map_encode`: a fake
    cuTensorMapEncodeTiled for tests, see tensor_map.py).
    """
    if flavor is None:
        flavor = "ctypes" if launch_fn is not None else "bindings"
    tma = _tma_args(signature, tensordesc_meta)
    if tma and mode != "params":
        raise NotImplementedError("a kernel with TMA descriptor arguments launches in 'params' mode "
                                  "(the 'extra' buffer would need 64-byte aligned tensor maps)")
    global_scratch = tuple(global_scratch) if global_scratch else None
    key = (tuple(signature.items()), mode, global_scratch, flavor, launch_fn, device_pointer,
           repr(sorted(tma.items())), tensor_map_encode)
    if cache and key in _cache:
        return _cache[key]
    ensure_context = check_error = None
    scope = {}
    if launch_fn is None or device_pointer is None or flavor == "bindings":
        from . import driver
        ensure_context, check_error = driver.ensure_context, driver.check
        if device_pointer is None:
            device_pointer = driver.device_pointer
        if flavor == "bindings":
            cu = driver.cuda()
            launch_fn = cu.cuLaunchKernel
            scope["_functions"], scope["_function_object"] = _handle_cache(
                lambda h: h if isinstance(h, cu.CUfunction) else cu.CUfunction(int(h)))
            scope["_streams"], scope["_stream_object"] = _handle_cache(
                lambda h: h if isinstance(h, cu.CUstream) else cu.CUstream(int(h or 0)))
        elif launch_fn is None:
            launch_fn = driver.raw_launch_kernel()
            if launch_fn is None:
                raise RuntimeError("libcuda could not be opened through ctypes; use flavor='bindings'")

    fields = _param_fields(signature, global_scratch, tma)
    Params = _params_type(fields)
    buf, addr, keep = _new_state(Params, fields, mode)
    local = threading.local()

    def thread_state():
        state = getattr(local, "state", None)
        if state is None:
            b, a, k = _new_state(Params, fields, mode)
            state = local.state = (b, a)
            local.keep = k
        return state

    src = generate_source(signature, mode, global_scratch, flavor, tma)
    resolve = _make_resolver(device_pointer)

    def device_address(obj, name, index):
        p = pointer_of(obj, name, index)
        d = _device_ptrs.get(p)
        return d if d is not None else resolve(p, name, index, obj)
    params = {p.path: p for p in runtime_params(signature)}
    for path, meta in tma.items():
        dtype, _ = tensordesc_abi.parse(params[path].type)
        field = _field_name(path)
        group = dict(Params._fields_)[_group_name(field)]
        members = [f for f in fields if f[0].startswith(field + "_")]
        enc = make_encoder(dtype, meta, params[path].name, path[0], device_address,
                           tensor_map_encode, pack=_tma_group(group, members, path[0]))
        scope[f"_tm_{field}"], scope[f"_tmc_{field}"] = enc, enc.cache
    scope.update({
        "_main": (buf, addr), "_owner": threading.get_ident(), "_get_ident": threading.get_ident,
        "_thread_state": thread_state,
        "_conv": _converters, "_conv_for": _converter_for, "_dev": _device_ptrs,
        "_resolve": resolve, "_range_error": _range_error,
        "_fp16_bits": _fp16_bits, "_bf16_bits": _bf16_bits,
        "_cu_launch": launch_fn, "_slow_launch": _make_slow_launch(launch_fn),
        "_launch_failed": _make_failure_handler(launch_fn, ensure_context, check_error),
        "_ArgumentError": ctypes.ArgumentError,
        "_get_allocator": get_allocator, "_pointer_of": pointer_of,
    })
    exec(compile(src, f"<tritium launcher {','.join(map(str, signature.values()))}>", "exec"), scope)
    launch = scope["launch"]
    launch._keepalive = keep      # the raw addresses point into these ctypes objects
    launch.source = src
    launch.signature = dict(signature)
    launch.params = buf
    launch.mode = mode
    launch.flavor = flavor
    if cache:
        _cache[key] = launch
    return launch


class CudaLauncher:
    """The driver's `launcher_cls(src, metadata)`: upstream's calling convention around the
    generated launcher (`__call__`), plus `launch(grid, args, function)`, the JIT's path.
    Arguments are all of the kernel's, constexprs included (skipped by position)."""

    def __init__(self, src, metadata):
        from .driver import current_stream
        self._stream = current_stream
        consts = getattr(src, "constants", {}) or {}
        signature = {str(n): jit_spelling(ty)
                     for n, ty in mark_constexprs(src.signature, consts).items()}
        scratch = metadata.get("global_scratch_size", 0)
        self._launch = make_launcher(signature, global_scratch=(
            scratch, metadata.get("global_scratch_align", 1)) if scratch else None,
                                     tensordesc_meta=metadata.get("tensordesc_meta"))
        self.num_warps = metadata["num_warps"]
        self.shared = metadata.get("shared", 0)

    def launch(self, grid, args, function) -> None:
        self._launch(grid[0], grid[1], grid[2], self._stream(), function, self.num_warps,
                     self.shared, *args)

    def __call__(self, gridX, gridY, gridZ, stream, function, packed_metadata, launch_metadata,
                 enter_hook, exit_hook, *args):
        if enter_hook is not None and launch_metadata is not None:
            enter_hook(launch_metadata)
        num_warps, _, shared = packed_metadata
        self._launch(gridX, gridY, gridZ, stream, function, num_warps, shared, *args)
        if exit_hook is not None and launch_metadata is not None:
            exit_hook(launch_metadata)
