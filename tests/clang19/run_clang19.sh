#!/usr/bin/env bash
# run_clang19.sh SRC WORK LLVM19_ROOT PYTHON: build the plugin against clang
# 19, compile corpus TUs with it for gfx942, check the sidecars.
set -euo pipefail
SRC=$1 WORK=$2 L19=$3 PY=$4
if [ ! -f "$L19/lib/cmake/clang/ClangConfig.cmake" ] || [ ! -x "$L19/bin/clang++" ]; then
  echo "clang 19 development files not installed under $L19: skipped"
  exit 77
fi
mkdir -p "$WORK"
B="$WORK/build"
cmake -S "$SRC" -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_DIR="$L19/lib/cmake/llvm" -DClang_DIR="$L19/lib/cmake/clang" \
  -DBUILD_TESTING=OFF > "$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log"; exit 1; }
cmake --build "$B" --target kwalk_plugin kw_devlibs > "$WORK/build.log" 2>&1 ||
  { tail -40 "$WORK/build.log"; exit 1; }
OUT="$WORK/corpus"
rm -rf "$OUT" && mkdir -p "$OUT"
for tu in rope_kernels sample_kernels rmsnorm_quant_kernels; do
  "$L19/bin/clang++" -x hip "@$B/hip-compat/hip-compat.rsp" --offload-arch=gfx942 \
    -O3 -std=c++20 -fgpu-flush-denormals-to-zero -mllvm -amdgpu-early-inline-all=true \
    -mllvm -amdgpu-function-calls=false -I"$SRC/tests/corpus/include" -cuid="$tu" \
    -fplugin="$B/plugin/libkwalk.so" -c "$SRC/tests/corpus/$tu.hip" -o "$OUT/$tu.o" \
    2> "$OUT/$tu.err" || { cat "$OUT/$tu.err"; exit 1; }
  if grep -q "kwalk:" "$OUT/$tu.err"; then cat "$OUT/$tu.err"; exit 1; fi
done
exec "$PY" "$(dirname "$0")/check_clang19.py" "$SRC" "$OUT" "$L19/bin"
