// kw_output.cpp: file placement, fragment exchange and the failure warning.
#include "kw_output.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

extern "C" {
#include "common/kw_fs.h"
#include "sidecar/kw_sidecar_pack.h"
}

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <unistd.h>
#include <vector>

namespace kwalk {

std::string fragmentDir(const OutputOptions &O) {
    llvm::SmallString<256> Dir;
    if (!O.OutDir.empty()) {
        Dir = O.OutDir;
        llvm::sys::path::append(Dir, ".kwalk-fragments");
    } else {
        llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Dir);
        llvm::sys::path::append(Dir, "kwalk-fragments-" + std::to_string(getuid()));
    }
    return std::string(Dir);
}

std::string fragmentPath(const OutputOptions &O, const std::string &Cuid,
                         const std::string &Arch) {
    llvm::SmallString<256> P(fragmentDir(O));
    llvm::sys::path::append(P, Cuid + "." + Arch + KW_FRAGMENT_SUFFIX);
    return std::string(P);
}

std::string sidecarPath(const OutputOptions &O, const std::string &Object,
                        const std::string &Source, const std::string &Cuid) {
    bool HaveObject = !Object.empty() && Object != "-" && Object != "/dev/null";
    if (O.OutDir.empty()) {
        if (HaveObject)
            return Object + ".kwalk.yaml";
        return Source + ".kwalk.yaml";
    }
    // Several builds may share one output directory: the cuid keeps the
    // sidecars of two objects with the same name apart.
    llvm::SmallString<256> P(O.OutDir);
    std::string Base = std::string(llvm::sys::path::filename(HaveObject ? Object : Source));
    if (!Cuid.empty())
        Base += "." + Cuid.substr(0, 16);
    llvm::sys::path::append(P, Base + ".kwalk.yaml");
    return std::string(P);
}

// The files of Dir whose names start with Prefix and end with Suffix, sorted.
static std::vector<std::string> filesOf(const std::string &Dir, const std::string &Prefix,
                                        const std::string &Suffix) {
    std::vector<std::string> Paths;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
        llvm::StringRef Name = llvm::sys::path::filename(It->path());
        if (Name.starts_with(Prefix) && Name.ends_with(Suffix) &&
            Name.size() > Prefix.size() + Suffix.size())
            Paths.push_back(It->path());
    }
    std::sort(Paths.begin(), Paths.end());
    return Paths;
}

// Fragments and failure notes a day old belong to compiles that died before
// their host job ran (killed, out of memory): nothing will ever collect them.
static void removeStale(const std::string &Dir) {
    using namespace std::chrono;
    auto Now = system_clock::now();
    for (const std::string &P : filesOf(Dir, "", "")) {
        llvm::sys::fs::file_status St;
        if (!llvm::sys::fs::status(P, St) && St.type() == llvm::sys::fs::file_type::regular_file &&
            Now - St.getLastModificationTime() > hours(24))
            llvm::sys::fs::remove(P);
    }
}

kw_status mergeFragments(const OutputOptions &O, const std::string &Cuid, kw_sidecar &Doc,
                         size_t *Merged, kw_err *Err) {
    *Merged = 0;
    removeStale(fragmentDir(O));
    std::vector<std::string> Paths = filesOf(fragmentDir(O), Cuid + ".", KW_FRAGMENT_SUFFIX);
    kw_status Status = KW_OK;
    for (const std::string &P : Paths) {
        kw_sidecar Frag;
        kw_sidecar_init(&Frag);
        if (kw_sidecar_unpack_file(&Frag, P.c_str(), Err) != KW_OK ||
            kw_sidecar_merge_kernels(&Doc, &Frag, Err) != KW_OK)
            Status = KW_ERR;
        kw_sidecar_free(&Frag);
        llvm::sys::fs::remove(P);
        if (Status != KW_OK)
            break;
        ++*Merged;
    }
    // Under an output directory the fragment directory is the user's to see:
    // it goes once empty. rmdir fails while another compile's fragments are
    // in it, and a device job that finds it gone makes it again
    // (writeFragment).
    if (!O.OutDir.empty())
        ::rmdir(fragmentDir(O).c_str());
    return Status;
}

static std::string failureNotePath(const std::string &Cuid, const std::string &Arch) {
    llvm::SmallString<256> P(fragmentDir(OutputOptions()));
    llvm::sys::path::append(P, Cuid + "." + Arch + ".error");
    return std::string(P);
}

bool noteDeviceFailure(const std::string &Cuid, const std::string &Arch, const std::string &Msg) {
    if (Cuid.empty())
        return false;
    kw_err Err;
    std::string Dir = fragmentDir(OutputOptions());
    if (kw_fs_mkdirs(Dir.c_str(), &Err) != KW_OK)
        return false;
    std::string Text = Arch + " job: " + Msg;
    return kw_fs_write_atomic(failureNotePath(Cuid, Arch).c_str(), Text.data(), Text.size(),
                              &Err) == KW_OK;
}

void clearDeviceFailure(const std::string &Cuid, const std::string &Arch) {
    if (!Cuid.empty())
        llvm::sys::fs::remove(failureNotePath(Cuid, Arch));
}

std::string collectDeviceFailures(const std::string &Cuid) {
    std::vector<std::string> Paths = filesOf(fragmentDir(OutputOptions()), Cuid + ".", ".error");
    std::string Out;
    for (const std::string &P : Paths) {
        char *Data = nullptr;
        size_t Len = 0;
        kw_err Err;
        if (kw_fs_read(P.c_str(), &Data, &Len, &Err) == KW_OK) {
            if (!Out.empty())
                Out += "; ";
            Out.append(Data, Len);
            free(Data);
        }
        llvm::sys::fs::remove(P);
    }
    return Out;
}

} // namespace kwalk
