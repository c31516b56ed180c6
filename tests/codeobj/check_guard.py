#!/usr/bin/env python3
"""The disassembly guard (kw_co_guard_refuses in codeobj/kw_co_disasm.c)
against the linked LLVM itself. Valid instructions are assembled by llvm-mc
(-show-encoding), then one field is set to the value of a guarded class (255
as a VOP3 destination or source, as MUBUF/MTBUF soffset; 7 as an SDWA
select; 3 as SDWA dst_unused, once guarded). kwco-probe-guard hands each
encoding to the linked LLVM in a forked child and prints whether it crashed,
next to the guard's decision. Checked, per processor:
  - every encoding that crashes LLVM is refused by the guard;
  - a refused encoding that does not crash is one LLVM cannot decode anyway
    (so the listing is the same `.long`);
  - a class on which the linked LLVM crashes nowhere is not guarded at all;
  - what is handed over (v255/a255 destinations above all) decodes to
    llvm-mc -disassemble's text."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwco_common  # noqa: E402
from kwcheck import Checker  # noqa: E402
from kwco_common import run, tool  # noqa: E402

PROBE = sys.argv[1]

# (class, assembly, [(field name, dword, shift, mask, value)])
VDST = ("vdst", 0, 0, 0xff, 0xff)
SRC = [("src%d" % i, 1, 9 * i, 0x1ff, 0xff) for i in range(3)]
SOFF = ("soffset", 1, 24, 0xff, 0xff)
SEL = {"dst_sel": ("dst_sel", 1, 8, 7, 7), "src0_sel": ("src0_sel", 1, 16, 7, 7),
       "src1_sel": ("src1_sel", 1, 24, 7, 7)}
UNUSED = ("dst_unused", 1, 11, 3, 3)
CASES = [
    ("sdst_lit", "v_cndmask_b32_e64 v1, v2, v3, s[4:5]", [VDST]),
    ("sdst_lit", "v_fma_f32 v1, v2, v3, v4", [VDST]),
    ("sdst_lit", "v_add_co_u32_e64 v1, s[4:5], v2, v3", [VDST]),
    ("sdst_lit", "v_pk_add_f16 v1, v2, v3", [VDST]),
    ("sdst_lit", "v_accvgpr_write_b32 a1, v2", [VDST]),
    ("sdst_lit", "v_accvgpr_read_b32 v1, a2", [VDST]),
    ("sdst_lit", "v_cmp_eq_f32_e64 s[4:5], v1, v2", [VDST]),
    ("sdst_lit", "v_cmpx_eq_f32_e64 s[4:5], v1, v2", [VDST]),
    ("sdst_lit", "v_cmp_class_f32_e64 s[4:5], v1, v2", [VDST]),
    ("sdst_lit", "v_readlane_b32 s5, v1, s2", [VDST]),
    ("src_lit", "v_add_f32_e64 v1, v2, v3", SRC),
    ("src_lit", "v_fma_f32 v1, v2, v3, v4", SRC),
    ("src_lit", "v_mov_b32_e64 v1, v2", SRC),
    ("src_lit", "v_pk_add_f16 v1, v2, v3", SRC),
    ("soff_lit", "buffer_load_dword v1, v2, s[4:7], s3 offen", [SOFF]),
    ("soff_lit", "buffer_store_dword v1, v2, s[4:7], s3 offen", [SOFF]),
    ("soff_lit", "tbuffer_load_format_x v1, v2, s[4:7], s3 format:[BUF_DATA_FORMAT_32,"
     "BUF_NUM_FORMAT_FLOAT] offen", [SOFF]),
    ("soff_lit", "buffer_wbl2", [SOFF]),
    ("sdwa_sel", "v_mov_b32_sdwa v1, v2 dst_sel:BYTE_1", [SEL["dst_sel"], SEL["src0_sel"],
                                                          SEL["src1_sel"]]),
    ("sdwa_sel", "v_add_f32_sdwa v1, v2, v3 src0_sel:BYTE_1", list(SEL.values())),
    ("sdwa_sel", "v_cmp_lt_f32_sdwa vcc, v2, v3 src1_sel:BYTE_1", list(SEL.values())),
    ("sdwa_unused", "v_mov_b32_sdwa v1, v2 dst_sel:BYTE_1", [UNUSED]),
    ("sdwa_unused", "v_add_f32_sdwa v1, v2, v3 src0_sel:BYTE_1", [UNUSED]),
]
# GFX8 and GFX9: the guard's processors (GFX10+ encode these fields
# elsewhere, and their VOP3 takes literals)
PROCESSORS = ["gfx803", "gfx900", "gfx908", "gfx90a", "gfx942", "gfx950"]


def encode(arch, texts):
    """llvm-mc's encoding of each instruction as 32-bit words, None where the
    processor has no such instruction (llvm-mc names its line on stderr)."""
    p = subprocess.run([tool("llvm-mc"), "-triple=amdgcn-amd-amdhsa", "-mcpu=" + arch,
                        "-show-encoding"], input="\n".join(texts) + "\n", capture_output=True,
                       text=True)
    bad = {int(m.group(1)) - 1 for m in re.finditer(r"^<stdin>:(\d+):\d+: error", p.stderr, re.M)}
    encs = [[int(x, 16) for x in line.split("encoding: [")[1].rstrip("]").split(",")]
            for line in p.stdout.splitlines() if "encoding: [" in line]
    good = [i for i in range(len(texts)) if i not in bad]
    if len(encs) != len(good):
        sys.exit("FAILED: llvm-mc -mcpu=%s gave %d encodings for %d instructions:\n%s" %
                 (arch, len(encs), len(good), p.stderr[-2000:]))
    out = [None] * len(texts)
    for i, b in zip(good, encs):
        out[i] = [int.from_bytes(bytes(b[j:j + 4]), "little") for j in range(0, len(b), 4)]
    return out


def mc_disassemble(arch, rows):
    """llvm-mc -disassemble's text of each row's words (all decodable)."""
    data = " ".join("0x%02x" % b for r in rows for w in r["words"]
                    for b in w.to_bytes(4, "little"))
    out = run([tool("llvm-mc"), "-disassemble", "-triple=amdgcn-amd-amdhsa",
               "-mcpu=" + arch], input=data, must=True).stdout
    lines = [" ".join(l.split("//")[0].split(";")[0].split()) for l in out.splitlines()]
    return [l for l in lines if l and not l.startswith(".")]


def main():
    version = run([PROBE, "--version"], must=True).stdout.strip()
    c = Checker("guard", who=kwco_common.WHO)
    procs = [a for a in PROCESSORS if a != "gfx950" or version != "19"]  # 19: no gfx950
    rows = []
    for arch in procs:
        for (klass, asm, fields), words in zip(CASES, encode(arch, [c[1] for c in CASES])):
            if not words:
                continue
            for name, word, shift, mask, value in fields:
                w = list(words)
                w[word] = (w[word] & ~(mask << shift)) | (value << shift)
                rows.append({"arch": arch, "class": klass, "what": "%s %s=%d" % (asm, name, value),
                             "words": w})
    probe_in = "".join("%s %s\n" % (r["arch"], " ".join("%08x" % w for w in r["words"]))
                       for r in rows)
    out = run([PROBE], input=probe_in, must=True).stdout.splitlines()
    c.eq(len(out), len(rows), "probe answers")
    for r, line in zip(rows, out):
        kv = dict(f.split("=", 1) for f in line.split(" ", 3))
        r.update(guard=kv["guard"] == "1", crash=kv["crash"] != "0", size=int(kv["size"]),
                 text=" ".join(kv["text"].split(";")[0].split()))
    crashing = {r["class"] for r in rows if r["crash"]}
    print("LLVM %s crashes on: %s" % (version, ", ".join(sorted(crashing)) or "none"))
    for r in rows:
        where = "LLVM %s %s: %s (%s)" % (version, r["arch"], r["what"],
                                         " ".join("%08x" % w for w in r["words"]))
        c.check(r["guard"] or not r["crash"],
                where + ": crashes LLVM but the guard lets it through")
        c.check(not r["guard"] or r["crash"] or r["size"] == 0,
                where + ": refused, but LLVM decodes it (%r)" % r["text"])
        c.check(not r["guard"] or r["class"] in crashing,
                where + ": guarded, but LLVM %s crashes on no %s encoding" % (version, r["class"]))
    # what is handed over decodes as llvm-mc does (v255, a255 destinations)
    for arch in procs:
        ok = [r for r in rows if r["arch"] == arch and not r["guard"] and
              r["size"] == 4 * len(r["words"])]
        want = mc_disassemble(arch, ok)
        c.eq(len(ok), len(want),
             "LLVM %s %s: instructions handed over vs llvm-mc -disassemble" % (version, arch))
        for r, w in zip(ok, want):
            c.eq(r["text"], w, "LLVM %s %s: %s" % (version, arch, r["what"]))
    wide = [r for r in rows if r["class"] == "sdst_lit" and not r["guard"] and
            ("v255" in r["text"] or "a255" in r["text"])]
    c.check(len(wide) >= 6, "some v255/a255 destinations decode (%d)" % len(wide))
    print("%d encodings on %s" % (len(rows), ", ".join(procs)))
    c.finish()


if __name__ == "__main__":
    main()
