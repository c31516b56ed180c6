# ops/cache.py: Python entry points of the KV-cache write ops, in the style
# of aiter/ops/cache.py. Part of the kwalk test corpus: `# KW:PYOP <id>` marks
# each op's def line. Importable without aiter.

_REGISTRY = {}


def compile_ops(module, fc_name=None, ffi_type="pybind"):
    """Stand-in for aiter.jit.core.compile_ops: records the binding."""

    def decorate(fn):
        _REGISTRY[fn.__name__] = (module, fc_name or fn.__name__, ffi_type)
        return fn

    return decorate


@compile_ops("module_cache", fc_name="reshape_and_cache_with_per_token_quant")
def reshape_and_cache_with_per_token_quant(  # KW:PYOP cache.reshape_and_cache_with_per_token_quant
    key: int,
    value: int,
    key_cache: int,
    value_cache: int,
    k_dequant_scales: int,
    v_dequant_scales: int,
    slot_mapping: int,
    num_tokens: int,
    num_heads: int,
    head_size: int,
    block_size: int,
    num_slots: int,
    dtype: int,
    use_fp8: bool,
    stream: int = 0,
) -> int: ...


@compile_ops("module_cache", fc_name="reshape_and_cache")
def reshape_and_cache(  # KW:PYOP cache.reshape_and_cache
    key: int,
    value: int,
    key_cache: int,
    value_cache: int,
    slot_mapping: int,
    num_tokens: int,
    num_heads: int,
    head_size: int,
    block_size: int,
    dtype: int,
    stream: int = 0,
) -> int: ...


@compile_ops("module_cache", fc_name="kw_reshape_and_cache", ffi_type="ctypes")
def reshape_and_cache_ctypes(  # KW:PYOP cache.reshape_and_cache_ctypes
    key: int,
    value: int,
    key_cache: int,
    value_cache: int,
    k_dequant_scales: int,
    v_dequant_scales: int,
    slot_mapping: int,
    num_tokens: int,
    num_heads: int,
    head_size: int,
    block_size: int,
    num_slots: int,
    dtype: int,
    cache_dtype: int,
    stream: int = 0,
) -> int: ...
