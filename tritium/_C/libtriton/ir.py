"""`triton._C.libtriton.ir`: the read side of upstream's MLIR bindings, as views over tritium's
own IR (`tritium.ir.core`).

Who needs it: torch's user-defined-kernel support (`torch._higher_order_ops.
triton_kernel_wrap`) finds which tensor arguments a `@triton.jit` kernel writes by building
the kernel's TTIR through these bindings — `ir.context()`, `ir.load_dialects(ctx)`,
`ASTSource.make_ir(..., context)` — and walking it (`module.walk(fn)`, each op's name,
operands, results, regions, parent block and attributes, each value's `id()`). Without them
torch assumes every argument is mutated, which costs copies and blocks fusion.

`ASTSource.make_ir` hands back `context.module_view(module)` when given one of these
contexts, and tritium's own module otherwise; nothing in tritium's compiler goes through
here. Views are made on demand, so `id()` is the identity of the tritium object underneath
(stable while the module lives), as upstream's is the address of the MLIR object.
"""
from __future__ import annotations

from typing import Callable, Optional

from ...ir import attrs as A
from ...ir import core

__all__ = ["context", "load_dialects", "module", "operation", "value", "block", "region",
           "type", "parse_mlir_module"]


class context:
    """An MLIR context: tritium's IR needs none, so this only tags the modules made in it."""

    def __init__(self):
        self._dialects_loaded = False

    def module_view(self, mod: core.Operation) -> "module":
        return module(mod, self)


def load_dialects(ctx: context) -> None:
    """Every dialect tritium knows is always loaded."""
    ctx._dialects_loaded = True


def _attr_value(op: core.Operation, name: str, kind):
    attr = op.attributes.get(name)
    return attr.value if isinstance(attr, kind) else None


class type:  # noqa: A001  (upstream's name)
    def __init__(self, ty):
        self._ty = ty

    def __str__(self) -> str:
        return str(self._ty)

    def __eq__(self, other) -> bool:
        return isinstance(other, type) and other._ty == self._ty

    def __hash__(self) -> int:
        return hash(self._ty)

    def is_integer(self, width: Optional[int] = None) -> bool:
        from ...ir.types import IntegerType
        return isinstance(self._ty, IntegerType) and (width is None or self._ty.width == width)


class value:
    def __init__(self, v: core.Value):
        self._v = v

    def id(self) -> int:
        return id(self._v)

    def get_type(self) -> type:
        return type(self._v.type)

    def get_shape(self) -> Optional[list]:
        """A tensor's shape; None for a scalar."""
        dims = getattr(self._v.type, "dims", None)
        return list(dims) if dims is not None else None

    def __eq__(self, other) -> bool:
        return isinstance(other, value) and other._v is self._v

    def __hash__(self) -> int:
        return id(self._v)


class region:
    def __init__(self, r: core.Region):
        self._r = r

    def id(self) -> int:
        return id(self._r)

    def size(self) -> int:
        return len(self._r.blocks)

    def empty(self) -> bool:
        return not self._r.blocks

    def get_parent_region(self) -> Optional["region"]:
        op = self._r.parent
        parent = op.parent_region if op is not None else None
        return region(parent) if parent is not None else None


class block:
    def __init__(self, b: core.Block):
        self._b = b

    def id(self) -> int:
        return id(self._b)

    def get_num_arguments(self) -> int:
        return len(self._b.args)

    def get_argument(self, i: int) -> value:
        return value(self._b.args[i])

    def arg(self, i: int) -> value:
        if not 0 <= i < len(self._b.args):
            raise IndexError("Block argument index out of range")
        return value(self._b.args[i])

    def get_parent(self) -> Optional[region]:
        return region(self._b.parent) if self._b.parent is not None else None

    def has_terminator(self) -> bool:
        last = self._b.last
        return last is not None and last.name in _TERMINATORS

    def has_return(self) -> bool:
        last = self._b.last
        return last is not None and last.name in ("tt.return", "scf.yield")


_TERMINATORS = {"tt.return", "scf.yield", "scf.condition", "tt.reduce.return",
                "tt.scan.return", "tt.map_elementwise.return"}


def _checked(i: int, n: int, what: str) -> int:
    if not 0 <= i < n:
        raise IndexError(f"Op {what} index out of range")
    return i


