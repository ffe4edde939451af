"""Upstream Triton's tutorials as a measuring stick: run each one against tritium.

    python bench/run_tutorials.py [--device cpu|cuda] [--quick | --full] [--only 01,03]

Upstream's code is not ours to commit, so the tutorials live in an ignored folder,
`.upstream/tutorials/` at the repository root (fetched from triton-lang/triton,
`python/tutorials/NN-*.py`; `.upstream/tutorials/SOURCES.txt`, when present, names the
commit of each copy and is printed before the table). Each tutorial runs unchanged in its
own subprocess through `bench/tutorial_shim.py`, which installs `tritium.compat` first so
that `import triton` is tritium.

PASS means the tutorial ran to the end and its own checks held (its asserts,
`torch.testing.assert_close`, and no "❌" in what it printed). FAIL gives the exception (or
the ❌ line) and SKIP the tutorial's own "this device cannot run me" message, or a missing third-party package
(tabulate, flash_attn, ...); a missing `triton.*` module is tritium's gap, so a FAIL.

--device cpu runs on tritium's CPU backend the way TRITON_INTERPRET=1 runs upstream's
interpreter: TRITON_INTERPRET=1, TRITON_ACTIVE_DRIVER=cpu, and CUDA hidden from torch, so
`triton.runtime.driver.active.get_active_torch_device()` is the CPU. --device cuda runs on
the GPU. --quick (default) keeps one x value per benchmark sweep and times one call per
`do_bench`; --full runs the sweeps as written. Needs no network. The table comes last.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIM = os.path.join(REPO, "bench", "tutorial_shim.py")
DEFAULT_DIR = os.path.join(REPO, ".upstream", "tutorials")

# What upstream's tutorials print when the device cannot run them (then nothing is checked).
_SKIP_MARKERS = ("⛔", "is not supported on this device", "This example requires")
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)')
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
_ERROR_LINE = re.compile(r"^([\w.]+(Error|Exception|Interrupt)|AssertionError|SystemExit)\b")


def subprocess_env(device: str, path=(REPO,)) -> dict:
    """Environment of a script run through compat on `device` ("cpu": tritium's CPU backend
    with torch seeing no GPU); `path` goes in front of PYTHONPATH. Shared with
    run_upstream_tests.py."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*path, env.get("PYTHONPATH", "")])
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONIOENCODING"] = "utf-8"
    env.setdefault("MPLBACKEND", "Agg")
    if device == "cpu":
        env["TRITON_INTERPRET"] = "1"
        env["TRITON_ACTIVE_DRIVER"] = "cpu"
        env["CUDA_VISIBLE_DEVICES"] = ""
    else:
        env.pop("TRITON_INTERPRET", None)
        env.pop("TRITON_ACTIVE_DRIVER", None)
    return env


def _cause(output: str, rc: int) -> str:
    """The line that says why: the exception line of the last traceback, else a ❌ line."""
    lines = [ln.rstrip() for ln in output.splitlines() if ln.strip()]
    if rc != 0:
        for i in range(len(lines) - 1, -1, -1):
            if _ERROR_LINE.match(lines[i].strip()):
                bare = ":" not in lines[i]
                return lines[i].strip() + (_failing_line(lines[:i]) if bare else "")
        return lines[-1].strip() if lines else f"exit status {rc}"
    for ln in lines:
        if "❌" in ln:
            return ln.strip()
    return ""


def _failing_line(lines) -> str:
    """' at FILE:LINE: source' of a traceback's innermost frame, for a bare exception
    (`AssertionError` alone says nothing of which check failed)."""
    for i in range(len(lines) - 1, -1, -1):
        m = _FRAME.match(lines[i])
        if m:
            src = lines[i + 1].strip() if i + 1 < len(lines) else ""
            src = "" if _FRAME.match(src) or src.startswith("^") else src
            return f" at {os.path.basename(m.group(1))}:{m.group(2)}" + (f": {src}" if src else "")
    return ""


def classify(output: str, rc: int):
    """(status, cause) of one finished run."""
    if rc != 0:
        cause = _cause(output, rc)
        missing = _MISSING.match(cause)
        if missing and missing.group(1).split(".")[0] != "triton":
            return "SKIP", f"needs the {missing.group(1)!r} package: {cause}"
        return "FAIL", cause
    if "❌" in output:
        return "FAIL", _cause(output, rc)
    for marker in _SKIP_MARKERS:
        for ln in output.splitlines():
            if marker in ln:
                return "SKIP", ln.strip()
    return "PASS", ""


