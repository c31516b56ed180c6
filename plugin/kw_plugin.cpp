// kw_plugin.cpp: the Clang frontend plugin "kwalk". It runs in every cc1 job
// of a HIP compile. In a device job (one per --offload-arch) it notes which
// kernels the optimized IR defines and writes a fragment with those kernels;
// in the host job it captures launches, entry points and host calls, merges the
// device fragments of the same -cuid and writes the sidecar. It only observes:
// its consumer reads the AST before clang's code generation, its passes read
// the optimized IR and hand the rest of the job (writing) to a thread that
// runs beside clang's code generator, and any failure becomes one "kwalk:"
// warning while the compile goes on.
#include "kw_background.h"
#include "kw_context.h"
#include "kw_driver.h"
#include "kw_embed_sidecar.h"
#include "kw_entry_names.h"
#include "kw_host.h"
#include "kw_kernels.h"
#include "kw_lines_owner.h"
#include "kw_output.h"
#include "kw_timing.h"

extern "C" {
#include "codeobj/kw_co_llvm.h"
#include "codeobj/kw_co_sidecar.h"
#include "common/kw_fs.h"
#include "passes/kw_ir_facts.h"
#include "sidecar/kw_sidecar_pack.h"
#include "sidecar/kw_sidecar_zstd.h"
}
#include "passes/kw_ir_analyze.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <map>
#include <memory>
#include <vector>
#include <set>

#ifndef KWALK_VERSION
#define KWALK_VERSION "0.0.0"
#endif

using namespace clang;

namespace kwalk {
namespace {

struct JobState {
    bool Device = false;
    std::string Arch, Cuid, Source, Object;
    // The exchange key of this compile's fragments: the cuid alone is not
    // unique (two builds of one file with the same flags, at the same time),
    // so the clang driver's process id goes with it.
    std::string FragKey;
    std::string GpuBinary; // host job: the linked device code (.hipfb bundle)
    OutputOptions Out;
    // Where the sidecar goes: Object names the output it describes ("" with
    // NoSidecar set: none is written, and NoSidecar says why). A device job
    // with HostFollows only leaves a fragment for the host job.
    DriverView Driver;
    bool HostFollows = true;
    std::string NoSidecar;
    std::set<std::string> Emitted;
    bool HaveEmitted = false;
    // Host job: whether its optimized module was seen, and whether it embeds
    // the device code (HostEmbedPass).
    bool HostModuleSeen = false;
    bool EmbedsDeviceCode = false;
    // Host job, while HostEmbedPass finishes the job: its module, which the
    // embed mode adds the sidecar to (ModuleChanged then).
    llvm::Module *HostModule = nullptr;
    bool ModuleChanged = false;
    // IR facts per kernel symbol, from the OptimizerLast pass, in IrArena.
    kw_arena IrArena;
    std::map<std::string, kw_ir_kernel_facts *> IrFacts;
    std::string IrError;
    bool IrOff = false;     // -fplugin-arg-kwalk-ir=off or KWALK_IR=off
    // Device job: the plugin turned on location tracking (the compile has no
    // -g), so the IR pass drops the locations once it has read them.
    bool DropLocations = false;
    // Device job: the arch of the job of the same compile that tracks the
    // locations, where this one does not (kw_lines_owner.h); "" otherwise.
    std::string LinesIn;
    std::set<std::string> EntryNames; // annotated entry points (kw_entry_names.h)
    bool IrCrashed = false; // the analysis crashed on a kernel: no more of it
    // The document between its capture (HandleTranslationUnit, before code
    // generation, while the AST lives) and its completion (finishJob: in the
    // IR pass, once code generation has said which kernels it emitted and
    // whether the host object embeds device code; clang may have freed the
    // AST by then, so the document holds copies only). PassWillRun: the
    // compile generates code through the optimizer, so the IR pass finishes
    // the job; otherwise HandleTranslationUnit does.
    kw_sidecar Doc;
    bool Captured = false, Finished = false, PassWillRun = false;
    kw_status CaptureSt = KW_OK;
    kw_err CaptureErr;
    size_t Merged = 0; // host job: device fragments merged into Doc
    JobState() {
        kw_arena_init(&IrArena);
        kw_sidecar_init(&Doc);
        CaptureErr.msg[0] = '\0';
    }
    ~JobState() {
        kw_sidecar_free(&Doc);
        kw_arena_free(&IrArena);
    }
    JobState(const JobState &) = delete;
    JobState &operator=(const JobState &) = delete;
};

// Runs Fn under a crash recovery context: a crash inside (a signal: a null
// or wild pointer, an LLVM assertion's abort) comes back as false instead of
// ending clang. Inside clang's integrated cc1 the driver has recovery enabled
// and runs cc1 in a context of its own (ours nests inside it); in a cc1 process
// of its own (-fno-integrated-cc1) recovery is enabled around Fn only.
template <typename F> bool runRecovering(F &&Fn) {
    bool Enabled = llvm::CrashRecoveryContext::GetCurrent() == nullptr;
    if (Enabled)
        llvm::CrashRecoveryContext::Enable();
    const void *Pretty = llvm::SavePrettyStackState();
    bool Ok;
    {
        llvm::CrashRecoveryContext CRC;
        Ok = CRC.RunSafely(Fn);
    }
    if (!Ok)
        llvm::RestorePrettyStackState(Pretty);
    if (Enabled)
        llvm::CrashRecoveryContext::Disable();
    return Ok;
}

void finishJob(JobState &S);
bool claimFinish(JobState &S);
void completeJob(JobState &S);

// The rest of a job once code generation has said what it needs: on a thread
// of its own (kw_background.h) while clang generates code. The job's document
// and IR facts are the plugin's own memory, and the caller touches the job's
// state no more.
void finishJobInBackground(const std::shared_ptr<JobState> &S) {
    if (!claimFinish(*S))
        return;
    std::shared_ptr<JobState> Keep = S;
    runInBackground([Keep] { completeJob(*Keep); });
}

// Records the kernels the device module defines after optimization, and their
// IR facts (unless they are off); then finishes the device job.
struct EmittedKernelsPass : llvm::PassInfoMixin<EmittedKernelsPass> {
    std::shared_ptr<JobState> State;
    explicit EmittedKernelsPass(std::shared_ptr<JobState> S) : State(std::move(S)) {}
    llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
        if (!State->Finished) {
            State->HaveEmitted = true;
            PhaseTimer T(State->Arch, "ir-analysis");
            for (const llvm::Function &F : M) {
                if (F.isDeclaration() || F.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL)
                    continue;
                std::string Name(F.getName());
                State->Emitted.insert(Name);
                if (!State->IrOff && !State->IrCrashed)
                    analyze(F, Name);
            }
            // The fragment is written while the code generator runs.
            finishJobInBackground(State);
        }
        // The locations the plugin asked for (LocTrackingOnly) have been read:
        // the code generator, most of a device job's time, need not carry them.
        // It emits no debug info for them and its output does not depend on
        // them (the objects are byte-identical with and without the plugin:
        // capture.objects_identical, aiter.identical).
        if (State->DropLocations && llvm::StripDebugInfo(M))
            return llvm::PreservedAnalyses::none();
        return llvm::PreservedAnalyses::all();
    }
    static bool isRequired() { return true; }

