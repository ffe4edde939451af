"""HTML for the kernel pages and the index. Each page is one self-contained file (the CSS
and JS of `assets/` are inlined), so it opens from disk, works offline and can be shown in
a notebook's iframe."""
from __future__ import annotations

import functools
import html
import json
import os
from typing import Dict, List, Sequence

from .capture import KernelRecord

STAGE_TITLES = {"ttir": "TTIR", "ttgir": "TTGIR", "llir": "LLIR", "ptx": "PTX", "sass": "SASS",
                "asm": "host asm"}
# The stage whose line counts the Python pane shows: the last one the target has before
# its machine code (PTX), or the CPU's host assembly.
_COUNTED = ("ptx", "asm", "llir", "ttgir", "ttir")
_ASSETS = os.path.join(os.path.dirname(__file__), "assets")


@functools.lru_cache(maxsize=None)
def asset(name: str) -> str:
    with open(os.path.join(_ASSETS, name), encoding="utf-8") as f:
        return f.read()


def esc(s) -> str:
    return html.escape(str(s), quote=True)


def _head(title: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{asset('explain.css')}</style></head>\n")


# ------------------------------------------------------------------ kernel page
def kernel_page(rec: KernelRecord, index_href: str = "") -> str:
    parts = [_head(f"{rec.name} — tritium explain"), "<body>"]
    parts.append(_header(rec, index_href))
    if rec.error:
        parts.append(f'<p class="error">Compilation stopped: {esc(rec.error)}</p>')
    parts.append(_code_panes(rec))
    parts.append(_resources(rec))
    parts.append(_passes(rec))
    parts.append(_layouts(rec))
    data = json.dumps({"layouts": rec.layouts}, separators=(",", ":")).replace("</", "<\\/")
    parts.append(f'<script type="application/json" id="explain-data">{data}</script>')
    parts.append(f"<script>{asset('explain.js')}</script></body></html>\n")
    return "".join(parts)


def _header(rec: KernelRecord, index_href: str) -> str:
    back = f'<a class="back" href="{esc(index_href)}">all kernels</a> ' if index_href else ""
    times = " · ".join(f"{k} {v:.0f} ms" for k, v in rec.stage_ms.items())
    opts = ", ".join(f"{k}={v}" for k, v in rec.options.items() if v is not None)
    return (f'<header>{back}<h1>{esc(rec.name)}</h1><span class="target">{esc(rec.target)}</span>'
            f'<div class="meta"><div><b>specialisation</b> {esc(rec.signature)}</div>'
            f'<div><b>options</b> {esc(opts)}</div>'
            f'<div><b>compile</b> {esc(times)} (total {rec.compile_ms:.0f} ms; '
            f'page {rec.explain_ms:.0f} ms) · <span class="src-file">{esc(rec.file)}</span></div>'
            f'<div class="hint">Hover or click a Python line to light up what it became in '
            f'every stage; click an IR line to go back to its Python line.</div></div></header>')


def _lines_html(mapped, with_numbers: bool = False, first: int = 1) -> str:
    out = []
    for i, (line, s) in enumerate(zip(mapped.lines, mapped.src)):
        attr = f' data-s="{s}"' if s else ""
        num = f"<b>{first + i}</b>" if with_numbers else ""
        out.append(f'<span class="l"{attr}>{num}{esc(line)}\n</span>')
    return "".join(out)


def _source_html(rec: KernelRecord) -> str:
    counts: Dict[int, Dict[str, int]] = {}
    for stage, mapped in rec.stages.items():
        for s in mapped.src:
            if s:
                counts.setdefault(s, {}).setdefault(stage, 0)
                counts[s][stage] += 1
    last = next((s for s in _COUNTED if s in rec.stages), None)
    out = []
    for i, line in enumerate(rec.source):
        n = rec.first_line + i
        c = counts.get(n)
        if c:
            title = ", ".join(f"{STAGE_TITLES[k]}: {v} lines" for k, v in c.items())
            badge = f'<em title="{esc(title)}">{c.get(last, 0)}</em>' if last else ""
            out.append(f'<span class="l" data-s="{n}" title="{esc(title)}"><b>{n}</b>'
                       f'{badge}{esc(line)}\n</span>')
        else:
            out.append(f'<span class="l"><b>{n}</b><em></em>{esc(line)}\n</span>')
    return "".join(out)


def _code_panes(rec: KernelRecord) -> str:
    stages = [s for s in STAGE_TITLES if s in rec.stages]
    store = []
    for s in stages:
        m = rec.stages[s]
        store.append(f'<pre class="stage-code" data-stage="{s}" data-note="{esc(m.note)}">'
                     f'{_lines_html(m)}</pre>')
    defaults = ["ttgir", "ptx"] if "ptx" in stages else \
        ["ttir", "asm"] if "asm" in stages else stages[:2]
    panes = []
    for i, d in enumerate(defaults[:2]):
        tabs = "".join(f'<button data-stage="{s}"{" class=on" if s == d else ""}>'
                       f'{STAGE_TITLES[s]}</button>' for s in stages)
        panes.append(f'<section class="pane stage-pane" data-default="{d}">'
                     f'<div class="tabs">{tabs}<span class="note"></span></div>'
                     f'<div class="scroll"></div></section>')
    last = next((s for s in _COUNTED if s in rec.stages), "")
    return (f'<main class="code panes-{len(panes)}"><section class="pane src-pane"><div class="tabs"><span>Python'
            f'</span><span class="note">(count: {STAGE_TITLES.get(last, "")} lines per Python '
            f'line)</span></div><div class="scroll"><pre class="source">{_source_html(rec)}'
            f'</pre></div></section>{"".join(panes)}</main>'
            f'<div id="stage-store" hidden>{"".join(store)}</div>')


def _bench_row(b) -> tuple:
    peak = (f" of {b.peak_gbps:.0f} GB/s peak ({100 * b.gbps / b.peak_gbps:.0f}%)"
            if b.peak_gbps else " (no GPU peak on this device)")
    shared = (f"; the timed call launched {b.kernels_in_call} kernels, all its time is counted"
              if b.kernels_in_call > 1 else "")
    return ("measured (do_bench)",
            f"{b.ms:.4g} ms per call, {b.launches_per_call:g} launch(es), "
            f"{b.bytes_per_call / 1e6:.4g} MB of tensor arguments → {b.gbps:.4g} GB/s{peak}{shared}")


def _flops_row(b) -> tuple:
    f = b.flops
    big = f.dots[0]
    sites = (f"{len(f.dots)} tl.dot" + ("s" if len(f.dots) > 1 else "") +
             f" on {big.dtype}" + (f" ({big.precision})" if big.precision else ""))
    if not f.known:
        return ("dot FLOP/s (do_bench)", f"{sites}; FLOPs not known at launch: {f.why}")
    per_call = b.flops_per_call
    work = f"{per_call / 1e9:.4g} GFLOP" if per_call >= 1e9 else f"{per_call / 1e6:.4g} MFLOP"
    if b.peak_tflops:
        rate = (f"{b.tflops:.4g} TFLOP/s of {b.peak_tflops:.0f} TFLOP/s {big.dtype} peak "
                f"({100 * b.tflops / b.peak_tflops:.0f}%)")
    else:
        rate = f"{b.tflops * 1e3:.4g} GFLOP/s (no GPU peak on this device)"
    return ("dot FLOP/s (do_bench)",
            f"{sites}: 2·M·N·K per dot × loop trips × programs (whole tiles, masked edges "
            f"included) = {work} per call → {rate}")


def _resources(rec: KernelRecord) -> str:
    r = rec.resources
    if not r and rec.bench is None:
        return ""
    rows = [_bench_row(rec.bench)] if rec.bench is not None else []
    if rec.bench is not None and rec.bench.flops is not None:
        rows.append(_flops_row(rec.bench))
    if "registers" in r:
        rows += [("registers per thread", r["registers"]),
                 ("spills (stores / loads)", f'{r["spill_stores"]} B / {r["spill_loads"]} B'),
                 ("stack frame", f'{r["stack"]} B'),
                 ("shared memory", f'{r["shared"]} B'),
                 ("barriers", r.get("barriers")),
                 ("warps per block", r["num_warps"]),
                 ("occupancy", f'{r["blocks_per_sm"]} blocks = {r["warps_per_sm"]} warps per SM '
                               f'({100 * r["occupancy"]:.0f}%), limited by {r["limited_by"]}'),
                 ("assembler", r.get("ptxas"))]
    if "note" in r:
        rows.append(("note", r["note"]))
    body = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    return f'<section id="resources"><h2>Resources</h2><table class="kv">{body}</table></section>'


def _diff_html(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        cls = "add" if line.startswith("+") else "del" if line.startswith("-") else \
            "hunk" if line.startswith("@@") else ""
        out.append(f'<span class="{cls}">{esc(line)}\n</span>' if cls else f"{esc(line)}\n")
    return "".join(out)


def _passes(rec: KernelRecord) -> str:
    if not rec.passes:
        return ""
    top = max(p.ms for p in rec.passes) or 1.0
    rows = []
    for i, p in enumerate(rec.passes):
        bar = f'<i style="width:{max(1, int(120 * p.ms / top))}px"></i>'
        if p.diff:
            change = (f'<details><summary><span class="plus">+{p.added}</span> '
                      f'<span class="minus">−{p.removed}</span> lines</summary>'
                      f'<pre class="diff">{_diff_html(p.diff)}</pre></details>')
        else:
            change = '<span class="unchanged">no change</span>'
        rows.append(f'<tr class="{"changed" if p.diff else "same"}"><td>{i + 1}</td>'
                    f'<td>{STAGE_TITLES.get(p.stage, p.stage)}</td><td class="pass">{esc(p.label)}</td>'
                    f'<td class="ms">{p.ms:.2f} ms {bar}</td><td>{change}</td></tr>')
    total = sum(p.ms for p in rec.passes)
    changed = sum(1 for p in rec.passes if p.diff)
    return (f'<section id="passes"><h2>Pass pipeline</h2><p>{len(rec.passes)} passes, '
            f'{total:.1f} ms; {changed} changed the IR (click to unfold the diff).</p>'
            f'<table class="passes"><tr><th>#</th><th>stage</th><th>pass</th><th>time</th>'
            f'<th>change</th></tr>{"".join(rows)}</table></section>')


def _layouts(rec: KernelRecord) -> str:
    if not rec.layouts:
        return ""
    items = []
    for i, lay in enumerate(rec.layouts):
        uses = ", ".join(f"{op} (line {ln})" if ln else op for op, ln in lay["uses"])
        more = f" and {lay['count'] - len(lay['uses'])} more" if lay["count"] > len(lay["uses"]) else ""
        shape = "x".join(map(str, lay["shape"]))
        canvas = (f'<div class="layout-draw" data-layout="{i}"><canvas></canvas>'
                  f'<div class="layout-tip">hover a cell</div></div>') if lay["drawn"] else \
            '<p class="note">too large to draw</p>'
        items.append(f'<div class="layout"><h3>{esc(lay["name"])} · tensor&lt;{esc(shape)}x'
                     f'{esc(lay["element"])}&gt; in {esc(lay["memory"])}</h3>'
                     f'<code class="enc">{esc(lay["text"])}</code>'
                     f'<p class="uses">{lay["count"]} values: {esc(uses)}{esc(more)}</p>{canvas}</div>')
    return (f'<section id="layouts"><h2>Layouts</h2><p>Each cell is one tensor element; '
            f'colour = warp, shade = lane, text = thread (t) and register (r) holding it, '
            f'from the layout\'s linear map. Shared memory: the offset, coloured by bank.</p>'
            f'{"".join(items)}</section>')


# ------------------------------------------------------------------ index
def index_page(script: str, entries: Sequence[tuple], notes: List[str] = ()) -> str:
    """`entries`: (href, KernelRecord)."""
    rows = []
    for href, rec in entries:
        r = rec.resources
        res = (f'{r["registers"]} regs, {r["shared"]} B smem, {100 * r["occupancy"]:.0f}% occupancy'
               if "registers" in r else "")
        err = f' <span class="error">{esc(rec.error)}</span>' if rec.error else ""
        rows.append(f'<tr><td><a href="{esc(href)}">{esc(rec.name)}</a>{err}</td>'
                    f'<td>{esc(rec.target)}</td><td class="sig">{esc(rec.signature)}</td>'
                    f'<td>{rec.compile_ms:.0f} ms</td><td>{esc(res)}</td></tr>')
    notes_html = "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
    return (_head(f"tritium explain — {os.path.basename(script)}") +
            f'<body><header><h1>tritium explain</h1><span class="target">'
            f'{esc(script)}</span></header>{notes_html}<table class="index"><tr><th>kernel</th>'
            f'<th>target</th><th>specialisation</th><th>compile</th><th>resources</th></tr>'
            f'{"".join(rows)}</table></body></html>\n')