def run_one(path: str, device: str, quick: bool, timeout: float, log_dir: str):
    name = os.path.basename(path)
    cmd = [sys.executable, SHIM, "--device", device] + (["--quick"] if quick else []) + [path]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tutorial-") as cwd:   # save_path='.' lands here
        try:
            proc = subprocess.run(cmd, cwd=cwd, env=subprocess_env(device), stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=timeout)
            output, rc = proc.stdout.decode("utf-8", "replace"), proc.returncode
            status, cause = classify(output, rc)
        except subprocess.TimeoutExpired as e:
            output = (e.stdout or b"").decode("utf-8", "replace")
            status, cause = "FAIL", f"timeout after {timeout:.0f} s"
    wall = time.perf_counter() - t0
    with open(os.path.join(log_dir, name + ".log"), "w", encoding="utf-8") as f:
        f.write(output)
    return status, cause, wall


def _torch_sees_gpu() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False


def _sources(folder: str):
    path = os.path.join(folder, "SOURCES.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return f.read().rstrip()
    return ""


def table(results, device: str, quick: bool) -> str:
    counts = {s: sum(1 for r in results if r[1] == s) for s in ("PASS", "FAIL", "SKIP")}
    lines = [f"tritium vs upstream tutorials, --device {device} {'--quick' if quick else '--full'}: "
             f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['SKIP']} SKIP",
             "", "| tutorial | status | wall s | first error line |", "|---|---|---|---|"]
    for name, status, cause, wall in results:
        cause = cause.replace("|", "\\|")
        if len(cause) > 160:
            cause = cause[:157] + "..."
        lines.append(f"| {name} | {status} | {wall:.1f} | {cause} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cuda")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", dest="quick", action="store_true", default=True,
                      help="one x value per benchmark, one call per do_bench (default)")
    mode.add_argument("--full", dest="quick", action="store_false", help="run the sweeps as written")
    ap.add_argument("--dir", default=DEFAULT_DIR, help="folder holding the tutorial copies")
    ap.add_argument("--only", default="", help="comma-separated name prefixes, e.g. 01,03")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per tutorial (default: 120 on cuda --quick, 300 on cpu, 1800 --full)")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds for the whole run; tutorials not started by then are SKIP "
                         "(default: 330 on cuda --quick, none otherwise)")
    ap.add_argument("--logs", default=None, help="folder for each tutorial's output (default: a temp folder)")
    args = ap.parse_args(argv)

    timeout = args.timeout or (1800 if not args.quick else 120 if args.device == "cuda" else 300)
    budget = args.budget if args.budget is not None else (330 if args.device == "cuda" and args.quick else None)
    files = sorted(glob.glob(os.path.join(args.dir, "[0-9][0-9]-*.py")))
    if args.only:
        wanted = tuple(p.strip() for p in args.only.split(",") if p.strip())
        files = [f for f in files if os.path.basename(f).startswith(wanted)]
    if not files:
        print(f"no tutorials in {args.dir}: fetch upstream's python/tutorials/NN-*.py there first",
              file=sys.stderr)
        return 2
    if args.device == "cuda" and not _torch_sees_gpu():
        print("--device cuda: torch sees no GPU on this machine; use --device cpu", file=sys.stderr)
        return 2
    log_dir = args.logs or tempfile.mkdtemp(prefix="tutorial-logs-")
    os.makedirs(log_dir, exist_ok=True)

    results = []
    start = time.perf_counter()
    for path in files:
        name = os.path.basename(path)
        left = None if budget is None else budget - (time.perf_counter() - start)
        if left is not None and left < 5:
            results.append((name, "SKIP", f"run budget of {budget:.0f} s used up", 0.0))
            continue
        status, cause, wall = run_one(path, args.device, args.quick,
                                      timeout if left is None else min(timeout, left), log_dir)
        results.append((name, status, cause, wall))
        print(f"{status:4} {wall:6.1f}s {name}  {cause}", file=sys.stderr, flush=True)

    print(f"logs: {log_dir}")
    src = _sources(args.dir)
    if src:
        print(src)
    print()
    print(table(results, args.device, args.quick))
    return 0 if all(r[1] != "FAIL" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
