"""kwkshared.py: ground truth for a kernel page's instruction mix and its
"What the instantiations share" section (issue 42; model.kpage_corpus,
model.kpage_shared, aiter.kernel_page): llvm-objdump -d of a code object per
symbol, its mnemonics classified as docs/render.md defines the mix, the
section parsed, and the section's calls and ISA facts checked against the
source lines and each instantiation's llvm-objdump / llvm-readelf --notes;
and the corpus tests' one set-up (`corpus_setup`).
"""
import argparse
import os
import re

from kwcheck import Checker
import kwrender
import kwrun

BRANCH = ("s_branch", "s_cbranch_", "s_setpc_", "s_swappc_", "s_call_")
NOT_SALU = BRANCH + ("s_waitcnt", "s_wait_", "s_barrier", "s_load_", "s_buffer_load_",
                     "s_store_", "s_buffer_store_", "s_scratch_", "s_dcache_", "s_atc_probe",
                     "s_memtime", "s_memrealtime", "s_atomic_", "s_buffer_atomic_", "s_prefetch_")
MATRIX = ("v_mfma_", "v_smfmac_", "v_wmma_", "v_swmmac_")
LANE = ("v_readlane_", "v_writelane_", "v_readfirstlane_", "v_permlane")
VMEM = ("global_", "buffer_", "tbuffer_", "flat_", "scratch_", "image_")


def mix_of(mnems):
    """(MFMA, VALU, SALU, VMEM, LDS, branch, all) of a list of mnemonics."""
    parts = [set(m.split("_")) for m in mnems]
    return (sum(m.startswith(MATRIX) for m in mnems),
            sum(m.startswith("v_") and not m.startswith(MATRIX + LANE) for m in mnems),
            sum(m.startswith("s_") and not m.startswith(NOT_SALU) and m != "s_nop"
                for m in mnems),
            sum(m.startswith(VMEM) and bool(p & {"load", "store", "atomic", "sample", "gather4"})
                for m, p in zip(mnems, parts)),
            sum(m.startswith("ds_") for m in mnems),
            sum(m.startswith(BRANCH) for m in mnems),
            len(mnems))


MIX = ["MFMA", "VALU", "SALU", "VMEM", "LDS", "branch"]
NOTES = {"VGPR": ".vgpr_count", "AGPR": ".agpr_count", "SGPR": ".sgpr_count",
         "VGPR spills": ".vgpr_spill_count", "SGPR spills": ".sgpr_spill_count",
         "LDS bytes": ".group_segment_fixed_size",
         "scratch bytes per lane": ".private_segment_fixed_size",
         "kernel-argument bytes": ".kernarg_segment_size", "wavefront size": ".wavefront_size",
         "max flat workgroup size": ".max_flat_workgroup_size"}
XLANE = re.compile(r"\b(row_\w+|quad_perm|row_bcast\w*|wave_\w+)\b|^(ds_swizzle|ds_bpermute|"
                   r"ds_permute|v_readlane|v_readfirstlane|v_permlane|v_\w+_dpp)")


def objdump(llvm_bin, co):
    """{symbol: [(mnemonic, operands), ...]} of llvm-objdump -d, each symbol
    within its llvm-readelf size."""
    sizes = {}
    for l in kwrun.run([os.path.join(llvm_bin, "llvm-readelf"), "--syms", "--wide", co],
                       must=True).stdout.splitlines():
        f = l.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] == "FUNC" and f[6] != "UND":
            sizes[f[7]] = (int(f[1], 16), int(f[2]))
    funcs, cur, hi = {}, None, None
    for l in kwrun.run([os.path.join(llvm_bin, "llvm-objdump"), "-d", "--no-show-raw-insn", co],
                       must=True).stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", l)
        if m:
            cur = m.group(2)
            lo, size = sizes.get(cur, (int(m.group(1), 16), 0))
            hi = lo + size if size else None
            funcs[cur] = []
            continue
        text, _, comment = l.strip().partition("//")
        at = re.match(r"\s*([0-9A-Fa-f]+):", comment)
        if cur is None or not l.startswith("\t") or not text.strip() or not at:
            continue
        if hi is None or int(at.group(1), 16) < hi:
            parts = text.split(None, 1)
            funcs[cur].append((parts[0], parts[1] if len(parts) > 1 else ""))
    return funcs


def corpus_setup(name):
    """The corpus kernel-page tests' arguments (--kwalk, --corpus-out, --src,
    --llvm-bin, --archs, --work), their Checker and the corpus's index in
    WORK: (args, checker, db)."""
    p = argparse.ArgumentParser()
    for opt in ("--kwalk", "--corpus-out", "--src", "--llvm-bin", "--archs", "--work"):
        p.add_argument(opt, required=True)
    a = p.parse_args()
    ck = Checker(name)
    os.makedirs(a.work, exist_ok=True)
    return a, ck, kwrender.corpus_db(a.kwalk, a.corpus_out, a.work)


