"""Ahead-of-time compiler (upstream's `triton.tools.compile`): one specialisation of a
`@jit` kernel → C source and header holding the cubin and a launcher over the CUDA driver
API, so C programs launch the kernel without Python.

    python -m tritium.tools.compile kernels.py -n add_kernel \\
        -s "*fp32:16, *fp32:16, *fp32:16, i32, 1024" -g "(n + 1023) / 1024, 1, 1" \\
        -w 4 -on add -o out/add
    (through compat: python -m tritium.compat triton.tools.compile ...)

The signature lists each parameter as a type (`*fp32`, `i32`, ...) with an optional hint
(`:16` divisible by 16, `:1` equal to 1) or as a value (a constexpr). The grid is three
C expressions over the parameters' names. Output: `<out>.<hash>_<suffix>.c/.h`, with
`CUresult <out>_<hash>_<suffix>(CUstream stream, <args>)`, `load_...()` and `unload_...()`,
and a `// tt-linker:` line that `tritium.tools.link` reads to build a dispatcher.

Differs from upstream where upstream's output is wrong: float parameters are passed as
`float`/`double`/16-bit patterns (upstream declares them all `double`), a failed module
load is returned by the launcher instead of exiting the process.
"""
from __future__ import annotations

if __name__ == "__main__" and not __package__:
    # Run by its path (`python <triton.tools.__path__[0]>/compile.py ...`, as upstream's
    # tests do): run as the package's module, whose relative imports work, with compat
    # installed so that the kernel file's `import triton` is tritium.
    import os as _os
    import runpy as _runpy
    import sys as _sys
    _here = _os.path.dirname(_os.path.abspath(__file__))
    _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or ".") != _here]
    _sys.path.insert(0, _os.path.dirname(_os.path.dirname(_here)))  # this file's tritium
    import tritium.compat as _compat
    _compat.install()
    _runpy.run_module("tritium.tools.compile", run_name="__main__", alter_sys=True)
    raise SystemExit(0)

import argparse
import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Dict, List, Optional

from . import aot_templates

C_TYPES = {"i1": "int8_t", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t",
           "i64": "int64_t", "u1": "uint8_t", "u8": "uint8_t", "u16": "uint16_t",
           "u32": "uint32_t", "u64": "uint64_t", "fp16": "uint16_t", "bf16": "uint16_t",
           "fp32": "float", "f32": "float", "fp64": "double"}


def c_type(ty: str) -> str:
    if ty.startswith("*"):
        return "CUdeviceptr"
    if ty not in C_TYPES:
        raise ValueError(f"signature: no C type for {ty!r} (known: *<type>, "
                         f"{', '.join(C_TYPES)})")
    return C_TYPES[ty]


def _number(text: str):
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return None


class Signature:
    """The `--signature` string, parsed: per parameter a type and hint, or a constexpr."""

    def __init__(self, text: str, arg_names: List[str]):
        self.entries = [s.strip() for s in text.split(",")]
        if len(self.entries) != len(arg_names):
            raise ValueError(f"signature has {len(self.entries)} entries but the kernel has "
                             f"{len(arg_names)} parameters ({', '.join(arg_names)})")
        self.arg_names = arg_names
        self.constexprs: Dict[int, object] = {}
        self.types: Dict[int, str] = {}
        self.hints: Dict[int, int] = {}
        for i, s in enumerate(self.entries):
            value = _number(s)
            if value is not None:
                self.constexprs[i] = value
                continue
            ty, _, hint = s.partition(":")
            c_type(ty.strip())  # rejects unknown types early, naming them
            self.types[i] = ty.strip()
            if hint:
                h = _number(hint)
                if h not in (1, 16):
                    raise ValueError(f"signature entry {s!r} ({arg_names[i]}): only the hints "
                                     f"16 and 1 exist, got {hint!r}")
                self.hints[i] = h

    def hash(self, meta_sig: str) -> str:
        return hashlib.sha256(" ".join(self.entries + [meta_sig]).encode()).hexdigest()[:8]

    def suffix(self) -> str:
        """Upstream's: each runtime parameter's position, then `d` (divisible by 16) or `c`
        (equal to 1, compiled in)."""
        out = ""
        for pos, i in enumerate(self.types):
            out += str(pos) + {16: "d", 1: "c"}.get(self.hints.get(i), "")
        return out


def _load_kernel(path: Path, name: str):
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None:
        raise FileNotFoundError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = getattr(module, name, None)
    if kernel is None or not hasattr(kernel, "arg_names"):
        raise ValueError(f"{path} has no @jit kernel named {name!r}")
    return kernel


