// kwir_dump.cpp: kwir-dump, the test driver of the IR analysis. Loads a
// bitcode or textual IR module, runs the analysis on every amdgpu_kernel
// function (through a FunctionAnalysisManager set up by PassBuilder, as the
// plugin's pass does, or with --own-analyses through the analysis' own
// analyses), names parameters from the IR/debug info (or --names), and prints
// the facts as YAML through the sidecar writer (`kernels:`, a list of `ir:` mappings):
//
//   kwir-dump [--own-analyses] [--function SYMBOL] [--names a,b,c] [--time]
//             [--repeat N] [-o OUT.bc] FILE.bc|FILE.ll
//
// --time prints, on stderr, the seconds spent in the analysis proper (module
// loading excluded), for tests/passes/bench_ir.sh; with --repeat N the analysis of
// the module runs N times (fresh analyses each time) and the fastest counts. -o writes the module
// back as bitcode after the analysis, so a test can check that nothing changed.
#include "passes/kw_ir_analyze.h"

#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace llvm;

int main(int argc, char **argv) {
    bool Own = false, Time = false;
    int Repeat = 1;
    const char *Only = nullptr, *File = nullptr, *OutBc = nullptr;
    std::vector<std::string> Names;
    for (int I = 1; I < argc; I++) {
        if (!strcmp(argv[I], "--own-analyses"))
            Own = true;
        else if (!strcmp(argv[I], "--time"))
            Time = true;
        else if (!strcmp(argv[I], "--repeat") && I + 1 < argc)
            Repeat = atoi(argv[++I]) > 0 ? atoi(argv[I]) : 1;
        else if (!strcmp(argv[I], "-o") && I + 1 < argc)
            OutBc = argv[++I];
        else if (!strcmp(argv[I], "--function") && I + 1 < argc)
            Only = argv[++I];
        else if (!strcmp(argv[I], "--names") && I + 1 < argc) {
            StringRef S = argv[++I];
            SmallVector<StringRef, 16> Parts;
            S.split(Parts, ',');
            for (StringRef P : Parts)
                Names.push_back(P.str());
        } else if (argv[I][0] == '-') {
            fprintf(stderr, "usage: kwir-dump [--own-analyses] [--function SYMBOL] [--names a,b] "
                            "[--time] [-o OUT.bc] FILE.bc|FILE.ll\n");
            return 2;
        } else
            File = argv[I];
    }
    if (!File) {
        fprintf(stderr, "kwir-dump: no input file\n");
        return 2;
    }
    LLVMContext Ctx;
    SMDiagnostic Diag;
    std::unique_ptr<Module> M = parseIRFile(File, Diag, Ctx);
    if (!M) {
        Diag.print("kwir-dump", errs());
        return 1;
    }

    PassBuilder PB;
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

    std::vector<const char *> NamePtrs;
    for (auto &N : Names)
        NamePtrs.push_back(N.c_str());

    // timing rounds first (fresh analyses each), then the printed round
    double Seconds = 0;
    for (int R = 0; R < Repeat; R++) {
        double Round = 0;
        FAM.clear();
        for (Function &F : *M) {
            if (F.isDeclaration() || F.getCallingConv() != CallingConv::AMDGPU_KERNEL)
                continue;
            if (Only && F.getName() != Only)
                continue;
            kw_arena A;
            kw_arena_init(&A);
            kw_ir_kernel_facts Facts;
            kw_err Err;
            auto T0 = std::chrono::steady_clock::now();
            if (Own)
                kw_ir_analyze_function(F, &A, &Facts, &Err);
            else
                kw_ir_analyze_function(F, FAM, &A, &Facts, &Err);
            Round += std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
            kw_arena_free(&A);
        }
        Seconds = R == 0 || Round < Seconds ? Round : Seconds;
    }
    FAM.clear();

    int Rc = 0;
    kw_arena Keep; // every kernel's facts and records, until they are written
    kw_arena_init(&Keep);
    std::vector<kw_irf *> Records;
    for (Function &F : *M) {
        if (F.isDeclaration() || F.getCallingConv() != CallingConv::AMDGPU_KERNEL)
            continue;
        if (Only && F.getName() != Only)
            continue;
        kw_ir_kernel_facts *Facts =
            static_cast<kw_ir_kernel_facts *>(kw_arena_alloc(&Keep, sizeof(kw_ir_kernel_facts)));
        kw_irf *Rec = nullptr;
        kw_err Err;
        kw_status St = !Facts ? kw_fail(&Err, "out of memory")
                       : Own  ? kw_ir_analyze_function(F, &Keep, Facts, &Err)
                              : kw_ir_analyze_function(F, FAM, &Keep, Facts, &Err);
        if (St == KW_OK)
            St = kw_ir_facts_name_params(Facts, NamePtrs.empty() ? nullptr : NamePtrs.data(),
                                         NamePtrs.size(), &Keep, &Err);
        if (St == KW_OK)
            St = kw_ir_facts_to_sidecar(Facts, &Keep, &Rec, &Err);
        if (St != KW_OK) {
            fprintf(stderr, "kwir-dump: %s: %s\n", F.getName().str().c_str(), Err.msg);
            Rc = 1;
        } else {
            Records.push_back(Rec);
        }
    }
    // through the sidecar writer: the `ir:` mappings exactly as a sidecar holds them
    {
        kw_buf Out;
        kw_buf_init(&Out);
        kw_err Err;
        if (kw_irf_emit_list(Records.data(), Records.size(), &Out, &Err) != KW_OK) {
            fprintf(stderr, "kwir-dump: %s\n", Err.msg);
            Rc = 1;
        } else {
            fwrite(Out.ptr, 1, Out.len, stdout);
        }
        kw_buf_free(&Out);
    }
    kw_arena_free(&Keep);
    // the analysis must not have changed the module
    if (verifyModule(*M, &errs())) {
        fprintf(stderr, "kwir-dump: the module no longer verifies\n");
        Rc = 1;
    }
    if (OutBc) {
        std::error_code EC;
        raw_fd_ostream OS(OutBc, EC, sys::fs::OF_None);
        if (EC) {
            fprintf(stderr, "kwir-dump: %s: %s\n", OutBc, EC.message().c_str());
            return 1;
        }
        WriteBitcodeToFile(*M, OS, /*ShouldPreserveUseListOrder=*/true);
    }
    if (Time)
        fprintf(stderr, "kwir-dump: analysis %.6f s\n", Seconds);
    return Rc;
}
