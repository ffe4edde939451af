"""`triton.profiler.viewer`: read a `.hatchet` profile and print it as a tree with derived
metrics, as upstream's viewer (without its hatchet/pandas dependency).

    tree, metrics = parse(["time/ms", "tflop16/s"], "matmul.hatchet")
    print_tree(tree, metrics)
    python -m triton.profiler.viewer -m time/ms,tflop/s matmul.hatchet

Derived metrics: `time/{s,ms,us,ns}`, `avg_time/{s,ms,us,ns}` (per call), `count`,
`{g,t}flop[8|16|32|64]/s` (from `flops*`; plain `flop/s` sums every width), `{g,t}byte/s`
(from `bytes`), and any raw metric of the file by its name."""
from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Dict, List, Optional

_TIME_UNITS = {"s": 1e-9, "ms": 1e-6, "us": 1e-3, "ns": 1.0}
_PREFIX = {"": 1.0, "g": 1e-9, "t": 1e-12}
_RATE = re.compile(r"^([gt]?)(flop|byte)(\d*)/s$")


class Frame:
    def __init__(self, name: str, raw: Dict[str, float], children: List["Frame"]):
        self.name = name
        self.raw = raw
        self.children = children
        self.values: Dict[str, float] = {}


def _frame(d) -> Frame:
    return Frame(d["frame"]["name"], dict(d.get("metrics", {})),
                 [_frame(c) for c in d.get("children", [])])


def derive(name: str, raw: Dict[str, float]) -> Optional[float]:
    """The value of metric `name` from a frame's raw metrics (None when it has none)."""
    ns = raw.get("time (ns)")
    if name.startswith(("time/", "avg_time/")):
        unit = name.split("/", 1)[1]
        if unit not in _TIME_UNITS:
            raise ValueError(f"unknown time unit in metric {name!r} (s, ms, us, ns)")
        if ns is None:
            return None
        value = ns * _TIME_UNITS[unit]
        return value / max(raw.get("count", 1), 1) if name.startswith("avg") else value
    m = _RATE.match(name)
    if m:
        prefix, what, width = m.groups()
        if what == "flop":
            keys = [f"flops{width}"] if width else [k for k in raw if k.startswith("flops")]
        else:
            keys = ["bytes"]
        amount = sum(raw.get(k, 0) for k in keys)
        if not ns or not any(k in raw for k in keys):
            return None
        return amount / (ns * 1e-9) * _PREFIX[prefix]
    return raw.get(name)


def _check_names(metrics: List[str], tree: Frame) -> None:
    raw = set()

    def collect(fr):
        raw.update(fr.raw)
        for c in fr.children:
            collect(c)
    collect(tree)
    for m in metrics:
        if not (m.startswith(("time/", "avg_time/")) or _RATE.match(m) or m in raw):
            raise ValueError(f"unknown metric {m!r} (derived: time/<unit>, avg_time/<unit>, "
                             f"[g|t]flop[width]/s, [g|t]byte/s; in this file: "
                             f"{', '.join(sorted(raw))})")


def parse(metrics: List[str], filename: str, include: Optional[str] = None,
          exclude: Optional[str] = None, threshold: Optional[float] = None):
    """(tree, metric names) of a profile file; `include`/`exclude` are regular expressions
    over frame names, `threshold` drops frames below that fraction of the root's first
    metric."""
    with open(filename) as f:
        data = json.load(f)
    tree = _frame(data[0] if isinstance(data, list) else data)
    _check_names(metrics, tree)

    def fill(fr: Frame):
        for m in metrics:
            v = derive(m, fr.raw)
            if v is not None:
                fr.values[m] = v
        for c in fr.children:
            fill(c)
    fill(tree)
    inc = re.compile(include) if include else None
    exc = re.compile(exclude) if exclude else None
    total = tree.values.get(metrics[0]) if metrics else None

    def keep(fr: Frame) -> bool:
        if exc is not None and exc.search(fr.name):
            return False
        if threshold is not None and total and fr.values.get(metrics[0], 0) < threshold * total:
            return False
        return True

    def prune(fr: Frame) -> Frame:
        fr.children = [prune(c) for c in fr.children if keep(c)]
        if inc is not None:
            fr.children = [c for c in fr.children if inc.search(c.name) or c.children]
        return fr
    return prune(tree), list(metrics)


def format_tree(tree: Frame, metrics: List[str], depth: int = 100,
                print_sorted: bool = False) -> str:
    lines: List[str] = []

    def walk(fr: Frame, prefix: str, level: int):
        values = " ".join(f"{fr.values[m]:.3f}" if m in fr.values else "-" for m in metrics)
        lines.append(f"{prefix}{values} {fr.name}")
        if level >= depth:
            return
        children = fr.children
        if print_sorted and metrics:
            children = sorted(children, key=lambda c: -c.values.get(metrics[0], 0))
        for i, c in enumerate(children):
            last = i == len(children) - 1
            walk(c, prefix.replace("├─ ", "│  ").replace("└─ ", "   ") +
                 ("└─ " if last else "├─ "), level + 1)
    walk(tree, "", 0)
    return "\n".join(lines)


def print_tree(tree: Frame, metrics: List[str], depth: int = 100, format=None,
               print_sorted: bool = False) -> None:
    print(format_tree(tree, metrics, depth, print_sorted))
    print("\nmetrics: " + ", ".join(metrics))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="print a .hatchet profile as a tree")
    ap.add_argument("-m", "--metrics", default="time/ms")
    ap.add_argument("-d", "--depth", type=int, default=100)
    ap.add_argument("-i", "--include")
    ap.add_argument("-e", "--exclude")
    ap.add_argument("-t", "--threshold", type=float)
    ap.add_argument("--print-sorted", action="store_true")
    ap.add_argument("file")
    a = ap.parse_args(argv)
    tree, metrics = parse(a.metrics.split(","), a.file, a.include, a.exclude, a.threshold)
    print_tree(tree, metrics, a.depth, print_sorted=a.print_sorted)


if __name__ == "__main__":
    main(sys.argv[1:])
