#!/usr/bin/env bash
# install-deps.sh: installs, from Debian 12's packages, everything kwalk needs
# to build, to compile the bundled HIP kernels and to run its tests. Safe to
# run again: packages already present are left alone. Needs root (or sudo).
#
# The list is checked: the ctest deps.closure (tests/deps/check_deps.py) fails,
# naming the package, when the build, the corpus compiles (with the programs
# clang's HIP driver spawns) or the tests use a file from a package that is
# neither here, nor pulled in by one of these (Depends), nor Essential.
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build pkg-config gcc g++
  # Clang/LLVM 22: the compiler the plugin loads into, its headers and tools
  clang-22 clang-tools-22 llvm-22 llvm-22-dev llvm-22-tools libclang-22-dev lld-22
  # Clang/LLVM 19 (ROCm 6.4's major): scripts/test.sh runs the suite against it too
  clang-19 clang-tools-19 llvm-19 llvm-19-dev llvm-19-tools libclang-19-dev lld-19
  # clang's sanitizer and libFuzzer runtimes: a build with CC=clang-22 (or 19)
  # links the fuzz targets (tests/fuzz, tests/codeobj) with -fsanitize=fuzzer,address
  libclang-rt-22-dev libclang-rt-19-dev
  # C libraries of the kwalk command and the code-object reader
  libyaml-dev libsqlite3-dev libelf-dev libdw-dev libmsgpack-dev libzstd-dev zlib1g-dev
  # JSON input (rocprofv3's JSON traces, Triton's NAME.json) and --json output
  libjansson-dev
  # HIP headers and device libraries (Debian ships ROCm 5.2 pieces)
  libamdhip64-dev rocm-device-libs
  # the pybind11 corpus TU, and the tests (python3 + PyYAML read sidecars
  # independently of kwalk's own reader)
  pybind11-dev python3-dev python3 python3-yaml
  # the zstd command: the tests decompress the plugin's sidecars (zstd frames
  # by default) with it, independently of kwalk's reader
  zstd
  # ccache: the embed mode's test builds through it (a cache hit runs no compiler);
  # scripts/test.sh compiles the C code once for both clang majors' builds with it
  ccache
  # `kwalk site`: libcmark-gfm converts the Markdown walkthroughs to HTML (GFM
  # tables from the extensions library); the site tests load the pages in
  # headless chromium
  libcmark-gfm-dev libcmark-gfm-extensions-dev chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  # a fresh Debian without sudo: say so instead of "sudo: command not found"
  command -v sudo > /dev/null || {
    echo "install-deps: missing ${missing[*]}; run this script as root (or install sudo)" >&2
    exit 1
  }
  SUDO="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
