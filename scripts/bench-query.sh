#!/usr/bin/env bash
# bench-query.sh: what one question to a build's index costs (issue 38, item 1:
# "query, don't load"). Not a timed test: it prints the numbers, best of N
# runs each, all taken in one run on one machine:
#   - `kwalk render KERNEL` on the index of every sidecar of the build, on the
#     index of KERNEL's own translation unit, and on the build's index read
#     whole ($KWALK_INDEX_READ=whole: what every page read before), with the
#     ratio build / own TU (target: <= 1.5);
#   - `kwalk list` of the build, reading the list's rows and read whole;
#   - the reference: llvm-objdump -d of the build's code objects (cut from the
#     objects' offload bundles with clang-offload-bundler), the same run
#     (the newest /usr/lib/llvm-*/bin, or $KW_LLVM_BIN).
#   scripts/bench-query.sh [-k KWALK] [-n RUNS] SIDECAR_DIR OBJECT_DIR [KERNEL]
# SIDECAR_DIR holds the build's sidecars (*.kwalk.yaml[.zst]), OBJECT_DIR its
# objects (*.o); KERNEL (a symbol) defaults to the first kernel `kwalk list`
# gives whose unit holds the most kernels. KWALK defaults to build/cli/kwalk.
# Times are wall / user CPU seconds; on a loaded machine read the CPU column.
# Sourced (scripts/bench-scale.sh does), it defines the timing and code-object
# functions below and runs nothing.
set -euo pipefail

# best CMD...: "wall user" seconds of the fastest of $RUNS runs (wall), the
# command's output to /dev/null, its time file in $TMP; $PRE (a command), where
# set, runs before each; a failed run ends the script.
best() {
  local b="" t
  for _ in $(seq "$RUNS"); do
    [ -n "${PRE:-}" ] && eval "$PRE"
    /usr/bin/time -o "$TMP/time" -f "%e %U" "$@" >/dev/null 2>&1 || {
      echo "$(basename "$0" .sh): failed: $*" >&2; exit 1; }
    t=$(tail -1 "$TMP/time")
    if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN{split(a,x," ");split(b,y," ");exit !(x[1]<y[1])}'; then
      b=$t
    fi
  done
  echo "$b"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ printf "%.2f", (b > 0 ? a / b : 0) }'; }

# code_objects DIR OBJECT...: the amdgcn code objects of the objects' offload
# bundles, cut with clang-offload-bundler into DIR/co1.co, DIR/co2.co, ...;
# sets NCO (their count) and OBJ_BYTES (the objects' bytes). Uses $LLVM.
code_objects() {
  local w=$1 o t
  shift
  NCO=0 OBJ_BYTES=0
  for o in "$@"; do
    [ -f "$o" ] || continue
    OBJ_BYTES=$((OBJ_BYTES + $(stat -c %s "$o")))
    "$LLVM/llvm-objcopy" --dump-section .hip_fatbin="$w/fb" "$o" /dev/null 2>/dev/null || continue
    for t in $("$LLVM/clang-offload-bundler" --list --type=o --input="$w/fb" | grep amdgcn); do
      NCO=$((NCO + 1))
      "$LLVM/clang-offload-bundler" --unbundle --type=o --input="$w/fb" --targets="$t" \
        --output="$w/co$NCO.co"
    done
  done
}

# pick_kernel DB [KERNEL]: KERNEL, or the first kernel (by symbol) of the unit
# holding the most in the index DB.
pick_kernel() {
  if [ -n "${2:-}" ]; then echo "$2"; return; fi
  sqlite3 "$1" "SELECT symbol FROM instantiations WHERE sidecar = (SELECT sidecar
    FROM instantiations GROUP BY sidecar ORDER BY count(*) DESC, sidecar LIMIT 1) ORDER BY symbol LIMIT 1"
}

# own_sidecar DB KERNEL: the sidecar of KERNEL's translation unit in the index DB.
own_sidecar() {
  sqlite3 "$1" "SELECT sidecar FROM instantiations WHERE symbol = '${2//\'/\'\'}' ORDER BY sidecar LIMIT 1"
}

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

