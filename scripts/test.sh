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
# Tests labelled major_independent (tests/lib/KwTest.cmake: no clang, LLVM or input
# of the major in them) or major_once (they compare kwalk with itself on the major's
# corpus) run in clang 22's ctest only, when 22 is among the majors.
# Each major's tree after the first, and then the -O3 tree, is built at nice 19
# while the previous major's ctest runs (the idle core it leaves; logs in
# BUILD_DIR-*.log). Warnings are errors here (KWALK_WERROR), never in a user's
# build; the C code is also compiled once at -O3 (BUILD_DIR-O3), where the
# optimizer sees warnings the -O2 build does not (the C code only: KWALK_IRFACTS=OFF leaves out the C++
# tool kwalk-irfacts). The C++ (the plugin, the IR passes, their test tools) is
# built with line tables only (-g1): full debug info of Clang's templates is a
# quarter of their compile time, and the tests read none of it. After clang 22's ctest, the README's main command
# (scripts/demo.sh) runs on that build, and the suite fails unless it leaves an
# index, a site, walkthroughs and a map.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-test}
shift || true
MAJORS=("$@")
[ ${#MAJORS[@]} -gt 0 ] || MAJORS=(22 19)

bash scripts/install-deps.sh
failed=()

# The C code at -O3 with warnings as errors: the kwalk command and every C
# library it links (the plugin's C++ is compiled with -Werror below). Built at
# nice 19 while the last major's ctest runs (see "overlap" below).
o3_build() {
  cmake -S . -B "$BUILD-O3" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKWALK_WERROR=ON \
    -DCMAKE_C_FLAGS_RELEASE="-O3 -DNDEBUG" -DBUILD_TESTING=OFF -DKWALK_IRFACTS=OFF &&
    cmake --build "$BUILD-O3" --target kwalk
}

# demo DIR: the README's main command on the build in DIR, without a second
# install or build; fails unless it left what it promises.
demo() {
  local dir=$1 log=$1/demo.log
  if ! KWALK_DEMO_NO_BUILD=1 bash scripts/demo.sh "$dir" > "$log" 2>&1; then
    tail -20 "$log"; echo "test.sh: scripts/demo.sh failed (log: $log)"; return 1
  fi
  local missing=()
  [ -s "$dir/corpus/kwalk.db" ] || missing+=("the index $dir/corpus/kwalk.db")
  [ -s "$dir/site/index.html" ] || missing+=("the site $dir/site/index.html")
  [ -s "$dir/walkthroughs/index.md" ] || missing+=("$dir/walkthroughs/index.md")
  [ "$(ls "$dir/walkthroughs" | grep -c '\.md$')" -gt 1 ] || missing+=("walkthroughs")
  grep -q '^| Kernel | Instantiations | Python entry' "$log" || missing+=("the map")
  grep -q '^| `kw::add_rmsnorm_quant_kernel` |' "$log" || missing+=("the map's rows")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "test.sh: scripts/demo.sh left no ${missing[*]} (log: $log)"; return 1
  fi
  echo "test.sh: scripts/demo.sh passed on $dir"
}
# The C code (everything but the plugin and the few files that include LLVM's C
# headers) is the same for every major: compiled once, through a cache kept with
# the build (paths relative to the checkout, so that a second build directory
# hits; the objects' DW_AT_comp_dir may then name the first build's directory).
# (The variables are set for the builds only, not for the tests.)
cache_env=(CCACHE_DIR="${CCACHE_DIR:-$PWD/$BUILD-ccache}" CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1)
launcher=()
command -v ccache > /dev/null &&
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Ground truth that does not depend on the major (tests/lib/kwtruth.py: clang-query's
# launch sites of the aiter TUs) is computed by the first major's ctest and read by the
# next ones: a directory of this run's own, emptied here.
case $BUILD in /*) KWALK_TEST_TRUTH=$BUILD-truth ;; *) KWALK_TEST_TRUTH=$PWD/$BUILD-truth ;; esac
export KWALK_TEST_TRUTH
rm -rf "$KWALK_TEST_TRUTH"
with22=0
for m in "${MAJORS[@]}"; do [ "$m" != 22 ] || with22=1; done
dir_of() { if [ "$1" = 22 ]; then echo "$BUILD"; else echo "$BUILD-clang$1"; fi; }
# major_build M: configure and build clang M's tree
major_build() {
  local root=/usr/lib/llvm-$1
  cmake -S . -B "$(dir_of "$1")" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKWALK_SANITIZE=ON \
    -DKWALK_WERROR=ON "${launcher[@]}" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DLLVM_DIR="$root/lib/cmake/llvm" -DClang_DIR="$root/lib/cmake/clang" &&
    env "${cache_env[@]}" cmake --build "$(dir_of "$1")"
}
# Overlap: ctest -j2 leaves a core idle for much of its run (tests that wait for
# a fixture, the capture tests that hold both cores for one compile, the tail;
# docs/test-time.md), so while one major's ctest runs the next major's tree is
# built (after the last, the -O3 tree) at nice 19: it gets the CPU the tests do
# not use. Its output goes to a log, shown if it fails; ctest waits for it.
# bg_start NAME CMD...: runs CMD at nice 19 in the background, output to $BUILD-NAME.log
bg_pid='' bg_name='' bg_log=''
bg_start() {
  bg_name=$1; bg_log=$BUILD-$1.log; shift
  echo "test.sh: building $bg_name beside the tests (nice 19, log: $bg_log)"
  # renice (bsdutils, Essential in Debian): the function runs in this subshell;
  # two jobs, one a core (ninja's default is cores + 2: more memory beside the tests)
  ( renice -n 19 -p "$BASHPID" > /dev/null && CMAKE_BUILD_PARALLEL_LEVEL=2 "$@" ) \
    > "$bg_log" 2>&1 &
  bg_pid=$!
}
# bg_wait: waits for the background build; fails (its log's tail shown) if it did
bg_wait() {
  [ -n "$bg_pid" ] || return 0
  local pid=$bg_pid; bg_pid=''
  if wait "$pid"; then
    echo "test.sh: $bg_name built"
  else
    tail -40 "$bg_log"; echo "test.sh: building $bg_name FAILED (log: $bg_log)"; return 1
  fi
}
for i in "${!MAJORS[@]}"; do
  m=${MAJORS[$i]}
  dir=$(dir_of "$m")
  only=()
  [ "$m" = 22 ] || [ $with22 = 0 ] || only=(-LE 'major_independent|major_once')
  start=$(date +%s)
  echo "test.sh: clang $m in $dir"
  built=0
  if [ "$i" = 0 ]; then
    major_build "$m" || built=1
  else
    bg_wait || built=1
  fi
  next=$(($i + 1))
  if [ "$next" -lt ${#MAJORS[@]} ]; then
    bg_start "clang${MAJORS[$next]}-build" major_build "${MAJORS[$next]}"
  else
    bg_start O3 o3_build
  fi
  if [ $built = 0 ] &&
     ctest --test-dir "$dir" --output-on-failure -j2 "${only[@]}" &&
     { [ "$m" != 22 ] || demo "$dir"; }; then
    echo "test.sh: clang $m passed in $(( $(date +%s) - start )) s"
  else
    echo "test.sh: clang $m FAILED after $(( $(date +%s) - start )) s"
    failed+=("$m")
  fi
done
if bg_wait; then
  echo "test.sh: -O3 build passed"
else
  echo "test.sh: -O3 build FAILED"
  failed+=(O3)
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "test.sh: failed for clang ${failed[*]}"
  exit 1
fi
echo "test.sh: all passed (clang ${MAJORS[*]})"
