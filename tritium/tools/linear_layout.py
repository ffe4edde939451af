"""`triton.tools.LinearLayout`: upstream's Python view of linear layouts (maps over GF(2) from
named input dims — register, lane, warp, ... — to named output dims), over tritium's own
implementation (`tritium.gpu.linear_layout`). Adds upstream's spellings: `from_bases(pairs,
out_dim_names, out_dim_sizes=None, require_surjective=True)`, `zeros_1d(...,
outDimSize=...)`, and `get_matrix_view()` (the 0/1 matrix, a row per output bit and a
column per input bit, output dims and input dims in order, low bits first). Layouts that
operations return (`*`, `compose`, `invert`, ...) are of this class too."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ..gpu.linear_layout import LinearLayout as _Base

__all__ = ["LinearLayout"]


def _adopt(layout):
    """A layout the base class returned, as this class (the same state)."""
    if not isinstance(layout, _Base) or isinstance(layout, LinearLayout):
        return layout
    out = object.__new__(LinearLayout)
    for slot in _Base.__slots__:
        try:
            object.__setattr__(out, slot, getattr(layout, slot))
        except AttributeError:
            pass
    return out


class LinearLayout(_Base):
    __slots__ = ()

    @classmethod
    def from_bases(cls, bases: Sequence[Tuple[str, Sequence[Sequence[int]]]],
                   out_dim_names: Sequence[str], out_dim_sizes: Optional[Sequence[int]] = None,
                   require_surjective: bool = True) -> "LinearLayout":
        """Bases per input dim as (name, [[out0, out1, ...], ...]); output sizes inferred
        from the bases unless given."""
        if out_dim_sizes is None:
            return cls(list(bases), list(out_dim_names), require_surjective=require_surjective)
        if len(out_dim_sizes) != len(out_dim_names):
            raise ValueError("out_dim_sizes needs one size per output dim")
        return cls(list(bases), list(zip(out_dim_names, out_dim_sizes)),
                   require_surjective=require_surjective)

    @classmethod
    def identity_1d(cls, size: int, inDim: str, outDim: str) -> "LinearLayout":
        return _adopt(_Base.identity_1d(size, inDim, outDim))

    @classmethod
    def strided_1d(cls, size: int, stride: int, inDim: str, outDim: str) -> "LinearLayout":
        return _adopt(_Base.strided_1d(size, stride, inDim, outDim))

    @classmethod
    def zeros_1d(cls, size: int, inDim: str, outDim: str, outDimSize: int = 1) -> "LinearLayout":
        return _adopt(_Base.zeros_1d(size, inDim, outDim, outDimSize))

    def get_matrix_view(self) -> List[List[int]]:
        rows = self.total_out_size_log2
        return [[(v >> r) & 1 for v in self._flat] for r in range(rows)]


def _returning_this_class(name):
    base = getattr(_Base, name)

    def method(self, *args, **kwargs):
        return _adopt(base(self, *args, **kwargs))
    method.__name__ = name
    method.__doc__ = base.__doc__
    return method


for _name in ("__mul__", "compose", "invert", "invert_and_compose", "pseudoinvert",
              "transpose_ins", "transpose_outs", "reshape_ins", "reshape_outs", "flatten_ins",
              "flatten_outs", "concat_ins", "concat_outs", "sublayout", "quotient",
              "remove_zero_bases_along_dim", "resize_in_dim", "divide_left", "divide_right"):
    if hasattr(_Base, _name):
        setattr(LinearLayout, _name, _returning_this_class(_name))
