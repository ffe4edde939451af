"""allocate-shared-memory: offsets never overlap live buffers, calls reserve their callee's
block, and the sizes are the lowering's."""
from hypothesis import given, settings
from hypothesis import strategies as st

from tritium.gpu.passes.allocate_shared_memory import (ALIGNMENT, Buffer, _scratch_fn,
                                                       allocate_shared_memory, assign_offsets,
                                                       fallback_scratch_bytes)
from tritium.ir.parser import parse_module


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5000), st.integers(0, 30), st.integers(0, 10)),
                min_size=0, max_size=12))
def test_first_fit_never_overlaps_live_buffers(specs):
    bufs = [Buffer(None, size, start, start + length) for size, start, length in specs]
    total = assign_offsets(bufs)
    for b in bufs:
        assert b.offset % ALIGNMENT == 0 and b.offset + b.size <= total
    for i, a in enumerate(bufs):
        for b in bufs[i + 1:]:
            if a.interferes(b):
                assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset
    assert total == max((b.offset + b.size for b in bufs), default=0)


CALLS = """
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func private @rowmax(%x: tensor<4x1024xf32, #blocked>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>> attributes {noinline = true} {
    %0 = "tt.reduce"(%x) ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.maxnumf %a, %b : f32
      tt.reduce.return %s : f32
    }) {axis = 1 : i32} : (tensor<4x1024xf32, #blocked>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    tt.return %0 : tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
  }
  tt.func public @kernel(%x: tensor<4x1024xf32, #blocked>, %y: tensor<512xf32, #blocked1>) {
    %0 = ttg.convert_layout %y : tensor<512xf32, #blocked1> -> tensor<512xf32, #blocked2>
    %1 = tt.call @rowmax(%x) : (tensor<4x1024xf32, #blocked>) -> tensor<4xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    tt.return
  }
}
"""


def test_call_reserves_the_callee_block():
    module = parse_module(CALLS)
    total = allocate_shared_memory(module)
    funcs = {f.attr("sym_name"): f for f in module.regions[0].entry}
    reduce = next(op for op in funcs["rowmax"].walk() if op.name == "tt.reduce")
    call = next(op for op in funcs["kernel"].walk() if op.name == "tt.call")
    cvt = next(op for op in funcs["kernel"].walk() if op.name == "ttg.convert_layout")
    assert reduce.attr("allocation.offset") == 0          # relative to the call
    assert call.attr("allocation.offset") == 0 and cvt.attr("allocation.offset") == 0
    scratch = _scratch_fn()
    assert total == max(scratch(reduce), scratch(cvt)) == module.attr("ttg.shared")


def test_uses_the_lowerings_scratch_sizes():
    try:
        from tritium.gpu.scratch import scratch_bytes
    except ImportError:
        assert _scratch_fn() is fallback_scratch_bytes
    else:
        assert _scratch_fn() is scratch_bytes
