#!/bin/sh
# gen_ir.sh: the inputs of the IR-analysis tests, generated at test time into
# $KWIR_WORK (nothing binary is committed). For each corpus TU and
# tests/passes/src/ir_kernels.hip: optimized device bitcode (the IR the plugin's
# OptimizerLast pass sees: -O3 with aiter's flags, --cuda-device-only,
# -emit-llvm), its llvm-dis text, and kwir-dump's YAML; variants with -g and
# -gline-tables-only, the build's other arches, the analysis' own analyses (no
# FunctionAnalysisManager), the module written back after the analysis, the
# code object of ir_kernels.hip with its llvm-objdump disassembly, and the
# hand-written odd.ll.
#
# Environment: KWIR_DUMP (kwir-dump), KWIR_WORK, KWIR_SRC (tests/passes),
# KWIR_CORPUS (tests/corpus), KWIR_FLAGS (a file of compile flags, one per
# line), LLVM_BIN, KWALK_TEST_ARCHS (the build's arches, comma-separated). The
# base arch is gfx942; rmsnorm_quant_kernels and ir_kernels are also compiled
# for each other arch of the build.
set -eu
: "${KWIR_DUMP:?}" "${KWIR_WORK:?}" "${KWIR_SRC:?}" "${KWIR_CORPUS:?}" "${KWIR_FLAGS:?}" "${LLVM_BIN:?}"
: "${KWALK_TEST_ARCHS:?}"
mkdir -p "$KWIR_WORK"
cd "$KWIR_WORK"
rm -f ./*.bc ./*.ll ./*.yaml ./*.co ./*.s ./*.err

CXX="$LLVM_BIN/clang++"
FLAGS=$(cat "$KWIR_FLAGS" | tr '\n' ' ')

# name source arch extra-flags...
compile() {
    name=$1 src=$2 arch=$3
    shift 3
    # shellcheck disable=SC2086
    "$CXX" -x hip $FLAGS --cuda-device-only --offload-arch="$arch" -emit-llvm -c "$@" \
        -o "$name.bc" "$src" 2> "$name.err" || { cat "$name.err" >&2; exit 1; }
    "$LLVM_BIN/llvm-dis" "$name.bc" -o "$name.ll"
    "$KWIR_DUMP" -o "$name.after.bc" "$name.bc" > "$name.yaml"
}

for tu in rmsnorm_quant_kernels rope_kernels cache_kernels sample_kernels; do
    compile "$tu.gfx942" "$KWIR_CORPUS/$tu.hip" gfx942 &
    compile "$tu.gfx942.g" "$KWIR_CORPUS/$tu.hip" gfx942 -g
    wait
done
compile ir_kernels.gfx942 "$KWIR_SRC/src/ir_kernels.hip" gfx942 &
compile ir_kernels.gfx942.g "$KWIR_SRC/src/ir_kernels.hip" gfx942 -g
wait
compile rmsnorm_quant_kernels.gfx942.gl "$KWIR_CORPUS/rmsnorm_quant_kernels.hip" gfx942 -gline-tables-only
for arch in $(echo "$KWALK_TEST_ARCHS" | tr ',' ' '); do
    [ "$arch" = gfx942 ] && continue
    compile "rmsnorm_quant_kernels.$arch" "$KWIR_CORPUS/rmsnorm_quant_kernels.hip" "$arch" &
    compile "ir_kernels.$arch" "$KWIR_SRC/src/ir_kernels.hip" "$arch"
    wait
done

# odd.ll: hand-written IR shapes (check_robust.py); ;DEEP-CHAIN becomes a
# 300-long chain of lane-dependent adds. odd.ll spells make.buffer.rsrc as
# LLVM 22 does (overloaded result, i64 record count); LLVM 19's is
# make.buffer.rsrc.p1 with an i32 record count.
MAJOR=$("$CXX" --version | sed -n 's/.*clang version \([0-9]*\)\..*/\1/p' | head -1)
RSRC=''
if [ "${MAJOR:-0}" -lt 20 ]; then
    RSRC='s/make\.buffer\.rsrc\.p8\.p1(\(ptr addrspace(1)[^,]*\), i16\([^,]*\), i64/make.buffer.rsrc.p1(\1, i16\2, i32/'
fi
awk '/^;DEEP-CHAIN/ { print "  %x0 = add i32 %t, 1"; for (i = 1; i <= 300; i++)
                      printf "  %%x%d = add i32 %%x%d, 1\n", i, i - 1; next } { print }' \
    "$KWIR_SRC/src/odd.ll" | sed "$RSRC" > odd.src.ll
"$LLVM_BIN/llvm-as" odd.src.ll -o odd.bc
"$LLVM_BIN/llvm-dis" odd.bc -o odd.ll
"$KWIR_DUMP" -o odd.after.bc odd.bc > odd.yaml

# the analysis without a FunctionAnalysisManager must say the same
for name in rmsnorm_quant_kernels.gfx942 sample_kernels.gfx942 ir_kernels.gfx942 odd; do
    "$KWIR_DUMP" --own-analyses "$name.bc" > "$name.own.yaml"
done

# the code object of ir_kernels.hip, for the disassembler's view of the controls
# shellcheck disable=SC2086
"$CXX" -x hip $FLAGS --cuda-device-only --offload-arch=gfx942 --no-gpu-bundle-output -c \
    -o ir_kernels.gfx942.co "$KWIR_SRC/src/ir_kernels.hip"
"$LLVM_BIN/llvm-objdump" -d --mcpu=gfx942 ir_kernels.gfx942.co > ir_kernels.gfx942.s
echo "gen_ir: $(ls ./*.yaml | wc -l) YAML files in $KWIR_WORK"
