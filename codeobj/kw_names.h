/* kw_names.h: kernel names as people write them. One matcher for every
 * command that takes a kernel name (`render KERNEL`, `isa --kernel NAME`):
 * the mangled symbol, the printed name or the demangled signature, with
 * blanks ignored ('k<float,256>' names 'k<float, 256>'); and the two
 * demanglers: LLVM's (llvm-cxxfilt's, from libLLVM, kw_co_llvm.h), which
 * kwalk prints, and the C++ runtime's (__cxa_demangle, what rocprofv3 prints
 * and `kwalk trace` joins on; GCC 12's differs on some types, e.g. __bf16).
 * Both are found at run time: the callers are C. */
#ifndef KW_NAMES_H
#define KW_NAMES_H

#include <stdbool.h>

#include "common/kw_arena.h"

/* The C++ runtime's demangling of a symbol, into arena; NULL when there is
 * no demangler, the symbol is not a C++ one, or memory ran out. */
char *kw_demangle(kw_arena *arena, const char *symbol);

/* LLVM's demangling (what llvm-cxxfilt prints; NULL where it leaves the
 * symbol as it is), or the C++ runtime's when no libLLVM is found; into
 * arena. */
char *kw_demangle_llvm(kw_arena *arena, const char *symbol);

/* Is there a demangler in this process (else kw_demangle is always NULL)? */
bool kw_have_demangler(void);

/* Equal once blanks (spaces, tabs) are removed. */
bool kw_name_eq_blanks(const char *a, const char *b);

/* Does q name the kernel as written out, blanks aside: its printed name
 * (may be NULL), its full demangled signature (either demangler's) with or
 * without the leading "void ", or that signature without its parameter list
 * ('void ns::k<float, 256>(float*, int)', 'ns::k<float,256>(float*,int)',
 * 'ns::k<float,256>')? */
bool kw_name_written(kw_arena *a, const char *symbol, const char *printed, const char *q);

/* How closely q names a kernel; a caller keeps the kernels of the lowest rank
 * any kernel reaches. */
typedef enum kw_name_rank {
    KW_NAME_SYMBOL,  /* q is the symbol */
    KW_NAME_WRITTEN, /* kw_name_written */
    KW_NAME_PART,    /* a substring of the symbol, the printed or LLVM's demangled name */
    KW_NAME_NONE
} kw_name_rank;

kw_name_rank kw_name_rank_of(kw_arena *a, const char *symbol, const char *printed, const char *q);

#endif
