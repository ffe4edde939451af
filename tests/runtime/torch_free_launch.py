"""A kernel launched through `import triton` (compat) in a process where torch cannot be
imported: arguments are bare address holders (`data_ptr()`), a host `TensorDescriptor` over
one of them (dtype a `tl` dtype), memory from `triton._C.libtriton.nvidia`. Run by
test_torch_free_launch.py as a script, with TRITON_DEFAULT_BACKEND=nvidia so that no other
driver is asked whether it is active.

    python torch_free_launch.py          # the real GPU
    python torch_free_launch.py --fake   # fake_cuda.py's driver and a model of the kernel

Exit status 0 and "ok" printed when the result is right and torch was never asked for."""
import builtins
import os
import struct
import sys

attempts = []
_real_import = builtins.__import__


def _no_torch(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and (name == "torch" or name.startswith("torch.")):
        attempts.append(name)
        raise ImportError(f"{name}: torch is not available in this process")
    return _real_import(name, globals, locals, fromlist, level)


builtins.__import__ = _no_torch

N = 256


class Address:
    """Device memory as a bare address, as a torch-free program holds it."""

    def __init__(self, ptr, dtype):
        self.ptr, self.dtype = ptr, dtype

    def data_ptr(self):
        return self.ptr


def add_model():
    """What the kernel computes, for the fake driver: out = x * 3 + y, read through the
    launch's parameters. The descriptor comes first: a TMA map (whose fake holds the
    address) then shape and stride, or as pointers: base, padding flag, shape, stride."""
    import ctypes
    from fake_cuda import param_address

    def run(params, launch):
        from tritium.backends.nvidia import driver
        first = param_address(params, 0)
        x = ctypes.c_uint64.from_address(first).value
        n = 4 if getattr(driver.cuda(), "last_map", None) is None else 3  # params before y
        shape = ctypes.c_int32.from_address(param_address(params, n - 2)).value
        assert shape == N, shape
        y = ctypes.c_uint64.from_address(param_address(params, n)).value
        out = ctypes.c_uint64.from_address(param_address(params, n + 1)).value
        xs, ys, outs = ((ctypes.c_float * N).from_address(a) for a in (x, y, out))
        for i in range(N):
            outs[i] = xs[i] * 3 + ys[i]
    return {"scale_add": run}


def main(fake: bool) -> int:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import tritium.compat
    tritium.compat.install()
    if fake:
        import fake_cuda
        fake_cuda.install(add_model())
    import triton
    import triton.language as tl
    from triton._C.libtriton import nvidia
    from triton.tools.tensor_descriptor import TensorDescriptor

    dev = triton.runtime.driver.active
    assert dev.get_current_target().backend == "cuda", dev.get_current_target()
    dev.set_current_device(dev.get_current_device())
    BLOCK = tl.constexpr(N)

    @triton.jit
    def scale_add(x_desc, y, out):
        i = tl.arange(0, BLOCK)
        tl.store(out + i, x_desc.load([0]) * 3 + tl.load(y + i))

    xs = [0.5 * i - 7 for i in range(N)]
    ys = [float((i * 37) % 11) for i in range(N)]
    size = 4 * N
    ptrs = [nvidia.device_malloc(size) for _ in range(3)]
    nvidia.copy_host_to_device(ptrs[0], struct.pack(f"{N}f", *xs))
    nvidia.copy_host_to_device(ptrs[1], struct.pack(f"{N}f", *ys))
    x, y, out = (Address(p, tl.float32) for p in ptrs)
    desc = TensorDescriptor(x, shape=[N], strides=[1], block_shape=[N])
    scale_add[(1,)](desc, y, out)
    nvidia.synchronize()
    got = struct.unpack(f"{N}f", nvidia.copy_device_to_host(ptrs[2], size))
    want = tuple(a * 3 + b for a, b in zip(xs, ys))
    for p in ptrs:
        nvidia.device_free(p)
    if got != want:
        print(f"wrong result: {got[:8]}... expected {want[:8]}...")
        return 1
    if attempts or "torch" in sys.modules:
        print(f"torch was asked for: {attempts}, loaded: {'torch' in sys.modules}")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main("--fake" in sys.argv))
