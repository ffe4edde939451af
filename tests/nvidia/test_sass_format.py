"""SASS in upstream's format (`kernel.asm["sass"]`, `triton.tools.disasm`): a cuobjdump
listing becomes `Function:<name>` and one `<controls>\\t<instruction>` line each, controls
decoded from the second encoding word, branch targets as `LBB<n>:` labels, offsets past
64 KiB still read; other text passes through. On a real cubin when ptxas and cuobjdump exist."""
import random

import pytest

from tritium.backends.nvidia.sass import format_sass


def _word(stall, yld, write, read, wait):
    return stall << 41 | yld << 45 | write << 46 | read << 49 | wait << 52


def _listing(instrs, offset0=0):
    lines = ["", "\tcode for sm_90", "\t\tFunction : kern", '\t.headerflags    @"EF_CUDA_SM90"']
    for n, (asm, word) in enumerate(instrs):
        first = random.getrandbits(64)
        lines.append(f"        /*{offset0 + 16 * n:04x}*/   {asm} ;   /* 0x{first:016x} */")
        lines.append(f"                                  /* 0x{word:016x} */")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("offset0", [0, 0xFFF0])
def test_controls_labels_and_wide_offsets(offset0):
    rng = random.Random()
    fields = [(rng.randrange(16), rng.randrange(2), rng.randrange(8), rng.randrange(8),
               rng.randrange(64)) for _ in range(4)]
    target = 16 * 3  # the 4th instruction (labels count offsets from the function's start)
    instrs = [("NOP", _word(*fields[0])), (f"BRA 0x{target:x}", _word(*fields[1])),
              ("MOV R1, R2", _word(*fields[2])), ("EXIT", _word(*fields[3]))]
    out = format_sass(_listing(instrs, offset0)).splitlines()
    assert out[0] == "Function:kern"
    body = [line for line in out[1:] if line]
    assert body[3] == "LBB0:"
    for (stall, yld, write, read, wait), line in zip(fields, body[:3] + body[4:]):
        ctrl = line.split("\t")[0]
        assert ctrl == (f"{'--' if wait == 0 else f'{wait:02d}'}:{'-' if read == 7 else read}:"
                        f"{'-' if write == 7 else write}:{'Y' if yld == 0 else '-'}:{stall:x}")
    assert body[1].endswith("\tBRA LBB0;") and body[4].endswith("\tEXIT;")
    assert body[2].endswith("\tMOV R1, R2;")


def test_other_text_passes_through():
    text = "  /*0000*/ something nvdisasm printed\n"
    assert format_sass(text) == text


def test_real_cubin_matches_tools_disasm(tmp_path, monkeypatch):
    from tritium.backends.nvidia.toolchain import find_cuobjdump, find_ptxas
    if find_ptxas() is None or find_cuobjdump() is None:
        pytest.skip("needs ptxas and cuobjdump")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    import tritium
    import tritium.language as tl
    from tritium.compiler import ASTSource, GPUTarget, compile
    from tritium.tools.disasm import get_sass

    @tritium.jit
    def loop_kernel(X, n):
        acc = 0.0
        for i in range(n):
            acc += tl.load(X + i)
        tl.store(X, acc)

    k = compile(ASTSource(loop_kernel, "*fp32, i32"), target=GPUTarget("cuda", 90, 32))
    sass = get_sass(k.asm["cubin"])
    assert sass.startswith("Function:loop_kernel\n") and "\tEXIT;" in sass
    assert "LBB0:" in sass and k.asm["sass"] == sass
