/* kw_co_llvm.c: the run-time lookup of kw_co_llvm.h. First the process's
 * global symbols (clang, or whatever already loaded libLLVM), then the
 * libLLVM this build was configured with (KWALK_LIBLLVM, an absolute path),
 * then its soname through the loader's search path. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "codeobj/kw_co_llvm.h"
#include "codeobj/kw_co_cache.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifndef KWALK_LIBLLVM
#define KWALK_LIBLLVM "libLLVM.so"
#endif
#ifndef KWALK_LIBLLVM_SONAME
#define KWALK_LIBLLVM_SONAME "libLLVM.so"
#endif

static pthread_once_t kw_llvm_once = PTHREAD_ONCE_INIT;
static kw_co_llvm kw_llvm_api;
static bool kw_llvm_ok;
static bool kw_llvm_process_only;
static char kw_llvm_why[512];

static bool kw_llvm_resolve(void *handle) {
    static const char *const names[] = {
        "LLVMInitializeAMDGPUTargetInfo", "LLVMInitializeAMDGPUTargetMC",
        "LLVMInitializeAMDGPUDisassembler", "LLVMCreateDisasmCPUFeatures",
        "LLVMDisasmInstruction", "LLVMDisasmDispose"};
    void *p[6];
    for (size_t i = 0; i < 6; i++)
        if (!(p[i] = dlsym(handle, names[i])))
            return false;
    void (*init[3])(void);
    for (size_t i = 0; i < 3; i++)
        memcpy(&init[i], &p[i], sizeof init[i]); /* object to function pointer (POSIX) */
    memcpy(&kw_llvm_api.create, &p[3], sizeof kw_llvm_api.create);
    memcpy(&kw_llvm_api.disasm, &p[4], sizeof kw_llvm_api.disasm);
    memcpy(&kw_llvm_api.dispose, &p[5], sizeof kw_llvm_api.dispose);
    /* the decoder's known crashes differ by version (kw_co_guard_refuses) */
    void *ver = dlsym(handle, "LLVMGetVersion");
    kw_llvm_api.major = 0;
    if (ver) {
        void (*get_version)(unsigned *, unsigned *, unsigned *);
        unsigned minor, patch;
        memcpy(&get_version, &ver, sizeof get_version);
        get_version(&kw_llvm_api.major, &minor, &patch);
    }
    /* registration is idempotent: clang may have done it already */
    for (size_t i = 0; i < 3; i++)
        init[i]();
    return true;
}

void kw_co_llvm_process_only(void) {
    kw_llvm_process_only = true;
}

static void kw_llvm_load(void) {
    if (kw_llvm_resolve(RTLD_DEFAULT)) {
        kw_llvm_ok = true;
        return;
    }
    if (kw_llvm_process_only) {
        snprintf(kw_llvm_why, sizeof kw_llvm_why,
                 "cannot find LLVM's AMDGPU disassembler in this clang (its LLVM symbols are "
                 "not exported)");
        return;
    }
    const char *tried[] = {KWALK_LIBLLVM, KWALK_LIBLLVM_SONAME};
    const char *why = "not found";
    for (size_t i = 0; i < 2; i++) {
        void *h = dlopen(tried[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            why = dlerror();
            continue;
        }
        if (kw_llvm_resolve(h)) {
            kw_llvm_ok = true; /* kept open for the life of the process */
            return;
        }
        why = "it has no AMDGPU disassembler";
        dlclose(h);
    }
    snprintf(kw_llvm_why, sizeof kw_llvm_why, "cannot load LLVM's disassembler (%s): %s",
             KWALK_LIBLLVM, why ? why : "unknown error");
}

const kw_co_llvm *kw_co_llvm_get(kw_err *err) {
    pthread_once(&kw_llvm_once, kw_llvm_load);
    if (!kw_llvm_ok) {
        kw_fail(err, "%s", kw_llvm_why);
        return NULL;
    }
    return &kw_llvm_api;
}

/* ---- LLVM's demangler ------------------------------------------------------------------- */

/* llvm::itaniumDemangle(std::string_view, bool), what llvm-cxxfilt prints.
 * LLVM is built against libstdc++ (the mangled name says so), whose
 * string_view is {length, pointer}: trivially copyable, so it is passed as
 * this struct is (two registers). The result is malloc'd. */
typedef struct kw_llvm_sv {
    size_t len;
    const char *ptr;
} kw_llvm_sv;
typedef char *(*kw_llvm_demangle_fn)(kw_llvm_sv mangled, bool parse_params);

static pthread_once_t kw_dm_once = PTHREAD_ONCE_INIT;
static kw_llvm_demangle_fn kw_dm_fn;

static void kw_dm_load(void) {
    static const char sym[] =
        "_ZN4llvm15itaniumDemangleESt17basic_string_viewIcSt11char_traitsIcEEb";
    void *p = dlsym(RTLD_DEFAULT, sym);
    const char *tried[] = {KWALK_LIBLLVM, KWALK_LIBLLVM_SONAME};
    for (size_t i = 0; !p && !kw_llvm_process_only && i < 2; i++) {
        void *h = dlopen(tried[i], RTLD_NOW | RTLD_LOCAL);
        p = h ? dlsym(h, sym) : NULL; /* kept open for the life of the process */
    }
    memcpy(&kw_dm_fn, &p, sizeof kw_dm_fn); /* object to function pointer (POSIX) */
}

char *kw_co_llvm_demangle(const char *symbol, bool *have) {
    pthread_once(&kw_dm_once, kw_dm_load);
    *have = kw_dm_fn != NULL;
    if (!kw_dm_fn || !symbol)
        return NULL;
    kw_llvm_sv sv = {strlen(symbol), symbol};
    return kw_dm_fn(sv, true);
}

const char *kw_co_llvm_library(void) {
    return KWALK_LIBLLVM;
}
