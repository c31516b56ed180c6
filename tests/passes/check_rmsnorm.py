"""check_rmsnorm.py: the facts of every add_rmsnorm_quant_kernel instantiation
(each arch of the build) against what the source says for its template arguments
(tests/corpus/expected.json lists them; sizes and counts follow from
rmsnorm_quant_kernels.hip, kw_opus.h and kw_reduce.h) and against llvm-dis
text of the same bitcode.

Per instantiation <T, O, B, S, V>: thread t owns S elements from t*S on, read
as S*sizeof(T)/V loads of V bytes (lane stride S*sizeof(T); with S*sizeof(T) ==
V one load per tensor, contiguous across lanes, else a group of loads that
together cover S*sizeof(T) contiguous bytes); rows are blockIdx.x * in_stride
elements apart; the weight is the same for every row; block_reduce runs twice
(sum, then max), each a DPP wave reduction (controls and row masks from
kw_reduce.h), a partial per wave through LDS read by the B/64 first lanes, one
barrier between the LDS store and load and one after."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwir_common import (ARCHES, CORPUS, SIZEOF, WHO, args_env, find_line, kernel_params,
                         kernels_by_name, ll_count, ll_functions, value)

C = Checker("ir.rmsnorm", who=WHO)
SRC = os.path.join(CORPUS, "rmsnorm_quant_kernels.hip")
REDUCE = os.path.join(CORPUS, "include", "kw_reduce.h")
PARAMS = kernel_params(SRC, "add_rmsnorm_quant_kernel")
C.eq(PARAMS[:6], ["out", "row_scale", "residual_out", "input", "residual_in", "weight"],
     "kernel parameters parsed")


def dpp_name(ctrl):
    """GFX9 DPP control -> assembler text (independent of passes/)."""
    if 0x111 <= ctrl <= 0x11F:
        return "row_shr:%d" % (ctrl - 0x110)
    if 0x101 <= ctrl <= 0x10F:
        return "row_shl:%d" % (ctrl - 0x100)
    return {0x142: "row_bcast:15", 0x143: "row_bcast:31"}[ctrl]


# wave_reduce's DPP steps, from kw_reduce.h: enum values and the dpp_step list
reduce_src = open(REDUCE).read()
enum = {m.group(1): int(m.group(2), 16)
        for m in re.finditer(r"(kDpp\w+)\s*=\s*(0x[0-9a-fA-F]+)", reduce_src)}
wave_body = reduce_src[reduce_src.index("T wave_reduce("):reduce_src.index("T block_reduce(")]
STEPS = [(dpp_name(enum[m.group(1)]), int(m.group(2), 16))
         for m in re.finditer(r"dpp_step<(kDpp\w+), (0x[0-9a-fA-F]+)>", wave_body)]
READLANE = int(re.search(r"__builtin_amdgcn_readlane\([^;]*?,\s*(\d+)\)", wave_body).group(1))
block_body = reduce_src[reduce_src.index("T block_reduce("):]
SYNCS_PER_BLOCK_REDUCE = block_body.count("__syncthreads()")
C.eq(len(STEPS), 6, "kw_reduce.h: wave_reduce has 6 DPP steps")

kernel_src = open(SRC).read()
kbody = kernel_src[kernel_src.index("add_rmsnorm_quant_kernel(  //"):kernel_src.index("struct RmsnormQuantArgs")]
BLOCK_REDUCES = re.findall(r"block_reduce<float, (\w+)Op<float>", kbody)
OPS = [{"Sum": "add", "Max": "max"}[o] for o in BLOCK_REDUCES]
ASM_TEXT = re.search(r'asm volatile\("([^"]*)"', kernel_src).group(1)

expected = json.load(open(os.path.join(CORPUS, "expected.json")))
insts = expected["kernels"]["rmsnorm.add_rmsnorm_quant_kernel"]["instantiations"]


def demangled(args):
    names = [a.replace("__bf16", "std::bfloat16_t") for a in args]
    return "void kw::add_rmsnorm_quant_kernel<%s>(" % ", ".join(names)


def footprint(stride, nbytes, lanes=64, seg=64):
    segs = set()
    for i in range(lanes):
        for b in range(i * stride, i * stride + nbytes):
            segs.add(b // seg)
    return len(segs)


def check_kernel(tag, k, body, args, arch):
    T, O, B, S, V = args[0], args[1], int(args[2]), int(args[3]), int(args[4])
    sT, sO = SIZEOF[T], SIZEOF[O]
    vec_elems = V // sT
    vecs = S // vec_elems
    lane_stride = S * sT
    env = args_env(PARAMS, in_stride=7, out_stride=5, hidden=S * B)
    C.eq(k["arch"], arch, f"{tag} arch")
    by_param = {}
    for a in k["accesses"]:
        by_param.setdefault(PARAMS[a["param_index"]] if a["param"] else None, []).append(a)

    for p, op, gstride in (("input", "load", 7 * sT), ("residual_in", "load", 7 * sT),
                           ("weight", "load", 0), ("residual_out", "store", 7 * sT)):
        acc = by_param.get(p, [])
        C.eq([a["op"] for a in acc], [op] * vecs, f"{tag} {p}: {op}s per thread")
        for a in acc:
            C.eq(a["space"], "global", f"{tag} {p}: space")
            C.eq(a["bytes_per_lane"], V, f"{tag} {p}: bytes per lane")
            C.eq(a["lane_stride_bytes"], lane_stride, f"{tag} {p}: lane stride")
            C.eq(value(a["group_stride_bytes"], env), gstride, f"{tag} {p}: group stride")
            C.eq(a["active_lanes"], 64, f"{tag} {p}: active lanes")
            C.eq(a["segments_per_wave"], footprint(lane_stride, V), f"{tag} {p}: segments")
            C.eq(a["segments_per_wave_128"], footprint(lane_stride, V, seg=128),
                 f"{tag} {p}: 128-byte segments")
            C.eq(a["coalesced"], lane_stride == V, f"{tag} {p}: coalesced")
            C.eq(a["loop"], None, f"{tag} {p}: outside loops")
        if vecs > 1:
            groups = {a["group"] for a in acc}
            C.eq(len(groups), 1, f"{tag} {p}: one group")
            g = k["groups"][groups.pop()] if len(groups) == 1 else None
            if g:
                C.eq(sorted(g["members"]), sorted(a["id"] for a in acc),
                     f"{tag} {p}: group members")
                C.eq(g["contiguous"], True, f"{tag} {p}: group contiguous")
                C.eq(g["bytes_per_lane"], lane_stride, f"{tag} {p}: group bytes per lane")
                C.eq(g["segments_per_wave"], 64 * lane_stride // 64, f"{tag} {p}: group segments")
        elif acc:
            C.eq(acc[0]["group"], None, f"{tag} {p}: no group")

    out = by_param.get("out", [])
    C.eq(sum(a["bytes_per_lane"] for a in out), S * sO, f"{tag} out: bytes per thread")
    for a in out:
        C.eq(a["lane_stride_bytes"], S * sO, f"{tag} out: lane stride")
        C.eq(value(a["group_stride_bytes"], env), 5 * sO, f"{tag} out: group stride")
    rs = by_param.get("row_scale", [])
    C.eq([a["op"] for a in rs], ["store"], f"{tag} row_scale: one store")
    for a in rs:
        C.eq(a["lane_stride_bytes"], 0, f"{tag} row_scale: uniform")
        C.eq(a["active_lanes"], 1, f"{tag} row_scale: one lane (threadIdx.x == 0)")
        C.eq(a["group_stride_bytes"], 4, f"{tag} row_scale: a float per row")

    lds = by_param.get(None, [])
    C.eq(sorted((a["space"], a["op"]) for a in lds), sorted([("lds", "load"), ("lds", "store")] * len(BLOCK_REDUCES)),
         f"{tag} LDS accesses")
    for a in lds:
        want_lanes = 1 if a["op"] == "store" else B // 64  # lane == 0 / lane < kWaves
        C.eq(a["active_lanes"], want_lanes, f"{tag} LDS {a['op']} active lanes")
        C.eq(a["bank_conflict_degree"], 1, f"{tag} LDS {a['op']} conflict-free")
        C.check("block_reduce" in a["object"]
               and a["object"].endswith("::partial"), f"{tag} LDS object is block_reduce's partial", a["object"])

    # reductions
    idioms = k["idioms"]
    blocks = [d for d in idioms if d["kind"] == "block_reduce"]
    C.eq([d["op"] for d in blocks], OPS, f"{tag} block reductions (ops in order)")
    for d in blocks:
        C.eq(d["barriers"], 1, f"{tag} block_reduce {d['op']}: barriers between LDS store and load")
        C.eq(d["via"], "dpp+lds", f"{tag} block_reduce {d['op']}: via")
        for part in d["parts"]:
            w = idioms[part]
            C.eq((w["kind"], w["op"]), ("wave_reduce", d["op"]),
                 f"{tag} wave_reduce {d['op']}: kind/op")
            C.eq(w["lanes"], 64, f"{tag} wave_reduce: lanes")
            C.eq(w["result_lane"], READLANE, f"{tag} wave_reduce: result in lane")
            C.eq(w["broadcast_lane"], READLANE, f"{tag} wave_reduce: broadcast")
            xs = [k["cross_lane"][i] for i in w["cross_lane"]]
            dpp = [(x["control"], x["row_mask"]) for x in xs if x["op"] == "dpp"]
            C.eq(dpp, STEPS, f"{tag} wave_reduce: DPP steps")
            C.eq([x["control"] for x in xs if x["op"] == "readlane"], ["lane:%d" % READLANE],
                 f"{tag} wave_reduce: readlane")
    waves = [d for d in idioms if d["kind"] == "wave_reduce"]
    C.eq(len(waves), 2 * len(BLOCK_REDUCES), f"{tag} wave reductions")

    # against llvm-dis text
    C.eq(sum(x["op"] == "dpp" for x in k["cross_lane"]), ll_count(body, r"call i32 @llvm\.amdgcn\.update\.dpp"),
         f"{tag} DPP ops vs llvm-dis")
    C.eq(k["barriers"], SYNCS_PER_BLOCK_REDUCE * len(BLOCK_REDUCES), f"{tag} barriers: source")
    C.eq(k["barriers"], ll_count(body, r"call void @llvm\.amdgcn\.s\.barrier\(\)"),
         f"{tag} barriers vs llvm-dis")

    asm = k["inline_asm"]
    C.eq(len(asm), S // 2, f"{tag} inline asm: one per pair of elements")
    C.eq(len(asm), ll_count(body, r"asm sideeffect"), f"{tag} inline asm vs llvm-dis")
    for s in asm:
        C.eq(s["text"], ASM_TEXT, f"{tag} asm text")
        C.eq(s["flops"], 2, f"{tag} asm flops (v_pk_mul_f32)")
    C.eq(k["loops"], [], f"{tag} loops (all unrolled)")

    w = k["work_per_thread"]
    C.eq(w["bytes_read"], 3 * S * sT, f"{tag} bytes read")
    C.eq(w["bytes_written"], S * sT + S * sO + 4, f"{tag} bytes written")
    C.eq(w["lds_bytes_read"], 4 * len(BLOCK_REDUCES), f"{tag} LDS bytes read")
    C.eq(w["lds_bytes_written"], 4 * len(BLOCK_REDUCES), f"{tag} LDS bytes written")
    C.eq(w["transcendental"], 1, f"{tag} transcendental (one rsqrtf)")
    # flops: the same counting rules applied to the llvm-dis text (every branch
    # here has work on one side only, so the sum over blocks is the longest path)
    flops = 0
    for m in re.finditer(r"= (fadd|fsub|fmul|fdiv)(?: \w+)* (<(\d+) x \w+>|\w+) ", body):
        flops += int(m.group(3) or 1)
    for m in re.finditer(r"call (?:\w+ )*(<(\d+) x \w+>|float) @llvm\.(fma|fmuladd|maxnum|minnum)\.", body):
        flops += int(m.group(2) or 1) * (2 if m.group(3) in ("fma", "fmuladd") else 1)
    flops += 2 * ll_count(body, r'asm sideeffect "v_pk_mul_f32')
    C.eq(w["flops"], flops, f"{tag} flops vs llvm-dis")


for arch in ARCHES:
    name = "rmsnorm_quant_kernels." + arch
    ks = kernels_by_name(name)
    funcs = ll_functions(name)
    for inst in insts:
        prefix = demangled(inst["args"])
        hits = [(d, k) for d, k in ks.items() if d.startswith(prefix)]
        if not C.eq(len(hits), 1, f"{arch} {prefix}: one kernel"):
            continue
        d, k = hits[0]
        check_kernel(f"{arch} <{', '.join(inst['args'])}>", k, funcs[k["symbol"]], inst["args"], arch)
    C.eq(len(ks), len(insts), f"{arch}: every kernel is an expected instantiation")

# with -g: parameter names from debug info, and the same facts otherwise
g = kernels_by_name("rmsnorm_quant_kernels.gfx942.g")
plain = kernels_by_name("rmsnorm_quant_kernels.gfx942")
for d, k in g.items():
    C.eq([p["name"] for p in k["params"]], PARAMS, f"-g {d[:60]}: parameter names from debug info")
    p = plain[d]

    def strip(acc, names):
        out = []
        for a in acc:
            a = {x: v for x, v in a.items() if x not in ("location", "inlined_at", "location_from", "param")}
            for key, v in a.items():
                if isinstance(v, str):
                    for i, n in enumerate(names):
                        v = re.sub(r"\b%s\b" % re.escape(n), "arg%d" % i, v)
                    a[key] = v
            out.append(a)
        return out
    same = strip(k["accesses"], PARAMS) == strip(p["accesses"], [])
    C.check(same, f"-g {d[:60]}: same accesses as without -g")
    C.eq(k["work_per_thread"], p["work_per_thread"], f"-g {d[:60]}: same work as without -g")
C.finish()
