// kw_ops.h: host functions of the corpus that the pybind11 translation unit
// (pybind/rmsnorm_quant_pybind.hip) binds. Defined in rmsnorm_quant_kernels.hip.
#pragma once

#include <cstdint>

// pybind-facing wrapper: raw device addresses as integers, no torch.
void add_rmsnorm_quant_py(uintptr_t out, uintptr_t row_scale, uintptr_t residual_out,
                          uintptr_t input, uintptr_t residual_in, uintptr_t weight,
                          int64_t num_rows, int64_t hidden, double epsilon, int64_t in_dtype,
                          bool use_fp8, uintptr_t stream);
