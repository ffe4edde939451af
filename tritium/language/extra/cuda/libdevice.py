"""NVIDIA libdevice functions as `tl.extra.cuda.libdevice.*` (`__nv_expf` for fp32, ...).

Each function is an `extern_elementwise` call whose symbol is picked by the argument
dtypes; the backend links `libdevice.10.bc` when a `__nv_*` symbol is referenced. The
table is data (name -> overloads) so the module stays short; names, overloads and return
types follow upstream's `triton.language.extra.cuda.libdevice`.
"""
from __future__ import annotations

import inspect

from ...builtins_misc import extern, extern_elementwise
from ...dtypes import dtype, int1

_ROUNDINGS = ("rn", "rz", "rd", "ru")


def _sig(*names):
    return tuple(dtype(n) for n in names)


def _std_unary(name, f32=None, f64=None):
    return {_sig("fp32"): (f32 or f"__nv_{name}f", dtype("fp32")),
            _sig("fp64"): (f64 or f"__nv_{name}", dtype("fp64"))}


def _std_binary(name, f32=None, f64=None):
    return {_sig("fp32", "fp32"): (f32 or f"__nv_{name}f", dtype("fp32")),
            _sig("fp64", "fp64"): (f64 or f"__nv_{name}", dtype("fp64"))}


def _std_ternary(name, f32=None, f64=None):
    return {_sig("fp32", "fp32", "fp32"): (f32 or f"__nv_{name}f", dtype("fp32")),
            _sig("fp64", "fp64", "fp64"): (f64 or f"__nv_{name}", dtype("fp64"))}


def _conv(src, symbol, ret):
    return {_sig(src): (symbol, dtype(ret))}


TABLE = {}

for _n in ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos", "cosh",
           "cospi", "erf", "erfc", "erfcinv", "erfcx", "erfinv", "exp", "exp10", "exp2", "expm1",
           "floor", "j0", "j1", "lgamma", "log", "log10", "log1p", "log2", "logb", "nearbyint",
           "normcdf", "normcdfinv", "rcbrt", "rint", "round", "rsqrt", "sin", "sinh", "sinpi",
           "sqrt", "tan", "tanh", "tgamma", "trunc", "y0", "y1", "cyl_bessel_i0",
           "cyl_bessel_i1"):
    TABLE[_n] = _std_unary(_n)
for _n in ("atan2", "copysign", "fdim", "fmod", "hypot", "nextafter", "remainder", "rhypot"):
    TABLE[_n] = _std_binary(_n)
TABLE["fmin"] = _std_binary("fmin")
TABLE["fmax"] = _std_binary("fmax")
TABLE["fma"] = _std_ternary("fma")
TABLE["norm3d"] = _std_ternary("norm3d")
TABLE["rnorm3d"] = _std_ternary("rnorm3d")
TABLE["norm4d"] = {_sig(*["fp32"] * 4): ("__nv_norm4df", dtype("fp32")),
                   _sig(*["fp64"] * 4): ("__nv_norm4d", dtype("fp64"))}
TABLE["rnorm4d"] = {_sig(*["fp32"] * 4): ("__nv_rnorm4df", dtype("fp32")),
                    _sig(*["fp64"] * 4): ("__nv_rnorm4d", dtype("fp64"))}
for _r in _ROUNDINGS:
    TABLE[f"div_{_r}"] = _std_binary("", f"__nv_fdiv_{_r}", f"__nv_ddiv_{_r}")
    TABLE[f"add_{_r}"] = _std_binary("", f"__nv_fadd_{_r}", f"__nv_dadd_{_r}")
    TABLE[f"sub_{_r}"] = _std_binary("", f"__nv_fsub_{_r}", f"__nv_dsub_{_r}")
    TABLE[f"mul_{_r}"] = _std_binary("", f"__nv_fmul_{_r}", f"__nv_dmul_{_r}")
    TABLE[f"rcp_{_r}"] = _std_unary("", f"__nv_frcp_{_r}", f"__nv_drcp_{_r}")
    TABLE[f"sqrt_{_r}"] = _std_unary("", f"__nv_fsqrt_{_r}", f"__nv_dsqrt_{_r}")
    TABLE[f"fma_{_r}"] = _std_ternary("", f"__nv_fmaf_{_r}", f"__nv_fma_{_r}")
    TABLE[f"double2float_{_r}"] = _conv("fp64", f"__nv_double2float_{_r}", "fp32")
    TABLE[f"double2int_{_r}"] = _conv("fp64", f"__nv_double2int_{_r}", "int32")
    TABLE[f"double2uint_{_r}"] = _conv("fp64", f"__nv_double2uint_{_r}", "int32")
    TABLE[f"float2int_{_r}"] = _conv("fp32", f"__nv_float2int_{_r}", "int32")
    TABLE[f"float2uint_{_r}"] = _conv("fp32", f"__nv_float2uint_{_r}", "int32")
    TABLE[f"int2float_{_r}"] = _conv("int32", f"__nv_int2float_{_r}", "fp32")
    TABLE[f"uint2float_{_r}"] = _conv("uint32", f"__nv_uint2float_{_r}", "fp32")
    TABLE[f"float2ll_{_r}"] = _conv("fp32", f"__nv_float2ll_{_r}", "int64")
    TABLE[f"float2ull_{_r}"] = _conv("fp32", f"__nv_float2ull_{_r}", "int64")
    TABLE[f"double2ll_{_r}"] = _conv("fp64", f"__nv_double2ll_{_r}", "int64")
    TABLE[f"double2ull_{_r}"] = _conv("fp64", f"__nv_double2ull_{_r}", "int64")
    TABLE[f"ll2float_{_r}"] = _conv("int64", f"__nv_ll2float_{_r}", "fp32")
    TABLE[f"ull2float_{_r}"] = _conv("uint64", f"__nv_ull2float_{_r}", "fp32")
    TABLE[f"ll2double_{_r}"] = _conv("int64", f"__nv_ll2double_{_r}", "fp64")
    TABLE[f"ull2double_{_r}"] = _conv("uint64", f"__nv_ull2double_{_r}", "fp64")
