// kw_moe_opus_entry.hip: the fixture's real aiter opus MoE sorting header
// (moe_sorting_opus.h), whose one kernel template opus_moe_sorting_entry<Kernel,
// Kargs> runs a functor's operator()(Kargs), instantiated here for two of its
// functors, each launched through the header's own make_kernel/launch_kernel
// as its dispatch macros do. aiter.kernel_seed compiles it with the plugin and
// checks that `kwalk map --kernels` names, groups and locates each kernel by
// its functor (tests/aiter/test_kfamily.py). Written for kwalk's tests; the
// header is the fixture's.
#define MOE_SORTING_OPUS_IMPL
#include "moe_sorting_opus.h"

extern "C" float kw_moe_opus_sort(moe_sorting_opus_args a, hipStream_t st, int clear) {
  aiter::stream_config s{st};
  if (clear) {
    using problem = aiter::MoeSortingClearWorkspaceProblem<false, 1024, 1>;
    using kernel = aiter::MoeSortingClearWorkspaceKernel<problem>;
    auto kargs = kernel::MakeKargs(a);
    return aiter::launch_kernel(
        s, aiter::make_kernel(kernel{}, kernel::GridSize(a), kernel::BlockSize(a), 0, kargs));
  }
  using problem = aiter::MoeSortingProblemEx<opus::index_t, float, 8, true, false, false>;
  using kernel = aiter::MoeSortingKernel<problem>;
  auto kargs = kernel::MakeKargs(a);
  return aiter::launch_kernel(s, aiter::make_kernel(kernel{}, kernel::GridSize(a),
                                                    kernel::BlockSize(a),
                                                    kernel::GetSmemSize(a), kargs));
}
