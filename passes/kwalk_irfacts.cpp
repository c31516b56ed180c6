// kwalk_irfacts.cpp: kwalk-irfacts, the installed tool that runs the IR
// analysis (kw_ir_analyze_function) on LLVM IR that kwalk did not compile
// itself: a Triton cache's NAME.llir (docs/triton.md, "IR facts"). It parses
// one .ll/.bc file with the LLVM it was built against and writes the IR facts
// of every amdgpu_kernel function as YAML through the sidecar writer
// (`kernels:`, a list of `ir:` mappings, docs/ir-facts.md):
//
//   kwalk-irfacts [--arch ARCH] [--wave 32|64] [--names a,b,c] FILE.llir
//
// --arch / --wave stand in for the target-cpu / wavefront size attributes a
// Triton .llir leaves out; --names names the parameters in order (the rest
// keep `argN`). Bad input never crashes or hangs it: a file over 256 MiB is
// refused, the parse and the analysis run under a CPU-time and address-space
// limit, a crash inside LLVM is caught, and each failure is one line on
// stderr, `kwalk-irfacts: not readable by LLVM X.Y.Z: FILE:LINE:COL: ...`
// (or `...: not valid IR: ...`, `...: the analysis failed: ...`), exit 1.
// Usage errors exit 2.
#include "passes/kw_ir_analyze.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace llvm;

namespace {

const char *const Usage =
    "usage: kwalk-irfacts [--arch ARCH] [--wave 32|64] [--names a,b,c] FILE.ll|FILE.bc\n";
constexpr off_t MaxBytes = 256 << 20; // a Triton .llir is well under 10 MiB
constexpr rlim_t CpuSeconds = 120;
constexpr rlim_t AddressBytes = rlim_t(8) << 30;

// One line: the message up to its first line break.
std::string oneLine(StringRef S) {
    return S.substr(0, S.find_first_of("\r\n")).trim().str();
}

int fail(const std::string &Msg) {
    fprintf(stderr, "kwalk-irfacts: %s\n", Msg.c_str());
    return 1;
}

// Bound what bad input can cost: CPU time (SIGXCPU ends the process) and
// address space (allocation fails instead of swapping), never raising a
// limit the caller set lower.
void limitResources() {
    struct rlimit R;
    if (getrlimit(RLIMIT_CPU, &R) == 0 &&
        (R.rlim_cur == RLIM_INFINITY || R.rlim_cur > CpuSeconds)) {
        R.rlim_cur = CpuSeconds;
        setrlimit(RLIMIT_CPU, &R);
    }
    if (getrlimit(RLIMIT_AS, &R) == 0 &&
        (R.rlim_cur == RLIM_INFINITY || R.rlim_cur > AddressBytes)) {
        R.rlim_cur = AddressBytes;
        setrlimit(RLIMIT_AS, &R);
    }
}

// A Triton .llir names no target CPU: give the kernels the one the cache
// says, so the analysis knows the arch and its wave size.
void setTarget(Function &F, const char *Arch, unsigned Wave) {
    if (Arch && !F.hasFnAttribute("target-cpu"))
        F.addFnAttr("target-cpu", Arch);
    if (Wave && !F.hasFnAttribute("target-features"))
        F.addFnAttr("target-features", Wave == 32 ? "+wavefrontsize32" : "+wavefrontsize64");
}

struct Options {
    const char *Arch = nullptr;
    unsigned Wave = 0;
    const char *File = nullptr;
    std::vector<std::string> Names;
};

bool parseArgs(int argc, char **argv, Options &O) {
    for (int I = 1; I < argc; I++) {
        bool HasValue = I + 1 < argc;
        if (!strcmp(argv[I], "--arch") && HasValue) {
            O.Arch = argv[++I];
        } else if (!strcmp(argv[I], "--wave") && HasValue) {
            O.Wave = (unsigned)atoi(argv[++I]);
            if (O.Wave != 32 && O.Wave != 64)
                return false;
        } else if (!strcmp(argv[I], "--names") && HasValue) {
            SmallVector<StringRef, 16> Parts;
            StringRef(argv[++I]).split(Parts, ',');
            for (StringRef P : Parts)
                O.Names.push_back(P.str());
        } else if (argv[I][0] == '-' || O.File) {
            return false;
        } else {
            O.File = argv[I];
        }
    }
    return O.File != nullptr;
}

// The facts of every kernel of M, written to stdout; 1 with one line on
// stderr when the analysis fails.
int analyzeModule(Module &M, const Options &O) {
    std::vector<const char *> Names;
    for (const std::string &N : O.Names)
        Names.push_back(N.c_str());
    kw_arena Keep;
    kw_arena_init(&Keep);
    std::vector<kw_irf *> Records;
    std::string Failure;
    for (Function &F : M) {
        if (F.isDeclaration() || F.getCallingConv() != CallingConv::AMDGPU_KERNEL)
            continue;
        setTarget(F, O.Arch, O.Wave);
        auto *Facts =
            static_cast<kw_ir_kernel_facts *>(kw_arena_alloc(&Keep, sizeof(kw_ir_kernel_facts)));
        kw_irf *Rec = nullptr;
        kw_err Err;
        kw_status St = KW_ERR;
        CrashRecoveryContext CRC;
        bool Survived = Facts && CRC.RunSafely([&] {
            St = kw_ir_analyze_function(F, &Keep, Facts, &Err);
            if (St == KW_OK)
                St = kw_ir_facts_name_params(Facts, Names.empty() ? nullptr : Names.data(),
                                             Names.size(), &Keep, &Err);
            if (St == KW_OK)
                St = kw_ir_facts_to_sidecar(Facts, &Keep, &Rec, &Err);
        });
        if (!Facts)
            Failure = "out of memory";
        else if (!Survived)
            Failure = "the analysis crashed on " + F.getName().str();
        else if (St != KW_OK)
            Failure = F.getName().str() + ": " + Err.msg;
        if (!Failure.empty())
            break;
        Records.push_back(Rec);
    }
    int Rc = 0;
    if (!Failure.empty()) {
        Rc = fail("the analysis failed: " + Failure);
    } else {
        kw_buf Out;
        kw_buf_init(&Out);
        kw_err Err;
        if (kw_irf_emit_list(Records.data(), Records.size(), &Out, &Err) != KW_OK)
            Rc = fail(std::string("cannot write the facts: ") + Err.msg);
        else if (fwrite(Out.ptr, 1, Out.len, stdout) != Out.len || fflush(stdout) != 0)
            Rc = fail("cannot write to stdout");
        kw_buf_free(&Out);
    }
    kw_arena_free(&Keep);
    return Rc;
}

} // namespace

