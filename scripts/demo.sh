#!/usr/bin/env bash
# demo.sh: the main job on a fresh Debian 12 machine. Installs what is needed,
# builds libkwalk.so and kwalk, compiles the bundled example kernels
# (tests/corpus, aiter style) with the plugin for gfx942 and gfx950, gathers
# their sidecars into one index ($BUILD/corpus/kwalk.db, the SQLite database
# the README describes), shows what was captured, renders a walkthrough of
# every kernel instantiation into $BUILD/walkthroughs/ (and as a static HTML
# site into $BUILD/site/, kwalk site) and prints the known
# kernel -> Python entry -> C++ entry -> launch -> device code map.
#   scripts/demo.sh [BUILD_DIR]      (default: build)
# KWALK_DEMO_NO_BUILD=1 skips the install and the build and uses BUILD_DIR as
# it is (scripts/test.sh runs the demo this way on the build it made); the
# demo then fails unless the build already holds kwalk and the corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

if [ "${KWALK_DEMO_NO_BUILD:-0}" != 1 ]; then
  bash scripts/install-deps.sh
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build "$BUILD" --target kwalk_plugin kwalk kw_corpus
fi

KWALK="$BUILD/cli/kwalk"
OUT="$BUILD/corpus"
DB="$OUT/kwalk.db"
[ -x "$KWALK" ] || { echo "demo.sh: $KWALK is not built" >&2; exit 1; }
rm -rf "$BUILD/walkthroughs" "$BUILD/site"
"$KWALK" index "$OUT" -o "$DB"
echo
echo "== Sidecars (one per translation unit) =="
ls -1 "$OUT" | grep -E '\.kwalk\.yaml(\.zst)?$'
echo
echo "== Kernel instantiations, their launch sites and entry points =="
"$KWALK" list --db "$DB"
echo
echo "== Walkthroughs (one per instantiation, grouped by template in index.md) =="
"$KWALK" render --all --db "$DB" -o "$BUILD/walkthroughs" \
  --root "$PWD" --python-root tests/corpus/ops
echo
echo "== The same walkthroughs as a static site (open index.html in a browser) =="
"$KWALK" site --db "$DB" -o "$BUILD/site" \
  --root "$PWD" --python-root tests/corpus/ops
echo
echo "== Known kernel -> Python entry -> C++ entry -> launch site -> device code =="
"$KWALK" map --db "$DB" --root "$PWD" --python-root tests/corpus/ops
echo
echo "Index: $DB"
echo "Walkthroughs: $BUILD/walkthroughs/index.md"
echo "Site: file://$(cd "$BUILD/site" && pwd)/index.html"
