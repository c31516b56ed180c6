"""check_own.py: tests/passes/src/ir_kernels.hip (each arch of the build), kernels
written for what the corpus lacks. Every expected value is computed here from
the source: array shapes, index expressions, intrinsic immediates (decoded by
the small tables below, written from the GFX9 ISA's DPP and ds_swizzle
encodings), loop bounds (brute-force iteration counts), and cross-checked with
llvm-dis text and llvm-objdump of the code object of the same source."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwir_common import (ARCHES, SRC, WHO, args_env, kernel_params, kernels_by_name, ll_count,
                         ll_functions, markers, value, WORK)

C = Checker("ir.own", who=WHO)
PATH = os.path.join(SRC, "src", "ir_kernels.hip")
src = open(PATH).read()
MARK = markers(PATH)
objdump = open(os.path.join(WORK, "ir_kernels.gfx942.s")).read()


def kernel(ks, name):
    hits = [k for d, k in ks.items() if d.startswith("kwir::%s(" % name)]
    C.eq(len(hits), 1, f"{name}: found")
    return hits[0] if hits else None


def segments(offsets, nbytes, seg=64):
    base = min(offsets)
    return len({(o - base + b) // seg for o in offsets for b in range(nbytes)})


def bank_degree(offsets, nbytes):
    """32 banks x 4 bytes; groups of 128/nbytes lanes served together."""
    per = max(1, 32 // max(1, (nbytes + 3) // 4))
    worst = 0
    for g in range(0, len(offsets), per):
        banks = {}
        for o in offsets[g:g + per]:
            for d in range(o // 4, (o + nbytes - 1) // 4 + 1):
                banks.setdefault(d % 32, set()).add(d)
        worst = max(worst, max(len(s) for s in banks.values()))
    return worst


def dpp_text(ctrl):
    if ctrl <= 0xFF:
        return "quad_perm:[%s]" % ",".join(str(ctrl >> (2 * i) & 3) for i in range(4))
    if 0x121 <= ctrl <= 0x12F:
        return "row_ror:%d" % (ctrl & 0xF)
    if 0x150 <= ctrl <= 0x15F:
        return "row_newbcast:%d" % (ctrl & 0xF)
    raise ValueError(hex(ctrl))


def swizzle_text(off):
    and_, or_, xor = off & 0x1F, off >> 5 & 0x1F, off >> 10 & 0x1F
    assert off < 0x8000 and and_ == 0x1F and or_ == 0 and bin(xor).count("1") == 1
    return "swizzle(SWAP,%d)" % xor


for arch in ARCHES:
    name = "ir_kernels." + arch
    ks = kernels_by_name(name)
    ll = ll_functions(name)

    # ---- strided_kernel
    k = kernel(ks, "strided_kernel")
    P = kernel_params(PATH, "strided_kernel")
    mult = int(re.search(r"in\[t \* (\d+)\]", src).group(1))
    env = args_env(P, ld=7)
    acc = {P[a["param_index"]]: a for a in k["accesses"]}
    a = acc["in"]
    C.eq(a["lane_stride_bytes"], 4 * mult, f"{arch} strided in: lane stride")
    C.eq(a["segments_per_wave"], segments([4 * mult * i for i in range(64)], 4),
         f"{arch} strided in: segments")
    C.eq(a["segments_per_wave_128"], segments([4 * mult * i for i in range(64)], 4, 128),
         f"{arch} strided in: 128-byte segments")
    C.eq(a["coalesced"], False, f"{arch} strided in: not coalesced")
    a = acc["col"]
    C.eq(value(a["lane_stride_bytes"], env), 7 * 4, f"{arch} strided col: stride ld*4")
    C.eq(a["segments_per_wave"], "unknown", f"{arch} strided col: segments need ld")
    a = acc["out"]
    C.eq((a["lane_stride_bytes"], a["coalesced"], a["segments_per_wave"]), (4, True, 4),
         f"{arch} strided out: contiguous")
    C.eq(a["group_stride_bytes"], 64 * 4, f"{arch} strided out: 64 floats per group")
    C.eq(k["work_per_thread"]["bytes_read"], 8, f"{arch} strided: bytes read")

    # ---- lds_kernel
    k = kernel(ks, "lds_kernel")
    dims = {m.group(1): int(m.group(3)) for m in re.finditer(r"__shared__ float (\w+)\[(\d+)\]\[(\d+)\]", src)}
    lds = [a for a in k["accesses"] if a["space"] == "lds"]
    C.eq(len(lds), 4, f"{arch} lds: four accesses")
    seen = set()
    for a in lds:
        obj = a["object"].rsplit("::", 1)[-1]
        row = dims[obj] * 4
        # stores and the padded load index [t][0]; the tile load indexes [0][t]
        stride = 4 if (obj == "tile" and a["op"] == "load") else row
        C.eq(a["lane_stride_bytes"], stride, f"{arch} lds {obj} {a['op']}: lane stride")
        C.eq(a["bank_conflict_degree"], bank_degree([stride * i for i in range(64)], 4),
             f"{arch} lds {obj} {a['op']}: bank conflicts")
        seen.add((obj, a["op"], a["bank_conflict_degree"]))
    C.check(("tile", "store", 32) in seen, f"{arch} lds: the unpadded column is 32-way", str(seen))
    C.check(("padded", "store", 1) in seen, f"{arch} lds: the padded column is conflict-free",
            str(seen))
    C.eq(k["barriers"], src[src.index("lds_kernel("):src.index("buffer_kernel(")].count("__syncthreads()"),
         f"{arch} lds: barriers")

    # ---- buffer_kernel
    k = kernel(ks, "buffer_kernel")
    P = kernel_params(PATH, "buffer_kernel")
    env = args_env(P, ld=9, n=4096)
    byp = {}
    for a in k["accesses"]:
        byp.setdefault(P[a["param_index"]] if a["param"] else None, []).append(a)
    ld_ = byp["src"][0]
    C.eq((ld_["op"], ld_["space"], ld_["bytes_per_lane"]), ("load", "buffer", 16),
         f"{arch} buffer load")
    C.check("buffer.load" in ld_["what"], f"{arch} buffer load: intrinsic", ld_["what"])
    C.eq(ld_["lane_stride_bytes"], 16, f"{arch} buffer load: lane stride (voffset t*16)")
    C.eq(value(ld_["group_stride_bytes"], env), 9 * 4,
         f"{arch} buffer load: group stride (src + blockIdx.x*ld)")
    C.eq((ld_["coalesced"], ld_["segments_per_wave"]), (True, 16), f"{arch} buffer load: coalesced")
    st = byp["dst"][0]
    C.eq((st["op"], st["space"], st["bytes_per_lane"], st["lane_stride_bytes"]), ("store", "buffer", 4, 4),
         f"{arch} buffer store")
    at = byp["total"][0]
    C.eq((at["op"], at["space"], at["bytes_per_lane"], at["lane_stride_bytes"]), ("atomic", "global", 4, 0),
         f"{arch} atomicAdd")
    C.eq(sum(a["space"] == "buffer" for a in k["accesses"]), ll_count(ll[k["symbol"]], r"call [^@]*@llvm\.amdgcn\.raw\.(?:ptr\.)?buffer\.(?:load|store)"),
         f"{arch} buffer: intrinsic calls vs llvm-dis")

    # ---- loops_kernel
    k = kernel(ks, "loops_kernel")
    P = kernel_params(PATH, "loops_kernel")
    C.eq(len(k["loops"]), 4, f"{arch} loops: four loops")
    if len(k["loops"]) == 4:
        rows, bdim, outer, inner = k["loops"]
        C.eq((rows["parent"], bdim["parent"], outer["parent"], inner["parent"]), (None, None, None, outer["id"]),
             f"{arch} loops: nesting")
        for R, COLS, N, BD, T in ((1, 1, 1, 64, 0), (7, 3, 1000, 256, 5), (64, 128, 4096, 128, 127),
                                  (3, 5, 100, 64, 99)):
            env = args_env(P, rows=R, cols=COLS, n=N)
            env["blockDim.x"] = BD
            env["threadIdx.x"] = T
            per_thread = len(range(T, N, BD))
            C.eq(value(rows["trip_count"], env), R, f"{arch} loops: rows trip")
            C.eq(value(bdim["trip_count"], env), per_thread, f"{arch} loops: blockDim trip")
            C.eq(value(outer["trip_count"], env), R, f"{arch} loops: outer trip")
            C.eq(value(inner["trip_count"], env), COLS, f"{arch} loops: inner trip")
            w = k["work_per_thread"]
            C.eq(value(w["bytes_read"], env), 4 * (R + per_thread + R * COLS),
                 f"{arch} loops: bytes read")
            C.eq(value(w["flops"], env), R + per_thread + 2 * R * COLS, f"{arch} loops: flops")
        C.eq([lp["lane_dependent"] for lp in k["loops"]], [False, True, False, False],
             f"{arch} loops: lane-dependent")
        C.eq([lp["accesses"] for lp in k["loops"]], [1, 1, 1, 1],
             f"{arch} loops: accesses per loop")
        inner_acc = [a for a in k["accesses"] if a["loop"] == inner["id"]]
        C.eq([a["lane_stride_bytes"] for a in inner_acc], [0],
             f"{arch} loops: the inner access is uniform across lanes")

    # ---- xlane_kernel
    k = kernel(ks, "xlane_kernel")
    body = ll[k["symbol"]]
    xs = k["cross_lane"]
    masks = [int(m) for m in re.findall(r"for \(int m = (\d+); m >= 1; m >>= 1\)", src)]
    start = masks[0]
    want_bperm = ["lane^%d" % m for m in (start >> i for i in range(start.bit_length()))]
    C.eq([x["control"] for x in xs if x["op"] == "bpermute"], want_bperm,
         f"{arch} xlane: bpermute controls")
    imm = {mid: int(re.search(r"0x[0-9a-f]+", src.splitlines()[line - 1]).group(0), 16)
           for mid, (kind, line) in MARK.items() if kind == "XLANE" and mid not in
           ("xlane.butterfly", "xlane.readfirstlane")}
    C.eq([x["control"] for x in xs if x["op"] == "swizzle"], [swizzle_text(imm["xlane.swizzle"])],
         f"{arch} xlane: swizzle")
    dpp_want = [dpp_text(imm[m]) for m in ("xlane.quad_perm", "xlane.row_ror8", "xlane.row_ror4",
                                          "xlane.row_ror2", "xlane.row_ror1", "xlane.newbcast")]
    C.eq([x["control"] for x in xs if x["op"] == "dpp"], dpp_want, f"{arch} xlane: DPP controls")
    if arch == "gfx942":
        for text in dpp_want + ["offset:" + swizzle_text(imm["xlane.swizzle"])]:
            C.check(text in objdump, f"objdump shows {text}")
        C.eq(objdump.count("ds_bpermute_b32"), len(want_bperm), "objdump: ds_bpermute count")
    for pat, op in ((r"@llvm\.amdgcn\.ds\.bpermute", "bpermute"), (r"@llvm\.amdgcn\.ds\.swizzle", "swizzle"),
                    (r"@llvm\.amdgcn\.(?:update|mov)\.dpp\.", "dpp"), (r"@llvm\.amdgcn\.readfirstlane", "readfirstlane")):
        C.eq(sum(x["op"] == op for x in xs), ll_count(body, r"call [^@]*" + pat),
             f"{arch} xlane: {op} vs llvm-dis")
    ids = k["idioms"]
    summary = [(d["kind"], d.get("op"), d.get("via"), d["lanes"], d["result_lane"]) for d in ids]
    C.eq(summary, [
        ("wave_reduce", "add", "bpermute", 64, "all"),   # butterfly: every lane has the sum
        ("partial_reduce", "add", "swizzle+dpp", 4, "each_group"),  # lane^1, lane^2: quads
        ("partial_reduce", "add", "dpp", 16, "each_group"),  # row_ror 8,4,2,1: rows of 16
        ("broadcast", None, "readfirstlane", 64, "all"),
    ], f"{arch} xlane: idioms")
    nb = [x for x in xs if x["control"] == dpp_text(imm["xlane.newbcast"])]
    C.eq([x["idiom"] for x in nb], [None], f"{arch} xlane: row_newbcast stored, not combined")

    # ---- asm_kernel
    k = kernel(ks, "asm_kernel")
    texts = re.findall(r'asm volatile\("([^"]*)"', src)
    C.eq([s["text"] for s in k["inline_asm"]], texts, f"{arch} asm: texts")
    C.eq(k["inline_asm"][0]["flops"], 2, f"{arch} asm: v_fma_f32 counts 2 flops")
    C.eq(k["inline_asm"][1]["flops"], "unknown", f"{arch} asm: s_sleep has no known work")
    C.eq(k["work_per_thread"]["asm_uncounted"], 1, f"{arch} asm: uncounted statements")
    C.eq(k["arch"], arch, f"{arch} arch")
C.finish()