TABLE.update({
    "int2double_rn": _conv("int32", "__nv_int2double_rn", "fp64"),
    "uint2double_rn": _conv("uint32", "__nv_uint2double_rn", "fp64"),
    "double2loint": _conv("fp64", "__nv_double2loint", "int32"),
    "double2hiint": _conv("fp64", "__nv_double2hiint", "int32"),
    "hiloint2double": {_sig("int32", "int32"): ("__nv_hiloint2double", dtype("fp64"))},
    "int_as_float": _conv("int32", "__nv_int_as_float", "fp32"),
    "float_as_int": _conv("fp32", "__nv_float_as_int", "int32"),
    "uint_as_float": _conv("uint32", "__nv_uint_as_float", "fp32"),
    "float_as_uint": _conv("fp32", "__nv_float_as_uint", "int32"),
    "longlong_as_double": _conv("int64", "__nv_longlong_as_double", "fp64"),
    "double_as_longlong": _conv("fp64", "__nv_double_as_longlong", "int64"),
    "rcp64h": _conv("fp64", "__nv_rcp64h", "fp64"),
    "saturatef": _conv("fp32", "__nv_saturatef", "fp32"),
    "rsqrt_rn": _conv("fp32", "__nv_frsqrt_rn", "fp32"),
    "fast_dividef": {_sig("fp32", "fp32"): ("__nv_fast_fdividef", dtype("fp32"))},
    "fast_powf": {_sig("fp32", "fp32"): ("__nv_fast_powf", dtype("fp32"))},
    "finitef": _conv("fp32", "__nv_finitef", "int32"),
    "isfinited": _conv("fp64", "__nv_isfinited", "int32"),
    "isnan": {_sig("fp32"): ("__nv_isnanf", dtype("int32")), _sig("fp64"): ("__nv_isnand", dtype("int32"))},
    "isinf": {_sig("fp32"): ("__nv_isinff", dtype("int32")), _sig("fp64"): ("__nv_isinfd", dtype("int32"))},
    "signbit": {_sig("fp32"): ("__nv_signbitf", dtype("int32")),
                _sig("fp64"): ("__nv_signbitd", dtype("int32"))},
    "ilogb": {_sig("fp32"): ("__nv_ilogbf", dtype("int32")), _sig("fp64"): ("__nv_ilogb", dtype("int32"))},
    "llrint": {_sig("fp32"): ("__nv_llrintf", dtype("int64")), _sig("fp64"): ("__nv_llrint", dtype("int64"))},
    "llround": {_sig("fp32"): ("__nv_llroundf", dtype("int64")),
                _sig("fp64"): ("__nv_llround", dtype("int64"))},
    "ldexp": {_sig("fp32", "int32"): ("__nv_ldexpf", dtype("fp32")),
              _sig("fp64", "int32"): ("__nv_ldexp", dtype("fp64"))},
    "scalbn": {_sig("fp32", "int32"): ("__nv_scalbnf", dtype("fp32")),
               _sig("fp64", "int32"): ("__nv_scalbn", dtype("fp64"))},
    "yn": {_sig("int32", "fp32"): ("__nv_ynf", dtype("fp32")), _sig("int32", "fp64"): ("__nv_yn", dtype("fp64"))},
    "jn": {_sig("int32", "fp32"): ("__nv_jnf", dtype("fp32")), _sig("int32", "fp64"): ("__nv_jn", dtype("fp64"))},
    "pow": {_sig("fp32", "int32"): ("__nv_powif", dtype("fp32")), _sig("fp64", "int32"): ("__nv_powi", dtype("fp64")),
            _sig("fp32", "fp32"): ("__nv_powf", dtype("fp32")), _sig("fp64", "fp64"): ("__nv_pow", dtype("fp64"))},
    "abs": {_sig("int32"): ("__nv_abs", dtype("int32")), _sig("int64"): ("__nv_llabs", dtype("int64")),
            _sig("fp32"): ("__nv_fabsf", dtype("fp32")), _sig("fp64"): ("__nv_fabs", dtype("fp64"))},
    "fabs": _std_unary("", "__nv_fabsf", "__nv_fabs"),
    "clz": {_sig("int32"): ("__nv_clz", dtype("int32")), _sig("int64"): ("__nv_clzll", dtype("int32"))},
    "popc": {_sig("int32"): ("__nv_popc", dtype("int32")), _sig("int64"): ("__nv_popcll", dtype("int32"))},
    "ffs": {_sig("int32"): ("__nv_ffs", dtype("int32")), _sig("int64"): ("__nv_ffsll", dtype("int32"))},
    "brev": {_sig("int32"): ("__nv_brev", dtype("int32")), _sig("int64"): ("__nv_brevll", dtype("int64"))},
    "byte_perm": {_sig("int32", "int32", "int32"): ("__nv_byte_perm", dtype("int32"))},
    "mulhi": {_sig("int32", "int32"): ("__nv_mulhi", dtype("int32")),
              _sig("uint32", "uint32"): ("__nv_umulhi", dtype("uint32")),
              _sig("int64", "int64"): ("__nv_mul64hi", dtype("int64")),
              _sig("uint64", "uint64"): ("__nv_umul64hi", dtype("uint64"))},
    "umulhi": {_sig("uint32", "uint32"): ("__nv_umulhi", dtype("uint32")),
               _sig("uint64", "uint64"): ("__nv_umul64hi", dtype("uint64"))},
    "mul24": {_sig("int32", "int32"): ("__nv_mul24", dtype("int32")),
              _sig("uint32", "uint32"): ("__nv_umul24", dtype("uint32"))},
    "sad": {_sig("int32", "int32", "uint32"): ("__nv_sad", dtype("int32")),
            _sig("uint32", "uint32", "uint32"): ("__nv_usad", dtype("uint32"))},
    "hadd": {_sig("int32", "int32"): ("__nv_hadd", dtype("int32")),
             _sig("uint32", "uint32"): ("__nv_uhadd", dtype("uint32"))},
    "rhadd": {_sig("int32", "int32"): ("__nv_rhadd", dtype("int32")),
              _sig("uint32", "uint32"): ("__nv_urhadd", dtype("uint32"))},
    "min": {_sig("int32", "int32"): ("__nv_min", dtype("int32")),
            _sig("uint32", "uint32"): ("__nv_umin", dtype("uint32")),
            _sig("int64", "int64"): ("__nv_llmin", dtype("int64")),
            _sig("uint64", "uint64"): ("__nv_ullmin", dtype("uint64")),
            _sig("fp32", "fp32"): ("__nv_fminf", dtype("fp32")),
            _sig("fp64", "fp64"): ("__nv_fmin", dtype("fp64"))},
    "max": {_sig("int32", "int32"): ("__nv_max", dtype("int32")),
            _sig("uint32", "uint32"): ("__nv_umax", dtype("uint32")),
            _sig("int64", "int64"): ("__nv_llmax", dtype("int64")),
            _sig("uint64", "uint64"): ("__nv_ullmax", dtype("uint64")),
            _sig("fp32", "fp32"): ("__nv_fmaxf", dtype("fp32")),
            _sig("fp64", "fp64"): ("__nv_fmax", dtype("fp64"))},
})
for _n in ("sinf", "cosf", "log2f", "logf", "expf", "tanf", "exp10f", "log10f"):
    TABLE["fast_" + _n] = _conv("fp32", f"__nv_fast_{_n}", "fp32")