int main(int argc, char **argv) {
    Options O;
    if (!parseArgs(argc, argv, O)) {
        fputs(Usage, stderr);
        return 2;
    }
    StringRef Base = StringRef(O.File).rsplit('/').second;
    if (Base.empty())
        Base = O.File;
    struct stat SB;
    if (stat(O.File, &SB) != 0)
        return fail(std::string(O.File) + ": " + strerror(errno));
    if (!S_ISREG(SB.st_mode))
        return fail(std::string(O.File) + ": not a regular file");
    if (SB.st_size > MaxBytes)
        return fail(std::string(O.File) + ": larger than 256 MiB, not read");
    limitResources();
    CrashRecoveryContext::Enable();

    LLVMContext Ctx;
    SMDiagnostic Diag;
    std::unique_ptr<Module> M;
    CrashRecoveryContext ParseCRC;
    if (!ParseCRC.RunSafely([&] { M = parseIRFile(O.File, Diag, Ctx); }))
        return fail("not readable by LLVM " LLVM_VERSION_STRING ": " + Base.str() +
                    ": the parser crashed");
    if (!M) {
        std::string Where = Base.str();
        if (Diag.getLineNo() > 0)
            Where += ":" + std::to_string(Diag.getLineNo()) + ":" +
                     std::to_string(Diag.getColumnNo() + 1);
        return fail("not readable by LLVM " LLVM_VERSION_STRING ": " + Where + ": " +
                    oneLine(Diag.getMessage()));
    }
    std::string Broken;
    raw_string_ostream BrokenOS(Broken);
    if (verifyModule(*M, &BrokenOS))
        return fail("not valid IR (LLVM " LLVM_VERSION_STRING "): " + Base.str() + ": " +
                    oneLine(BrokenOS.str()));
    return analyzeModule(*M, O);
}
