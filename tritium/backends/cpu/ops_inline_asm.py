"""`tt.elementwise_inline_asm` on the CPU: PTX cannot run here, but the few asm strings that
`tl.extra.cuda` emits have CPU meanings (the host clock for %globaltimer, SM 0 for %smid,
nothing to wait for in griddepcontrol, since CPU launches run one after another). Any
other asm is an error naming it and the kernel's line."""
from __future__ import annotations

import time

import numpy as np

from ...language.extra.cuda.libdevice import FAST_TANHF_ASM
from ...language.extra.cuda.utils import GDC_LAUNCH_ASM, GDC_WAIT_ASM, GLOBALTIMER_ASM, SMID_ASM
from .evaluator import register


def _uniform(value, dt):
    return np.full(1, value, dt)  # one value shared by every program (leading axis of 1)


_KNOWN = {
    GLOBALTIMER_ASM: lambda: _uniform(time.time_ns(), np.int64),
    SMID_ASM: lambda: _uniform(0, np.int32),
    GDC_WAIT_ASM: lambda: _uniform(0, np.int32),
    GDC_LAUNCH_ASM: lambda: _uniform(0, np.int32),
    FAST_TANHF_ASM: lambda x: np.tanh(x.astype(np.float32)),
}


@register("tt.elementwise_inline_asm")
def _inline_asm(pc, op):
    asm = op.attr("asm_string", "")
    make = _KNOWN.get(asm)
    if make is None:
        raise NotImplementedError(
            f"CPU backend: inline assembly {asm!r} cannot run on the CPU (at "
            f"{op.loc.file}:{op.loc.line} in kernel '{pc.kernel}')")

    def run(env, *operands):
        return make(*operands)
    return run
