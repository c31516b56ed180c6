# ops/sample.py: Python entry points of the sampling ops (ctypes bindings), in
# the style of aiter/ops/sample.py. Part of the kwalk test corpus:
# `# KW:PYOP <id>` marks each op's def line. Importable without aiter.

_REGISTRY = {}


def compile_ops(module, fc_name=None, ffi_type="pybind"):
    """Stand-in for aiter.jit.core.compile_ops: records the binding."""

    def decorate(fn):
        _REGISTRY[fn.__name__] = (module, fc_name or fn.__name__, ffi_type)
        return fn

    return decorate


@compile_ops("module_sample", fc_name="kw_sample", ffi_type="ctypes")
def mix_sample(  # KW:PYOP sample.mix_sample
    logits: int,
    exponentials: int,
    out_tokens: int,
    batch: int,
    vocab: int,
    temperature: float,
    dtype: int,
    stream: int = 0,
) -> int: ...


@compile_ops("module_sample", fc_name="kw_greedy_sample", ffi_type="ctypes")
def greedy_sample(  # KW:PYOP sample.greedy_sample
    logits: int,
    out_tokens: int,
    batch: int,
    vocab: int,
    dtype: int,
    stream: int = 0,
) -> int: ...
