// kw_host.h: host-job capture: launch sites (<<<>>>, hipLaunchKernelGGL,
// hipLaunchKernel) with their configuration, arguments, guards and chain of
// instantiation; host entry points (extern "C", pybind11 m.def); and the host
// call edges, with guards, that connect entries to launches.
#ifndef KW_HOST_H
#define KW_HOST_H

#include "kw_context.h"

namespace kwalk {

void captureHost(CaptureContext &C);

} // namespace kwalk

#endif
