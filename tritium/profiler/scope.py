"""Named scopes of a profile (upstream proton's `scope`, `enter_scope`/`exit_scope`,
`cpu_timed_scope`): each is timed and nests the kernels and scopes opened inside it."""
from __future__ import annotations

import functools
from typing import Dict, Optional

from . import session as _profile


def enter_scope(name: str, *, triton_op: bool = False, metrics: Optional[Dict] = None) -> int:
    """Open scope `name` under the current one; returns an id for `exit_scope`."""
    stack = _profile._stack()
    stack.append(name)
    try:
        sessions = _profile.active_sessions()
        timer = _profile._Timer(_profile._cuda_in_use()) if sessions else None
    except Exception as e:  # never break the program
        _profile._warn_once(f"timing scope {name!r}", e)
        timer, sessions = None, []
    opened = getattr(_profile._local, "scopes", None)
    if opened is None:
        opened = _profile._local.scopes = []
    opened.append((list(stack), timer, [s.id for s in sessions], dict(metrics or {})))
    return len(stack) - 1


def exit_scope(name: Optional[str] = None, *, triton_op: bool = False,
               metrics: Optional[Dict] = None) -> int:
    """Close the innermost scope (which must be `name` when given)."""
    stack = _profile._stack()
    opened = getattr(_profile._local, "scopes", None)
    if not stack or not opened:
        raise RuntimeError(f"proton.exit_scope({name!r}) without a matching enter_scope")
    if name is not None and stack[-1] != name:
        raise RuntimeError(f"proton.exit_scope({name!r}) while scope {stack[-1]!r} is the "
                           "innermost one open")
    path, timer, sids, extra = opened.pop()
    stack.pop()
    extra.update(metrics or {})
    if timer is not None:
        try:
            timer.stop()
            for sid in sids:
                s = _profile._sessions.get(sid)
                if s is not None:
                    node = _profile._node_for(s, path)
                    s.pending.append((node, timer, dict(extra, count=1)))
        except Exception as e:
            _profile._warn_once(f"timing scope {path[-1]!r}", e)
    return len(stack)


class scope:
    """`with proton.scope("name", {"flops16": ...}):` or `@proton.scope("name")`."""

    def __init__(self, name: str, metrics: Optional[Dict] = None):
        self.name = name
        self.metrics = metrics

    def __enter__(self):
        enter_scope(self.name, metrics=self.metrics)
        return self

    def __exit__(self, *exc):
        exit_scope(self.name)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with scope(self.name, self.metrics):
                return func(*args, **kwargs)
        return wrapper


# Upstream times these on the host; so do all scopes here on the CPU.
cpu_timed_scope = scope
