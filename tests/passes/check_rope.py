"""check_rope.py: rope_sbhd_fwd_kernel against its source (rope_kernels.hip).

The token is blockIdx.x * batch + blockIdx.y, so the positions load is uniform
across lanes, batch*8 bytes apart between x work-groups and 8 bytes between y
work-groups; cos/sin are staged in LDS by `for (i = threadIdx.x; i < rot_dim;
i += 256)` (lane stride 4, conflict-free) and read back after the kernel's one
__syncthreads; the query/key items are indexed by i / half and i % half with
half = rot_dim / 2 a kernel value, which no constant lane stride describes:
those strides must be unknown, with the division named as the reason."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwir_common import CORPUS, WHO, args_env, kernel_params, kernels_by_name, ll_count, ll_functions, value  # noqa: E402

C = Checker("ir.rope", who=WHO)
SRC = os.path.join(CORPUS, "rope_kernels.hip")
src = open(SRC).read()
body = src[src.index("rope_sbhd_fwd_kernel(  //"):]
body = body[:body.index("\n}\n")]
SYNCS = body.count("__syncthreads()")
STEP = int(re.search(r"kRopeBlock = (\d+)", src).group(1))
P = kernel_params(SRC, "rope_sbhd_fwd_kernel")
expected = json.load(open(os.path.join(CORPUS, "expected.json")))["kernels"]
name = "rope_kernels.gfx942"
ks = kernels_by_name(name)
ll = ll_functions(name)

for inst in expected["rope.rope_sbhd_fwd_kernel"]["instantiations"]:
    T, neox = inst["args"]
    prefix = "void kw::rope_sbhd_fwd_kernel<%s, %s>(" % (T.replace("__bf16", "std::bfloat16_t"), neox)
    hits = [k for d, k in ks.items() if d.startswith(prefix)]
    tag = f"<{T}, {neox}>"
    if not C.eq(len(hits), 1, f"{tag}: found"):
        continue
    k = hits[0]
    C.eq(k["barriers"], SYNCS, f"{tag}: barriers")
    C.eq(k["barriers"], ll_count(ll[k["symbol"]], r"call void @llvm\.amdgcn\.s\.barrier\(\)"),
         f"{tag}: barriers vs llvm-dis")
    env = args_env(P, batch=3, num_heads=8, num_kv_heads=2, head_size=128, rot_dim=64)
    pos = [a for a in k["accesses"] if a["param"] and P[a["param_index"]] == "positions"]
    C.eq(len(pos), 1, f"{tag}: one positions load")
    for a in pos:
        C.eq(a["lane_stride_bytes"], 0, f"{tag}: positions uniform")
        C.eq(value(a["group_stride_bytes"], env), 3 * 8, f"{tag}: positions x stride")
        C.eq(value(a["group_stride_bytes_y"], env), 8, f"{tag}: positions y stride")
    lds_stores = [a for a in k["accesses"] if a["space"] == "lds" and a["op"] == "store"]
    C.check(lds_stores, f"{tag}: cos/sin staged in LDS")
    for a in lds_stores:
        C.check(a["object"].endswith("::cos_sin"), f"{tag}: LDS object is cos_sin", a["object"])
        if a["lane_stride_bytes"] != "unknown":
            C.eq(a["lane_stride_bytes"], 4, f"{tag}: staging lane stride")
            C.eq(a["bank_conflict_degree"], 1, f"{tag}: staging conflict-free")
    qk = [a for a in k["accesses"] if a["param"] and P[a["param_index"]] in ("query", "key")]
    C.check(qk, f"{tag}: query/key accessed")
    for a in qk:
        C.eq(a["lane_stride_bytes"], "unknown", f"{tag}: {a['param']} stride unknown")
        why = a.get("lane_stride_bytes_why", "")
        C.check(re.search(r"sdiv|srem|udiv|urem|divid", why), f"{tag}: reason names the division by half",
                why)
    staging = {a["loop"] for a in k["accesses"] if a["param"] and P[a["param_index"]] == "cos_sin_cache"}
    C.check(staging - {None}, f"{tag}: the staging loop reads cos_sin_cache")
    for lp in k["loops"]:
        if lp["id"] not in staging:
            continue
        if lp["trip_count"] == "unknown":
            C.check(lp.get("trip_count_why"), f"{tag}: loop {lp['id']} unknown with a reason")
            continue
        for rot, t in ((64, 0), (64, 5), (256, 0), (256, 255), (200, 17)):
            e = dict(env, **args_env(P, rot_dim=rot))
            e["threadIdx.x"] = t
            C.check(value(lp["trip_count"], e) <= len(range(t, rot, STEP)),
                    f"{tag}: loop {lp['id']} ({lp['trip_count']}) <= source count")
C.finish()