  private:
    // The IR facts of one kernel (passes/): read-only. The analysis builds
    // its own dominator tree, loop info and scalar evolution rather than using
    // the pipeline's analysis manager, so that a crash inside it cannot leave
    // clang's cached analyses half-updated. After a crash (then the objects
    // built inside are leaked, never touched again) no further kernel of the
    // job is analyzed.
    void analyze(const llvm::Function &F, const std::string &Name) {
        auto *Facts = static_cast<kw_ir_kernel_facts *>(
            kw_arena_alloc(&State->IrArena, sizeof(kw_ir_kernel_facts)));
        if (!Facts) {
            State->IrError = "out of memory";
            return;
        }
        kw_ir_facts_init(Facts);
        kw_err Err;
        Err.msg[0] = '\0';
        kw_status St = KW_ERR;
        if (!runRecovering([&] { St = kw_ir_analyze_function(F, &State->IrArena, Facts, &Err); })) {
            State->IrCrashed = true;
            State->IrError = "IR facts left out: the IR analysis crashed on " + Name +
                             " (no IR facts for it or the kernels after it in this job)";
            return;
        }
        if (St == KW_OK)
            State->IrFacts[Name] = Facts;
        else if (State->IrError.empty())
            State->IrError = "IR facts of " + Name + ": " + Err.msg;
    }
};

// Host job: does the object embed the linked device code? Clang leaves the
// bundle out (no .hip_fatbin section, no registration) when no host code of
// the TU launches or registers a kernel or a device variable, e.g. a pybind
// TU whose headers define a kernel only an unused inline function launches.
struct HostEmbedPass : llvm::PassInfoMixin<HostEmbedPass> {
    std::shared_ptr<JobState> State;
    explicit HostEmbedPass(std::shared_ptr<JobState> S) : State(std::move(S)) {}
    llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
        if (State->Finished)
            return llvm::PreservedAnalyses::all();
        State->HostModuleSeen = true;
        for (const llvm::GlobalVariable &G : M.globals())
            if (G.hasSection() &&
                (G.getSection() == ".hip_fatbin" || G.getSection() == ".llvm.offloading"))
                State->EmbedsDeviceCode = true;
        // Fragments a device job of this process may still be writing.
        waitForBackground();
        if (!State->Out.Embed) {
            // Merging and writing the sidecar overlap the host code generator.
            finishJobInBackground(State);
            return llvm::PreservedAnalyses::all();
        }
        State->HostModule = &M; // embed mode: the sidecar goes into M, now
        finishJob(*State);
        State->HostModule = nullptr;
        return State->ModuleChanged ? llvm::PreservedAnalyses::none()
                                    : llvm::PreservedAnalyses::all();
    }
    static bool isRequired() {
        return true;
    }
};

