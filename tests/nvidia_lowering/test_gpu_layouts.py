"""Hand-built TTGIR over explicit layouts (convert_layout through registers, shuffles and
shared memory; trans), lowered, assembled, loaded and launched through the driver: the
output tile must equal the input tile (transposed for trans)."""
import pytest

torch = pytest.importorskip("torch")

from nvl_layout_cases import LAYOUT_CASES  # noqa: E402

pytestmark = pytest.mark.gpu

_TORCH = {"f32": "float32", "f16": "float16", "i8": "int8", "f64": "float64", "i64": "int64"}
_SIG = {"f32": "*fp32", "f16": "*fp16", "i8": "*i8", "f64": "*fp64", "i64": "*i64"}


def _build(text):
    from tritium.backends.nvidia import driver, toolchain
    from tritium.backends.nvidia.llvm import llir_to_ptx
    from tritium.backends.nvidia.lowering import make_llir
    from tritium.ir.parser import parse_module
    llir, meta = make_llir(parse_module(text))
    ptx = llir_to_ptx(llir, arch=driver.get_device_arch())
    image = toolchain.make_cubin(ptx, arch=driver.get_device_arch())[0] if toolchain.find_ptxas() else ptx
    _, function, _, _ = driver.load_binary("cvt", image, meta["shared"], driver.get_current_device())
    return function, meta


@pytest.mark.parametrize("case", LAYOUT_CASES, ids=lambda c: c.name)
def test_layout_roundtrip(case):
    from tritium.backends.nvidia import driver, launcher
    torch.cuda.init()
    function, meta = _build(case.text)
    M, N = case.shape
    dt = getattr(torch, _TORCH[case.elt])
    if dt.is_floating_point:
        x = torch.randn(M, N, device="cuda").to(dt)
    else:
        x = torch.randint(-100, 100, (M, N), device="cuda").to(dt)
    y = torch.zeros(N, M, device="cuda", dtype=dt) if case.op == "trans" else torch.zeros_like(x)
    launch = launcher.make_launcher({"x": _SIG[case.elt], "y": _SIG[case.elt]})
    launch(1, 1, 1, driver.get_current_stream(), function, meta["num_warps"], meta["shared"], x, y)
    torch.cuda.synchronize()
    exp = x.t().contiguous() if case.op == "trans" else x
    assert torch.equal(y, exp), f"mismatch at {(y != exp).nonzero()[:8].tolist()}"
