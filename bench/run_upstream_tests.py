"""Upstream Triton's own unit tests as a measuring stick: run them against tritium.

    python bench/run_upstream_tests.py [--device cpu|cuda] [--dir DIR] [--only PATTERN]
                                       [--file-limit SECONDS] [--total-limit SECONDS]
                                       [--jobs N] [--core-cases K] [--core-shards N]
                                       [--out DIR] [-k EXPR] [-m EXPR]

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
for upstream's `device` fixture; every test of every file, one file at a time.

--device cuda runs on the GPU, made to end within about six and a half minutes on one H100
with 16 cores: 8 files at a time; language/test_core.py (about 10,000 cases) runs a sample,
at most --core-cases (default 3) parametrizations of each of its test functions, spread
evenly over each list (first and last kept), split over --core-shards (default 4)
processes; every other file runs whole. Pass --core-cases 0 for all of test_core.

Time limits: a file's remaining tests are skipped (reason "per-file time limit reached",
column `limit`) once --file-limit seconds have passed since it started (default 300 CPU,
240 cuda) or --total-limit seconds since the run started (default none on the CPU, 330 s
on cuda), and as a backstop the subprocess is killed 30 s after that. Needs no network.

The table comes last: per file passed / failed / skipped / errors / over the limit, wall
time, and the first failure's reason. With --out (default: $OUT when set) every file's
junit xml (`junit/`), the pytest output (`logs/`, capped at 2 MB each), `summary.md` (the
command and the table) and `summary.json` are written there.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(REPO, "bench")
COMPAT_SITE = os.path.join(BENCH, "compat_site")
DEFAULT_DIR = os.path.join(REPO, ".upstream", "tests")
sys.path.insert(0, BENCH)
from run_tutorials import subprocess_env  # noqa: E402
TIME_LIMIT_REASON = "per-file time limit reached"   # what upstream_tests_shim says


def _env(device: str, deadline: float, root: str) -> dict:
    # Packages only upstream's tests import (expecttest, for runtime/test_cache.py) live in
    # `site/` beside the tests' folder: `pip install --no-deps --target .upstream/site ...`.
    site = os.path.join(os.path.dirname(root), "site")
    # compat_site/sitecustomize.py: scripts the tests start (`python script.py`,
    # `python -m triton.tools.compile`) import tritium as triton too.
    env = subprocess_env(device, (BENCH, COMPAT_SITE, REPO)
                         + ((site,) if os.path.isdir(site) else ()))
    env["TRITIUM_UPSTREAM_DEVICE"] = device
    env["TRITIUM_UPSTREAM_DEADLINE"] = repr(deadline)
    for k in ("TRITIUM_UPSTREAM_SAMPLE", "TRITIUM_UPSTREAM_SHARD",
              "TRITIUM_UPSTREAM_SAMPLE_REPORT"):
        env.pop(k, None)
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


def _has_forked() -> bool:
    import importlib.util
    return importlib.util.find_spec("pytest_forked") is not None


def run_file(root: str, rel: str, device: str, limit: float, extra: list[str],
             deadline: float | None = None, sample: int = 0, shard: str = "",
             out: str | None = None) -> dict:
    """One pytest subprocess over `rel`: its counts (junit), wall time and first failure.
    `deadline` (a time.time()) cuts the file's `limit` short; `sample`/`shard` select part
    of the file (the shim's TRITIUM_UPSTREAM_SAMPLE/_SHARD); `out` keeps the junit xml and
    the output there."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = os.path.join(tmp, "report.xml")
        sample_report = os.path.join(tmp, "sample.json")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-p", "upstream_tests_shim", f"--junitxml={xml}", "--rootdir", root,
               "-o", "junit_family=xunit1", "--tb=short", rel]
        if os.path.exists(os.path.join(root, "conftest.py")):
            cmd += ["--device", device]
        if rel.endswith("test_debug.py") and device == "cuda" and _has_forked():
            # Every test in its own process, not only the `forked`-marked ones: a kernel
            # launched by an unmarked test (test_static_assert's constexpr-only kernel runs on
            # the GPU, as upstream's) initialises CUDA in the parent, which a fork cannot use.
            cmd += ["--forked"]
        cmd += extra
        start = time.time()
        stop = start + limit if deadline is None else min(start + limit, deadline)
        env = _env(device, stop, root)
        if sample or shard:
            env["TRITIUM_UPSTREAM_SAMPLE"] = str(sample or 0)
            env["TRITIUM_UPSTREAM_SHARD"] = shard
            env["TRITIUM_UPSTREAM_SAMPLE_REPORT"] = sample_report
        try:
            proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True,
                                  timeout=max(1.0, stop - start) + 30)
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
        counts["sampled"] = None
        if os.path.exists(sample_report):
            with open(sample_report) as f:
                counts["sampled"] = json.load(f)
        if out:
            name = rel.replace(os.sep, "__") + (f".shard{shard.replace('/', 'of')}" if shard else "")
            os.makedirs(os.path.join(out, "junit"), exist_ok=True)
            os.makedirs(os.path.join(out, "logs"), exist_ok=True)
            if os.path.exists(xml):
                shutil.copy(xml, os.path.join(out, "junit", name + ".xml"))
            text = output if len(output) <= _LOG_CAP else \
                output[:_LOG_CAP // 2] + "\n... (cut) ...\n" + output[-_LOG_CAP // 2:]
            with open(os.path.join(out, "logs", name + ".txt"), "w") as f:
                f.write(" ".join(cmd) + "\n\n" + text)
    counts.update(file=rel, wall=wall)
    return counts


_LOG_CAP = 2 << 20


def merge_rows(rows: list[dict]) -> dict:
    """One row for a file run as several shards: counts added, the longest wall (they ran
    side by side), the first failure of the first shard that has one."""
    merged = {k: sum(r[k] for r in rows) for k in ("passed", "failed", "skipped", "errors",
                                                      "limit")}
    merged["reason"] = next((r["reason"] for r in rows if r["reason"]), "")
    merged["wall"] = max(r["wall"] for r in rows)
    merged["file"] = rows[0]["file"]
    sampled = [r.get("sampled") for r in rows if r.get("sampled")]
    merged["sampled"] = {"collected": sampled[0]["collected"],
                         "kept": sum(x["kept"] for x in sampled)} if sampled else None
    return merged


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


CORE = "language/test_core.py"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--dir", default=DEFAULT_DIR, help="copy of upstream's python/test/unit")
    ap.add_argument("--only", help="comma-separated substrings of the file paths to run")
    ap.add_argument("--file-limit", type=float, default=None,
                    help="seconds per file before its remaining tests are skipped "
                         "(default 300 on cpu, 240 on cuda)")
    ap.add_argument("--total-limit", type=float, default=None,
                    help="seconds from the start after which every file's remaining tests "
                         "are skipped (default none on cpu, 330 on cuda)")
    ap.add_argument("--jobs", type=int, default=None,
                    help="files run at once (default 1 on cpu, 8 on cuda)")
    ap.add_argument("--core-cases", type=int, default=None,
                    help=f"at most this many parametrizations per test function of {CORE} "
                         "(default: all on cpu, 3 on cuda; 0: all)")
    ap.add_argument("--core-shards", type=int, default=None,
                    help=f"processes {CORE} is split over (default 1 on cpu, 4 on cuda)")
    ap.add_argument("--out", default=os.environ.get("OUT") or None,
                    help="folder for junit xml, logs and the summary (default: $OUT)")
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
    cuda = opts.device == "cuda"
    limit = opts.file_limit or (240.0 if cuda else 300.0)
    total = opts.total_limit if opts.total_limit is not None else (330.0 if cuda else None)
    jobs = opts.jobs or (8 if cuda else 1)
    core_cases = opts.core_cases if opts.core_cases is not None else (3 if cuda else 0)
    shards = max(1, opts.core_shards or (4 if cuda else 1))
    extra = []
    if opts.keyword:
        extra += ["-k", opts.keyword]
    if opts.marker:
        extra += ["-m", opts.marker]
    out = os.path.abspath(opts.out) if opts.out else None
    if out:
        os.makedirs(out, exist_ok=True)

    sources = os.path.join(root, "SOURCES.txt")
    if os.path.exists(sources):
        print("upstream copies (file, upstream path, commit):")
        print(open(sources).read().rstrip())
    command = "python bench/run_upstream_tests.py " + " ".join(sys.argv[1:] if argv is None
                                                               else argv)
    print(f"device={opts.device} file-limit={limit:.0f}s total-limit="
          f"{'none' if total is None else f'{total:.0f}s'} jobs={jobs} files={len(files)} "
          f"test_core: {'all cases' if not core_cases else f'{core_cases} per function'}"
          f"{f', {shards} shards' if shards > 1 else ''}", flush=True)

    start = time.time()
    deadline = None if total is None else start + total
    # The big file's shards first, so they are not the last to start.
    tasks = []
    for rel in sorted(files, key=lambda r: r != CORE):
        if rel == CORE and (core_cases or shards > 1):
            tasks += [(rel, core_cases, f"{i}/{shards}" if shards > 1 else "")
                      for i in range(shards)]
        else:
            tasks.append((rel, 0, ""))
    parts: dict = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_file, root, rel, opts.device, limit, extra, deadline,
                               sample, shard, out) for rel, sample, shard in tasks]
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            parts.setdefault(r["file"], []).append(r)
            print(f"  {r['file']}: {r['passed']} passed, {r['failed']} failed, {r['skipped']} "
                  f"skipped, {r['errors']} errors, {r['limit']} over the limit "
                  f"({r['wall']:.1f}s)", flush=True)
    rows = [merge_rows(parts[f]) if len(parts[f]) > 1 else parts[f][0] for f in files]
    wall = time.time() - start
    notes = [f"{r['file']}: ran {r['sampled']['kept']} of {r['sampled']['collected']} "
             f"collected cases (at most {core_cases} per test function)"
             for r in rows if r.get("sampled") and r["sampled"]["kept"] < r["sampled"]["collected"]]
    table = format_table(rows)
    if out:
        with open(os.path.join(out, "summary.md"), "w") as f:
            f.write(f"    {command}\n\ndevice={opts.device}, {wall:.0f} s wall\n\n")
            f.write("".join(n + "\n" for n in notes) + ("\n" if notes else "") + table + "\n")
        with open(os.path.join(out, "summary.json"), "w") as f:
            json.dump({"command": command, "device": opts.device, "wall": wall,
                       "rows": rows}, f, indent=1)
    print()
    for n in notes:
        print(n)
    print(f"wall {wall:.0f} s" + (f"; junit xml, logs and summary in {out}" if out else ""))
    print()
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
