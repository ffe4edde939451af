"""Bad kernels: each raises CompilationError at the right line with a clear message.

Line numbers count from the `def` line (1), as upstream's `at L:C:` does.
"""
import numpy as np
import pytest

import tritium as triton
import tritium.language as tl
from tritium.frontend.errors import (CompilationError, CompileTimeAssertionFailure,
                                     UnsupportedLanguageConstruct)

X = np.zeros(64, np.float32)
GLOBAL_PLAIN = 3  # a non-constexpr global
GLOBAL_CONST = tl.constexpr(8)


def _err(kernel, *args, **kw):
    with pytest.raises(CompilationError) as info:
        kernel.warmup(*args, grid=(1,), **kw)
    return info.value


def check(err, line, text, cls=CompilationError):
    assert isinstance(err, cls), type(err)
    msg = str(err)
    assert msg.startswith(f"at {line}:"), msg
    assert text in msg, msg
    # The excerpt ends with a caret line under the failing column.
    lines = msg.split("\n")
    caret = next(i for i, s in enumerate(lines) if s.strip() == "^")
    col = int(msg.split("\n")[0].split(":")[1])
    assert lines[caret].index("^") == col


@triton.jit
def k_undefined(x_ptr):
    tl.store(x_ptr, undefined_name)


@triton.jit
def k_plain_global(x_ptr):
    tl.store(x_ptr, GLOBAL_PLAIN)


@triton.jit
def k_break(x_ptr):
    for i in range(4):
        break
    else:
        pass


@triton.jit
def k_continue(x_ptr):
    while x_ptr is not None:
        continue
    else:
        pass


@triton.jit
def k_nested_def(x_ptr):
    def inner():
        pass


@triton.jit
def k_lambda(x_ptr):
    f = lambda v: v


@triton.jit
def k_try(x_ptr):
    try:
        pass
    except Exception:
        pass


@triton.jit
def k_with(x_ptr):
    with open("x"):
        pass


@triton.jit
def k_listcomp(x_ptr):
    a = [i for i in range(3)]


@triton.jit
def k_global_stmt(x_ptr):
    global GLOBAL_PLAIN


@triton.jit
def k_if_type_mismatch(x_ptr, n):
    v = 1
    if n > 0:
        v = 1.5
    tl.store(x_ptr, v)


@triton.jit
def k_branch_defs_mismatch(x_ptr, n):
    if n > 0:
        w = 1
    else:
        w = 2.5
    tl.store(x_ptr, w)


@triton.jit
def k_loop_carried(x_ptr, n):
    acc = 0
    for i in range(n):
        acc = acc + 0.5
    tl.store(x_ptr, acc)


@triton.jit
def k_broadcast(x_ptr):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    c = a + b


@triton.jit
def k_arange_pow2(x_ptr):
    a = tl.arange(0, 3)


@triton.jit
def k_arange_nonconst(x_ptr, n):
    a = tl.arange(0, n)


@triton.jit
def k_dot_shapes(x_ptr):
    a = tl.zeros((16, 32), tl.float32)
    b = tl.zeros((16, 32), tl.float32)
    c = tl.dot(a, b)


@triton.jit
def k_static_assert(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK > 64, "BLOCK too small")


@triton.jit
def k_return_in_loop(x_ptr, n):
    for i in range(n):
        return


@triton.jit
def k_chained_cmp(x_ptr, n):
    if 0 < n < 4:
        pass


@triton.jit
def k_return_types(n):
    if n > 0:
        return 1
    return 1.0


@triton.jit
def k_calls_bad_return(x_ptr, n):
    tl.store(x_ptr, k_return_types(n))


@triton.jit
def k_branch_return_types(p, q, n):
    if n > 0:
        return p
    else:
        return n


@triton.jit
def k_calls_branch_returns(x_ptr, n):
    tl.store(k_branch_return_types(x_ptr, x_ptr, n), 1.0)


