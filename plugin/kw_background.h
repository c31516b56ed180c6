// kw_background.h: the end of a job (merging the device fragments, writing the
// sidecar or a fragment) run on a thread of its own while clang generates
// code, so that a compile's wall time does not wait for it. The work touches
// only the plugin's own C data and files, never clang's AST or LLVM's IR.
#ifndef KW_BACKGROUND_H
#define KW_BACKGROUND_H

#include <functional>

namespace kwalk {

// Starts Work on a new thread, waited for before the process exits; runs it
// here, before returning, where no thread can be started.
void runInBackground(std::function<void()> Work);

// Waits for all work started by runInBackground in this process (a job that
// reads what an earlier job of the same process writes calls it first).
void waitForBackground();

} // namespace kwalk

#endif
