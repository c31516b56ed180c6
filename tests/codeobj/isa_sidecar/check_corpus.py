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
import kwis_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwis_common import (ARCHS, CLASS_KEYS, CORPUS, DERIVED_KEYS, DIR, RESOURCE_KEYS, TUS,
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
    c.check(a.get("target_id"), where + ": no ISA facts (target_id)")
    res = a.get("resources") or {}
    for key, mkey in RESOURCE_KEYS.items():
        c.eq(res.get(key), md.get(mkey), "%s: resources.%s" % (where, key))
    if remark is None:
        c.check(False, where + ": no remark for the kernel")
    else:
        c.eq(res.get("occupancy"), int(remark["Occupancy [waves/SIMD]"]), where + ": occupancy")
        c.eq(res.get("lds_bytes"), int(remark["LDS Size [bytes/block]"]), where + ": LDS (remark)")
        c.eq(res.get("scratch_bytes"), int(remark["ScratchSize [bytes/lane]"]),
             where + ": scratch (remark)")
        c.eq(res.get("sgpr"), int(remark["TotalSGPRs"]), where + ": SGPRs (remark)")
    c.check(res.get("occupancy_limiter") in
           ("none", "vgpr", "sgpr", "lds", "workgroup") or "+" in str(res.get("occupancy_limiter")), where + ": occupancy limiter")

    if sym is None:
        c.check(False, where + ": kernel symbol not in the code object's symbol table")
        return
    want = kernel_insns(insns, sym[0], sym[1])
    try:
        got, labels = parse_isa(a.get("isa") or "")
    except ValueError as e:
        c.check(False, "%s: %s" % (where, e))
        return
    c.eq(len(got), len(want), where + ": instruction count")
    bad = [(g[:2], w[:2]) for g, w in zip(got, want) if g[:2] != w[:2]]
    c.eq(bad[:3], [], where + ": instructions differing from objdump (first 3)")
    # branch targets: a label exactly where objdump's <symbol+offset> points
    name = where.split(": ")[-1]
    used = set()
    for (off, _, lab), (_, _, tgt) in zip(got, want):
        inside = tgt is not None and tgt[0] == name and tgt[1] < sym[1]
        if lab is None:
            c.check(not inside,
                    "%s: +0x%x: objdump's branch target %r has no label" % (where, off, tgt))
        else:
            used.add(lab)
            c.eq((name, labels.get(lab)), tgt, "%s: +0x%x: label L%d" % (where, off, lab))
    c.eq(sorted(set(labels) - used), [], where + ": labels no branch uses")

    cls = a.get("classes") or {}
    texts = [t for _, t, _ in want]
    c.eq(cls.get("insns"), len(want), where + ": classes.insns")
    c.eq(sum(cls.get(k, 0) for k in CLASS_KEYS), len(want), where + ": classes add up")
    for k, prefixes in PREFIX.items():
        c.eq(cls.get(k), sum(t.split(" ", 1)[0].startswith(prefixes) for t in texts),
             "%s: classes.%s" % (where, k))
    pats = collections.Counter(m.group(1) for t in texts for m in [DPP.search(t)] if m)
    c.eq(cls.get("dpp"), sum(pats.values()), where + ": classes.dpp")
    c.eq({p["key"]: p["n"] for p in a.get("dpp_patterns") or []}, dict(pats),
         where + ": dpp_patterns")
    mem = collections.Counter()
    for m in a.get("memory") or []:
        if VMEM.match(m["key"] + "_") or m["key"] == "smem_load":
            mem[(m["key"], m["bytes"])] += m["n"]
    c.eq(dict(mem), dict(truth_memory(texts)), where + ": memory (global/buffer/flat/scratch/smem)")
    c.check(a.get("lines_note") and not a.get("lines"), where + ": lines_note without line tables")


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
    c.eq(sorted(table, key=lambda x: x["target_id"]), want, tu + ": translation_unit.code_objects")
    for (sym, arch), a in sorted(sidecar_archs(stored).items()):
        c.eq(sorted(k for k in (a or {}) if k in DERIVED_KEYS), [],
             "%s %s: %s: keys read back from the object, not stored" % (tu, arch, sym))


def main():
    c = Checker("isa_sidecar.corpus", who=kwis_common.WHO)
    work = scratch("corpus")
    have = sorted(os.path.basename(p)[:-len(".o.kwalk.yaml")]
                  for p in glob.glob(os.path.join(CORPUS, "*.o.kwalk.yaml")))
    c.eq(have, sorted(TUS), "corpus sidecars")
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
            c.eq(sorted(archs), [], tu + ": archs without a .hip_fatbin")
            for arch in ARCHS:
                c.eq(parse_remarks(
                    os.path.join(DIR, "remarks", "%s.%s.txt" % (tu, arch))), {}, "%s %s: remarks without a .hip_fatbin" % (tu, arch))
            continue
        c.eq(sorted(t.split(":")[0] for t in cos), sorted(ARCHS), tu + ": code objects' archs")
        for tid, co in sorted(cos.items()):
            arch = tid.split(":")[0]
            where = "%s %s" % (tu, arch)
            # the remark compile made exactly this code object
            rem_cos = unbundle(os.path.join(DIR, "remarks", "%s.%s.dev.o" % (tu, arch)), work,
                               "%s.remarks" % tu)
            c.check(tid in rem_cos and same_bytes(rem_cos[tid], co),
                    where + ": the remark compile's code object differs from the corpus's")
            remarks = parse_remarks(os.path.join(DIR, "remarks", "%s.%s.txt" % (tu, arch)))
            md_all = readelf_kernels(co)
            syms = symbols(co)
            kd = {s[:-3] for s in run([tool("llvm-nm"), co], must=True).stdout.split() if s.endswith(".kd")}
            truth = set(md_all) | kd
            ours = {s: a for (s, key), a in archs.items() if key == arch}
            c.eq(sorted(ours), sorted(truth), where + ": kernels")
            c.eq(sorted(remarks), sorted(md_all), where + ": remarks' kernels")
            insns, _ = objdump(co, arch)
            md_target = target_of(co)
            for name in sorted(set(ours) & truth):
                a, md = ours[name], md_all.get(name, {})
                c.eq(a.get("target_id"), md_target, "%s: %s: target_id" % (where, name))
                c.eq(a.get("target_id"), tid, "%s: %s: target_id = bundle id" % (where, name))
                check_kernel(c, "%s: %s" % (where, name), a, md, syms.get(name), insns,
                             remarks.get(name))
            c.check(len(truth) > 0, where + ": no kernels")
        c.eq(sorted(doc["translation_unit"].get("offload_archs") or []), sorted(ARCHS),
             tu + ": offload_archs")
    c.finish()


if __name__ == "__main__":
    main()
