#!/usr/bin/env python3
"""check_facts.py (ctest ck.facts): the parameters and page facts of the ck-tile
fixture's kernels (issue 36, items 5 and 8), against ground truth kwalk does
not produce:
  - the source text: kentry's pack (`Args... args`), each kernel struct's
    operator() parameters, the kargs structs' members (their layout computed
    here from the member types by C's rules);
  - the code objects: llvm-readelf --notes (kernel arguments, registers,
    spills, scratch, flat workgroup size), llvm-objdump -d (MFMA,
    buffer_store, ds_bpermute counts and operands).
Two facts the fixture has no kernel for (a block size of 768 work-items:
its occupancy and limiter at that size from the notes and gfx942's table; a
kernel that spills) come from tests/ck/src/facts_kernels.hip, compiled here.

Reads WORK/plugin/obj and WORK/plugin/side (ck.build_plugin); writes
WORK/facts. Exit 77 without the fixture."""
import glob
import math
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from ck_build import ckargs  # noqa: E402
from kwcheck import Checker  # noqa: E402
import kwllvm  # noqa: E402
from kwcap import tool  # noqa: E402
from kwrun import run  # noqa: E402
import kwzstd  # noqa: E402
import yaml  # noqa: E402

ARCH = "gfx942"
c = Checker("ck.facts")


# ---- ground truth: code objects ------------------------------------------------------------

def code_object(args, obj, out_dir):
    """obj's gfx942 code object (llvm-objcopy + clang-offload-bundler)."""
    tag = os.path.basename(obj)
    fat = os.path.join(out_dir, tag + ".fatbin")
    co = os.path.join(out_dir, tag + "." + ARCH + ".co")
    run([tool(args, "llvm-objcopy"), "--dump-section=.hip_fatbin=" + fat, obj,
                        os.path.join(out_dir, tag + ".copy")], must=True)
    run([tool(args, "clang-offload-bundler"), "--unbundle", "--type=o",
                        "--input=" + fat, "--targets=hipv4-amdgcn-amd-amdhsa--" + ARCH,
                        "--output=" + co], must=True)
    return co


def notes(args, co):
    """{symbol: the kernel's mapping} of the code object's metadata note."""
    md = kwllvm.readelf_metadata(args.llvm_bin, co)
    return {k[".name"]: k for k in (md or {}).get("amdhsa.kernels", [])}


