"""Shared by the explain tests: the example scripts and their pages, built once per session."""
from __future__ import annotations

import glob
import html
import os
import re
from typing import Dict, List

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
