// reqd.cl: OpenCL kernels with reqd_work_group_size, the one way a code object
// records a workgroup size exactly (.reqd_workgroup_size): occupancy can then
// be limited by the workgroup term alone. Built straight to a code object
// (no bundle), as an OpenCL runtime would.
__kernel __attribute__((reqd_work_group_size(576, 1, 1))) void wg_reqd_576(__global float *o) {
  o[__builtin_amdgcn_workitem_id_x()] = 1.0f;
}

__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void wg_reqd_8x8(__global float *o) {
  __local float l[64];
  unsigned x = __builtin_amdgcn_workitem_id_x(), y = __builtin_amdgcn_workitem_id_y();
  l[y * 8 + x] = (float)x;
  __builtin_amdgcn_s_barrier();
  o[y * 8 + x] = l[x * 8 + y];
}

__kernel __attribute__((reqd_work_group_size(320, 1, 1))) void wg_reqd_320_lds(__global float *o) {
  __local float l[4096];
  unsigned x = __builtin_amdgcn_workitem_id_x();
  l[x] = (float)x;
  __builtin_amdgcn_s_barrier();
  o[x] = l[4095 - x];
}
