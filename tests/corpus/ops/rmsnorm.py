# ops/rmsnorm.py: Python entry points of the rmsnorm-quant op, in the style of
# aiter/ops/*.py. Part of the kwalk test corpus: `# KW:PYOP <id>` marks each
# op's def line. Importable without aiter: compile_ops below only records
# which compiled module and function an op binds to.

_REGISTRY = {}


def compile_ops(module, fc_name=None, ffi_type="pybind"):
    """Stand-in for aiter.jit.core.compile_ops: records the binding."""

    def decorate(fn):
        _REGISTRY[fn.__name__] = (module, fc_name or fn.__name__, ffi_type)
        return fn

    return decorate


@compile_ops("module_rmsnorm_quant", fc_name="add_rmsnorm_quant")
def add_rmsnorm_quant(  # KW:PYOP rmsnorm.add_rmsnorm_quant
    out: int,
    row_scale: int,
    residual_out: int,
    input: int,
    residual_in: int,
    weight: int,
    num_rows: int,
    hidden: int,
    epsilon: float,
    in_dtype: int,
    use_fp8: bool,
    stream: int = 0,
) -> None: ...


@compile_ops("module_rmsnorm_quant", fc_name="kw_add_rmsnorm_quant", ffi_type="ctypes")
def add_rmsnorm_quant_ctypes(  # KW:PYOP rmsnorm.add_rmsnorm_quant_ctypes
    out: int,
    row_scale: int,
    residual_out: int,
    input: int,
    residual_in: int,
    weight: int,
    num_rows: int,
    hidden: int,
    epsilon: float,
    in_dtype: int,
    use_fp8: int,
    stream: int = 0,
) -> int: ...


@compile_ops("module_rmsnorm_quant", fc_name="kw_add_rmsnorm_quant_bf16_fp8", ffi_type="ctypes")
def add_rmsnorm_quant_bf16_fp8(  # KW:PYOP rmsnorm.add_rmsnorm_quant_bf16_fp8
    out: int,
    row_scale: int,
    residual_out: int,
    input: int,
    residual_in: int,
    weight: int,
    num_rows: int,
    hidden: int,
    epsilon: float,
    stream: int = 0,
) -> int: ...
