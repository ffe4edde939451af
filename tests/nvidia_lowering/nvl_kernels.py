"""Test kernels for the NVIDIA lowering, shared by the CPU compile tests (TTIR -> TTGIR ->
LLIR -> PTX -> ptxas) and the GPU tests (run on the device, compare with the CPU backend).

A `Case` holds a kernel, a function making its arguments (torch CPU tensors and Python
scalars), the grid, the launch keywords and which arguments are outputs."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import tritium as triton
import tritium.language as tl
from tritium.language.extra import libdevice


@dataclass
class Case:
    name: str
    kernel: object
    make_args: Callable  # (torch, generator) -> list
    grid: tuple
    kwargs: Dict = field(default_factory=dict)
    outputs: Sequence[int] = (0,)
    atol: float = 0.0
    rtol: float = 0.0
    equal_nan: bool = True
    gpu_only_check: Optional[Callable] = None   # extra check on the GPU outputs
    compare_sorted: bool = False

    @property
    def id(self) -> str:
        return self.name


CASES: List[Case] = []


def case(*args, **kwargs):
    c = Case(*args, **kwargs)
    CASES.append(c)
    return c


# ================================================================== elementwise / memory
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


def _add_args(dtype, n):
    def make(torch, g):
        x = torch.randn(n, generator=g).to(getattr(torch, dtype))
        y = torch.randn(n, generator=g).to(getattr(torch, dtype))
        return [x, y, torch.zeros(n, dtype=getattr(torch, dtype)), n]
    return make


for _dt in ("float32", "float16", "bfloat16"):
    for _nw in (1, 2, 4, 8):
        for _n in (1024 * 3, 1000 * 3 + 7):
            case(f"add_{_dt}_nw{_nw}_n{_n}", add_kernel, _add_args(_dt, _n),
                 (triton.cdiv(_n, 1024),), {"BLOCK": 1024, "num_warps": _nw}, outputs=(2,))
case("add_int32_small_block", add_kernel,
     lambda torch, g: [torch.randint(-1000, 1000, (100,), generator=g, dtype=torch.int32),
                       torch.randint(-1000, 1000, (100,), generator=g, dtype=torch.int32),
                       torch.zeros(100, dtype=torch.int32), 100],
     (4,), {"BLOCK": 32, "num_warps": 4}, outputs=(2,))
case("add_int64_nw2", add_kernel,
     lambda torch, g: [torch.randint(-2**40, 2**40, (777,), generator=g, dtype=torch.int64),
                       torch.randint(-2**40, 2**40, (777,), generator=g, dtype=torch.int64),
                       torch.zeros(777, dtype=torch.int64), 777],
     (4,), {"BLOCK": 256, "num_warps": 2}, outputs=(2,))


@triton.jit
def load_other_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, CACHE: tl.constexpr,
                      EVICT: tl.constexpr, VOLATILE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-7.5, cache_modifier=CACHE,
                eviction_policy=EVICT, volatile=VOLATILE)
    tl.store(out_ptr + offs, x, cache_modifier=".cs" if CACHE == ".cg" else "")


for _c, _e, _v in (("", "", False), (".cg", "", False), (".ca", "evict_last", False),
                   ("", "evict_first", False), ("", "", True)):
    case(f"load_other{_c or '_nocache'}_{_e or 'noevict'}_{'vol' if _v else 'nv'}", load_other_kernel,
         lambda torch, g: [torch.randn(1000, generator=g), torch.zeros(1024), 1000],
         (1,), {"BLOCK": 1024, "CACHE": _c, "EVICT": _e, "VOLATILE": _v}, outputs=(1,))


@triton.jit
def math_f32_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    if OP == "exp":
        r = tl.exp(x)
    elif OP == "exp2":
        r = tl.exp2(x)
    elif OP == "log":
        r = tl.log(tl.abs(x) + 0.5)
    elif OP == "log2":
        r = tl.log2(tl.abs(x) + 0.5)
    elif OP == "sqrt":
        r = tl.sqrt(tl.abs(x))
    elif OP == "sqrt_rn":
        r = tl.sqrt_rn(tl.abs(x))
    elif OP == "rsqrt":
        r = tl.rsqrt(tl.abs(x) + 0.5)
    elif OP == "sin":
        r = tl.sin(x)
    elif OP == "cos":
        r = tl.cos(x)
    elif OP == "erf":
        r = tl.erf(x)
    elif OP == "floor":
        r = tl.floor(x * 3.0)
    elif OP == "ceil":
        r = tl.ceil(x * 3.0)
    elif OP == "div":
        r = x / (tl.abs(y) + 0.5)
    elif OP == "div_rn":
        r = tl.div_rn(x, tl.abs(y) + 0.5)
    elif OP == "fma":
        r = tl.fma(x, y, x)
    elif OP == "sigmoid":
        r = tl.sigmoid(x)
    elif OP == "maximum":
        r = tl.maximum(x, y)
    elif OP == "minimum_nan":
        r = tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)
    elif OP == "clamp":
        r = tl.clamp(x, -0.5, 0.5)
    elif OP == "clamp_var":
        r = tl.clamp(x, y - 0.5, y + 0.5)
    elif OP == "where":
        r = tl.where(x > y, x * 2.0, y - 1.0)
    elif OP == "tanh":
        r = libdevice.tanh(x)
    elif OP == "pow":
        r = libdevice.pow(tl.abs(x) + 0.5, y)
    elif OP == "atan2":
        r = libdevice.atan2(x, y)
    elif OP == "remf":
        r = x % (tl.abs(y) + 0.5)
    elif OP == "neg_abs":
        r = -tl.abs(x)
    else:
        r = x
    tl.store(out_ptr + offs, r, mask=m)


_TOL = {"fma": 1e-7, "where": 1e-7, "clamp_var": 1e-7, "exp": 1e-5, "exp2": 1e-5, "div": 1e-6, "sigmoid": 1e-5, "sin": 1e-6, "cos": 1e-6,
        "erf": 1e-6, "tanh": 1e-6, "pow": 1e-5, "atan2": 1e-6, "log": 1e-6, "log2": 1e-6,
        "rsqrt": 1e-6, "sqrt": 1e-6}
for _op in ("exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "erf",
            "floor", "ceil", "div", "div_rn", "fma", "sigmoid", "maximum", "minimum_nan",
            "clamp", "clamp_var", "where", "tanh", "pow", "atan2", "remf", "neg_abs"):
    case(f"math_f32_{_op}", math_f32_kernel,
         lambda torch, g: [torch.randn(2000, generator=g), torch.randn(2000, generator=g),
                           torch.zeros(2000), 2000],
         (2,), {"OP": _op, "BLOCK": 1024}, outputs=(2,), atol=_TOL.get(_op, 0) * 4,
         rtol=_TOL.get(_op, 0) * 4)


@triton.jit
def math_lowp_kernel(x_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    if OP == "exp":
        r = tl.exp(x)
    elif OP == "sqrt":
        r = tl.sqrt(tl.abs(x))
    elif OP == "mulsub":
        r = x * x - x
    elif OP == "max":
        r = tl.maximum(x, x * 0.5)
    else:
        r = tl.log(tl.abs(x) + 1.0)
    tl.store(out_ptr + offs, r, mask=m)


for _dt in ("float16", "bfloat16", "float64"):
    for _op in ("exp", "sqrt", "mulsub", "max", "log") if _dt == "float64" else ("mulsub", "max"):
        case(f"math_{_dt}_{_op}", math_lowp_kernel,
             (lambda dt: lambda torch, g: [torch.randn(1500, generator=g).to(getattr(torch, dt)),
                                           torch.zeros(1500, dtype=getattr(torch, dt)), 1500])(_dt),
             (2,), {"OP": _op, "BLOCK": 1024}, outputs=(1,),
             atol=1e-2 if _dt != "float64" else 1e-12, rtol=1e-2 if _dt != "float64" else 1e-12)


@triton.jit
def int_ops_kernel(x_ptr, y_ptr, out_ptr, n, OP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    y = tl.load(y_ptr + offs, mask=m, other=1)
    if OP == "div":
        r = x // y
    elif OP == "rem":
        r = x % y
    elif OP == "shl":
        r = x << (y & 7)
    elif OP == "shr":
        r = x >> (y & 7)
    elif OP == "bits":
        r = (x & y) | (x ^ 12345)
    elif OP == "minmax":
        r = tl.minimum(x, y) * 3 + tl.maximum(x, y)
    elif OP == "cdiv":
        r = tl.cdiv(x, 7)
    elif OP == "umulhi":
        r = libdevice.umulhi(x.to(tl.uint32), y.to(tl.uint32)).to(tl.int32)
    elif OP == "cmp":
        r = (x < y).to(tl.int32) + (x == y).to(tl.int32) * 2 + (x >= 0).to(tl.int32) * 4
    elif OP == "abs":
        r = tl.abs(x)
    else:
        r = x * y - x
    tl.store(out_ptr + offs, r, mask=m)


for _op in ("div", "rem", "shl", "shr", "bits", "minmax", "cdiv", "cmp", "abs", "mul", "umulhi"):
    case(f"int32_{_op}", int_ops_kernel,
         lambda torch, g: [torch.randint(-5000, 5000, (1200,), generator=g, dtype=torch.int32),
                           torch.randint(1, 50, (1200,), generator=g, dtype=torch.int32),
                           torch.zeros(1200, dtype=torch.int32), 1200],
         (2,), {"OP": _op, "BLOCK": 1024}, outputs=(2,))
case("uint32_umulhi", int_ops_kernel,
     lambda torch, g: [torch.randint(0, 2**31 - 1, (1200,), generator=g, dtype=torch.int32),
                       torch.randint(0, 2**31 - 1, (1200,), generator=g, dtype=torch.int32),
                       torch.zeros(1200, dtype=torch.int32), 1200],
     (2,), {"OP": "umulhi", "BLOCK": 1024}, outputs=(2,))
for _op in ("div", "rem", "bits", "minmax", "mul"):
    case(f"int64_{_op}", int_ops_kernel,
         lambda torch, g: [torch.randint(-2**40, 2**40, (1200,), generator=g, dtype=torch.int64),
                           torch.randint(1, 2**20, (1200,), generator=g, dtype=torch.int64),
                           torch.zeros(1200, dtype=torch.int64), 1200],
         (2,), {"OP": _op, "BLOCK": 1024}, outputs=(2,))
for _dt in ("int8", "int16"):
    case(f"{_dt}_mul", int_ops_kernel,
         (lambda dt: lambda torch, g: [torch.randint(-100, 100, (1200,), generator=g).to(getattr(torch, dt)),
                                       torch.randint(1, 10, (1200,), generator=g).to(getattr(torch, dt)),
                                       torch.zeros(1200, dtype=getattr(torch, dt)), 1200])(_dt),
         (2,), {"OP": "minmax", "BLOCK": 1024}, outputs=(2,))


@triton.jit
def cast_kernel(x_ptr, out_ptr, n, DST: tl.constexpr, ROUND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if ROUND == "":
        y = x.to(DST)
    else:
        y = x.to(DST, fp_downcast_rounding=ROUND)
    tl.store(out_ptr + offs, y, mask=m)


def _cast_args(src, dst, scale=1.0):
    def make(torch, g):
        x = (torch.randn(1000, generator=g) * scale)
        if src.startswith("int") or src.startswith("uint"):
            x = (x * 50).round()
        if dst.startswith("uint"):
            x = x.abs()
        x = x.to(getattr(torch, src))
        return [x, torch.zeros(1000, dtype=getattr(torch, dst)), 1000]
    return make


_TL = {"float32": tl.float32, "float16": tl.float16, "bfloat16": tl.bfloat16, "float64": tl.float64,
       "int32": tl.int32, "int8": tl.int8, "int64": tl.int64, "uint8": tl.uint8,
       "float8_e4m3fn": tl.float8e4nv, "float8_e5m2": tl.float8e5}
for _s, _d, _r in (("float32", "float16", ""), ("float32", "float16", "rtz"),
                   ("float32", "bfloat16", ""), ("float32", "bfloat16", "rtz"),
                   ("float16", "float32", ""), ("bfloat16", "float32", ""),
                   ("float16", "bfloat16", ""), ("bfloat16", "float16", ""),
                   ("float32", "float64", ""), ("float64", "float32", ""),
                   ("float32", "int32", ""), ("int32", "float32", ""), ("int8", "float16", ""),
                   ("int32", "int8", ""), ("int8", "int64", ""), ("uint8", "float32", ""),
                   ("float32", "uint8", ""), ("int8", "bfloat16", ""),
                   ("float32", "float8_e4m3fn", ""), ("float32", "float8_e5m2", ""),
                   ("float16", "float8_e4m3fn", ""), ("float16", "float8_e5m2", ""),
                   ("bfloat16", "float8_e4m3fn", ""), ("float8_e4m3fn", "float32", ""),
                   ("float8_e5m2", "float32", ""), ("float8_e4m3fn", "float16", ""),
                   ("float8_e5m2", "bfloat16", ""), ("float8_e4m3fn", "bfloat16", "")):
    case(f"cast_{_s}_to_{_d}{'_' + _r if _r else ''}", cast_kernel,
         _cast_args(_s, _d, 4.0 if "float8" in _s + _d else 1.0),
         (1,), {"DST": _TL[_d], "ROUND": _r, "BLOCK": 1024}, outputs=(1,))


@triton.jit
def bitcast_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    i = x.to(tl.int32, bitcast=True)
    tl.store(out_ptr + offs, (i ^ -2147483648).to(tl.float32, bitcast=True))


case("bitcast_f32", bitcast_kernel, lambda torch, g: [torch.randn(256, generator=g), torch.zeros(256)],
     (1,), {"BLOCK": 256}, outputs=(1,))


@triton.jit
def inline_asm_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, 3;", "=r,r", [x], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(out_ptr + offs, y)


case("inline_asm_rotl", inline_asm_kernel,
     lambda torch, g: [torch.randint(-2**31, 2**31 - 1, (256,), generator=g, dtype=torch.int32),
                       torch.zeros(256, dtype=torch.int32)],
     (1,), {"BLOCK": 256}, outputs=(1,), gpu_only_check="rotl3")


@triton.jit
def inline_asm_packed_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("prmt.b32 $0, $1, 0, 0x0123;", "=r,r", [x], dtype=tl.int8,
                                  is_pure=True, pack=4)
    tl.store(out_ptr + offs, y)


case("inline_asm_packed_i8", inline_asm_packed_kernel,
     lambda torch, g: [torch.randint(-100, 100, (512,), generator=g, dtype=torch.int8),
                       torch.zeros(512, dtype=torch.int8)],
     (1,), {"BLOCK": 512}, outputs=(1,), gpu_only_check="byteswap")


# ================================================================== 2D, shape ops
@triton.jit
def copy2d_kernel(x_ptr, out_ptr, M, N, sxm, sxn, som, son, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * sxm + rn[None, :] * sxn, mask=mask, other=0.0)
    tl.store(out_ptr + rm[:, None] * som + rn[None, :] * son, x * 2.0, mask=mask)


def _copy2d(M, N, transpose):
    def make(torch, g):
        x = torch.randn(M, N, generator=g)
        out = torch.zeros(N, M) if transpose else torch.zeros(M, N)
        so = (1, M) if transpose else (N, 1)
        return [x, out, M, N, N, 1, so[0], so[1]]
    return make


for _nw in (1, 4, 8):
    case(f"copy2d_nw{_nw}", copy2d_kernel, _copy2d(100, 130, False), (4, 3),
         {"BM": 32, "BN": 64, "num_warps": _nw}, outputs=(1,))
case("copy2d_transposed_store", copy2d_kernel, _copy2d(64, 128, True), (1, 2),
     {"BM": 64, "BN": 64, "num_warps": 4}, outputs=(1,))


@triton.jit
def trans_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    y = tl.trans(x)
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], y)


for _nw in (1, 4):
    case(f"trans_32x64_nw{_nw}", trans_kernel,
         lambda torch, g: [torch.randn(32, 64, generator=g), torch.zeros(64, 32)], (1,),
         {"M": 32, "N": 64, "num_warps": _nw}, outputs=(1,))
case("trans_fp16_64x16", trans_kernel,
     lambda torch, g: [torch.randn(64, 16, generator=g).half(), torch.zeros(16, 64).half()], (1,),
     {"M": 64, "N": 16, "num_warps": 2}, outputs=(1,))


@triton.jit
def reshape_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    r = tl.arange(0, M * N)
    x = tl.load(x_ptr + r)
    y = tl.reshape(x, (M, N))
    z = tl.sum(y, axis=1)
    tl.store(out_ptr + tl.arange(0, M), z)


case("reshape_sum", reshape_kernel, lambda torch, g: [torch.randn(1024, generator=g), torch.zeros(16)],
     (1,), {"M": 16, "N": 64}, outputs=(1,), atol=1e-5, rtol=1e-5)


@triton.jit
def join_split_kernel(x_ptr, y_ptr, out_ptr, out2_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    y = tl.load(y_ptr + r)
    j = tl.join(x, y)                                   # [N, 2]
    tl.store(out_ptr + r[:, None] * 2 + tl.arange(0, 2)[None, :], j)
    a, b = tl.split(j * 2.0)
    tl.store(out2_ptr + r, a - b)


case("join_split", join_split_kernel,
     lambda torch, g: [torch.randn(256, generator=g), torch.randn(256, generator=g),
                       torch.zeros(512), torch.zeros(256)],
     (1,), {"N": 256}, outputs=(2, 3))


@triton.jit
def interleave_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    z = tl.interleave(tl.load(x_ptr + r), tl.load(y_ptr + r))
    tl.store(out_ptr + tl.arange(0, 2 * N), z)


case("interleave", interleave_kernel,
     lambda torch, g: [torch.randn(128, generator=g), torch.randn(128, generator=g), torch.zeros(256)],
     (1,), {"N": 128, "num_warps": 2}, outputs=(2,))


@triton.jit
def cat_kernel(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    z = tl.cat(tl.load(x_ptr + r), tl.load(y_ptr + r), can_reorder=True)
    tl.store(out_ptr + tl.arange(0, 2 * N), z)


case("cat", cat_kernel,
     lambda torch, g: [torch.randn(128, generator=g), torch.randn(128, generator=g), torch.zeros(256)],
     (1,), {"N": 128}, outputs=(2,), compare_sorted=True)


@triton.jit
def broadcast_kernel(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm)
    y = tl.load(y_ptr + rn)
    z = x[:, None] * 10.0 + y[None, :]
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], z)


case("broadcast_outer", broadcast_kernel,
     lambda torch, g: [torch.randn(16, generator=g), torch.randn(128, generator=g), torch.zeros(16 * 128)],
     (1,), {"M": 16, "N": 128}, outputs=(2,), atol=1e-5, rtol=1e-6)
case("broadcast_outer_small", broadcast_kernel,
     lambda torch, g: [torch.randn(4, generator=g), torch.randn(8, generator=g), torch.zeros(32)],
     (1,), {"M": 4, "N": 8, "num_warps": 4}, outputs=(2,), atol=1e-5, rtol=1e-6)


# ================================================================== reductions
@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(in_ptr + row * stride + offs, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + offs, e / tl.sum(e, axis=0), mask=m)


for _nw, _B, _n in ((1, 128, 100), (4, 1024, 781), (8, 2048, 2048), (2, 256, 256), (4, 32, 17)):
    case(f"softmax_nw{_nw}_B{_B}_n{_n}", softmax_kernel,
         (lambda n: lambda torch, g: [torch.zeros(37, n), torch.randn(37, n, generator=g), n, n])(_n),
         (37,), {"BLOCK": _B, "num_warps": _nw}, outputs=(0,), atol=1e-6, rtol=1e-5)


@triton.jit
def reduce2d_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
                    OP: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    if OP == "sum":
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        r = tl.max(x, axis=AXIS)
    elif OP == "min":
        r = tl.min(x, axis=AXIS)
    elif OP == "argmax":
        r = tl.argmax(x, axis=AXIS)
    elif OP == "argmin":
        r = tl.argmin(x, axis=AXIS)
    else:
        r = tl.xor_sum(x.to(tl.int32, bitcast=True), axis=AXIS)
    if AXIS == 0:
        tl.store(out_ptr + rn, r)
    else:
        tl.store(out_ptr + rm, r)


for _M, _N in ((32, 64), (64, 32), (4, 256), (256, 4), (128, 128), (1, 64), (2, 8)):
    for _ax in (0, 1):
        for _op in ("sum", "max", "argmax", "argmin", "xor") if (_M, _N) in ((32, 64), (256, 4)) else ("sum",):
            for _nw in (((1, 4, 8) if _M * _N <= 4096 else (4, 8)) if _op == "sum" else (4,)):
                case(f"reduce2d_{_op}_{_M}x{_N}_ax{_ax}_nw{_nw}", reduce2d_kernel,
                     (lambda M, N: lambda torch, g: [torch.randn(M, N, generator=g),
                                                     torch.zeros(max(M, N), dtype=torch.float32)])(_M, _N),
                     (1,), {"M": _M, "N": _N, "AXIS": _ax, "OP": _op, "num_warps": _nw},
                     outputs=(1,), atol=1e-5, rtol=1e-5)


@triton.jit
def reduce_full_kernel(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr, tl.sum(x, axis=0))
    tl.store(out_ptr + 1, tl.max(x, axis=0).to(tl.int32))


case("reduce_full_int", reduce_full_kernel,
     lambda torch, g: [torch.randint(-100, 100, (4096,), generator=g, dtype=torch.int32),
                       torch.zeros(2, dtype=torch.int32)],
     (1,), {"N": 4096, "num_warps": 8}, outputs=(1,))


@triton.jit
def reduce_keepdims_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    mu = tl.sum(x, axis=1, keep_dims=True) / N
    d = x - mu
    var = tl.sum(d * d, axis=1) / N
    tl.store(out_ptr + rm, var)


case("layernorm_var", reduce_keepdims_kernel,
     lambda torch, g: [torch.randn(16, 256, generator=g), torch.zeros(16)],
     (1,), {"M": 16, "N": 256}, outputs=(1,), atol=1e-5, rtol=1e-5)


# ================================================================== scans
@triton.jit
def scan_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
                OP: tl.constexpr, REVERSE: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    if OP == "sum":
        r = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    elif OP == "prod":
        r = tl.cumprod(x, axis=AXIS, reverse=REVERSE)
    else:
        r = tl.associative_scan(x, AXIS, _max_combine, reverse=REVERSE)
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], r)


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


for _M, _N, _nw in ((1, 1024, 4), (4, 64, 4), (64, 4, 4), (32, 32, 1), (16, 256, 8), (256, 16, 8),
                    (1, 32, 4), (8, 2, 2)):
    for _ax in (0, 1):
        for _rev in (False, True):
            for _op in ("sum", "max") if (_M, _N) in ((4, 64), (16, 256)) else ("sum",):
                case(f"scan_{_op}_{_M}x{_N}_ax{_ax}_{'rev' if _rev else 'fwd'}_nw{_nw}", scan_kernel,
                     (lambda M, N: lambda torch, g: [torch.randint(-4, 5, (M, N), generator=g).float(),
                                                     torch.zeros(M, N)])(_M, _N),
                     (1,), {"M": _M, "N": _N, "AXIS": _ax, "OP": _op, "REVERSE": _rev, "num_warps": _nw},
                     outputs=(1,))


@triton.jit
def scan_int_kernel(x_ptr, out_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    tl.store(out_ptr + r, tl.cumsum(x, 0))


case("cumsum_int32_2048", scan_int_kernel,
     lambda torch, g: [torch.randint(-100, 100, (2048,), generator=g, dtype=torch.int32),
                       torch.zeros(2048, dtype=torch.int32)],
     (1,), {"N": 2048, "num_warps": 4}, outputs=(1,))


# ================================================================== atomics
@triton.jit
def atomic_add_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, NB: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.atomic_add(out_ptr + (offs % NB), x, mask=m)


case("atomic_add_int32", atomic_add_kernel,
     lambda torch, g: [torch.randint(-100, 100, (5000,), generator=g, dtype=torch.int32),
                       torch.zeros(64, dtype=torch.int32), 5000],
     (5,), {"BLOCK": 1024, "NB": 64}, outputs=(1,))
case("atomic_add_f32_broadcast_layout", atomic_add_kernel,
     lambda torch, g: [torch.randint(-100, 100, (16,), generator=g).float(), torch.zeros(4), 16],
     (1,), {"BLOCK": 16, "NB": 4, "num_warps": 4}, outputs=(1,))


@triton.jit
def atomic_ops_kernel(x_ptr, out_ptr, old_ptr, BLOCK: tl.constexpr, OP: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if OP == "max":
        old = tl.atomic_max(out_ptr + offs % 8, x)
    elif OP == "min":
        old = tl.atomic_min(out_ptr + offs % 8, x)
    elif OP == "xchg":
        old = tl.atomic_xchg(out_ptr + offs, x)
    elif OP == "or":
        old = tl.atomic_or(out_ptr + offs % 8, x)
    elif OP == "and":
        old = tl.atomic_and(out_ptr + offs % 8, x)
    elif OP == "xor":
        old = tl.atomic_xor(out_ptr + offs % 8, x)
    else:
        old = tl.atomic_add(out_ptr + offs, x, sem="relaxed", scope="cta")
    if OP == "xchg" or OP == "add":
        tl.store(old_ptr + offs, old)


for _op in ("max", "min", "xchg", "or", "and", "xor", "add"):
    case(f"atomic_{_op}_int32", atomic_ops_kernel,
         lambda torch, g: [torch.randint(-1000, 1000, (128,), generator=g, dtype=torch.int32),
                           torch.randint(-1000, 1000, (128,), generator=g, dtype=torch.int32),
                           torch.zeros(128, dtype=torch.int32)],
         (1,), {"BLOCK": 128, "OP": _op}, outputs=(1, 2))


@triton.jit
def atomic_scalar_kernel(counter_ptr, out_ptr):
    old = tl.atomic_add(counter_ptr, 1)
    tl.store(out_ptr + tl.program_id(0), old)


case("atomic_scalar_ticket", atomic_scalar_kernel,
     lambda torch, g: [torch.zeros(1, dtype=torch.int32), torch.zeros(64, dtype=torch.int32)],
     (64,), {}, outputs=(0,), gpu_only_check="ticket")


@triton.jit
def atomic_cas_kernel(lock_ptr, count_ptr, n_iter: tl.constexpr):
    for _ in range(n_iter):
        while tl.atomic_cas(lock_ptr, 0, 1) == 1:
            pass
        c = tl.load(count_ptr, volatile=True)
        tl.store(count_ptr, c + 1)
        tl.atomic_xchg(lock_ptr, 0)


case("atomic_cas_spinlock", atomic_cas_kernel,
     lambda torch, g: [torch.zeros(1, dtype=torch.int32), torch.zeros(1, dtype=torch.int32)],
     (8,), {"n_iter": 4, "num_warps": 1}, outputs=(1,), gpu_only_check="spinlock")


@triton.jit
def atomic_fp16_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr + offs % 4, tl.load(x_ptr + offs))


case("atomic_add_f16", atomic_fp16_kernel,
     lambda torch, g: [torch.ones(64).half(), torch.zeros(4).half()],
     (1,), {"BLOCK": 64}, outputs=(1,))


# ================================================================== control flow
@triton.jit
def loop_kernel(x_ptr, out_ptr, n_iter, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    cnt = 0
    for i in range(n_iter):
        x = tl.load(x_ptr + i * BLOCK + offs)
        if i % 2 == 0:
            acc += x
        else:
            acc -= x * 0.5
        cnt += 1
    j = 0
    while j < 3:
        acc = acc * 2.0
        j += 1
    tl.store(out_ptr + offs, acc + cnt)


case("loops_if_while", loop_kernel,
     lambda torch, g: [torch.randn(7 * 256, generator=g), torch.zeros(256), 7],
     (1,), {"BLOCK": 256}, outputs=(1,), atol=1e-5, rtol=1e-6)


@triton.jit
def loop_2d_kernel(x_ptr, out_ptr, K, BM: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM], dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
        acc += tl.sum(x, axis=1)
    tl.store(out_ptr + rm, acc)


case("loop_row_sum", loop_2d_kernel,
     lambda torch, g: [torch.randn(64, 300, generator=g), torch.zeros(64), 300],
     (1,), {"BM": 64, "BK": 32}, outputs=(1,), atol=1e-4, rtol=1e-5)


@triton.jit
def pid_kernel(out_ptr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    idx = (z * ny + y) * nx + x
    tl.store(out_ptr + idx, x * 10000 + y * 100 + z + tl.num_programs(2) * 1000000)


case("program_ids_3d", pid_kernel, lambda torch, g: [torch.zeros(3 * 4 * 5, dtype=torch.int32)],
     (3, 4, 5), {}, outputs=(0,))


@triton.jit
def _helper_fn(x, y):
    return x * y + 1.0, x - y


@triton.jit(noinline=True)
def _noinline_fn(x, y):
    return x * y + 1.0


@triton.jit
def call_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    a, b = _helper_fn(x, 2.0)
    c = _noinline_fn(a, b)
    tl.store(out_ptr + offs, c)


case("calls_noinline", call_kernel, lambda torch, g: [torch.randn(128, generator=g), torch.zeros(128)],
     (1,), {"BLOCK": 128}, outputs=(1,), atol=1e-6, rtol=1e-6)


@triton.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_print("x", x)
    tl.device_print("pid", tl.program_id(0))
    tl.device_assert(x < 100.0, "x too large")


case("print_and_assert", print_kernel, lambda torch, g: [torch.arange(8).float()],
     (1,), {"BLOCK": 8, "num_warps": 1, "debug": True}, outputs=(0,), gpu_only_check="print")


@triton.jit
def histogram_kernel(x_ptr, out_ptr, N: tl.constexpr, B: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    h = tl.histogram(x, B)
    tl.store(out_ptr + tl.arange(0, B), h)


case("histogram", histogram_kernel,
     lambda torch, g: [torch.randint(0, 32, (1024,), generator=g, dtype=torch.int32),
                       torch.zeros(32, dtype=torch.int32)],
     (1,), {"N": 1024, "B": 32}, outputs=(1,))


@triton.jit
def gather_kernel(x_ptr, idx_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    i = tl.load(idx_ptr + rm[:, None] * N + rn[None, :])
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], tl.gather(x, i, 1))


case("gather", gather_kernel,
     lambda torch, g: [torch.randn(16, 32, generator=g), torch.randint(0, 32, (16, 32), generator=g, dtype=torch.int32),
                       torch.zeros(16, 32)],
     (1,), {"M": 16, "N": 32}, outputs=(2,))


@triton.jit
def bool_kernel(x_ptr, m_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(m_ptr + offs, x > 0)
    b = tl.load(m_ptr + offs)
    tl.store(out_ptr + offs, tl.where(b, x, -x))


case("bool_store_load", bool_kernel,
     lambda torch, g: [torch.randn(128, generator=g), torch.zeros(128, dtype=torch.bool), torch.zeros(128)],
     (1,), {"BLOCK": 128}, outputs=(1, 2))


@triton.jit
def rand_kernel(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs))


case("philox_rand", rand_kernel, lambda torch, g: [torch.zeros(512), 1234], (1,), {"BLOCK": 512},
     outputs=(0,), atol=1e-6)


# ------------------------------------------------------------------ more dtypes / widths
@triton.jit
def reduce_dtype_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, OP: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    if OP == "max":
        r = tl.max(x, axis=1)
    else:
        r = tl.sum(x, axis=1)
    tl.store(out_ptr + rm, r)


for _dt, _op in (("float16", "max"), ("bfloat16", "max"), ("int64", "sum"), ("float64", "max"),
                 ("int8", "max"), ("float64", "sum")):
    case(f"reduce_{_dt}_{_op}", reduce_dtype_kernel,
         (lambda dt: lambda torch, g: [(torch.randn(32, 128, generator=g) * 50).to(getattr(torch, dt)),
                                       torch.zeros(32, dtype=getattr(torch, dt))])(_dt),
         (1,), {"M": 32, "N": 128, "OP": _op, "num_warps": 8}, outputs=(1,), atol=1e-9, rtol=1e-12)


@triton.jit
def pair_scan_kernel(x_ptr, y_ptr, ox_ptr, oy_ptr, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(x_ptr + r)
    y = tl.load(y_ptr + r)
    a, b = tl.associative_scan((x, y), 0, _pair_combine)
    tl.store(ox_ptr + r, a)
    tl.store(oy_ptr + r, b)


@triton.jit
def _pair_combine(a0, a1, b0, b1):
    return a0 + b0, tl.maximum(a1, b1)


case("scan_pair_1024", pair_scan_kernel,
     lambda torch, g: [torch.randint(-5, 5, (1024,), generator=g, dtype=torch.int32),
                       torch.randn(1024, generator=g), torch.zeros(1024, dtype=torch.int32),
                       torch.zeros(1024)],
     (1,), {"N": 1024, "num_warps": 4}, outputs=(2, 3))


@triton.jit
def atomic_wide_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, RELAXED: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if RELAXED:
        tl.atomic_add(out_ptr + offs % 16, x, mask=m, sem="relaxed")
    else:
        tl.atomic_add(out_ptr + offs % 16, x, mask=m)


for _dt in ("int64", "float64", "float32"):
    for _rel in (False, True):
        case(f"atomic_add_{_dt}_{'relaxed_red' if _rel else 'acq_rel'}", atomic_wide_kernel,
             (lambda dt: lambda torch, g: [torch.randint(-100, 100, (500,), generator=g).to(getattr(torch, dt)),
                                           torch.zeros(16, dtype=getattr(torch, dt)), 500])(_dt),
             (1,), {"BLOCK": 512, "RELAXED": _rel}, outputs=(1,))


for _dt, _n in (("float16", 1008), ("int8", 1008), ("bfloat16", 1000)):
    case(f"load_other_{_dt}_n{_n}", load_other_kernel,
         (lambda dt, n: lambda torch, g: [(torch.randn(1024, generator=g) * 20).to(getattr(torch, dt)),
                                          torch.zeros(1024, dtype=getattr(torch, dt)), n])(_dt, _n),
         (1,), {"BLOCK": 1024, "CACHE": "", "EVICT": "", "VOLATILE": False}, outputs=(1,))

case("softmax_nw16_B4096", softmax_kernel,
     lambda torch, g: [torch.zeros(5, 4096), torch.randn(5, 4096, generator=g), 4096, 4096],
     (5,), {"BLOCK": 4096, "num_warps": 16}, outputs=(0,), atol=1e-6, rtol=1e-5)


# Cases that could hang the GPU if atomics were wrong run last.
CASES.sort(key=lambda c: c.gpu_only_check == "spinlock")
CASE_BY_NAME = {c.name: c for c in CASES}
