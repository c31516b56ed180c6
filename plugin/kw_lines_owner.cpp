// kw_lines_owner.cpp: the device job that tracks source locations, chosen
// from the driver's archs (kw_lines_owner.h).
#include "plugin/kw_lines_owner.h"

namespace kwalk {
namespace {

// The processor without target features: "gfx942:xnack-" is gfx942.
std::string processor(const std::string &Arch) {
    return Arch.substr(0, Arch.find(':'));
}

} // namespace

std::string linesOwnerElsewhere(const std::string &Arch,
                                const std::vector<std::string> &DriverArchs) {
    std::string Mine = processor(Arch), First;
    bool Listed = false;
    for (const std::string &A : DriverArchs) {
        std::string P = processor(A);
        Listed |= P == Mine;
        if (!P.empty() && (First.empty() || P < First))
            First = P;
    }
    // An arch the driver's list does not name (none given, "native", an arch
    // from the environment) cannot be compared: track.
    if (!Listed || First == Mine)
        return "";
    return First;
}

} // namespace kwalk
