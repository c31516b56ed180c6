#!/usr/bin/env bash
# demo.sh: the main job on a fresh Debian 12 machine. Installs what is needed,
# builds libkwalk.so and kwalk, compiles the bundled example kernels
# (tests/corpus, aiter style) with the plugin for gfx942 and gfx950, gathers
# their sidecars into one index and shows what was captured.
#   scripts/demo.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

bash scripts/install-deps.sh
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD" --target kwalk_plugin kwalk kw_corpus

OUT="$BUILD/corpus"
"$BUILD/renderer/kwalk" index "$OUT" -o "$OUT/kwalk-index.yaml"
echo
echo "== Sidecars (one per translation unit) =="
ls -1 "$OUT"/*.kwalk.yaml
echo
echo "== Kernel instantiations, their launch sites and entry points =="
"$BUILD/renderer/kwalk" list --db "$OUT/kwalk-index.yaml"
