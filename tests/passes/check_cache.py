"""check_cache.py: the KV-cache kernels (cache_kernels.hip) against their source.

reshape_and_cache_with_per_token_quant_kernel<T, Q, H>: one wave per (token =
blockIdx.x, head = blockIdx.y); lane t owns kPerLane = H/64 contiguous elements
read with load_vector_nbytes in chunks of min(16, kPerLane*sizeof(T)) bytes,
so each lane reads kPerLane*sizeof(T) bytes of key and of value at lane stride
kPerLane*sizeof(T), rows key_stride*sizeof(T) apart, heads H*sizeof(T) apart;
two DPP wave reductions (max |k|, max |v|), no LDS and no barrier; thread 0
writes the two scales at [head, slot] (slot comes from memory, so the
token-to-token stride of every cache-side address is unknown); the quantized
cache rows are kPerLane bytes per lane. reshape_and_cache_kernel<T>: a loop
`for (i = threadIdx.x; i < head_size; i += 64)`, lane stride sizeof(T)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwir_common import (CORPUS, SIZEOF, WHO, args_env, kernel_params, kernels_by_name,
                         ll_count, ll_functions, value)

C = Checker("ir.cache", who=WHO)
SRC = os.path.join(CORPUS, "cache_kernels.hip")
src = open(SRC).read()
expected = json.load(open(os.path.join(CORPUS, "expected.json")))["kernels"]
name = "cache_kernels.gfx942"
ks = kernels_by_name(name)
ll = ll_functions(name)


def find(prefix):
    hits = [k for d, k in ks.items() if d.startswith(prefix)]
    C.eq(len(hits), 1, f"{prefix}: found")
    return hits[0] if hits else None


qbody = src[src.index("reshape_and_cache_with_per_token_quant_kernel(  //"):]
qbody = qbody[:qbody.index("\n}\n")]
WAVE_REDUCES = re.findall(r"wave_reduce\(\w+, (\w+)Op<float>", qbody)
C.eq(WAVE_REDUCES, ["Max", "Max"], "source: two wave reductions of max")
QP = kernel_params(SRC, "reshape_and_cache_with_per_token_quant_kernel")

for inst in expected["cache.per_token_quant_kernel"]["instantiations"]:
    T, Q, H = inst["args"][0], inst["args"][1], int(inst["args"][2])
    sT, sQ = SIZEOF[T], SIZEOF[Q]
    per_lane = H // 64
    k = find("void kw::reshape_and_cache_with_per_token_quant_kernel<%s, %s, %d>("
             % (T.replace("__bf16", "std::bfloat16_t"), Q, H))
    if not k:
        continue
    tag = f"<{T}, {Q}, {H}>"
    env = args_env(QP, key_stride=11, value_stride=13, block_size=16, num_slots=1000)
    by = {}
    for a in k["accesses"]:
        by.setdefault(QP[a["param_index"]], []).append(a)
    for p, stride in (("key", "key_stride"), ("value", "value_stride")):
        acc = by.get(p, [])
        C.eq(sum(a["bytes_per_lane"] for a in acc), per_lane * sT, f"{tag} {p}: bytes per lane")
        for a in acc:
            C.eq(a["op"], "load", f"{tag} {p}: load")
            C.eq(a["lane_stride_bytes"], per_lane * sT, f"{tag} {p}: lane stride")
            C.eq(value(a["group_stride_bytes"], env), env[stride] * sT, f"{tag} {p}: token stride")
            C.eq(value(a["group_stride_bytes_y"], env), H * sT, f"{tag} {p}: head stride")
    for p in ("key_cache", "value_cache"):
        acc = by.get(p, [])
        C.eq(sum(a["bytes_per_lane"] for a in acc), per_lane * sQ, f"{tag} {p}: bytes per lane")
        for a in acc:
            C.eq(a["op"], "store", f"{tag} {p}: store")
            C.eq(a["lane_stride_bytes"], per_lane * sQ, f"{tag} {p}: lane stride")
            C.eq(a["group_stride_bytes"], "unknown",
                 f"{tag} {p}: token stride unknown (slot from memory)")
            C.check("memory" in a.get("group_stride_bytes_why", ""),
                    f"{tag} {p}: the reason names memory")
            C.eq(value(a["group_stride_bytes_y"], env), 16 * H * sQ, f"{tag} {p}: head stride")
    for p in ("k_dequant_scales", "v_dequant_scales"):
        acc = by.get(p, [])
        C.eq([a["op"] for a in acc], ["store"], f"{tag} {p}: one store")
        for a in acc:
            C.eq(a["active_lanes"], 1, f"{tag} {p}: thread 0")
            C.eq(value(a["group_stride_bytes_y"], env), 1000 * 4, f"{tag} {p}: head stride")
    sm = by.get("slot_mapping", [])
    C.eq([a["op"] for a in sm], ["load"], f"{tag} slot_mapping: one load")
    for a in sm:
        C.eq(a["lane_stride_bytes"], 0, f"{tag} slot_mapping: uniform")
        C.eq(a["group_stride_bytes"], 8, f"{tag} slot_mapping: int64 per token")
    waves = [d for d in k["idioms"] if d["kind"] == "wave_reduce"]
    C.eq([(d["op"], d["via"], d["lanes"], d["result_lane"], d["broadcast_lane"])
                                    for d in waves], [("max", "dpp", 64, 63, 63)] * len(WAVE_REDUCES), f"{tag} wave reductions")
    C.eq([d for d in k["idioms"] if d["kind"] == "block_reduce"], [], f"{tag} no block reduction")
    C.eq(k["barriers"], 0, f"{tag} no barrier")
    C.eq([a for a in k["accesses"] if a["space"] == "lds"], [], f"{tag} no LDS")
    C.eq(sum(x["op"] == "dpp" for x in k["cross_lane"]), ll_count(ll[k["symbol"]], r"@llvm\.amdgcn\.update\.dpp"),
         f"{tag} DPP ops vs llvm-dis")
    C.eq(k["work_per_thread"]["bytes_read"], 8 + 2 * per_lane * sT, f"{tag} bytes read")
    C.eq(k["work_per_thread"]["bytes_written"], 2 * 4 + 2 * per_lane * sQ, f"{tag} bytes written")

PP = kernel_params(SRC, "reshape_and_cache_kernel")
for inst in expected["cache.reshape_and_cache_kernel"]["instantiations"]:
    T = inst["args"][0]
    sT = SIZEOF[T]
    k = find("void kw::reshape_and_cache_kernel<%s>(" % T.replace("__bf16", "std::bfloat16_t"))
    if not k:
        continue
    tag = f"reshape_and_cache_kernel<{T}>"
    C.check(k["loops"], f"{tag}: has loops")
    for lp in k["loops"]:
        if lp["trip_count"] == "unknown":
            continue
        for hs, t in ((64, 0), (128, 3), (1000, 63), (4096, 5)):
            env = args_env(PP, head_size=hs)
            env["threadIdx.x"] = t
            C.check(value(lp["trip_count"], env) <= len(range(t, hs, 64)),
                    f"{tag}: loop {lp['id']} count <= source count")
    known = {lp["id"] for lp in k["loops"] if lp["trip_count"] != "unknown"}
    env = args_env(PP, key_stride=11, value_stride=13, head_size=128)
    for a in k["accesses"]:
        p = PP[a["param_index"]] if a["param"] else None
        if a["loop"] in known and p in ("key", "value"):
            C.eq(a["lane_stride_bytes"], sT, f"{tag} {p}: lane stride")
            C.eq(value(a["group_stride_bytes"], env), env[p + "_stride"] * sT,
                 f"{tag} {p}: token stride")
            C.eq(value(a["group_stride_bytes_y"], env), 128 * sT, f"{tag} {p}: head stride")
        if a["loop"] is not None and a["lane_stride_bytes"] == "unknown":
            C.check(a.get("lane_stride_bytes_why"), f"{tag}: unknown stride has a reason")
C.finish()