// The process id of the clang driver running this compile: the cc1 jobs run
// inside the driver (integrated cc1, the default) or as its children
// (-fno-integrated-cc1), where the first argument is "-cc1".
bool spawnedCc1() {
    bool Spawned = false;
    if (FILE *F = std::fopen("/proc/self/cmdline", "rb")) {
        char Buf[64] = {0};
        size_t N = std::fread(Buf, 1, sizeof(Buf) - 1, F);
        std::fclose(F);
        size_t First = strnlen(Buf, N);
        Spawned = First + 1 < N && std::strcmp(Buf + First + 1, "-cc1") == 0;
    }
    return Spawned;
}

std::string driverKey() {
    return std::to_string(spawnedCc1() ? getppid() : getpid());
}

std::string absolute(const std::string &P) {
    if (P.empty() || P == "-")
        return P;
    llvm::SmallString<256> S(P);
    llvm::sys::fs::make_absolute(S);
    llvm::sys::path::remove_dots(S, true);
    return std::string(S);
}

bool isTemporary(const std::string &Path) {
    llvm::SmallString<256> Tmp;
    llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Tmp);
    return Path.rfind(std::string(Tmp) + "/", 0) == 0;
}

// The source the user compiled: with -save-temps the cc1 job reads the
// preprocessed NAME-<target>.hipi; the driver's input whose stem starts that
// name is the source.
std::string originalSource(const DriverView &D, const std::string &Input) {
    llvm::StringRef Ext = llvm::sys::path::extension(Input);
    if (!D.Known || (Ext != ".hipi" && Ext != ".cui" && Ext != ".ii"))
        return Input;
    std::string Name = std::string(llvm::sys::path::filename(Input));
    for (const std::string &In : D.Inputs) {
        std::string Stem = std::string(llvm::sys::path::stem(In));
        if (Name.rfind(Stem + "-", 0) == 0)
            return In;
    }
    return Input;
}

// Which output this job's sidecar describes, decided from the driver's command
// line: the output the user named, never a driver temporary. Without a driver
// (a cc1 run by hand) the cc1 job's own output is all there is.
void decideOutput(JobState &S, const std::string &Cc1Output) {
    const DriverView &D = S.Driver;
    if (!D.Known) {
        bool Named = !Cc1Output.empty() && Cc1Output != "-" && !isTemporary(Cc1Output);
        S.HostFollows = !S.Device || !Named;
        S.Object = Cc1Output;
        if (S.Device && Named)
            S.Object = Cc1Output + "." + S.Arch;
        return;
    }
    S.HostFollows = !D.DeviceOnly && !D.SyntaxOnly;
    if (S.Device && S.HostFollows)
        return; // a fragment for the host job, nothing else
    if (D.SyntaxOnly) {
        S.NoSidecar = "-fsyntax-only makes no object to describe";
        return;
    }
    std::string Out = userOutput(D, S.Source);
    if (Out.empty()) {
        S.NoSidecar = "the output goes to standard output";
        return;
    }
    if (Out == "/dev/null") {
        if (S.Out.OutDir.empty()) {
            S.NoSidecar = "the output is /dev/null (-fplugin-arg-kwalk-out=DIR or KWALK_OUT "
                          "gives a sidecar named after the source)";
            return;
        }
        Out.clear(); // named after the source in the output directory
    } else if (!D.Compile && !D.Assemble) {
        // compile and link in one: one sidecar per source beside the output
        Out += "." + std::string(llvm::sys::path::filename(S.Source));
    }
    // A device-only compile has one sidecar per arch (no host job merges them).
    if (S.Device && !Out.empty() && D.Archs.size() > 1)
        Out += "." + S.Arch;
    S.Object = Out;
}

void fillHeader(kw_sidecar &Doc, const JobState &S) {
    Doc.schema = KW_SCHEMA_VERSION;
    Doc.producer.name = "kwalk";
    Doc.producer.version = KWALK_VERSION;
    Doc.producer.clang_version = kw_arena_strdup(&Doc.arena, getClangFullVersion().c_str());
    Doc.tu.source = kw_arena_strdup(&Doc.arena, S.Source.c_str());
    if (!S.Device)
        Doc.tu.object = kw_arena_strdup(&Doc.arena, S.Object.c_str());
    Doc.tu.cuid = S.Cuid.empty() ? nullptr : kw_arena_strdup(&Doc.arena, S.Cuid.c_str());
}

// The folder a file of the plugin goes into, created when missing.
kw_status makeParentDir(const std::string &Path, kw_err *Err) {
    std::string Dir = std::string(llvm::sys::path::parent_path(Path));
    return Dir.empty() ? KW_OK : kw_fs_mkdirs(Dir.c_str(), Err);
}

kw_status writeDoc(const kw_sidecar &Doc, const std::string &Path, kw_err *Err, bool Zstd) {
    if (makeParentDir(Path, Err) != KW_OK)
        return KW_ERR;
    return kw_sidecar_write_file_as(&Doc, Path.c_str(), Zstd, Err);
}

