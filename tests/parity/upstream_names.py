"""Names upstream Triton 3.6's public modules export (their `__all__` and what its own tests
and torch import), module -> names."""
NAMES = {
    "triton.runtime.build": ["compile_module_from_src", "compile_so_from_src",
                             "compile_module_from_file", "compile_so_from_file", "platform_key"],
    "triton.runtime._async_compile": ["AsyncCompileMode", "FutureKernel", "active_mode"],
    "triton": ["AsyncCompileMode", "autotune", "cdiv", "CompilationError", "compile", "Config", "constexpr_function",
               "heuristics", "InterpreterError", "jit", "JITFunction", "KernelInterface",
               "language", "MockTensor", "must_use_result", "next_power_of_2", "OutOfResources",
               "reinterpret", "runtime", "set_allocator", "TensorWrapper", "TritonError",
               "testing", "tools", "knobs", "__version__"],
    "triton.language": """
        PropagateNan TRITON_MAX_TENSOR_NUMEL load_tensor_descriptor
        store_tensor_descriptor make_tensor_descriptor tensor_descriptor abs add advance
        arange argmax argmin associative_scan assume atomic_add atomic_and atomic_cas
        atomic_max atomic_min atomic_or atomic_xchg atomic_xor bfloat16 bitonic_merge
        block_type broadcast broadcast_to cat cast cdiv ceil clamp condition const
        constexpr constexpr_type cos cumprod cumsum debug_barrier device_assert
        device_print div_rn dot dot_scaled dtype erf exp exp2 expand_dims extra fdiv flip
        float16 float32 float64 float8e4b15 float8e4nv float8e4b8 float8e5 float8e5b16
        floor fma full gather histogram inline_asm_elementwise interleave int1 int16 int32
        int64 int8 join load log log2 make_block_ptr map_elementwise math max
        max_constancy max_contiguous maximum min minimum multiple_of num_programs
        pair_uniform_to_normal permute philox philox_impl pi32_t pointer_type program_id
        rand rand4x randint randint4x randn randn4x range ravel reduce reduce_or reshape
        rsqrt slice sigmoid sin softmax sort split sqrt sqrt_rn static_assert static_print
        static_range store sum swizzle2d target_info tensor topk trans tuple uint16 uint32
        uint64 uint8 uint_to_uniform_float umulhi view void where xor_sum zeros zeros_like
        squeeze unsqueeze
    """.split(),
    "triton.language.target_info": ["current_target", "is_cuda", "cuda_capability_geq", "is_hip"],
    "triton.language.extra.cuda": ["libdevice", "globaltimer", "num_threads", "num_warps", "smid",
                                   "convert_custom_float8_sm70", "convert_custom_float8_sm80",
                                   "gdc_launch_dependents", "gdc_wait"],
    "triton.language.extra.libdevice": ["fast_tanhf", "fast_expf", "fast_logf", "tanh", "exp"],
    "triton.language.standard": ["_log2"],
    "triton.runtime": ["driver", "Config", "Heuristics", "autotune", "heuristics", "JITFunction",
                       "KernelInterface", "reinterpret", "TensorWrapper", "OutOfResources",
                       "InterpreterError", "MockTensor", "Autotuner"],
    "triton.runtime.jit": ["JITFunction", "KernelInterface", "TensorWrapper", "reinterpret",
                           "type_canonicalisation_dict", "MockTensor", "jit", "ConstexprFunction",
                           "constexpr_function", "native_specialize_impl", "mangle_type"],
    "triton.runtime.interpreter": ["InterpretedFunction", "GridExecutor", "TensorHandle",
                                   "InterpreterBuilder", "interpreter_builder",
                                   "InterpreterOptions", "InterpreterError", "_implicit_cvt",
                                   "_patch_lang", "_get_np_dtype"],
    "triton._C.libtriton": ["ir", "native_specialize_impl"],
    "triton._C.libtriton.ir": ["context", "load_dialects", "module", "operation", "value",
                               "block", "region", "parse_mlir_module"],
    "triton._utils": ["find_paths_if", "get_iterable_path", "set_iterable_path",
                      "apply_with_path", "is_iterable", "canonicalize_dtype",
                      "canonicalize_ptr_dtype", "type_canonicalisation_dict",
                      "get_primitive_bitwidth", "is_namedtuple", "validate_block_shape",
                      "TRITON_MAX_TENSOR_NUMEL", "is_power_of_two"],
    "triton.runtime.autotuner": ["Autotuner", "Config", "Heuristics", "OutOfResources",
                                 "autotune", "heuristics"],
    "triton.runtime.driver": ["driver"],
    "triton.runtime.errors": ["InterpreterError", "OutOfResources", "PTXASError"],
    "triton.runtime.cache": ["CacheManager", "FileCacheManager", "RemoteCacheBackend",
                             "RedisRemoteCacheBackend", "RemoteCacheManager", "get_cache_manager",
                             "get_override_manager", "get_dump_manager", "make_so_cache_key",
                             "triton_key", "_base32", "knobs"],
    "triton.testing": ["assert_close", "Benchmark", "do_bench", "do_bench_cudagraph", "Mark",
                       "perf_report", "get_dram_gbps", "get_max_tensorcore_tflops",
                       "get_max_simd_tflops", "nvsmi", "set_gpu_clock"],
    "triton.compiler": ["compile", "make_backend", "ASTSource", "IRSource", "CompiledKernel",
                        "CompilationError", "LazyDict"],
    "triton.compiler.compiler": ["compile", "ASTSource", "IRSource", "CompiledKernel",
                                 "make_backend", "triton_key"],
    "triton.compiler.errors": ["CompilationError", "CompileTimeAssertionFailure",
                               "UnsupportedLanguageConstruct"],
    "triton.errors": ["TritonError"],
    "triton.knobs": ["base_knobs", "env_str", "env_bool", "env_opt_str", "env_opt_bool",
                     "env_int", "env_class", "HookChain", "CompileTimes", "refresh_knobs",
                     "propagate_env", "env", "build", "redis", "cache", "compilation",
                     "autotuning", "runtime", "language", "nvidia", "amd", "proton"],
    "triton.backends": ["backends"],
    "triton.backends.compiler": ["GPUTarget", "BaseBackend", "Language"],
    "triton.backends.driver": ["DriverBase", "GPUDriver"],
    "triton.tools.mxfp": ["MXFP4Tensor", "MXScaleTensor"],
    "triton.tools": ["LinearLayout"],
    "triton.profiler": ["start", "activate", "deactivate", "finalize", "scope", "enter_scope",
                        "exit_scope", "profile", "cpu_timed_scope"],
    "triton.profiler.viewer": ["parse", "print_tree"],
    "triton.profiler.language": ["enter_scope", "exit_scope"],
    "triton.tools.compile": [],
    "triton.tools.link": [],
    "triton.tools.disasm": [],
    "triton._internal_testing": ["is_interpreter", "is_cuda", "is_hip", "is_hopper",
                                 "is_hopper_or_newer", "is_ampere_or_newer", "is_blackwell",
                                 "numpy_random", "to_triton", "to_numpy", "torch_dtype_name",
                                 "str_to_triton_dtype", "int_dtypes", "uint_dtypes",
                                 "float_dtypes", "dtypes", "dtypes_with_bfloat16",
                                 "torch_float8_dtypes", "supports_tma", "tma_skip_msg",
                                 "unwrap_tensor", "_fresh_knobs_impl", "get_arch",
                                 "default_alloc_fn"],
}
