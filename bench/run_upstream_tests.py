"""Upstream Triton's own unit tests as a measuring stick: run them against tritium.

    python bench/run_upstream_tests.py [--device cpu|cuda] [--dir DIR] [--only PATTERN]
                                       [--file-limit SECONDS] [--jobs N] [-k EXPR] [-m EXPR]

Upstream's code is not ours to commit, so the test files live in an ignored folder,
`.upstream/tests/` at the repository root, laid out as upstream's `python/test/unit/`
(`language/test_random.py`, `runtime/test_launch.py`, `test_knobs.py`, `conftest.py`, ...);
`.upstream/tests/SOURCES.txt` names the upstream commit of each copy and is printed first.
Packages only the tests import (expecttest) go in `.upstream/site/` (`pip install --no-deps
--target .upstream/site expecttest`), which the subprocesses get on their PYTHONPATH.

Each file runs in its own pytest subprocess with `bench/upstream_tests_shim.py` loaded as a
plugin (`-p upstream_tests_shim`), which installs `tritium.compat` before collection so the
tests' `import triton` is tritium. Counts come from pytest's `--junitxml` report.

--device cpu runs on tritium's CPU backend as upstream's CI runs its interpreter:
TRITON_INTERPRET=1, TRITON_ACTIVE_DRIVER=cpu, CUDA hidden from torch, and `--device cpu`
for upstream's `device` fixture. --device cuda runs on the GPU. Each file gets
--file-limit seconds: after that its remaining tests are skipped (reason "per-file time
limit reached", counted in the `limit` column) and, as a backstop, the subprocess is killed
a minute later. Needs no network. The table comes last: per file passed / failed / skipped
/ errors, wall time, and the first failure's reason.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import glob
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "bench")
DEFAULT_DIR = os.path.join(REPO, ".upstream", "tests")
sys.path.insert(0, BENCH)
from run_tutorials import subprocess_env  # noqa: E402
TIME_LIMIT_REASON = "per-file time limit reached"   # what upstream_tests_shim says


def _env(device: str, deadline: float, root: str) -> dict:
    # Packages only upstream's tests import (expecttest, for runtime/test_cache.py) live in
    # `site/` beside the tests' folder: `pip install --no-deps --target .upstream/site ...`.
    site = os.path.join(os.path.dirname(root), "site")
    env = subprocess_env(device, (BENCH, REPO) + ((site,) if os.path.isdir(site) else ()))
    env["TRITIUM_UPSTREAM_DEVICE"] = device
    env["TRITIUM_UPSTREAM_DEADLINE"] = repr(deadline)
    return env


def find_test_files(root: str, only: str | None) -> list[str]:
    files = sorted(glob.glob(os.path.join(root, "**", "test_*.py"), recursive=True))
    rel = [os.path.relpath(f, root) for f in files]
    if only:
        wanted = [w.strip() for w in only.split(",") if w.strip()]
        rel = [r for r in rel if any(w in r for w in wanted)]
    return rel


def _first_line(text: str, limit: int = 110) -> str:
    for line in (text or "").splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[:limit - 1] + "…"
    return ""


def parse_junit(path: str) -> dict:
    """Counts and the first failure's reason from a pytest junit xml report."""
    counts = {"passed": 0, "failed": 0, "skipped": 0, "errors": 0, "limit": 0, "reason": ""}
    tree = ET.parse(path)
    for case in tree.iter("testcase"):
        kinds = {child.tag: child for child in case}
        if "failure" in kinds or "error" in kinds:
            node = kinds.get("failure", kinds.get("error"))
            counts["failed" if node.tag == "failure" else "errors"] += 1
            if not counts["reason"]:
                message = node.get("message") or node.text or ""
                counts["reason"] = f"{case.get('name')}: {_first_line(message)}"
        elif "skipped" in kinds:
            if TIME_LIMIT_REASON in (kinds["skipped"].get("message") or ""):
                counts["limit"] += 1
            else:
                counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts


def _last_error_line(output: str) -> str:
    lines = [l for l in output.splitlines() if l.strip()]
    for line in reversed(lines):
        if line.startswith("E ") or "Error" in line:
            return _first_line(line.lstrip("E ").strip())
    return _first_line(lines[-1]) if lines else ""


def run_file(root: str, rel: str, device: str, limit: float, extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "report.xml")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "upstream_tests_shim", f"--junitxml={xml}", "--rootdir", root,
               "-o", "junit_family=xunit1", rel]
        if os.path.exists(os.path.join(root, "conftest.py")):
            cmd += ["--device", device]
        cmd += extra
        start = time.time()
        env = _env(device, start + limit, root)
        try:
            proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True,
                                  timeout=limit + 60)
            output = proc.stdout + proc.stderr
            killed = False
        except subprocess.TimeoutExpired as exc:
            output = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) \
                else (exc.stdout or "")
            killed = True
        wall = time.time() - start
        if os.path.exists(xml):
            counts = parse_junit(xml)
        else:
            counts = {"passed": 0, "failed": 0, "skipped": 0, "errors": 1, "limit": 0,
                      "reason": "killed at the time limit" if killed else
                      f"no report: {_last_error_line(output)}"}
    counts.update(file=rel, wall=wall)
    return counts


def format_table(rows: list[dict]) -> str:
    head = "| file | passed | failed | skipped | errors | limit | wall (s) | first failure |"
    out = [head, "|---|---:|---:|---:|---:|---:|---:|---|"]
    total = {k: 0 for k in ("passed", "failed", "skipped", "errors", "limit")}
    wall = 0.0
    for r in rows:
        reason = r["reason"].replace("|", "\\|")
        out.append(f"| {r['file']} | {r['passed']} | {r['failed']} | {r['skipped']} | "
                   f"{r['errors']} | {r['limit']} | {r['wall']:.1f} | {reason} |")
        for k in total:
            total[k] += r[k]
        wall += r["wall"]
    out.append(f"| **total** | {total['passed']} | {total['failed']} | {total['skipped']} | "
               f"{total['errors']} | {total['limit']} | {wall:.1f} | |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--dir", default=DEFAULT_DIR, help="copy of upstream's python/test/unit")
    ap.add_argument("--only", help="comma-separated substrings of the file paths to run")
    ap.add_argument("--file-limit", type=float, default=None,
                    help="seconds per file before its remaining tests are skipped "
                         "(default 120 on cpu, 45 on cuda)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="files run at once (default 1 on cpu, 4 on cuda)")
    ap.add_argument("-k", dest="keyword", help="passed to pytest -k")
    ap.add_argument("-m", dest="marker", help="passed to pytest -m")
    opts = ap.parse_args(argv)

    root = os.path.abspath(opts.dir)
    if not os.path.isdir(root):
        print(f"no upstream tests at {root}: fetch them there first (see this file's docstring)")
        return 2
    files = find_test_files(root, opts.only)
    if not files:
        print(f"no test files matched under {root}")
        return 2
    limit = opts.file_limit or (120.0 if opts.device == "cpu" else 45.0)
    jobs = opts.jobs or (1 if opts.device == "cpu" else 4)
    extra = []
    if opts.keyword:
        extra += ["-k", opts.keyword]
    if opts.marker:
        extra += ["-m", opts.marker]

    sources = os.path.join(root, "SOURCES.txt")
    if os.path.exists(sources):
        print("upstream copies (file, upstream path, commit):")
        print(open(sources).read().rstrip())
    print(f"device={opts.device} file-limit={limit:.0f}s jobs={jobs} files={len(files)}", flush=True)

    rows = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_file, root, rel, opts.device, limit, extra): rel for rel in files}
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            rows[r["file"]] = r
            print(f"  {r['file']}: {r['passed']} passed, {r['failed']} failed, {r['skipped']} "
                  f"skipped, {r['errors']} errors, {r['limit']} over the limit "
                  f"({r['wall']:.1f}s)", flush=True)
    print()
    print(format_table([rows[f] for f in files]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
