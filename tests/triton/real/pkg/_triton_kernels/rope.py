# rope.py: a RoPE-shaped kernel launched as aiter's rope.py launches it
# (positional arguments after *x.stride()). Markers: `# KWT:KIND id`.
import triton
import triton.language as tl


@triton.jit
def _rope_fwd_kernel(x_ptr, out_ptr, stride_s, stride_h, stride_d, S, H,  # KWT:JIT rope
                     D: tl.constexpr, BLOCK_S: tl.constexpr, HAVE_NOPE: tl.constexpr = False):
    s = tl.program_id(0)
    h = tl.program_id(1)
    offs = tl.arange(0, D)
    base = s * stride_s + h * stride_h
    x = tl.load(x_ptr + base + offs * stride_d, mask=s < S)
    if HAVE_NOPE:
        x = x * 2
    tl.store(out_ptr + base + offs * stride_d, x, mask=h < H)
