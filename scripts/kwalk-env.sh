#!/usr/bin/env bash
# kwalk-env.sh: the environment that makes hipcc-driven builds (aiter's JIT,
# anything else that compiles through hipcc) load the kwalk plugin, without
# touching the build itself. hipcc appends $HIPCC_COMPILE_FLAGS_APPEND to every
# compile it runs; this adds
#     -fplugin=<abs>/libkwalk.so -fplugin-arg-kwalk-out=<abs out dir>
# to it, keeping whatever the variable already holds (earlier kwalk flags in
# it are replaced, so running it twice does not add them twice).
#
#   eval "$(scripts/kwalk-env.sh [--out DIR] [--plugin PATH])"   # this shell
#   scripts/kwalk-env.sh [--out DIR] [--plugin PATH] --exec CMD [ARGS...]
#
#   --out DIR      where the sidecars go (default: $PWD/kwalk-sidecars)
#   --plugin PATH  libkwalk.so to load; else $KWALK_PLUGIN, else found beside
#                  this script: an install prefix (<prefix>/bin/kwalk-env.sh ->
#                  <prefix>/<libdir>/kwalk/libkwalk.so, libdir lib, lib64 or
#                  lib/<multiarch>; or <prefix>/lib/libkwalk.so),
#                  a source tree's build/plugin/libkwalk.so, or next to a
#                  `kwalk` command found on PATH.
#   --exec CMD...  run CMD with the environment instead of printing it
#
# Printed: `export HIPCC_COMPILE_FLAGS_APPEND=...` (shell-quoted). The plugin
# must be built against the clang hipcc runs (ROCm's: /opt/rocm/llvm); see
# docs/aiter-howto.md. hipcc splits the variable at blanks, so neither path
# may contain whitespace.
set -euo pipefail

prog=kwalk-env
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; }

out=""
plugin="${KWALK_PLUGIN:-}"
exec_mode=0
while [ $# -gt 0 ]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --out) [ $# -ge 2 ] || die "--out needs a directory"; out="$2"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        --plugin) [ $# -ge 2 ] || die "--plugin needs a path"; plugin="$2"; shift 2 ;;
        --plugin=*) plugin="${1#--plugin=}"; shift ;;
        --exec) exec_mode=1; shift; break ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
if [ "$exec_mode" = 1 ] && [ $# -eq 0 ]; then
    die "--exec needs a command"
fi

# An absolute path, symbolic links kept as given (-s); the path may not exist
# yet (-m).
abspath() { realpath -m -s -- "$1"; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -z "$plugin" ]; then
    # lib/, lib64/ or lib/<multiarch>/ (GNUInstallDirs' libdir under /usr on Debian)
    candidates=("$here/../lib/kwalk/libkwalk.so" "$here/../lib64/kwalk/libkwalk.so")
    for c in "$here"/../lib/*/kwalk/libkwalk.so; do
        [ -f "$c" ] && candidates+=("$c")
    done
    candidates+=("$here/../lib/libkwalk.so" "$here/../build/plugin/libkwalk.so")
    if kw="$(command -v kwalk 2>/dev/null)"; then
        kwdir="$(dirname "$(realpath -- "$kw")")"
        candidates+=("$kwdir/../lib/kwalk/libkwalk.so" "$kwdir/../lib/libkwalk.so"
                     "$kwdir/../plugin/libkwalk.so")
    fi
    for c in "${candidates[@]}"; do
        if [ -f "$c" ]; then plugin="$c"; break; fi
    done
    [ -n "$plugin" ] || die "libkwalk.so not found (looked in ${candidates[*]}); build it (cmake --build build) or give --plugin PATH"
fi
[ -f "$plugin" ] || die "$plugin: no such file"
plugin="$(abspath "$plugin")"
out="$(abspath "${out:-$PWD/kwalk-sidecars}")"
case "$plugin$out" in
    *[[:space:]]*) die "hipcc splits HIPCC_COMPILE_FLAGS_APPEND at blanks: '$plugin' and '$out' must not contain whitespace" ;;
esac
mkdir -p -- "$out" || die "$out: cannot create the directory"

# Keep the existing flags, minus any earlier kwalk flags.
kept=()
set -f  # split at blanks as hipcc does, without globbing
for f in ${HIPCC_COMPILE_FLAGS_APPEND:-}; do
    case "$f" in
        "-fplugin=$plugin"|-fplugin=*libkwalk*.so|-fplugin-arg-kwalk-*) ;;
        *) kept+=("$f") ;;
    esac
done
set +f
kept+=("-fplugin=$plugin" "-fplugin-arg-kwalk-out=$out")
value="${kept[*]}"

if [ "$exec_mode" = 1 ]; then
    export HIPCC_COMPILE_FLAGS_APPEND="$value"
    exec "$@"
fi
# Single-quoted for the shell that evals it.
printf "export HIPCC_COMPILE_FLAGS_APPEND='%s'\n" "${value//\'/\'\\\'\'}"
