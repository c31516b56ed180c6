/* kwco_yaml.h: the code-object library's facts as YAML for its tests
 * (kwco-dump --yaml, the codeobj fuzz target), written through kwalk's one
 * YAML writer (sidecar/kw_yaml_emit.h). The shape follows the sidecar's
 * kernels[].archs.<arch> and adds what only these tests compare with
 * llvm-readelf / llvm-objdump / llvm-addr2line: the code objects, code
 * address and size, kernargs, branches and labels, occupancy terms, the
 * inlined functions of line rows. An unknown value is null. */
#ifndef KWCO_YAML_H
#define KWCO_YAML_H

#include <stdbool.h>

#include "codeobj/kw_codeobj.h"

/* The document: input, code_objects, notes, kernels (one entry per symbol in
 * order of first appearance, its archs in object order; the same arch twice
 * is keyed "arch#object"). with_isa disassembles (flags: KW_CO_WANT_*). */
kw_status kwco_write_yaml(kw_buf *out, kw_co_set *set, bool with_isa, unsigned flags,
                          kw_err *err);

#endif
