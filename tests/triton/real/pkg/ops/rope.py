from pkg._triton_kernels.rope import _rope_fwd_kernel


def rope_fwd(x, out):
    s, h, d = x.shape
    grid = (s, h)
    _rope_fwd_kernel[grid](  # KWT:LAUNCH rope
        x, out, *x.stride(), s, h,
        D=d, BLOCK_S=16,
    )
