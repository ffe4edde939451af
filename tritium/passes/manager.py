"""Pass manager: pipeline strings, per-pass IR dumps and timing, verify-after-pass, repros.

A pipeline string reads like MLIR's: `canonicalize,cse,loop-unroll{factor=2}` (an optional
`builtin.module(...)` wrapper is accepted, so `--pass-pipeline` text copied from upstream
works). Options inside braces are `key=value` pairs separated by spaces or commas.

Environment knobs (read when `run` starts, so tests can set them late):
  MLIR_ENABLE_DUMP=1            IR before and after every pass, with the pass time, to stderr
  MLIR_ENABLE_DUMP=<kernel>     the same, only for modules that define `tt.func @<kernel>`
  MLIR_ENABLE_TIMING=1 / TRITON_ENABLE_TIMING=1   a per-pass timing table to stderr at the end
"""
from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, Union

from ..ir.core import Operation

PASS_REGISTRY: Dict[str, Type["Pass"]] = {}


def register_pass(cls: Type["Pass"]) -> Type["Pass"]:
    """Class decorator: make a pass reachable from pipeline strings by its name and aliases."""
    for name in (cls.name, *cls.aliases):
        if name in PASS_REGISTRY and PASS_REGISTRY[name] is not cls:
            raise ValueError(f"pass name {name!r} registered twice")
        PASS_REGISTRY[name] = cls
    return cls


class PassError(Exception):
    """A malformed pipeline string or option."""


class PassFailure(Exception):
    """A pass raised (or left IR the verifier rejects). `ir_before` is the module text as it
    was before the pass ran; `repro_path` a file holding it with the pipeline to replay.
    With verify_each, invalid input IR fails before any pass, as pass "(input)"."""

    def __init__(self, pass_name: str, cause: BaseException, ir_before: Optional[str],
                 repro_path: Optional[str]):
        self.pass_name = pass_name
        self.cause = cause
        self.ir_before = ir_before
        self.repro_path = repro_path
        where = f"; reproducer: {repro_path}" if repro_path else ""
        super().__init__(f"pass '{pass_name}' failed: {type(cause).__name__}: {cause}{where}")


class Pass:
    """Base of every pass. Subclasses set `name`, optionally `aliases` and `options`
    (`{"option-name": (type, default, "help")}`), and implement `run(module)`.
    Option values are attributes named with underscores (`max-iterations` → `max_iterations`)."""

    name: str = ""
    aliases: Tuple[str, ...] = ()
    options: Dict[str, Tuple[type, Any, str]] = {}
    description: str = ""

    def __init__(self, **opts):
        for key, (_typ, default, _help) in self.options.items():
            setattr(self, _attr_name(key), default)
        for key, value in opts.items():
            self.set_option(key, value)

    def set_option(self, key: str, value: Any) -> None:
        canon = key.replace("_", "-")
        if canon not in self.options:
            known = ", ".join(self.options) or "none"
            raise PassError(f"pass '{self.name}' has no option '{key}' (options: {known})")
        typ = self.options[canon][0]
        setattr(self, _attr_name(canon), _convert(value, typ, self.name, canon))

    def run(self, module: Operation) -> None:
        raise NotImplementedError

    def pipeline_text(self) -> str:
        opts = []
        for key, (_t, default, _h) in self.options.items():
            v = getattr(self, _attr_name(key))
            if v != default:
                opts.append(f"{key}={_format_opt(v)}")
        return self.name + ("{" + " ".join(opts) + "}" if opts else "")

    def __repr__(self) -> str:
        return f"<pass {self.pipeline_text()}>"


def _attr_name(key: str) -> str:
    return key.replace("-", "_")


def _convert(value: Any, typ: type, pass_name: str, key: str) -> Any:
    if not isinstance(value, str):
        return typ(value)
    text = value.strip()
    try:
        if typ is bool:
            if text.lower() in ("1", "true", "on", "yes", ""):
                return True
            if text.lower() in ("0", "false", "off", "no"):
                return False
            raise ValueError(text)
        if typ is int:
            return int(text, 0)
        return typ(text)
    except ValueError:
        raise PassError(f"pass '{pass_name}': option '{key}' expects {typ.__name__}, "
                        f"got {value!r}") from None


