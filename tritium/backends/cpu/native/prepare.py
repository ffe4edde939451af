"""The TTIR the host lowering sees: the "ttir" stage's module (which the evaluator keeps
running directly, block pointers, descriptors and calls included) copied, with what the
host lowering has no direct form for rewritten into what it has:

* `tt.call` of a `noinline` function: inlined (a call boundary would cut the lazy tensor
  values of context.py in two; the result is the same as calling it). Recursive calls stay
  and the kernel runs on the evaluator, with the reason logged.
* block pointers (`tt.make_tensor_ptr`, `tt.advance`) and tensor descriptors: the rewrites
  the NVIDIA backend runs (passes/rewrite_tensor_pointer.py, rewrite_tensor_descriptor.py),
  pointer tensors with boundary masks. A descriptor parameter becomes (base, padding_nan)
  followed by its shape and strides (`descriptor_args` packs those at launch).

* a block dimension padded past what any store, reduction or scan can observe (Inductor's
  257 columns in a 512-lane block): shrunk to the lanes that matter (`lanes.py`).

The copy is made only when the module holds one of these, so other kernels compile as
fast as before.
"""
from __future__ import annotations

from ....ir import types as T

_REWRITTEN = {"tt.call", "tt.make_tensor_ptr", "tt.advance", "tt.make_tensor_descriptor"}


def _needs(module) -> bool:
    for op in module.walk():
        if op.name in _REWRITTEN or op.name.startswith("tt.descriptor_"):
            return True
        if op.name == "tt.func" and any(isinstance(t, T.TensorDescType)
                                        for t in op.attr("function_type").inputs):
            return True
    return False


def for_host(module):
    """`module`, or a rewritten copy of it when it needs one (see the module doc)."""
    if _needs(module):
        from ....passes import PassManager
        from ....passes.inline import inline_module
        m = module.clone()
        inline_module(m, include_noinline=True)
        PassManager("rewrite-tensor-pointer,rewrite-tensor-descriptor-to-pointer,canonicalize,"
                    "cse").run(m)
    else:
        m = module
    return _shrunk(m, copied=m is not module)


def _shrunk(module, copied: bool):
    """Dead lanes dropped (lanes.py), on a copy unless `module` is one already: the plan is
    made on the given module first, so a kernel with nothing to shrink is not copied."""
    from . import lanes
    funcs = lambda m: [op for op in m.regions[0].entry if op.name == "tt.func"]  # noqa: E731
    if not copied and not any(lanes.plan(f) for f in funcs(module)):
        return module
    m = module if copied else module.clone()
    for f in funcs(m):
        lanes.shrink(f)
    return m


def descriptor_args(args):
    """Launch arguments for a kernel whose descriptor parameters were rewritten: each
    `TensorDescriptor` becomes its base and whether its padding is NaN (its shape and
    strides already follow it, driver._expand_descriptors)."""
    out = []
    for a in args:
        if type(a).__name__ == "TensorDescriptor":
            out += [a.base, a.padding == "nan"]
        else:
            out.append(a)
    return out
