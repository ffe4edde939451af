"""End to end on the GPU: every test kernel through the normal JIT (`kernel[grid](cuda
tensors)`), compared with the CPU backend on the same inputs (or a torch reference).

When `tritium.gpu.pipeline` is missing, the TTGIR stage falls back to the local layout
assignment of ttgir_helper.py; when it exists both are exercised."""
import pytest

torch = pytest.importorskip("torch")

from nvl_kernels import CASES  # noqa: E402
from ttgir_helper import assign_layouts  # noqa: E402
from nvl_util import real_make_ttgir  # noqa: E402

pytestmark = pytest.mark.gpu

PIPELINES = ["helper"] + (["real"] if real_make_ttgir() is not None else [])


@pytest.fixture(params=PIPELINES)
def pipeline(request, monkeypatch):
    from tritium.backends.nvidia import backend as be
    monkeypatch.setenv("TRITON_ALWAYS_COMPILE", "1")
    if request.param == "helper":
        def make_ttgir(self, module, options):
            return assign_layouts(module, options.num_warps)
        monkeypatch.setattr(be.CUDABackend, "make_ttgir", make_ttgir)
    return request.param


def _fresh(kernel):
    kernel.cache.clear()
    kernel._fast_cache.clear()


def _clone(args, device):
    return [a.clone().to(device) if isinstance(a, torch.Tensor) else a for a in args]


def _check_special(case, gpu_args, args):
    kind = case.gpu_only_check
    if kind == "rotl3":
        x = args[0].to(torch.int64) & 0xFFFFFFFF
        exp = ((x << 3) | (x >> 29)) & 0xFFFFFFFF
        exp = torch.where(exp >= 2 ** 31, exp - 2 ** 32, exp).to(torch.int32)
        assert torch.equal(gpu_args[1].cpu(), exp)
    elif kind == "byteswap":
        x = args[0].view(-1, 4).flip(1).reshape(-1)
        assert torch.equal(gpu_args[1].cpu(), x)
    elif kind == "ticket":
        got = gpu_args[1].cpu().sort().values
        assert torch.equal(got, torch.arange(case.grid[0], dtype=torch.int32))
        assert int(gpu_args[0].cpu()[0]) == case.grid[0]
    elif kind == "spinlock":
        assert int(gpu_args[1].cpu()[0]) == case.grid[0] * case.kwargs["n_iter"]
    elif kind == "print":
        pass
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_gpu_kernel(case, pipeline):
    g = torch.Generator().manual_seed(0)
    args = case.make_args(torch, g)
    _fresh(case.kernel)
    gpu_args = _clone(args, "cuda")
    case.kernel[case.grid](*gpu_args, **case.kwargs)
    torch.cuda.synchronize()
    if case.gpu_only_check:
        _check_special(case, gpu_args, args)
        return
    cpu_args = _clone(args, "cpu")
    case.kernel[case.grid](*cpu_args, **case.kwargs)
    for i in case.outputs:
        got, exp = gpu_args[i].cpu(), cpu_args[i]
        if case.compare_sorted:
            got, exp = got.flatten().sort().values, exp.flatten().sort().values
        if got.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            got, exp = got.float(), exp.float()
        if got.dtype.is_floating_point:
            torch.testing.assert_close(got, exp, atol=case.atol, rtol=case.rtol,
                                       equal_nan=case.equal_nan, msg=lambda m: f"output {i}: {m}")
        else:
            assert torch.equal(got, exp), f"output {i} differs:\n{got}\n{exp}"
