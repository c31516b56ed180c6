# autotuned.py: kwalk's Triton corpus, an autotuned element-wise SiLU-and-mul
# (aiter's activation style) with two configs: each config is its own
# specialization (BLOCK_SIZE, num_warps, waves_per_eu differ).
# Markers: see norm.py.
import torch
import triton
import triton.language as tl

CONFIGS = [
    triton.Config({"BLOCK_SIZE": 256}, num_warps=4, num_stages=1),
    triton.Config({"BLOCK_SIZE": 1024, "waves_per_eu": 2}, num_warps=8, num_stages=1),
]


@triton.autotune(configs=CONFIGS, key=["n_elements"])
@triton.jit
def _silu_and_mul_kernel(  # KWT:JIT silu
    x_ptr,
    g_ptr,
    out_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    out = x * tl.sigmoid(x) * g
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


def silu_and_mul(x, g):
    out = torch.empty_like(x)
    n_elements = out.numel()
    grid = lambda META: (triton.cdiv(n_elements, META["BLOCK_SIZE"]),)  # noqa: E731
    _silu_and_mul_kernel[grid](x, g, out, n_elements)  # KWT:LAUNCH silu
    return out
