"""Profiling sessions: `start` / `activate` / `deactivate` / `finalize`, as upstream proton's
Python API, recorded without CUPTI.

What is measured, honestly less than proton: the time of each scope (`proton.scope`,
`enter_scope`/`exit_scope`) and of each tritium kernel launch, nested under the scopes open
at the time. On a GPU the times come from CUDA events recorded on the current stream (no
synchronisation until `finalize`); on the CPU, where launches are synchronous, from the
wall clock. Kernel launches are seen through `knobs.runtime.launch_enter_hook`/`exit_hook`
(with `hook="triton"` the kernel's own `launch_metadata` function names it and adds its
`flops*`/`bytes` metrics, as upstream); work that is not a tritium kernel (torch, cuBLAS)
is counted in its scope's time only. `finalize` writes `<name>.hatchet`, the JSON tree
upstream's viewer reads (`triton.profiler.viewer`).

A profiler must never break the program it measures: a failure inside a hook is reported
once as a warning and that record is dropped.
"""
from __future__ import annotations

import json
import os
import threading
import time
import warnings
from typing import Dict, List, Optional

import tritium.knobs as knobs


class Node:
    """A frame of the profile tree: a scope or a kernel, with summed metrics."""

    def __init__(self, name: str, kind: str = "function"):
        self.name = name
        self.kind = kind
        self.children: Dict[str, "Node"] = {}
        self.metrics: Dict[str, float] = {}

    def child(self, name: str, kind: str = "function") -> "Node":
        node = self.children.get(name)
        if node is None:
            node = self.children[name] = Node(name, kind)
        return node

    def add(self, metrics: Dict[str, float]) -> None:
        for k, v in metrics.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            self.metrics[k] = self.metrics.get(k, 0) + v

    def to_json(self) -> dict:
        children = [c.to_json() for c in self.children.values()]
        metrics = dict(self.metrics)
        # Inclusive metrics, as proton's tree: a frame counts its children's work too; a
        # timed scope's own time already spans its children's.
        for c in children:
            for k, v in c["metrics"].items():
                if k == "time (ns)" and "time (ns)" in self.metrics:
                    continue
                if k in ("time (ns)", "count") or k.startswith(("flops", "bytes")):
                    metrics[k] = metrics.get(k, 0) + v
        return {"frame": {"name": self.name, "type": self.kind}, "metrics": metrics,
                "children": children}


class _Timer:
    """One interval: CUDA events when the work runs on a GPU, else the wall clock."""

    def __init__(self, cuda: bool):
        self.events = None
        if cuda:
            import torch
            self.events = (torch.cuda.Event(enable_timing=True),
                           torch.cuda.Event(enable_timing=True))
            self.events[0].record()
        else:
            self.t0 = time.perf_counter_ns()
        self.ns: Optional[float] = None

    def stop(self) -> None:
        if self.events is not None:
            self.events[1].record()
        else:
            self.ns = time.perf_counter_ns() - self.t0

    def elapsed_ns(self) -> float:
        if self.ns is None and self.events is not None:
            self.events[1].synchronize()
            self.ns = self.events[0].elapsed_time(self.events[1]) * 1e6
        return self.ns or 0.0


class Session:
    def __init__(self, sid: int, name: str, hook: Optional[str], data: str):
        self.id = sid
        self.name = name
        self.hook = hook
        self.data = data
        self.active = True
        self.root = Node("ROOT")
        self.pending: List[tuple] = []  # (node, timer, metrics) resolved at finalize


_sessions: Dict[int, Session] = {}
_next_id = [0]
_local = threading.local()
_warned: set = set()


def _stack() -> List[str]:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _warn_once(what: str, e: BaseException) -> None:
    if what not in _warned:
        _warned.add(what)
        warnings.warn(f"triton.profiler: {what} failed ({type(e).__name__}: {e}); "
                      "the profile misses it, the program is unaffected")


def _cuda_in_use() -> bool:
    try:
        import torch
        return torch.cuda.is_available() and torch.cuda.is_initialized()
    except Exception:
        return False


def active_sessions() -> List[Session]:
    return [s for s in _sessions.values() if s.active]


def _node_for(session: Session, path: List[str], kind: str = "function") -> Node:
    node = session.root
    for name in path:
        node = node.child(name)
    return node


# -- kernel launches ---------------------------------------------------------------------

