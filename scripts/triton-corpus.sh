#!/usr/bin/env bash
# triton-corpus.sh: compile kwalk's Triton corpus (tests/corpus/triton) for
# gfx942 and gfx950 with the kwalk hook on, producing what is committed under
# tests/corpus/triton/: cache/ (a TRITON_CACHE_DIR), sidecars/ (the hook's
# sidecars), sidecars-hit/ (a second gfx942 run, every compile a cache hit)
# and manifest.jsonl (what each compile was passed: constexprs and options).
#
#   scripts/triton-corpus.sh OUTDIR        (needs Triton 3.6 and PyTorch)
#
# How the committed artifacts were made: on a machine with an NVIDIA GPU,
# Triton 3.6.0 and PyTorch (no AMD GPU: Triton's HIP backend compiles without
# one), this script copied python/ and the corpus to /opt/kwalk (so every
# path inside the cache and sidecars starts with /opt/kwalk/, which stands
# for the repository root: map it with `--map-prefix /opt/kwalk=<repo>`),
# then ran tests/corpus/triton/run_corpus.py once per arch with
# PYTHONPATH=/opt/kwalk/python, KWALK_TRITON_DIR=$C/sidecars and
# TRITON_CACHE_DIR=$C/cache (C=/opt/kwalk/tests/corpus/triton).
# run_corpus.py points Triton's active driver at GPUTarget("hip", ARCH, 64)
# and calls the ops of model.py: each kernel[grid](...) compiles for ARCH (the
# compile listener fires and the hook writes a sidecar), then the launch
# fails on the NVIDIA GPU, which is expected and caught. A third run (gfx942
# again, same cache) enables the hook with kwalk_triton.enable() over a
# listener of its own (chaining) and writes sidecars-hit/. Cache folders
# without a .hsaco (the NVIDIA launcher stubs) are dropped.
# OUTDIR gets triton-corpus.tar.gz (cache/ sidecars/ sidecars-hit/
# manifest.jsonl manifest-hit.jsonl) and triton-corpus.log; unpack the tar
# into tests/corpus/triton/.
set -euo pipefail
out=${1:?usage: triton-corpus.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
root=/opt/kwalk
c=$root/tests/corpus/triton

py=${PYTHON:-python3}
if ! "$py" -c 'import triton, torch' 2>/dev/null; then
    for cand in /opt/torch/.venv/bin/python python; do
        if "$cand" -c 'import triton, torch' 2>/dev/null; then py=$cand; break; fi
    done
fi
export PYTHONUNBUFFERED=1
exec > >(tee "$out/triton-corpus.log") 2>&1
echo "python: $py"
"$py" -c 'import triton, triton.compiler.compiler as c; print("triton", triton.__version__, c.__file__)'
grep -n "listener" "$("$py" -c 'import triton.compiler.compiler as c; print(c.__file__)')" || true

rm -rf "$root"
mkdir -p "$c/cache"
cp -r "$src/python" "$root/python"
cp "$src"/tests/corpus/triton/*.py "$c/"
cd "$c"
export TRITON_CACHE_DIR=$c/cache
for arch in gfx942 gfx950; do
    echo "== $arch"
    PYTHONPATH=$root/python KWALK_TRITON_DIR=$c/sidecars \
        "$py" run_corpus.py --arch "$arch" --manifest "$c/manifest.jsonl"
done
echo "== gfx942 again (cache hits, hook enabled by kwalk_triton.enable)"
PYTHONPATH=$root/python "$py" run_corpus.py --arch gfx942 \
    --manifest "$c/manifest-hit.jsonl" --chain-debug "$c/sidecars-hit"

for d in "$c"/cache/*/; do
    ls "$d" | grep -q '\.hsaco$' || { echo "dropped (no .hsaco): $(ls "$d" | tr '\n' ' ')"; rm -rf "$d"; }
done
find "$c/cache" -name '*.tmp*' -delete
du -sh "$c/cache" "$c/sidecars" "$c/sidecars-hit"
ls "$c/sidecars" "$c/sidecars-hit"
tar czf "$out/triton-corpus.tar.gz" cache sidecars sidecars-hit manifest.jsonl manifest-hit.jsonl
ls -la "$out"
