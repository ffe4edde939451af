"""Ahead-of-time linker (upstream's `triton.tools.link`): the headers `tools/compile.py`
wrote for several specialisations of a kernel → one C entry point that dispatches each
call to the most specialised variant whose hints the arguments meet.

    python -m tritium.tools.link out/*.h -o out/add_kernel

Writes `<out>.h` and `<out>.c` with, as upstream's: per algorithm (constexpr values and
warps/stages) `<kernel>_<algo>(stream, args)` choosing among hint variants (`% 16 == 0`,
`== 1`); `<kernel>(stream, args, int algo_id)` over the table of algorithms,
`<kernel>_default(stream, args)` (algorithm 0), `<kernel>_get_num_algos()`, and
`load_<kernel>()` / `unload_<kernel>()` for every variant. Unlike upstream's, the number
of algorithms is the table's length (upstream returns its size in bytes) and an
out-of-range `algo_id` returns CUDA_ERROR_INVALID_VALUE instead of asserting.
"""
from __future__ import annotations

import argparse
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

_DIRECTIVE = re.compile(r"//\s*tt-linker:\s*(\w+):(.*):(\w*)\s*$")
_NAME = re.compile(r"^(\w+)_([0-9a-f]{8})_(\w+)$")
_PARAM = re.compile(r"^\s*(\w+)\s+(\w+)\s*$")


class LinkerError(Exception):
    pass


@dataclass
class Variant:
    """One compiled specialisation, as its header describes it."""
    kernel: str          # the kernel's name (the compile step's --out-name)
    sig_hash: str
    suffix: str
    arg_types: List[str]
    arg_names: List[str]
    hints: List[Optional[int]]  # per parameter: 16, 1 or None

    @property
    def c_name(self) -> str:
        return f"{self.kernel}_{self.sig_hash}_{self.suffix}"

    @property
    def num_specs(self) -> int:
        return sum(h is not None for h in self.hints)


def parse_header(text: str, origin: str = "<header>") -> List[Variant]:
    out = []
    for line in text.splitlines():
        m = _DIRECTIVE.match(line.strip())
        if not m:
            continue
        c_name, params, algo = m.groups()
        nm = _NAME.match(c_name)
        if nm is None:
            raise LinkerError(f"{origin}: {c_name!r} is not <kernel>_<hash>_<suffix>")
        types, names = [], []
        for p in filter(None, (x.strip() for x in params.split(","))):
            pm = _PARAM.match(p)
            if pm is None:
                raise LinkerError(f"{origin}: bad parameter {p!r} in {c_name}")
            types.append(pm.group(1))
            names.append(pm.group(2))
        hints = _hints(nm.group(3), len(names), origin)
        out.append((algo, Variant(nm.group(1), nm.group(2), nm.group(3), types, names, hints)))
    if not out:
        raise LinkerError(f"{origin}: no `// tt-linker:` line (not made by tools.compile?)")
    return out


def _hints(suffix: str, n: int, origin: str) -> List[Optional[int]]:
    """The suffix is each position in turn, each followed by `d`, `c` or nothing: read
    it position by position (digits alone are ambiguous: "0123")."""
    hints, pos = [], 0
    for i in range(n):
        if not suffix.startswith(str(i), pos):
            raise LinkerError(f"{origin}: suffix {suffix!r} does not describe {n} parameters")
        pos += len(str(i))
        mark = suffix[pos:pos + 1]
        hints.append({"d": 16, "c": 1}.get(mark))
        pos += mark in ("c", "d")
    if pos != len(suffix):
        raise LinkerError(f"{origin}: suffix {suffix!r} does not describe {n} parameters")
    return hints


def _params(v: Variant, skip_constants: bool = False) -> str:
    return "".join(f", {t} {n}" for t, n, h in zip(v.arg_types, v.arg_names, v.hints)
                   if not (skip_constants and h == 1))


def _args(v: Variant, skip_constants: bool = False) -> str:
    return "".join(f", {n}" for n, h in zip(v.arg_names, v.hints)
                   if not (skip_constants and h == 1))


def _condition(v: Variant) -> str:
    conds = [f"({n} % 16 == 0)" if h == 16 else f"({n} == 1)"
             for n, h in zip(v.arg_names, v.hints) if h is not None]
    return " && ".join(conds) or "1"