// A device job's fragment, in the packed form the host job reads.
// The host job of another compile removes the directory once it is empty
// (mergeFragments), perhaps between making it and writing into it: then the
// write is tried again.
kw_status writeFragment(const kw_sidecar &Doc, const std::string &Path, kw_err *Err) {
    for (int Try = 0;; Try++) {
        if (makeParentDir(Path, Err) != KW_OK)
            return KW_ERR;
        if (kw_sidecar_pack_write_file(&Doc, Path.c_str(), Err) == KW_OK)
            return KW_OK;
        if (Try == 2 || llvm::sys::fs::is_directory(llvm::sys::path::parent_path(Path)))
            return KW_ERR;
    }
}

// The sidecar at Plain (sidecarPath), or Plain + ".zst" in the zstd form the
// options ask for by default. The other form's file, left by an earlier
// compile, goes: it would describe an older object.
kw_status writeSidecar(const kw_sidecar &Doc, const OutputOptions &O, const std::string &Plain,
                       kw_err *Err) {
    const std::string Zst = Plain + KW_SIDECAR_ZSTD_SUFFIX;
    kw_status St = writeDoc(Doc, O.Zstd ? Zst : Plain, Err, O.Zstd);
    if (St == KW_OK)
        llvm::sys::fs::remove(O.Zstd ? Plain : Zst);
    return St;
}

// Give the IR facts the source's parameter names and put them, as the
// sidecar's records, into the kernel's arch entry.
kw_status attachIrFacts(kw_sidecar &Doc, JobState &S, kw_err *Err) {
    for (size_t I = 0; I < Doc.kernels.n; I++) {
        kw_kernel &K = Doc.kernels.v[I];
        auto It = K.symbol ? S.IrFacts.find(K.symbol) : S.IrFacts.end();
        if (It == S.IrFacts.end() || !K.archs.n)
            continue;
        std::vector<const char *> Names;
        for (size_t P = 0; P < K.params.n; P++)
            Names.push_back(K.params.v[P].name);
        if (kw_ir_facts_name_params(It->second, Names.data(), Names.size(), &S.IrArena, Err) !=
            KW_OK)
            return KW_ERR;
        std::vector<kw_ir_field_name> Fields;
        for (size_t P = 0; P < K.params.n; P++)
            for (size_t F = 0; F < K.params.v[P].fields.n; F++)
                Fields.push_back({(int)P, K.params.v[P].fields.v[F].offset,
                                  K.params.v[P].fields.v[F].name});
        if (kw_ir_facts_name_fields(It->second, Fields.data(), Fields.size(), Err) != KW_OK)
            return KW_ERR;
        // in the IR arena, which lives until the document is written
        kw_irf *&Ir = K.archs.v[0].ir;
        if (kw_ir_facts_to_sidecar(It->second, &S.IrArena, &Ir, Err) != KW_OK)
            return KW_ERR;
        if (!Ir->debug_info && !S.LinesIn.empty() &&
            !(Ir->lines_in = kw_arena_strdup(&S.IrArena, S.LinesIn.c_str())))
            return kw_fail(Err, "out of memory");
    }
    if (!S.IrError.empty())
        return kw_fail(Err, "%s", S.IrError.c_str());
    return KW_OK;
}

// Device job, before code generation: every kernel the AST instantiates
// (code generation says later which of them it emitted: keepEmitted).
kw_status captureDevice(ASTContext &Ctx, JobState &S) {
    kw_sidecar &Doc = S.Doc;
    fillHeader(Doc, S);
    const char **Arch = KW_PUSH(&Doc.arena, Doc.tu.offload_archs);
    if (Arch)
        *Arch = kw_arena_strdup(&Doc.arena, S.Arch.c_str());
    CaptureContext C(Ctx, Doc);
    PhaseTimer T(S.Arch, "capture-kernels");
    captureKernels(C, S.Arch.c_str(), S.Emitted, /*HaveEmitted=*/false);
    return KW_OK;
}

// The kernels code generation emitted (all, where it did not say).
void keepEmitted(kw_sidecar &Doc, const JobState &S) {
    if (!S.HaveEmitted)
        return;
    size_t N = 0;
    for (size_t I = 0; I < Doc.kernels.n; I++) {
        const kw_kernel &K = Doc.kernels.v[I];
        if (K.symbol && S.Emitted.count(K.symbol))
            Doc.kernels.v[N++] = K;
    }
    Doc.kernels.n = N;
}

kw_status finishDevice(JobState &S, kw_err *Err) {
    kw_sidecar &Doc = S.Doc;
    keepEmitted(Doc, S);
    // IR facts that cannot be had are reported, but the fragment is written.
    kw_err IrErr;
    kw_status IrSt;
    {
        PhaseTimer T(S.Arch, "ir-yaml");
        IrSt = attachIrFacts(Doc, S, &IrErr);
    }
    kw_status St = KW_OK;
    PhaseTimer TW(S.Arch, "write-fragment");
    if (S.HostFollows && !S.Cuid.empty())
        St = writeFragment(Doc, fragmentPath(S.Out, S.FragKey, S.Arch), Err);
    // A device-only compile has no host job to merge: it gets a sidecar of
    // its own, for the output the user named.
    if (St == KW_OK && !S.HostFollows && S.NoSidecar.empty())
        St = writeSidecar(Doc, S.Out, sidecarPath(S.Out, S.Object, S.Source, S.Cuid + "." + S.Arch),
                          Err);
    if (St == KW_OK && IrSt != KW_OK)
        return kw_fail(Err, "%s", IrErr.msg);
    return St;
}

