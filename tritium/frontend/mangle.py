"""Names of specialised callee functions: `name__<arg type mangles>__<constexpr index>c<value>`."""
from __future__ import annotations

import re


def _mangle_value(v) -> str:
    text = getattr(v, "cache_key", None) if callable(v) else None
    text = str(text if text is not None else repr(v) if not isinstance(v, str) else v)
    # Symbol names must stay printable identifiers in the IR.
    return re.sub(r"[^A-Za-z0-9_]", "_", text)


def _mangle_key(k) -> str:
    return "_".join(map(str, k)) if isinstance(k, tuple) else str(k)


def mangle_fn(name: str, arg_types, constants: dict) -> str:
    types = "_".join(t.mangle() for t in arg_types)
    # Keys are argument indices, or paths (i, j, ...) into tuple arguments.
    keys = sorted(constants, key=lambda k: k if isinstance(k, tuple) else (k,))
    consts = "_".join(f"{_mangle_key(k)}c{_mangle_value(constants[k])}" for k in keys)
    out = f"{name}__{types}__{consts}"
    # Keep symbol names readable; long constexpr reprs are shortened by hash.
    if len(out) > 200:
        import hashlib
        out = out[:150] + "_" + hashlib.sha1(out.encode()).hexdigest()[:16]
    return out
