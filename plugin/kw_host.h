// kw_host.h: host-job capture: launch sites (<<<>>>, hipLaunchKernelGGL,
// hipLaunchKernel) with their configuration, arguments, guards and chain of
// instantiation; host entry points (extern "C", pybind11 m.def, TORCH_LIBRARY
// m.def/m.impl, outermost visible C++ functions, annotated functions); and
// the host call edges, with guards, that connect entries to launches.
#ifndef KW_HOST_H
#define KW_HOST_H

#include "kw_context.h"

#include <set>
#include <string>

namespace kwalk {

// EntryNames: qualified names (no template arguments) of functions that are
// entry points by annotation (annotations/entrypoints/functions.txt).
void captureHost(CaptureContext &C, const std::set<std::string> &EntryNames);

} // namespace kwalk

#endif
