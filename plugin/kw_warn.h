// kw_warn.h: the plugin's one warning line, "kwalk: warning: <msg> (the
// compile goes on)", shared by the loader (kw_loader.cpp, which must reference
// no Clang or LLVM symbol) and the real plugin. One write of the whole line to
// stderr: a job's end may run on its own thread (kw_background.h) while clang
// prints diagnostics, and a Clang diagnostic could be turned into an error by
// -Werror.
#ifndef KW_WARN_H
#define KW_WARN_H

#include <cstdio>
#include <string>

namespace kwalk {

inline void warn(const std::string &Msg) {
    std::fprintf(stderr, "kwalk: warning: %s (the compile goes on)\n", Msg.c_str());
}

} // namespace kwalk

#endif
