# quant.py: kwalk's Triton corpus, a dynamic per-token int8 quant in aiter's
# style: one program per row, a per-row max-abs reduction gives the row's
# scale, then the row is scaled, clamped and stored as int8.
# Markers: see norm.py.
import torch
import triton
import triton.language as tl


@triton.jit
def _dynamic_per_token_quant_kernel(  # KWT:JIT quant
    x_ptr,
    y_ptr,
    scale_ptr,
    x_row_stride,
    n_cols,
    NUM_COL_POW2: tl.constexpr,
    DTYPE_MAX: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, NUM_COL_POW2)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    row_max = tl.max(tl.abs(x), axis=-1)
    scale = tl.maximum(row_max, 1e-10) / DTYPE_MAX
    q = tl.clamp(x / scale, -DTYPE_MAX, DTYPE_MAX)
    tl.store(y_ptr + row * n_cols + cols, q.to(y_ptr.dtype.element_ty), mask=mask)
    tl.store(scale_ptr + row, scale)


def dynamic_per_token_quant_i8(x, num_warps=8):
    n_rows, n_cols = x.shape
    y = torch.empty((n_rows, n_cols), dtype=torch.int8, device=x.device)
    scale = torch.empty((n_rows,), dtype=torch.float32, device=x.device)
    _dynamic_per_token_quant_kernel[(n_rows,)](  # KWT:LAUNCH quant
        x, y, scale, x.stride(0), n_cols,
        NUM_COL_POW2=triton.next_power_of_2(n_cols), DTYPE_MAX=127.0, num_warps=num_warps,
    )
    return y, scale
