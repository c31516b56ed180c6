#!/usr/bin/env bash
# render-examples.sh: renders the example walkthroughs committed under
# docs/examples/ from a build's corpus sidecars. tests/examples runs it into a
# temporary directory and fails when the committed copies differ (stale).
#   scripts/render-examples.sh BUILD_DIR [OUT_DIR]     (default OUT_DIR: docs/examples)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?usage: render-examples.sh BUILD_DIR [OUT_DIR]}
OUT=${2:-docs/examples}
KWALK="$BUILD/cli/kwalk"
ROOT=$(pwd)
DB="$BUILD/examples-index.db" # a fixed name: the pages' footer names it
mkdir -p "$OUT"
"$KWALK" index "$BUILD/corpus" -o "$DB" > /dev/null
render() { # name kernel shape
  "$KWALK" render "$2" --db "$DB" --root "$ROOT" \
    --python-root "$ROOT/tests/corpus/ops" --shape "$3" -o "$OUT/$1.md"
}
render add_rmsnorm_quant_bf16_fp8 \
  "kw::add_rmsnorm_quant_kernel<__bf16, kw::fp8_e4m3, 256, 16, 16>" \
  "num_rows=4096,hidden=2048"
render rope_sbhd_fwd_neox_bf16 "kw::rope_sbhd_fwd_kernel<__bf16, true>" \
  "seq_len=4096,batch=8,num_heads=32,head_size=128,rot_dim=128"
"$KWALK" map --db "$DB" --root "$ROOT" --python-root "$ROOT/tests/corpus/ops" \
  > "$OUT/map.md"
# The build directory's name is the reader's choice, not a fact of the build.
ABS=$(cd "$BUILD" && pwd)
REL=$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$ABS" "$ROOT")
sed -i -e "s#$ABS/#<build>/#g" -e "s#$REL/#<build>/#g" "$OUT"/add_rmsnorm_quant_bf16_fp8.md \
  "$OUT"/rope_sbhd_fwd_neox_bf16.md "$OUT"/map.md
