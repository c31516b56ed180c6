#!/usr/bin/env bash
# bench-scale.sh: issue 38's "Done means": the five ratios of a real build's
# index against llvm-objdump -d of the same code objects, all measured in one
# run on one machine (not a timed test: it prints the numbers and whether
# each target holds):
#   1. `kwalk render KERNEL` on the build's index vs on KERNEL's own
#      translation unit's index (target: <= 0.15 s and <= 1.5x own TU);
#   2. `kwalk list` of the build (target: <= 0.15 s + 0.2 ms per kernel);
#   3. the index file vs the build's objects (target: <= 1x);
#   4. `kwalk index` (first, a new file) vs llvm-objdump -d (target: <= 0.35x),
#      with nothing decoded before (first) and again with the decode cache
#      kept (a new index of code objects decoded before: 4'); since index
#      version 5 `kwalk index` decodes nothing, and the first page of a
#      kernel decodes its code objects (1'.: that page, the cache emptied);
#   5. `kwalk site` of every kernel vs llvm-objdump -d (target: <= 1x), with
#      the decode cache emptied first (site decodes every code object, on
#      every core), and again with it kept (5').
# llvm-objdump disassembles the code objects cut from the objects' offload
# bundles (clang-offload-bundler), one process, output discarded; the ASM
# kernels' .co files that pages of ASM kernels disassemble are not in it.
#   scripts/bench-scale.sh [-k KWALK] [-n RUNS] [-S KERNELS] [-Q] BUILD_DIR [KERNEL]
# -Q: ratios 1 and 2 only (the questions: render, list), on one `kwalk index`
# of the build; no llvm-objdump, no second index, no site (a big build's
# disassembly takes most of the run).
# BUILD_DIR holds the build's sidecars and objects (e.g. the aiter fixture's
# BUILD/tests/aiter/work/plugin: side/*.kwalk.yaml.zst, obj/*.o); KERNEL (a
# symbol) defaults to the first kernel of the unit holding the most.
# -S KERNELS: then the same five on the realistic synthetic build of that
# many kernels (tests/render/realistic_build.py over $KW_BENCH_SRC, default
# /work/ci50/build-ci/corpus: renamed copies of real sidecars and objects).
# Wall / user CPU seconds, best of RUNS (default 3); on a loaded machine read
# the CPU column. Use a Release build (KWALK defaults to build-rel/cli/kwalk).
# The decode cache is a file of the run (KWALK_CACHE), deleted at the end.
# The timing and code-object functions are bench-query.sh's (sourced).
set -euo pipefail
KWALK=build-rel/cli/kwalk
RUNS=3
SYNTH=0
QUERY=0
while getopts k:n:S:Q o; do
  case $o in
    k) KWALK=$OPTARG ;;
    n) RUNS=$OPTARG ;;
    S) SYNTH=$OPTARG ;;
    Q) QUERY=1 ;;
    *) echo "usage: $0 [-k KWALK] [-n RUNS] [-S KERNELS] [-Q] BUILD_DIR [KERNEL]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
  echo "usage: $0 [-k KWALK] [-n RUNS] [-S KERNELS] [-Q] BUILD_DIR [KERNEL]" >&2
  exit 2
