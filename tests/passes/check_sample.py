"""check_sample.py: mix_sample_kernel / greedy_sample_kernel facts against the
source (sample_kernels.hip, kw_reduce.h) and llvm-dis.

The source loops are `for (int i = threadIdx.x; i < vocab; i += BlockSize)`:
thread t runs them N(t) = |{t, t+B, ... < vocab}| times, counted here by
brute force. A loop whose trip count the analysis reports must give N(t) for
every shape tried, or, for a loop the compiler vectorized or unrolled (each
iteration doing several source iterations), at most N(t); and every source loop
that is still a plain loop in the IR must be found with exactly N(t). The
block reductions (operation order), barriers (two __syncthreads per
block_reduce), row selection (blockIdx.x * vocab) and the single
out_tokens store by thread 0 follow from the source too."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwir_common import (CORPUS, SIZEOF, WHO, args_env, kernel_params, kernels_by_name,
                         ll_count, ll_functions, value)

C = Checker("ir.sample", who=WHO)
SRC = os.path.join(CORPUS, "sample_kernels.hip")
src = open(SRC).read()
reduce_src = open(os.path.join(CORPUS, "include", "kw_reduce.h")).read()
SYNCS = reduce_src[reduce_src.index("T block_reduce("):].count("__syncthreads()")
expected = json.load(open(os.path.join(CORPUS, "expected.json")))["kernels"]


def body_of(kernel):
    start = src.index(kernel + "(  //")
    return src[start:src.index("\n}\n", start)]


def brute(vocab, t, step):
    return len(range(t, vocab, step))


SHAPES = [(v, t) for v in (1, 100, 1024, 1025, 4097, 32000, 50257) for t in (0, 1, 63, 1023) if t < v]

for kname in ("mix_sample_kernel", "greedy_sample_kernel"):
    body = body_of(kname)
    params = kernel_params(SRC, kname)
    ops = [{"Max": "max", "Sum": "add", "Min": "min"}[m]
           for m in re.findall(r"block_reduce<\w+, (\w+)Op<\w+>", body)]
    src_loops = re.findall(r"for \(int i = threadIdx\.x; i < vocab; i \+= BlockSize\)", body)
    C.check(len(src_loops) >= 1, f"{kname}: source has vocab loops")
    for inst in expected["sample." + kname]["instantiations"]:
        T, B = inst["args"][0], int(inst["args"][1])
        sT = SIZEOF[T]
        prefix = "void kw::%s<%s, %d>(" % (kname, T.replace("__bf16", "std::bfloat16_t"), B)
        for arch in ("gfx942",):
            name = "sample_kernels." + arch
            hits = [k for d, k in kernels_by_name(name).items() if d.startswith(prefix)]
            tag = f"{arch} {kname}<{T}, {B}>"
            if not C.eq(len(hits), 1, f"{tag}: found"):
                continue
            k = hits[0]
            ll = ll_functions(name)[k["symbol"]]
            blocks = [d for d in k["idioms"] if d["kind"] == "block_reduce"]
            C.eq([d["op"] for d in blocks], ops, f"{tag}: block reductions in source order")
            for d in blocks:
                C.eq(d["barriers"], 1, f"{tag}: block_reduce {d['op']} barriers")
                for p in d["parts"]:
                    w = k["idioms"][p]
                    C.eq((w["kind"], w["op"], w["lanes"], w["via"]), ("wave_reduce", d["op"], 64, "dpp"),
                         f"{tag}: wave part")
            C.eq(k["barriers"], SYNCS * len(ops), f"{tag}: barriers (2 per block_reduce)")
            C.eq(k["barriers"], ll_count(ll, r"call void @llvm\.amdgcn\.s\.barrier\(\)"),
                 f"{tag}: barriers vs llvm-dis")

            exact = 0
            for lp in k["loops"]:
                if lp["trip_count"] == "unknown":
                    C.check(lp.get("trip_count_why"),
                            f"{tag}: loop {lp['id']} unknown has a reason")
                    continue
                C.eq(lp["lane_dependent"], True, f"{tag}: loop {lp['id']} depends on the lane")
                counts = []
                for vocab, t in SHAPES:
                    env = args_env(params, vocab=vocab)
                    env["threadIdx.x"] = t
                    counts.append((value(lp["trip_count"], env), brute(vocab, t, B)))
                if all(a == b for a, b in counts):
                    exact += 1
                else:
                    C.check(all(a <= b for a, b in counts), f"{tag}: loop {lp['id']} ({lp['trip_count']}) runs at most the source count",
                            str(counts[:6]))
            if kname == "greedy_sample_kernel":
                C.eq(exact, len(src_loops), f"{tag}: the vocab loop's count is exact")
            else:
                C.check(exact >= 2, f"{tag}: loops not vectorized are exact", f"{exact} exact")

            known_loops = {lp["id"] for lp in k["loops"] if lp["trip_count"] != "unknown"}
            env = args_env(params, vocab=1000)
            for a in k["accesses"]:
                if a["loop"] not in known_loops or a["param"] is None:
                    continue
                p = params[a["param_index"]]
                size = sT if p == "logits" else 4
                C.eq(a["bytes_per_lane"], size, f"{tag}: {p} in loop: bytes")
                C.eq(a["lane_stride_bytes"], size, f"{tag}: {p} in loop: lane stride")
                C.eq(value(a["group_stride_bytes"], env), 1000 * size,
                     f"{tag}: {p} in loop: row stride")
                C.eq(a["coalesced"], True, f"{tag}: {p} in loop: coalesced")
                C.eq(a["segments_per_wave"], 64 * size // 64, f"{tag}: {p} in loop: segments")
            outs = [a for a in k["accesses"] if a["param"] and params[a["param_index"]] == "out_tokens"]
            C.eq([a["op"] for a in outs], ["store"], f"{tag}: out_tokens: one store")
            for a in outs:
                C.eq(a["active_lanes"], 1, f"{tag}: out_tokens: thread 0 only")
                C.eq(a["group_stride_bytes"], 4, f"{tag}: out_tokens: one int per row")
            C.eq(k["work_per_thread"]["bytes_written"], 4, f"{tag}: bytes written per thread")
C.finish()
