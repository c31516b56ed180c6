#!/usr/bin/env python3
"""The ISA facts of every corpus sidecar (build/corpus/*.o.kwalk.yaml, written
by the plugin's host job) against the corpus objects themselves, for every
kernel and arch:
  - the code objects: llvm-objcopy --dump-section=.hip_fatbin, then
    clang-offload-bundler --list/--unbundle;
  - per arch, the sidecar lists exactly the code object's kernels (its
    amdhsa.kernels and its .kd symbols), each with the ISA facts;
  - target_id equals amdhsa.target and the bundle entry's id;
  - resources equal llvm-readelf --notes;
  - occupancy equals clang's -Rpass-analysis=kernel-resource-usage remark
    (remarks/<tu>.<arch>.txt, from a device-only compile whose code object is
    checked to be byte for byte the corpus's), as do LDS, scratch and SGPRs;
  - the isa listing equals llvm-objdump -d --mcpu=<arch> instruction for
    instruction (offset and text), and every "-> L<n>" is objdump's branch
    target;
  - classes add up to the listing; counts a mnemonic decides, DPP patterns and
    global/buffer/flat/scratch/SMEM widths equal counts over objdump's text;
  - schema 2: the sidecar itself carries none of the listing and what derives
    from it; its translation_unit.code_objects names each unbundled code
    object (target id, size, MD5 by Python's hashlib), and the facts above are
    those `kwalk index` reads back from the object (kwis_common.read_back)."""
import collections
import glob
import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from kwis_common import (ARCHS, CLASS_KEYS, CORPUS, DERIVED_KEYS, DIR, RESOURCE_KEYS, TUS, Check,
                         kernel_insns, load_yaml, objdump, read_back, parse_isa, parse_remarks,
                         readelf_kernels, run, same_bytes, scratch, sidecar_archs, symbols,
                         target_of, tool, unbundle)

PREFIX = {  # class: mnemonic prefixes (the ISA manuals' instruction names)
    "waitcnt": ("s_waitcnt",), "nop": ("s_nop",), "barrier": ("s_barrier",),
    "valu_packed": ("v_pk_",), "mfma": ("v_mfma_",), "smfmac": ("v_smfmac",),
    "ds_swizzle": ("ds_swizzle",), "ds_bpermute": ("ds_bpermute",),
    "ds_permute": ("ds_permute",), "readlane": ("v_readlane",),
    "writelane": ("v_writelane",), "readfirstlane": ("v_readfirstlane",),
    "permlane": ("v_permlane",),
    "branch": ("s_branch", "s_cbranch", "s_setpc", "s_swappc", "s_call"),
}
DPP = re.compile(r" (quad_perm:\[[0-9,]+\]|row_sh[lr]:\d+|row_ror:\d+|wave_(?:shl|shr|rol|ror):1|"
                 r"row_mirror|row_half_mirror|row_bcast:\d+|row_newbcast:\d+|row_share:\d+|"
                 r"row_xmask:\d+)")
# bytes per lane of a load/store, from the mnemonic's data-type suffix
WIDTH = [(re.compile(r"_dwordx(\d)"), None), (re.compile(r"_dword\b"), 4),
         (re.compile(r"_b(\d+)\b"), None), (re.compile(r"_(?:u|s)?short"), 2),
         (re.compile(r"_(?:u|s)?byte"), 1)]
VMEM = re.compile(r"^(global|buffer|flat|scratch)_(load|store)_(?!lds)")
SMEM = re.compile(r"^s_(?:buffer_)?load_(dwordx\d+|dword|b\d+)")


def width(mnemonic):
    for rx, w in WIDTH:
        m = rx.search(mnemonic)
        if m:
            if w:
                return w
            n = int(m.group(1))
            return 4 * n if "dwordx" in rx.pattern else n // 8
    return None


