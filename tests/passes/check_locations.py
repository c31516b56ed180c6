"""check_locations.py: source locations with their inlined-at chains, from -g
and -gline-tables-only builds, against the source: `// KWIR:` markers in
tests/passes/src/ir_kernels.hip, the corpus' `// KW:ASM` marker, and lines found by
pattern in rmsnorm_quant_kernels.hip, kw_opus.h and kw_reduce.h (the corpus
has no markers on loads; its text is the ground truth)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kwcheck import Checker  # noqa: E402
from kwir_common import (CORPUS, SRC, WHO, find_line, kernel_params, kernels_by_name, markers)  # noqa: E402

C = Checker("ir.locations", who=WHO)
OWN = os.path.join(SRC, "src", "ir_kernels.hip")
MARK = markers(OWN)
RMS = os.path.join(CORPUS, "rmsnorm_quant_kernels.hip")
OPUS = os.path.join(CORPUS, "include", "kw_opus.h")
REDUCE = os.path.join(CORPUS, "include", "kw_reduce.h")


def frames(f):
    return [f["location"]] + f.get("inlined_at", []) if f.get("location") else []


def outer(f):
    fr = frames(f)
    return (os.path.basename(fr[-1]["file"]), fr[-1]["line"]) if fr else None


def has_frame(f, path, line):
    return any(os.path.basename(x["file"]) == os.path.basename(path) and x["line"] == line for x in frames(f))


def body_range(path, start_pattern):
    """Lines of a function from its signature to its closing brace (brace count)."""
    lines = open(path).read().splitlines()
    first = find_line(path, start_pattern)
    depth, seen = 0, False
    for no in range(first, len(lines) + 1):
        depth += lines[no - 1].count("{") - lines[no - 1].count("}")
        seen |= "{" in lines[no - 1]
        if seen and depth == 0:
            return range(first, no + 1)
    return range(first, len(lines) + 1)


# ---- own kernels (markers) -------------------------------------------------------------------
ks = kernels_by_name("ir_kernels.gfx942.g")


def kern(name):
    return [k for d, k in ks.items() if d.startswith("kwir::%s(" % name)][0]


base = "ir_kernels.hip"
WANT_ACCESS = {"strided.const3": ("strided_kernel", "in"), "strided.column": ("strided_kernel", "col"),
               "strided.out": ("strided_kernel", "out"), "lds.tile_column": ("lds_kernel", "tile"),
               "lds.padded_column": ("lds_kernel", "padded"), "buffer.load": ("buffer_kernel", "src"),
               "buffer.store": ("buffer_kernel", "dst"), "buffer.atomic": ("buffer_kernel", "total")}
for mid, (kname, what) in WANT_ACCESS.items():
    k = kern(kname)
    params = kernel_params(OWN, kname)
    line = MARK[mid][1]
    at = [a for a in k["accesses"] if outer(a) == (base, line)]
    names = {params[a["param_index"]] if a["param"] else a["object"].rsplit("::", 1)[-1] for a in at}
    C.check(what in names, f"{mid}: an access of {what} at line {line}", f"found {names}")
# the row/column read line holds both LDS loads
k = kern("lds_kernel")
at = [a for a in k["accesses"] if outer(a) == (base, MARK["lds.row_and_column"][1]) and a["space"] == "lds"]
C.eq(sorted(a["object"].rsplit("::", 1)[-1] for a in at), ["padded", "tile"],
     "lds.row_and_column: two LDS loads")
bar = [b for b in k["barrier_list"] if b["kind"] == "s_barrier"]
C.eq([outer(b) for b in bar], [(base, MARK["lds.sync"][1])],
     "lds.sync: s_barrier at the __syncthreads line")
C.check(bar and "hip" in bar[0]["location"]["file"], "lds.sync: innermost frame in the HIP headers")

k = kern("loops_kernel")
C.eq([lp.get("location", {}).get("line") for lp in k["loops"]], [MARK[m][1] for m in ("loops.rows", "loops.blockdim", "loops.outer", "loops.inner")],
     "loop lines")

k = kern("xlane_kernel")
xs = k["cross_lane"]
bp = [x for x in xs if x["op"] == "bpermute"]
C.eq({outer(x) for x in bp}, {(base, MARK["xlane.butterfly"][1])},
     "butterfly: bpermutes at the loop line")
C.check(all(x["location"]["function"].startswith("__shfl_xor") for x in bp), "butterfly: innermost frame in __shfl_xor",
        str([x["location"]["function"] for x in bp]))
for mid, op in (("xlane.swizzle", "swizzle"), ("xlane.quad_perm", "dpp"), ("xlane.row_ror8", "dpp"),
                ("xlane.newbcast", "dpp"), ("xlane.readfirstlane", "readfirstlane")):
    C.check(any(x["op"] == op and outer(x) == (base, MARK[mid][1]) for x in xs),
            f"{mid}: a {op} at line {MARK[mid][1]}")
k = kern("asm_kernel")
C.eq([outer(s) for s in k["inline_asm"]], [(base, MARK["asm.fma"][1]), (base, MARK["asm.sleep"][1])],
     "asm lines")

# ---- rmsnorm (patterns in the corpus source) -----------------------------------------------------
LOAD_CALL = {"input": find_line(RMS, r"load_vector_nbytes<.*>\(in_row, col\)"),
             "residual_in": find_line(RMS, r"load_vector_nbytes<.*>\(res_row, col\)"),
             "weight": find_line(RMS, r"load_vector_nbytes<.*>\(weight, col\)"),
             "residual_out": find_line(RMS, r"store_vector<.*>\(res_out_row,"),
             "out": find_line(RMS, r"store_vector<.*>\(out_row,")}
LOAD_BODY = body_range(OPUS, r"vector_t<T, N> load_vector_nbytes\(")
STORE_BODY = body_range(OPUS, r"void store_vector\(")
ROW_SCALE = find_line(RMS, r"row_scale\[row\] = scale")
ASM_LINE = markers(RMS, "KW")["rmsnorm.pk_mul_f32"][1]
UPDATE_DPP = find_line(REDUCE, r"__builtin_amdgcn_update_dpp\(")
SYNC1 = find_line(REDUCE, r"__syncthreads\(\);")
BR_SUM = find_line(RMS, r"block_reduce<float, SumOp<float>, BlockSize>\(sum_sq")
BR_MAX = find_line(RMS, r"block_reduce<float, MaxOp<float>, BlockSize>\(amax")
P = kernel_params(RMS, "add_rmsnorm_quant_kernel")
exact_locs = {"g": 0, "gl": 0}
borrowed = {"g": 0, "gl": 0}
for variant in ("g", "gl"):
    rk = kernels_by_name("rmsnorm_quant_kernels.gfx942." + variant)
    for d, k in rk.items():
        tag = f"-{variant} {d[26:70]}"
        for a in k["accesses"]:
            if not a["param"]:
                continue
            p = P[a["param_index"]]
            fr = frames(a)
            if not C.check(fr, f"{tag} {p}: has a location"):
                continue
            C.check(fr[-1]["function"] and fr[-1]["function"].startswith("add_rmsnorm_quant_kernel<"), f"{tag} {p}: outermost frame in the kernel",
                    fr[-1]["function"])
            if p in LOAD_CALL:
                # the optimizer drops the locations of the loads and stores it
                # rewrites; a location borrowed from the debug records before it
                # (or its own) must be the exact helper line and call; one
                # borrowed from the address, value or user must still be inside
                # the kernel, before the call (address) or after it (value, user)
                src_from = a.get("location_from")
                KERNEL_LINES = body_range(RMS, r"add_rmsnorm_quant_kernel\(  //")
                if src_from in (None, "debug_record"):
                    exact_locs[variant] += 1
                    C.check(has_frame(a, RMS, LOAD_CALL[p]), f"{tag} {p}: inlined at the call line {LOAD_CALL[p]}",
                            str([(x["file"][-30:], x["line"]) for x in fr]))
                    rng = LOAD_BODY if p in ("input", "residual_in", "weight") else STORE_BODY
                    helper = [x for x in fr if x["file"].endswith("kw_opus.h")]
                    C.check(any(x["line"] in rng for x in helper), f"{tag} {p}: a frame inside the kw_opus.h helper",
                            str([x["line"] for x in helper]))
                else:
                    borrowed[variant] += 1
                    C.check(fr[-1]["line"] in KERNEL_LINES, f"{tag} {p}: borrowed location ({src_from}) inside the kernel",
                            str(fr[-1]))
            if p == "row_scale":
                C.eq(outer(a), (os.path.basename(RMS), ROW_SCALE), f"{tag} row_scale: line")
        for x in k["cross_lane"]:
            if x["op"] != "dpp":
                continue
            C.eq((os.path.basename(x["location"]["file"]), x["location"]["line"]), (os.path.basename(REDUCE), UPDATE_DPP),
                 f"{tag} DPP innermost line")
            C.check(has_frame(x, RMS, BR_SUM) or has_frame(x, RMS, BR_MAX),
                    f"{tag} DPP reached from a block_reduce call")
        for b in k["barrier_list"]:
            if b["kind"] == "s_barrier":
                C.check(any(
                    x["file"].endswith("kw_reduce.h") and x["line"] >= SYNC1 for x in frames(b)), f"{tag} barrier inlined through block_reduce")
        for s in k["inline_asm"]:
            C.eq(s["location"]["line"], ASM_LINE, f"{tag} asm line")
# how many kept (or recovered from debug records) an exact location: a
# property of the optimizer's output, reported, not asserted
print("rmsnorm accesses with exact/borrowed locations:", exact_locs, borrowed)
C.finish()
