/* kw_co_llvm.h: LLVM's C disassembler API, looked up at run time instead of
 * linked. Inside clang (the plugin) the functions are the host's own; in the
 * kwalk command libLLVM is opened on first use, so the commands that never
 * disassemble (index, list, render, map, trace) neither load it nor pay its
 * start-up (about 20 ms of relocations and static constructors), and a
 * missing libLLVM costs only the ISA. */
#ifndef KW_CO_LLVM_H
#define KW_CO_LLVM_H

#include <llvm-c/Disassembler.h>

#include <stdbool.h>

#include "common/kw_err.h"

typedef struct kw_co_llvm {
    LLVMDisasmContextRef (*create)(const char *triple, const char *cpu, const char *features,
                                   void *info, int tag_type, LLVMOpInfoCallback get_op_info,
                                   LLVMSymbolLookupCallback symbol_lookup);
    size_t (*disasm)(LLVMDisasmContextRef dc, uint8_t *bytes, uint64_t size, uint64_t pc,
                     char *out, size_t out_size);
    void (*dispose)(LLVMDisasmContextRef dc);
    unsigned major; /* LLVMGetVersion's major (0 when the library has none) */
} kw_co_llvm;

/* Look only in the process, never open a libLLVM: for the plugin, where a
 * second LLVM next to clang's own must not be loaded. Call before any use. */
void kw_co_llvm_process_only(void);

/* The API with the AMDGPU target registered, or NULL with err filled
 * ("cannot load LLVM's disassembler (...): ..."). Thread-safe; looked up
 * once per process. */
const kw_co_llvm *kw_co_llvm_get(kw_err *err);

/* LLVM's demangling of symbol (llvm::itaniumDemangle: llvm-cxxfilt's), from
 * the same libLLVM (the process's own inside clang), malloc'd; NULL when
 * that libLLVM cannot be found (*have false) or does not demangle symbol. */
char *kw_co_llvm_demangle(const char *symbol, bool *have);

/* kw_co_disasm.c: whether the n bytes at p (followed by at least 16
 * readable bytes) start an encoding llvm's AMDGPU disassembler crashes on for
 * processor arch; dc is a context for arch (the guard asks LLVM about safe
 * variants of the bytes). */
bool kw_co_guard_refuses(const kw_co_llvm *llvm, LLVMDisasmContextRef dc, const char *arch,
                         const unsigned char *p, size_t n);

#endif
