"""Benchmarking and comparison helpers, with upstream `triton.testing`'s API.

Timing backends, picked per call:
* "torch": CUDA events through torch, like upstream (used when torch with CUDA is there);
* "cuda":  CUDA events through cuda-bindings (a GPU but no torch);
* "cpu":   wall-clock `time.perf_counter` per call (no GPU: the CPU backend).
`device="cpu"` forces the wall clock, e.g. for CPU-backend kernels on a GPU host.
"""
from __future__ import annotations

import csv
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional

__all__ = ["do_bench", "do_bench_cudagraph", "assert_close", "Benchmark", "Mark", "perf_report",
           "nvsmi", "get_dram_gbps", "get_max_tensorcore_tflops", "get_max_simd_tflops",
           "set_gpu_clock"]

from .testing_gpu import (get_dram_gbps, get_max_simd_tflops,  # noqa: E402
                          get_max_tensorcore_tflops, nvsmi, set_gpu_clock)

_RETURN_MODES = ("min", "max", "mean", "median", "all")
_FLUSH_BYTES = 256 * 1024 * 1024   # larger than any GPU's L2, so each rep starts cold


def _summarize(times: List[float], quantiles, return_mode: str):
    import numpy as np
    arr = np.asarray(times, dtype=np.float64)
    if quantiles is not None:
        ret = np.quantile(arr, np.asarray(quantiles, dtype=np.float64)).tolist()
        return ret[0] if len(ret) == 1 else ret
    if return_mode == "all":
        return arr.tolist()
    return float(getattr(np, return_mode)(arr))


def _clear_grads(grad_to_none):
    if grad_to_none is not None:
        for x in grad_to_none:
            x.grad = None


def _backend(device: Optional[str]) -> str:
    if device is not None:
        if device not in ("cpu", "cuda", "torch"):
            raise ValueError(f"device must be 'cpu', 'cuda' or 'torch', not {device!r}")
        return device
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_available():
            return "torch"
    except Exception:
        pass
    from tritium.backends.nvidia import driver
    if not driver.is_available():
        return "cpu"
    try:
        import torch
        if torch.cuda.is_available():
            return "torch"
    except ImportError:
        pass
    return "cuda"


def _counts(estimate_ms: float, warmup: float, rep: float):
    estimate_ms = max(estimate_ms, 1e-6)
    return max(1, int(warmup / estimate_ms)), max(1, int(rep / estimate_ms))


def _bench_cpu(fn, warmup, rep, grad_to_none):
    # No cache flush here: zeroing 256 MB per repetition would take longer
    # than most CPU kernels, and the flush exists for the GPU's L2 anyway.
    fn()
    t0 = time.perf_counter()
    for _ in range(5):
        fn()
    n_warmup, n_repeat = _counts((time.perf_counter() - t0) * 1e3 / 5, warmup, rep)
    for _ in range(n_warmup):
        fn()
    times = []
    clock = time.perf_counter
    for _ in range(n_repeat):
        _clear_grads(grad_to_none)
        t0 = clock()
        fn()
        times.append((clock() - t0) * 1e3)
    return times


def _bench_torch(fn, warmup, rep, grad_to_none):
    import torch
    fn()
    torch.cuda.synchronize()
    cache = torch.empty(_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        cache.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    n_warmup, n_repeat = _counts(start.elapsed_time(end) / 5, warmup, rep)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for _ in range(n_warmup):
        fn()
    for i in range(n_repeat):
        _clear_grads(grad_to_none)
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) for s, e in zip(starts, ends)]


