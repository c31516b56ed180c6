#!/usr/bin/env python3
"""model.page_isa: the page model's ISA part (model/kw_page_isa.h) against
llvm-objdump -d of the code objects, read here:

  test_page_isa.py --probe P --kwalk K --llvm-bin DIR
                   [--corpus-out DIR] [--triton-cache DIR]

The inputs are indexed (`kwalk index`), and page_isa_probe prints every
page's ISA part. For each kernel and arch, llvm-objdump's instructions of
the kernel's function (the C corpus objects' code objects unbundled by
clang-offload-bundler; a Triton specialization's NAME.hsaco) give:
  - the number of instructions the page splits the listing into;
  - section 5's mnemonic counts (the encoding suffix _e32, _e64, _sdwa,
    _dpp, _e64_dpp stripped here), every mnemonic and its count;
  - the class table's "insns" (all instructions) and the classes a
    mnemonic prefix decides alone (mfma, smfmac, waitcnt, barrier, smem);
  - the class the source <-> ISA view gives each instruction token whose
    mnemonic such a prefix decides.
llvm-objdump also prints the padding after a kernel (s_nop, s_code_end up to
the next function or the section's end): the code object's symbol size
(llvm-readelf --syms) bounds the function's instructions."""
import argparse
import collections
import glob
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import kwcap  # noqa: E402
import kwcheck  # noqa: E402
from kwpageprobe import probe_pages  # noqa: E402
from kwrun import run  # noqa: E402

CK = kwcheck.Checker("model.page_isa")

# (prefix, class): the classes a mnemonic's prefix decides alone
PREFIX_CLASS = [
    ("v_mfma", "mfma"),
    ("v_smfmac", "smfmac"),
    ("s_waitcnt", "waitcnt"),
    ("s_barrier", "barrier"),
    ("s_load_", "smem"),
    ("s_buffer_load_", "smem"),
    ("global_load_", "vmem_load"),
    ("buffer_load_", "vmem_load"),
    ("global_store_", "vmem_store"),
    ("buffer_store_", "vmem_store"),
    ("global_atomic_", "vmem_atomic"),
    ("buffer_atomic_", "vmem_atomic"),
    ("s_cbranch_", "branch"),
    ("ds_swizzle", "ds_swizzle"),
    ("ds_bpermute", "ds_bpermute"),
    ("ds_permute", "ds_permute"),
    ("v_readfirstlane", "readfirstlane"),
]
# the classes counted from those prefixes (their whole class: no other
# mnemonic falls in it)
COUNTED = {"mfma", "smfmac", "waitcnt", "smem"}


def prefix_class(mnem):
    for p, c in PREFIX_CLASS:
        if mnem.startswith(p):
            return c
    return None


def strip_suffix(m):
    for s in ("_e64_dpp", "_dpp", "_sdwa", "_e32", "_e64"):
        if m.endswith(s) and len(m) > len(s):
            return m[: -len(s)]
    return m


def symbol_sizes(args, co):
    """{FUNC symbol: (value, size)} of code object co, by llvm-readelf --syms."""
    r = run([kwcap.tool(args, "llvm-readelf"), "--syms", "--wide", co], must=True)
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(":") and f[3] == "FUNC" and f[6] != "UND":
            out[f[7]] = (int(f[1], 16), int(f[2]))
    return out


def objdump(args, co):
    """{function symbol: [mnemonic, ...]} of co, by llvm-objdump -d, each
    function's instructions within its symbol's size."""
    sizes = symbol_sizes(args, co)
    r = run([kwcap.tool(args, "llvm-objdump"), "-d", "--no-show-raw-insn", co], must=True)
    funcs, cur, lo, hi = {}, None, 0, 0
    for line in r.stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            cur = m.group(2)
            lo, size = sizes.get(cur, (int(m.group(1), 16), None))
            hi = lo + size if size else None
            funcs[cur] = []
            continue
        if cur is None or not line.startswith("\t"):
            continue
        text, _, comment = line.strip().partition("//")
        a = re.match(r"\s*([0-9A-Fa-f]+):", comment)
        if not text.strip() or not a:
            continue
        if hi is not None and int(a.group(1), 16) >= hi:
            continue
        funcs[cur].append(text.split()[0])
    return funcs


