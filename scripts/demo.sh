#!/usr/bin/env bash
# demo.sh: the main job on a fresh Debian 12 machine. Installs what is needed,
# builds libkwalk.so and kwalk, compiles the bundled example kernels
# (tests/corpus, aiter style) with the plugin for gfx942 and gfx950, gathers
# their sidecars into one index, shows what was captured, renders a walkthrough
# of every kernel instantiation into $BUILD/walkthroughs/ (and as a static
# HTML site into $BUILD/site/, kwalk site) and prints the known
# kernel -> Python entry -> C++ entry -> launch -> device code map.
#   scripts/demo.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

bash scripts/install-deps.sh
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$BUILD" --target kwalk_plugin kwalk kw_corpus

OUT="$BUILD/corpus"
"$BUILD/cli/kwalk" index "$OUT" -o "$OUT/kwalk.yaml"
echo
echo "== Sidecars (one per translation unit) =="
ls -1 "$OUT"/*.kwalk.yaml
echo
echo "== Kernel instantiations, their launch sites and entry points =="
"$BUILD/cli/kwalk" list --db "$OUT/kwalk.yaml"
echo
echo "== Walkthroughs (one per instantiation, grouped by template in index.md) =="
"$BUILD/cli/kwalk" render --all --db "$OUT/kwalk.yaml" -o "$BUILD/walkthroughs" \
  --root "$PWD" --python-root tests/corpus/ops
echo
echo "== The same walkthroughs as a static site (open index.html in a browser) =="
"$BUILD/cli/kwalk" site --db "$OUT/kwalk-index.yaml" -o "$BUILD/site" \
  --root "$PWD" --python-root tests/corpus/ops
echo
echo "== Known kernel -> Python entry -> C++ entry -> launch site -> device code =="
"$BUILD/cli/kwalk" map --db "$OUT/kwalk.yaml" --root "$PWD" --python-root tests/corpus/ops
echo
echo "Walkthroughs: $BUILD/walkthroughs/index.md"
echo "Site: file://$(cd "$BUILD/site" && pwd)/index.html"
