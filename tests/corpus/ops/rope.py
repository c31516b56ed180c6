# ops/rope.py: Python entry point of the RoPE op (ctypes binding), in the
# style of aiter/ops/rope.py. Part of the kwalk test corpus: `# KW:PYOP <id>`
# marks each op's def line. Importable without aiter.

_REGISTRY = {}


def compile_ops(module, fc_name=None, ffi_type="pybind"):
    """Stand-in for aiter.jit.core.compile_ops: records the binding."""

    def decorate(fn):
        _REGISTRY[fn.__name__] = (module, fc_name or fn.__name__, ffi_type)
        return fn

    return decorate


@compile_ops("module_rope", fc_name="kw_rope_sbhd_fwd", ffi_type="ctypes")
def rope_sbhd_fwd(  # KW:PYOP rope.rope_sbhd_fwd
    query: int,
    key: int,
    cos_sin_cache: int,
    positions: int,
    seq_len: int,
    batch: int,
    num_heads: int,
    num_kv_heads: int,
    head_size: int,
    rot_dim: int,
    dtype: int,
    is_neox: int,
    stream: int = 0,
) -> int: ...