@triton.jit
def k_constexpr_reassign(x_ptr):
    a: tl.constexpr = 1
    a: tl.constexpr = 2


@triton.jit
def k_load_non_pointer(x_ptr, n):
    v = tl.load(n)


@triton.jit
def k_store_non_pointer(x_ptr, n):
    tl.store(n, 1.0)


@triton.jit
def k_bad_cache_modifier(x_ptr):
    v = tl.load(x_ptr, cache_modifier=".zz")


@triton.jit
def k_float_bitwise(x_ptr):
    v = tl.load(x_ptr)
    w = v & 1


@triton.jit
def k_ptr_plus_ptr(x_ptr):
    p = x_ptr + x_ptr


@triton.jit
def k_program_id_axis(x_ptr):
    p = tl.program_id(3)


@triton.jit
def k_reshape_numel(x_ptr):
    a = tl.arange(0, 16)
    b = tl.reshape(a, (4, 8))


@triton.jit
def k_block_condition(x_ptr):
    a = tl.arange(0, 16)
    if a > 3:
        pass


@triton.jit
def k_unknown_attr(x_ptr):
    a = tl.not_a_builtin(1)


@triton.jit
def k_fstring(x_ptr, n):
    tl.static_print(f"{n}")


@triton.jit
def k_mixed_sign_div(x_ptr, n):
    a = tl.arange(0, 16).to(tl.uint32)
    b = a // n


@triton.jit
def k_tensor_int_index(x_ptr):
    a = tl.arange(0, 16)
    b = a[0]


@triton.jit
def k_too_large(x_ptr):
    a = tl.zeros((2048, 1024), tl.float32)


@triton.jit
def k_while_else(x_ptr, n):
    while n > 0:
        n -= 1
    else:
        pass


@triton.jit
def k_callee_error(x):
    return x + undefined_in_callee


@triton.jit
def k_calls_callee(x_ptr):
    tl.store(x_ptr, k_callee_error(1.0))


@triton.jit
def k_range_kwargs(x_ptr):
    for i in range(0, 4, step=1):
        pass


@triton.jit
def k_for_float_bounds(x_ptr):
    for i in range(0, 4.5):
        pass


@triton.jit
def k_assign_subscript(x_ptr):
    a = tl.arange(0, 16)
    a[0] = 1


@triton.jit
def k_device_print_fstring(x_ptr):
    a = tl.arange(0, 16)
    tl.static_print(f"{a}")


