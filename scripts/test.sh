#!/usr/bin/env bash
# test.sh: the whole test suite on a fresh Debian 12 machine. Installs what is
# needed, then, for each clang major (default: 22, Debian's default and the
# examples' clang, then 19, ROCm 6.4's), builds everything against that LLVM
# with the C code under AddressSanitizer and UBSan (the plugin itself is built
# plain: it is loaded into clang) and runs ctest. Every major runs even when
# one fails; the exit status is non-zero if any did.
#   scripts/test.sh [BUILD_DIR [MAJOR...]]     (default: build-test 22 19)
# Major 22 builds in BUILD_DIR, any other major M in BUILD_DIR-clangM, against
# /usr/lib/llvm-M with the arches the build picks for it (KWALK_HIP_ARCHS).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-test}
shift || true
MAJORS=("$@")
[ ${#MAJORS[@]} -gt 0 ] || MAJORS=(22 19)

bash scripts/install-deps.sh
failed=()
for m in "${MAJORS[@]}"; do
  dir=$BUILD
  [ "$m" = 22 ] || dir=$BUILD-clang$m
  root=/usr/lib/llvm-$m
  start=$(date +%s)
  echo "test.sh: clang $m in $dir"
  if cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKWALK_SANITIZE=ON \
       -DLLVM_DIR="$root/lib/cmake/llvm" -DClang_DIR="$root/lib/cmake/clang" &&
     cmake --build "$dir" &&
     ctest --test-dir "$dir" --output-on-failure -j2; then
    echo "test.sh: clang $m passed in $(( $(date +%s) - start )) s"
  else
    echo "test.sh: clang $m FAILED after $(( $(date +%s) - start )) s"
    failed+=("$m")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: failed for clang ${failed[*]}"
  exit 1
fi
echo "test.sh: all passed (clang ${MAJORS[*]})"
