from pkg._triton_kernels.gemm import _gemm_a8w8_kernel, _pa_decode_kernel, _table_kernel, silu_tuned

_TABLE = {"bf16": _table_kernel}


def gemm_a8w8(a, b, c, m, n, k):
    impl = _gemm_a8w8_kernel
    grid = ((m + 63) // 64,)
    impl[grid](a, b, c, m, n, k, BLOCK_M=64, BLOCK_K=128)  # KWT:LAUNCH gemm


def pa_decode(q, kc, out, n):
    kernel = _pa_decode_kernel
    kernel[(n,)](q, kc, out, n)  # KWT:LAUNCH pa


def silu_and_mul(x, y, n):
    silu_tuned[lambda META: (triton_cdiv(n, META["BLOCK"]),)](x, y, n)  # KWT:LAUNCH silu


def triton_cdiv(a, b):
    return (a + b - 1) // b


def table_op(x, dtype):
    _TABLE[  # KWT:LAUNCH table
        dtype][(1,)](x, B=32)
