#!/usr/bin/env bash
# test.sh: the whole test suite on a fresh Debian 12 machine. Installs what is
# needed, builds everything with the C code under AddressSanitizer and UBSan
# (the plugin itself is built plain: it is loaded into clang), then runs ctest.
#   scripts/test.sh [BUILD_DIR]      (default: build-test)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-test}

bash scripts/install-deps.sh
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKWALK_SANITIZE=ON
cmake --build "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure -j2