def _format_opt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# ---------------------------------------------------------------- pipeline strings
def parse_pipeline(text: str) -> List[Tuple[str, Dict[str, str]]]:
    """`a,b{k=v k2=v2},c` → [(name, {option: text})]. Nested `builtin.module(...)` and
    `tt.func(...)` anchors are flattened: every pass here runs on the whole module."""
    out: List[Tuple[str, Dict[str, str]]] = []
    i, n = 0, len(text)

    def skip_ws():
        nonlocal i
        while i < n and text[i] in " \t\n,":
            i += 1

    def parse_list(closing: Optional[str]):
        nonlocal i
        while True:
            skip_ws()
            if i >= n:
                if closing:
                    raise PassError(f"pipeline {text!r}: missing '{closing}'")
                return
            if closing and text[i] == closing:
                i += 1
                return
            start = i
            while i < n and (text[i].isalnum() or text[i] in "-_."):
                i += 1
            name = text[start:i]
            if not name:
                raise PassError(f"pipeline {text!r}: unexpected {text[i]!r} at {i}")
            skip_inline_ws()
            if i < n and text[i] == "(":  # an op anchor: builtin.module(...), tt.func(...)
                i += 1
                parse_list(")")
                continue
            opts: Dict[str, str] = {}
            if i < n and text[i] == "{":
                i += 1
                opts = parse_options()
            out.append((name, opts))

    def skip_inline_ws():
        nonlocal i
        while i < n and text[i] in " \t":
            i += 1

    def parse_options() -> Dict[str, str]:
        nonlocal i
        opts: Dict[str, str] = {}
        while True:
            skip_ws()
            if i >= n:
                raise PassError(f"pipeline {text!r}: missing '}}'")
            if text[i] == "}":
                i += 1
                return opts
            start = i
            while i < n and text[i] not in "= ,}":
                i += 1
            key = text[start:i]
            value = "true"
            if i < n and text[i] == "=":
                i += 1
                start = i
                depth = 0
                while i < n and (depth or text[i] not in " ,}"):
                    depth += text[i] in "[{("
                    depth -= text[i] in "]})"
                    i += 1
                value = text[start:i].strip("'\"")
            opts[key] = value

    parse_list(None)
    return out


def make_pass(name: str, options: Optional[Dict[str, Any]] = None) -> Pass:
    _ensure_registry()
    cls = PASS_REGISTRY.get(name)
    if cls is None:
        # Other packages' passes (the TTGIR ones in tritium.gpu.passes) register when that
        # package is imported; this module depends on none of them.
        known = ", ".join(sorted({c.name for c in PASS_REGISTRY.values()}))
        raise PassError(f"unknown pass '{name}' (registered: {known})")
    return cls(**(options or {}))


def _ensure_registry() -> None:
    # The pass modules register themselves on import; importing the package pulls them in.
    if not PASS_REGISTRY:
        import tritium.passes  # noqa: F401


# ---------------------------------------------------------------- the manager
# Called after every pass of every PassManager as `observer(label, module, ms)`: how a
# tool sees each pass of a backend's pipelines while the backend runs them itself
# (`tritium explain`'s diffs). Add and remove through `observing_passes`.
PASS_OBSERVERS: List[Callable[[str, Operation, float], None]] = []


@contextlib.contextmanager
def observing_passes(observer: Callable[[str, Operation, float], None]):
    PASS_OBSERVERS.append(observer)
    try:
        yield observer
    finally:
        PASS_OBSERVERS.remove(observer)


