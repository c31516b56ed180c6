// kw_loader.cpp: libkwalk.so, the file given to -fplugin=. It references no
// Clang or LLVM symbol, so it loads into any clang. Its ELF constructor finds
// the major of the clang that loaded it and, only when that is the major kwalk
// was built for (KWALK_CLANG_MAJOR), loads the real plugin,
// libkwalk-clang<major>.so beside it, whose static registration then registers
// "kwalk" with clang. A clang of another major, or a real plugin that cannot be
// loaded, costs one "kwalk: warning:" line; the compile goes on unchanged.
#include "kw_warn.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef KWALK_CLANG_MAJOR
#error "KWALK_CLANG_MAJOR: the clang major the real plugin is built against"
#endif

namespace {

using kwalk::warn;

// The major in "... clang version 22.1.8 (...)", or -1.
int majorOfVersionText(const std::string &V) {
    size_t P = V.find("version ");
    if (P == std::string::npos)
        return -1;
    int M = std::atoi(V.c_str() + P + 8);
    return M > 0 ? M : -1;
}

// 1. clang::getClangFullVersion(), what `clang --version` prints and what the
// real plugin checks again; exported by every clang that takes plugins, a
// statically linked ROCm clang included. Looked up by its mangled name (the
// libstdc++ C++11 string ABI; another ABI has another name and is not found).
int majorFromClang() {
    using Fn = std::string (*)();
    void *Sym = dlsym(RTLD_DEFAULT, "_ZN5clang19getClangFullVersionB5cxx11Ev");
    return Sym ? majorOfVersionText(reinterpret_cast<Fn>(Sym)()) : -1;
}

// 2. LLVMGetVersion of the LLVM C API (LLVM 16 and later).
int majorFromLLVM() {
    using Fn = void (*)(unsigned *, unsigned *, unsigned *);
    void *Sym = dlsym(RTLD_DEFAULT, "LLVMGetVersion");
    if (!Sym)
        return -1;
    unsigned Major = 0, Minor = 0, Patch = 0;
    reinterpret_cast<Fn>(Sym)(&Major, &Minor, &Patch);
    return Major > 0 && Major < 1000 ? static_cast<int>(Major) : -1;
}

// 3. The file name of a loaded libclang-cpp.so.NN, libLLVM.so.NN or
// libLLVM-NN.so (a dynamically linked clang).
int majorOfLibraryName(const char *Path) {
    const char *Base = std::strrchr(Path, '/');
    Base = Base ? Base + 1 : Path;
    for (const char *Prefix : {"libclang-cpp.so.", "libLLVM.so.", "libLLVM-"}) {
        size_t N = std::strlen(Prefix);
        if (std::strncmp(Base, Prefix, N) == 0 && Base[N] >= '1' && Base[N] <= '9')
            return std::atoi(Base + N);
    }
    return -1;
}

int majorFromLibraries() {
    int Major = -1;
    dl_iterate_phdr(
        [](dl_phdr_info *Info, size_t, void *Data) {
            int M = Info->dlpi_name ? majorOfLibraryName(Info->dlpi_name) : -1;
            if (M > 0)
                *static_cast<int *>(Data) = M;
            return M > 0 ? 1 : 0;
        },
        &Major);
    return Major;
}

int hostClangMajor() {
    int M = majorFromClang();
    if (M < 0)
        M = majorFromLLVM();
    if (M < 0)
        M = majorFromLibraries();
    return M;
}

// The installation of the running clang (<prefix>/bin/clang -> <prefix>), for
// the rebuild hint; empty if unknown.
std::string hostClangPrefix() {
    char Exe[PATH_MAX];
    if (!realpath("/proc/self/exe", Exe))
        return std::string();
    std::string P(Exe);
    size_t Slash = P.rfind('/');
    if (Slash == std::string::npos)
        return std::string();
    P.erase(Slash); // .../bin
    Slash = P.rfind('/');
    if (Slash == std::string::npos || P.compare(Slash, std::string::npos, "/bin") != 0)
        return std::string();
    P.erase(Slash);
    return P;
}

// The NUL-separated arguments of a process (/proc/<pid>/cmdline).
std::vector<std::string> commandLine(const std::string &Pid) {
    std::vector<std::string> Args;
    FILE *F = std::fopen(("/proc/" + Pid + "/cmdline").c_str(), "rb");
    if (!F)
        return Args;
    std::string Cur;
    for (int C; (C = std::fgetc(F)) != EOF;) {
        if (C) {
            Cur += static_cast<char>(C);
        } else {
            Args.push_back(Cur);
            Cur.clear();
        }
    }
    std::fclose(F);
    return Args;
}

bool has(const std::vector<std::string> &Args, const char *Flag) {
    for (const std::string &A : Args)
        if (A == Flag)
            return true;
    return false;
}

// One compile, one warning. A HIP compile of several jobs runs each cc1 job
// as a child process of the clang driver, and each loads the plugin: the
// device jobs stay quiet when the driver will run a host job after them (no
// --cuda-device-only / --offload-device-only), which then says it once. A
// single job runs inside the driver (no "-cc1" argument) and says it.
bool quietJob() {
    std::vector<std::string> Self = commandLine("self");
    if (Self.size() < 2 || Self[1] != "-cc1" || !has(Self, "-fcuda-is-device"))
        return false;
    std::vector<std::string> Driver = commandLine(std::to_string(getppid()));
    if (Driver.empty() || Driver[0].find("clang") == std::string::npos)
        return false; // a cc1 run by something else than the driver
    return !has(Driver, "--cuda-device-only") && !has(Driver, "--offload-device-only");
}

std::string directoryOf(const std::string &Path) {
    size_t Slash = Path.rfind('/');
    return Slash == std::string::npos ? std::string(".") : Path.substr(0, Slash);
}

// libkwalk-clangNN.so beside this file: beside the path it was loaded by, else
// beside the file that path resolves to (libkwalk.so may be a symbolic link).
std::string realPluginPath() {
    Dl_info Info;
    if (!dladdr(reinterpret_cast<void *>(&realPluginPath), &Info) || !Info.dli_fname)
        return std::string();
    std::string Name = "/libkwalk-clang" + std::to_string(KWALK_CLANG_MAJOR) + ".so";
    std::string Near = directoryOf(Info.dli_fname) + Name;
    if (access(Near.c_str(), F_OK) == 0)
        return Near;
    char Resolved[PATH_MAX];
    if (realpath(Info.dli_fname, Resolved))
        return directoryOf(Resolved) + Name;
    return Near;
}

void load() {
    int Major = hostClangMajor();
    if (Major > 0 && Major != KWALK_CLANG_MAJOR) {
        if (quietJob())
            return;
        std::string Prefix = hostClangPrefix();
        std::string Root = Prefix.empty() ? std::string("<this clang's prefix>") : Prefix;
        warn("this plugin was built for clang " + std::to_string(KWALK_CLANG_MAJOR) +
             " but is loaded into clang " + std::to_string(Major) +
             "; it stays off: rebuild kwalk against this clang with -DLLVM_DIR=" + Root +
             "/lib/cmake/llvm -DClang_DIR=" + Root + "/lib/cmake/clang");
        return;
    }
    // The same major, or a clang that does not say: load. A clang of another
    // major that did not say fails the load (unresolved symbols, RTLD_NOW)
    // or the real plugin's own check, each one warning.
    std::string Path = realPluginPath();
    if (Path.empty()) {
        warn("cannot tell where libkwalk.so was loaded from; the plugin stays off");
        return;
    }
    if (!dlopen(Path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
        const char *Err = dlerror();
        warn("cannot load the plugin for clang " + std::to_string(KWALK_CLANG_MAJOR) + " (" +
             (Err ? Err : Path.c_str()) + "); it stays off");
    }
}

__attribute__((constructor)) void kwalkLoaderInit() {
    load();
}

} // namespace