def section(md):
    """The page's "What the instantiations share" section."""
    part = md.split("\n## What the instantiations share\n", 1)
    return part[1].split("\n## ", 1)[0] if len(part) > 1 else ""


CALL = re.compile(r"^( *)- `([^`]+)` at `([^`]+):(\d+)` \(defined at `([^`]+):(\d+)`\)"
                  r"(?:, under `([^`]+)`)?(?:: (\d+) of (\d+))?$")


def calls(sec):
    """(every, some): [(depth, label, file, line, def file, def line, under, n)]."""
    dev = sec.split("### 2. Device kernel", 1)[-1].split("\n### ", 1)[0]
    every, some, cur = [], [], None
    for l in dev.split("\n"):
        if l.startswith("The device calls every instantiation makes"):
            cur = every
        elif l.startswith("Where the instantiations differ"):
            cur = some
        m = CALL.match(l)
        if m and cur is not None:
            cur.append((len(m.group(1)) // 2, m.group(2), m.group(3), int(m.group(4)),
                        m.group(5), int(m.group(6)), m.group(7),
                        int(m.group(8)) if m.group(8) else None))
    return every, some


def text_line(path, n):
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError:
        return None
    return lines[n - 1] if 1 <= n <= len(lines) else None


def check_names(ck, name, every, some):
    for (d, label, f, n, df, dn, under, k) in every + some:
        last = label.split("::")[-1]
        at, de = text_line(f, n), text_line(df, dn)
        if last.startswith("operator"):
            sym = last[len("operator"):][:1]
            ck.check(at is not None and sym in at, "%s: %s at %s:%d: no %r there: %r"
                     % (name, label, f, n, sym, at))
            lam = label.startswith("(lambda")  # defined by its introducer, `[&](...)`
            ck.check(de is not None and ("[" if lam else "operator") in de,
                     "%s: %s defined at %s:%d: %r" % (name, label, df, dn, de))
            continue
        ck.check(at is not None and re.search(r"\b%s\b" % re.escape(last), at),
                 "%s: %s at %s:%d: the call line does not name it: %r" % (name, label, f, n, at))
        ck.check(de is not None and re.search(r"\b%s\b" % re.escape(last), de),
                 "%s: %s defined at %s:%d: the line does not name it: %r"
                 % (name, label, df, dn, de))


def check_isa(ck, name, sec, syms, per_arch):
    """Section 5's and the IR facts' lines against each symbol's code object."""
    n = 0
    isa = sec.split("### 5. ISA every instantiation has", 1)
    for l in (isa[1] if len(isa) > 1 else "").split("\n"):
        m = re.match(r"^- (\w+): (.*)$", l)
        if not m or m.group(1) not in per_arch:
            continue
        arch, rest = m.group(1), m.group(2)
        funcs, meta = per_arch[arch]
        parts = rest.split("; ")
        for item in parts[0].split(", "):
            r = re.match(r"^(.*) (-?\d+)$", item)
            if r and r.group(1) in NOTES:
                for s in syms:
                    ck.eq(meta.get(s, {}).get(NOTES[r.group(1)]), int(r.group(2)),
                          "%s %s %s: %s" % (name, arch, s, r.group(1)))
                    n += 1
        for p in parts[1:]:
            every = p.startswith("instructions every one's code has: ")
            if not every and not p.startswith("no one's code has: "):
                continue
            for cls in p.split(": ", 1)[1].split(", "):
                i = MIX.index(cls)
                for s in syms:
                    cnt = mix_of([x for x, _ in funcs.get(s, [])])[i]
                    ck.check(cnt > 0 if every else cnt == 0, "%s %s %s: %s counts %d, the page "
                             "says %s" % (name, arch, s, cls, cnt, "every" if every else "none"))
                    n += 1
    ir = sec.split("### 3. and 4. IR facts every instantiation has", 1)
    for l in (ir[1].split("\n### ", 1)[0] if len(ir) > 1 else "").split("\n"):
        m = re.match(r"^- (\w+): .*cross-lane idioms: ", l)
        if not m or m.group(1) not in per_arch:
            continue
        funcs = per_arch[m.group(1)][0]
        for s in syms:
            ck.check(any(XLANE.search(mn) or XLANE.search(ops) for mn, ops in funcs.get(s, [])),
                     "%s %s %s: a cross-lane idiom in every IR, none in its ISA"
                     % (name, m.group(1), s))
            n += 1
    return n