class _CudaEvents:
    """The few event/memset calls do_bench needs, straight from cuda-bindings."""

    def __init__(self):
        from tritium.backends.nvidia import driver
        self.driver, self.cu = driver, driver.cuda()
        driver.ensure_context()
        self.stream = driver.get_current_stream()
        self.buf = driver.check(self.cu.cuMemAlloc(_FLUSH_BYTES))

    def event(self):
        return self.driver.check(self.cu.cuEventCreate(0))

    def record(self, ev):
        self.driver.check(self.cu.cuEventRecord(ev, self.stream))

    def flush(self):
        self.driver.check(self.cu.cuMemsetD8Async(self.buf, 0, _FLUSH_BYTES, self.stream))

    def elapsed(self, a, b) -> float:
        self.driver.check(self.cu.cuEventSynchronize(b))
        return self.driver.check(self.cu.cuEventElapsedTime(a, b))

    def synchronize(self):
        self.driver.check(self.cu.cuStreamSynchronize(self.stream))

    def close(self, events=()):
        for ev in events:
            self.cu.cuEventDestroy(ev)
        self.cu.cuMemFree(self.buf)


def _bench_cuda(fn, warmup, rep, grad_to_none):
    ev = _CudaEvents()
    events = []
    try:
        fn()
        ev.synchronize()
        a, b = ev.event(), ev.event()
        events += [a, b]
        ev.record(a)
        for _ in range(5):
            ev.flush()
            fn()
        ev.record(b)
        n_warmup, n_repeat = _counts(ev.elapsed(a, b) / 5, warmup, rep)
        pairs = [(ev.event(), ev.event()) for _ in range(n_repeat)]
        events += [e for p in pairs for e in p]
        for _ in range(n_warmup):
            fn()
        for s, e in pairs:
            _clear_grads(grad_to_none)
            ev.flush()
            ev.record(s)
            fn()
            ev.record(e)
        ev.synchronize()
        return [ev.elapsed(s, e) for s, e in pairs]
    finally:
        ev.close(events)


def do_bench(fn: Callable, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean",
             *, device: Optional[str] = None):
    """Time `fn` in milliseconds.

    Estimates one call from 5, runs `warmup` ms worth of calls, then `rep` ms
    worth, each timed alone after flushing the GPU's L2 (zeroing 256 MB).
    Returns the `quantiles` of the per-call times if given, else their
    `return_mode` statistic ("min", "max", "mean", "median" or "all").
    """
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"return_mode must be one of {_RETURN_MODES}, not {return_mode!r}")
    backend = _backend(device)
    bench = {"cpu": _bench_cpu, "torch": _bench_torch, "cuda": _bench_cuda}[backend]
    return _summarize(bench(fn, warmup, rep, grad_to_none), quantiles, return_mode)


def do_bench_cudagraph(fn: Callable, rep=20, grad_to_none=None, quantiles=None, return_mode="mean",
                       *, device: Optional[str] = None):
    """Time `fn` by replaying a CUDA graph of many calls (host overhead excluded).

    Needs torch on a GPU. With no GPU it falls back to the wall clock like
    `do_bench`, so CPU-backend benchmarks written for GPUs still run.
    """
    if return_mode not in _RETURN_MODES:
        raise ValueError(f"return_mode must be one of {_RETURN_MODES}, not {return_mode!r}")
    backend = _backend(device)
    if backend == "cpu":
        return _summarize(_bench_cpu(fn, 0, rep, grad_to_none), quantiles, return_mode)
    if backend != "torch":
        raise RuntimeError("do_bench_cudagraph needs torch with CUDA to capture graphs; use do_bench instead")
    import torch
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()
        if grad_to_none is not None:
            for x in grad_to_none:
                x.detach_()
                x.requires_grad_(True)
                x.grad = None
        # The estimate skips graphs: capturing one costs more than the 5 calls.
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            fn()
        end.record()
        torch.cuda.synchronize()
        n_repeat = max(1, int(rep / max(start.elapsed_time(end) / 5, 1e-6)))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n_repeat):
                _clear_grads(grad_to_none)
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / n_repeat)
    return _summarize(times, quantiles, return_mode)


# ---------------------------------------------------------------------------
# assert_close


