#!/bin/sh
# gen_idioms.sh: inputs of check_idioms.py, generated at test time into
# $KWIR_WORK/idioms: tests/passes/src/idiom_kernels.hip compiled for each arch of
# the build to optimized device bitcode (kwir-dump's YAML of it) and to a code
# object with its llvm-objdump disassembly (the ground truth for barriers and
# conversion instructions). Environment as gen_ir.sh.
set -eu
: "${KWIR_DUMP:?}" "${KWIR_WORK:?}" "${KWIR_SRC:?}" "${KWIR_FLAGS:?}" "${LLVM_BIN:?}"
: "${KWALK_TEST_ARCHS:?}"
OUT="$KWIR_WORK/idioms"
mkdir -p "$OUT"
rm -f "$OUT"/*.bc "$OUT"/*.yaml "$OUT"/*.co "$OUT"/*.s
FLAGS=$(tr '\n' ' ' < "$KWIR_FLAGS")
SRC="$KWIR_SRC/src/idiom_kernels.hip"
for arch in $(echo "$KWALK_TEST_ARCHS" | tr ',' ' '); do
    # shellcheck disable=SC2086
    "$LLVM_BIN/clang++" -x hip $FLAGS --cuda-device-only --offload-arch="$arch" -emit-llvm -c \
        -o "$OUT/idioms.$arch.bc" "$SRC"
    "$KWIR_DUMP" "$OUT/idioms.$arch.bc" > "$OUT/idioms.$arch.yaml"
    # shellcheck disable=SC2086
    "$LLVM_BIN/clang++" -x hip $FLAGS --cuda-device-only --offload-arch="$arch" \
        --no-gpu-bundle-output -c -o "$OUT/idioms.$arch.co" "$SRC"
    "$LLVM_BIN/llvm-objdump" -d --mcpu="$arch" "$OUT/idioms.$arch.co" > "$OUT/idioms.$arch.s"
done
echo "gen_idioms: $(ls "$OUT"/*.yaml | wc -l) YAML files in $OUT"
