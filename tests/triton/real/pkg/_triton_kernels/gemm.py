# gemm.py: kernels whose constexprs come from @triton.heuristics, an
# autotuner's triton.Config, the def's defaults; a kernel launched through a
# dispatch table and one compiled directly. Markers: `# KWT:KIND id`.
import triton
import triton.language as tl


@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})  # KWT:HEUR gemm
@triton.jit
def _gemm_a8w8_kernel(a_ptr, b_ptr, c_ptr, M, N, K,  # KWT:JIT gemm
                      BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr,
                      GROUP_M: tl.constexpr = 4):
    pid = tl.program_id(0)
    offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    a = tl.load(a_ptr + offs, mask=offs < M)
    if EVEN_K:
        a = a + GROUP_M
    tl.store(c_ptr + offs, a, mask=offs < N)


@triton.autotune(configs=[triton.Config({"KV_BLOCK": 16}, num_warps=4),  # KWT:AUTOTUNE pa
                          triton.Config({"KV_BLOCK": 32}, num_warps=8)], key=["n"])
@triton.jit
def _pa_decode_kernel(q_ptr, k_ptr, out_ptr, n, KV_BLOCK: tl.constexpr,  # KWT:JIT pa
                      HEAD: tl.constexpr = 128):
    offs = tl.arange(0, KV_BLOCK)
    q = tl.load(q_ptr + offs, mask=offs < n)
    k = tl.load(k_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, q * k + HEAD, mask=offs < n)


@triton.jit
def _silu_mul_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):  # KWT:JIT silu
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=offs < n)


silu_tuned = triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=8)],
                             key=["n"])(_silu_mul_kernel)


@triton.jit
def _probe_kernel(x_ptr, B: tl.constexpr):  # KWT:JIT probe
    tl.store(x_ptr + tl.arange(0, B), tl.zeros([B], tl.float32))


@triton.jit
def _table_kernel(x_ptr, B: tl.constexpr):  # KWT:JIT table
    tl.store(x_ptr + tl.arange(0, B), tl.full([B], 1.0, tl.float32))