KWALK=build/cli/kwalk
RUNS=3
while getopts k:n: o; do
  case $o in
    k) KWALK=$OPTARG ;;
    n) RUNS=$OPTARG ;;
    *) echo "usage: $0 [-k KWALK] [-n RUNS] SIDECAR_DIR OBJECT_DIR [KERNEL]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
  echo "usage: $0 [-k KWALK] [-n RUNS] SIDECAR_DIR OBJECT_DIR [KERNEL]" >&2
  exit 2
fi
SIDES=$1 OBJS=$2 KERNEL=${3:-}
KWALK=$(realpath "$KWALK")
# the newest LLVM installed (Debian's llvm-objdump on PATH may be an old one)
LLVM=${KW_LLVM_BIN:-$(ls -d /usr/lib/llvm-*/bin | sort -V | tail -1)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kwalk-bench-query.XXXXXX")
trap 'rm -rf "$TMP"' EXIT


"$KWALK" index "$SIDES" -o "$TMP/all.db" >/dev/null
KERNEL=$(pick_kernel "$TMP/all.db" "$KERNEL")
OWN=$(own_sidecar "$TMP/all.db" "$KERNEL")
if [ -z "$OWN" ]; then
  echo "bench-query: no kernel of symbol $KERNEL in $SIDES" >&2
  exit 1
fi
"$KWALK" index "$OWN" -o "$TMP/own.db" >/dev/null
NTU=$(sqlite3 "$TMP/all.db" "SELECT count(*) FROM sidecars")
NK=$(sqlite3 "$TMP/all.db" "SELECT count(DISTINCT symbol) FROM instantiations")
NOWN=$(sqlite3 "$TMP/own.db" "SELECT count(DISTINCT symbol) FROM instantiations")
# the pages must be the same, whichever way the index is read
"$KWALK" render "$KERNEL" --db "$TMP/all.db" >"$TMP/p.only"
KWALK_INDEX_READ=whole "$KWALK" render "$KERNEL" --db "$TMP/all.db" >"$TMP/p.whole"
cmp -s "$TMP/p.only" "$TMP/p.whole" || { echo "bench-query: the pages differ" >&2; exit 1; }

# the code objects of the build's objects, for the reference
code_objects "$TMP" "$OBJS"/*.o

echo "index: $NTU translation units, $NK kernels ($(du -k "$TMP/all.db" | cut -f1) KiB);"
echo "  own TU $(basename "$OWN"): $NOWN kernels; KERNEL $KERNEL"
echo "runs: best of $RUNS; wall s / user s"
R_ALL=$(best "$KWALK" render "$KERNEL" --db "$TMP/all.db")
R_OWN=$(best "$KWALK" render "$KERNEL" --db "$TMP/own.db")
R_WHOLE=$(KWALK_INDEX_READ=whole best "$KWALK" render "$KERNEL" --db "$TMP/all.db")
L_ONLY=$(best "$KWALK" list --db "$TMP/all.db")
L_WHOLE=$(KWALK_INDEX_READ=whole best "$KWALK" list --db "$TMP/all.db")
if [ "$NCO" -gt 0 ]; then
  OD=$(best "$LLVM/llvm-objdump" -d --no-show-raw-insn "$TMP"/co*.co)
else
  OD="0 0"
fi
printf '%-44s %s\n' "render KERNEL, build's index" "$R_ALL" \
  "render KERNEL, own TU's index" "$R_OWN" \
  "render KERNEL, build's index read whole" "$R_WHOLE" \
  "list, build's index" "$L_ONLY" \
  "list, build's index read whole" "$L_WHOLE" \
  "llvm-objdump -d of the $NCO code objects" "$OD"
echo "render build / own TU: $(ratio "${R_ALL%% *}" "${R_OWN%% *}") (wall)," \
  "$(ratio "${R_ALL##* }" "${R_OWN##* }") (user); target <= 1.5"
echo "render read whole / rows only: $(ratio "${R_WHOLE%% *}" "${R_ALL%% *}") (wall)"
echo "list / llvm-objdump: $(ratio "${L_ONLY%% *}" "${OD%% *}") (wall);" \
  "render / llvm-objdump: $(ratio "${R_ALL%% *}" "${OD%% *}") (wall)"