def truth_memory(texts):
    """Counter {(key, bytes)} of VMEM and SMEM loads/stores over objdump texts."""
    out = collections.Counter()
    for t in texts:
        mn = t.split(" ", 1)[0]
        m = VMEM.match(mn)
        if m:
            out[("%s_%s" % (m.group(1), m.group(2)), width(mn))] += 1
            continue
        m = SMEM.match(mn)
        if m:
            out[("smem_load", width(mn))] += 1
    return out


def check_kernel(c, where, a, md, sym, insns, remark):
    c.true(where + ": no ISA facts (target_id)", a.get("target_id"))
    res = a.get("resources") or {}
    for key, mkey in RESOURCE_KEYS.items():
        c.eq("%s: resources.%s" % (where, key), res.get(key), md.get(mkey))
    if remark is None:
        c.true(where + ": no remark for the kernel", False)
    else:
        c.eq(where + ": occupancy", res.get("occupancy"),
             int(remark["Occupancy [waves/SIMD]"]))
        c.eq(where + ": LDS (remark)", res.get("lds_bytes"), int(remark["LDS Size [bytes/block]"]))
        c.eq(where + ": scratch (remark)", res.get("scratch_bytes"),
             int(remark["ScratchSize [bytes/lane]"]))
        c.eq(where + ": SGPRs (remark)", res.get("sgpr"), int(remark["TotalSGPRs"]))
    c.true(where + ": occupancy limiter", res.get("occupancy_limiter") in
           ("none", "vgpr", "sgpr", "lds", "workgroup") or "+" in str(res.get("occupancy_limiter")))

    if sym is None:
        c.true(where + ": kernel symbol not in the code object's symbol table", False)
        return
    want = kernel_insns(insns, sym[0], sym[1])
    try:
        got, labels = parse_isa(a.get("isa") or "")
    except ValueError as e:
        c.true("%s: %s" % (where, e), False)
        return
    c.eq(where + ": instruction count", len(got), len(want))
    bad = [(g[:2], w[:2]) for g, w in zip(got, want) if g[:2] != w[:2]]
    c.eq(where + ": instructions differing from objdump (first 3)", bad[:3], [])
    # branch targets: a label exactly where objdump's <symbol+offset> points
    name = where.split(": ")[-1]
    used = set()
    for (off, _, lab), (_, _, tgt) in zip(got, want):
        inside = tgt is not None and tgt[0] == name and tgt[1] < sym[1]
        if lab is None:
            c.true("%s: +0x%x: objdump's branch target %r has no label" % (where, off, tgt),
                   not inside)
        else:
            used.add(lab)
            c.eq("%s: +0x%x: label L%d" % (where, off, lab), (name, labels.get(lab)), tgt)
    c.eq(where + ": labels no branch uses", sorted(set(labels) - used), [])

    cls = a.get("classes") or {}
    texts = [t for _, t, _ in want]
    c.eq(where + ": classes.insns", cls.get("insns"), len(want))
    c.eq(where + ": classes add up", sum(cls.get(k, 0) for k in CLASS_KEYS), len(want))
    for k, prefixes in PREFIX.items():
        c.eq("%s: classes.%s" % (where, k), cls.get(k),
             sum(t.split(" ", 1)[0].startswith(prefixes) for t in texts))
    pats = collections.Counter(m.group(1) for t in texts for m in [DPP.search(t)] if m)
    c.eq(where + ": classes.dpp", cls.get("dpp"), sum(pats.values()))
    c.eq(where + ": dpp_patterns", {p["key"]: p["n"] for p in a.get("dpp_patterns") or []},
         dict(pats))
    mem = collections.Counter()
    for m in a.get("memory") or []:
        if VMEM.match(m["key"] + "_") or m["key"] == "smem_load":
            mem[(m["key"], m["bytes"])] += m["n"]
    c.eq(where + ": memory (global/buffer/flat/scratch/smem)", dict(mem),
         dict(truth_memory(texts)))
    c.true(where + ": lines_note without line tables", a.get("lines_note") and not a.get("lines"))