// Host job, before code generation: launches, entries, host calls.
kw_status captureHostJob(ASTContext &Ctx, JobState &S, kw_err *) {
    kw_sidecar &Doc = S.Doc;
    fillHeader(Doc, S);
    CaptureContext C(Ctx, Doc);
    PhaseTimer T("host", "capture-host");
    captureHost(C, S.EntryNames);
    return KW_OK;
}

kw_status finishHost(JobState &S, kw_err *Err) {
    kw_sidecar &Doc = S.Doc;
    kw_status St = KW_OK;
    // The device jobs' fragments (written before this job started), merged
    // here, where clang may have freed the AST: the two are never alive at once.
    if (!S.Cuid.empty()) {
        PhaseTimer T("host", "merge-fragments");
        if (mergeFragments(S.Out, S.FragKey, Doc, &S.Merged, Err) != KW_OK)
            return KW_ERR;
    }
    // The code objects that will run: the bundle the driver linked for this
    // TU, still on disk while the host job runs.
    // A code object that cannot be read costs its ISA facts, not the sidecar.
    kw_err IsaErr;
    kw_status IsaSt = KW_OK;
    kw_co_llvm_process_only(); // clang's own LLVM, never a second one
    bool Embedded = !S.HostModuleSeen || S.EmbedsDeviceCode;
    if (!S.GpuBinary.empty() && Embedded) {
        PhaseTimer T("host", "code-objects");
        // Schema 2: what the object itself holds (the listing, classes,
        // lines) is read back from it by `kwalk index`; the sidecar keeps
        // target ids, resources, occupancy and the code objects' identity.
        IsaSt = kw_co_sidecar_fill(&Doc, S.GpuBinary.c_str(), KW_CO_SC_CODE_OBJECTS, &IsaErr);
    }
    // The device jobs compiled these kernels, but the object does not hold
    // them: say so on each, and keep no per-arch facts (another TU's object
    // holds the kernel, and its sidecar has them); the arch names stay.
    if (!S.GpuBinary.empty() && !Embedded)
        for (size_t I = 0; I < Doc.kernels.n; I++) {
            kw_kernel &K = Doc.kernels.v[I];
            K.not_in_object =
                "the object embeds no device code: no host code of this translation unit "
                "launches or registers a kernel, so clang left the code object out";
            for (size_t A = 0; A < K.archs.n; A++) {
                const char *Arch = K.archs.v[A].arch;
                kw_kernel_arch_init(&K.archs.v[A]);
                K.archs.v[A].arch = Arch;
            }
        }
    std::string Plain = sidecarPath(S.Out, S.Object, S.Source, S.Cuid);
    if (!S.NoSidecar.empty()) {
        St = kw_fail(Err, "no sidecar written: %s", S.NoSidecar.c_str());
    } else if (S.Out.Embed && S.HostModule) {
        // Embed mode: the object carries the sidecar, and no file is
        // written (a file left by an earlier compile goes: `kwalk index`
        // would read the unit twice).
        PhaseTimer T("host", "embed-sidecar");
        kw_err EmbedErr;
        if (embedSidecar(*S.HostModule, Doc, &EmbedErr) == KW_OK) {
            S.ModuleChanged = true;
            llvm::sys::fs::remove(Plain);
            llvm::sys::fs::remove(Plain + KW_SIDECAR_ZSTD_SUFFIX);
        } else if ((St = writeSidecar(Doc, S.Out, Plain, Err)) == KW_OK) {
            St = kw_fail(Err, "sidecar not embedded (%s): written as a file", EmbedErr.msg);
        }
    } else {
        PhaseTimer T("host", "write-sidecar");
        St = writeSidecar(Doc, S.Out, Plain, Err);
        if (St == KW_OK && S.Out.Embed)
            St = kw_fail(Err, "sidecar not embedded (this compile runs no LLVM optimizer "
                              "pipeline on the host module): written as a file");
    }
    if (St == KW_OK && IsaSt != KW_OK)
        St = kw_fail(Err, "ISA facts left out: %s", IsaErr.msg);
    // Device code was linked but no device job left its kernels: the sidecar
    // then knows the kernels only from the code objects. Say so.
    if (St == KW_OK && !S.Cuid.empty() && !S.GpuBinary.empty() && S.Merged == 0)
        St = kw_fail(Err, "no device-job facts for this compile (were the device jobs run "
                          "without the plugin?): kernels carry code-object facts only");
    return St;
}