class operation:
    """An op (upstream's `operation` and `OpState` methods together)."""

    def __init__(self, op: core.Operation):
        self._op = op

    def get_name(self) -> str:
        return self._op.name

    def get_num_operands(self) -> int:
        return self._op.num_operands

    def get_operand(self, i: int) -> value:
        return value(self._op.operand(_checked(i, self._op.num_operands, "operand")))

    def get_num_results(self) -> int:
        return len(self._op.results)

    def get_result(self, i: int) -> value:
        return value(self._op.results[_checked(i, len(self._op.results), "result")])

    def get_num_regions(self) -> int:
        return len(self._op.regions)

    def get_region(self, i: int) -> region:
        return region(self._op.regions[_checked(i, len(self._op.regions), "region")])

    def get_block(self) -> Optional[block]:
        return block(self._op.parent) if self._op.parent is not None else None

    def get_str_attr(self, name: str) -> Optional[str]:
        return _attr_value(self._op, name, A.StringAttr)

    def get_bool_attr(self, name: str) -> Optional[bool]:
        attr = self._op.attributes.get(name)
        if isinstance(attr, A.BoolAttr):
            return bool(attr.value)
        if isinstance(attr, A.IntegerAttr) and getattr(attr.type, "width", None) == 1:
            return bool(attr.value)
        return None

    def get_flat_symbol_ref_attr(self, name: str) -> Optional[str]:
        return _attr_value(self._op, name, A.SymbolRefAttr)

    def get_int_attr(self, name: str) -> Optional[int]:
        attr = self._op.attributes.get(name)
        return int(attr.value) if isinstance(attr, A.IntegerAttr) else None

    def get_constant_value(self) -> Optional[int]:
        """An integer `arith.constant`'s value (a splat tensor's element), sign-extended
        from its width as MLIR's `getSExtValue`; None for anything else."""
        if self._op.name != "arith.constant":
            return None
        attr = self._op.attributes.get("value")
        if isinstance(attr, A.IntegerAttr):
            width = getattr(attr.type, "width", 64)
        elif isinstance(attr, A.DenseElementsAttr) and \
                hasattr(attr.type.element_type, "width"):
            width = attr.type.element_type.width
        else:
            return None
        v = int(attr.value) & ((1 << width) - 1)
        return v - (1 << width) if v >> (width - 1) else v

    def verify(self) -> bool:
        from ...ir.verifier import VerificationError, verify
        try:
            verify(self._op)
        except VerificationError:
            return False
        return True

    def __str__(self) -> str:
        from ...ir.printer import print_op
        return print_op(self._op, debug_info=True)

    def dump(self) -> None:
        print(str(self))

    def __eq__(self, other) -> bool:
        return isinstance(other, operation) and other._op is self._op

    def __hash__(self) -> int:
        return id(self._op)


class module(operation):
    """A `builtin.module`. `walk(fn)` calls `fn(operation)` on every op, nested ops before the
    op holding them (MLIR's post-order walk, which torch's analysis relies on)."""

    def __init__(self, mod: core.Operation, ctx: Optional[context] = None):
        super().__init__(mod)
        self.context = ctx

    def walk(self, fn: Callable[[operation], None]) -> None:
        for op in self._op.walk(post_order=True):
            fn(operation(op))

    def str(self) -> str:  # noqa: A003  (upstream's method name)
        from ...ir.printer import print_module
        return print_module(self._op, debug_info=True)

    __str__ = str

    def _functions(self):
        return [op for op in core.module_body(self._op) if op.name == "tt.func"]

    def has_function(self, name: str) -> bool:
        return any(_attr_value(f, "sym_name", A.StringAttr) == name for f in self._functions())

    def get_function(self, name: str) -> Optional[operation]:
        for f in self._functions():
            if _attr_value(f, "sym_name", A.StringAttr) == name:
                return operation(f)
        return None

    def get_entry_func_name(self) -> str:
        for f in self._functions():
            if _attr_value(f, "sym_visibility", A.StringAttr) in (None, "public"):
                return _attr_value(f, "sym_name", A.StringAttr) or ""
        return ""



def parse_mlir_module(path: str, ctx: context) -> module:
    """The module in the MLIR file at `path` (upstream: "Parse MLIR file failed." on error)."""
    from ...ir.lexer import ParseError
    from ...ir.parser import parse_module
    with open(path) as f:
        text = f.read()
    try:
        mod = parse_module(text)
    except ParseError as e:
        raise RuntimeError(f"Parse MLIR file failed: {e}") from None
    return module(mod, ctx)
