"""A small lit: run the pass pipeline named on a test's `// RUN:` line over the MLIR in
the file and match the printed result against its `// CHECK` lines with FileCheck (the
`filecheck` package, in-process).

RUN line:   // RUN: <pass-pipeline> [--split-input-file] [--check-prefix=P]
                                    [--verify-each] [--debug-info]
The pipeline may be written `tritium-opt %s -p '<pipeline>' | FileCheck %s` as well.
With --split-input-file the input is cut at `// -----` lines, each piece runs on its own,
and the outputs are joined with `// -----` lines.

    python tests/passes/lit.py [FILE.mlir ...]     run tests (default: tests/passes/lit/)
    python tests/passes/lit.py --show FILE.mlir   print what the first RUN line produces
"""
from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parent
LIT_DIR = ROOT / "lit"


@dataclass
class RunLine:
    pipeline: str
    split: bool = False
    prefix: str = "CHECK"
    verify_each: bool = False
    debug_info: bool = False


def run_lines(text: str) -> List[RunLine]:
    out = []
    for m in re.finditer(r"^\s*//\s*RUN:\s*(.*)$", text, re.M):
        words = shlex.split(m.group(1))
        run = RunLine("")
        pipeline: List[str] = []
        it = iter(words)
        for w in it:
            if w in ("|", "%s", "tritium-opt", "FileCheck", "filecheck"):
                continue
            if w in ("-p", "--pass-pipeline"):
                pipeline.append(next(it))
            elif w.startswith("--pass-pipeline="):
                pipeline.append(w.split("=", 1)[1])
            elif w == "--split-input-file":
                run.split = True
            elif w.startswith("--check-prefix="):
                run.prefix = w.split("=", 1)[1]
            elif w == "--verify-each":
                run.verify_each = True
            elif w == "--debug-info":
                run.debug_info = True
            elif w.startswith("-"):
                raise ValueError(f"unknown RUN flag {w!r}")
            else:
                pipeline.append(w)
        run.pipeline = ",".join(pipeline)
        out.append(run)
    return out


def run_pipeline_text(text: str, run: RunLine) -> str:
    from tritium.ir.parser import parse_module
    from tritium.ir.printer import print_module
    from tritium.passes import PassManager

    pieces = re.split(r"^//\s*-----\s*$", text, flags=re.M) if run.split else [text]
    outputs = []
    for piece in pieces:
        module = parse_module(piece)
        PassManager(run.pipeline, verify_each=run.verify_each, reproducer=False).run(module)
        outputs.append(print_module(module, debug_info=run.debug_info))
    return "// -----\n".join(outputs)


def filecheck(check_file: str, check_text: str, output: str, prefix: str = "CHECK") \
        -> Optional[str]:
    """None when `output` satisfies the checks, else FileCheck's message."""
    from filecheck.finput import FInput
    from filecheck.matcher import Matcher
    from filecheck.options import Options
    from filecheck.parser import Parser

    opts = Options(match_filename=check_file, input_file="<output>", check_prefixes=prefix)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(err):
        ops = Parser(opts, io.StringIO(check_text), *_patterns(opts))
        matcher = Matcher(opts, FInput("<output>", FInput.canonicalize_line_ends(output)), ops)
        rc = matcher.run()
    return None if rc == 0 else err.getvalue() or f"filecheck exited with {rc}"


def _patterns(opts):
    from filecheck.parser import pattern_for_opts
    return pattern_for_opts(opts)


def run_file(path) -> List[str]:
    """Run every RUN line of one test; returns failure messages (empty: passed)."""
    path = Path(path)
    text = path.read_text()
    runs = run_lines(text)
    if not runs:
        return [f"{path}: no RUN line"]
    failures = []
    for run in runs:
        try:
            output = run_pipeline_text(text, run)
        except Exception as exc:  # report, do not abort the other RUN lines
            failures.append(f"{path}: RUN {run.pipeline!r} raised {type(exc).__name__}: {exc}")
            continue
        msg = filecheck(str(path), text, output, run.prefix)
        if msg is not None:
            failures.append(f"{path}: RUN {run.pipeline!r} ({run.prefix}) failed:\n{msg}\n"
                            f"--- output ---\n{output}")
    return failures


def test_files() -> List[Path]:
    return sorted(LIT_DIR.glob("*.mlir"))


def main(argv: List[str]) -> int:
    if argv and argv[0] == "--show":
        text = Path(argv[1]).read_text()
        print(run_pipeline_text(text, run_lines(text)[0]), end="")
        return 0
    files = [Path(a) for a in argv] or test_files()
    bad = 0
    for f in files:
        failures = run_file(f)
        print(("FAIL " if failures else "PASS ") + str(f))
        for msg in failures:
            print(msg)
        bad += bool(failures)
    print(f"{len(files) - bad}/{len(files)} passed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT.parent.parent))
    sys.exit(main(sys.argv[1:]))