// One compile, one warning: device jobs hand their failure to the host
// job, unless there is no host job (a device-only compile) or the note
// cannot be written.
void reportJob(JobState &S, kw_status St, const char *Msg) {
    if (S.Device) {
        bool DeviceOnly = !S.HostFollows;
        // Nothing written by a device-only compile: its first arch's job
        // says why (with a host job, that job says it).
        bool First = S.Driver.Archs.empty() || S.Driver.Archs[0] == S.Arch;
        if (St == KW_OK && !S.NoSidecar.empty()) {
            if (S.Driver.DeviceOnly && First)
                warn("no sidecar written: " + S.NoSidecar + " [" + S.Source + "]");
            return;
        }
        if (St == KW_OK)
            clearDeviceFailure(S.FragKey, S.Arch);
        else if (DeviceOnly || !noteDeviceFailure(S.FragKey, S.Arch, Msg))
            warn(std::string(Msg) + " [" + S.Arch + " job of " + S.Source + "]");
        return;
    }
    std::string Device = S.Cuid.empty() ? std::string() : collectDeviceFailures(S.FragKey);
    if (St == KW_OK && Device.empty())
        return;
    std::string Text = St == KW_OK ? std::string() : std::string(Msg) + " [host job]";
    if (!Device.empty())
        Text += (Text.empty() ? "" : "; ") + Device;
    warn(Text + " [" + S.Source + "]");
}

// Whether the caller is the one to finish the job (once: captured, not yet
// finished).
bool claimFinish(JobState &S) {
    if (!S.Captured || S.Finished)
        return false;
    S.Finished = true;
    return true;
}

void finishJob(JobState &S) {
    if (claimFinish(S))
        completeJob(S);
}

// The second half of a job: from the IR pass (code generation has run its
// optimizer; on the job's own thread unless the sidecar is embedded), or
// right after the capture where no pass will run.
void completeJob(JobState &S) {
    kw_err Err;
    Err.msg[0] = '\0';
    kw_status St = S.CaptureSt;
    if (St != KW_OK)
        Err = S.CaptureErr;
    else
        St = S.Device ? finishDevice(S, &Err) : finishHost(S, &Err);
    reportJob(S, St, Err.msg);
    kw_sidecar_free(&S.Doc); // written: its memory goes back now
    kw_sidecar_init(&S.Doc);
}

// Only declarations written outside system headers are of interest; limiting
// the traversal scope keeps every visitor (and the parent map the guard walk
// builds) away from the HIP runtime, libstdc++ and pybind11 headers. The
// consumer sets the whole TU back before clang's code generation runs.
void limitToUserCode(ASTContext &Ctx) {
    SourceManager &SM = Ctx.getSourceManager();
    std::vector<Decl *> Scope;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
        SourceLocation L = D->getLocation();
        if (L.isValid() && !SM.isInSystemHeader(SM.getFileLoc(L)))
            Scope.push_back(D);
    }
    Ctx.setTraversalScope(Scope);
}

// Runs before clang's own code generation consumer (AddBeforeMainAction):
// with no plugin consumer after it, clang frees the AST before its back end
// (ClearASTBeforeBackend), as it does without the plugin.
class KwalkConsumer : public ASTConsumer {
  public:
    explicit KwalkConsumer(std::shared_ptr<JobState> S) : State(std::move(S)) {}

    void HandleTranslationUnit(ASTContext &Ctx) override {
        if (Ctx.getDiagnostics().hasErrorOccurred())
            return; // the compile itself failed: nothing to describe
        JobState &S = *State;
        {
            PhaseTimer T(S.Device ? S.Arch : std::string("host"), "consumer-total");
            limitToUserCode(Ctx);
            const char *Fault = std::getenv("KWALK_FAULT");
            if (Fault && std::string(Fault) == "internal")
                S.CaptureSt = kw_fail(&S.CaptureErr, "internal failure injected by KWALK_FAULT");
            else if (S.Device)
                S.CaptureSt = captureDevice(Ctx, S);
            else
                S.CaptureSt = captureHostJob(Ctx, S, &S.CaptureErr);
            // code generation runs next: the whole TU, as clang had it
            Ctx.setTraversalScope({Ctx.getTranslationUnitDecl()});
        }
        S.Captured = true;
        if (!S.PassWillRun) {
            if (!S.Device)
                waitForBackground(); // fragments a device job of this process writes
            finishJob(S);
        }
    }

  private:
    std::shared_ptr<JobState> State;
};