def check_code_objects(c, tu, stored, cos):
    """The schema 2 form: code objects named, no listing stored."""
    if not stored["translation_unit"].get("code_objects") and any(
            a.get("isa") for a in sidecar_archs(stored).values()):
        return  # the listing inline (schema 1 form, e.g. check_selftest's copy)
    table = stored["translation_unit"].get("code_objects") or []
    want = []
    for tid, co in sorted(cos.items()):
        with open(co, "rb") as f:
            data = f.read()
        want.append({"arch": tid.split(":")[0], "target_id": tid, "bytes": len(data),
                     "md5": hashlib.md5(data).hexdigest()})
    c.eq(tu + ": translation_unit.code_objects", sorted(table, key=lambda x: x["target_id"]), want)
    for (sym, arch), a in sorted(sidecar_archs(stored).items()):
        c.eq("%s %s: %s: keys read back from the object, not stored" % (tu, arch, sym),
             sorted(k for k in (a or {}) if k in DERIVED_KEYS), [])


def main():
    c = Check("isa_sidecar.corpus")
    work = scratch("corpus")
    have = sorted(os.path.basename(p)[:-len(".o.kwalk.yaml")]
                  for p in glob.glob(os.path.join(CORPUS, "*.o.kwalk.yaml")))
    c.eq("corpus sidecars", have, sorted(TUS))
    for tu in TUS:
        obj = os.path.join(CORPUS, tu + ".o")
        stored = load_yaml(obj + ".kwalk.yaml")
        doc = read_back(obj + ".kwalk.yaml", work)
        archs = sidecar_archs(doc)
        cos = unbundle(obj, work, tu)
        check_code_objects(c, tu, stored, cos)
        if not cos:
            # a TU without kernels (the pybind glue): no .hip_fatbin, and then
            # no ISA facts and no remarks either
            c.eq(tu + ": archs without a .hip_fatbin", sorted(archs), [])
            for arch in ARCHS:
                c.eq("%s %s: remarks without a .hip_fatbin" % (tu, arch), parse_remarks(
                    os.path.join(DIR, "remarks", "%s.%s.txt" % (tu, arch))), {})
            continue
        c.eq(tu + ": code objects' archs", sorted(t.split(":")[0] for t in cos), sorted(ARCHS))
        for tid, co in sorted(cos.items()):
            arch = tid.split(":")[0]
            where = "%s %s" % (tu, arch)
            # the remark compile made exactly this code object
            rem_cos = unbundle(os.path.join(DIR, "remarks", "%s.%s.dev.o" % (tu, arch)), work,
                               "%s.remarks" % tu)
            c.true(where + ": the remark compile's code object differs from the corpus's",
                   tid in rem_cos and same_bytes(rem_cos[tid], co))
            remarks = parse_remarks(os.path.join(DIR, "remarks", "%s.%s.txt" % (tu, arch)))
            md_all = readelf_kernels(co)
            syms = symbols(co)
            kd = {s[:-3] for s in run([tool("llvm-nm"), co]).stdout.split() if s.endswith(".kd")}
            truth = set(md_all) | kd
            ours = {s: a for (s, key), a in archs.items() if key == arch}
            c.eq(where + ": kernels", sorted(ours), sorted(truth))
            c.eq(where + ": remarks' kernels", sorted(remarks), sorted(md_all))
            insns, _ = objdump(co, arch)
            md_target = target_of(co)
            for name in sorted(set(ours) & truth):
                a, md = ours[name], md_all.get(name, {})
                c.eq("%s: %s: target_id" % (where, name), a.get("target_id"), md_target)
                c.eq("%s: %s: target_id = bundle id" % (where, name), a.get("target_id"), tid)
                check_kernel(c, "%s: %s" % (where, name), a, md, syms.get(name), insns,
                             remarks.get(name))
            c.true(where + ": no kernels", len(truth) > 0)
        c.eq(tu + ": offload_archs", sorted(doc["translation_unit"].get("offload_archs") or []),
             sorted(ARCHS))
    c.report()


if __name__ == "__main__":
    main()
