"""check_idioms.py: LDS tree reductions, wave + LDS block reductions, trip
counts of loops bounded by kernel arguments and per-element conversions
(issue 10 item 5) on tests/passes/src/idiom_kernels.hip, for every arch of the
build (gen_idioms.sh).

Expected values come from the source text (the loops' headers, run by brute
force with C integer semantics; the `__shared__` arrays' sizes; the
conversions' widths in the KWIR:CVT markers) and from llvm-objdump of the
same kernels' code objects (s_barrier and v_cvt_* counts), never from
kwir-dump's output."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwir_common as K  # noqa: E402
from kwcheck import Checker  # noqa: E402

SRC = os.path.join(K.SRC, "src", "idiom_kernels.hip")
TEXT = open(SRC).read().splitlines()
C = Checker("ir.idioms", who=K.WHO)


def kernel_spans():
    """[(name, first line, last line)] of the source's kernels (1-based)."""
    starts = []
    for no, line in enumerate(TEXT, 1):
        m = re.search(r"\b(\w+_kernel)\s*\(", line)
        if m and (line.startswith("__global__") or TEXT[no - 2].startswith("__global__")):
            starts.append((m.group(1), no))
    out = []
    for i, (name, no) in enumerate(starts):
        end = starts[i + 1][1] - 1 if i + 1 < len(starts) else len(TEXT)
        out.append((name, no, end))
    return out


SPANS = kernel_spans()


def kernel_at(line):
    for name, a, b in SPANS:
        if a <= line <= b:
            return name
    raise AssertionError(f"no kernel around line {line}")


def body(name):
    for n, a, b in SPANS:
        if n == name:
            return "\n".join(TEXT[a - 1:b])
    raise AssertionError(name)


def c_eval(expr, env):
    """An int expression of the source with C semantics (/ truncates, >> shifts)."""
    e = expr
    for k in sorted(env, key=len, reverse=True):
        e = re.sub(r"(?<![\w.])" + re.escape(k) + r"(?![\w])", "(%d)" % env[k], e)
    e = re.sub(r"(?<![/])/(?![/])", "//", e)  # operands here are non-negative
    return int(eval(e, {"__builtin__": None}, {}))


def isa_functions(arch):
    """{demangled kernel name up to '(': disassembly text}."""
    text = open(os.path.join(K.WORK, "idioms", f"idioms.{arch}.s")).read()
    parts = re.split(r"^[0-9a-f]+ <([^>]+)>:\n", text, flags=re.M)
    syms = parts[1::2]
    dm = K.demangle(syms)
    return {dm[s].split("(")[0]: t for s, t in zip(syms, parts[2::2])}


def shared_bytes(name, var):
    m = re.search(r"__shared__\s+(\w+)\s+" + var + r"\[(\d+)\]", body(name))
    return K.SIZEOF[m.group(1)] * int(m.group(2))


def facts(arch):
    ks = K.kernels_by_name(f"idioms/idioms.{arch}")
    return {n.split("(")[0]: k for n, k in ks.items()}


BLOCKS = [64, 96, 128, 256, 1024]

