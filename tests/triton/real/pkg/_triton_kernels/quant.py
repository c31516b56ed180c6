# quant.py: a quant-shaped kernel launched with two starred arguments
# (aiter's moe/quant_moe.py). Markers: `# KWT:KIND id`.
import triton
import triton.language as tl


@triton.jit
def _act_quant_kernel(x_ptr, sx0, sx1, sx2, y_ptr, sy0, sy1, sy2, n_rows,  # KWT:JIT quant
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * sx0 + offs * sx2, mask=(offs < sx1) & (row < n_rows))
    tl.store(y_ptr + row * sy0 + offs * sy2, x, mask=offs < sy1)