def compare(where, insns, facts, arch):
    """One kernel on one arch: the page's facts against objdump's insns."""
    a = [x for x in facts["A"] if x[0] == arch]
    if not a:
        CK.check(False, f"{where}: the page has no listing for {arch}")
        return
    CK.eq(int(a[0][2]), len(insns), f"{where}: instructions in the page's listing")
    want = collections.Counter(strip_suffix(m) for m in insns)
    got = collections.Counter({x[1]: int(x[2]) for x in facts["M"] if x[0] == arch})
    CK.eq(dict(got), dict(want), f"{where}: section 5's mnemonic counts")
    classes = {x[1]: int(x[2]) for x in facts["C"] if x[0] == arch}
    if classes:
        CK.eq(classes.get("insns"), len(insns), f"{where}: the class table's all instructions")
        byclass = collections.Counter(prefix_class(m) for m in insns)
        for c in sorted(COUNTED):
            CK.eq(classes.get(c, 0), byclass.get(c, 0), f"{where}: the class table's {c}")
    for t in facts["T"]:
        tok, cls = t[0], t[-1]
        want_c = prefix_class(tok)
        if want_c:
            CK.eq(cls, want_c, f"{where}: the view's class of {tok}")


def corpus(args, tmp):
    db = os.path.join(tmp, "corpus.db")
    run([args.kwalk, "index", args.corpus_out, "-o", db], must=True)
    # every (arch, kernel) of every object's code objects
    truth = collections.defaultdict(list)
    objs = sorted(glob.glob(os.path.join(args.corpus_out, "*.o")))
    for obj in objs:
        if not kwcap.has_section(args, obj, ".hip_fatbin"):
            continue
        for arch in args.archs.split(","):
            co, err = kwcap.unbundle_code_object(args, obj, arch, tmp)
            if err:
                continue
            for sym, insns in objdump(args, co).items():
                truth[(arch, sym)].append(insns)
    CK.check(truth, "the corpus objects have code objects")
    for sym, _, facts in probe_pages(args.probe, db):
        for a in facts["A"]:
            arch = a[0]
            cands = truth.get((arch, sym))
            if not cands:
                continue
            # a kernel defined in several objects: the one whose count matches
            pick = next((c for c in cands if len(c) == int(a[2])), cands[0])
            compare(f"{sym} ({arch})", pick, facts, arch)


def triton(args, tmp):
    db = os.path.join(tmp, "triton.db")
    run([args.kwalk, "index", "--triton-cache", args.triton_cache, "-o", db], must=True)
    for sym, cache, facts in probe_pages(args.probe, db):
        hs = glob.glob(os.path.join(cache or "", "*.hsaco")) if cache else []
        if len(hs) != 1 or not facts["A"]:
            continue
        funcs = objdump(args, hs[0])
        fn = sym.split("@")[0]  # the index's symbol: NAME@hash of the specialization
        CK.check(fn in funcs, f"{fn}: a function of {hs[0]}")
        if fn in funcs:
            compare(f"{fn} ({os.path.basename(cache)})", funcs[fn], facts, facts["A"][0][0])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--probe", required=True)
    p.add_argument("--kwalk", required=True)
    p.add_argument("--llvm-bin", required=True)
    p.add_argument("--archs", default="gfx942,gfx950")
    p.add_argument("--corpus-out")
    p.add_argument("--triton-cache")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="kw-page-isa-") as tmp:
        if args.triton_cache:
            triton(args, tmp)
        if args.corpus_out:
            corpus(args, tmp)
    CK.finish()


if __name__ == "__main__":
    main()