def disasm(args, co):
    """{symbol: [instruction text]} from llvm-objdump -d."""
    out, cur = {}, None
    text = run([tool(args, "llvm-objdump"), "-d", "--no-show-raw-insn",
                               "--no-leading-addr", co], must=True).stdout
    for line in text.splitlines():
        m = re.match(r"^(?:[0-9a-f]+ )?<([^>]+)>:\s*$", line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        s = line.strip()
        if cur is not None and s and not s.startswith(";") and not s.startswith("<"):
            cur.append(s.split("//")[0].strip())
    return out


# ---- ground truth: source text --------------------------------------------------------------

def src(args, rel):
    return open(os.path.join(args.fixture, "ck", rel), errors="replace").read()


def struct_layout(text, name, prefix):
    """[(prefix.member, offset, size)] of `struct NAME { ... };` in text, laid
    out by C's rules for the member types it uses (pointers 8, float and
    index_t 4)."""
    m = re.search(r"struct\s+" + name + r"\s*\{(.*?)\};", text, re.S)
    if not m:
        return None
    out, off = [], 0
    for decl in m.group(1).split(";"):
        decl = re.sub(r"//[^\n]*", "", decl).strip()
        if not decl:
            continue
        member = re.findall(r"\w+", decl)[-1]
        size = 8 if "*" in decl else 4 if re.search(r"\b(float|index_t|int)\b", decl) else None
        if size is None:
            return None
        off = (off + size - 1) // size * size
        out.append((prefix + "." + member, off, size, "*" in decl and "const" in decl.split("*")[0],
                    "*" in decl))
        off += size
    return out


def operator_params(text, struct):
    """The parameter names of `struct`'s operator() in text (the first one
    after `struct NAME`)."""
    at = re.search(r"struct\s+" + struct + r"\b", text)
    m = re.search(r"operator\(\)\s*\(([^)]*)\)", text[at.end():] if at else text)
    if not m:
        return None
    return [re.findall(r"\w+", p)[-1] for p in m.group(1).split(",") if p.strip()]


# ---- what kwalk wrote ------------------------------------------------------------------------

def sidecar_kernels(side):
    out = []
    for p in sorted(glob.glob(os.path.join(side, "*.kwalk.yaml*"))):
        doc = yaml.load(kwzstd.read_bytes(p).decode("utf-8"), Loader=kwllvm.YAML_LOADER)
        for k in (doc or {}).get("kernels") or []:
            out.append(k)
    return out


def page(args, db, symbol):
    r = run([args.kwalk, "render", "--db", db, symbol])
    c.check(r.returncode == 0, "kwalk render %s: rc %d %s" % (symbol[:60], r.returncode,
                                                               r.stderr.strip()[:300]))
    return r.stdout


def section(text, start, end):
    a = text.find(start)
    if a < 0:
        return ""
    b = text.find(end, a + len(start))
    return text[a:b if b >= 0 else len(text)]


def ir_of(k):
    return ((k.get("archs") or {}).get(ARCH) or {}).get("ir") or {}


def evaluate_all_one(expr):
    """A work expression with every name bound to 1 (a trip count of one)."""
    if isinstance(expr, (int, float)):
        return expr
    e = re.sub(r"[A-Za-z_](?:[A-Za-z0-9_.]|#\d)*", lambda m: m.group(0) if m.group(0) in
               ("ceil", "floor", "max", "min", "log2") else "1", str(expr))
    e = e.replace("log2", "math.log2").replace("ceil", "math.ceil").replace("floor", "math.floor")
    return eval(e, {"math": math, "max": max, "min": min})  # noqa: S307 - our own grammar


# ---- item 5: parameters ------------------------------------------------------------------------

def check_params(args, kernels, md, launch_text):
    pack = re.search(r"kentry\s*\(\s*Args\s*\.\.\.\s*(\w+)\s*\)", launch_text)
    c.check(pack, "kernel_launch.hpp: no `kentry(Args... NAME)` in the source")
    pack = pack.group(1) if pack else "args"
    seen = 0
    for k in kernels:
        sym = k.get("symbol", "")
        if "kentry" not in sym or sym not in md:
            continue
        seen += 1
        params = k.get("params") or []
        explicit = [a for a in md[sym].get(".args", [])
                    if not str(a.get(".value_kind", "")).startswith("hidden")]
        c.eq(len(params), len(explicit), "%s: parameters against the note's arguments" % sym[:60])
        for i, p in enumerate(params):
            c.eq(p.get("pack"), "%s#%d" % (pack, i), "%s: parameter %d's place in the pack" % (sym[:50], i))
    c.check(seen >= 3, "kentry kernels compared: %d, want the GEMM, reduce and layernorm ones" % seen)


def kargs_checks(args, k, md, struct_text, struct, kernel_struct):
    """A kernel taking one kargs struct: its name, fields and the IR's bases."""
    sym = k["symbol"]
    want_names = operator_params(struct_text, kernel_struct)
    params = k.get("params") or []
    c.check(want_names and len(want_names) == 1 and len(params) == 1,
            "%s: operator() parameters %r, kwalk's %r" % (kernel_struct, want_names, params))
    if not (want_names and params):
        return None
    p = params[0]
    c.eq(p.get("name"), want_names[0], "%s: pack element 0 named as operator()'s parameter" % kernel_struct)
    layout = struct_layout(struct_text, struct, want_names[0])
    c.check(layout, "%s: struct %s not read from the source" % (kernel_struct, struct))
    if not layout:
        return None
    got = [(f.get("name"), f.get("offset")) for f in p.get("fields") or []]
    c.eq(got, [(n, o) for n, o, _, _, _ in layout], "%s: fields of %s" % (kernel_struct, struct))
    arg = [a for a in md[sym].get(".args", []) if not str(a.get(".value_kind", "")).startswith("hidden")]
    end = layout[-1][1] + layout[-1][2]
    c.check(arg and end <= arg[0].get(".size", 0),
            "%s: the struct's fields end at %d, the note's argument is %s bytes"
            % (kernel_struct, end, arg and arg[0].get(".size")))
    ir = ir_of(k)
    acc = ir.get("accesses") or []
    # the struct's own loads (kernel-argument segment) are not memory traffic
    c.check(not [a for a in acc if a.get("space") == "constant"],
            "%s: loads of the kernel-argument segment listed as accesses: %r"
            % (kernel_struct, [a.get("param") for a in acc if a.get("space") == "constant"][:5]))
    consts = {n for n, _, _, const, ptr in layout if ptr and const}
    writable = {n for n, _, _, const, ptr in layout if ptr and not const}
    mem = [a for a in acc if a.get("space") in ("global", "buffer", "flat")]
    loads = {a.get("param") for a in mem if a.get("op") == "load"}
    stores = {a.get("param") for a in mem if a.get("op") == "store"}
    c.check(loads and loads <= consts,
            "%s: bases of global loads %r, want pointers to const of the struct %r"
            % (kernel_struct, sorted(map(str, loads)), sorted(consts)))
    c.check(stores and stores <= writable,
            "%s: bases of global stores %r, want the struct's pointers to non-const %r"
            % (kernel_struct, sorted(map(str, stores)), sorted(writable)))
    return layout


# ---- item 8: page facts --------------------------------------------------------------------

def check_gemm_isa(args, k, insns, pg, layout):
    sym = k["symbol"]
    ir = ir_of(k)
    stores_isa = [i for i in insns if i.startswith("buffer_store_short")]
    stores_ir = [a for a in ir.get("accesses") or [] if a.get("op") == "store"
                 and a.get("what") == "asm buffer_store_short"]
    c.check(stores_isa, "GEMM: llvm-objdump shows no buffer_store_short (the fixture changed?)")
    c.eq(len(stores_ir), len(stores_isa), "GEMM: buffer_store_short statements in the IR facts "
         "against llvm-objdump's instructions")
    for a in stores_ir[:1]:
        c.eq(a.get("bytes_per_lane"), 2, "GEMM: bytes per lane of buffer_store_short")
    flow = section(pg, "GLOBAL MEMORY, WRITTEN", "```")
    c.check(flow and "(no global stores)" not in flow,
            "GEMM: the data-flow diagram says no global stores:\n" + flow[:400])
    writable = [n for n, _, _, const, ptr in layout if ptr and not const]
    c.check(any(w + ": buffer_store" in flow for w in writable),
            "GEMM: the diagram's stores do not name %r:\n%s" % (writable, flow[:400]))
    # MFMA: one lane's share of one instruction, from its mnemonic's shape and
    # its destination registers (a[0:15]: 16 results per lane)
    mfma = [i for i in insns if i.startswith("v_mfma")]
    c.check(mfma, "GEMM: llvm-objdump shows no v_mfma")
    if mfma:
        shape = re.search(r"(\d+)x(\d+)x(\d+)", mfma[0].split()[0])
        regs = re.search(r"[av]\[(\d+):(\d+)\]", mfma[0])
        share = 2 * int(shape.group(3)) * (int(regs.group(2)) - int(regs.group(1)) + 1)
        w = (ir.get("work_per_thread") or {}).get("flops")
        got = evaluate_all_one(w) if w not in (None, "unknown") else None
        c.check(got is not None and got >= share,
                "GEMM: flops per thread %r (every name 1: %r); one %s is %d per lane"
                % (w, got, mfma[0].split()[0], share))
        c.check(re.search(r"flops: (?!0\b)", pg) is not None and "flops: 0 " not in pg,
                "GEMM: the data-flow diagram still says flops: 0")


def check_reduce(args, k, insns, pg, reduce_src):
    bp = [i for i in insns if i.startswith("ds_bpermute")]
    c.check(bp, "reduce: llvm-objdump shows no ds_bpermute")
    # lanes that share a row: the N extent of a warp tile over the N extent
    # of a thread tile (reduce.cpp: WarpTile, ThreadTile sequences)
    wt = re.search(r"WarpTile\s*=\s*ck_tile::sequence<(\d+),\s*(\d+)>", reduce_src)
    tt = re.search(r"ThreadTile\s*=\s*ck_tile::sequence<(\d+),\s*(\d+)>", reduce_src)
    c.check(wt and tt, "reduce.cpp: WarpTile/ThreadTile not found")
    if not (wt and tt):
        return
    lanes = int(wt.group(2)) // int(tt.group(2))
    ir = ir_of(k)
    red = [d for d in ir.get("idioms") or [] if d.get("kind") in ("wave_reduce", "partial_reduce")
           and "bpermute" in str(d.get("via"))]
    c.check(red, "reduce: no reduction via bpermute among the IR idioms: %r"
            % [(d.get("kind"), d.get("via")) for d in ir.get("idioms") or []][:6])
    for d in red:
        c.eq(d.get("op"), "add", "reduce: the reduction's operation")
        want = 64 if lanes >= 64 else lanes
        c.eq(d.get("lanes"), want, "reduce: lanes a reduction combines (WarpTile N / ThreadTile N)")
    # the reduction sweep moves each value log2(lanes) times; the broadcast
    # sweep back as often: half of the ISA's ds_bpermute are the reduction's
    members = sum(len(d.get("cross_lane") or []) for d in red)
    c.eq(members, len(bp) // 2, "reduce: bpermutes in the reductions against half of llvm-objdump's")
    over = section(pg, "Reductions and cross-lane steps", "\n")
    c.check("partial_reduce (add) via bpermute" in over or "wave_reduce (add) via bpermute" in over,
            "reduce: the overview does not name the reduction: " + over[:300])


def check_once(pg, what):
    """Each idiom of the overview's line once, with its count."""
    over = section(pg, "Reductions and cross-lane steps", "\n")
    items = [x.strip() for x in over.split(":", 1)[-1].split(";")]
    names = [re.sub(r" \(\d+ times\)\.?$", "", x).rstrip(".") for x in items]
    dup = {n for n in names if names.count(n) > 1}
    c.check(not dup, "%s: the overview repeats %r" % (what, sorted(dup)))


# ---- test-local kernels: occupancy at the block size, spills -----------------------------------

def gfx942_reachable(kd):
    """Waves per SIMD a launch of .max_flat_workgroup_size work-items reaches
    (gfx942: 512 VGPRs per lane in granules of 8, 8 waves per SIMD, 4 SIMDs,
    64 KiB of LDS per CU)."""
    v = max(kd[".vgpr_count"], 1)
    by_vgpr = min(8, 512 // (-(-v // 8) * 8))
    assert kd[".sgpr_count"] <= 80  # the SGPR term allows every wave slot
    per_wg = -(-kd[".max_flat_workgroup_size"] // 64)
    wgs = by_vgpr * 4 // per_wg
    lds = kd.get(".group_segment_fixed_size", 0)
    if lds:
        wgs = min(wgs, 65536 // lds)
    return -(-(wgs * per_wg) // 4), kd[".max_flat_workgroup_size"]


def gfx942_by_regs(kd):
    """Waves per SIMD gfx942's registers allow (gfx942_reachable's terms)."""
    return min(8, 512 // (-(-max(kd[".vgpr_count"], 1) // 8) * 8))


def check_local(args, work):
    d = os.path.join(work, "local")
    os.makedirs(d, exist_ok=True)
    obj = os.path.join(d, "facts_kernels.o")
    cmd = [args.clangxx, "-x", "hip", "@" + args.rsp, "--offload-arch=" + ARCH, "-O3", "-cuid=kwf",
           "-fplugin=" + args.plugin, "-fplugin-arg-kwalk-out=" + d, "-c",
           os.path.join(HERE, "src", "facts_kernels.hip"), "-o", obj]
    r = run(cmd)
    c.check(r.returncode == 0 and "kwalk:" not in r.stderr, "facts_kernels.hip: " + r.stderr[-600:])
    if r.returncode:
        return
    md = notes(args, code_object(args, obj, d))
    db = os.path.join(d, "kwalk.db")
    run([args.kwalk, "index", d, "-o", db], must=True)
    k768 = md.get("_Z12kwf_block768PfPKfi")
    c.check(k768, "facts_kernels: no kwf_block768 in the code object")
    if k768:
        want, block = gfx942_reachable(k768)
        pg = page(args, db, "kwf_block768")
        row = re.search(r"^\| Occupancy at the compiled block size \| `([^`]*)` \|", pg, re.M)
        c.eq(row and row.group(1), "%d (%d work-items)" % (want, block),
             "kwf_block768: occupancy at its compiled block size")
        c.check(re.search(r"%d waves per SIMD is what a launch at that size reaches" % want, pg),
                "kwf_block768: section 5 does not explain the occupancy at the block size")
        # the registers allow more than whole workgroups of that size fill:
        # the block size is what limits (no LDS in the kernel)
        c.check(want < gfx942_by_regs(k768) and not k768.get(".group_segment_fixed_size"),
                "kwf_block768: the test kernel is not limited by its block size alone")
        lim = re.search(r"^\| Occupancy limiter \| `([^`]*)` \|", pg, re.M)
        c.eq(lim and lim.group(1), "block size (%d work-items)" % block,
             "kwf_block768: the occupancy limiter at its compiled block size")
    ks = md.get("_Z9kwf_spillPfPKf")
    c.check(ks and ks.get(".vgpr_spill_count", 0) > 0,
            "facts_kernels: kwf_spill does not spill (the test kernel needs more pressure)")
    if ks and ks.get(".vgpr_spill_count", 0) > 0:
        pg = page(args, db, "kwf_spill")
        over = section(pg, "## Overview", "\n## ")
        n, s, scratch = ks[".vgpr_spill_count"], ks[".sgpr_spill_count"], ks[".private_segment_fixed_size"]
        c.check("Register spills on %s: %d VGPRs and %d SGPRs go to scratch (%d bytes per lane"
                % (ARCH, n, s, scratch) in over, "kwf_spill: the overview does not state the spills "
                "(%d VGPRs, %d bytes of scratch)" % (n, scratch))
        c.check(re.search(r"On %s the kernel spills %d VGPRs? and %d SGPRs? to scratch \(%d bytes"
                          % (ARCH, n, s, scratch), pg),
                "kwf_spill: section 5 does not state the spills")


def main():
    args = ckargs()
    obj_dir = os.path.join(args.work, "plugin", "obj")
    side = os.path.join(args.work, "plugin", "side")
    work = os.path.join(args.work, "facts")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    db = os.path.join(work, "kwalk.db")
    run([args.kwalk, "index", side, "-o", db], must=True)
    kernels = sidecar_kernels(side)
    md, isa = {}, {}
    for t in ("gemm_basic", "reduce", "ln_instance"):
        co = code_object(args, os.path.join(obj_dir, t + ".o"), work)
        md.update(notes(args, co))
        isa.update(disasm(args, co))
    check_params(args, kernels, md, src(args, "include/ck_tile/host/kernel_launch.hpp"))

    gemm_text = src(args, "include/ck_tile/ops/gemm/kernel/gemm_kernel.hpp")
    ln_text = src(args, "include/ck_tile/ops/layernorm2d/kernel/layernorm2d_fwd_kernel.hpp")
    reduce_src = src(args, "example/ck_tile/05_reduce/reduce.cpp")
    reduce_hpp = src(args, "example/ck_tile/05_reduce/reduce.hpp")
    found = set()
    for k in kernels:
        sym = k.get("symbol", "")
        if "kentry" not in sym or sym not in md:
            continue
        if "GemmKernel" in sym and "gemm" not in found:
            found.add("gemm")
            layout = kargs_checks(args, k, md, gemm_text, "GemmCommonKargs", "GemmKernel")
            pg = page(args, db, sym)
            if layout:
                check_gemm_isa(args, k, isa.get(sym, []), pg, layout)
            check_once(pg, "GEMM")
        elif "Layernorm2dFwd" in sym and "ln" not in found:
            found.add("ln")
            kargs_checks(args, k, md, ln_text, "Kargs", "Layernorm2dFwd")
            check_once(page(args, db, sym), "layernorm")
        elif "6Reduce" in sym and "reduce" not in found:
            found.add("reduce")
            want = operator_params(reduce_hpp, "Reduce")
            got = [p.get("name") for p in k.get("params") or []]
            c.eq(got, want, "reduce: pack elements named as Reduce::operator()'s parameters")
            pg = page(args, db, sym)
            check_reduce(args, k, isa.get(sym, []), pg, reduce_src)
            check_once(pg, "reduce")
    c.eq(sorted(found), ["gemm", "ln", "reduce"], "kernels of the fixture compared")
    check_local(args, args.work)
    c.finish()


if __name__ == "__main__":
    main()
