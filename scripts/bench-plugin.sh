#!/usr/bin/env bash
# bench-plugin.sh: what the plugin costs a real build. For each TU of the aiter
# fixture (../shared/fixtures/aiter-hip; KW_BENCH_FIXTURE=DIR names another
# fixture with the same compile.sh interface, e.g. ../shared/fixtures/ck-tile),
# compiles it N times without and N
# times with libkwalk.so, alternating, with the fixture's own flags, and
# prints per TU: median wall time of each and their ratio, the median ratio of
# the pairs (each plugin compile against the plain one run next to it), median CPU time
# (user+sys of the compile's whole process tree: driver, cc1 jobs, linker,
# bundler) of each and their ratio, peak memory (max RSS of the process tree)
# of each and their ratio, object size, sidecar size and their ratio; then,
# per TU, minor page faults and system time of both kinds of compile, and
# the plugin's CPU time by phase (its KWALK_TIMING counters,
# plugin/kw_timing.h; median over the N compiles). Targets (issue 10): wall
# <= 1.05x, memory <= 1.10x, sidecar <= 1x the object.
#   scripts/bench-plugin.sh [BUILD_DIR [N [TU...]]]   (default: build 3, all TUs)
# BUILD_DIR holds a built plugin and hip-compat.rsp (scripts/demo.sh builds one).
# Wall time wants an otherwise idle machine; on a loaded one read the CPU
# time columns (CPU time is what the compile itself spent, whatever else runs).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
N=${2:-3}
shift 2 2>/dev/null || shift $#
FIXTURE=${KW_BENCH_FIXTURE:-$PWD/../shared/fixtures/aiter-hip}
if [ ! -f "$FIXTURE/compile.sh" ]; then
  echo "bench-plugin: the fixture $FIXTURE is absent" >&2
  exit 1
fi
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
RSP=$BUILD/hip-compat/hip-compat.rsp
PLUGIN=$BUILD/plugin/libkwalk.so
for f in "$RSP" "$PLUGIN"; do
  [ -f "$f" ] || { echo "bench-plugin: $f is missing: build first (scripts/demo.sh)" >&2; exit 1; }
done
# KW_BENCH_KEEP=DIR keeps the objects and sidecars there (for kwalk index / render).
if [ -n "${KW_BENCH_KEEP:-}" ]; then
  WORK=$KW_BENCH_KEEP; rm -rf "$WORK"; mkdir -p "$WORK"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwalk-bench.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
fi
# One pass of compile.sh through the argument logger (recording, not compiling)
# gives each TU's exact command.
# (The real compiler is named first: in one command's assignments bash expands
# ${CXX} after the CXX= before it, which made the logger exec itself forever.)
mkdir -p "$WORK/argv"
REAL_CXX=${CXX:-/usr/lib/llvm-22/bin/clang++}
CXX=$PWD/tests/aiter/argv_logger.py KW_REAL_CXX=$REAL_CXX KW_ARGV_ONLY=1 \
  KW_ARGV_DIR=$WORK/argv bash "$FIXTURE/compile.sh" "$WORK/first" "$RSP" "" "$@" >/dev/null
exec python3 - "$WORK" "$PLUGIN" "$N" <<'EOF'
import json, os, statistics, sys, time
work, plugin, n = sys.argv[1], sys.argv[2], int(sys.argv[3])

def compile_once(rec, obj, side, timing=None):
    argv = list(rec["argv"])
    argv[argv.index("-o") + 1] = obj
    env = dict(os.environ)
    env.pop("KWALK_TIMING", None)
    if side:
        argv += ["-fplugin=" + plugin, "-fplugin-arg-kwalk-out=" + side]
        if timing:
            env["KWALK_TIMING"] = timing
    real = os.environ.get("CXX", "/usr/lib/llvm-22/bin/clang++")
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.chdir(rec["cwd"])
        os.execve(real, [real] + argv, env)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("bench-plugin: a compile failed: %s" % " ".join(argv))
    return wall, ru.ru_maxrss * 1024, ru.ru_utime + ru.ru_stime, ru.ru_minflt, ru.ru_stime

def mib(b): return "%.1f" % (b / 1048576.0)
print("%-26s %7s %7s %6s %6s %7s %7s %6s %9s %9s %6s %8s %8s %6s" % ("TU", "plain s", "kwalk s", "x", "pair x",
      "p cpu s", "k cpu s", "x", "plain MiB", "kwalk MiB", "x", "obj MiB", "side MiB", "x"))
