// rmsnorm_quant_pybind.hip: the pybind11 module of the rmsnorm-quant op, a
// thin registration TU as in aiter's csrc/pybind/. The bound function is
// defined in ../rmsnorm_quant_kernels.hip (another translation unit).
#include <pybind11/pybind11.h>

#include "kw_ops.h"

PYBIND11_MODULE(module_rmsnorm_quant, m) {
  m.doc() = "kwalk corpus: fused add + RMSNorm + quant";
  m.def("add_rmsnorm_quant", &add_rmsnorm_quant_py, "fused add + RMSNorm + per-row quant",  // KW:ENTRY rmsnorm.py_add_rmsnorm_quant
        pybind11::arg("out"), pybind11::arg("row_scale"), pybind11::arg("residual_out"),
        pybind11::arg("input"), pybind11::arg("residual_in"), pybind11::arg("weight"),
        pybind11::arg("num_rows"), pybind11::arg("hidden"), pybind11::arg("epsilon"),
        pybind11::arg("in_dtype"), pybind11::arg("use_fp8"), pybind11::arg("stream"));
}
