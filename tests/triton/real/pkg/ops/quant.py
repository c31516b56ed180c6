from pkg._triton_kernels.quant import _act_quant_kernel


def act_quant(x, y):
    n_rows = x.shape[0]
    _act_quant_kernel[(n_rows,)](x, *x.stride(), y, *y.stride(), n_rows, BLOCK=256)  # KWT:LAUNCH quant
