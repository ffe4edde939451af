"""`tritium explain`: one page that shows a kernel through every stage of the compiler —
Python source beside TTIR, TTGIR, LLIR, PTX (and SASS when cuobjdump is found; on the CPU's
compiled path, the host assembly) with every line linked to its source line, the pass
pipeline with times and diffs, the layouts drawn from their linear maps, the ptxas resource
report, and the GB/s and dot FLOP/s of kernels the script timed with `do_bench`.

    page = tritium.tools.explain(add_kernel, x, y, out, n, BLOCK_SIZE=1024, target="sm_90a")
    page.save("add.html")          # or show `page` in Jupyter

Modules: record (run a script, note what it compiles), capture (compile stage by stage),
sourcemap (IR/LLIR/PTX/SASS/host-assembly lines → Python lines), layout_map (layouts as
drawable data), resources (ptxas report, occupancy), bench (GB/s and FLOP/s under do_bench),
flops (dot FLOPs of a launch), render (HTML), cli (`tritium explain SCRIPT.py`).
"""
from __future__ import annotations

import html as _html
import os
from typing import Optional

from .capture import KernelRecord, capture

__all__ = ["explain", "Page", "KernelRecord", "capture", "default_target"]


class Page:
    """The explain page of one compiled specialisation."""

    def __init__(self, record: KernelRecord):
        self.record = record
        self._html: Optional[str] = None

    @property
    def html(self) -> str:
        if self._html is None:
            from .render import kernel_page
            self._html = kernel_page(self.record)
        return self._html

    def save(self, path: str) -> str:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html)
        return path

    def _repr_html_(self) -> str:
        # An iframe keeps the page's CSS and script to itself inside the notebook.
        return (f'<iframe srcdoc="{_html.escape(self.html, quote=True)}" '
                f'style="width:100%;height:900px;border:1px solid #ccc"></iframe>')

    def __repr__(self) -> str:
        r = self.record
        return (f"<explain page of {r.name} for {r.target}: stages "
                f"{', '.join(r.stages)}; {len(r.passes)} passes>")


def default_target() -> str:
    """sm_<cc>[a] of the GPU when tritium can use one, else 'cpu'."""
    try:
        from ...backends.nvidia import driver
        if driver.is_available():
            major, minor = driver.get_device_capability()
            cap = major * 10 + minor
            return f"sm_{cap}a" if cap >= 90 else f"sm_{cap}"
    except Exception:
        pass
    return "cpu"


def _last_launched(fn):
    """(specialisation, options) of the newest compile of `fn`, or None."""
    from .record import _option_dict
    for device, spec in reversed(list(fn._last_specialization.items())):
        for key, kernel in fn.cache.get(device, {}).items():
            if key.startswith(str(spec)):
                return spec, _option_dict(kernel.metadata)
    return None


def explain(fn, *args, target: Optional[str] = None, **kwargs) -> Page:
    """The page of one specialisation of `fn` (a `@jit` function). With arguments, they
    (and constexpr/option keywords) pick the specialisation as a launch would, without
    launching; without, the specialisation `fn` was last launched with is used."""
    from ...frontend.jit import JITFunction, KNOWN_OPTIONS
    if not isinstance(fn, JITFunction):
        raise TypeError(f"explain: expected a @jit function, got {type(fn).__name__}")
    target = target or default_target()
    if args or any(k not in KNOWN_OPTIONS for k in kwargs):
        _, spec, extra = fn.bind(*args, **kwargs)
        meta = dict(extra)
    else:
        last = _last_launched(fn)
        if last is None:
            raise ValueError(f"explain: {fn.__name__} has not been launched yet; pass the "
                             f"arguments of a launch: explain({fn.__name__}, *args, **meta)")
        spec, meta = last
        meta.update(kwargs)
    return Page(capture(fn, spec, meta, target))