def _to_numpy(x):
    """(numpy array, dtype to hand to atol/rtol callables) of a tensor, array or scalar."""
    import numpy as np
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        dtype = x.dtype
        x = x.detach()
        if x.dtype == torch.bfloat16 or str(x.dtype).startswith("torch.float8"):
            x = x.float()   # numpy has neither
        return x.cpu().numpy(), dtype
    if isinstance(x, np.ndarray):
        arr = x
    else:
        arr = np.asarray(x)
    dtype = arr.dtype
    if arr.dtype.kind == "V" or arr.dtype.name in ("bfloat16",) or arr.dtype.name.startswith("float8"):
        arr = arr.astype(np.float32)   # ml_dtypes' bfloat16/fp8
    return arr, dtype


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Assert |x - y| <= atol + rtol * |y| elementwise (NaNs equal).

    Takes numpy arrays, torch tensors (any device), lists or scalars.
    `atol` defaults to 1e-2 and `rtol` to 0; either may be a callable taking
    x's dtype, as upstream allows.
    """
    import numpy as np
    x, x_dtype = _to_numpy(x)
    y, _ = _to_numpy(y)
    atol = 1e-2 if atol is None else atol
    atol = atol(x_dtype) if callable(atol) else atol
    rtol = 0.0 if rtol is None else rtol
    rtol = rtol(x_dtype) if callable(rtol) else rtol
    if x.dtype == np.bool_:
        x = x.astype(np.int8)
    if y.dtype == np.bool_:
        y = y.astype(np.int8)
    if x.size > 1 or y.size > 1:
        np.testing.assert_allclose(x, y, atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg)
        return
    if not np.allclose(x, y, atol=atol, rtol=rtol, equal_nan=True):
        raise AssertionError(f"{err_msg} {x} is not close to {y} (atol={atol}, rtol={rtol})")


# ---------------------------------------------------------------------------
# perf_report


class Benchmark:
    """One plot of `perf_report`: x values on one axis, a line per `line_vals` entry."""

    def __init__(self, x_names: List[str], x_vals: List[Any], line_arg: str, line_vals: List[Any],
                 line_names: List[str], plot_name: str, args: Dict[str, Any], xlabel: str = "",
                 ylabel: str = "", x_log: bool = False, y_log: bool = False, styles=None):
        self.x_names = x_names
        self.x_vals = x_vals
        self.x_log = x_log
        self.line_arg = line_arg
        self.line_vals = line_vals
        self.line_names = line_names
        self.y_log = y_log
        self.styles = styles
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.plot_name = plot_name
        self.args = args


class Table:
    """The few DataFrame features perf_report needs, for when pandas is absent."""

    def __init__(self, columns: List[str], rows: List[list]):
        self.columns = list(columns)
        self.rows = [list(r) for r in rows]

    def __getitem__(self, column):
        i = self.columns.index(column)
        return [r[i] for r in self.rows]

    def __len__(self):
        return len(self.rows)

    @staticmethod
    def _format_column(values) -> List[str]:
        if values and all(isinstance(v, float) for v in values if v is not None):
            # Like pandas: one decimal count per column, the fewest (1..6) that shows every value.
            finite = [v for v in values if v is not None and v == v and abs(v) != float("inf")]
            dec = next((d for d in range(1, 7) if all(round(v, d) == round(v, 6) for v in finite)), 6)
            return ["NaN" if v is None or v != v else f"{v:.{dec}f}" for v in values]
        return [str(v) for v in values]

    def to_string(self) -> str:
        cols = [[str(i) for i in range(len(self.rows))]]
        heads = [""] + self.columns
        for j in range(len(self.columns)):
            cols.append(self._format_column([r[j] for r in self.rows]))
        widths = [max([len(h)] + [len(c) for c in col]) for h, col in zip(heads, cols)]
        lines = ["  ".join(h.rjust(w) for h, w in zip(heads, widths))]
        for i in range(len(self.rows)):
            lines.append("  ".join(col[i].rjust(w) for col, w in zip(cols, widths)))
        return "\n".join(lines)

    __str__ = to_string

    def to_csv(self, path: str, float_format: str = "%.6f", index: bool = False):
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(self.columns)
            for r in self.rows:
                w.writerow([float_format % v if isinstance(v, float) else v for v in r])


def _make_table(columns, rows):
    try:
        import pandas as pd
    except ImportError:
        return Table(columns, rows)
    return pd.DataFrame(rows, columns=columns)


class Mark:
    """A benchmark function bound to its `Benchmark`s; `.run()` measures and reports."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _run(self, bench: Benchmark, save_path: str, show_plots: bool, print_data: bool, diff_col=False,
             save_precision=6, **kwargs):
        x_names = list(bench.x_names)
        rows, lows, highs = [], [], []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(x_names)
            if len(xs) != len(x_names):
                raise ValueError(f"Expected {len(x_names)} values, got {x}")
            means, mins, maxs = [], [], []
            for y in bench.line_vals:
                ret = self.fn(**dict(zip(x_names, xs)), **{bench.line_arg: y}, **bench.args, **kwargs)
                try:
                    mean, lo, hi = ret
                except TypeError:
                    mean, lo, hi = ret, None, None
                means.append(mean)
                mins.append(lo)
                maxs.append(hi)
            rows.append(xs + means)
            lows.append(mins)
            highs.append(maxs)
        # Upstream names each line's column after its line and the y unit: "Triton (GB/s)".
        columns = x_names + [f"{name} ({bench.ylabel})" for name in bench.line_names]
        if diff_col and len(columns) == 2:
            columns.append("Diff")
            rows = [r + [r[1] - r[0]] for r in rows]
        if bench.plot_name and (show_plots or save_path):
            self._plot(bench, rows, lows, highs, save_path, show_plots)
        table = _make_table(columns, rows)
        if print_data:
            print(bench.plot_name + ":")
            print(table.to_string())
        if save_path:
            table.to_csv(os.path.join(save_path, f"{bench.plot_name}.csv"),
                         float_format=f"%.{save_precision}f", index=False)
        return table

    @staticmethod
    def _plot(bench, rows, lows, highs, save_path, show_plots):
        try:
            import matplotlib
            if not show_plots:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            return   # plots are optional; the table and CSV carry the data
        n_x = len(bench.x_names)
        xs = [r[0] for r in rows]
        fig = plt.figure()
        ax = plt.subplot()
        for i, name in enumerate(bench.line_names):
            col = bench.styles[i][0] if bench.styles else None
            sty = bench.styles[i][1] if bench.styles else None
            ax.plot(xs, [r[n_x + i] for r in rows], label=name, color=col, ls=sty)
            lo, hi = [m[i] for m in lows], [m[i] for m in highs]
            if all(v is not None for v in lo + hi):
                ax.fill_between(xs, lo, hi, alpha=0.15, color=col)
        ax.legend()
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        if show_plots:
            plt.show()
        if save_path:
            plt.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
        plt.close(fig)

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        benchmarks = [self.benchmarks] if isinstance(self.benchmarks, Benchmark) else self.benchmarks
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        tables = [self._run(b, save_path, show_plots, print_data, **kwargs) for b in benchmarks]
        if save_path:
            with open(os.path.join(save_path, "results.html"), "w") as html:
                html.write("<html><body>\n")
                for b in benchmarks:
                    html.write(f"<image src=\"{b.plot_name}.png\"/>\n")
                html.write("</body></html>\n")
        if return_df:
            return tables[0] if len(tables) == 1 else tables
        return None


def perf_report(benchmarks):
    """Decorator: `@perf_report(Benchmark(...))` turns a function into a `Mark` to `.run()`."""
    return lambda fn: Mark(fn, benchmarks)