# Predicates upstream hands back as booleans rather than libdevice's int.
_RETURNS_BOOL = {"isnan", "isinf", "finitef"}


def _make(name: str, overloads: dict):
    nargs = len(next(iter(overloads)))
    to_bool = name in _RETURNS_BOOL

    def fn(*args, _semantic=None):
        if len(args) != nargs:
            raise TypeError(f"{name}() takes {nargs} positional arguments but {len(args)} "
                            "were given")
        ret = extern_elementwise("", "", list(args), overloads, is_pure=True, _semantic=_semantic)
        return _semantic.cast(ret, int1) if to_bool else ret

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    params = [inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_OR_KEYWORD)
              for i in range(nargs)]
    params.append(inspect.Parameter("_semantic", inspect.Parameter.KEYWORD_ONLY, default=None))
    fn.__signature__ = inspect.Signature(params)
    fn.__doc__ = "libdevice " + ", ".join(sym for sym, _ in overloads.values())
    return extern(fn)


for _name, _overloads in TABLE.items():
    globals()[_name] = _make(_name, _overloads)

FAST_TANHF_ASM = "tanh.approx.f32 $0, $1;"


@extern
def fast_tanhf(arg0, _semantic=None):
    """tanh by the hardware's approximation (libdevice has no fast tanh: PTX's tanh.approx)."""
    from ...builtins_misc import inline_asm_elementwise
    from ...dtypes import float32
    return inline_asm_elementwise(FAST_TANHF_ASM, "=f,f", [arg0], dtype=float32, is_pure=True,
                                  pack=1, _semantic=_semantic)


isfinite = globals()["finitef"]  # a spelling users reach for; libdevice calls it finitef

__all__ = sorted(TABLE) + ["isfinite", "fast_tanhf"]
