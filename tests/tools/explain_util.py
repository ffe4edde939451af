"""Shared by the explain tests: the example scripts and their pages, built once per session."""
from __future__ import annotations

import glob
import html
import os
import re
from typing import Dict, List

import tritium as triton
import tritium.language as tl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = sorted(p for p in glob.glob(os.path.join(ROOT, "examples", "*.py"))
                  if not os.path.basename(p).startswith("_"))

_PRE = re.compile(r'<pre class="stage-code" data-stage="(\w+)"[^>]*>(.*?)</pre>', re.S)
_LINE = re.compile(r'<span class="l"(?: data-s="(\d+)")?[^>]*>(.*?)\n</span>', re.S)


def stage_lines(page: str) -> Dict[str, List[tuple]]:
    """{stage: [(source line or 0, text)]} read back from a kernel page's HTML."""
    out = {}
    for stage, body in _PRE.findall(page):
        out[stage] = [(int(s or 0), html.unescape(t)) for s, t in _LINE.findall(body)]
    return out


def source_lines(page: str) -> List[tuple]:
    body = re.search(r'<pre class="source">(.*?)</pre>', page, re.S).group(1)
    rows = []
    for s, t in _LINE.findall(body):
        text = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<(b|em)[^>]*>.*?</\1>", "", t)))
        rows.append((int(s or 0), text))
    return rows


@triton.jit
def masked_mm(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B over ragged edges (masked loads and store); what the explain tests count
    and map line by line."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(A + rm[:, None] * K + (k * BK + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k * BK + rk)[None, :] < K), other=0.0)
        b = tl.load(B + (k * BK + rk)[:, None] * N + rn[None, :],
                    mask=((k * BK + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
