// kw_driver.h: what the user asked the clang driver for, read from the
// driver's own command line with clang's own option table. A cc1 job sees only
// its own arguments, where the output may be a driver temporary (-fgpu-rdc,
// -save-temps, linking, bundled device-only output); the sidecar must be named
// after the output the user named, and no fragment may be left for a host
// job that will never run (device-only, -fsyntax-only).
#ifndef KW_DRIVER_H
#define KW_DRIVER_H

#include <string>
#include <vector>

namespace kwalk {

struct DriverView {
    bool Known = false;              // the driver's command line was found and parsed
    std::string Output;              // the user's -o, absolute ("" when none was given)
    std::vector<std::string> Inputs; // source files, absolute
    bool Compile = false;            // -c
    bool Assemble = false;           // -S
    bool Preprocess = false;         // -E
    bool SyntaxOnly = false;         // -fsyntax-only
    bool DeviceOnly = false;         // --offload-device-only / --cuda-device-only
    bool HostOnly = false;           // --offload-host-only / --cuda-host-only
    bool Rdc = false;                // -fgpu-rdc
    bool SaveTemps = false;          // -save-temps[=...]
    std::vector<std::string> Archs;  // --offload-arch= values, in order, less --no-offload-arch=
};

// The command line of the clang driver running this cc1 job: this process
// (integrated cc1) or its parent (-fno-integrated-cc1). Spawned says which.
// Without a driver (clang -cc1 run by hand) the view is not Known.
DriverView readDriverView(bool Spawned);

// The output the user will get for Source: the driver's -o, else the name the
// driver gives it in the working directory (base.o for -c, base.s for -S).
// "" when the user asked for no file (-fsyntax-only, -E to stdout, -o -).
std::string userOutput(const DriverView &D, const std::string &Source);

} // namespace kwalk

#endif
