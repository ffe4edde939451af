"""Count SASS instructions by opcode in the innermost loop of the attention kernel (or
the fp16 matmul) of `tc_kernels.py`, compiled for sm_90a by tritium or by upstream Triton (no GPU needed).

    PYTHONPATH=. python bench/sass_loop_mix.py tritium  [D|mm] [causal] [OUTDIR]
    /work/upvenv/bin/python bench/sass_loop_mix.py upstream [D|mm] [causal] [OUTDIR]
    python bench/sass_loop_mix.py --diff A.json B.json

Prints the loop's instruction count and its opcode histogram (one JSON line last, so two
runs can be compared by `--diff a.json b.json`). The innermost loop is the largest
backward branch's body (the one that holds the HGMMA instructions)."""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
CUOBJDUMP = "/work/main/.venv/lib/python3.11/site-packages/nvidia/cu13/bin/cuobjdump"
_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")


def loop_body(sass: str):
    """(address, opcode, text) of the instructions of the innermost loop holding HGMMA."""
    ins = [(int(m.group(1), 16), m.group(3), m.group(0)) for m in _LINE.finditer(sass)]
    addr = {a: i for i, (a, _, _) in enumerate(ins)}
    best = None
    for i, (a, op, text) in enumerate(ins):
        if op.startswith("BRA"):
            t = re.search(r"BRA\s+(?:`\(\.L_x_\d+\)\s*|\S*?)(0x[0-9a-f]+)", text)
            if not t:
                continue
            tgt = int(t.group(1), 16)
            if tgt < a and tgt in addr:
                body = ins[addr[tgt]:i + 1]
                if any(o.startswith("HGMMA") for _, o, _ in body):
                    if best is None or len(body) < len(best):
                        best = body
    return best or []


def _config(k, D):
    """(kernel, signature, constexprs, attrs, num_warps, num_stages) of one bench config:
    attention (D = 64 or 128) or the fp16 matmul (D = "mm", 128x128x64 tiles), specialised
    as the JIT specialises the bench's launches (divisible-by-16 arguments, unit strides)."""
    if D == "mm":
        sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
               "K": "i32", "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32",
               "stride_bn": "constexpr", "stride_cm": "i32", "stride_cn": "constexpr",
               "BLOCK_SIZE_M": "constexpr", "BLOCK_SIZE_N": "constexpr",
               "BLOCK_SIZE_K": "constexpr", "GROUP_SIZE_M": "constexpr"}
        consts = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 128,
                  "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}
        attrs = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 3, 4, 5, 6, 8, 10)}
        return k.matmul_kernel, sig, consts, attrs, 4, 4
    sig = {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": "fp32",
           "N_CTX": "i32", "stride_z": "i32", "stride_m": "i32", "HEAD_DIM": "constexpr",
           "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "CAUSAL": "constexpr"}
    attrs = {(i,): [["tt.divisibility", 16]] for i in (0, 1, 2, 3, 5, 6, 7)}
    return k.attn_fwd, sig, None, attrs, 8 if D == 128 else 4, 3


def compile_cubin(flavor, D, causal):
    if flavor == "upstream":
        import triton  # noqa: F401  (before kernel_loader imports tritium)
    from kernel_loader import load_kernels_from
    k = load_kernels_from("tc_kernels.py", flavor)
    fn, sig, consts, attrs, W, S = _config(k, D)
    if consts is None:
        consts = {"HEAD_DIM": D, "BLOCK_M": 128, "BLOCK_N": 64, "CAUSAL": causal}
    if flavor == "upstream":
        import triton
        from triton.backends.compiler import GPUTarget
        src = triton.compiler.ASTSource(fn, sig, consts, attrs)
        return triton.compile(src, target=GPUTarget("cuda", 90, 32),
                              options=dict(num_warps=W, num_stages=S))
    import tritium
    from tritium.backends.compiler import GPUTarget
    src = tritium.compiler.ASTSource(fn, sig, consts, attrs)
    return tritium.compile(src, target=GPUTarget("cuda", 90, 32),
                           options=dict(num_warps=W, num_stages=S))


def main():
    if sys.argv[1] == "--diff":
        a, b = (json.load(open(p)) for p in sys.argv[2:4])
        print(f"{'opcode':16}{'A':>6}{'B':>6}{'B-A':>6}")
        for op in sorted(set(a) | set(b), key=lambda o: -(b.get(o, 0) - a.get(o, 0))):
            if a.get(op, 0) != b.get(op, 0):
                print(f"{op:16}{a.get(op, 0):6}{b.get(op, 0):6}{b.get(op, 0) - a.get(op, 0):6}")
        print(f"{'total':16}{sum(a.values()):6}{sum(b.values()):6}")
        return
    flavor = sys.argv[1]
    D = sys.argv[2] if len(sys.argv) > 2 else "128"
    D = D if D == "mm" else int(D)
    causal = (sys.argv[3] in ("1", "causal", "True")) if len(sys.argv) > 3 else True
    out = sys.argv[4] if len(sys.argv) > 4 else tempfile.mkdtemp()
    os.makedirs(out, exist_ok=True)
    h = compile_cubin(flavor, D, causal)
    tag = f"{flavor}_mm" if D == "mm" else f"{flavor}_attn{D}{'c' if causal else ''}"
    _, body, hist = write_stages(h, out, tag)
    print(f"{tag}: {len(body)} instructions in the loop ({out})")
    for op, n in hist.most_common():
        print(f"  {op:12}{n:5}")


def write_stages(h, out, tag):
    """Write a compiled kernel's TTGIR, LLIR, PTX, cubin, SASS, its loop's SASS and the
    loop's opcode counts (JSON) under `out` as tag.*; return (sass, loop body, counts)."""
    cub = os.path.join(out, tag + ".cubin")
    with open(cub, "wb") as f:
        f.write(h.asm["cubin"])
    for key in ("ttgir", "llir", "ptx"):
        with open(os.path.join(out, f"{tag}.{key}"), "w") as f:
            f.write(h.asm[key])
    sass = subprocess.run([CUOBJDUMP, "-sass", cub], capture_output=True, text=True,
                          check=True).stdout
    with open(os.path.join(out, tag + ".sass"), "w") as f:
        f.write(sass)
    body = loop_body(sass)
    with open(os.path.join(out, tag + ".loop.sass"), "w") as f:
        f.write("\n".join(t for _, _, t in body) + "\n")
    hist = collections.Counter(op.split(".")[0] for _, op, _ in body)
    with open(os.path.join(out, tag + ".json"), "w") as f:
        json.dump(dict(hist), f)
    return sass, body, hist

if __name__ == "__main__":
    main()
