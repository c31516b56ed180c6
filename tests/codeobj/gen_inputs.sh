#!/bin/sh
# gen_inputs.sh: builds every input the codeobj checks read, into $KWCO_WORK,
# with the compilers and tools of $LLVM_BIN; nothing generated is committed.
#
#   <tu>.<arch>.dev.o    device-only compile for one arch (an offload bundle)
#   remarks/<tu>.<arch>.txt  the same compile's -Rpass-analysis=kernel-resource-usage
#   co/reqd.<arch>.co    OpenCL kernels with reqd_work_group_size (bare ELF)
#   kinds.hipfb          device-only, every arch: what CudaGpuBinaryFileName names
#   kinds.host.o         host object with .hip_fatbin (plain bundle)
#   kinds.ccob3.host.o   the same with --offload-compress (CCOB v3, zstd; v2 from
#                        LLVM 19, which has no v3)
#   kinds.ccob2.host.o   the same with COMPRESSED_BUNDLE_FORMAT_VERSION=2
#   kinds.zlib2.ccob, kinds.zlib3.ccob  CCOB with zlib (made by make_ccob.py;
#                        clang's bundler must accept them; v3 only where this
#                        LLVM writes v3 itself)
#   libtwo.so            two host objects linked: two bundles in .hip_fatbin
#   libmixed.so          a compressed and a plain bundle in one .hip_fatbin
#   kinds.g.dev.o        the first arch with -gline-tables-only
#   asm_kernel.co / asm_kernel.rel.o  the hand-written .s, linked / relocatable
#   corpus/<tu>.<arch>.dev.o (+ remarks) the project's corpus as the build compiled
#                        it (KWCO_ISA_DIR, KWCO_CORPUS_OBJ: copied, not compiled
#                        again); rmsnorm also with line tables (every arch),
#                        as a host object, and compressed
#   co/*.co              every code object unbundled by clang-offload-bundler
#   bad/*                broken inputs (make_bad.py)
#   fuzz-seeds/*         small inputs of each kind for the fuzzer
# The arches are the build's (KWALK_TEST_ARCHS, comma-separated, from
# KWALK_HIP_ARCHS); the hand-written asm_kernel.s is gfx942's whatever they are.
set -eu
: "${KWCO_WORK:?}" "${KWCO_SRC:?}" "${LLVM_BIN:?}" "${KWALK_TEST_ARCHS:?}"
W=$KWCO_WORK
S=$KWCO_SRC/src
B=$LLVM_BIN
ARCHS=$(echo "$KWALK_TEST_ARCHS" | tr ',' ' ')
ALL=""
for a in $ARCHS; do ALL="$ALL --offload-arch=$a"; done
FIRST=${ARCHS%% *}
LAST=${ARCHS##* }
# target-id features: sramecc+:xnack- on the first arch, xnack+ on the last
FEATURES="--offload-arch=$FIRST:sramecc+:xnack-"
[ "$LAST" = "$FIRST" ] || FEATURES="$FEATURES --offload-arch=$LAST:xnack+"
rm -rf "$W"
mkdir -p "$W/remarks" "$W/co" "$W/bad" "$W/corpus"
cd "$W"

HIPCC="$B/clang++ -x hip -nogpulib -nogpuinc -O3 -I$S"
RU=-Rpass-analysis=kernel-resource-usage

for tu in kinds other; do
  for a in $ARCHS; do
    $HIPCC --offload-arch=$a --cuda-device-only -c "$S/$tu.hip" -o $tu.$a.dev.o $RU \
      2> remarks/$tu.$a.txt
  done
done
# OpenCL straight to a code object (no bundle); reqd_work_group_size.
for a in $ARCHS; do
  $B/clang -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=$a -nogpulib -O3 "$S/reqd.cl" \
    -o co/reqd.$a.co $RU 2> remarks/reqd.$a.txt
done
$HIPCC $ALL --cuda-device-only -c "$S/kinds.hip" -o kinds.hipfb
$HIPCC $ALL -c "$S/kinds.hip" -o kinds.host.o
COMPRESSED_BUNDLE_FORMAT_VERSION=3 $HIPCC $ALL \
  --offload-compress -c "$S/kinds.hip" -o kinds.ccob3.host.o
COMPRESSED_BUNDLE_FORMAT_VERSION=2 $HIPCC $ALL \
  --offload-compress -c "$S/kinds.hip" -o kinds.ccob2.host.o
$HIPCC $ALL -c "$S/other.hip" -o other.host.o
# target-id features (sramecc, xnack) in the bundle id, amdhsa.target, e_flags
$HIPCC $FEATURES --cuda-device-only -c "$S/other.hip" -o other.features.dev.o
$B/clang -shared kinds.host.o other.host.o -o libtwo.so
$B/clang -shared kinds.ccob3.host.o other.host.o -o libmixed.so
$HIPCC --offload-arch=$FIRST --cuda-device-only -gline-tables-only -c "$S/kinds.hip" \
  -o kinds.g.dev.o

$B/clang -x assembler -target amdgcn-amd-amdhsa -mcpu=gfx942 "$S/asm_kernel.s" -o asm_kernel.co
$B/clang -x assembler -target amdgcn-amd-amdhsa -mcpu=gfx942 -c "$S/asm_kernel.s" \
  -o asm_kernel.rel.o
cp asm_kernel.co co/asm_kernel.co

# The project's corpus, from what the build already compiled (nothing compiled
# again here): the isa_sidecar inputs hold each corpus TU compiled device-only
# per arch with the corpus's flags and -cuid, with the same compile's
# resource-usage remarks (isa_sidecar.corpus checks that those code objects are
# byte for byte the corpus's), rmsnorm_quant_kernels with -Xarch_device
# -gline-tables-only (_g.o) and with --offload-compress (_z.o, the corpus's
# -cuid); the corpus build's own rmsnorm_quant_kernels.o is the plain bundle.
if [ -n "${KWCO_ISA_DIR:-}" ] && [ -d "${KWCO_CORPUS:-}" ]; then
  for src in "$KWCO_CORPUS"/*.hip; do
    tu=$(basename "$src" .hip)
    for a in $ARCHS; do
      cp "$KWCO_ISA_DIR/remarks/$tu.$a.dev.o" corpus/$tu.$a.dev.o
      cp "$KWCO_ISA_DIR/remarks/$tu.$a.txt" remarks/corpus.$tu.$a.txt
    done
  done
  "$B/llvm-objcopy" --dump-section=.hip_fatbin=corpus/rmsnorm_quant_kernels.g.dev.o \
    "$KWCO_ISA_DIR/objs/rmsnorm_quant_kernels_g.o"
  cp "$KWCO_CORPUS_OBJ/rmsnorm_quant_kernels.o" corpus/rmsnorm.host.o
  cp "$KWCO_ISA_DIR/objs/rmsnorm_quant_kernels_z.o" corpus/rmsnorm.ccob.host.o
fi

# CCOB with zlib: clang's bundler writes zstd whenever LLVM has it, so these
# are made here and then must pass the bundler itself (ground truth).
# CCOB v3 is LLVM 20's: LLVM 19's clang writes v2 when asked for 3, and its
# bundler cannot read v3, so the zlib v3 CCOB is made only where clang wrote v3.
$B/llvm-objcopy --dump-section=.hip_fatbin=kinds.ccob3.fatbin kinds.ccob3.host.o
ZVERSIONS=2
[ "$(od -An -tu2 -j4 -N2 kinds.ccob3.fatbin | tr -d ' ')" = 3 ] && ZVERSIONS="2 3"
for v in $ZVERSIONS; do
  z=kinds.zlib$v.ccob
  python3 "$KWCO_SRC/make_ccob.py" kinds.hipfb $z $v zlib
  $B/clang-offload-bundler --list --type=o --input=$z > $z.list
  grep -q "$LAST" $z.list
done

# Every code object, as clang-offload-bundler unbundles it.
unbundle() { # FILE PREFIX
  for id in $($B/clang-offload-bundler --list --type=o --input="$1"); do
    case $id in hip*-amdgcn-*) ;; *) continue ;; esac
    $B/clang-offload-bundler --unbundle --type=o --input="$1" --targets="$id" \
      --output="co/$2.${id##*--}.co"
  done
}
for tu in kinds other; do
  for a in $ARCHS; do unbundle $tu.$a.dev.o $tu; done
done
unbundle kinds.g.dev.o kinds.g
unbundle other.features.dev.o other.features
for f in corpus/*.dev.o; do
  [ -e "$f" ] || continue
  tu=$(basename "$f" .dev.o)
  case $tu in *.g) unbundle "$f" "corpus.$tu" ;; *) unbundle "$f" "corpus.${tu%.*}" ;; esac
done

# Pieces the bad-input generator corrupts.
$B/llvm-objcopy --dump-section=.hip_fatbin=kinds.ccob2.fatbin kinds.ccob2.host.o
$B/llvm-objcopy --remove-section=.note asm_kernel.co bad/no_note.co
printf 'int kwco_plain(void) { return 1; }\n' > plain.c
$B/clang -c plain.c -o bad/host_without_fatbin.o
$B/llvm-objcopy --update-section=.hip_fatbin=plain.c kinds.host.o bad/host_garbage_fatbin.o

python3 "$KWCO_SRC/make_bad.py" "$W" "$W/bad"

# Seeds for the fuzzer: one small input of each kind.
mkdir -p fuzz-seeds
cp co/asm_kernel.co co/reqd.$FIRST.co other.$FIRST.dev.o kinds.zlib2.ccob bad/no_note.co \
   fuzz-seeds/
$B/llvm-objcopy --dump-section=.hip_fatbin=fuzz-seeds/other.fatbin other.host.o
COMPRESSED_BUNDLE_FORMAT_VERSION=3 $HIPCC --offload-arch=$FIRST --offload-compress -c \
  "$S/other.hip" -o other.ccob3.host.o
$B/llvm-objcopy --dump-section=.hip_fatbin=fuzz-seeds/other.ccob3.fatbin other.ccob3.host.o
echo "codeobj inputs in $W: $(ls co | wc -l) code objects, $(ls bad | wc -l) bad inputs"
