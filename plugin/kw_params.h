// kw_params.h: a kernel's parameters for the sidecar: names (a pack's
// elements by position and by the parameter they are forwarded to) and the
// fields of a struct passed by value (kw_params.cpp).
#ifndef KW_PARAMS_H
#define KW_PARAMS_H

#include "kw_context.h"

namespace kwalk {

// Appends FD's parameters to K.params.
void captureParams(CaptureContext &C, const clang::FunctionDecl *FD, kw_kernel &K);

} // namespace kwalk

#endif
