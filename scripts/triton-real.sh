#!/usr/bin/env bash
# triton-real.sh: run tests/triton/real_triton_check.py (the launch shapes of
# triton.launch_shapes) inside real Triton with kwalk's hook, producing the
# committed tests/triton/real/sidecars-hip/ and sidecars-cuda/.
#
#   scripts/triton-real.sh OUTDIR      (needs Triton 3.6, PyTorch and a GPU)
#
# Copies python/ and tests/triton/{real_triton_check.py,real/} to /opt/kwalk
# (every path in the sidecars starts with /opt/kwalk/, which stands for the
# repository root: `--map-prefix /opt/kwalk=<repo>`), then runs the driver
# twice with the hook installed as docs/triton.md says (PYTHONPATH=python,
# KWALK_TRITON_DIR): --target hip (every compile for gfx942; launches fail on
# a non-AMD GPU, caught) into sidecars-hip/, --target cuda (the GPU at hand,
# launched for real, the two-config autotune benchmarked) into
# sidecars-cuda/. OUTDIR gets triton-real.tar.gz (both folders, the logs and
# frames.txt: the installed Triton's launch-path source); unpack it into
# tests/triton/real/.
set -euo pipefail
out=${1:?usage: triton-real.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
root=/opt/kwalk
r=$root/tests/triton/real

py=${PYTHON:-python3}
if ! "$py" -c 'import triton, torch' 2>/dev/null; then
    for cand in /opt/torch/.venv/bin/python python; do
        if "$cand" -c 'import triton, torch' 2>/dev/null; then py=$cand; break; fi
    done
fi
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
rm -rf "$root"
mkdir -p "$root/tests/triton"
cp -r "$src/python" "$root/python"
cp -r "$src/tests/triton/real" "$src/tests/triton/real_triton_check.py" "$root/tests/triton/"
rm -rf "$r"/sidecars-* "$r"/cache-*
cd "$root/tests/triton"
for t in hip cuda; do
    echo "== $t"
    TRITON_CACHE_DIR=$r/cache-$t KWALK_TRITON_DIR=$r/sidecars-$t PYTHONPATH=$root/python \
        "$py" real_triton_check.py --target "$t" --frames "$r/frames.txt" 2>&1 | tee "$r/log-$t.txt" || echo "== $t: exit $?"
done
cd "$r"
ls sidecars-hip sidecars-cuda
tar czf "$out/triton-real.tar.gz" sidecars-hip sidecars-cuda log-hip.txt log-cuda.txt frames.txt