for arch in K.ARCHES:
    F = facts(arch)
    ISA = isa_functions(arch)
    for mid, (kind, line) in K.markers(SRC).items():
        name = kernel_at(line)
        k = F.get(name)
        if not C.check(k is not None, f"{arch} {mid}: kernel {name} in kwir-dump's output"):
            continue
        src = TEXT[line - 1]
        params = K.kernel_params(SRC, name)
        fixed = "amdgpu_flat_work_group_size(256, 256)" in "\n".join(TEXT[max(0, line - 40):line])
        if kind == "TREE":
            op = re.search(r"KWIR:TREE \S+ (\w+)", src).group(1)
            hdr = re.search(r"for \(int (\w+) = (.+?); \1 > 0; \1 >>= 1\)", src)
            trees = [d for d in k["idioms"] if d["kind"] == "lds_tree_reduce"]
            if not C.eq(len(trees), 1, f"{arch} {mid}: lds_tree_reduce idioms"):
                continue
            d = trees[0]
            C.eq(d["op"], op, f"{arch} {mid}: op")
            C.eq(d["stride"], "halving", f"{arch} {mid}: stride")
            var = re.search(r"part\[t \+ (\w+)\]", "\n".join(TEXT[line:line + 3])).group(1)
            C.eq(var, hdr.group(1), f"{arch} {mid}: partner stride variable is the loop's")
            C.eq(d["lds_bytes"], shared_bytes(name, "part"), f"{arch} {mid}: lds_bytes")
            for B in ([256] if fixed else BLOCKS):
                s, n = c_eval(hdr.group(2), {"blockDim.x": B}), 0
                first = s
                while s > 0:
                    n, s = n + 1, s >> 1
                C.eq(K.value(d["steps"], {"blockDim.x": B}), n,
                     f"{arch} {mid}: steps at blockDim.x={B}")
                C.eq(K.value(d["first_stride"], {"blockDim.x": B}), first,
                     f"{arch} {mid}: first stride at blockDim.x={B}")
            # the code object: one s_barrier before the tree (the source's
            # __syncthreads outside the loop) and, unrolled, one per step
            bars = len(re.findall(r"\ss_barrier\b", ISA[name]))
            in_loop = "\n".join(TEXT[line:line + 4]).count("__syncthreads")
            before = body(name).count("__syncthreads") - in_loop
            C.eq(d["barriers"], in_loop, f"{arch} {mid}: barriers per step")
            if fixed:
                C.eq(d["steps"], bars - before,
                     f"{arch} {mid}: steps = the code object's s_barriers after the first")
            else:
                C.eq(bars, before + in_loop,
                     f"{arch} {mid}: code object s_barriers (before + loop body)")
        elif kind == "BLOCK":
            op = re.search(r"KWIR:BLOCK \S+ (\w+)", src).group(1)
            groups = int(re.search(r"partials\[lane % (\d+)\]", src).group(1))
            blocks = [d for d in k["idioms"] if d["kind"] == "block_reduce"]
            if not C.eq(len(blocks), 1, f"{arch} {mid}: block_reduce idioms"):
                continue
            d = blocks[0]
            C.eq(d["op"], op, f"{arch} {mid}: op")
            C.eq(d["lanes"], groups, f"{arch} {mid}: partials combined")
            C.eq(d["lds_bytes"], shared_bytes(name, "partials"), f"{arch} {mid}: lds_bytes")
            C.check(d["via"].endswith("+lds"), f"{arch} {mid}: via LDS", d["via"])
            C.eq(d["barriers"], len(re.findall(r"\ss_barrier\b", ISA[name])),
                 f"{arch} {mid}: barriers")
        elif kind == "LOOP":
            hdr = re.search(r"for \(int (\w+) = (.+?); \1 < (.+?); (?:\1 \+= (.+?)|\+\+\1)\)", src)
            loops = [l for l in k["loops"]]
            # loops in source order = kwir's numbering (reverse post-order)
            order = [m for m, (kd, ln) in sorted(K.markers(SRC).items(), key=lambda x: x[1][1])
                     if kd in ("LOOP", "TREE") and kernel_at(ln) == name]
            idx = order.index(mid)
            if not C.check(idx < len(loops), f"{arch} {mid}: loop {idx} exists"):
                continue
            trip = loops[idx]["trip_count"]
            C.check(trip != "unknown", f"{arch} {mid}: trip count known",
                    loops[idx].get("trip_count_why", ""))
            if trip == "unknown":
                continue
            for B in ([256] if fixed else [64, 256]):
                for t in (0, 5, B - 1):
                    for hidden in (17, 4096, 8192 + 40, 100000):
                        for rows in (1, 7, 64):
                            env = {"blockDim.x": B, "threadIdx.x": t, "lane": t, "tpr": B,
                                   "t": t, "hidden": hidden, "rows": rows}
                            i, bound = c_eval(hdr.group(2), env), c_eval(hdr.group(3), env)
                            step = c_eval(hdr.group(4), env) if hdr.group(4) else 1
                            n = 0
                            while i < bound:
                                n, i = n + 1, i + step
                            if n == 0:
                                continue  # trip counts are for threads that enter
                            e = dict(K.args_env(params, hidden=hidden, rows=rows))
                            e.update({"blockDim.x": B, "threadIdx.x": t})
                            C.eq(K.value(trip, e), n, f"{arch} {mid}: trips at B={B} t={t} hidden={hidden} "
                                 f"rows={rows}")
        elif kind == "CVT":
            pass

    # conversions: the markers' widths, per thread; the code object converts
    # the same elements, two per packed (v_cvt_pk_*) instruction
    cvt = [int(re.search(r"KWIR:CVT \S+ (\d+)", TEXT[ln - 1]).group(1))
           for m, (kd, ln) in K.markers(SRC).items() if kd == "CVT"]
    k = F["convert_kernel"]
    C.eq(k["work_per_thread"]["conversions"], sum(cvt),
         f"{arch} convert_kernel: conversions per thread")
    insts = re.findall(r"\s(v_cvt\w*)", ISA["convert_kernel"])
    elems = sum(2 if "_pk_" in i else 1 for i in insts)
    if any(i.startswith("v_cvt_pk_bf16_f32") for i in insts):
        C.eq(elems, sum(cvt), f"{arch} convert_kernel: ISA elements converted (v_cvt_pk_* = 2)")
    else:  # no bf16 conversion instruction (gfx942): bf16 rounding is integer code
        C.check(0 < elems <= sum(cvt), f"{arch} convert_kernel: ISA converts at most the IR's elements",
                f"{elems} vs {sum(cvt)}")

C.finish()
