"""Upstream's `ir_override` compile option: a file whose IR replaces one stage's output.

    @triton.autotune(configs=[triton.Config({"BLOCK": 32, "ir_override": "k.ttgir"})], ...)
    kernel[grid](..., ir_override="k.ptx")          # or as a launch option

The file's extension names the stage (`.ttir`, `.ttgir`, `.llir`, `.ptx`, `.cubin`, the
CPU's `.obj`): that stage still runs (its metadata is kept, as upstream's), then its output
is replaced by the file's, and the later stages compile from it. Unlike
TRITON_KERNEL_OVERRIDE it is per kernel and per config, and the result is cached: the file's
contents are part of the cache key (upstream keys only the option's string, so an edited file
was not seen until the cache was cleared).

A backend without that stage takes the file at the stage its `ir_entry` names, instead of
that stage's input: the CPU backend runs a `.ttgir` file through its TTIR stage, which drops
the layouts. A file the compile would never reach (an extension that is no stage here, or a
stage an `IRSource` starts after) is an error naming the option, where upstream silently
compiles without it.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import List, Optional

from .errors import IRSourceError

_TEXT_KINDS = ("ttir", "ttgir", "llir", "ptx")  # what IRSource reads and checks


@dataclass(frozen=True)
class Override:
    path: str
    kind: str        # the file's extension
    stage: str       # the stage whose output (or, `at_input`, whose input) it replaces
    at_input: bool   # an `ir_entry` kind: the stage runs on the file's IR
    digest: str      # sha256 of the file's bytes, for the cache keys

    def load(self):
        """The file's IR as the stage's product: an MLIR module, LLVM IR / PTX text, or
        the bytes of a binary stage. Syntax errors name the file, line and column."""
        if self.kind in _TEXT_KINDS:
            from .source import IRSource
            return IRSource(self.path).make_ir(None, None)
        with open(self.path, "rb") as f:
            return f.read()


def plan(options, backend, stage_names: List[str], runs: List[str]) -> Optional[Override]:
    """The override `options.ir_override` asks for, checked against the backend's stages
    (`stage_names`) and the ones this compile runs (`runs`); None when not set."""
    path = getattr(options, "ir_override", None)
    if not path:
        return None
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"ir_override: expected the path of an IR file, got "
                        f"{type(path).__name__} {path!r}")
    path = os.fspath(path)
    kind = os.path.splitext(path)[1][1:]
    name = getattr(getattr(backend, "target", None), "backend", type(backend).__name__)
    if kind in stage_names:
        stage, at_input = kind, False
    elif kind in getattr(backend, "ir_entry", {}):
        stage, at_input = backend.ir_entry[kind], True
    else:
        raise ValueError(f"ir_override: {path!r} is a '.{kind}' file, but the {name} backend "
                         f"has no such stage (its stages: {', '.join(stage_names)}; the file's "
                         f"extension names the stage it replaces)")
    if stage not in runs:
        raise ValueError(f"ir_override: {path!r} replaces stage '{stage}', which this "
                         f"compile does not run (it runs: {', '.join(runs)})")
    try:
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        raise IRSourceError(path, f"cannot be read (ir_override): {e.strerror or e}") from None
    return Override(path, kind, stage, at_input, digest)
