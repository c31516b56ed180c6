"""check_aiter_ir.py: the IR facts of aiter's own rmsnorm opus kernels (the
fixture ../shared/fixtures/aiter-hip, TU rmsnorm_opus_norm_bf16 compiled as
compile.sh does, device-only bitcode for gfx950): the LDS tree of its
block_reduce is an lds_tree_reduce with the source's operation, LDS array size
and stride loop (steps checked by running the source loop for several block
sizes), and the trip count of the row's overflow loop is an expression of the
kernel's arguments equal to the source loop run by brute force. Skips (77)
where the fixture is absent."""
import os
import re
import stat
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwir_common as K  # noqa: E402
from kwcheck import Checker  # noqa: E402

FIX = os.environ.get("AITER_FIXTURE", "")
RSP = os.environ.get("KWIR_RSP", "")
if not FIX or not os.path.isfile(os.path.join(FIX, "compile.sh")):
    print(f"ir.aiter skipped: no aiter fixture at {FIX!r} (../shared is absent)")
    sys.exit(77)
if "gfx950" not in K.ARCHES:
    print("ir.aiter skipped: the build has no gfx950")
    sys.exit(77)

OUT = os.path.join(K.WORK, "aiter")
os.makedirs(OUT, exist_ok=True)
wrap = os.path.join(OUT, "cxx-ir.sh")
with open(wrap, "w") as f:  # compile.sh's CXX, turned into a device-only bitcode compile
    f.write("#!/bin/sh\nexec %s \"$@\" --cuda-device-only -emit-llvm\n"
            % os.path.join(K.LLVM_BIN, "clang++"))
os.chmod(wrap, os.stat(wrap).st_mode | stat.S_IEXEC)
env = dict(os.environ, CXX=wrap, ARCHS="gfx950")
r = subprocess.run(["bash", os.path.join(FIX, "compile.sh"), OUT, RSP, "", "rmsnorm_opus_norm_bf16"],
                   env=env, capture_output=True, text=True)
if r.returncode:
    print(r.stdout, r.stderr, open(os.path.join(OUT, "obj", "rmsnorm_opus_norm_bf16.log")).read())
    sys.exit(1)
bc = os.path.join(OUT, "obj", "rmsnorm_opus_norm_bf16.o")
with open(os.path.join(OUT, "norm.yaml"), "w") as f:
    subprocess.run([os.environ["KWIR_DUMP"], bc], stdout=f, check=True)

C = Checker("ir.aiter", who=K.WHO)
HDR = os.path.join(FIX, "aiter", "csrc", "include", "opus", "rmsnorm_opus_kernel.hpp")
text = open(HDR).read()


def c_eval(expr, env):
    e = expr
    for k in sorted(env, key=len, reverse=True):
        e = re.sub(r"(?<![\w.])" + re.escape(k) + r"(?![\w])", "(%d)" % env[k], e)
    return int(eval(re.sub(r"(?<![/])/(?![/])", "//", e), {"__builtin__": None}, {}))


# block_reduce: its LDS array, its stride loop, and the operation per IS_MAX
br = text[text.index("block_reduce(float v)"):]
arr = re.search(r"__shared__ float (\w+)\[(\d+)\];", br)
loop = re.search(r"for\s*\(int (\w+) = (.+?); \1 > 0; \1 >>= 1\)", br)
tree_bytes = 4 * int(arr.group(2))
kern = text[text.index("__global__ void rmsnorm_opus_kernel(void* __restrict__ out_"):]
kern = kern[:kern.index("template <typename Traits, bool OOP>")]
ops = ["max" if m == "true" else "add" for m in re.findall(r"block_reduce<(\w+)>", kern)]
cache_v = int(re.search(r"constexpr int CACHE_V = (\d+);", kern).group(1))
over = re.search(r"for\s*\(int (\w+) = (.+?); \1 < (\w+); \1 \+= (\w+)\)", kern)
params = re.findall(r"(\w+)(?:,|\))", re.search(r"rmsnorm_opus_kernel\((.*?)\)\s*\{", kern, re.S)
                    .group(1).replace("\n", " "))

ks = K.kernels_by_name("aiter/norm")
norm = {n: k for n, k in ks.items() if n.startswith("void aiter::rmsnorm_opus_kernel<")}
C.check(len(norm) >= 2, "rmsnorm_opus_kernel instantiations found", str(len(norm)))
for name, k in norm.items():
    width = int(re.search(r"rmsnorm_opus_traits<[^,]+, (\d+)", name).group(1))
    trees = [d for d in k["idioms"] if d["kind"] == "lds_tree_reduce"]
    short = name[:80]
    C.eq(sorted(d["op"] for d in trees), sorted(ops), f"{short}: lds_tree_reduce ops")
    for d in trees:
        C.eq(d["lds_bytes"], tree_bytes, f"{short}: lds_bytes")
        for B in (64, 128, 256, 512, 1024):
            s, n = c_eval(loop.group(2).replace("tpr", "B"), {"B": B}), 0
            while s > 0:
                n, s = n + 1, s >> 1
            C.eq(K.value(d["steps"], {"blockDim.x": B}), n,
                 f"{short}: tree steps at blockDim.x={B}")
    # the overflow loop (idx from lane + CACHE_V*tpr below vec_hidden = hidden / width)
    trips = [l for l in k["loops"] if l["lane_dependent"]]
    C.check(trips, f"{short}: lane-dependent loops", "none")
    for l in trips:
        C.check(l["trip_count"] != "unknown", f"{short}: overflow loop trip count known",
                l.get("trip_count_why", ""))
        if l["trip_count"] == "unknown":
            continue
        for B in (64, 256):
            for t in (0, 3, B - 1):
                for hidden in (4096, 8192, 16384 + 64, 65536):
                    e = {"lane": t, "tpr": B, "CACHE_V": cache_v, "vec_hidden": hidden // width}
                    i, n = c_eval(over.group(2), e), 0
                    while i < e["vec_hidden"]:
                        n, i = n + 1, i + B
                    if n == 0:
                        continue
                    env = K.args_env(params, hidden=hidden)
                    env.update({"blockDim.x": B, "threadIdx.x": t})
                    C.eq(K.value(l["trip_count"], env), n,
                         f"{short}: overflow trips B={B} t={t} hidden={hidden}")
C.finish()
