#!/bin/sh
# bench_isa.sh: how fast the code-object library lists ISA, against
# llvm-objdump on the same code objects. Not a test (timings vary by machine);
# run it on a build without sanitizers. Target: ratio <= 1 (no slower than
# llvm-objdump).
#
#   tests/codeobj/bench_isa.sh [-n REPEAT] [-c "CMD"] FILE.co...
#
# CMD is the listing command, given each file as its last argument (default:
# "$KWCO_DUMP --yaml", i.e. every kernel's listing, classes and metadata in
# the sidecar's shape; "kwalk isa --format yaml" once it exists). The
# objdump side is `llvm-objdump -d --mcpu=ARCH FILE`, ARCH read from the file.
set -eu
n=5
cmd=
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift 2 ;;
    -c) cmd=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-n REPEAT] [-c CMD] FILE.co..." >&2; exit 2; }
: "${LLVM_BIN:=$(llvm-config-22 --bindir 2>/dev/null || echo /usr/lib/llvm-22/bin)}"
[ -n "$cmd" ] || cmd="${KWCO_DUMP:?set KWCO_DUMP or pass -c} --yaml"

now() { date +%s.%N; }
total_k=0
total_o=0
printf '%-48s %10s %10s %7s\n' file kwalk_s objdump_s ratio
for f in "$@"; do
  arch=$("$LLVM_BIN/llvm-readelf" --notes "$f" | sed -n 's/.*amdhsa.target: *amdgcn-amd-amdhsa--\([a-z0-9]*\).*/\1/p' | head -1)
  [ -n "$arch" ] || { echo "$f: no amdhsa.target" >&2; exit 1; }
  t0=$(now); i=0
  while [ $i -lt "$n" ]; do $cmd "$f" > /dev/null; i=$((i + 1)); done
  t1=$(now); i=0
  while [ $i -lt "$n" ]; do "$LLVM_BIN/llvm-objdump" -d --mcpu="$arch" "$f" > /dev/null; i=$((i + 1)); done
  t2=$(now)
  k=$(echo "$t1 - $t0" | bc -l); o=$(echo "$t2 - $t1" | bc -l)
  total_k=$(echo "$total_k + $k" | bc -l); total_o=$(echo "$total_o + $o" | bc -l)
  printf '%-48s %10.3f %10.3f %7.2f\n' "$(basename "$f")" "$k" "$o" "$(echo "$k / $o" | bc -l)"
done
printf '%-48s %10.3f %10.3f %7.2f\n' "total ($n runs each)" "$total_k" "$total_o" \
  "$(echo "$total_k / $total_o" | bc -l)"