def _target(text: Optional[str]):
    """`-t backend:arch`; by default the current GPU's, as upstream's (cuda:90 without one)."""
    from ..backends.compiler import GPUTarget
    if text:
        backend, _, arch = text.partition(":")
        return GPUTarget(backend, int(arch) if arch.isdigit() else arch, 32)
    from ..backends.nvidia import driver
    if driver.is_available():
        major, minor = driver.get_device_capability()
        return GPUTarget("cuda", major * 10 + minor, 32)
    return GPUTarget("cuda", 90, 32)


def compile_kernel(kernel, signature: str, grid: str, out_name: str, out_path: Path,
                   num_warps: int = 1, num_stages: int = 3, target=None) -> List[Path]:
    """Compile one specialisation and write its .c and .h; returns their paths."""
    from ..compiler import ASTSource, compile
    sig = Signature(signature, list(kernel.arg_names))
    grid_exprs = [g.strip() for g in grid.split(",")]
    if len(grid_exprs) != 3 or not all(grid_exprs):
        raise ValueError(f"grid must be three C expressions separated by commas, got {grid!r}")
    names = kernel.arg_names
    types = {names[i]: ty for i, ty in sig.types.items()}
    types.update({names[i]: "constexpr" for i in sig.constexprs})
    constexprs = {names[i]: v for i, v in sig.constexprs.items()}
    constexprs.update({names[i]: 1 for i, h in sig.hints.items() if h == 1})
    attrs = {names[i]: [["tt.divisibility", 16]] for i, h in sig.hints.items() if h == 16}
    ck = compile(ASTSource(kernel, types, constexprs, attrs), target=target or _target(None),
                 options={"num_warps": num_warps, "num_stages": num_stages})
    if ck.metadata.get("global_scratch_size", 0):
        raise NotImplementedError(f"{kernel.__name__} needs global scratch memory, which "
                                  "ahead-of-time launchers do not allocate")
    meta_sig = f"warps{num_warps}xstages{num_stages}"
    sig_hash, suffix = sig.hash(meta_sig), sig.suffix()
    runtime = [i for i in sig.types if sig.hints.get(i) != 1]  # ==1 ones are compiled in
    params = {
        "kernel_name": f"{out_name}_{sig_hash}_{suffix}",
        "triton_kernel_name": ck.name,
        "cubin": aot_templates.c_bytes(ck.asm["cubin"]),
        "bin_size": len(ck.asm["cubin"]),
        "signature": "".join(f", {c_type(sig.types[i])} {names[i]}" for i in runtime),
        "full_signature": ", ".join(f"{c_type(t)} {names[i]}" for i, t in sig.types.items()),
        "arg_pointers": ", ".join(f"(void *)&{names[i]}" for i in runtime) or "NULL",
        "num_args": max(len(runtime), 1),
        "kernel_docstring": ", ".join([f"{names[i]}={v}" for i, v in sig.constexprs.items()]
                                      + [f"num_warps={num_warps}", f"num_stages={num_stages}"]),
        "shared": int(ck.metadata.shared),
        "num_warps": num_warps,
        "algo_info": "_".join(["x".join(str(v) for v in sig.constexprs.values()), meta_sig]),
        "gridX": grid_exprs[0], "gridY": grid_exprs[1], "gridZ": grid_exprs[2],
    }
    written = []
    for ext, template in (("h", aot_templates.HEADER), ("c", aot_templates.SOURCE)):
        path = out_path.with_suffix(f".{sig_hash}_{suffix}.{ext}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**params))
        written.append(path)
    return written


def main(argv=None) -> List[Path]:
    p = argparse.ArgumentParser(description="Compile a @jit kernel ahead of time into C.")
    p.add_argument("path", help="Python file defining the kernel (it is executed)")
    p.add_argument("--kernel-name", "-n", required=True, help="name of the @jit kernel")
    p.add_argument("--num-warps", "-w", type=int, default=1)
    p.add_argument("--num-stages", "-ns", type=int, default=3)
    p.add_argument("--out-name", "-on", default=None, help="C name prefix (default: kernel name)")
    p.add_argument("--out-path", "-o", type=Path, default=None, help="output path stem")
    p.add_argument("--signature", "-s", required=True, help='e.g. "*fp32:16, i32, 1024"')
    p.add_argument("--grid", "-g", required=True, help='three C expressions, e.g. "n / 64, 1, 1"')
    p.add_argument("--target", "-t", default=None, help="backend:arch; default: the current GPU's, else cuda:90")
    args = p.parse_args(argv)
    out_name = args.out_name or args.kernel_name
    kernel = _load_kernel(Path(args.path), args.kernel_name)
    return compile_kernel(kernel, args.signature, args.grid, out_name,
                          args.out_path or Path(out_name), args.num_warps, args.num_stages,
                          _target(args.target))


if __name__ == "__main__":
    main()
