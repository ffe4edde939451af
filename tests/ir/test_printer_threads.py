"""Printing is per thread: threads compiling at once print TTIR and TTGIR at once, and
one's layout aliases (`#blocked`, `#smem`) must not leak into, or vanish from, another's."""
import sys
import threading
from pathlib import Path

from tritium.ir.parser import parse_module
from tritium.ir.printer import print_module

TESTS = Path(__file__).resolve().parent.parent


def test_concurrent_prints_match_serial_ones():
    with_aliases = parse_module((TESTS / "nvidia_lowering/lit/atomics.mlir").read_text())
    plain = parse_module("""
tt.func @k(%p: !tt.ptr<f32>, %n: i32) {
  %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
  %1 = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  %3 = tt.load %2 : tensor<64x!tt.ptr<f32>>
  tt.store %2, %3 : tensor<64x!tt.ptr<f32>>
  tt.return
}
""")
    expected = {id(m): print_module(m) for m in (with_aliases, plain)}
    assert "#blocked" in expected[id(with_aliases)]
    bad = []

    def loop(module):
        for _ in range(60):
            text = print_module(module)
            if text != expected[id(module)]:
                bad.append(text)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=loop, args=(m,))
                   for m in (with_aliases, plain, with_aliases, plain)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not bad
