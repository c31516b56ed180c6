// kw_driver.cpp: the clang driver's command line, parsed with clang's own
// driver option table (so every spelling and alias of -o, -c, -S,
// --offload-device-only, -fgpu-rdc, -save-temps is understood as the driver
// understands it), response files expanded as the driver expands them.
#include "kw_driver.h"

#include <algorithm>

#if __has_include("clang/Options/Options.h")
#include "clang/Options/Options.h" // clang 22 and later
namespace kwopts = clang::options;
static const llvm::opt::OptTable &driverTable() {
    return clang::getDriverOptTable();
}
#else
#include "clang/Driver/Options.h"
namespace kwopts = clang::driver::options;
static const llvm::opt::OptTable &driverTable() {
    return clang::driver::getDriverOptTable();
}
#endif

#include "llvm/ADT/SmallString.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <fstream>
#include <iterator>
#include <unistd.h>

namespace kwalk {
namespace {

bool readProcFile(const std::string &Path, std::string &Out) {
    std::ifstream F(Path, std::ios::binary);
    if (!F)
        return false;
    Out.assign(std::istreambuf_iterator<char>(F), std::istreambuf_iterator<char>());
    return true;
}

std::string readLink(const std::string &Path) {
    llvm::SmallString<256> Buf;
    if (llvm::sys::fs::real_path(Path, Buf))
        return std::string();
    return std::string(Buf);
}

std::string absoluteIn(const std::string &Dir, const std::string &P) {
    if (P.empty() || P == "-")
        return P;
    llvm::SmallString<256> S(P);
    if (!llvm::sys::path::is_absolute(S)) {
        S = Dir;
        llvm::sys::path::append(S, P);
    }
    llvm::sys::path::remove_dots(S, true);
    return std::string(S);
}

} // namespace

DriverView readDriverView(bool Spawned) {
    DriverView D;
    std::string Pid = Spawned ? std::to_string(getppid()) : "self";
    // A spawned cc1 has the driver as its parent only when both run the same
    // executable (the driver starts cc1 from its own path); a cc1 started by a
    // script or by hand has no driver.
    if (Spawned && readLink("/proc/" + Pid + "/exe") != readLink("/proc/self/exe"))
        return D;
    std::string Raw;
    if (!readProcFile("/proc/" + Pid + "/cmdline", Raw) || Raw.empty())
        return D;
    std::string Cwd = readLink("/proc/" + Pid + "/cwd");
    llvm::BumpPtrAllocator Alloc;
    llvm::StringSaver Saver(Alloc);
    llvm::SmallVector<const char *, 64> Argv;
    for (size_t I = 0; I < Raw.size();) {
        size_t E = Raw.find('\0', I);
        if (E == std::string::npos)
            E = Raw.size();
        Argv.push_back(Saver.save(llvm::StringRef(Raw.data() + I, E - I)).data());
        I = E + 1;
    }
    if (Argv.size() < 2 || llvm::StringRef(Argv[1]).starts_with("-cc1"))
        return D; // a cc1 job of its own: no driver to ask
    llvm::cl::ExpansionContext ECtx(Alloc, llvm::cl::TokenizeGNUCommandLine);
    ECtx.setCurrentDir(Cwd);
    if (llvm::Error Err = ECtx.expandResponseFiles(Argv)) {
        llvm::consumeError(std::move(Err));
        return D;
    }
    unsigned MissingIndex = 0, MissingCount = 0;
    llvm::opt::InputArgList Args = driverTable().ParseArgs(
        llvm::ArrayRef<const char *>(Argv).drop_front(), MissingIndex, MissingCount);
    D.Known = true;
    if (const llvm::opt::Arg *O = Args.getLastArg(kwopts::OPT_o))
        D.Output = O->getValue() == llvm::StringRef("-") ? "-" : absoluteIn(Cwd, O->getValue());
    for (const llvm::opt::Arg *A : Args.filtered(kwopts::OPT_INPUT))
        D.Inputs.push_back(absoluteIn(Cwd, A->getValue()));
    // The archs the driver compiles for, as it reads them: in order, each
    // option's values (a comma-separated list), --no-offload-arch= removing
    // one (all: every one named so far).
    for (const llvm::opt::Arg *A :
         Args.filtered(kwopts::OPT_offload_arch_EQ, kwopts::OPT_no_offload_arch_EQ)) {
        bool Add = A->getOption().matches(kwopts::OPT_offload_arch_EQ);
        llvm::SmallVector<llvm::StringRef, 4> Values;
        for (const char *Value : A->getValues())
            llvm::StringRef(Value).split(Values, ',', -1, false);
        for (llvm::StringRef V : Values) {
            if (!Add && V == "all")
                D.Archs.clear();
            D.Archs.erase(std::remove(D.Archs.begin(), D.Archs.end(), V.str()), D.Archs.end());
            if (Add)
                D.Archs.push_back(V.str());
        }
    }
    D.Compile = Args.hasArg(kwopts::OPT_c);
    D.Assemble = Args.hasArg(kwopts::OPT_S);
    D.Preprocess = Args.hasArg(kwopts::OPT_E);
    D.SyntaxOnly = Args.hasArg(kwopts::OPT_fsyntax_only);
    D.DeviceOnly = Args.hasArg(kwopts::OPT_offload_device_only);
    D.HostOnly = Args.hasArg(kwopts::OPT_offload_host_only);
    D.Rdc = Args.hasFlag(kwopts::OPT_fgpu_rdc, kwopts::OPT_fno_gpu_rdc, false);
    D.SaveTemps = Args.hasArg(kwopts::OPT_save_temps_EQ);
    return D;
}

std::string userOutput(const DriverView &D, const std::string &Source) {
    if (D.SyntaxOnly || D.Preprocess)
        return std::string();
    if (!D.Output.empty())
        return D.Output == "-" ? std::string() : D.Output;
    llvm::SmallString<256> P;
    llvm::sys::fs::current_path(P);
    if (!D.Compile && !D.Assemble) {
        llvm::sys::path::append(P, "a.out");
        return std::string(P);
    }
    std::string Base = std::string(llvm::sys::path::stem(Source));
    llvm::sys::path::append(P, Base + (D.Assemble ? ".s" : ".o"));
    return std::string(P);
}

} // namespace kwalk
