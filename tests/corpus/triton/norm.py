# norm.py: kwalk's Triton corpus, an RMS norm written in aiter's style (a
# persistent grid of NUM_PRGMS programs striding over the rows, one row held
# in registers as a BLOCK_SIZE vector) and the wrapper that launches it.
# Markers: `# KWT:JIT <id>` on the def of a @triton.jit function,
# `# KWT:LAUNCH <id>` on the line a kernel[grid](...) call starts.
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(  # KWT:JIT norm
    x_ptr,
    w_ptr,
    y_ptr,
    x_row_stride,
    y_row_stride,
    n_rows,
    n_cols,
    eps,
    BLOCK_SIZE: tl.constexpr,
    NUM_PRGMS: tl.constexpr,
    USE_WEIGHT: tl.constexpr = True,
):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    if USE_WEIGHT:
        w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    for row in tl.range(pid, n_rows, NUM_PRGMS):
        x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
        mean_sq = tl.sum(x * x, axis=0) / n_cols
        y = x * tl.rsqrt(mean_sq + eps)
        if USE_WEIGHT:
            y = y * w
        tl.store(y_ptr + row * y_row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm(x, weight, eps=1e-6, num_prgms=None, num_warps=4):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    blk_size = triton.next_power_of_2(n_cols)
    num_prgms = num_prgms or n_rows
    grid = (min(n_rows, num_prgms),)
    _rms_norm_kernel[grid](  # KWT:LAUNCH norm
        x,
        weight,
        y,
        x.stride(0),
        y.stride(0),
        n_rows,
        n_cols,
        eps,
        BLOCK_SIZE=blk_size,
        NUM_PRGMS=num_prgms,
        num_warps=num_warps,
    )
    return y