class PassManager:
    """Runs passes in order over a `builtin.module`.

    `timings` maps pass name → total milliseconds (a pass listed twice accumulates);
    `timing_records` keeps every run in order as (pipeline text, ms)."""

    def __init__(self, pipeline: Union[str, Sequence[Union[str, Pass]], None] = None, *,
                 verify_each: bool = False, dump: Optional[Union[bool, str]] = None,
                 timing: Optional[bool] = None, reproducer: bool = True,
                 dump_stream=None):
        self.passes: List[Pass] = []
        self.verify_each = verify_each
        self.dump = dump
        self.timing = timing
        self.reproducer = reproducer
        self.dump_stream = dump_stream
        self.timings: Dict[str, float] = {}
        self.timing_records: List[Tuple[str, float]] = []
        if isinstance(pipeline, str):
            self.add_pipeline(pipeline)
        elif pipeline is not None:
            for p in pipeline:
                self.add(p)

    def add(self, p: Union[str, Pass], **options) -> "PassManager":
        if isinstance(p, str):
            if options:
                self.passes.append(make_pass(p, options))
            else:
                self.add_pipeline(p)
        else:
            self.passes.append(p)
        return self

    def add_pipeline(self, text: str) -> "PassManager":
        for name, opts in parse_pipeline(text):
            self.passes.append(make_pass(name, opts))
        return self

    def pipeline_text(self, passes: Optional[Sequence[Pass]] = None) -> str:
        return ",".join(p.pipeline_text() for p in (self.passes if passes is None else passes))

    def __repr__(self) -> str:
        return f"PassManager({self.pipeline_text()!r})"

    # -- running
    def run(self, module: Operation) -> Operation:
        from ..ir.printer import print_module
        dump = self._dump_enabled(module)
        stream = self.dump_stream or sys.stderr
        verify = _verifier() if self.verify_each else None
        # One copy of the input; the IR before a failing pass is rebuilt from it by
        # replaying the passes that succeeded (they are deterministic), which is far
        # cheaper than copying the module before every pass.
        original = module.clone() if self.reproducer else None
        if verify is not None:
            try:
                verify(module)
            except Exception as exc:  # blame the input, not the first pass
                raise PassFailure("(input)", exc, _safe_print(original), None) from exc
        for idx, p in enumerate(self.passes):
            label = p.pipeline_text()
            if dump:
                stream.write(f"// -----// IR Dump Before {label} //----- //\n")
                stream.write(print_module(module))
                stream.flush()
            t0 = time.perf_counter()
            try:
                p.run(module)
                if verify is not None:
                    verify(module)
            except PassFailure:
                raise
            except Exception as exc:
                text = self._ir_before(original, idx)
                path = self._write_repro(text, self.passes[idx:]) if text is not None else None
                raise PassFailure(label, exc, text, path) from exc
            ms = (time.perf_counter() - t0) * 1e3
            self.timings[p.name] = self.timings.get(p.name, 0.0) + ms
            self.timing_records.append((label, ms))
            for observe in PASS_OBSERVERS:
                observe(label, module, ms)
            if dump:
                stream.write(f"// -----// IR Dump After {label} ({ms:.3f} ms) //----- //\n")
                stream.write(print_module(module))
                stream.flush()
        if self._timing_enabled():
            stream.write(self.timing_report())
            stream.flush()
        return module

    def _ir_before(self, original: Optional[Operation], idx: int) -> Optional[str]:
        if original is None:
            return None
        try:
            for p in self.passes[:idx]:
                p.run(original)
        except Exception as exc:  # pragma: no cover - a pass that is not deterministic
            return (f"// replaying the passes before the failing one raised {exc!r};\n"
                    f"// this is the pipeline's input instead\n") + (_safe_print(original) or "")
        return _safe_print(original)

    def timing_report(self) -> str:
        total = sum(ms for _, ms in self.timing_records) or 1e-9
        lines = ["===" + "-" * 60 + "===", "  tritium pass timing report",
                 "===" + "-" * 60 + "===",
                 f"  Total: {total:.3f} ms", "   ms        %   pass"]
        for label, ms in self.timing_records:
            lines.append(f"  {ms:8.3f} {100 * ms / total:6.1f}%  {label}")
        return "\n".join(lines) + "\n"

    def _dump_enabled(self, module: Operation) -> bool:
        setting = self.dump
        if setting is None:
            from ..runtime import knobs
            setting = knobs.mlir_dump() or ""
        if setting is True or setting in ("1", "true", "True", "ON", "on"):
            return True
        if not setting or setting in ("0", "false", "False", "off", "OFF"):
            return False
        return setting in _kernel_names(module)

    def _timing_enabled(self) -> bool:
        if self.timing is not None:
            return self.timing
        from ..runtime import knobs
        return knobs.mlir_timing()

    def _write_repro(self, text: str, remaining: Sequence[Pass]) -> Optional[str]:
        if not self.reproducer:
            return None
        try:
            fd, path = tempfile.mkstemp(prefix=f"tritium-repro-{remaining[0].name}-",
                                        suffix=".mlir")
            with os.fdopen(fd, "w") as f:
                f.write(f"// RUN: {self.pipeline_text(remaining[:1])}\n")
                f.write(f"// tritium reproducer, rest of the pipeline: "
                        f"{self.pipeline_text(remaining)}\n")
                f.write(text)
            return path
        except OSError:
            return None


def _kernel_names(module: Operation) -> List[str]:
    names = []
    for block in module.regions[0].blocks if module.regions else ():
        for op in block:
            if op.name == "tt.func":
                names.append(op.attr("sym_name"))
    return names


def _safe_print(module: Optional[Operation]) -> Optional[str]:
    if module is None:
        return None
    from ..ir.printer import print_module
    try:
        return print_module(module)
    except Exception as exc:  # the snapshot is pre-pass IR; this is only a safety net
        return f"// could not print the IR before the pass: {exc}\n"


def _verifier():
    """`tritium.ir.verifier.verify` when that module exists (it is optional)."""
    try:
        from ..ir import verifier
    except ImportError:
        return None
    return getattr(verifier, "verify", None)


def run_pipeline(module: Operation, pipeline: str, **kwargs) -> Operation:
    return PassManager(pipeline, **kwargs).run(module)


__all__ = ["Pass", "PassManager", "PassFailure", "PassError", "PASS_REGISTRY", "register_pass",
           "parse_pipeline", "make_pass", "run_pipeline"]
