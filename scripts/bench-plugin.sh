#!/usr/bin/env bash
# bench-plugin.sh: what the plugin costs a real build. For each TU of the aiter
# fixture (../shared/fixtures/aiter-hip), compiles it N times without and N
# times with libkwalk.so, alternating, with the fixture's own flags, and
# prints per TU: median wall time of each and their ratio, peak memory (max
# RSS of the compile's process tree) of each and their ratio, object size,
# sidecar size and their ratio. Targets (issue 10): wall <= 1.05x, memory
# <= 1.10x, sidecar <= 1x the object.
#   scripts/bench-plugin.sh [BUILD_DIR [N [TU...]]]   (default: build 3, all TUs)
# BUILD_DIR holds a built plugin and hip-compat.rsp (scripts/demo.sh builds one).
# Run it on an otherwise idle machine: it measures wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
N=${2:-3}
shift 2 2>/dev/null || shift $#
FIXTURE=$PWD/../shared/fixtures/aiter-hip
if [ ! -f "$FIXTURE/compile.sh" ]; then
  echo "bench-plugin: the aiter fixture $FIXTURE is absent" >&2
  exit 1
fi
RSP=$PWD/$BUILD/hip-compat/hip-compat.rsp
PLUGIN=$PWD/$BUILD/plugin/libkwalk.so
for f in "$RSP" "$PLUGIN"; do
  [ -f "$f" ] || { echo "bench-plugin: $f is missing: build first (scripts/demo.sh)" >&2; exit 1; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kwalk-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# One compile per TU through the argument logger gives each TU's exact command.
mkdir -p "$WORK/argv"
CXX=$PWD/tests/aiter/argv_logger.py KW_REAL_CXX=${CXX:-/usr/lib/llvm-22/bin/clang++} \
  KW_ARGV_DIR=$WORK/argv bash "$FIXTURE/compile.sh" "$WORK/first" "$RSP" "" "$@" >/dev/null
exec python3 - "$WORK" "$PLUGIN" "$N" <<'EOF'
import json, os, statistics, sys, time
work, plugin, n = sys.argv[1], sys.argv[2], int(sys.argv[3])

def compile_once(rec, obj, side):
    argv = list(rec["argv"])
    argv[argv.index("-o") + 1] = obj
    if side:
        argv += ["-fplugin=" + plugin, "-fplugin-arg-kwalk-out=" + side]
    real = os.environ.get("CXX", "/usr/lib/llvm-22/bin/clang++")
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        os.chdir(rec["cwd"])
        os.execv(real, [real] + argv)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("bench-plugin: a compile failed: %s" % " ".join(argv))
    return wall, ru.ru_maxrss * 1024

def mib(b): return "%.1f" % (b / 1048576.0)
print("%-26s %8s %8s %6s %9s %9s %6s %8s %8s %6s" % ("TU", "plain s", "kwalk s", "x",
      "plain MiB", "kwalk MiB", "x", "obj MiB", "side MiB", "x"))
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
            res[mode].append(compile_once(rec, os.path.join(work, "%s.%s.o" % (tu, mode)), side))
    pw = statistics.median(w for w, _ in res["plain"]); kw = statistics.median(w for w, _ in res["kwalk"])
    pm = max(m for _, m in res["plain"]); km = max(m for _, m in res["kwalk"])
    obj = os.path.getsize(os.path.join(work, "%s.plain.o" % tu))
    sdir = os.path.join(work, "side-" + tu)
    side = sum(os.path.getsize(os.path.join(sdir, f)) for f in os.listdir(sdir) if f.endswith(".kwalk.yaml"))
    print("%-26s %8.2f %8.2f %6.3f %9s %9s %6.3f %8s %8s %6.2f" % (tu, pw, kw, kw / pw, mib(pm),
          mib(km), km / pm, mib(obj), mib(side), side / obj if obj else float("inf")))
EOF
