"""The layouts of a TTGIR module, as data the page draws: one entry per distinct
(encoding, shape) with its linear layout's bases. The page computes, for every
(register, lane, warp) — or shared-memory offset — the tensor element it holds by XOR-ing
bases, so even a 128x128 tensor costs a few hundred bytes of page."""
from __future__ import annotations

from typing import Dict, List

from ...ir import types as T

MAX_ELEMENTS = 1 << 16   # larger tensors are listed but not drawn


def _name(enc, aliases: Dict[object, str]) -> str:
    if enc in aliases:
        return aliases[enc]
    to_text = getattr(enc, "to_text", None)
    return to_text(aliases) if to_text is not None else str(enc)


def collect_layouts(module, mapped_ttgir=None) -> List[dict]:
    from ...ir.printer import collect_encoding_aliases
    from ...backends.line_info import outermost
    aliases = dict(collect_encoding_aliases(module))
    found: Dict[tuple, dict] = {}
    for op in module.walk():
        for r in op.results:
            t = r.type
            if not isinstance(t, (T.TensorType, T.MemDescType)) or t.encoding is None:
                continue
            key = (t.encoding, tuple(t.dims), isinstance(t, T.MemDescType))
            entry = found.get(key)
            if entry is None:
                entry = found[key] = _describe(t, aliases)
                if entry is None:
                    found[key] = {"skip": True}
                    continue
            if entry.get("skip"):
                continue
            frame = outermost(op.loc)
            if len(entry["uses"]) < 6:
                entry["uses"].append([op.name, frame.line if frame is not None else 0])
            entry["count"] += 1
    # Biggest tensors first: the tiles a kernel computes on, before their 1xN slices.
    kept = [e for e in found.values() if not e.get("skip")]
    return sorted(kept, key=lambda e: -_elements(e["shape"]))


def _elements(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _describe(t, aliases) -> dict:
    try:
        ll = t.encoding.to_linear_layout(list(t.dims))
    except Exception:  # an encoding without a linear form yet: listed by name only
        ll = None
    elem = t.element_type if isinstance(t, T.TensorType) else t.element
    bits = getattr(elem, "bitwidth", None) or (64 if isinstance(elem, T.PointerType) else 32)
    entry = {"name": _name(t.encoding, aliases), "text": str(t.encoding),
             "shape": list(t.dims), "element": str(elem), "bytes": max(1, bits // 8),
             "memory": "shared" if isinstance(t, T.MemDescType) else "registers",
             "uses": [], "count": 0, "drawn": False}
    if ll is not None and _elements(t.dims) <= MAX_ELEMENTS:
        entry["in_dims"] = {d: [list(b) for b in ll.bases[d]] for d in ll.in_dims}
        entry["out_dims"] = [[d, ll.get_out_dim_size(d)] for d in ll.out_dims]
        entry["drawn"] = True
    return entry