def link(variants: Dict[str, List[Variant]]) -> Dict[str, str]:
    """{"h": header text, "c": source text} for variants grouped by algorithm name."""
    first = next(iter(variants.values()))[0]
    kernel, full = first.kernel, _params(first)
    for algo, vs in variants.items():
        for v in vs:
            if v.kernel != kernel or v.arg_types != first.arg_types:
                raise LinkerError(f"mismatched signature for {v.c_name}: "
                                  f"({', '.join(v.arg_types)}) vs ({', '.join(first.arg_types)})")
    h = ["#include <cuda.h>", ""]
    c = ["#include <cuda.h>", "#include <stdint.h>", ""]
    names = [f"{kernel}_{algo}" for algo in variants]
    for name, vs in zip(names, variants.values()):
        h += [f"CUresult {name}(CUstream stream{full});", f"void load_{name}(void);",
              f"void unload_{name}(void);", ""]
        ordered = sorted(vs, key=lambda v: -v.num_specs)
        c.append(f"/* {name}: the most specialised variant whose hints hold */")
        for v in ordered:
            c += [f"CUresult {v.c_name}(CUstream stream{_params(v, True)});",
                  f"void load_{v.c_name}(void);", f"void unload_{v.c_name}(void);"]
        c.append(f"CUresult {name}(CUstream stream{full}) {{")
        for v in ordered:
            c += [f"  if ({_condition(v)})", f"    return {v.c_name}(stream{_args(v, True)});"]
        c += ["  return CUDA_ERROR_INVALID_VALUE;", "}"]
        for mode in ("load", "unload"):
            c.append(f"void {mode}_{name}(void) {{")
            c += [f"  {mode}_{v.c_name}();" for v in ordered]
            c.append("}")
        c.append("")
    h += [f"int {kernel}_get_num_algos(void);",
          f"CUresult {kernel}_default(CUstream stream{full});",
          f"CUresult {kernel}(CUstream stream{full}, int algo_id);",
          f"void load_{kernel}(void);", f"void unload_{kernel}(void);", ""]
    c += [f"typedef CUresult (*{kernel}_func_t)(CUstream stream{full});",
          f"static const {kernel}_func_t {kernel}_kernels[] = {{ {', '.join(names)} }};",
          f"#define {kernel.upper()}_NUM_ALGOS "
          f"((int)(sizeof({kernel}_kernels) / sizeof({kernel}_kernels[0])))",
          f"int {kernel}_get_num_algos(void) {{ return {kernel.upper()}_NUM_ALGOS; }}",
          f"CUresult {kernel}(CUstream stream{full}, int algo_id) {{",
          f"  if (algo_id < 0 || algo_id >= {kernel.upper()}_NUM_ALGOS)",
          "    return CUDA_ERROR_INVALID_VALUE;",
          f"  return {kernel}_kernels[algo_id](stream{_args(first)});", "}",
          f"CUresult {kernel}_default(CUstream stream{full}) {{",
          f"  return {kernel}(stream{_args(first)}, 0);", "}"]
    for mode in ("load", "unload"):
        c.append(f"void {mode}_{kernel}(void) {{")
        c += [f"  {mode}_{name}();" for name in names]
        c.append("}")
    return {"h": "\n".join(h) + "\n", "c": "\n".join(c) + "\n"}


def link_headers(headers: Sequence[Path], out: Path) -> List[Path]:
    groups: Dict[str, List[Variant]] = OrderedDict()
    for path in headers:
        for algo, v in parse_header(Path(path).read_text(), str(path)):
            groups.setdefault(algo, []).append(v)
    texts = link(groups)
    written = []
    for ext in ("h", "c"):
        p = Path(out).with_suffix(f".{ext}")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(texts[ext])
        written.append(p)
    return written


def main(argv=None) -> List[Path]:
    p = argparse.ArgumentParser(description="Link AOT-compiled kernel variants into one "
                                "dispatching entry point.")
    p.add_argument("headers", nargs="+", help="headers written by tools.compile")
    p.add_argument("--out", "-o", type=Path, required=True, help="output path stem")
    p.add_argument("--prefix", default="", help="accepted for upstream compatibility")
    args = p.parse_args(argv)
    return link_headers(args.headers, args.out)


if __name__ == "__main__":
    main()