phases = {}
faults = {}
phase_faults = {}
pairs = {}
recs = sorted(os.listdir(os.path.join(work, "argv")))
for name in recs:
    rec = json.load(open(os.path.join(work, "argv", name)))
    tu = name[:-len(".o.json")]
    res = {"plain": [], "kwalk": []}
    for i in range(n):
        for mode in (("plain", "kwalk") if i % 2 == 0 else ("kwalk", "plain")):
            side = os.path.join(work, "side-" + tu) if mode == "kwalk" else None
            if side:
                os.makedirs(side, exist_ok=True)
            timing = os.path.join(work, "timing-%s-%d" % (tu, i)) if side else None
            res[mode].append(compile_once(rec, os.path.join(work, "%s.%s.o" % (tu, mode)), side, timing))
    pw = statistics.median(r[0] for r in res["plain"]); kw = statistics.median(r[0] for r in res["kwalk"])
    # each compile with the plugin against the plain one run next to it: the
    # machine's speed drifts between pairs more than within one
    pair = statistics.median(k[0] / p[0] for p, k in zip(res["plain"], res["kwalk"]))
    pm = max(r[1] for r in res["plain"]); km = max(r[1] for r in res["kwalk"])
    pc = statistics.median(r[2] for r in res["plain"]); kc = statistics.median(r[2] for r in res["kwalk"])
    pf = statistics.median(r[3] for r in res["plain"]); kf = statistics.median(r[3] for r in res["kwalk"])
    ps = statistics.median(r[4] for r in res["plain"]); ks = statistics.median(r[4] for r in res["kwalk"])
    faults[tu] = (pf, kf, ps, ks)
    pairs[tu] = [(p[0], k[0]) for p, k in zip(res["plain"], res["kwalk"])]
    # the plugin's own counters: "<job> <phase> <cpu s> <maxrss KiB> [<minor faults>]" per line
    per, flt = {}, {}
    for i in range(n):
        tf = os.path.join(work, "timing-%s-%d" % (tu, i))
        run, runf = {}, {}
        for line in open(tf) if os.path.exists(tf) else []:
            f = line.split()
            key = ("device" if f[0] != "host" else "host") + ":" + f[1]
            run[key] = run.get(key, 0.0) + float(f[2])
            if len(f) > 4 and int(f[4]) >= 0:
                runf[key] = runf.get(key, 0) + int(f[4])
        for k, v in run.items():
            per.setdefault(k, []).append(v)
        for k, v in runf.items():
            flt.setdefault(k, []).append(v)
    phases[tu] = {k: statistics.median(v) for k, v in per.items()}
    phase_faults[tu] = {k: statistics.median(v) for k, v in flt.items()}
    obj = os.path.getsize(os.path.join(work, "%s.plain.o" % tu))
    sdir = os.path.join(work, "side-" + tu)
    side = sum(os.path.getsize(os.path.join(sdir, f)) for f in os.listdir(sdir) if f.endswith((".kwalk.yaml", ".kwalk.yaml.zst")))
    print("%-26s %7.2f %7.2f %6.3f %6.3f %7.2f %7.2f %6.3f %9s %9s %6.3f %8s %8s %6.2f" % (tu, pw, kw,
          kw / pw, pair, pc, kc, kc / pc, mib(pm), mib(km), km / pm, mib(obj), mib(side),
          side / obj if obj else float("inf")), flush=True)
print("\nminor page faults and system CPU seconds of the compile's process tree (median; on a VM"
      " each fault can cost microseconds of system time the plugin's counters do not see)")
for tu, (pf, kf, ps, ks) in faults.items():
    print("%-26s faults %d -> %d (%+d)  sys s %.2f -> %.2f" % (tu, pf, kf, kf - pf, ps, ks))
print("\neach pair's wall seconds, plain / plugin, in the order run (the 2nd, 4th, ... ran the plugin first)")
for tu, runs in pairs.items():
    print("%-26s %s" % (tu, "  ".join("%.2f/%.2f" % r for r in runs)))
print("\nthe plugin's CPU seconds by phase (KWALK_TIMING; device phases summed over the archs)")
for tu, ph in phases.items():
    print("%-26s %s" % (tu, "  ".join("%s %.2f" % (k, v) for k, v in sorted(ph.items()))))
print("\nthe minor page faults taken during each of the plugin's phases (median)")
for tu, ph in phase_faults.items():
    print("%-26s %s" % (tu, "  ".join("%s %d" % (k, v) for k, v in sorted(ph.items()))))
EOF