CASES = [
    (k_undefined, (X,), {}, 2, "undefined_name is not defined"),
    (k_plain_global, (X,), {}, 2, "Cannot access global variable GLOBAL_PLAIN"),
    # break/continue work (tests/parity/test_break_continue.py); a loop `else` with them does not
    (k_break, (X,), {}, 2, "a loop with `break` or `continue` cannot have an `else`"),
    (k_continue, (X,), {}, 2, "a loop with `break` or `continue` cannot have an `else`"),
    (k_nested_def, (X,), {}, 2, "nested function definition is not supported"),
    (k_lambda, (X,), {}, 2, "unsupported AST node type: Lambda"),
    (k_try, (X,), {}, 2, "unsupported AST node type: Try"),
    (k_with, (X,), {}, 2, "unsupported AST node type: With"),
    (k_listcomp, (X,), {}, 2, "only tuple comprehensions are supported"),
    (k_global_stmt, (X,), {}, 2, "unsupported AST node type: Global"),
    (k_if_type_mismatch, (X, 5), {}, 3, "initial value for `v` is of type int32"),
    (k_branch_defs_mismatch, (X, 5), {}, 2, "Mismatched type for w between then block"),
    (k_loop_carried, (X, 5), {}, 3, "Loop-carried variable acc has initial type int32"),
    (k_broadcast, (X,), {}, 4, "incompatible dimensions at index 0: 16 and 32"),
    (k_arange_pow2, (X,), {}, 2, "arange's range must be a power of 2"),
    (k_arange_nonconst, (X, 5), {}, 2, "arange's arguments must be of type tl.constexpr"),
    (k_dot_shapes, (X,), {}, 4, "are not compatible for matmul"),
    (k_return_in_loop, (X, 5), {}, 3, "Cannot have `return` statements inside `while` or `for`"),
    (k_chained_cmp, (X, 5), {}, 2, "simultaneous multiple comparison is not supported"),
    (k_calls_bad_return, (X, 5), {}, 2, "Return type mismatch: "),
    (k_calls_branch_returns, (X, 5), {}, 2, "Return type mismatch: pointer<fp32> and int32"),
    (k_constexpr_reassign, (X,), {}, 3, "constexpr cannot be reassigned"),
    (k_load_non_pointer, (X, 5), {}, 2, "Unsupported ptr type"),
    (k_store_non_pointer, (X, 5), {}, 2, "Unsupported ptr type"),
    (k_bad_cache_modifier, (X,), {}, 2, "Cache modifier .zz not supported"),
    (k_float_bitwise, (X,), {}, 3, "invalid operands of type triton.language.float32"),
    (k_program_id_axis, (X,), {}, 2, "program_id axis must be 0, 1, or 2 but got 3"),
    (k_reshape_numel, (X,), {}, 3, "reshape() cannot change total number of elements in tensor"),
    (k_block_condition, (X,), {}, 3, "the condition of `if` must be a scalar"),
    (k_unknown_attr, (X,), {}, 2, "has no attribute 'not_a_builtin'"),
    (k_mixed_sign_div, (X, 5), {}, 3, "because they have different signedness"),
    (k_tensor_int_index, (X,), {}, 3, "unsupported tensor index"),
    (k_too_large, (X,), {}, 2, "exceeds triton maximum tensor numel"),
    (k_while_else, (X, 5), {}, 2, "while ... else is not supported"),
    (k_calls_callee, (X,), {}, 2, ""),
    (k_range_kwargs, (X,), {}, 2, "range() takes no keyword arguments"),
    (k_for_float_bounds, (X,), {}, 2, "For loop bounds and step must all be ints"),
    (k_assign_subscript, (X,), {}, 3, "assignment to Subscript is not supported"),
    (k_ptr_plus_ptr, (X,), {}, 2, "ptr"),
]


@pytest.mark.parametrize("kernel,args,kw,line,text", CASES, ids=[c[0].__name__ for c in CASES])
def test_bad_kernel(kernel, args, kw, line, text):
    check(_err(kernel, *args, **kw), line, text)


def test_static_assert_is_its_own_class():
    err = _err(k_static_assert, X, BLOCK=16)
    check(err, 2, "BLOCK too small", CompileTimeAssertionFailure)


def test_unsupported_construct_class():
    assert isinstance(_err(k_break, X), UnsupportedLanguageConstruct)


def test_callee_error_points_at_callee_line_in_chain():
    err = _err(k_calls_callee, X)
    inner = err.__cause__
    assert isinstance(inner, CompilationError)
    assert str(inner).startswith("at 2:")
    assert "undefined_in_callee is not defined" in str(inner)


def test_fstring_with_tensor_is_rejected():
    err = _err(k_device_print_fstring, X)
    assert "Cannot evaluate f-string containing non-constexpr conversion values" in str(err)


def test_constexpr_global_is_allowed():
    @triton.jit
    def k(x_ptr):
        tl.store(x_ptr + tl.arange(0, GLOBAL_CONST), tl.zeros((GLOBAL_CONST,), tl.float32))

    out = np.ones(8, np.float32)
    k[(1,)](out)
    assert (out == 0).all()


def test_error_is_picklable():
    import pickle
    err = _err(k_undefined, X)
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err)


def test_calling_kernel_directly_raises():
    with pytest.raises(RuntimeError, match="outside of the scope of a kernel"):
        k_undefined(X)


def test_builtin_outside_jit_raises():
    with pytest.raises(ValueError, match="Did you forget to add @triton.jit"):
        tl.arange(0, 16)
