// kw_lines_owner.h: which device job of a compile tracks source locations for
// the IR facts. Location tracking costs a device job about 4 % of its
// instructions (clang's and LLVM's own work: docs/plugin.md), and pages read
// IR-fact lines from one arch only, so by default one device job per compile
// tracks them: the one of the alphabetically first arch the driver compiles
// for. The driver runs each job of a multi-job compile in a cc1 process of
// its own, so the choice is made from the driver's command line alone; where
// that cannot name the job's arch, the job tracks them (more jobs, never none).
#ifndef KW_LINES_OWNER_H
#define KW_LINES_OWNER_H

#include <string>
#include <vector>

namespace kwalk {

// A device job for Arch (clang's -target-cpu) asks whether to track the
// locations: "" yes, else the arch of the job of the same compile that does.
// DriverArchs: the archs the driver compiles for (DriverView::Archs, target
// features allowed: gfx942:xnack-).
std::string linesOwnerElsewhere(const std::string &Arch,
                                const std::vector<std::string> &DriverArchs);

} // namespace kwalk

#endif
