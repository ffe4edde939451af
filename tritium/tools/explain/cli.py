"""`tritium explain SCRIPT.py [--kernel NAME] [-o DIR] [--target cpu|sm_90a] [-- ARGS]`"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from typing import List, Optional


def build_parser(prog: str = "tritium explain") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog, description="Run SCRIPT.py with tritium and write one page per compiled "
        "kernel: source beside every compiler stage, linked line by line.")
    p.add_argument("script", metavar="SCRIPT.py", help="the Python script that launches kernels")
    p.add_argument("--kernel", metavar="NAME", help="only this kernel (its function name)")
    p.add_argument("-o", "--output", metavar="DIR", default=None,
                   help="where index.html and the kernel pages go (default: explain-<script>)")
    p.add_argument("--target", default=None,
                   help="cpu, or an NVIDIA arch such as sm_90a (default: the GPU if tritium "
                        "can use one, else cpu). sm_90a without a GPU compiles the first "
                        "launch of the kernel and stops the script there, running nothing")
    p.epilog = "Arguments after `--` are passed to the script."
    return p


def _page_name(name: str, n: int) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80]
    return f"{safe}.html" if n == 0 else f"{safe}-{n}.html"


def run(script: str, kernel: Optional[str] = None, output: Optional[str] = None,
        target: Optional[str] = None, script_args=(), log=sys.stderr) -> str:
    """Write the pages; returns the path of index.html."""
    from . import default_target
    from .capture import capability_of, capture
    from .record import run_script
    from .render import index_page, kernel_page
    target = target or default_target()
    if target != "cpu":
        capability_of(target)  # reject a bad --target before running anything
    gpu = default_target() != "cpu"
    offline = target != "cpu" and not gpu
    t0 = time.perf_counter()
    # `--target cpu` on a GPU machine and offline runs put every kernel on the CPU backend
    # (TRITON_INTERPRET=1: its evaluator). Without a GPU the script runs as it would anyway:
    # on the CPU's compiled path, so what do_bench times is the code the page shows.
    force_cpu = (target == "cpu" and gpu) or offline
    rec = run_script(script, list(script_args), kernel=kernel, force_cpu=force_cpu,
                     stop_at_first=offline)
    run_s = time.perf_counter() - t0
    if not rec.compiled:
        what = f"kernel {kernel!r}" if kernel else "any kernel"
        raise SystemExit(f"tritium explain: {script} did not compile {what}"
                         + (f" ({rec.script_error})" if rec.script_error else ""))
    wanted = [c for c in rec.compiled if kernel is None or c.fn.__name__ == kernel]
    if not wanted:
        raise SystemExit(f"tritium explain: {script} did not compile a kernel named {kernel!r}; "
                         f"it compiled: {', '.join(rec.names())}")
    out = output or f"explain-{os.path.splitext(os.path.basename(script))[0]}"
    os.makedirs(out, exist_ok=True)
    entries, used = [], {}
    for c in wanted:
        record = capture(c.fn, c.specialization, c.options, target, bench=rec.bench_of(c))
        n = used.get(record.name, 0)
        used[record.name] = n + 1
        href = _page_name(record.name, n)
        with open(os.path.join(out, href), "w", encoding="utf-8") as f:
            f.write(kernel_page(record, index_href="index.html"))
        entries.append((href, record))
        print(f"  {record.name}: {', '.join(record.stages)} in {record.compile_ms:.0f} ms "
              f"(+{record.explain_ms:.0f} ms for the page)"
              + (f" — {record.error}" if record.error else ""), file=log)
    notes = []
    if offline:
        notes.append(f"No GPU: the script was stopped at the first launch of "
                     f"{entries[0][1].name} and that specialisation compiled for {target}.")
    elif force_cpu:
        notes.append("Target cpu: the script ran on the CPU backend's evaluator "
                     "(TRITON_INTERPRET=1, as this machine has a GPU).")
    elif target == "cpu":
        notes.append("Target cpu: the script ran on the CPU backend (compiled for this CPU, "
                     "or on its evaluator where a kernel cannot be).")
    if rec.script_error:
        notes.append(rec.script_error)
    index = os.path.join(out, "index.html")
    with open(index, "w", encoding="utf-8") as f:
        f.write(index_page(script, entries, notes))
    print(f"tritium explain: {len(entries)} kernel page(s) in {out}/ (script {run_s:.1f} s); "
          f"open {index}", file=log)
    return index


def main(argv: Optional[List[str]] = None, prog: str = "tritium explain") -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = build_parser(prog).parse_args(argv[:cut])
    extra = argv[cut + 1:]
    try:
        run(args.script, args.kernel, args.output, args.target, extra)
    except (FileNotFoundError, ValueError) as e:
        print(f"tritium explain: {e}", file=sys.stderr)
        return 2
    return 0