fi
BUILD=$1 KERNEL=${2:-}
KWALK=$(realpath "$KWALK")
HERE=$(cd "$(dirname "$0")/.." && pwd)
LLVM=${KW_LLVM_BIN:-$(ls -d /usr/lib/llvm-*/bin | sort -V | tail -1)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kwalk-bench-scale.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# the decode cache (docs/index-schema.md): a file of this run, never $HOME's
export KWALK_CACHE="$TMP/decoded.db"

# best, ratio, code_objects, pick_kernel, own_sidecar
source "$HERE/scripts/bench-query.sh"
holds() { if awk "BEGIN{exit !($1)}"; then echo "met"; else echo "NOT met"; fi; }

# the five ratios of the build in $1 (KERNEL $2 or the default), its work files in $3
scale() {
  local BUILD=$1 KERNEL=$2 W=$3
  mkdir -p "$W"
  # the code objects of the build's objects, for the reference
  local objs=()
  mapfile -d '' objs < <(find "$BUILD" -name '*.o' -print0)
  if [ "$QUERY" = 1 ]; then
    NCO=0 OBJ_BYTES=0
  else
    code_objects "$W" "${objs[@]}"
  fi
  if [ "$QUERY" = 0 ] && [ "$NCO" -eq 0 ]; then
    echo "bench-scale: no code objects in the objects under $BUILD" >&2
    exit 1
  fi

  if [ "$QUERY" = 1 ]; then
    # the questions only: one index, the rest not measured
    OD="0 0" IXW="0 0" SITE="0 0" SITEW="0 0"
    IX=$(RUNS=1 PRE='rm -f "$W/all.db" "$KWALK_CACHE"*' best "$KWALK" index "$BUILD" -o "$W/all.db")
  else
    OD=$(best "$LLVM/llvm-objdump" -d --no-show-raw-insn "$W"/co*.co)
    # first: nothing decoded before (the cache emptied); again: a new index of
    # the same code objects (another build of them, a deleted index), cache kept
    IX=$(PRE='rm -f "$W/all.db" "$KWALK_CACHE"*' best "$KWALK" index "$BUILD" -o "$W/all.db")
    IXW=$(PRE='rm -f "$W/again.db"' best "$KWALK" index "$BUILD" -o "$W/again.db")
    rm -f "$W/again.db"
  fi
  KERNEL=$(pick_kernel "$W/all.db" "$KERNEL")
  OWN=$(own_sidecar "$W/all.db" "$KERNEL")
  if [ -z "$OWN" ]; then
    echo "bench-scale: no kernel of symbol $KERNEL in $BUILD" >&2
    exit 1
  fi
  "$KWALK" index "$OWN" -o "$W/own.db" >/dev/null
  NTU=$(sqlite3 "$W/all.db" "SELECT count(*) FROM sidecars")
  NK=$("$KWALK" list --db "$W/all.db" | grep -c . || true)
  DB_BYTES=$(stat -c %s "$W/all.db")
  R_FIRST=$(PRE='rm -f "$KWALK_CACHE"*' best "$KWALK" render "$KERNEL" --db "$W/all.db")
  R_ALL=$(best "$KWALK" render "$KERNEL" --db "$W/all.db")
  R_OWN=$(best "$KWALK" render "$KERNEL" --db "$W/own.db")
  LS=$(best "$KWALK" list --db "$W/all.db")
  if [ "$QUERY" != 1 ]; then
    SITE=$(PRE='rm -rf "$W/site" "$KWALK_CACHE"*' best "$KWALK" site --db "$W/all.db" -o "$W/site")
    SITEW=$(PRE='rm -rf "$W/site"' best "$KWALK" site --db "$W/all.db" -o "$W/site")
  fi

  echo "build: $NTU translation units, $NCO code objects, $NK lines of kwalk list;"
  echo "  KERNEL $KERNEL (own TU $(basename "$OWN"))"
  printf '%-46s %s\n' "llvm-objdump -d of the $NCO code objects" "$OD" \
    "kwalk index (first, nothing decoded before)" "$IX" \
    "kwalk index (again, decode cache kept)" "$IXW" \
    "kwalk render KERNEL, first (cache emptied)" "$R_FIRST" \
    "kwalk render KERNEL, build's index" "$R_ALL" \
    "kwalk render KERNEL, own TU's index" "$R_OWN" \
    "kwalk list" "$LS" \
    "kwalk site (cache emptied)" "$SITE" \
    "kwalk site (decode cache kept)" "$SITEW"
  r1=$(ratio "${R_ALL%% *}" "${R_OWN%% *}")
  echo "1. render: ${R_ALL%% *} s, ${r1}x own TU (target <= 0.15 s, <= 1.5x):" \
    "$(holds "${R_ALL%% *} <= 0.15 && $r1 <= 1.5")"
  echo "2. list of $NK: ${LS%% *} s (target <= $(awk -v n="$NK" 'BEGIN{printf "%.3f", 0.15 + 0.0002 * n}') s):" \
    "$(holds "${LS%% *} <= 0.15 + 0.0002 * $NK")"
  echo "1'. render, first page (its code objects decoded): ${R_FIRST%% *} s wall," \
    "${R_FIRST##* } s user"
  if [ "$QUERY" = 1 ]; then
    echo "3.-5.: not measured (-Q)"
    rm -rf "$W"
    return
  fi
  r3=$(ratio "$DB_BYTES" "$OBJ_BYTES")
  echo "3. index $((DB_BYTES / 1024)) KiB vs objects $((OBJ_BYTES / 1024)) KiB: ${r3}x (target <= 1):" \
    "$(holds "$r3 <= 1")"
  r4=$(ratio "${IX%% *}" "${OD%% *}")
  echo "4. kwalk index / llvm-objdump: ${r4}x wall, $(ratio "${IX##* }" "${OD##* }")x user" \
    "(target <= 0.35): $(holds "$r4 <= 0.35")"
  r4w=$(ratio "${IXW%% *}" "${OD%% *}")
  echo "4'. kwalk index again (decode cache kept) / llvm-objdump: ${r4w}x wall," \
    "$(ratio "${IXW##* }" "${OD##* }")x user"
  r5=$(ratio "${SITE%% *}" "${OD%% *}")
  echo "5. kwalk site / llvm-objdump: ${r5}x wall, $(ratio "${SITE##* }" "${OD##* }")x user" \
    "(target <= 1): $(holds "$r5 <= 1")"
  echo "5'. kwalk site again (decode cache kept) / llvm-objdump: $(ratio "${SITEW%% *}" "${OD%% *}")x wall," \
    "$(ratio "${SITEW##* }" "${OD##* }")x user"
  rm -rf "$W"
}

echo "runs: best of $RUNS; wall s / user s; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
scale "$BUILD" "$KERNEL" "$TMP/real"
if [ "$SYNTH" -gt 0 ]; then
  # the realistic synthetic build: renamed copies of real sidecars and objects
  PYTHONPATH="$HERE/tests/render" python3 -c 'import sys, realistic_build as r
n, sides, _, distinct = r.write_build(sys.argv[1], sys.argv[2], int(sys.argv[3]))
print(f"synthetic build: {n} kernels ({distinct} distinct symbols), {len(sides)} sidecars")' \
    "${KW_BENCH_SRC:-/work/ci50/build-ci/corpus}" "$TMP/synth-build" "$SYNTH"
  scale "$TMP/synth-build" "" "$TMP/synth"
fi
