#!/usr/bin/env bash
# bench-plugin.sh: the plugin's cost on a compile. Compiles the largest corpus
# TU with and without -fplugin=libkwalk.so in alternating runs (so machine
# drift hits both alike), and prints the median wall time of each, their ratio,
# and the peak memory (max RSS of any compiler process) both ways.
#   scripts/bench-plugin.sh [BUILD_DIR] [RUNS]     (defaults: build, 7)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNS=${2:-7}
PLUGIN="$BUILD/plugin/libkwalk.so"
RSP="$BUILD/hip-compat/hip-compat.rsp"
[ -f "$PLUGIN" ] && [ -f "$RSP" ] || { echo "bench: build first (scripts/demo.sh)"; exit 1; }
CLANGXX=$(sed -n 's/^KWALK_CLANGXX:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || true)
CLANGXX=${CLANGXX:-/usr/lib/llvm-22/bin/clang++}
SRC=$(ls -S tests/corpus/*.hip | head -1)
PY_INC=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

compile() { # $1 = with|without ; prints "seconds maxrss_kb"
  local extra=()
  [ "$1" = with ] && extra=("-fplugin=$PLUGIN" "-fplugin-arg-kwalk-out=$TMP/out")
  /usr/bin/time -f "%e %M" -o "$TMP/time" "$CLANGXX" -x hip "@$RSP" \
    --offload-arch=gfx942 --offload-arch=gfx950 -O3 -std=c++20 \
    -fgpu-flush-denormals-to-zero -mllvm -amdgpu-early-inline-all=true \
    -mllvm -amdgpu-function-calls=false -Itests/corpus/include -I"$PY_INC" \
    -cuid=bench "${extra[@]}" -c "$SRC" -o "$TMP/$1.o"
  cat "$TMP/time"
}

echo "bench: $SRC, $RUNS runs each way, alternating"
compile without >/dev/null; compile with >/dev/null   # warm the page cache
: > "$TMP/with"; : > "$TMP/without"
for i in $(seq "$RUNS"); do
  compile without >> "$TMP/without"
  compile with >> "$TMP/with"
done
python3 - "$TMP/without" "$TMP/with" <<'PY'
import statistics, sys
def load(p):
    rows = [l.split() for l in open(p) if l.strip()]
    return [float(r[0]) for r in rows], [int(r[1]) for r in rows]
t0, m0 = load(sys.argv[1]); t1, m1 = load(sys.argv[2])
a, b = statistics.median(t0), statistics.median(t1)
print(f"without plugin: median {a:.3f} s  peak RSS {max(m0)/1024:.1f} MiB")
print(f"with plugin:    median {b:.3f} s  peak RSS {max(m1)/1024:.1f} MiB")
print(f"ratio (with/without): {b/a:.3f}x   peak memory ratio: {max(m1)/max(m0):.3f}x")
PY