def _enter_launch(metadata) -> None:
    try:
        sessions = active_sessions()
        if not sessions:
            return
        hooked = any(s.hook == "triton" for s in sessions)
        data = metadata.get() if hooked and hasattr(metadata, "get") else \
            getattr(metadata, "data", {}) or {}
        launch_stack = getattr(_local, "launches", None)
        if launch_stack is None:
            launch_stack = _local.launches = []
        launch_stack.append((dict(data), _Timer(_cuda_in_use() and _on_gpu(data))))
    except Exception as e:  # never break the launch
        _warn_once("recording a kernel launch", e)


def _on_gpu(data) -> bool:
    """Whether the launch runs on a GPU (timed by CUDA events): the CPU backend's kernel
    handle is its own class, a GPU's is an integer handle."""
    return not type(data.get("function")).__module__.startswith("tritium.backends.cpu")


def _exit_launch(metadata) -> None:
    try:
        launch_stack = getattr(_local, "launches", None)
        if not launch_stack:
            return
        data, timer = launch_stack.pop()
        timer.stop()
        name = str(data.get("name", "kernel"))
        extra = {k: v for k, v in data.items() if k.startswith(("flops", "bytes"))}
        for s in active_sessions():
            node = _node_for(s, _stack()).child(name, "function")
            s.pending.append((node, timer, dict(extra, count=1)))
    except Exception as e:
        _warn_once("recording a kernel launch", e)


_hooks_installed = [False]


def _install_hooks() -> None:
    if not _hooks_installed[0]:
        knobs.runtime.launch_enter_hook.add(_enter_launch)
        knobs.runtime.launch_exit_hook.add(_exit_launch)
        _hooks_installed[0] = True


def _remove_hooks() -> None:
    if _hooks_installed[0] and not _sessions:
        knobs.runtime.launch_enter_hook.remove(_enter_launch)
        knobs.runtime.launch_exit_hook.remove(_exit_launch)
        _hooks_installed[0] = False


# -- the session API -----------------------------------------------------------------------

def start(name: Optional[str] = None, *, context: str = "shadow", data: str = "tree",
          backend: Optional[str] = None, mode=None, hook: Optional[str] = None) -> int:
    """Start a profiling session; returns its id. The profile is written to
    `<name>.hatchet` (default name "proton") by `finalize`."""
    if data not in ("tree", "trace"):
        raise ValueError(f"proton.start: data must be 'tree' or 'trace', not {data!r}")
    if hook not in (None, "triton", "launch"):
        raise ValueError(f"proton.start: hook must be None, 'triton' or 'launch', not {hook!r}")
    sid = _next_id[0]
    _next_id[0] += 1
    _sessions[sid] = Session(sid, name or "proton", "triton" if hook else None, data)
    _install_hooks()
    return sid


def _selected(session: Optional[int]) -> List[Session]:
    if session is None:
        return list(_sessions.values())
    s = _sessions.get(session)
    return [s] if s is not None else []


def activate(session: Optional[int] = None) -> None:
    """Resume recording (all sessions, or the one given)."""
    for s in _selected(session):
        s.active = True


def deactivate(session: Optional[int] = None, flushing: bool = False) -> None:
    """Pause recording (all sessions, or the one given)."""
    for s in _selected(session):
        s.active = False


def finalize(session: Optional[int] = None, output_format: str = "hatchet") -> None:
    """Stop the session(s) and write each one's profile."""
    if output_format not in ("hatchet", "hatchet_msgpack", "chrome_trace"):
        raise ValueError(f"proton.finalize: unknown output_format {output_format!r}")
    for s in _selected(session):
        del _sessions[s.id]
        try:
            write(s)
        except Exception as e:
            _warn_once(f"writing the profile {s.name}.hatchet", e)
    _remove_hooks()


def write(s: Session) -> str:
    for node, timer, metrics in s.pending:
        node.add(dict(metrics, **{"time (ns)": timer.elapsed_ns()}))
    s.pending.clear()
    path = s.name if s.name.endswith(".hatchet") else s.name + ".hatchet"
    device = {"device_type": "cuda" if _cuda_in_use() else "cpu"}
    with open(path, "w") as f:
        json.dump([s.root.to_json(), device], f)
    return os.path.abspath(path)


def profile(func=None, *, name: Optional[str] = None, **kwargs):
    """Decorator: profile every call of `func` in its own session."""
    def decorator(f):
        def wrapper(*args, **kw):
            sid = start(name or f.__name__, **kwargs)
            try:
                return f(*args, **kw)
            finally:
                finalize(sid)
        return wrapper
    return decorator(func) if func is not None else decorator
