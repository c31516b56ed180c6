// kw_timing.h: the plugin's own cost counters, for scripts/bench-plugin.sh
// and for finding where its time goes. With KWALK_TIMING=FILE set, each phase
// of a job appends one line "<job> <phase> <cpu seconds> <max rss KiB>
// <minor faults>" to FILE (CPU time of the thread that ran the phase, a job's
// end may run on a thread of its own: kw_background.h; the process's peak
// resident size when it ended; the minor page faults that thread took while
// it ran). Unset (the default), a phase costs one getenv.
#ifndef KW_TIMING_H
#define KW_TIMING_H

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <sys/resource.h>

namespace kwalk {

class PhaseTimer {
  public:
    PhaseTimer(std::string Job, const char *Phase)
        : File(std::getenv("KWALK_TIMING")), Job(std::move(Job)), Phase(Phase) {
        if (File && *File) {
            Start = cpuNow();
            Faults = minorFaults();
        }
    }
    ~PhaseTimer() {
        if (!File || !*File)
            return;
        double Cpu = cpuNow() - Start;
        struct rusage RU, TU;
        long Rss = getrusage(RUSAGE_SELF, &RU) == 0 ? RU.ru_maxrss : -1;
        long Flt = Faults >= 0 && getrusage(RUSAGE_THREAD, &TU) == 0 ? TU.ru_minflt - Faults : -1;
        if (FILE *F = std::fopen(File, "a")) {
            std::fprintf(F, "%s %s %.4f %ld %ld\n", Job.c_str(), Phase, Cpu, Rss, Flt);
            std::fclose(F);
        }
    }
    PhaseTimer(const PhaseTimer &) = delete;
    PhaseTimer &operator=(const PhaseTimer &) = delete;

  private:
    static long minorFaults() {
        struct rusage RU;
        return getrusage(RUSAGE_THREAD, &RU) == 0 ? RU.ru_minflt : -1;
    }
    static double cpuNow() {
        struct timespec T;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
        return T.tv_sec + T.tv_nsec * 1e-9;
    }
    const char *File;
    std::string Job;
    const char *Phase;
    double Start = 0;
    long Faults = -1;
};

} // namespace kwalk

#endif