class KwalkAction : public PluginASTAction {
  protected:
    std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, llvm::StringRef) override {
        const LangOptions &LO = CI.getLangOpts();
        if (!LO.CUDA && !LO.HIP)
            return std::make_unique<ASTConsumer>(); // nothing to capture outside HIP/CUDA
        auto S = std::make_shared<JobState>();
        S->Device = LO.CUDAIsDevice;
        S->Arch = CI.getTargetOpts().CPU;
        S->Cuid = LO.CUID;
        if (!S->Cuid.empty())
            S->FragKey = S->Cuid + "." + driverKey();
        S->Out.OutDir = OutDir;
        S->Out.Zstd = Zstd;
        S->Out.Embed = Embed;
        S->Driver = readDriverView(spawnedCc1());
        S->IrOff = IrOff;
        S->EntryNames = EntryNames;
        if (!S->Device && !EntryError.empty())
            warn(EntryError);
        // Every job of the compile parses the same arguments: the host job,
        // or a device-only compile's first arch, says what was wrong.
        bool FirstArch = S->Driver.Archs.empty() || S->Driver.Archs[0] == S->Arch;
        if (!ArgError.empty() && (!S->Device || (S->Driver.DeviceOnly && FirstArch)))
            warn(ArgError);
        if (!CI.getFrontendOpts().Inputs.empty())
            S->Source = originalSource(
                S->Driver, absolute(std::string(CI.getFrontendOpts().Inputs[0].getFile())));
        decideOutput(*S, absolute(CI.getFrontendOpts().OutputFile));
        // The IR passes below finish the job where clang runs its optimizer
        // (every optimization level calls the OptimizerLast callbacks).
        frontend::ActionKind PA = CI.getFrontendOpts().ProgramAction;
        bool Codegen = PA == frontend::EmitObj || PA == frontend::EmitAssembly ||
                       PA == frontend::EmitBC || PA == frontend::EmitLLVM ||
                       PA == frontend::EmitLLVMOnly || PA == frontend::EmitCodeGenOnly;
        S->PassWillRun = Codegen && !CI.getCodeGenOpts().DisableLLVMPasses;
        if (!S->Device)
            S->GpuBinary = CI.getCodeGenOpts().CudaGpuBinaryFileName;
        if (S->Device) {
            // Loop and access lines: without -g the optimized IR carries no
            // locations. Location tracking (what clang itself turns on for
            // -Rpass remarks) keeps them in the IR and emits no debug info
            // into a code object, so the object is unchanged
            // (capture.objects_identical, aiter.identical check it). Only
            // where the job writes a code object: bitcode (-fgpu-rdc,
            // -save-temps, -emit-llvm, LTO) would carry the locations. The
            // CodeGenModule reads this option when the consumers are
            // initialized, after this call.
            const CodeGenOptions &CG = CI.getCodeGenOpts();
            bool WritesObject = CI.getFrontendOpts().ProgramAction == frontend::EmitObj &&
                                !CG.PrepareForLTO && !CG.PrepareForThinLTO;
            // By default one device job per compile tracks them (the pages
            // read IR-fact lines from one arch): kw_lines_owner.h. Not where
            // each job writes a sidecar of its own (a device-only compile):
            // each must stand alone.
            bool Track =
                !LinesOff && WritesObject && CG.getDebugInfo() == llvm::codegenoptions::NoDebugInfo;
            if (Track && !LinesAll && S->HostFollows)
                S->LinesIn = linesOwnerElsewhere(S->Arch, S->Driver.Archs);
            if (Track && S->LinesIn.empty()) {
                CI.getCodeGenOpts().setDebugInfo(llvm::codegenoptions::LocTrackingOnly);
                // Lines only: IR facts cite file:line, never a column, and
                // without columns the IR holds fewer distinct locations (about
                // half of what tracking costs in memory on aiter's TUs).
                CI.getCodeGenOpts().DebugColumnInfo = false;
                S->DropLocations = true;
            }
            CI.getCodeGenOpts().PassBuilderCallbacks.push_back([S](llvm::PassBuilder &PB) {
                PB.registerOptimizerLastEPCallback(
                    [S](llvm::ModulePassManager &MPM, llvm::OptimizationLevel, auto...) {
                        MPM.addPass(EmittedKernelsPass(S));
                    });
            });
        } else {
            CI.getCodeGenOpts().PassBuilderCallbacks.push_back([S](llvm::PassBuilder &PB) {
                PB.registerOptimizerLastEPCallback([S](llvm::ModulePassManager &MPM,
                                                       llvm::OptimizationLevel,
                                                       auto...) { MPM.addPass(HostEmbedPass(S)); });
            });
        }
        return std::make_unique<KwalkConsumer>(S);
    }

    bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &Args) override {
        if (const char *Env = std::getenv("KWALK_OUT"))
            OutDir = Env;
        if (const char *Env = std::getenv("KWALK_IR"))
            setIr(Env, "KWALK_IR");
        if (const char *Env = std::getenv("KWALK_LINES"))
            setLines(Env, "KWALK_LINES");
        if (const char *Env = std::getenv("KWALK_COMPRESS"))
            setCompress(Env, "KWALK_COMPRESS");
        if (const char *Env = std::getenv("KWALK_EMBED"))
            setEmbed(Env, "KWALK_EMBED");
        std::string EntryFile;
        if (const char *Env = std::getenv("KWALK_ENTRYPOINTS"))
            EntryFile = Env;
        for (const std::string &A : Args) {
            if (A.rfind("out=", 0) == 0)
                OutDir = A.substr(4);
            else if (A.rfind("ir=", 0) == 0)
                setIr(A.substr(3), "-fplugin-arg-kwalk-ir");
            else if (A.rfind("lines=", 0) == 0)
                setLines(A.substr(6), "-fplugin-arg-kwalk-lines");
            else if (A.rfind("entrypoints=", 0) == 0)
                EntryFile = A.substr(12);
            else if (A.rfind("compress=", 0) == 0)
                setCompress(A.substr(9), "-fplugin-arg-kwalk-compress");
            else if (A == "embed")
                Embed = true;
            else if (A.rfind("embed=", 0) == 0)
                setEmbed(A.substr(6), "-fplugin-arg-kwalk-embed");
            else
                argProblem("unknown plugin argument '" + A +
                           "' (known: out=DIR, ir=on|off, lines=on|all|off, entrypoints=FILE, "
                           "compress=zstd|none, embed[=on|off])");
        }
        // A bad file costs its names (the host job says so, once per compile).
        EntryNames = defaultEntryNames();
        if (!EntryFile.empty() && !readEntryNames(EntryFile, EntryNames, EntryError))
            EntryError = "entry points: " + EntryError;
        if (!OutDir.empty())
            OutDir = absolute(OutDir);
        return true; // never stop the compile
    }

    // Before the main action: the capture reads the AST before clang's code
    // generation (which may then free it), and the IR passes finish the job.
    ActionType getActionType() override {
        return AddBeforeMainAction;
    }

  private:
    std::string OutDir;
    bool IrOff = false;
    bool LinesOff = false;
    bool LinesAll = false;
    bool Zstd = true;
    bool Embed = false;
    std::set<std::string> EntryNames;
    std::string EntryError;
    // What was wrong with the arguments or variables: said once per compile,
    // by the job that reports for it (CreateASTConsumer).
    std::string ArgError;

    void argProblem(const std::string &Msg) {
        ArgError += (ArgError.empty() ? "" : "; ") + Msg;
    }

    // ir=off leaves the IR analysis out (an escape hatch should it ever
    // misbehave); ir=on is the default. The argument wins over the variable.
    void setIr(const std::string &V, const char *From) {
        if (V == "off" || V == "on")
            IrOff = V == "off";
        else
            argProblem(std::string("unknown value '") + V + "' of " + From + " (known: on, off)");
    }

    // compress=zstd (the default) writes the sidecar as one zstd frame of its
    // YAML, FILE.kwalk.yaml.zst; compress=none writes FILE.kwalk.yaml.
    void setCompress(const std::string &V, const char *From) {
        if (V == "zstd" || V == "none")
            Zstd = V == "zstd";
        else
            argProblem(std::string("unknown value '") + V + "' of " + From +
                       " (known: zstd, none)");
    }

    // embed (embed=on, KWALK_EMBED=1 or on) puts the host job's sidecar into
    // the host object (kw_embed_sidecar.h) instead of a file; off (0) is the default.
    void setEmbed(const std::string &V, const char *From) {
        if (V == "on" || V == "1" || V == "off" || V == "0")
            Embed = V == "on" || V == "1";
        else
            argProblem(std::string("unknown value '") + V + "' of " + From +
                       " (known: on, off, 1, 0)");
    }

    // lines=on (the default) turns location tracking on in one device job
    // per compile (kw_lines_owner.h), lines=all in every one; lines=off leaves
    // the device jobs' debug-info setting alone: no location tracking, so IR
    // facts (loops, accesses) have no source lines in a compile without -g.
    void setLines(const std::string &V, const char *From) {
        if (V == "off" || V == "on" || V == "all") {
            LinesOff = V == "off";
            LinesAll = V == "all";
        } else {
            argProblem(std::string("unknown value '") + V + "' of " + From +
                       " (known: on, all, off)");
        }
    }
};

} // namespace
} // namespace kwalk

