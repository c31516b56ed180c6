#!/bin/sh
# bench_ir.sh: what the IR analysis adds to a device compile (issue 4: under
# 2% of the device compile time of the largest corpus TU). Not a ctest: run by
# hand on a quiet machine.
#
#   tests/passes/bench_ir.sh BUILD_DIR [TU.hip ...]
#
# For each TU (default: every corpus TU): the best of 3 wall-clock times of
# its device compile for gfx942 + gfx950 (`-c --cuda-device-only`, aiter's
# flags, no plugin), and the analysis time of kwir-dump --time on the same
# optimized IR of both arches: every amdgpu_kernel, with dominator tree, loop
# info and scalar evolution computed from scratch (the plugin's pass may find
# some of them cached), best of 3, module loading excluded. Prints both and
# the ratio.
set -eu
BUILD=$(cd "${1:?usage: bench_ir.sh BUILD_DIR [TU.hip ...]}" && pwd)
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] || set -- "$ROOT"/tests/corpus/*_kernels.hip
LLVM_BIN=$(cat "$BUILD/tests/passes/llvm_bin.txt")
DUMP="$BUILD/tests/passes/kwir-dump"
FLAGS=$(tr '\n' ' ' < "$BUILD/tests/passes/ir_flags.txt")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

now() { date +%s.%N; }

printf '%-28s %12s %12s %8s\n' TU "compile (s)" "analysis (s)" "ratio"
for src in "$@"; do
    best=""
    for _ in 1 2 3; do
        t0=$(now)
        # shellcheck disable=SC2086
        "$LLVM_BIN/clang++" -x hip $FLAGS --cuda-device-only --offload-arch=gfx942 \
            --offload-arch=gfx950 -c -o "$TMP/dev.o" "$src"
        t=$(echo "$(now) - $t0" | bc)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    total=0
    for arch in gfx942 gfx950; do
        # shellcheck disable=SC2086
        "$LLVM_BIN/clang++" -x hip $FLAGS --cuda-device-only --offload-arch=$arch -emit-llvm -c \
            -o "$TMP/$arch.bc" "$src"
        a=$("$DUMP" --time --repeat 3 "$TMP/$arch.bc" 2>&1 >/dev/null | sed -n 's/^kwir-dump: analysis \([0-9.]*\) s$/\1/p')
        total=$(echo "$total + $a" | bc)
    done
    printf '%-28s %12.3f %12.4f %7.3f%%\n' "$(basename "$src")" "$best" "$total" \
        "$(echo "100 * $total / $best" | bc -l)"
done
