"""`gl.nvidia.hopper.mbarrier`: shared-memory barriers with a phase (`init` with the number
of arrivals a phase needs, `expect` bytes an async copy will complete, `arrive`, `wait`
for a phase's parity, `invalidate`). A barrier is `gl.allocate_shared_memory(gl.int64,
[1], MBarrierLayout())`; thread 0 issues inits, expects and arrivals, every thread waits."""
from ......language.core import _unwrap_if_constexpr, builtin
from ..._layouts import SwizzledSharedLayout

__all__ = ["MBarrierLayout", "init", "expect", "arrive", "wait", "invalidate"]


class MBarrierLayout(SwizzledSharedLayout):
    """The layout of an mbarrier allocation: 8-byte words, unswizzled."""

    def __init__(self, cga_layout=None):
        super().__init__(1, 1, 1, [0], cga_layout or [])


@builtin
def init(mbarrier, count, _semantic=None):
    _semantic.mbarrier_init(mbarrier, _unwrap_if_constexpr(count))


@builtin
def expect(mbarrier, bytes_per_cta, pred=True, _semantic=None):
    _semantic.mbarrier_expect(mbarrier, _unwrap_if_constexpr(bytes_per_cta), pred)


@builtin
def arrive(mbarrier, *, count=1, pred=True, _semantic=None):
    _semantic.mbarrier_arrive(mbarrier, _unwrap_if_constexpr(count), pred)


@builtin
def wait(mbarrier, phase, pred=True, deps=(), _semantic=None):
    _semantic.mbarrier_wait(mbarrier, phase)


@builtin
def invalidate(mbarrier, _semantic=None):
    _semantic.mbarrier_invalidate(mbarrier)
