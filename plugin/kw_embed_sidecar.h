// kw_embed_sidecar.h: the embed mode's one change to the host object: the sidecar as
// a record (sidecar/kw_sidecar_embed.h) in a non-allocated section, added to
// the host module as module-level assembly before clang's back end runs.
#ifndef KW_EMBED_SIDECAR_H
#define KW_EMBED_SIDECAR_H

extern "C" {
#include "sidecar/kw_sidecar.h"
}

namespace llvm {
class Module;
}

namespace kwalk {

// Add Doc's record to M (an ELF host module). KW_ERR with Err set when the
// module is not ELF or the record cannot be made; M is then unchanged.
kw_status embedSidecar(llvm::Module &M, const kw_sidecar &Doc, kw_err *Err);

} // namespace kwalk

#endif