namespace {

// The clang major the running compiler reports ("... clang version 22.1.8 ...").
int runtimeClangMajor() {
    std::string V = clang::getClangFullVersion();
    size_t P = V.find("version ");
    return P == std::string::npos ? -1 : std::atoi(V.c_str() + P + 8);
}

// A plugin only works inside the clang major it was built against. The loader
// (kw_loader.cpp, libkwalk.so) checks before it loads this file; this is the
// second check, for a clang that did not tell the loader its major and still
// resolved every symbol (or for this file given to -fplugin= directly): in any
// other major it refuses, with one line, instead of registering (and crashing).
struct Registration {
    Registration() {
        int Major = runtimeClangMajor();
        if (Major != CLANG_VERSION_MAJOR) {
            kwalk::warn("this plugin was built for clang " + std::to_string(CLANG_VERSION_MAJOR) +
                        " but is loaded into clang " + std::to_string(Major) +
                        "; it stays off: rebuild kwalk against this clang with "
                        "-DLLVM_DIR/-DClang_DIR of its prefix");
            return;
        }
        static clang::FrontendPluginRegistry::Add<kwalk::KwalkAction> X(
            "kwalk", "capture HIP kernel instantiations, launch sites and dispatch paths");
    }
} TheRegistration;

} // namespace
